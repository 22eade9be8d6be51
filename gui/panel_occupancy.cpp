// [SECTION] Occupancy panel: how many warps one SM keeps resident for this kernel, which resource
// stops it from keeping more, the arithmetic behind that, and the three classic curves (vs block
// size, registers per thread, shared memory per block) with the current configuration marked.
// Everything here is static analysis (cuda_occupancy.h via the engine), so it works without a GPU.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include "analysis_common.h"
#include "tilelab/grid_fill.h"
#include "tilelab/i18n.h"
#include "hardware_view.h"
#include "tilelab/util.h"
#include "panels.h"
#include "plot.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

// A per-resource limit at or above this means the resource does not limit at all (the
// calculator reports "unlimited" as a huge count when, say, no shared memory is used).
constexpr int kUnlimited = INT_MAX / 2;

void DrawHeadlines(const RunResult& r) {
    const Occupancy& occ = r.occupancy;
    Headline(tr("occupancy.occupancy_theoretical").c_str(), PercentText(occ.occupancy), plot::kTextColor,
             tr("occupancy.theoretical_help").c_str(),
             false);
    if (const GridFill g = grid_fill(r.target, occ, r.launch.blocks(), r.launch.threads_per_block()); g.limits)
        Headline(tr("occupancy.grid_fill").c_str(), PercentText(g.occupancy), plot::kHighlight,
                 trf("occupancy.grid_fill_help", r.launch.blocks(), r.target.sm_count, g.blocks_per_sm, g.warps_per_sm).c_str());
    if (const auto achieved = AchievedOccupancy(r))
        Headline(tr("occupancy.achieved").c_str(), PercentText(*achieved),
                 plot::kHighlight, tr("occupancy.achieved_help").c_str());
    else
        Headline(tr("occupancy.achieved").c_str(), "\xe2\x80\x94", plot::kTextColor, HardwareMissingReason(r).c_str());
    if (r.precision.input != ElementType::f32) {   // a tensor-core kernel: how busy its pipe was
        if (const auto busy = TensorPipeBusy(r))
            Headline(tr("occupancy.tensor_pipe").c_str(), PercentText(*busy),
                     plot::kHighlight, tr("occupancy.tensor_pipe_help").c_str());
        else
            Headline(tr("occupancy.tensor_pipe").c_str(), "\xe2\x80\x94", plot::kTextColor, HardwareMissingReason(r).c_str());
    }
    Headline(tr("occupancy.active_warps_sm").c_str(), std::to_string(occ.active_warps) + " / " + std::to_string(occ.max_warps),
             plot::kTextColor, tr("occupancy.warps_of_this_kernel_resident_on_one_sm_at_a_tim").c_str());
    Headline(tr("occupancy.blocks_sm").c_str(), std::to_string(occ.blocks_per_sm), plot::kTextColor,
             tr("occupancy.blocks_of_this_kernel_one_sm_runs_at_once_the_sm").c_str());
    Headline(tr("occupancy.limited_by").c_str(), occ.limiter.empty() ? "-" : limiter_label(occ.limiter), plot::kHighlight,
             tr("occupancy.the_resource_that_runs_out_first_use_less_of_it").c_str());
}

// The four limits as horizontal bars; the limiting ones in the highlight colour.
void DrawLimitBars(const Occupancy& occ, const OccupancyInput& in, const Target& t) {
    struct Limit { std::string name; int blocks; };
    const Limit limits[] = {
        {trf("occupancy.bar_warps", ceil_div(in.threads_per_block, std::max(1, t.warp_size))), occ.limit_warps},
        {trf("occupancy.bar_registers", in.registers_per_thread), occ.limit_registers},
        {trf("occupancy.bar_smem", format_bytes(in.smem_per_block)), occ.limit_smem},
        {tr("occupancy.blocks_hardware_limit").c_str(), occ.limit_blocks},
    };
    plot::BarChart chart;
    chart.title = tr("occupancy.blocks_per_sm_each_resource_allows_on_its_own").c_str();
    chart.horizontal = true;
    chart.legend = false;
    chart.value_axis.label = tr("occupancy.blocks_per_sm").c_str();
    plot::BarSeries bars;
    bars.color = plot::Palette(0);
    int finite_max = 1;
    for (const Limit& l : limits)
        if (l.blocks < kUnlimited) finite_max = std::max(finite_max, l.blocks);
    for (const Limit& l : limits) {
        chart.categories.push_back(l.name);
        bool unlimited = l.blocks >= kUnlimited;
        bars.values.push_back(unlimited ? finite_max * 1.1 : l.blocks);
        bars.value_labels.push_back(unlimited ? tr("occupancy.no_limit").c_str() : std::to_string(l.blocks));
        bool limiting = !unlimited && l.blocks == occ.blocks_per_sm;
        bars.bar_colors.push_back(limiting ? plot::kHighlight : 0);
    }
    chart.series.push_back(bars);
    chart.value_axis.range = plot::Range{0, plot::FitRange({double(finite_max) * 1.1}, plot::Scale::Linear, true).max};
    float row = ImGui::GetFontSize() * 2.3f;
    plot::DrawBars("occupancy_limits", ImVec2(-1, row * 4 + ImGui::GetFontSize() * 5), chart);
}

void DrawSteps(const Occupancy& occ) {
    if (occ.steps.empty()) return;
    if (!ImGui::CollapsingHeader(tr("occupancy.the_arithmetic_step_by_step").c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
    ImGui::Indent();
    for (size_t i = 0; i < occ.steps.size(); ++i) {
        ImGui::TextDisabled("%zu.", i + 1);
        ImGui::SameLine();
        WrappedText(occ.steps[i]);
    }
    ImGui::Unindent();
}

plot::Figure CurveFigure(const char* title, const char* x_label, const std::vector<CurvePoint>& curve, int current_x,
                         double current_occupancy) {
    plot::Figure fig;
    fig.title = title;
    fig.legend = false;
    fig.x.label = x_label;
    fig.y.label = tr("occupancy.axis_percent");
    fig.y.range = plot::Range{0, 105};
    fig.y.tick_values = {0, 25, 50, 75, 100};
    fig.empty_text = tr("occupancy.no_curve_the_kernel_did_not_compile").c_str();
    plot::Series s;
    s.name = tr("occupancy.series");
    s.color = plot::Palette(0);
    s.thickness = 3.0f;
    s.marker = plot::MarkerShape::Circle;   // the calculator's samples, so gaps between them show
    s.marker_radius = 2.5f;
    for (const CurvePoint& p : curve) {
        s.x.push_back(p.x);
        s.y.push_back(p.occupancy * 100);
    }
    if (!s.x.empty()) fig.x.range = plot::Range{0, std::max(s.x.back(), double(current_x))};
    fig.series.push_back(s);
    plot::Marker now;
    now.x = current_x;
    now.y = current_occupancy * 100;
    now.label = trf("plot.now_percent", int(std::lround(now.y)));
    fig.markers.push_back(now);
    return fig;
}

void DrawCurves(AppState& state, const RunResult& r, const OccupancyInput& in, const Target& t) {
    if (state.occupancy_curves_of != state.result) {
        state.occupancy_curves = t.sm_count > 0 || t.max_threads_per_sm > 0 ? occupancy_curves(t, in) : OccupancyCurves{};
        state.occupancy_curves_of = state.result;
    }
    const OccupancyCurves& c = state.occupancy_curves;
    double occ = r.occupancy.occupancy;
    plot::Figure block = CurveFigure(tr("occupancy.vs_threads_per_block").c_str(), tr("occupancy.threads_per_block").c_str(), c.vs_block_size, in.threads_per_block, occ);
    block.x.range = plot::Range{0, double(t.max_threads_per_block)};
    plot::Figure regs = CurveFigure(tr("occupancy.vs_registers_per_thread").c_str(), tr("occupancy.registers_per_thread").c_str(), c.vs_registers,
                                    in.registers_per_thread, occ);
    regs.x.range = plot::Range{0, double(t.max_regs_per_thread + 1)};
    plot::Figure smem = CurveFigure(tr("occupancy.vs_shared_memory_per_block").c_str(), tr("occupancy.shared_memory_per_block").c_str(), c.vs_smem, in.smem_per_block, occ);
    smem.x.format = [](double v) { return format_bytes(v); };
    // Ticks at powers-of-two multiples of a KiB, so they read 32 KiB, 64 KiB ... not 48.8 KiB.
    if (!c.vs_smem.empty()) {
        double max_bytes = std::max(double(c.vs_smem.back().x), double(in.smem_per_block));
        double step = plot::PowerOfTwoStep(max_bytes, 4, 1024);
        for (double v = 0; v <= max_bytes; v += step) smem.x.tick_values.push_back(v);
    }

    // Side by side when there is room for three readable plots, stacked otherwise.
    float avail = ImGui::GetContentRegionAvail().x;
    ThreeAcross(avail, ImGui::GetFontSize() * 16, [&](ImVec2 size) { plot::DrawFigure("occ_vs_block", size, block); },
                [&](ImVec2 size) { plot::DrawFigure("occ_vs_regs", size, regs); },
                [&](ImVec2 size) { plot::DrawFigure("occ_vs_smem", size, smem); });
}

}  // namespace

void DrawOccupancyPanel(AppState& state) {
    const RunResult* shown = ResultOrHint(state, tr("hint.analyse_a_kernel").c_str());
    if (!shown) return;
    const RunResult& r = *shown;
    const Occupancy& occ = r.occupancy;
    const Target& t = r.target;
    const OccupancyInput& in = r.occupancy_input;

    if (!r.ok && (r.stage == "input" || r.stage == "compile")) {
        WrappedTextColored(StatusColorVec(false), trf("occupancy.stage_failed", StageName(r.stage), r.error));
        return;
    }
    if (!occ.error.empty()) {
        WrappedTextColored(StatusColorVec(false), occ.error);
    }

    DrawHeadlines(r);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    const RegisterAllocation regs = allocated_registers(t, in.registers_per_thread);
    const std::string regs_text = regs.rounded() ? trf("occupancy.registers_as_allocated", regs.ptxas, regs.per_thread)
                                                 : std::to_string(regs.ptxas);
    WrappedText(trf("occupancy.inputs_line", in.threads_per_block, regs_text,
                    format_bytes(in.smem_per_block), t.name, t.arch_name(),
                    t.source.empty() ? "?" : t.source));
    ImGui::PopStyleColor();
    ImGui::Spacing();
    DrawLimitBars(occ, in, t);
    DrawSteps(occ);
    ImGui::Spacing();
    // Wrapped, its (?) included: the tab column of a projector is narrower than the sentence.
    TextWithHelp(tr("occupancy.occupancy_as_one_input_changes_the_other_two_hel"), tr("occupancy.curves_help").c_str());
    DrawCurves(state, r, in, t);
}

}  // namespace tilelab::gui
