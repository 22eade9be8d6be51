// [SECTION] Compare panel: pinned configurations (gui/panel_compare_pins.cpp), the autotuner
// (gui/panel_tune.cpp); sweep one parameter (a line plot: time with occupancy overlaid) or two (a
// heatmap) through the worker's sweep queue; export the results as CSV or JSON and the plot as a PNG.
// In model mode the sweep still compiles and analyses every point: occupancy, registers and the
// model are there, times say "no GPU".
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <imgui.h>
#include <imgui_stdlib.h>
#include "actions.h"
#include "tilelab/i18n.h"
#include "tilelab/quantities.h"
#include "stall_view.h"
#include "tilelab/variant_text.h"
#include "analysis_common.h"
#include "compare_export.h"
#include "panels.h"
#include "plot.h"
#include "ui_common.h"
#include "engine_thread.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The quantities a two-parameter sweep colours its cells by (state.sweep_metric indexes them), by
// their names in tilelab/quantities.h.
const char* const kSweepMetrics[] = {"time", "GFLOP/s", "occupancy %"};

// ---- sweep setup ------------------------------------------------------------------------------


// A parameter combo plus from/to value combos. Returns the chosen values.
std::vector<int> ParamRangeChooser(const char* id, const Variant& v, std::string& name, int& from, int& to,
                                   bool allow_none) {
    ImGui::PushID(id);
    const ParamSpec* spec = v.param(name);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::BeginCombo("##param", spec ? spec->shown_label().c_str() : tr("compare.none").c_str())) {
        if (allow_none && ImGui::Selectable(tr("compare.none").c_str(), !spec)) name.clear();
        for (const ParamSpec& p : v.params)
            if (ImGui::Selectable(p.shown_label().c_str(), spec == &p)) {
                name = p.name;
                from = 0;
                to = -1;
            }
        ImGui::EndCombo();
    }
    spec = v.param(name);
    // What the parameter is, beside its name (in the learner's language), before its range.
    if (spec && !spec->shown_help().empty()) HelpMarker(spec->shown_help().c_str());
    std::vector<int> chosen;
    if (spec) {
        const std::vector<int> values = spec->values();
        if (!values.empty()) {
            int last = int(values.size()) - 1;
            if (to < 0 || to > last) to = last;
            from = std::clamp(from, 0, to);
            auto value_combo = [&](const char* label, int& index, int lo, int hi) {
                const std::string word = tr(std::string("compare.range_") + label);
                // "from [4]" and "to [32]" each stay together, on the line where they fit.
                SameLineIfFits(ImGui::CalcTextSize(word.c_str()).x + ImGui::GetStyle().ItemSpacing.x + ImGui::GetFontSize() * 5);
                ImGui::AlignTextToFramePadding();
                ImGui::TextUnformatted(word.c_str());
                ImGui::SameLine();
                ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
                ImGui::PushID(label);
                // As the parameter's buttons name them: "bf16", not 2.
                if (ImGui::BeginCombo("##v", spec->value_text(values[size_t(index)]).c_str())) {
                    for (int i = lo; i <= hi; ++i)
                        if (ImGui::Selectable(spec->value_text(values[size_t(i)]).c_str(), i == index)) index = i;
                    ImGui::EndCombo();
                }
                ImGui::PopID();
            };
            value_combo("from", from, 0, to);
            value_combo("to", to, from, last);
            chosen.assign(values.begin() + from, values.begin() + to + 1);
        }
    }
    ImGui::PopID();
    return chosen;
}

// Applies a swept configuration to the sliders and runs it.
void ApplySweepPoint(AppState& state, size_t index) {
    const size_t nx = state.sweep_x_values.size();
    if (nx == 0) return;
    state.request.params[state.swept_x] = state.sweep_x_values[index % nx];
    if (!state.swept_y.empty() && index / nx < state.sweep_y_values.size())
        state.request.params[state.swept_y] = state.sweep_y_values[index / nx];
    SubmitRequest(state, state.swept_x);
}

// ---- sweep results -----------------------------------------------------------------------------

std::string Why(const RunResult& r) {
    if (!r.ok) return r.error.empty() ? trf("compare.failed_at_stage", r.stage) : r.error;
    if (r.validation.checked && !r.validation.passed) return trf("compare.failed_validation_because", r.validation.message);
    return "";
}

// Where the warps wait across a sweep: the two stall groups with the largest shares summed over
// its sampled points, each as its share per point (for the right axis, in %). None without samples.
std::vector<plot::Series> StallSeries(const ResultList& results, const std::vector<int>& xs) {
    std::array<double, kStallGroups> summed{};
    for (const auto& r : results)
        if (r && r->stalls.has_samples())
            for (int g = 0; g < kStallGroups; ++g) summed[size_t(g)] += stall_share(r->stalls.counts.n[size_t(g)], r->stalls.total);
    std::array<int, kStallGroups> order{};
    for (int g = 0; g < kStallGroups; ++g) order[size_t(g)] = g;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return summed[size_t(a)] > summed[size_t(b)]; });
    std::vector<plot::Series> out;
    for (int k = 0; k < 2 && summed[size_t(order[size_t(k)])] > 0; ++k) {
        const StallGroup g = StallGroup(order[size_t(k)]);
        plot::Series s;
        s.name = trf("compare.stall_share_series", stall_group_name(g));
        s.color = StallColor(g);
        s.marker = plot::MarkerShape::Triangle;
        s.right_axis = true;
        for (size_t i = 0; i < results.size() && i < xs.size(); ++i)
            if (results[i] && results[i]->stalls.has_samples()) {
                s.x.push_back(xs[i]);
                s.y.push_back(stall_share(results[i]->stalls.counts[g], results[i]->stalls.total));
            }
        out.push_back(std::move(s));
    }
    return out;
}

plot::PlotResult DrawSweep1D(AppState& state, const Variant& v) {
    const ResultList& results = state.sweep.results;
    const ParamSpec* spec = v.param(state.swept_x);
    plot::Figure fig;
    fig.title = trf("compare.sweep_of", spec ? spec->shown_label() : state.swept_x);
    fig.x.label = state.swept_x;
    if (spec && spec->kind == ParamKind::Pow2) fig.x.scale = plot::Scale::Log10;
    for (int x : state.sweep_x_values) fig.x.tick_values.push_back(x);
    fig.y.label = tr("compare.time_ms");
    fig.y.include_zero = true;
    fig.y.format = [](double ms) { return FormatTime(ms); };
    fig.y2 = plot::Axis();
    fig.y2->label = tr("occupancy.axis_percent");
    fig.y2->range = plot::Range{0, 100};
    fig.legend_left = false;

    plot::Series time, failed, occupancy;
    time.name = tr("compare.median_time").c_str();
    time.color = plot::Palette(0);
    time.marker = plot::MarkerShape::Circle;
    failed.name = tr("compare.failed_validation").c_str();
    failed.color = StatusColor(false);
    failed.line = false;
    failed.marker = plot::MarkerShape::Square;
    occupancy.name = tr("compare.col_occupancy");
    occupancy.color = plot::Palette(1);
    occupancy.dashed = true;
    occupancy.marker = plot::MarkerShape::Diamond;
    occupancy.right_axis = true;
    bool any_measured = false;
    for (size_t i = 0; i < results.size() && i < state.sweep_x_values.size(); ++i) {
        if (!results[i]) continue;
        const RunResult& r = *results[i];
        double x = state.sweep_x_values[i];
        any_measured |= r.measured;
        std::string note = ParamSummary(r.request.params, r.request.variant) + (Why(r).empty() ? "" : "\n" + Why(r));
        if (r.measured && r.ok) {
            plot::Series& s = Passed(r) ? time : failed;
            s.x.push_back(x);
            s.y.push_back(r.timing.median_ms);
            s.point_notes.push_back(note);
        }
        if (r.ok || r.stage != "input") {
            occupancy.x.push_back(x);
            occupancy.y.push_back(r.occupancy.occupancy * 100);
            occupancy.point_notes.push_back(note);
        }
    }
    if (!any_measured) {
        fig.y.label = trf("compare.time_no_gpu", NoGpu());
        fig.y.range = plot::Range{0, 1};
        fig.y.format = [](double) { return std::string(); };
    }
    if (!time.x.empty()) fig.series.push_back(time);
    if (!failed.x.empty()) fig.series.push_back(failed);
    fig.series.push_back(occupancy);
    for (plot::Series& s : StallSeries(results, state.sweep_x_values)) {
        fig.y2->label = tr("compare.right_axis");   // occupancy and stall shares share the % axis
        fig.series.push_back(std::move(s));
    }
    fig.empty_text = tr("compare.waiting_for_results");
    plot::PlotResult pr = plot::DrawFigure("sweep1d", ImVec2(-1, ImGui::GetFontSize() * 20), fig);
    if (pr.clicked && pr.hovered_series >= 0) {
        // Map the clicked point back to its x value, then to the sweep index.
        const plot::Series& s = fig.series[size_t(pr.hovered_series)];
        double x = s.x[size_t(pr.hovered_point)];
        auto it = std::find(state.sweep_x_values.begin(), state.sweep_x_values.end(), int(x));
        if (it != state.sweep_x_values.end()) ApplySweepPoint(state, size_t(it - state.sweep_x_values.begin()));
    }
    return pr;
}

// A two-parameter sweep as curves: the metric against x, one curve per value of y (lesson 17:
// GFLOP/s against threads per block, one curve per ILP).
plot::PlotResult DrawSweepCurves(AppState& state, const Quantity& metric) {
    const ResultList& results = state.sweep.results;
    plot::Figure fig;
    fig.title = trf("compare.sweep_of", state.swept_x + " × " + state.swept_y);
    fig.x.label = state.swept_x;
    for (int x : state.sweep_x_values) fig.x.tick_values.push_back(x);
    fig.y.label = quantity_label(metric.name);
    fig.y.include_zero = true;
    if (metric.name == std::string("time")) fig.y.format = [](double ms) { return FormatTime(ms); };
    const size_t nx = state.sweep_x_values.size();
    std::vector<size_t> series_y;   // the y index of each drawn curve
    for (size_t iy = 0; iy < state.sweep_y_values.size(); ++iy) {
        plot::Series s;
        s.name = state.swept_y + " = " + std::to_string(state.sweep_y_values[iy]);
        s.color = plot::Palette(int(iy));
        s.marker = plot::MarkerShape::Circle;
        for (size_t ix = 0; ix < nx; ++ix) {
            const size_t i = iy * nx + ix;
            const RunResult* r = i < results.size() ? results[i].get() : nullptr;
            double v = kNaN;
            if (!r || !Passed(*r) || !metric.value(*r, v) || std::isnan(v)) continue;
            s.x.push_back(state.sweep_x_values[ix]);
            s.y.push_back(v);
            s.point_notes.push_back(ParamSummary(r->request.params, r->request.variant));
        }
        if (s.x.empty()) continue;
        fig.series.push_back(std::move(s));
        series_y.push_back(iy);
    }
    fig.empty_text = tr("compare.waiting_for_results");
    plot::PlotResult pr = plot::DrawFigure("sweep2d_curves", ImVec2(-1, ImGui::GetFontSize() * 20), fig);
    if (pr.clicked && pr.hovered_series >= 0) {
        const plot::Series& s = fig.series[size_t(pr.hovered_series)];
        const auto ix = std::find(state.sweep_x_values.begin(), state.sweep_x_values.end(), int(s.x[size_t(pr.hovered_point)]));
        if (ix != state.sweep_x_values.end())
            ApplySweepPoint(state, series_y[size_t(pr.hovered_series)] * nx + size_t(ix - state.sweep_x_values.begin()));
    }
    return pr;
}

plot::PlotResult DrawSweep2D(AppState& state) {
    const ResultList& results = state.sweep.results;
    // Without measurements only occupancy has values: time and GFLOP/s are greyed.
    const bool any_measured =
        std::any_of(results.begin(), results.end(), [](const auto& r) { return r && r->measured; });
    if (!any_measured) state.sweep_metric = 2;
    const char* metrics[] = {tr("compare.col_time").c_str(), "GFLOP/s", tr("compare.col_occupancy").c_str()};
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(tr("compare.colour").c_str());
    for (int i = 0; i < 3; ++i) {   // beside each other where they fit, else on the next line
        SameLineIfFits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(metrics[i]).x);
        ImGui::BeginDisabled(!any_measured && find_quantity(kSweepMetrics[i])->needs_gpu);
        ImGui::RadioButton(metrics[i], &state.sweep_metric, i);
        ImGui::EndDisabled();
    }
    if (!any_measured) {
        const std::string why = trf("compare.time_gflops_no_gpu", NoGpu());
        SameLineIfFits(ImGui::CalcTextSize(why.c_str()).x);
        WrappedTextDisabled(why);
    }
    ImGui::Checkbox(trf("compare.curves_per", state.swept_y).c_str(), &state.sweep_curves);
    if (state.sweep_curves) return DrawSweepCurves(state, *find_quantity(kSweepMetrics[std::clamp(state.sweep_metric, 0, 2)]));
    plot::Heatmap map;
    map.title = trf("compare.sweep_of", state.swept_x + " × " + state.swept_y);
    map.x_label = state.swept_x;
    map.y_label = state.swept_y;
    for (int x : state.sweep_x_values) map.x_categories.push_back(std::to_string(x));
    for (int y : state.sweep_y_values) map.y_categories.push_back(std::to_string(y));
    const Quantity& metric = *find_quantity(kSweepMetrics[std::clamp(state.sweep_metric, 0, 2)]);
    map.value_label = metric.name;
    if (metric.name == std::string("time")) {
        map.low_is_good = true;
        map.format = [](double ms) { return FormatTime(ms); };
    }
    const size_t n = map.x_categories.size() * map.y_categories.size();
    for (size_t i = 0; i < n; ++i) {
        const RunResult* r = i < results.size() ? results[i].get() : nullptr;
        double v = kNaN;
        std::string note = r ? Why(*r) : tr("compare.not_run_yet").c_str();
        if (r && Passed(*r)) {
            if (!metric.value(*r, v)) v = kNaN;
            if (!r->measured && metric.needs_gpu) note = NoGpu();
        }
        map.values.push_back(v);
        map.cell_notes.push_back(note);
    }
    // Outline the cell of the current parameters.
    auto find_index = [](const std::vector<int>& values, const ParamValues& p, const std::string& name) {
        auto it = p.find(name);
        if (it == p.end()) return -1;
        auto at = std::find(values.begin(), values.end(), it->second);
        return at == values.end() ? -1 : int(at - values.begin());
    };
    map.highlight_x = find_index(state.sweep_x_values, state.request.params, state.swept_x);
    map.highlight_y = find_index(state.sweep_y_values, state.request.params, state.swept_y);
    float font = ImGui::GetFontSize();
    float height = std::clamp(font * 2.2f * float(map.y_categories.size()) + font * 6, font * 14, font * 30);
    plot::PlotResult pr = plot::DrawHeatmap("sweep2d", ImVec2(-1, height), map);
    if (pr.clicked && pr.hovered_point >= 0) ApplySweepPoint(state, size_t(pr.hovered_point));
    return pr;
}

void DrawSweepTable(const AppState& state) {
    const ResultList& results = state.sweep.results;
    if (!ImGui::CollapsingHeader(tr("compare.sweep_results_as_a_table").c_str())) return;
    const float height = ImGui::GetFontSize() * 1.6f * float(std::min<size_t>(results.size() + 1, 14));
    const bool labelled = state.sweep.gpus.size() == results.size();   // measured on several GPUs
    std::vector<TableColumn> columns = {{tr("compare.col_configuration").c_str(), 2.0f}, {tr("compare.col_time").c_str()},
                                       {"GFLOP/s"}, {tr("compare.col_occupancy").c_str()},
                                       {tr("compare.col_registers").c_str()}, {tr("compare.col_status").c_str(), 2.0f}};
    if (labelled) columns.push_back({tr("compare.col_gpu").c_str(), 1.5f});
    if (!BeginDataTable("##sweep_table", columns, ImGuiTableFlags_ScrollY, ImVec2(0, height))) return;
    for (size_t i = 0; i < results.size(); ++i) {
        if (!results[i]) continue;
        const RunResult& r = *results[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(ParamSummary(r.request.params, r.request.variant).c_str());
        ImGui::TableNextColumn();
        if (r.measured && r.ok) ImGui::TextUnformatted(FormatTime(r.timing.median_ms).c_str());
        else ImGui::TextDisabled("%s", r.measured ? "-" : NoGpu());
        ImGui::TableNextColumn();
        if (r.measured && r.ok) ImGui::TextUnformatted(plot::FormatValue(r.gflops).c_str());
        else ImGui::TextDisabled("%s", r.measured ? "-" : NoGpu());
        ImGui::TableNextColumn();
        if (r.ok || r.stage != "input") ImGui::TextUnformatted(PercentText(r.occupancy.occupancy).c_str());
        ImGui::TableNextColumn();
        if (r.compiled) ImGui::Text("%d", r.compiled->ptxas.registers);
        ImGui::TableNextColumn();
        std::string why = Why(r);
        if (why.empty()) ImGui::TextColored(StatusColorVec(true), "%s", tr(r.measured ? "compare.valid" : "compare.analysed").c_str());
        else ImGui::TextColored(StatusColorVec(false), "%s", why.c_str());
        if (!why.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", why.c_str());
        if (labelled && ImGui::TableNextColumn()) ImGui::TextUnformatted(state.sweep.gpus[i].c_str());
    }
    EndDataTable();
}

std::string WithExtension(const std::string& path, const std::string& ext) {
    size_t slash = path.find_last_of('/');
    size_t dot = path.find_last_of('.');
    std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? path.substr(0, dot) : path;
    return stem + ext;
}

void DrawExport(AppState& state, const plot::PlotResult* plot_rect) {
    TextWithHelp(tr("compare.export"), tr("compare.export_help").c_str());
    // The path, then each button beside it where it fits, else on the next line: nothing past the edge.
    ImGui::SetNextItemWidth(std::min(ImGui::GetFontSize() * 20, ImGui::GetContentRegionAvail().x));
    ImGui::InputText("##export_path", &state.export_path);
    const ResultList rows = ExportedRows(state);
    SameLineIfFits(ButtonWidth("CSV"));
    ImGui::BeginDisabled(rows.empty());
    if (ImGui::Button("CSV")) {
        std::string path = WithExtension(state.export_path, ".csv");
        std::string error = WriteTextFile(path, ResultsToCsv(rows));
        state.export_message = error.empty() ? trf("compare.wrote_rows", rows.size(), path) : error;
    }
    SameLineIfFits(ButtonWidth("JSON"));
    if (ImGui::Button("JSON")) {
        std::string path = WithExtension(state.export_path, ".json");
        std::string error = WriteTextFile(path, ResultsToJson(rows));
        state.export_message = error.empty() ? trf("compare.wrote_results", rows.size(), path) : error;
    }
    ImGui::EndDisabled();
    SameLineIfFits(ButtonWidth(tr("compare.plot_as_png").c_str()));
    ImGui::BeginDisabled(!plot_rect);
    if (ImGui::Button(tr("compare.plot_as_png").c_str()) && plot_rect)
        RequestCapture(state, WithExtension(state.export_path, ".png"), plot_rect->min.x, plot_rect->min.y,
                       plot_rect->max.x, plot_rect->max.y);
    ImGui::EndDisabled();
    if (!state.export_message.empty()) WrappedTextDisabled(state.export_message);
}

void DrawSweep(AppState& state) {
    const Variant* v = CurrentVariant(state);
    TextWithHelp(tr("compare.sweep"), tr("compare.sweep_help").c_str());
    if (!v || v->params.empty()) {
        WrappedTextDisabled(tr("compare.this_variant_has_no_parameters_to_sweep"));
        return;
    }
    if (state.sweep.param_x.empty() || !v->param(state.sweep.param_x)) state.sweep.param_x = v->params.front().name;
    if (!state.sweep.param_y.empty() && !v->param(state.sweep.param_y)) state.sweep.param_y.clear();

    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("x:");
    ImGui::SameLine();
    std::vector<int> xs = ParamRangeChooser("x", *v, state.sweep.param_x, state.sweep_x_from, state.sweep_x_to, false);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("y:");
    ImGui::SameLine();
    std::vector<int> ys = ParamRangeChooser("y", *v, state.sweep.param_y, state.sweep_y_from, state.sweep_y_to, true);
    if (state.sweep.param_y == state.sweep.param_x) ys.clear();

    const size_t count = xs.size() * (ys.empty() ? 1 : ys.size());
    SweepProgress progress = state.engine_thread ? state.engine_thread->sweep_progress() : SweepProgress{};
    bool ours = state.engine_thread && progress.generation == state.sweep_generation && state.sweep_generation != 0;
    ImGui::BeginDisabled(!state.engine_thread || !state.engine_thread->ready() || count == 0);
    std::string run_label = trf("compare.run_sweep", count) + "###run_sweep";
    if (ImGui::Button(run_label.c_str())) StartSweep(state, xs, ys);
    ImGui::EndDisabled();
    if (ours && progress.running) {
        SameLineIfFits(ButtonWidth(tr("compare.cancel").c_str()));   // beside "Run sweep (1008 configurations)" where it fits
        if (ImGui::Button(tr("compare.cancel").c_str())) state.engine_thread->cancel_sweep();
        std::string text = std::to_string(progress.done) + " / " + std::to_string(progress.total);
        SameLineIfFits(ImGui::CalcTextSize(text.c_str()).x + ImGui::GetFontSize() * 2);   // else a line of its own
        ImGui::ProgressBar(progress.total ? float(progress.done) / float(progress.total) : 0.0f, ImVec2(-1, 0), text.c_str());
    }
    if (ours && !progress.per_gpu.empty()) WrappedTextDisabled(progress.per_gpu);   // several GPUs
    if (ours && !progress.note.empty()) WrappedTextDisabled(progress.note);
    if (ours) {
        state.sweep.gpus = state.engine_thread->sweep_gpus();
        state.sweep.results = state.engine_thread->sweep_results();
        state.sweep.running = progress.running;
    }

    const plot::PlotResult* rect = nullptr;
    plot::PlotResult drawn;
    if (!SweepIsOfCurrentVariant(state) && !state.sweep.results.empty()) {
        const auto& lessons = all_lessons();
        const Variant* swept = find_variant(state.sweep.variant);
        const bool in_lesson = state.sweep.lesson >= 0 && state.sweep.lesson < int(lessons.size());
        const std::string where = in_lesson ? LessonLabel(lessons[size_t(state.sweep.lesson)])
                                  : swept   ? variant_title(*swept)
                                            : state.sweep.variant;
        const std::string params = state.swept_y.empty() ? state.swept_x : state.swept_x + " × " + state.swept_y;
        WrappedTextDisabled(trf(in_lesson ? "compare.sweep_of_other_lesson" : "compare.sweep_of_other_kernel", params,
                                state.sweep.results.size(), where));
    } else if (!state.sweep_x_values.empty() && !state.sweep.results.empty()) {
        drawn = state.swept_y.empty() ? DrawSweep1D(state, *v) : DrawSweep2D(state);
        rect = &drawn;
        DrawSweepTable(state);
    }
    ImGui::Spacing();
    DrawExport(state, rect);
}

}  // namespace

bool SweepIsOfCurrentVariant(const AppState& state) { return state.sweep.variant == state.request.variant; }

ResultList ExportedRows(const AppState& state) {
    if (SweepIsOfCurrentVariant(state) && !state.sweep.results.empty()) return state.sweep.results;
    ResultList rows;
    for (const PinnedConfig& p : state.pinned) rows.push_back(p.result);
    return rows;
}

void StartSweep(AppState& state, const std::vector<int>& xs, const std::vector<int>& ys) {
    // The base is the last result's request (defaults filled, size parsed) when it is of this variant.
    RunRequest base = state.request;
    if (state.result && state.result->request.variant == state.request.variant) {
        base.params = with_defaults(CurrentVariant(state)->params, state.request.params);
        base.problem = state.result->request.problem;
    }
    std::vector<RunRequest> reqs;
    const size_t ny = ys.empty() ? 1 : ys.size();
    for (size_t iy = 0; iy < ny; ++iy)          // row-major: index = iy * nx + ix (the heatmap's order)
        for (int x : xs) {
            RunRequest r = base;
            r.params[state.sweep.param_x] = x;
            if (!ys.empty()) r.params[state.sweep.param_y] = ys[iy];
            reqs.push_back(r);
        }
    state.engine_thread->submit_sweep(std::move(reqs), state.run_options);
    state.sweep.variant = state.request.variant;
    state.sweep.lesson = CurrentLesson(state) ? state.lesson_index : -1;
    state.swept_x = state.sweep.param_x;
    state.swept_y = ys.empty() ? "" : state.sweep.param_y;
    state.sweep_x_values = xs;
    state.sweep_y_values = ys;
    state.sweep_generation = state.engine_thread->sweep_progress().generation;
    state.sweep.results.clear();
    state.sweep.running = true;
}

void DrawComparePanel(AppState& state) {
    DrawComparePins(state);
    ImGui::Separator();
    DrawTuneSection(state);   // gui/panel_tune.cpp
    ImGui::Separator();
    DrawSweep(state);
}

}  // namespace tilelab::gui
