// Where the GPU is, as a setting (gpu_setting.h).
#include "gpu_setting.h"
#include <imgui.h>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <cstring>
#include "tilelab/safe_file.h"
#include "ui_common.h"
#include "tilelab/i18n.h"

namespace tilelab::gui {
namespace {

using nlohmann::json;
constexpr size_t kMaxSettingsBytes = 1 << 20;

// The file's object, or false (absent: an empty object).
bool read_settings(const std::string& path, json& j, std::string& error) {
    std::string text;
    const ReadOutcome got = read_regular_file(path, kMaxSettingsBytes, text, error);
    if (got == ReadOutcome::missing) {
        j = json::object();
        return true;
    }
    if (got != ReadOutcome::ok) return false;
    j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        error = path + " does not parse; the GPU setting was not saved into it";
        return false;
    }
    return true;
}

GpuLocation draft_location(const GpuSettingDraft& d) {
    GpuLocation where;
    where.host = d.host;
    where.command = d.command;
    return where;
}

void apply(const GpuLocation& where, GpuSettingDraft& draft, EngineThread& engine, const std::string& path,
           std::string& notice) {
    if (const std::string p = where.problem(); !p.empty()) {
        notice = trf("gpu.setting_problem", p);
        return;
    }
    engine.reconnect(where);
    std::string error;
    if (!path.empty() && !SaveGpuSetting(path, where, error)) notice = trf("gpu.setting_not_saved", error);
    draft.loaded = false;
}

}  // namespace

GpuLocation LoadGpuSetting(const std::string& settings_path, std::string& notice) {
    GpuLocation where;
    json j;
    std::string error;
    if (settings_path.empty() || !read_settings(settings_path, j, error)) return where;
    for (const char* key : {"gpu_host", "gpu_command"}) {
        if (!j.contains(key)) continue;
        if (!j.at(key).is_string()) {
            notice = trf("gpu.setting_not_text", key);
            return GpuLocation{};
        }
        (std::strcmp(key, "gpu_host") == 0 ? where.host : where.command) = j.at(key).get<std::string>();
    }
    if (const std::string p = where.problem(); !p.empty()) {
        notice = trf("gpu.setting_not_usable", p);
        return GpuLocation{};
    }
    return where;
}

bool SaveGpuSetting(const std::string& settings_path, const GpuLocation& where, std::string& error) {
    json j;
    if (!read_settings(settings_path, j, error)) return false;
    j["gpu_host"] = where.host;
    j["gpu_command"] = where.command;
    return write_file_atomic(settings_path, j.dump(2) + "\n", error);
}

std::string LoadGpuSetForSweeps(const std::string& settings_path) {
    json j;
    std::string error;
    if (settings_path.empty() || !read_settings(settings_path, j, error)) return "";
    return j.contains("gpus") && j.at("gpus").is_string() ? j.at("gpus").get<std::string>() : "";
}

bool SaveGpuSetForSweeps(const std::string& settings_path, const std::string& gpus, std::string& error) {
    json j;
    if (!read_settings(settings_path, j, error)) return false;
    j["gpus"] = gpus;
    return write_file_atomic(settings_path, j.dump(2) + "\n", error);
}

void DrawGpuMenu(GpuSettingDraft& draft, EngineThread& engine, const std::string& settings_path, std::string& notice) {
    if (!draft.gpus_restored) {   // once, menu open or not: the remembered set applies from the start
        draft.gpus_restored = true;
        if (const std::string gpus = LoadGpuSetForSweeps(settings_path); !gpus.empty())
            if (const std::string problem = engine.set_gpu_set(gpus); !problem.empty()) notice = trf("gpu.setting_problem", problem);
    }
    if (!ImGui::BeginMenu("GPU")) return;   // the same word in both languages
    if (!draft.loaded) {
        std::string ignored;
        const GpuLocation now = engine.location();
        std::snprintf(draft.host, sizeof draft.host, "%s", now.host.c_str());
        std::snprintf(draft.command, sizeof draft.command, "%s", now.command.c_str());
        std::snprintf(draft.gpus, sizeof draft.gpus, "%s", engine.gpu_set().c_str());
        draft.loaded = true;
    }
    ImGui::TextDisabled("%s", tr("gpu.where_runs_go").c_str());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
    ImGui::InputTextWithHint((tr("gpu.host") + "###gpu_host").c_str(), tr("gpu.host_hint").c_str(), draft.host, sizeof draft.host);
    if (ImGui::IsItemHovered())
        WrappedTooltip(tr("gpu.host_help").c_str());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
    ImGui::InputTextWithHint((tr("gpu.command") + "###gpu_command").c_str(), "srun --gres=gpu:1 tilelab-gpu-worker --stdio", draft.command,
                             sizeof draft.command);
    if (ImGui::IsItemHovered())
        WrappedTooltip(tr("gpu.command_help").c_str());
    if (ImGui::MenuItem(tr("gpu.connect").c_str())) apply(draft_location(draft), draft, engine, settings_path, notice);
    if (ImGui::MenuItem(tr("gpu.use_this_computer").c_str())) apply(GpuLocation{}, draft, engine, settings_path, notice);
    const DeviceStatus d = engine.device();
    if (ImGui::MenuItem(tr("gpu.reconnect").c_str(), nullptr, false, engine.location().remote())) engine.reconnect(engine.location());
    if (!d.gpu && !d.reason.empty()) ImGui::TextDisabled("%s", d.reason.c_str());
    ImGui::Separator();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    ImGui::InputTextWithHint((tr("gpu.sweep_gpus") + "###sweep_gpus").c_str(), tr("gpu.sweep_gpus_hint").c_str(), draft.gpus,
                             sizeof draft.gpus);
    if (ImGui::IsItemHovered()) WrappedTooltip(tr("gpu.sweep_gpus_help").c_str());
    if (ImGui::MenuItem(tr("gpu.apply_sweep_gpus").c_str())) {
        if (const std::string problem = engine.set_gpu_set(draft.gpus); !problem.empty()) {
            notice = trf("gpu.setting_problem", problem);
        } else if (std::string error; !settings_path.empty() && !SaveGpuSetForSweeps(settings_path, draft.gpus, error)) {
            notice = trf("gpu.setting_not_saved", error);
        }
    }
    ImGui::EndMenu();
}

void DrawGpuStatus(EngineThread& engine, float right) {
    const DeviceStatus device = engine.device();
    const Target target = engine.target();
    const ImVec4 dim = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    if (engine.reconnecting()) {
        FittedText(tr("gpu.connecting"), dim, right);
        return;
    }
    if (device.gpu) {
        const std::string where = device.where.empty() ? "" : trf("gpu.on_host", device.where);
        FittedText(trf("gpu.status_gpu", device.name, target.arch_name(), where), StatusColorVec(true), right);
        if (const std::string note = engine.gpu_note(); note.rfind("waiting", 0) == 0) {
            ImGui::SameLine();
            FittedText("  " + note, CautionColorVec(), right);
        }
        return;
    }
    FittedText(trf("gpu.status_model", target.name, target.arch_name()), dim, right);
    if (device.where.empty() && !device.unreachable) return;
    // The reason gets the room the Reconnect button leaves, so that the button stays in view.
    const std::string reconnect = tr("gpu.reconnect");
    const float button = device.unreachable ? ButtonWidth(reconnect.c_str()) : 0.0f;
    ImGui::SameLine();
    FittedText(" " + device.reason, CautionColorVec(), right - (button > 0 ? button + ImGui::GetStyle().ItemSpacing.x : 0.0f));
    if (!device.unreachable) return;
    ImGui::SameLine();
    if (ImGui::GetCursorPosX() + button > right + 1.0f) return;   // not even the button fits
    if (ImGui::SmallButton(reconnect.c_str())) engine.reconnect(engine.location());
}

}  // namespace tilelab::gui
