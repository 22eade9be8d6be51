// [SECTION] Memory panel: the kernel's memory traffic three ways of looking — modelled per thread,
// per block and in total next to what the instrumented build counted; the formulas the model
// uses; the arithmetic intensity; and where that puts the kernel on the card's roofline.
// The model needs no GPU; counted values and measured points say "no GPU" in model mode.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include "analysis_common.h"
#include "tilelab/i18n.h"
#include "fonts.h"
#include "hardware_view.h"
#include "panels.h"
#include "plot.h"
#include "ui_common.h"
#include "engine_thread.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

std::string Rate(double gflops, const char* giga, const char* tera) {
    return gflops >= 1000 ? plot::FormatValue(gflops / 1000) + " " + tera : plot::FormatValue(gflops) + " " + giga;
}

void DrawHeadlines(const RunResult& r) {
    const CostModel& m = r.model;
    const bool computes = m.flops > 0;   // else n/a, not 0: a transpose only moves data
    Headline(tr("memory.arithmetic_intensity").c_str(),
             computes ? plot::FormatValue(m.intensity) + " FLOP/B" : tr("results.not_applicable"),
             computes ? plot::kHighlight : plot::kTextColor, tr("memory.intensity_help").c_str(), false);
    Headline("FLOPs", computes ? FormatCount(m.flops) : tr("results.not_applicable"), plot::kTextColor,
             tr("results.floating_point_operations_of_the_whole_launch").c_str());
    Headline(tr("memory.global_traffic_model").c_str(), format_bytes(m.global_bytes), plot::kTextColor,
             trf("memory.global_traffic_help", format_element_sizes(r.precision)).c_str());
    Headline(tr("memory.compulsory_traffic").c_str(), format_bytes(m.compulsory_bytes), plot::kTextColor,
             tr("memory.compulsory_traffic_help").c_str());
}

// Rows: the four kinds of access. Columns: model per thread, per block, total; counted total.
void DrawAccessTable(const RunResult& r) {
    const CostModel& m = r.model;
    struct Row {
        const char* name;
        double AccessCounts::*field;
    };
    const Row rows[] = {
        {tr("memory.global_loads").c_str(), &AccessCounts::global_loads},
        {tr("memory.global_stores").c_str(), &AccessCounts::global_stores},
        {tr("memory.shared_loads").c_str(), &AccessCounts::shared_loads},
        {tr("memory.shared_stores").c_str(), &AccessCounts::shared_stores},
    };
    TextWithHelp(trf("memory.accesses_in_elements", format_element_sizes(r.precision)), tr("memory.accesses_help").c_str());
    const float names_em = WidestEm({rows[0].name, rows[1].name, rows[2].name, rows[3].name}, true);
    if (!BeginDataTable("##accesses", {{tr("memory.col_access").c_str(), 1.4f, 0, names_em}, {tr("memory.per_thread").c_str()}, {tr("memory.per_block").c_str()}, {tr("memory.total_model").c_str()},
                                     {tr("memory.total_counted").c_str()}, {tr("memory.col_match").c_str(), 0, 3.5f}}))
        return;
    for (const Row& row : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        WrappedText(row.name);
        PushFontOrDefault(AppFonts().mono);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(m.per_thread.*row.field).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(m.per_block.*row.field).c_str());
        ImGui::TableNextColumn();
        double model_total = m.total.*row.field;
        ImGui::TextUnformatted(FormatCount(model_total).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", trf("memory.elements_exactly", format_count(model_total)).c_str());
        ImGui::TableNextColumn();
        bool have_count = r.measured && r.counted.has_value();
        // Counted later: the GPU run is still going, or this was a quick run (the full one counts).
        const bool pending = (!r.measured && r.phase == Phase::analysed) || (r.measured && !have_count && r.phase == Phase::quick);
        if (pending) {
            ImGui::TextDisabled("%s", tr("memory.pending").c_str());
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(r.measured ? tr("memory.quick_run_the_full_measurement_that_follows_coun").c_str()
                                             : tr("memory.counted_once_the_run_on_the_gpu_is_done").c_str());
        } else if (!r.measured) {
            ImGui::TextDisabled("%s", NoGpu());
        } else if (!have_count) {
            ImGui::TextDisabled("—");
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("memory.not_counted").c_str());
        } else {
            double counted = (*r.counted).*row.field;
            ImGui::TextUnformatted(FormatCount(counted).c_str());
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", trf("memory.counted_vs_modelled", format_count(counted), format_count(model_total)).c_str());
        }
        ImGui::PopFont();
        ImGui::TableNextColumn();
        if (have_count) {
            double counted = (*r.counted).*row.field;
            MatchMark(counted == model_total);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", counted == model_total ? tr("memory.model_counted").c_str()
                                                               : trf("memory.differ_by", format_count(counted - model_total)).c_str());
        }
    }
    EndDataTable();
}

void DrawFormulaTable(const char* id, const char* title, const std::vector<Formula>& formulas) {
    if (formulas.empty()) return;
    ImGui::TextUnformatted(title);
    std::vector<std::string> quantities;
    for (const Formula& f : formulas) quantities.push_back(quantity_label(f.quantity));
    if (!BeginDataTable(id, {{tr("memory.col_quantity").c_str(), 1.3f, 0, WidestEm(quantities, true)}, {tr("memory.col_formula").c_str(), 2.0f},
                             {tr("memory.col_value").c_str(), 0.8f}}))
        return;
    for (const Formula& f : formulas) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        WrappedText(quantity_label(f.quantity));
        ImGui::TableNextColumn();
        PushFontOrDefault(AppFonts().mono);
        WrappedText(formula_expression(f.expression));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(plot::FormatValue(f.value).c_str());
        ImGui::PopFont();
    }
    EndDataTable();
}

// The roofline: measured ceilings on a GPU (once the worker has measured them), the target's
// datasheet otherwise; the current point, pinned configurations and earlier runs.
void DrawRoofline(const AppState& state, const RunResult& r) {
    const Target& t = r.target;
    const Ceilings ceilings = state.engine_thread ? state.engine_thread->ceilings() : Ceilings{};
    plot::Roofline roof;
    std::string source;
    const ElementType input = r.precision.input;
    if (input == ElementType::f32 && ceilings.measured && ceilings.sgemm_gflops > 0 && ceilings.copy_gbps > 0) {
        roof.peak_gflops = ceilings.sgemm_gflops;
        roof.bandwidth_gbps = ceilings.copy_gbps;
        roof.peak_label = "SGEMM " + Rate(roof.peak_gflops, "GFLOP/s", "TFLOP/s");
        roof.bandwidth_label = tr("memory.roof_copy") + " " + Rate(roof.bandwidth_gbps, "GB/s", "TB/s");
        source = tr("memory.ceilings_measured_on_this_gpu_cublas_sgemm_for_c").c_str();
    } else {
        // The roof of the kernel's input type: the FP32 pipes, or the tensor cores at TF32/BF16/FP16.
        roof.peak_gflops = t.peak_gflops(input);
        roof.bandwidth_gbps = t.dram_gbps;
        const std::string type = element_label(input);
        roof.peak_label = (input == ElementType::f32 ? type : type + " tensor") + " " + Rate(roof.peak_gflops, "GFLOP/s", "TFLOP/s");
        roof.bandwidth_label = "DRAM " + Rate(roof.bandwidth_gbps, "GB/s", "TB/s");
        source = r.measured ? trf("memory.datasheet_until_measured", t.name) : trf("memory.datasheet_model_mode", t.name);
    }

    // Earlier runs first, so the current point is drawn on top.
    for (const HistoryPoint& h : state.history) {
        if (!(h.gflops > 0) || !(h.intensity > 0)) continue;
        plot::RooflinePoint p;
        p.intensity = h.intensity;
        p.gflops = h.gflops;
        p.color = h.valid ? plot::WithAlpha(plot::Palette(0), 0.7f) : StatusColor(false);
        p.note = ParamSummary(h.params) + ", " + FormatTime(h.median_ms) + (h.valid ? "" : tr("memory.note_failed_validation"));
        roof.points.push_back(p);
        if (h.dram_intensity > 0) {   // the same run placed by its measured DRAM bytes
            p.intensity = h.dram_intensity;
            p.color = h.valid ? plot::WithAlpha(plot::Palette(1), 0.7f) : StatusColor(false);
            p.note = ParamSummary(h.params) + tr("memory.note_by_dram_bytes");
            roof.points.push_back(p);
        }
    }
    for (size_t i = 0; i < state.pinned.size(); ++i) {
        const auto& pin = state.pinned[i];
        if (!pin.result || !pin.result->measured || !(pin.result->gflops > 0)) continue;
        plot::RooflinePoint p;
        p.intensity = pin.result->model.intensity;
        p.gflops = pin.result->gflops;
        p.label = pin.label;
        p.color = pin.result->validation.passed ? plot::Palette(int(i) + 2) : StatusColor(false);
        p.note = tr("memory.note_pinned");
        roof.points.push_back(p);
    }
    plot::RooflinePoint now;
    now.current = true;
    now.intensity = r.model.intensity;
    if (r.measured && r.gflops > 0) {
        bool passed = !r.validation.checked || r.validation.passed;
        now.gflops = r.gflops;
        now.color = passed ? plot::kHighlight : StatusColor(false);
        now.label = trf("plot.now_text", Rate(r.gflops, "GFLOP/s", "TFLOP/s")) + (passed ? "" : tr("memory.failed_validation_paren"));
        now.note = tr("memory.note_measured_time");
    } else {
        now.gflops = plot::RooflineAttainable(roof.peak_gflops, roof.bandwidth_gbps, r.model.intensity);
        now.hollow = true;
        now.color = plot::kHighlight;
        now.label = trf("memory.now_at_most", Rate(now.gflops, "GFLOP/s", "TFLOP/s"), NoGpu());
        now.note = tr("memory.not_measured_the_hollow_ring_is_the_roof_s_bound").c_str();
    }
    if (r.model.intensity > 0) roof.points.push_back(now);
    // The honest point: the same FLOPs over the bytes DRAM really moved (hardware counters).
    if (const auto dram = DramIntensity(r); dram && r.measured && r.gflops > 0) {
        plot::RooflinePoint d = now;
        d.intensity = *dram;
        d.color = plot::Palette(1);
        d.label = trf("memory.by_dram_bytes", plot::FormatValue(*dram));
        d.note = tr("memory.note_measured_dram");
        roof.points.push_back(d);
    }

    TextWithHelp(tr("memory.roofline"), tr("memory.roofline_help").c_str());
    WrappedTextDisabled(source);
    plot::DrawFigure("roofline", ImVec2(-1, ImGui::GetFontSize() * 22), plot::RooflineFigure(roof));
}

}  // namespace

void DrawMemoryPanel(AppState& state) {
    const RunResult* shown = ResultOrHint(state, tr("hint.analyse_a_kernel").c_str());
    if (!shown) return;
    const RunResult& r = *shown;
    if (!r.ok && r.stage == "input") {
        WrappedTextColored(StatusColorVec(false), trf("memory.no_model", r.error));
        return;
    }
    DrawHeadlines(r);
    ImGui::Spacing();
    DrawAccessTable(r);
    ImGui::Spacing();
    DrawBankSection(state, r);
    ImGui::Spacing();
    DrawHardwareTable(r);
    ImGui::Spacing();
    DrawFormulaTable("formulas", tr("memory.how_the_model_counts").c_str(), r.model.formulas);
    ImGui::Spacing();
    DrawFormulaTable("extras", tr("memory.more_of_this_variant").c_str(), r.model.extras);
    ImGui::Spacing();
    DrawRoofline(state, r);
}

}  // namespace tilelab::gui
