// [SECTION] Lesson panel: the navigator (every lesson in teaching order, its steps) and the
// current step's text with its measured answers. Entering a step sets its whole state (actions.cpp).
#include <imgui.h>
#include <algorithm>
#include <sstream>
#include <string>
#include "actions.h"
#include "tilelab/i18n.h"
#include "tilelab/stalls.h"
#include "fonts.h"
#include "markdown.h"
#include "panels.h"
#include "ui_common.h"
#include "engine_thread.h"
#include "text_wrap.h"

namespace tilelab::gui {

std::string LessonLabel(const Lesson& l) { return l.id.substr(0, 2) + "  " + l.title; }

namespace {

void draw_navigator(AppState& state, const Lesson& lesson) {
    const auto& lessons = all_lessons();
    const float arrow_w = ImGui::GetFrameHeight();
    ImGui::BeginDisabled(state.lesson_index == 0);
    if (ImGui::ArrowButton("##prev_lesson", ImGuiDir_Left)) EnterLesson(state, state.lesson_index - 1);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - arrow_w - ImGui::GetStyle().ItemSpacing.x);
    if (ImGui::BeginCombo("##lesson", LessonLabel(lesson).c_str(), ImGuiComboFlags_HeightLarge)) {
        for (size_t i = 0; i < lessons.size(); ++i) {
            const bool selected = int(i) == state.lesson_index;
            if (ImGui::Selectable(LessonLabel(lessons[i]).c_str(), selected)) EnterLesson(state, int(i));
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(state.lesson_index + 1 >= int(lessons.size()));
    if (ImGui::ArrowButton("##next_lesson", ImGuiDir_Right)) EnterLesson(state, state.lesson_index + 1);
    ImGui::EndDisabled();

    if (lesson.steps.empty()) return;
    // Steps as numbered buttons, wrapping onto a second row where the panel is narrow (a projector's
    // 1280 px, eleven steps); the current one highlighted, titles on hover.
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", tr("lesson.step").c_str());
    const float button_w = ImGui::GetFrameHeight() * 1.2f;
    for (size_t i = 0; i < lesson.steps.size(); ++i) {
        SameLineIfFits(button_w);
        const bool current = int(i) == state.step_index;
        if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        const std::string label = std::to_string(i + 1) + "##step";
        ImGui::PushID(int(i));
        if (ImGui::Button(label.c_str(), ImVec2(button_w, 0))) EnterStep(state, int(i));
        ImGui::PopID();
        if (current) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", lesson.steps[i].title.c_str());
    }
    const std::string& hint = tr("lesson.keys_hint");   // only where it fits: a row of its own would cost the text a line
    if (FitsOnThisLine(ImGui::CalcTextSize(hint.c_str()).x)) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", hint.c_str());
    }
}

// A stall claim as a reader sees it: "48% Memory queue".
std::string stall_claim_text(double percent, StallGroup group) {
    return fmt::format("{:.0f}% {}", percent, stall_group_name(group));
}

// A measured answer's configuration ("TILE=32 PAD=1") as parameter values on top of the step's
// state; false when it is not one (a label such as "naive 16×16", which names another lesson's kernel).
// A "which is faster?" step's measured answer (<!-- measured: -->), from the benchmarks on a
// reference GPU: labelled with that GPU and the date, so it never poses as this machine's. On a
// GPU, tr("lesson.run_them_here").c_str() runs the same configurations at the step's size, and their times appear
// beside the reference ones.
void draw_measured_answers(AppState& state, const Lesson& lesson, const LessonStep& step) {
    const Variant* variant = find_variant(lesson.variant);
    const bool on_gpu = state.engine_thread && state.result && state.result->measured;
    const bool ours = LessonRunsAreThisStep(state);
    const auto here = ours ? state.engine_thread->sweep_results() : std::vector<std::shared_ptr<const RunResult>>{};
    size_t run_index = 0;   // runnable configurations, in order over all answers: the sweep's requests
    const std::vector<RunRequest> runs = MeasuredAnswerRuns(state);
    for (size_t i = 0; i < step.measured.size(); ++i) {
        const MeasuredAnswer& answer = step.measured[i];
        ImGui::PushID(int(i));
        ImGui::Spacing();
        WrappedTextDisabled(trf("lesson.measured_on", answer.where));
        const int columns = on_gpu ? 3 : 2;
        if (ImGui::BeginTable("##measured", columns, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit)) {
            for (const auto& [config, time] : answer.times) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(config.c_str());
                ImGui::TableNextColumn();
                double percent = 0;
                StallGroup group{};
                const bool stall_claim = parse_stall_claim(time, percent, group);
                ImGui::TextUnformatted(stall_claim ? stall_claim_text(percent, group).c_str() : time.c_str());
                ParamValues set;
                const bool runnable = variant && RunnableConfig(config, *variant, set);
                if (!on_gpu) continue;
                ImGui::TableNextColumn();
                if (!runnable) continue;
                const size_t k = run_index++;
                if (k < here.size() && here[k]) {
                    const RunResult& r = *here[k];
                    if (r.ok && r.measured && stall_claim && r.stalls.has_samples())
                        ImGui::TextUnformatted(trf("lesson.here_text", stall_claim_text(stall_share(r.stalls.counts[group], r.stalls.total), group)).c_str());
                    else if (r.ok && r.measured && stall_claim) {
                        const std::string why = stall_reason(r.stalls.status);
                        ImGui::TextDisabled("%s", trf("lesson.here_text", why.empty() ? r.stalls.status : why).c_str());
                    } else if (r.ok && r.measured) ImGui::TextUnformatted(trf("lesson.here_ms", fmt::format("{:.3f}", r.timing.median_ms)).c_str());
                    else ImGui::TextDisabled("%s", trf("lesson.here_text", r.ok ? tr("lesson.not_measured") : r.error).c_str());
                } else if (ours) {
                    ImGui::TextDisabled("%s", tr("lesson.here_running").c_str());
                }
            }
            ImGui::EndTable();
        }
        ImGui::PopID();
    }
    if (on_gpu && !runs.empty()) {
        const std::string label = trf("lesson.run_them_here_at", format_problem(state.request.problem));
        if (ImGui::Button(label.c_str())) StartLessonRuns(state);
        if (ImGui::IsItemHovered())
            WrappedTooltip(tr("lesson.run_them_here_help").c_str());
    }
}

}  // namespace

void DrawLessonNavigator(AppState& state) {
    if (const Lesson* lesson = CurrentLesson(state)) draw_navigator(state, *lesson);
}

void DrawLessonPanel(AppState& state) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson) {
        WrappedText(tr("lesson.no_lesson_is_loaded"));
        return;
    }
    draw_navigator(state, *lesson);
    ImGui::Separator();
    DrawLessonText(state);
}

void DrawLessonText(AppState& state) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson) {
        WrappedText(tr("lesson.no_lesson_is_loaded"));
        return;
    }
    ImGui::BeginChild("##lesson_text", ImVec2(0, -ImGui::GetFrameHeightWithSpacing()), false);
    if (state.drawn_lesson != state.lesson_index || state.drawn_step != state.step_index) ImGui::SetScrollY(0);
    state.drawn_lesson = state.lesson_index;
    state.drawn_step = state.step_index;

    if (lesson->translation_missing)   // asked for in Chinese, no lesson.zh.md yet: said once, on top
        WrappedTextColored(CautionColorVec(), tr("lesson.not_translated"));
    if (state.step_index == 0) {
        PushFontOrDefault(AppFonts().h1);
        WrappedText(lesson->title);
        ImGui::PopFont();
        if (!lesson->intro.empty()) RenderMarkdown(lesson->intro);
    }
    if (state.step_index < int(lesson->steps.size())) {
        RenderMarkdown(lesson->steps[size_t(state.step_index)].markdown);
        draw_measured_answers(state, *lesson, lesson->steps[size_t(state.step_index)]);
    } else if (lesson->intro.empty()) {
        ImGui::TextDisabled("%s", tr("lesson.this_lesson_has_no_text_yet").c_str());
    }
    ImGui::EndChild();

    // Previous / next at the bottom, where the eye ends after reading.
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    const bool first = state.lesson_index == 0 && state.step_index == 0;
    const bool last = state.lesson_index + 1 >= int(all_lessons().size()) &&
                      state.step_index + 1 >= int(lesson->steps.size());
    ImGui::BeginDisabled(first);
    if (ImGui::Button(tr("lesson.previous").c_str(), ImVec2(half, 0))) StepBack(state);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(last);
    if (ImGui::Button(tr("lesson.next").c_str(), ImVec2(half, 0))) StepForward(state);
    ImGui::EndDisabled();
}

}  // namespace tilelab::gui
