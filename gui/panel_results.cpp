// [SECTION] Results panel: the headline numbers (median time with its spread, GFLOP/s, GB/s, each
// against the best the card does), the validation badge, the static analysis every mode has
// (launch, registers, occupancy, modelled traffic) and the history of time against the parameter
// being dragged. In model mode the measured figures say "no GPU".
#include <imgui.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include "actions.h"
#include "analysis_common.h"
#include "tilelab/i18n.h"
#include "fonts.h"
#include "panels.h"
#include "plot.h"
#include "ui_common.h"
#include "compile_memory.h"
#include "engine_thread.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

const ImVec4 kUpdating(1.0f, 0.75f, 0.2f, 1.0f);
const ImU32 kBadgeGrey = IM_COL32(90, 94, 104, 255);

// The status colours, dimmed so white text on them reads well.
ImU32 badge_colour(bool ok) {
    const ImVec4 c = StatusColorVec(ok);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(c.x * 0.62f, c.y * 0.62f, c.z * 0.62f, 1.0f));
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// "2.70 TFLOP/s" style: three significant digits with an SI prefix on the unit.
std::string rate(double per_second_in_giga, const char* unit) {
    std::string s = FormatCount(per_second_in_giga * 1e9);
    // FormatCount gives "2.70 T"; glue the unit to the prefix.
    if (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back()))) return s + unit;
    return s + " " + unit;
}

// One headline: caption (dim), the number (big) with its unit (normal size) beside it, and a
// detail line (dim, wrapped). `value` is "12.3 ms": the part before the first space is the number.
struct Headline {
    std::string caption, value, detail, help;
};

// A number shrinks to fit its column down to this share of its size; beside another it keeps this
// much clear (in ems) at its column's end.
constexpr float kLeastNumberScale = 0.75f, kNumberGapEm = 0.5f;

// Draws one; `bottom` becomes where the lowest number so far ends (window coordinates).
void draw_headline(const Headline& h, float& bottom) {
    ImGui::BeginGroup();
    // Captions are narrow; the explanation is a tooltip on the caption rather than a (?). A caption
    // wider than its column wraps instead of running under the next one.
    WrappedTextDisabled(h.caption);
    if (!h.help.empty() && ImGui::IsItemHovered()) WrappedTooltip(h.help.c_str());
    const size_t space = h.value.find(' ');
    const std::string number = h.value.substr(0, space);
    const std::string unit = space == std::string::npos ? "" : h.value.substr(space + 1);
    const float gap = ImGui::TableGetColumnCount() > 1 ? ImGui::GetFontSize() * kNumberGapEm : 0.0f;
    const float big_ascent = FittedBigText(number, ImGui::GetColorU32(ImGuiCol_Text), gap);
    bottom = std::max(bottom, ImGui::GetCursorPosY());
    if (!unit.empty()) {
        // The unit in the normal font, on the number's baseline when it fits beside it.
        const float gap = ImGui::GetFontSize() * 0.3f;
        ImGui::SameLine(0, gap);
        if (ImGui::CalcTextSize(unit.c_str()).x <= ImGui::GetContentRegionAvail().x) {
            ImGui::SetCursorPosY(ImGui::GetCursorPosY() + big_ascent - DrawnAscent());
        } else {
            ImGui::NewLine();
        }
        ImGui::TextDisabled("%s", unit.c_str());
    }
    if (!h.detail.empty()) WrappedTextDisabled(h.detail);
    ImGui::EndGroup();
}

// As many headlines side by side as leave each column room for the widest word of its caption and
// detail ("Intensity", "registers") and for its number: in a narrow panel at large text, two or one
// a row rather than words cut in two or numbers run together. Returns where the lowest number ends.
float draw_headlines(const std::vector<Headline>& items) {
    float widest = 0;
    for (const Headline& h : items) widest = std::max({widest, WidestUnbreakable(h.caption), WidestUnbreakable(h.detail)});
    // And each number, little shrunk and with a gap to the next, so two never read as one ("13.6 1.42").
    const float gap = ImGui::GetFontSize() * kNumberGapEm;
    PushFontOrDefault(AppFonts().big);
    for (const Headline& h : items)
        widest = std::max(widest, ImGui::CalcTextSize(h.value.substr(0, h.value.find(' ')).c_str()).x * kLeastNumberScale + gap);
    ImGui::PopFont();
    const float avail = ImGui::GetContentRegionAvail().x, cell = 2 * ImGui::GetStyle().CellPadding.x + 1;
    int columns = int(items.size());
    while (columns > 1 && (avail - float(columns) * cell) / float(columns) < widest) --columns;
    float bottom = 0;
    if (ImGui::BeginTable("##headlines", std::max(columns, 1), ImGuiTableFlags_SizingStretchSame)) {
        for (const Headline& h : items) {
            ImGui::TableNextColumn();
            draw_headline(h, bottom);
        }
        ImGui::EndTable();
    }
    return bottom;
}

// A full-width coloured badge: the first thing the eye finds when a result is wrong. The detail
// goes beside the title, or under it where beside it would leave less than its widest word or
// eight ems (a narrow panel at large text wrapped it a letter a line).
void badge(const std::string& title, const std::string& detail, ImU32 colour) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const float pad = ImGui::GetStyle().FramePadding.x;
    PushFontOrDefault(AppFonts().bold);
    const ImVec2 title_size = ImGui::CalcTextSize(title.c_str());
    ImGui::PopFont();
    const float beside = width - 2 * pad - title_size.x - pad * 2;
    const float least = std::max(ImGui::GetFontSize() * 8, WidestUnbreakable(detail));
    const bool under = !detail.empty() && beside < least;
    const float wrap = under ? width - 2 * pad : beside;
    // Measured as WrappedText breaks it below (ImGui's own wrapping breaks elsewhere in Chinese).
    const ImVec2 detail_size =
        detail.empty() ? ImVec2(0, 0) : ImGui::CalcTextSize(BreakLines(detail, std::max(wrap - 1.0f, 1.0f), CurrentAdvance()).c_str());
    const float height = (under ? title_size.y + ImGui::GetStyle().ItemSpacing.y + detail_size.y : std::max(title_size.y, detail_size.y)) +
                         2 * ImGui::GetStyle().FramePadding.y;
    ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + width, p.y + height), colour, 5.0f);
    ImGui::SetCursorScreenPos(ImVec2(p.x + pad, p.y + ImGui::GetStyle().FramePadding.y));
    PushFontOrDefault(AppFonts().bold);
    ImGui::TextColored(ImVec4(1, 1, 1, 1), "%s", title.c_str());
    ImGui::PopFont();
    if (!detail.empty()) {
        if (under) ImGui::SetCursorScreenPos(ImVec2(p.x + pad, ImGui::GetCursorScreenPos().y));
        else ImGui::SameLine(0, pad * 2);
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
        WrappedTextColored(ImVec4(1, 1, 1, 0.92f), detail);
        ImGui::PopTextWrapPos();
    }
    ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + height));
    ImGui::Dummy(ImVec2(width, ImGui::GetStyle().ItemSpacing.y * 0.5f));
}

// Both return where the headline numbers end (headline).
float draw_measured(const AppState& state, const RunResult& r) {
    const Timing& t = r.timing;
    const double spread = t.median_ms > 0 ? 100.0 * (t.max_ms - t.min_ms) / t.median_ms : 0;
    const std::string time_detail =
        trf("results.time_detail", FormatTime(t.min_ms), FormatTime(t.max_ms), fixed(spread, 1), t.samples_ms.size());
    std::string flops_detail, bytes_detail;
    if (r.reference_ms > 0)
        flops_detail = trf("results.pct_of_reference", fixed(r.pct_of_reference, 0), r.reference_name, FormatTime(r.reference_ms));
    const Ceilings c = state.engine_thread ? state.engine_thread->ceilings() : Ceilings{};
    if (c.measured && c.copy_gbps > 0)
        bytes_detail = trf("results.pct_of_device_copy", fixed(100.0 * r.gbps_effective / c.copy_gbps, 0), rate(c.copy_gbps, "B/s"));
    else
        bytes_detail = trf("results.model_traffic_at_this_time", rate(r.gbps_model, "B/s"));
    // A kernel that computes nothing (a transpose) has no FLOP rate: n/a, not 0. Measured, the DRAM
    // figure is what DRAM really moved; the model's stays, labelled.
    const std::string flop_help = tr("results.the_model_s_flop_count_divided_by_the_median_tim");
    const float bottom = draw_headlines({
        {tr("results.time_median"), FormatTime(t.median_ms), time_detail, tr("results.time_median_help")},
        r.model.flops > 0 ? Headline{tr("results.compute"), rate(r.gflops, "FLOP/s"), flops_detail, flop_help}
                          : Headline{tr("results.compute"), tr("results.not_applicable"), tr("results.no_flops"), flop_help},
        r.gbps_dram > 0 ? Headline{tr("results.dram_measured"), rate(r.gbps_dram, "B/s"),
                                   trf("results.dram_detail", rate(r.gbps_effective, "B/s"), rate(r.gbps_model, "B/s")),
                                   tr("results.dram_measured_help")}
                        : Headline{tr("results.memory_model"), rate(r.gbps_effective, "B/s"), bytes_detail, tr("results.memory_model_help")},
    });
    if (!r.validation.checked) {
        badge(tr("results.badge_not_checked"), tr("results.this_run_was_not_validated").c_str(), kBadgeGrey);
        return bottom;
    }
    const Validation& v = r.validation;
    char errors[200];
    std::snprintf(errors, sizeof errors, tr("results.validation_errors").c_str(), v.max_abs_error, v.max_rel_error,
                  v.tolerance, v.reference.c_str());
    badge(tr(v.passed ? "results.badge_correct" : "results.badge_wrong"), v.passed ? errors : v.message + "  \xe2\x80\x94  " + errors,
          badge_colour(v.passed));
    return bottom;
}

// Model mode, or a GPU still measuring: the headline numbers are the model's, marked as such.
float draw_modelled(const RunResult& r, bool measuring) {
    const Occupancy& o = r.occupancy;
    const bool computes = r.model.flops > 0;   // else n/a, not 0: a transpose only moves data
    // The whole launch's ratio (stores included) is the headline; the ratio a textbook quotes for
    // this kernel (CostModel::quoted_intensity: PMPP's stencil figures) is under it, labelled.
    std::string quoted;
    for (const Formula& f : r.model.extras)
        if (!r.model.quoted_intensity.empty() && f.quantity == r.model.quoted_intensity)
            quoted = trf("results.intensity_quoted", FormatCount(f.value));
    const float bottom = draw_headlines({
        {tr("results.flops_model"), computes ? FormatCount(r.model.flops) : tr("results.not_applicable"),
         computes ? "" : tr("results.no_flops"), tr("results.floating_point_operations_of_the_whole_launch")},
        {tr("results.intensity_model"), computes ? FormatCount(r.model.intensity) + " FLOP/B" : tr("results.not_applicable"), quoted,
         tr("results.intensity_help")},
        {tr("results.occupancy"), o.max_warps > 0 ? PercentText(o.occupancy) : "-",
         o.limiter.empty() ? "" : trf("results.limited_by", limiter_label(o.limiter)),
         tr("results.active_warps_per_sm_over_the_most_an_sm_holds_cu")},
    });
    if (measuring) {
        badge(tr("results.badge_measuring"), tr("results.compiled_and_analysed_the_validated_run_on_the_g").c_str(), kBadgeGrey);
        return bottom;
    }
    const std::string why = r.no_gpu_reason.empty() ? "" : " (" + r.no_gpu_reason + ")";
    badge(tr("results.badge_no_gpu"), tr("results.time_flop_s_gb_s_and_validation_need_a_gpu").c_str() + why + ".", kBadgeGrey);
    return bottom;
}

// Says that the numbers shown are the quick run's (a drag, or first after a click), not the full
// measurement's.
void quick_note(const RunResult& r) {
    WrappedTextColored(kUpdating, trf("results.quick_run_note", r.timing.samples_ms.size()));
    if (ImGui::IsItemHovered())
        WrappedTooltip(tr("results.quick_run_help").c_str());
}

void row(const char* name, const std::string& value, const char* help = nullptr, const ImVec4* colour = nullptr) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    TextWithHelp(name, help, true);   // a narrow column wraps the name, its (?) included
    ImGui::TableNextColumn();
    if (colour) WrappedTextColored(*colour, value);
    else WrappedText(value);
}

void draw_analysis(const RunResult& r) {
    if (!ImGui::BeginTable("##analysis", 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) return;
    ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch, 0.45f);   // ui-strings: not shown
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 0.55f);   // ui-strings: not shown
    const LaunchShape& l = r.launch;
    char grid[96], block[96];
    std::snprintf(grid, sizeof grid, "%u \xc3\x97 %u \xc3\x97 %u  %s", l.grid[0], l.grid[1], l.grid[2],
                  trf("results.n_blocks", FormatCount(double(l.blocks()))).c_str());
    std::snprintf(block, sizeof block, "%u \xc3\x97 %u \xc3\x97 %u  %s", l.block[0], l.block[1], l.block[2],
                  trf("results.n_threads", static_cast<long long>(l.threads_per_block())).c_str());
    row(tr("results.grid").c_str(), l.cluster > 1 ? std::string(grid) + trf("report.launch_cluster", l.cluster) : std::string(grid));
    row(tr("results.block").c_str(), block);
    for (size_t i = 0; i < r.passes.size(); ++i) {   // a lesson of several kernels: each one, timed alone
        const PassTime& pass = r.passes[i];
        row(trf("results.pass_row", i + 1, r.passes.size(), pass.label).c_str(),
            pass.median_ms > 0 ? trf("results.pass_value", pass.kernel, FormatTime(pass.median_ms))
                               : trf("results.pass_value_untimed", pass.kernel),
            tr("results.pass_help").c_str());
    }
    if (r.compiled && r.compiled->ok) {
        const PtxasInfo& p = r.compiled->ptxas;
        const bool spills = p.spills();
        const ImVec4 red = StatusColorVec(false);
        row(tr("results.registers_thread").c_str(),
            spills ? trf("results.registers_spills", p.registers, p.spill_stores, p.spill_loads)
                   : trf("results.registers_no_spills", p.registers),
            tr("results.from_ptxas_s_report_on_the_compiled_kernel_spill").c_str(),
            spills ? &red : nullptr);
        row(tr("results.shared_memory_block").c_str(), format_bytes(r.smem_bytes()));
    }
    const Occupancy& o = r.occupancy;
    if (o.error.empty() && o.max_warps > 0)
        row(tr("results.occupancy").c_str(), PercentText(o.occupancy) + ", " + std::to_string(o.active_warps) + "/" +
                             std::to_string(o.max_warps) + trf("results.warps_limited_by", limiter_label(o.limiter)),
            tr("results.active_warps_per_sm_over_the_most_an_sm_can_hold").c_str());
    else if (!o.error.empty())
        row(tr("results.occupancy").c_str(), o.error);
    if (r.stalls.has_samples())   // the top reason and its share; the Code panel has the lines
        row(tr("results.warps_wait").c_str(), stall_summary(r.stalls, r.kernel_file), tr("results.warps_wait_help").c_str());
    const CostModel& m = r.model;
    row(tr("results.flops_model").c_str(), m.flops > 0 ? FormatCount(m.flops) : tr("results.not_applicable"));
    row(tr("results.global_traffic_model").c_str(), format_bytes(m.global_bytes),
        trf("results.global_traffic_help", format_element_sizes(r.precision)).c_str());
    row(tr("results.compulsory_traffic").c_str(), format_bytes(m.compulsory_bytes), tr("results.each_input_read_once_and_the_output_written_once").c_str());
    row(tr("results.arithmetic_intensity").c_str(), fixed(m.intensity, 2) + " FLOP/B", tr("results.model_flops_over_model_global_bytes").c_str());
    ImGui::EndTable();
}

void draw_history(const AppState& state) {
    // The parameter being explored: the newest history point that was made by changing one.
    std::string name;
    for (auto it = state.history.rbegin(); it != state.history.rend(); ++it)
        if (!it->dragged.empty() && it->params.count(it->dragged)) { name = it->dragged; break; }
    if (name.empty()) {
        WrappedTextDisabled(tr(state.history.empty() ? "results.measured_runs_appear_here_as_a_plot_of_time_agai"
                                                     : "results.change_a_parameter_to_plot_time_against_it"));
        return;
    }
    // Points that differ from the current configuration only in that parameter; newest per value.
    std::map<int, const HistoryPoint*> newest;
    for (const HistoryPoint& p : state.history) {
        if (p.variant != state.request.variant || !(p.problem == state.request.problem) || p.dragged.empty()) continue;
        bool same_elsewhere = true;
        for (const auto& [k, v] : p.params)
            if (k != name && state.request.params.count(k) && state.request.params.at(k) != v) same_elsewhere = false;
        if (same_elsewhere && p.params.count(name)) newest[p.params.at(name)] = &p;
    }
    plot::Figure fig;
    fig.title = trf("results.time_against", name);
    fig.x.label = name;
    fig.y.label = tr("results.median_time_ms");
    fig.y.include_zero = true;
    fig.empty_text = tr("results.no_runs_at_the_current_settings_yet").c_str();
    plot::Series ok, bad;
    ok.name = tr("results.series_correct");
    ok.marker = plot::MarkerShape::Circle;
    bad.name = tr("results.series_wrong");
    bad.line = false;
    bad.marker = plot::MarkerShape::Square;
    bad.color = StatusColor(false);
    for (const auto& [x, p] : newest) {
        fig.x.tick_values.push_back(x);
        (p->valid ? ok : bad).x.push_back(x);
        (p->valid ? ok : bad).y.push_back(p->median_ms);
    }
    if (!ok.x.empty()) fig.series.push_back(ok);
    if (!bad.x.empty()) fig.series.push_back(bad);
    const auto cur = state.request.params.find(name);
    if (cur != state.request.params.end() && newest.count(cur->second)) {
        plot::Marker now;
        now.x = cur->second;
        now.y = newest.at(cur->second)->median_ms;
        now.label = trf("plot.now_text", FormatTime(now.y));
        fig.markers.push_back(now);
    }
    const float h = std::max(ImGui::GetFontSize() * 12, ImGui::GetContentRegionAvail().y);
    plot::DrawFigure("##history", ImVec2(-1, h), fig);
}

}  // namespace

void DrawResultsPanel(AppState& state) {
    PushFontOrDefault(AppFonts().h2);
    ImGui::TextUnformatted(tr("heading.results").c_str());
    ImGui::PopFont();
    const std::shared_ptr<const RunResult> r = state.result;
    std::string status;   // beside the heading where it fits, else under it
    ImVec4 colour = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    if (state.updating) {
        const EngineActivity activity = state.engine_thread ? state.engine_thread->activity() : EngineActivity::Idle;
        // A compile NVRTC takes seconds over (the largest unrolled tiles: bench/compile_sweep) counts
        // its seconds, so a slow configuration reads as working, not stuck.
        const double seconds = state.engine_thread ? state.engine_thread->activity_seconds() : 0;
        if (activity == EngineActivity::Analyzing && seconds >= 1) {
            const std::optional<double> last = state.compile_memory.last_seconds(state.request.variant);   // the one being built
            status = CompilingLine(to_string(activity), seconds, last);
        } else {
            status = trf("results.updating", to_string(activity));
        }
        colour = kUpdating;
    } else if (r) {
        status = tr(r->phase == Phase::quick ? "results.quick_result" : "results.up_to_date");
    }
    if (!status.empty()) {
        SameLineIfFits(ImGui::CalcTextSize(status.c_str()).x);
        ImGui::AlignTextToFramePadding();
        WrappedTextColored(colour, status);
    }
    if (!r) {
        WrappedTextDisabled(tr("results.waiting_for_the_first_result"));
        return;
    }
    if (r->request.variant != state.request.variant)
        WrappedTextDisabled(tr("results.showing_the_previous_lesson_s_result_until_this"));

    if (!r->ok && r->stage == "validate" && !r->may_be_wrong.empty()) {   // a lesson's demonstration: why, then the check
        badge(tr("results.badge_wrong_by_design"), r->may_be_wrong + "  \xe2\x80\x94  " + r->error, badge_colour(false));
        if (r->compiled && r->compiled->ok) draw_analysis(*r);
        return;
    }
    if (!r->ok) {
        const std::string stage = r->stage.empty() ? "" : " (" + StageName(r->stage) + ")";
        badge(tr("results.badge_cannot_run") + stage, r->error.empty() ? tr("results.the_engine_gave_no_reason").c_str() : r->error,
              badge_colour(false));
        if (r->compiled && r->compiled->ok) draw_analysis(*r);
        return;
    }
    if (r->measured && r->phase == Phase::quick) quick_note(*r);
    // The layout keeps the panel in view down to the headline numbers.
    state.results_headline = r->measured ? draw_measured(state, *r) : draw_modelled(*r, r->phase == Phase::analysed);
    ImGui::Spacing();
    draw_analysis(*r);
    ImGui::Spacing();
    draw_history(state);
}

}  // namespace tilelab::gui
