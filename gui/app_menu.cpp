// The app's menu bar (file, lessons, view, GPU, run, help, and where the learner is) and the
// banner that says when nothing is measured (model mode): App members kept apart from app.cpp.
#include <imgui.h>
#include <algorithm>
#include <string>
#include "actions.h"
#include "app.h"
#include "fonts.h"
#include "panels.h"
#include "tabs.h"
#include "tilelab/i18n.h"
#include "ui_common.h"

namespace tilelab::gui {

namespace {

const ImVec4 kBannerColour(0.55f, 0.38f, 0.05f, 1.0f);

}  // namespace

void App::draw_menu_bar() {
    if (!ImGui::BeginMenuBar()) return;
    if (ImGui::BeginMenu(tr("menu.file").c_str())) {
        if (ImGui::MenuItem(tr("menu.save_settings").c_str(), nullptr, false, options_.persist)) SaveSettingsNow();
        if (ImGui::MenuItem(tr("menu.quit").c_str(), "Ctrl+Q")) quit_ = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu(tr("menu.lessons").c_str())) {
        const auto& lessons = all_lessons();
        for (size_t i = 0; i < lessons.size(); ++i)
            if (ImGui::MenuItem(lessons[i].title.c_str(), lessons[i].id.substr(0, 2).c_str(),
                                int(i) == state_.lesson_index))
                EnterLesson(state_, int(i));
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu(tr("menu.view").c_str())) {
        ImGui::MenuItem(tr("menu.presenter_mode").c_str(), "Ctrl+P", &state_.presenter_mode);
        ImGui::MenuItem(tr("menu.full_screen").c_str(), "F11", &state_.fullscreen);
        ImGui::MenuItem(tr("menu.lesson_text").c_str(), nullptr, &state_.show_lesson, !state_.presenter_mode);
        ImGui::Separator();
        if (ImGui::MenuItem(tr("menu.larger_text").c_str(), "Ctrl +")) state_.font_scale = std::min(3.0f, state_.font_scale + 0.1f);
        if (ImGui::MenuItem(tr("menu.smaller_text").c_str(), "Ctrl -")) state_.font_scale = std::max(0.5f, state_.font_scale - 0.1f);
        if (ImGui::MenuItem(tr("menu.normal_text").c_str(), "Ctrl 0")) state_.font_scale = 1.0f;
        ImGui::Separator();
        for (const Tab& t : kTabs) ImGui::MenuItem(tr(t.menu_key).c_str(), nullptr, &(state_.*t.shown));
        ImGui::Separator();
        // Each language in its own name, so a user who cannot read the current one finds theirs.
        if (ImGui::BeginMenu(tr("menu.language").c_str())) {
            if (ImGui::MenuItem("English", nullptr, state_.language == Language::English))
                state_.language = Language::English;
            if (ImGui::MenuItem("简体中文", nullptr, state_.language == Language::Chinese))
                state_.language = Language::Chinese;
            ImGui::EndMenu();
        }
        ImGui::EndMenu();
    }
    DrawGpuMenu(gpu_draft_, engine_thread_, options_.persist ? settings_path_ : "", state_.notice);
    if (ImGui::BeginMenu(tr("menu.run").c_str())) {
        if (ImGui::MenuItem(tr("menu.run_again").c_str(), "F5")) SubmitRequest(state_);
        RunOptions& o = state_.run_options;
        bool changed = false;
        changed |= ImGui::MenuItem(tr("menu.flush_l2_between_repetitions").c_str(), nullptr, &o.flush_l2);
        changed |= ImGui::MenuItem(tr("menu.count_accesses_instrumented_build").c_str(), nullptr, &o.count_accesses);
        changed |= ImGui::MenuItem(tr("menu.time_the_reference_cublas_copy").c_str(), nullptr, &o.time_reference);
        changed |= ImGui::MenuItem(tr("menu.hardware_counters_cupti_full_runs").c_str(), nullptr, &o.hardware_counters);
        if (ImGui::IsItemHovered())
            WrappedTooltip(tr("menu.hardware_counters_help").c_str());
        changed |= ImGui::MenuItem(tr("menu.stall_samples").c_str(), nullptr, &o.stall_samples);
        if (ImGui::IsItemHovered())
            WrappedTooltip(tr("menu.stall_samples_help").c_str());
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        if (ImGui::SliderInt(tr("menu.repetitions").c_str(), &o.repetitions, 1, 100)) changed = true;
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        if (ImGui::SliderInt(tr("menu.warm_up_runs").c_str(), &o.warmup, 0, 20)) changed = true;
        if (changed && !ImGui::IsAnyItemActive()) SubmitRequest(state_);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu(tr("menu.help").c_str())) {
        ImGui::TextUnformatted(tr("menu.left_right_previous_next_step").c_str());
        ImGui::TextUnformatted(tr("menu.pgup_pgdn_previous_next_lesson").c_str());
        ImGui::TextUnformatted(tr("menu.ctrl_ctrl_larger_smaller_text").c_str());
        ImGui::TextUnformatted(tr("menu.ctrl_p_presenter_mode").c_str());
        ImGui::TextUnformatted(tr("menu.f11_full_screen").c_str());
        ImGui::TextUnformatted(tr("menu.f5_run_again").c_str());
        ImGui::EndMenu();
    }
    // Lesson and step on the right of the menu bar: where we are, always visible.
    // A title too long for what the menus leave is shortened; the step always shows.
    if (const Lesson* lesson = CurrentLesson(state_)) {
        const std::string step = "  \xc2\xb7  " + trf("menu.step_of", state_.step_index + 1, std::max<size_t>(1, lesson->steps.size()));
        const float left = ImGui::GetCursorPosX() + 20, right = ImGui::GetWindowWidth() - ImGui::GetStyle().WindowPadding.x * 2;
        const std::string where = Ellipsized(lesson->title, right - left - ImGui::CalcTextSize(step.c_str()).x) + step;
        ImGui::SameLine(std::max(left, right - ImGui::CalcTextSize(where.c_str()).x));
        ImGui::TextDisabled("%s", where.c_str());
    }
    ImGui::EndMenuBar();
}

void App::draw_model_banner() {
    if (!engine_thread_.ready()) {
        ImGui::TextDisabled("%s", tr("menu.starting_the_engine_looking_for_a_gpu").c_str());
        return;
    }
    const DeviceStatus device = engine_thread_.device();
    if (device.gpu) return;
    ImGui::PushStyleColor(ImGuiCol_ChildBg, kBannerColour);
    const float h = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y;
    ImGui::BeginChild("##model_banner", ImVec2(0, h), false, ImGuiWindowFlags_NoScrollbar);
    ImGui::SetCursorPos(ImVec2(ImGui::GetStyle().WindowPadding.x, ImGui::GetStyle().WindowPadding.y * 0.5f));
    ImGui::AlignTextToFramePadding();
    PushFontOrDefault(AppFonts().bold);
    ImGui::TextUnformatted(tr("banner.model_mode").c_str());
    ImGui::PopFont();
    // The picker first: whatever the width, it stays reachable; the reason is shortened to the
    // room left, and the whole of it is a tooltip.
    ImGui::SameLine();
    ImGui::TextUnformatted(tr("banner.for").c_str());
    ImGui::SameLine();
    DrawTargetPicker(state_);
    ImGui::SameLine();
    const std::string reason = device.reason.empty() ? tr("banner.no_gpu") : device.reason;
    const std::string line = trf("banner.nothing_measured", reason);
    TextEllipsized(line);
    if (ImGui::IsItemHovered()) WrappedTooltip(line.c_str());
    ImGui::EndChild();
    ImGui::PopStyleColor();
}

}  // namespace tilelab::gui
