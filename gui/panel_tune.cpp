// [SECTION] Compare panel: "Find the best on this GPU". The autotuner (tilelab/tune.h) searches the
// current variant at the current size on the engine thread (gui/engine_thread_tune.cpp): the space
// pruned by the model and the compiler, every point validated, ranked by median time. A progress
// bar with Cancel while it runs; then a table (parameters, median, % of the reference, registers,
// occupancy, origin, why a row was pruned or failed); a click on a row sets its parameters as the
// parameter panel would. Rankings measured on a GPU are cached per GPU name, variant, size and
// settings (shared with `tilelab-cli tune`), so a second visit shows one at once. In model mode
// the search compiles and prunes only and says so.
#include <algorithm>
#include <cmath>
#include <string>
#include <imgui.h>
#include "actions.h"
#include "analysis_common.h"
#include "engine_thread.h"
#include "panels.h"
#include "tilelab/compile.h"
#include "tilelab/format.h"
#include "tilelab/i18n.h"
#include "tilelab/variant_text.h"
#include "tune_view.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

std::string StageText(const std::string& stage) {
    if (stage.empty()) return tr("tuner.stage_planning");
    return tr(stage == "compile" ? "tune.stage.compile" : stage == "full" ? "tune.stage.full" : "tune.stage.measure");
}

void DrawProgress(AppState& state, const TuneStatus& st, bool here) {
    const Variant* searched = find_variant(st.variant);   // the search's variant, maybe not the lesson's
    ImGui::BeginDisabled(st.cancelling);
    if (ImGui::Button(tr("compare.cancel").c_str())) state.engine_thread->cancel_tune();
    ImGui::EndDisabled();
    ImGui::SameLine();
    std::string text = trf("tuner.progress", StageText(st.stage), st.done, st.total);
    if (st.cancelling) text = tr("tuner.cancelling") + "  " + text;
    if (st.best && searched)
        text += "  " + trf("tuner.progress_best", FormatTime(st.best->median_ms), TuneParamsText(*searched, st.best->params));
    ImGui::ProgressBar(st.total > 0 ? float(st.done) / float(st.total) : 0.0f, ImVec2(-1, 0), text.c_str());
    if (!here) {   // started for another lesson or size: say which, the Start button waits for it
        WrappedTextDisabled(trf("tuner.running_other", searched ? variant_title(*searched) : st.variant,
                                format_problem(st.problem)));
    } else if (state.updating) {
        WrappedTextDisabled(tr("tuner.lesson_runs_wait"));
    }
}

// Who measured the ranking, when, and how much of the space it covered.
void DrawReportHeader(const TuneReport& r, bool cached) {
    if (!r.gpu) WrappedText(trf("tuner.model_report", r.target));
    else if (cached) WrappedText(trf("tuner.cached_label", r.target, TuneTimeText(r.measured_at), std::lround(r.elapsed_s)));
    else WrappedText(trf("tuner.searched_label", r.target, TuneTimeText(r.measured_at), std::lround(r.elapsed_s)));
    // Dim and wrapped: a sampled space's line or a long reference name outgrows a narrow panel.
    TextWithHelp(tune_space_text(r), nullptr, true);
    if (r.gpu && r.reference_ms > 0) TextWithHelp(trf("tuner.reference", r.reference_name, FormatTime(r.reference_ms)), nullptr, true);
    if (r.budget_hit) TextWithHelp(tr("tune.budget_hit"), nullptr, true);
    if (r.cancelled) {
        WrappedTextColored(StatusColorVec(false), tr("tuner.cancelled_note"));
    }
}

// Where a candidate came from (tilelab/tune.h's origins): "tuner.origin.<origin>" in the strings,
// else the origin as the engine names it.
std::string OriginText(const std::string& origin) {
    const std::string key = "tuner.origin." + origin;
    const std::string& text = tr(key);
    return text == key ? origin : text;
}

// A fixed column as wide as the wider of its header and `widest` (a typical cell).
void FixedColumn(const std::string& header, const char* widest) {
    // The table adds the cells' padding itself.
    const float width = std::max(ImGui::CalcTextSize(header.c_str()).x, ImGui::CalcTextSize(widest).x);
    ImGui::TableSetupColumn(header.c_str(), ImGuiTableColumnFlags_WidthFixed, width);
}

// The ranking; a click on an applicable row sets its parameters and runs them.
void DrawRanking(AppState& state, const TuneReport& r, const Variant& v) {
    const bool gpu = r.gpu;
    const bool notes = std::any_of(r.candidates.begin(), r.candidates.end(),
                                   [](const TuneCandidate& c) { return !TuneRowNote(c).empty(); });
    const float height = ImGui::GetFontSize() * 1.7f * float(std::min<size_t>(r.candidates.size() + 1, 12));
    // BeginDataTable's look, but every column as wide as its widest cell (no parameter cut short)
    // and a horizontal scroll bar where the panel is narrower than that.
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
    if (!ImGui::BeginTable("##tune_ranking", notes ? 8 : 7, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    FixedColumn("#", "99");
    // The widest of a column's cells, text(c) for every candidate.
    const auto widest = [&](const auto& text) {
        std::string most;
        for (const TuneCandidate& c : r.candidates) {
            std::string t = text(c);
            if (ImGui::CalcTextSize(t.c_str()).x > ImGui::CalcTextSize(most.c_str()).x) most = std::move(t);
        }
        return most;
    };
    // The time and its percentage first: at a projector's 1280×720 a long parameter list (lesson 20's
    // seven) pushed them past the panel's edge.
    FixedColumn(tr(gpu ? "tune.col_median" : "tune.col_model_ms"), "999.9 ms");
    FixedColumn(gpu ? tr("tune.col_pct_ref") : std::string("FLOP/B"), "100.0%");
    FixedColumn(tr("tune.col_params"), widest([&](const TuneCandidate& c) { return TuneParamsText(v, c.params); }).c_str());
    FixedColumn(tr("tune.col_regs"), "255");
    FixedColumn(tr("tune.col_occupancy"), "100%");
    FixedColumn(tr("tune.col_origin"), widest([](const TuneCandidate& c) { return OriginText(c.origin); }).c_str());
    // A short word per pruned or failed row; the reason in its tooltip (and the row's).
    if (notes) {
        const std::string& pruned = tr("tuner.pruned_short");
        const std::string& failed = tr("tuner.failed_short");
        const bool wider = ImGui::CalcTextSize(pruned.c_str()).x > ImGui::CalcTextSize(failed.c_str()).x;
        FixedColumn(tr("tune.col_note"), (wider ? pruned : failed).c_str());
    }
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < r.candidates.size(); ++i) {
        const TuneCandidate& c = r.candidates[i];
        const bool applicable = CanApplyTuneRow(c);
        const std::string note = TuneRowNote(c);
        ImGui::PushID(int(i));
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        // The row's number is the whole row's click target.
        ImGui::BeginDisabled(!applicable);
        if (ImGui::Selectable(std::to_string(i + 1).c_str(), state.tune.applied == int(i),
                              ImGuiSelectableFlags_SpanAllColumns) && applicable) {
            state.request.params = TunedParams(v, c, state.request.params);
            state.tune.applied = int(i);
            SubmitRequest(state, "", Change::Click);
        }
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            WrappedTooltip((note.empty() ? tr("tuner.click_to_apply") : note).c_str());
        ImGui::TableNextColumn();
        const bool timed = c.measured && c.valid;
        if (!gpu) ImGui::TextUnformatted(FormatTime(c.score_ms).c_str());
        else if (timed) ImGui::TextColored(StatusColorVec(true), "%s", FormatTime(c.median_ms).c_str());
        else ImGui::TextDisabled("-");
        ImGui::TableNextColumn();
        if (!gpu) ImGui::Text("%.2f", c.intensity);
        else if (timed && c.pct_of_reference > 0) ImGui::Text("%.1f%%", c.pct_of_reference);
        else ImGui::TextDisabled("-");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(TuneParamsText(v, c.params).c_str());
        ImGui::TableNextColumn();
        if (c.analysed && c.registers > 0) ImGui::Text("%d", c.registers);
        else ImGui::TextDisabled("-");
        ImGui::TableNextColumn();
        if (c.analysed && c.registers > 0) ImGui::TextUnformatted(PercentText(c.occupancy).c_str());
        else ImGui::TextDisabled("-");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(OriginText(c.origin).c_str());
        if (notes) ImGui::TableNextColumn();
        if (!note.empty()) {
            ImGui::TextColored(StatusColorVec(false), "%s", tr(c.pruned.empty() ? "tuner.failed_short" : "tuner.pruned_short").c_str());
            if (ImGui::IsItemHovered()) WrappedTooltip(note.c_str());
        }
        ImGui::PopID();
    }
    ImGui::EndTable();
}

// The search the section shows: the current variant at the current size with the chosen budget.
struct TuneTarget {
    const Variant* variant = nullptr;
    bool gpu = false;
    TuneConfig cfg;
    TuneReport key;
    std::string name;   // TuneKeyName(key)
};

bool CurrentTuneTarget(const AppState& state, TuneTarget& out) {
    out.variant = CurrentVariant(state);
    if (!state.engine_thread || !state.engine_thread->ready() || !out.variant) return false;
    out.gpu = state.engine_thread->device().gpu;
    out.cfg = TabTuneConfig(*out.variant, state.request.params, state.request.problem, state.tune.budget_s);
    out.key = tune_key(state.engine_thread->target(), out.gpu, *out.variant, out.cfg);
    out.name = TuneKeyName(out.key);
    return true;
}

bool Start(AppState& state, const TuneTarget& t) {
    if (!state.size_error.empty()) return false;
    const bool started = state.engine_thread->submit_tune(t.variant->id, t.cfg, t.name,
                                                          t.gpu ? default_cache_dir() : std::string());
    if (started) state.tune.note.clear();
    return started;
}

}  // namespace

bool StartTune(AppState& state) {
    TuneTarget t;
    return CurrentTuneTarget(state, t) && Start(state, t);
}

bool TuneRunning(const AppState& state) { return state.engine_thread && state.engine_thread->tune_status().running; }

void DrawTuneSection(AppState& state) {
    TextWithHelp(tr("tuner.title"), tr("tuner.help").c_str());
    TuneTarget t;
    if (!CurrentTuneTarget(state, t)) {
        WrappedTextDisabled(tr("tuner.engine_starting"));
        return;
    }
    const Variant* v = t.variant;
    const bool gpu = t.gpu;
    const std::string& name = t.name;
    const TuneStatus st = state.engine_thread->tune_status();
    UpdateTuneView(state.tune, name, st, [&] { return LookUpTuneCache(default_cache_dir(), t.key); });
    TuneViewState& view = state.tune;

    // Budget, then Start (Search again once a ranking is shown); disabled while any search runs.
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(tr("tuner.budget").c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    int budget = int(view.budget_s);
    ImGui::BeginDisabled(st.running || !gpu);
    if (ImGui::InputInt("##tune_budget", &budget, 10, 60)) view.budget_s = std::clamp(budget, 5, 3600);
    ImGui::EndDisabled();
    HelpMarker(tr("tuner.budget_help").c_str());
    const std::string start = tr(view.report ? "tuner.search_again" : "tuner.start") + "###tune_start";
    SameLineIfFits(ButtonWidth(start.c_str()));
    ImGui::BeginDisabled(st.running || !state.size_error.empty());
    if (ImGui::Button(start.c_str())) Start(state, t);
    ImGui::EndDisabled();
    if (!gpu && (!view.report || view.report->gpu)) {   // a model-mode ranking's header says it
        WrappedTextDisabled(tr("tuner.model_mode"));
    }

    if (st.running) DrawProgress(state, st, st.key == name);
    if (!view.note.empty()) {
        WrappedTextColored(StatusColorVec(false), view.note);
    }
    if (!view.report) {
        if (!st.running)
            WrappedTextDisabled(trf(gpu ? "tuner.nothing_yet" : "tuner.nothing_yet_model", format_problem(t.cfg.problem)));
        return;
    }
    DrawReportHeader(*view.report, view.cached);
    DrawRanking(state, *view.report, *v);
}

}  // namespace tilelab::gui
