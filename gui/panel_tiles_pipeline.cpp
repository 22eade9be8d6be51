// The Tiles panel's timeline of one block's pipeline (TileGeometry::ring_stages > 0, lesson 22),
// from tilelab/pipeline.h: a row per shared stage (TMA writing it, loaded and waiting, wgmma
// reading it) and a row per consumer group (its multiplies and stores, the gaps between them
// waits), around the panel's k-step; under it the block's whole life beside the measured time.
// A slice's multiply comes from the datasheet's tensor roof; a load's rate is the one that makes
// the model end at the measured time (in model mode the DRAM's share), its latency the learner's.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include "plot.h"
#include "tiles_draw.h"
#include "ui_common.h"
#include "fmt/format.h"
#include "tilelab/format.h"
#include "tilelab/i18n.h"
#include "tilelab/pipeline.h"
#include "text_wrap.h"

namespace tilelab::gui::tiles {

namespace {
std::string Us(double us) { return fmt::format("{:.2f}", us); }

ImU32 SpanFill(PipelineSpanKind kind) {
    switch (kind) {
        case PipelineSpanKind::Loading: return kHaloFill;
        case PipelineSpanKind::Loaded: return kSmemFill;
        case PipelineSpanKind::Multiplying: return kOutputFill;
        case PipelineSpanKind::Storing: return kRegisterFill;
    }
    return kMatrixFill;
}

// A slice's name: its k-step, with its tile's number after the first ("2·k1").
std::string SliceName(int64_t g, int64_t slices) {
    const int64_t tile = g / slices, k = g % slices + 1;
    return tile == 0 ? fmt::format("k{}", k) : fmt::format("{}·k{}", tile + 1, k);
}

struct Axis {   // time → x over [t0, t1]
    double t0, t1;
    float x0, width;
    float x(double t) const { return x0 + float((std::clamp(t, t0, t1) - t0) / std::max(1e-12, t1 - t0)) * width; }
};

// Rows of the slices [first, last] around the k-step, in their time window.
void DrawZoom(const PipelineTimeline& tl, const PipelineInput& in, int64_t first, int64_t last, int64_t current) {
    double t0 = 1e300, t1 = 0;
    for (const PipelineSpan& s : tl.spans) {   // the window's multiplies and stores, and its loads, which began earlier
        if (s.slice < first || s.slice > last) continue;
        if (s.lane >= in.stages) t0 = std::min(t0, s.start_us), t1 = std::max(t1, s.end_us);
        if (s.kind == PipelineSpanKind::Loading) t0 = std::min(t0, s.start_us);
    }
    if (!(t1 > t0)) return;
    const float font = ImGui::GetFontSize(), row_h = font * 1.35f, label_w = font * 5.5f;
    const int rows = in.stages + in.groups;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const Axis axis{t0, t1, origin.x + label_w, std::max(font * 8, ImGui::GetContentRegionAvail().x - label_w - font * 0.5f)};
    for (int row = 0; row < rows; ++row) {
        const float y = origin.y + float(row) * row_h;
        Caption(dl, ImVec2(origin.x, y + font * 0.15f),
                row < in.stages ? trf("tiles.ring_stage", row)
                                : (in.groups > 1 ? trf("tiles.timeline_group", row - in.stages + 1) : tr("tiles.timeline_consumers")));
        dl->AddRectFilled(ImVec2(axis.x0, y + 1), ImVec2(axis.x0 + axis.width, y + row_h - 1), plot::WithAlpha(kMatrixFill, 0.6f));
    }
    dl->PushClipRect(ImVec2(axis.x0, origin.y), ImVec2(axis.x0 + axis.width, origin.y + float(rows) * row_h), true);
    for (const PipelineSpan& s : tl.spans) {
        if (s.end_us < t0 || s.start_us > t1 || s.end_us <= s.start_us) continue;
        const float y = origin.y + float(s.lane) * row_h;
        const ImVec2 a(axis.x(s.start_us), y + 2), b(axis.x(s.end_us), y + row_h - 2);
        const bool now = s.slice == current && s.kind == PipelineSpanKind::Multiplying;
        Rect(dl, a, b, SpanFill(s.kind), now ? plot::kHighlight : kMatrixEdge, now ? 2.5f : 1.0f);
        const std::string name = s.kind == PipelineSpanKind::Storing ? tr("tiles.timeline_store") : SliceName(s.slice, in.slices);
        if (b.x - a.x > ImGui::CalcTextSize(name.c_str()).x + 4) Caption(dl, ImVec2(a.x + 2, y + font * 0.15f), name, IM_COL32(20, 20, 20, 255));
    }
    dl->PopClipRect();
    const float axis_y = origin.y + float(rows) * row_h + 2;
    Caption(dl, ImVec2(axis.x0, axis_y), Us(t0) + " µs");
    const std::string end = Us(t1) + " µs";
    Caption(dl, ImVec2(axis.x0 + axis.width - ImGui::CalcTextSize(end.c_str()).x, axis_y), end);
    ImGui::Dummy(ImVec2(label_w + axis.width, float(rows) * row_h + font * 1.3f));
}

// The block's whole life: the tensor pipe busy (multiplying), storing or idle, on one scale with
// the measured time per wave of blocks.
void DrawLife(const PipelineTimeline& tl, const PipelineInput& in, double measured_us) {
    const float font = ImGui::GetFontSize(), row_h = font * 1.2f, label_w = font * 5.5f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const Axis axis{0, std::max(tl.end_us, measured_us), origin.x + label_w,   // room for "508.76 µs" at the right
                    std::max(font * 8, ImGui::GetContentRegionAvail().x - label_w - font * 5.5f)};
    Caption(dl, ImVec2(origin.x, origin.y + font * 0.1f), tr("tiles.timeline_model"));
    dl->AddRectFilled(ImVec2(axis.x0, origin.y + 1), ImVec2(axis.x(tl.end_us), origin.y + row_h - 1), plot::WithAlpha(kMatrixFill, 0.9f));
    for (const PipelineSpan& s : tl.spans)
        if (s.lane >= in.stages) {
            const float y = origin.y + float(s.lane - in.stages) * row_h / float(in.groups);
            dl->AddRectFilled(ImVec2(axis.x(s.start_us), y + 2), ImVec2(std::max(axis.x(s.end_us), axis.x(s.start_us) + 1), y + row_h / float(in.groups) - 1),
                              SpanFill(s.kind));
        }
    Caption(dl, ImVec2(axis.x(tl.end_us) + 4, origin.y + font * 0.1f), Us(tl.end_us) + " µs");
    const float y = origin.y + row_h + 2;
    Caption(dl, ImVec2(origin.x, y + font * 0.1f), tr("tiles.timeline_measured"));
    if (measured_us > 0) {
        Rect(dl, ImVec2(axis.x0, y + 2), ImVec2(axis.x(measured_us), y + row_h - 1), plot::WithAlpha(plot::kHighlight, 0.7f), 0);
        Caption(dl, ImVec2(axis.x(measured_us) + 4, y + font * 0.1f), Us(measured_us) + " µs");
    } else {
        Caption(dl, ImVec2(axis.x0, y + font * 0.1f), tr("tiles.timeline_not_measured"));
    }
    ImGui::Dummy(ImVec2(label_w + axis.width, row_h * 2 + 4));
}

// The load rate per block the timeline uses: the learner's, else the fit to the measured time,
// else the DRAM's datasheet share. Says which in `source`.
double LoadRate(const AppState& state, const TileGeometry& t, const RunResult& r, std::string& source) {
    if (state.pipeline_rate_gbps > 0) {
        source = tr("tiles.timeline_rate_yours");
        return state.pipeline_rate_gbps;
    }
    const auto probe = run_pipeline(t, r, 1, state.pipeline_latency_us);   // the bytes, at 1 GB/s
    if (probe && probe->measured_block_us > 0) {
        // The fit simulates the block a dozen times: once per change of its inputs, not per frame.
        static PipelineInput fitted_for;
        static double fitted_measured = -1;
        static std::optional<double> fitted;
        if (!(fitted_for == probe->input) || fitted_measured != probe->measured_block_us) {
            fitted_for = probe->input;
            fitted_measured = probe->measured_block_us;
            fitted = fit_load_us(probe->input, probe->measured_block_us);
        }
        if (fitted && *fitted > 0) {
            source = tr("tiles.timeline_rate_fitted");
            return double(probe->stage_bytes) / (*fitted * 1e3);
        }
    }
    source = tr("tiles.timeline_rate_dram");
    return probe ? r.target.dram_gbps / double(std::max(1, probe->blocks_resident)) : 0;
}
}  // namespace

void DrawPipelineTimeline(AppState& state, const TileGeometry& t, const RunResult& r) {
    std::string source;
    const double rate = LoadRate(state, t, r, source);
    const auto run = run_pipeline(t, r, rate, state.pipeline_latency_us);
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("tiles.timeline").c_str());
    HelpMarker(tr("tiles.timeline_help").c_str());
    if (!run) {
        WrappedText(tr("tiles.timeline_none"));
        return;
    }
    const PipelineInput& in = run->input;
    static PipelineInput drawn_for;   // simulated once per change of its inputs, not per frame
    static PipelineTimeline tl;
    if (!(drawn_for == in) || tl.spans.empty()) {
        drawn_for = in;
        tl = simulate_pipeline(in);
    }
    const int resident = run->blocks_resident;
    WrappedText(trf("tiles.timeline_rates", Us(in.mma_us), format_bytes(double(run->stage_bytes)), Us(in.load_us),
                    fmt::format("{:.0f}", rate), fmt::format("{:.2f}", rate * resident / 1e3), resident, source));
    // The rate slider and its reset button together where they fit, then the latency slider.
    const float slider = ImGui::GetFontSize() * 12;
    const float reset_w = ButtonWidth(tr("tiles.timeline_rate_reset").c_str());
    ImGui::SetNextItemWidth(FieldWidth(slider, reset_w, ImGui::GetFontSize() * 6));
    float shown_rate = float(rate);
    if (ImGui::SliderFloat("##rate", &shown_rate, 5, 400, tr("tiles.timeline_rate_format").c_str(), ImGuiSliderFlags_Logarithmic))
        state.pipeline_rate_gbps = shown_rate;
    SameLineIfFits(reset_w);
    if (ImGui::Button(tr("tiles.timeline_rate_reset").c_str())) state.pipeline_rate_gbps = 0;
    SameLineIfFits(slider);
    ImGui::SetNextItemWidth(FieldWidth(slider));
    ImGui::SliderFloat("##latency", &state.pipeline_latency_us, 0, 5, tr("tiles.timeline_latency_format").c_str());

    const int64_t total = in.slices * in.tiles;
    const int64_t current = std::clamp<int64_t>(state.tile_k_step, 0, in.slices - 1);
    const int64_t first = std::max<int64_t>(0, current - 2), last = std::min(total - 1, first + 2 * in.stages + 5);
    DrawZoom(tl, in, first, last, current);
    DrawLife(tl, in, run->measured_block_us);
    const std::pair<ImU32, std::string> keys[] = {{kHaloFill, tr("tiles.ring_loading")}, {kSmemFill, tr("tiles.ring_loaded")},
                                                  {kOutputFill, tr("tiles.ring_multiplying")}, {kRegisterFill, tr("tiles.timeline_store")}};
    for (size_t i = 0; i < std::size(keys); ++i) {   // on one line while they fit
        if (i > 0) SameLineIfFits(ImGui::CalcTextSize(keys[i].second.c_str()).x + ImGui::GetFontSize() * 2);
        Swatch(keys[i].first, keys[i].second.c_str());
    }
    const double busy = double(total) * in.mma_us;
    WrappedText(trf("tiles.timeline_summary", in.tiles, total, Us(tl.end_us), Us(busy), Us(tl.consumer_wait_us),
                    Us(tl.producer_wait_us), fmt::format("{:.0f}", 100 * busy / std::max(1e-12, tl.end_us))));
    if (run->measured_block_us > 0)
        WrappedText(trf("tiles.timeline_measured_line", Us(run->measured_block_us),
                        fmt::format("{:.0f}", 100 * busy / run->measured_block_us)));
    if (rate * resident > r.target.dram_gbps && r.target.dram_gbps > 0)
        WrappedText(trf("tiles.timeline_l2", fmt::format("{:.2f}", rate * resident / 1e3),
                        fmt::format("{:.2f}", r.target.dram_gbps / 1e3)));
}

}  // namespace tilelab::gui::tiles
