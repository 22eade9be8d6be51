#include "settings.h"
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include "actions.h"

namespace tilelab::gui {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ConfigDir() {
    std::string base;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home) base = std::string(home) + "/.config";
    else return "";
    const std::string dir = base + "/tilelab";
    std::error_code ec;
    fs::create_directories(dir, ec);
    return ec ? "" : dir;
}

std::string SettingsPath() {
    const std::string dir = ConfigDir();
    return dir.empty() ? "" : dir + "/settings.json";
}

SavedPlace LoadSettings(const std::string& path, AppState& state) {
    SavedPlace place;
    if (path.empty()) return place;
    std::ifstream in(path);
    if (!in) return place;
    const json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return place;
    place.lesson_id = j.value("lesson", std::string());
    place.step = j.value("step", 0);
    place.model_target = j.value("model_target", std::string());
    state.font_scale = std::clamp(j.value("font_scale", 1.0f), 0.5f, 3.0f);
    state.presenter_mode = j.value("presenter", false);
    state.show_lesson = j.value("show_lesson", true);
    state.active_tab = j.value("tab", state.active_tab);
    state.select_tab = state.active_tab;
    if (j.contains("params") && j["params"].is_object())
        for (const auto& [variant, values] : j["params"].items()) {
            if (!values.is_object()) continue;
            ParamValues pv;
            for (const auto& [name, v] : values.items())
                if (v.is_number_integer()) pv[name] = v.get<int>();
            state.params_by_variant[variant] = pv;
        }
    if (j.contains("size") && j["size"].is_object())
        for (const auto& [variant, v] : j["size"].items())
            if (v.is_string()) state.size_by_variant[variant] = v.get<std::string>();
    return place;
}

bool SaveSettings(const std::string& path, const AppState& state, std::string& error) {
    if (path.empty()) {
        error = "There is no configuration folder (neither XDG_CONFIG_HOME nor HOME is set).";
        return false;
    }
    json j;
    if (const Lesson* lesson = CurrentLesson(state)) j["lesson"] = lesson->id;
    j["step"] = state.step_index;
    j["font_scale"] = state.font_scale;
    j["presenter"] = state.presenter_mode;
    j["show_lesson"] = state.show_lesson;
    j["tab"] = state.active_tab;
    const auto& presets = target_presets();
    if (state.model_target_index >= 0 && state.model_target_index < int(presets.size()))
        j["model_target"] = presets[size_t(state.model_target_index)].preset;
    json params = json::object();
    for (const auto& [variant, values] : state.params_by_variant) params[variant] = values;
    j["params"] = params;
    j["size"] = state.size_by_variant;

    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        if (!out) {
            error = "Could not write " + tmp + ".";
            return false;
        }
        out << j.dump(2) << '\n';
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        error = "Could not replace " + path + ": " + ec.message() + ".";
        return false;
    }
    return true;
}

}  // namespace tilelab::gui
