// [SECTION] Lesson panel: the navigator (every lesson in teaching order, its steps) and the
// current step's text with its measured answers. Entering a step sets its whole state (actions.cpp).
#include <imgui.h>
#include <string>
#include "actions.h"
#include "fonts.h"
#include "markdown.h"
#include "panels.h"
#include "ui_common.h"

namespace tilelab::gui {

namespace {

std::string lesson_label(const Lesson& l) { return l.id.substr(0, 2) + "  " + l.title; }

void draw_navigator(AppState& state, const Lesson& lesson) {
    const auto& lessons = all_lessons();
    const float arrow_w = ImGui::GetFrameHeight();
    ImGui::BeginDisabled(state.lesson_index == 0);
    if (ImGui::ArrowButton("##prev_lesson", ImGuiDir_Left)) EnterLesson(state, state.lesson_index - 1);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - arrow_w - ImGui::GetStyle().ItemSpacing.x);
    if (ImGui::BeginCombo("##lesson", lesson_label(lesson).c_str(), ImGuiComboFlags_HeightLarge)) {
        for (size_t i = 0; i < lessons.size(); ++i) {
            const bool selected = int(i) == state.lesson_index;
            if (ImGui::Selectable(lesson_label(lessons[i]).c_str(), selected)) EnterLesson(state, int(i));
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(state.lesson_index + 1 >= int(lessons.size()));
    if (ImGui::ArrowButton("##next_lesson", ImGuiDir_Right)) EnterLesson(state, state.lesson_index + 1);
    ImGui::EndDisabled();

    if (lesson.steps.empty()) return;
    // Steps as numbered buttons; the current one highlighted, titles on hover.
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("Step");
    for (size_t i = 0; i < lesson.steps.size(); ++i) {
        ImGui::SameLine();
        const bool current = int(i) == state.step_index;
        if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        const std::string label = std::to_string(i + 1) + "##step";
        ImGui::PushID(int(i));
        if (ImGui::Button(label.c_str(), ImVec2(ImGui::GetFrameHeight() * 1.2f, 0))) EnterStep(state, int(i));
        ImGui::PopID();
        if (current) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", lesson.steps[i].title.c_str());
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(\xe2\x86\x90 \xe2\x86\x92 keys)");
}

// A "which is faster?" step's measured answer (<!-- measured: -->), from the benchmarks on a
// reference GPU: labelled with that GPU and the date, so it never poses as this machine's.
void draw_measured_answers(const LessonStep& step) {
    for (size_t i = 0; i < step.measured.size(); ++i) {
        const MeasuredAnswer& answer = step.measured[i];
        ImGui::PushID(int(i));
        ImGui::Spacing();
        ImGui::TextDisabled("Measured on %s:", answer.where.c_str());
        if (ImGui::BeginTable("##measured", 2, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit)) {
            for (const auto& [config, time] : answer.times) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(config.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(time.c_str());
            }
            ImGui::EndTable();
        }
        ImGui::PopID();
    }
}

}  // namespace

void DrawLessonPanel(AppState& state) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson) {
        ImGui::TextWrapped("No lesson is loaded.");
        return;
    }
    draw_navigator(state, *lesson);
    ImGui::Separator();

    ImGui::BeginChild("##lesson_text", ImVec2(0, -ImGui::GetFrameHeightWithSpacing()), false);
    if (state.drawn_lesson != state.lesson_index || state.drawn_step != state.step_index) ImGui::SetScrollY(0);
    state.drawn_lesson = state.lesson_index;
    state.drawn_step = state.step_index;

    if (state.step_index == 0) {
        PushFontOrDefault(AppFonts().h1);
        ImGui::TextWrapped("%s", lesson->title.c_str());
        ImGui::PopFont();
        if (!lesson->intro.empty()) RenderMarkdown(lesson->intro);
    }
    if (state.step_index < int(lesson->steps.size())) {
        RenderMarkdown(lesson->steps[size_t(state.step_index)].markdown);
        draw_measured_answers(lesson->steps[size_t(state.step_index)]);
    } else if (lesson->intro.empty()) {
        ImGui::TextDisabled("This lesson has no text yet.");
    }
    ImGui::EndChild();

    // Previous / next at the bottom, where the eye ends after reading.
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    const bool first = state.lesson_index == 0 && state.step_index == 0;
    const bool last = state.lesson_index + 1 >= int(all_lessons().size()) &&
                      state.step_index + 1 >= int(lesson->steps.size());
    ImGui::BeginDisabled(first);
    if (ImGui::Button("\xe2\x86\x90 Previous", ImVec2(half, 0))) StepBack(state);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(last);
    if (ImGui::Button("Next \xe2\x86\x92", ImVec2(half, 0))) StepForward(state);
    ImGui::EndDisabled();
}

}  // namespace tilelab::gui
