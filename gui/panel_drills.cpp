// [SECTION] Drills panel: the current lesson's interview drills ("predict, then run"). The user
// answers a number or a choice, Check evaluates the drill's state on the engine thread (a sweep:
// the UI never waits), then the panel says right or wrong with the engine's value and the
// explanation. The score per lesson is kept between runs (tilelab/drills.h, DrillScores).
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>
#include <string>

#include "actions.h"
#include "engine_thread.h"
#include "markdown.h"
#include "panels.h"
#include "tilelab/drills.h"
#include "tilelab/i18n.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

const ImVec4 kRight(0.35f, 0.80f, 0.40f, 1.0f);
const ImVec4 kWrong(0.95f, 0.40f, 0.35f, 1.0f);

// A drill's text drawn as a paragraph of the lesson's renderer, which wraps Chinese between
// characters (ImGui's own wrapping breaks only at spaces); its markdown characters are escaped, so
// "__launch_bounds__" stays as written.
void draw_text(const std::string& text, const std::string& number = "") {
    std::string escaped = number.empty() ? "" : number + "\\. ";   // "1\. ": not a numbered list
    for (char c : text) {
        if (std::string_view("\\`*_[]<>#|").find(c) != std::string_view::npos) escaped += '\\';
        escaped += c;
    }
    RenderMarkdown(escaped);
}

std::string view_key(const Lesson& l, const Drill& d) { return l.id + "/" + d.id; }

bool on_gpu(const AppState& state) { return state.engine_thread && state.engine_thread->device().gpu; }

// A measured drill counts where it can be measured, or answered from its reference GPU's values.
bool counts(const AppState& state, const Drill& d) { return !d.needs_gpu() || on_gpu(state) || d.reference.has_value(); }

void save_scores(AppState& state) {
    if (state.drill_scores_path.empty()) return;
    std::string error;
    if (!state.drill_scores.save(state.drill_scores_path, error)) {
        std::fprintf(stderr, "tilelab: %s\n", error.c_str());
        state.notice = error;
    }
}

std::string score_text(const AppState& state, const Lesson& l) {
    int right = 0, counted = 0;
    DrillScore(state, l, right, counted);
    return trf("drills.score", right, counted);
}

void draw_outcome(const Drill& d, const DrillView& v) {
    if (v.checking) {
        WrappedTextDisabled(tr("drills.checking"));
        return;
    }
    if (!v.note.empty()) {
        WrappedTextDisabled(v.note);
        return;
    }
    if (v.outcome < 0) return;
    WrappedTextColored(v.outcome == 1 ? kRight : kWrong, tr(v.outcome == 1 ? "drill.right" : "drill.wrong") + " " + trf("drill.the_answer_is", v.shown));
    draw_text(d.explanation);
}

void draw_drill(AppState& state, const Lesson& l, const Drill& d, size_t index, bool any_checking) {
    DrillView& v = state.drill_views[view_key(l, d)];
    ImGui::PushID(int(index));
    const int past = state.drill_scores.outcome(l.id, d.id);
    draw_text(d.question, std::to_string(index + 1));
    if (past >= 0 && v.outcome < 0 && !v.checking) {   // answered in an earlier run of the app
        const std::string& was = tr(past == 1 ? "drills.was_right" : "drills.was_wrong");
        SameLineIfFits(ImGui::CalcTextSize(was.c_str()).x);   // after the question's last line, else under it
        WrappedTextColored(past == 1 ? kRight : kWrong, was);
    }

    const bool measurable = counts(state, d);
    ImGui::BeginDisabled(v.checking || !measurable);
    bool ready = false;
    if (d.kind() == DrillKind::number) {
        // The field beside Check where both fit; the text as long as typed (a fixed buffer cut it,
        // even in the middle of a character).
        ImGui::SetNextItemWidth(FieldWidth(ImGui::GetFontSize() * 9, ButtonWidth(tr("drills.check").c_str())));
        const bool enter = ImGui::InputText("##answer", &v.input, ImGuiInputTextFlags_EnterReturnsTrue);
        ready = !v.input.empty();
        if (enter && ready && !any_checking) CheckDrill(state, l, d);
        SameLineIfFits(ButtonWidth(tr("drills.check").c_str()));
    } else {
        const float radio = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
        for (size_t c = 0; c < d.choices.size(); ++c) {
            const std::string& label = d.choices[c].label;
            const float width = radio + ImGui::CalcTextSize(label.c_str()).x;
            if (c > 0) SameLineIfFits(width);
            if (width <= ImGui::GetContentRegionAvail().x) {
                if (ImGui::RadioButton(label.c_str(), v.choice == int(c))) v.choice = int(c);
                continue;
            }
            // A choice longer than the line (a projector's text size): the button, then its words
            // wrapped beside it, which a click picks too.
            ImGui::PushID(int(c));
            if (ImGui::RadioButton("##choice", v.choice == int(c))) v.choice = int(c);
            ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
            ImGui::BeginGroup();
            WrappedText(label);
            ImGui::EndGroup();
            if (ImGui::IsItemClicked()) v.choice = int(c);
            ImGui::PopID();
        }
        ready = v.choice >= 0;
        SameLineIfFits(ButtonWidth(tr("drills.check").c_str()));
    }
    ImGui::BeginDisabled(!ready || any_checking);
    if (ImGui::Button(tr("drills.check").c_str())) CheckDrill(state, l, d);
    ImGui::EndDisabled();
    ImGui::EndDisabled();
    HelpMarker(trf("drill.checked_against", drill_checked_against(l, d)).c_str());
    if (d.needs_gpu() && !on_gpu(state)) {   // no GPU: the reference GPU's times, or nothing
        WrappedTextDisabled(d.reference ? trf("drill.from_reference", d.reference->gpu, d.reference->date) : tr("drill.needs_gpu"));
    }
    draw_outcome(d, v);
    ImGui::PopID();
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::Spacing();
}

}  // namespace

bool CheckDrill(AppState& state, const Lesson& lesson, const Drill& drill) {
    DrillView& v = state.drill_views[view_key(lesson, drill)];
    v.note.clear();
    v.outcome = -1;
    std::string error;
    const std::string text = drill.kind() == DrillKind::number ? v.input : std::to_string(v.choice + 1);
    if (!parse_drill_answer(drill, text, v.answer, error)) {
        v.note = error;
        return false;
    }
    std::vector<RunRequest> reqs;
    if (!drill_requests(lesson, drill, reqs, error)) {
        v.note = error;
        return false;
    }
    for (const RunRequest& req : reqs)
        if (const std::string why = state.engine_thread ? state.engine_thread->invalid_reason(req) : "no engine"; !why.empty()) {
            v.note = why;
            return false;
        }
    state.engine_thread->submit_sweep(std::move(reqs), drill_run_options());
    v.generation = state.engine_thread->sweep_progress().generation;
    v.checking = true;
    return true;
}

bool DrillAnswerFromText(AppState& state, const std::string& key_value, std::string& error) {
    const Lesson* lesson = CurrentLesson(state);
    const size_t eq = key_value.find('=');
    if (!lesson || eq == std::string::npos) {
        error = "--drill-answer is K=VALUE";
        return false;
    }
    const auto& drills = lesson_drills(lesson->id);
    const std::string k = key_value.substr(0, eq), value = key_value.substr(eq + 1);
    for (size_t i = 0; i < drills.size(); ++i) {
        if (k != drills[i].id && k != std::to_string(i + 1)) continue;
        DrillView& v = state.drill_views[view_key(*lesson, drills[i])];
        if (drills[i].kind() == DrillKind::number) {
            v.input = value;   // typed as into the field: what does not parse is said under it, as there
        } else {
            DrillAnswer a;     // a radio button: only a choice can be picked
            if (!parse_drill_answer(drills[i], value, a, error)) return false;
            v.choice = a.choice;
        }
        return CheckDrill(state, *lesson, drills[i]) || (error = v.note, false);
    }
    error = "--drill-answer: lesson " + lesson->id + " has no drill '" + k + "'";
    return false;
}

void DrillScore(const AppState& state, const Lesson& lesson, int& right, int& counted) {
    std::vector<std::string> ids;
    for (const Drill& d : lesson_drills(lesson.id))
        if (counts(state, d)) ids.push_back(d.id);
    right = state.drill_scores.right_count(lesson.id, ids);
    counted = int(ids.size());
}

bool DrillsChecking(const AppState& state) {
    for (const auto& [key, v] : state.drill_views)
        if (v.checking) return true;
    return false;
}

void UpdateDrillChecks(AppState& state) {
    if (!state.engine_thread) return;
    const SweepProgress p = state.engine_thread->sweep_progress();
    for (const Lesson& lesson : all_lessons()) {
        for (const Drill& d : lesson_drills(lesson.id)) {
            const auto it = state.drill_views.find(view_key(lesson, d));
            if (it == state.drill_views.end() || !it->second.checking) continue;
            DrillView& v = it->second;
            if (p.generation != v.generation) {   // another sweep (Compare, a lesson's runs) replaced it
                v.checking = false;
                v.note = tr("drills.interrupted");
                continue;
            }
            if (p.running || p.done < p.total) continue;
            v.checking = false;
            const DrillKey key = drill_key(d, state.engine_thread->sweep_results());
            if (!key.ok) {
                v.note = key.needs_gpu ? tr("drill.needs_gpu") : key.error;
                continue;
            }
            v.shown = key.shown;
            v.outcome = drill_answer_right(d, key, v.answer) ? 1 : 0;
            state.drill_scores.record(lesson.id, d.id, v.outcome == 1);
            save_scores(state);
        }
    }
}

void DrawDrillsPanel(AppState& state) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson) return;
    const auto& drills = lesson_drills(lesson->id);
    WrappedText(trf("drills.heading", lesson->id.substr(0, 2), lesson->title));
    if (drills.empty()) {
        ImGui::TextDisabled("%s", trf("drill.no_drills", lesson->id).c_str());
        return;
    }
    ImGui::TextUnformatted(score_text(state, *lesson).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton(tr("drills.reset_score").c_str())) {
        state.drill_scores.reset(lesson->id);
        for (const Drill& d : drills) state.drill_views.erase(view_key(*lesson, d));
        save_scores(state);
    }
    HelpMarker(tr("drills.help").c_str());
    ImGui::Separator();
    ImGui::Spacing();
    const bool any_checking = DrillsChecking(state);
    for (size_t i = 0; i < drills.size(); ++i) draw_drill(state, *lesson, drills[i], i, any_checking);
}

}  // namespace tilelab::gui
