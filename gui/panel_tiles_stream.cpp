// [SECTION] Tiles panel, a streamed operand (attention): the matrix that never exists. A block owns
// a strip of rows (BR rows of Q) and walks the rows of a second operand (K and V) a tile at a time;
// the picture is the product of the two (the N×N scores) with the block's strip across it, the
// tiles already folded into its running state, the tile it holds now, and with the causal mask
// the triangle no row sees and the tiles the block skips whole. Left of it the block's rows, above
// it the streamed tile in shared memory, right of it the output written once. Everything comes
// from the variant's TileGeometry (stream_*), so any kernel that declares a stream is drawn; below
// it, where the variant gives a trace, one row's running maximum and sum tile by tile.
#include <algorithm>
#include <string>
#include <vector>
#include "panels.h"
#include "plot.h"
#include "tilelab/i18n.h"
#include "tiles_draw.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui::tiles {

namespace {

const ImU32 kMaskedFill = IM_COL32(0, 0, 0, 130);        // keys past their row
const ImU32 kSkippedFill = IM_COL32(190, 70, 70, 110);   // tiles the mask skips whole

struct Stream {
    int64_t rows = 1, keys = 1, width = 1;   // N query rows, N keys, d
    int64_t br = 1, bc = 1, blocks = 1, tiles = 1;
    int64_t block = 0, steps = 1, step = 0;  // the block shown, its tiles, the tile it holds now
    bool causal = false;
};

void DrawStreamOverview(AppState& state, const TileGeometry& t, const Stream& s, float width, float height) {
    const float font = ImGui::GetFontSize();
    const float label = font * 1.4f, gap = font * 0.5f, strip = font * 2.0f;
    const float scale = std::min((width - 2 * strip - 2 * gap) / float(s.keys), (height - strip - gap - 2 * label) / float(s.rows));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 q0(origin.x, origin.y + label + strip + gap), q1(q0.x + strip, q0.y + float(s.rows) * scale);
    const ImVec2 s0(q1.x + gap, q0.y), s1(s0.x + float(s.keys) * scale, q1.y);
    const ImVec2 o0(s1.x + gap, q0.y), o1(o0.x + strip, q1.y);
    const ImVec2 k0(s0.x, origin.y + label), k1(s1.x, k0.y + strip);
    ImGui::InvisibleButton("##stream", ImVec2(width, s1.y - origin.y + label));
    if (ImGui::IsItemClicked()) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        if (m.x >= s0.x && m.x < s1.x && m.y >= s0.y && m.y < s1.y)
            state.tile_block_y = std::clamp(int((m.y - s0.y) / (float(s.br) * scale)), 0, int(s.blocks - 1));
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    auto x_at = [&](int64_t key) { return s0.x + float(std::min(key, s.keys)) * scale; };
    auto y_at = [&](int64_t row) { return s0.y + float(std::min(row, s.rows)) * scale; };
    for (auto [a, b] : {std::pair{q0, q1}, {s0, s1}, {o0, o1}, {k0, k1}}) Rect(dl, a, b, kMatrixFill, kMatrixEdge);
    GridLines(dl, s0, s1, s.tiles, s.blocks, plot::kGridColor);
    if (s.causal) {   // keys past their row: the triangle above the diagonal
        dl->AddTriangleFilled(s0, ImVec2(s1.x, s0.y), ImVec2(x_at(s.rows), y_at(s.rows)), kMaskedFill);
        dl->AddLine(s0, ImVec2(x_at(s.rows), y_at(s.rows)), plot::WithAlpha(plot::kTextColor, 0.5f), 1.5f);
    }
    const int64_t r0 = s.block * s.br, r1 = std::min(s.rows, r0 + s.br);
    const int64_t n0 = s.step * s.bc, n1 = std::min(s.keys, n0 + s.bc);
    for (int64_t j = 0; j < s.tiles; ++j) {
        const ImVec2 a(x_at(j * s.bc), y_at(r0)), b(x_at((j + 1) * s.bc), y_at(r1));
        if (j >= s.steps) Rect(dl, a, b, kSkippedFill, 0);
        else if (j < s.step) Rect(dl, a, b, plot::WithAlpha(kOutputFill, 0.45f), 0);
        else if (j > s.step) Rect(dl, a, b, kStripFill, 0);
    }
    Rect(dl, ImVec2(x_at(n0), y_at(r0)), ImVec2(x_at(n1), y_at(r1)), kRegisterFill, plot::kHighlight, 2.5f);
    Rect(dl, ImVec2(s0.x, y_at(r0)), ImVec2(s1.x, y_at(r1)), 0, plot::WithAlpha(plot::kHighlight, 0.7f), 1.5f);
    // The block's rows (left), the streamed tile (above), the output written once (right).
    Rect(dl, ImVec2(q0.x, y_at(r0)), ImVec2(q1.x, y_at(r1)), kTileFill, plot::kTextColor, 2.0f);
    if (s.causal && s.steps < s.tiles) Rect(dl, ImVec2(x_at(s.steps * s.bc), k0.y), k1, kSkippedFill, 0);
    Rect(dl, ImVec2(x_at(n0), k0.y), ImVec2(x_at(n1), k1.y), kSmemFill, plot::kTextColor, 2.0f);
    const bool last = s.step + 1 >= s.steps;
    Rect(dl, ImVec2(o0.x, y_at(r0)), ImVec2(o1.x, y_at(r1)), last ? kOutputFill : 0, plot::kHighlight, 2.0f);
    Caption(dl, ImVec2(q0.x, k0.y), t.rows_name);
    Caption(dl, ImVec2(k0.x, origin.y), t.stream_name + "  " + std::to_string(s.keys) + "×" + std::to_string(s.width));
    Caption(dl, ImVec2(o0.x, k0.y), t.output_name);
    Caption(dl, ImVec2(s0.x, s1.y + font * 0.2f),
            t.product_name + "  " + std::to_string(s.rows) + "×" + std::to_string(s.keys) + ": " + tr("tiles.never_stored"));
}

// One row's running maximum m and sum l through its block's tiles (TileGeometry::stream_trace), as
// two lines scaled to their own ranges, the current tile marked, and its numbers in a sentence.
// The trace is computed once per row, size and seed (N·d multiply-adds on the host).
void DrawStreamTrace(AppState& state, const TileGeometry& t, const RunResult& r, const Stream& s, float width) {
    if (!t.stream_trace) return;
    static RunRequest traced;   // what `trace` was computed for: the request, the row, the seed
    static int64_t traced_row = -1;
    static uint64_t traced_seed = 0;
    static std::vector<StreamStep> trace;
    const int64_t row = std::min(s.rows - 1, s.block * s.br + state.tile_stream_row);
    const uint64_t seed = state.run_options.seed;
    if (!(r.request == traced) || row != traced_row || seed != traced_seed) {
        trace = t.stream_trace(row, seed);
        traced = r.request, traced_row = row, traced_seed = seed;
    }
    if (trace.empty()) return;
    const size_t at = std::min(trace.size() - 1, size_t(s.step));
    const StreamStep& now = trace[at];
    WrappedText(trf("tiles.stream_trace", row, at + 1, now.tile_max, now.m, now.alpha, now.l));
    const float font = ImGui::GetFontSize(), h = font * 4;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(width, h));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    Rect(dl, o, ImVec2(o.x + width, o.y + h), kMatrixFill, kMatrixEdge);
    auto line = [&](auto get, ImU32 color) {
        double lo = get(trace[0]), hi = lo;
        for (const StreamStep& x : trace) lo = std::min(lo, get(x)), hi = std::max(hi, get(x));
        const double span = hi > lo ? hi - lo : 1.0;
        const float dx = trace.size() > 1 ? width / float(trace.size() - 1) : 0.f;
        for (size_t i = 0; i + 1 < trace.size(); ++i)
            dl->AddLine(ImVec2(o.x + dx * float(i), o.y + h - float((get(trace[i]) - lo) / span) * (h - 4) - 2),
                        ImVec2(o.x + dx * float(i + 1), o.y + h - float((get(trace[i + 1]) - lo) / span) * (h - 4) - 2), color, 2.f);
    };
    line([](const StreamStep& x) { return x.m; }, plot::kHighlight);
    line([](const StreamStep& x) { return x.l; }, kOutputFill);
    const float x_now = trace.size() > 1 ? o.x + width * float(at) / float(trace.size() - 1) : o.x;
    dl->AddLine(ImVec2(x_now, o.y), ImVec2(x_now, o.y + h), plot::kTextColor, 1.f);
    Swatch(plot::kHighlight, tr("tiles.stream_trace_m").c_str());
    Swatch(kOutputFill, tr("tiles.stream_trace_l").c_str());
}

}  // namespace

void DrawStream(AppState& state, const TileGeometry& t, const RunResult& r) {
    Stream s;
    s.rows = t.extent[1], s.width = t.extent[0], s.keys = t.stream_extent;
    s.br = t.block_tile[1], s.bc = t.stream_tile, s.causal = t.stream_causal;
    if (s.rows <= 0 || s.keys <= 0 || s.br <= 0 || s.bc <= 0) return;
    s.blocks = t.blocks(1), s.tiles = ceil_div(s.keys, s.bc);
    state.tile_block_y = std::clamp(state.tile_block_y, 0, int(s.blocks - 1));
    s.block = state.tile_block_y;
    s.steps = std::max<int64_t>(1, t.stream_steps(s.block));

    WrappedText(trf("tiles.stream_block", s.br, t.rows_name, r.launch.threads_per_block(), s.keys, t.stream_name,
                    s.bc, s.tiles, t.product_name, s.br, s.bc));
    if (s.causal) WrappedText(trf("tiles.stream_causal", s.block, s.steps, s.tiles));
    // "block [slider]" and "row [slider]", each pair together, side by side where they fit.
    const float slider = ImGui::GetFontSize() * 8;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(tr("tiles.block").c_str());
    SameLineIfFits(slider);
    ImGui::SetNextItemWidth(FieldWidth(slider));
    ImGui::SliderInt("##srow", &state.tile_block_y, 0, int(s.blocks - 1), "%d");
    if (t.stream_trace) {
        SameLineIfFits(ImGui::CalcTextSize(tr("tiles.stream_row").c_str()).x + ImGui::GetStyle().ItemSpacing.x + slider);
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(tr("tiles.stream_row").c_str());
        SameLineIfFits(slider);
        ImGui::SetNextItemWidth(FieldWidth(slider));
        state.tile_stream_row = std::clamp(state.tile_stream_row, 0, int(s.br - 1));
        ImGui::SliderInt("##strow", &state.tile_stream_row, 0, int(s.br - 1), "%d");
    }
    HelpMarker(tr("tiles.stream_help").c_str());
    StepControls(state, tr("tiles.stream_step").c_str(), s.steps);
    s.step = state.tile_k_step;
    const int64_t n0 = s.step * s.bc, n1 = std::min(s.keys, n0 + s.bc);
    WrappedText(trf("tiles.stream_now", s.step + 1, s.steps, n0, n1 - 1, t.output_name));

    // The picture fits what is left of the panel above its legend (five lines) and the row's trace
    // (seven more), at least 10 lines high.
    const float font = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float width = std::min(avail.x, font * 34), below = font * (t.stream_trace ? 14.5f : 7.5f);
    DrawStreamOverview(state, t, s, width, std::max(font * 10, std::min(width, avail.y - below)));
    Swatch(kRegisterFill, trf("tiles.stream_current", s.br, s.bc).c_str());
    Swatch(kSmemFill, tr("tiles.stream_smem").c_str());
    Swatch(plot::WithAlpha(kOutputFill, 0.45f), tr("tiles.stream_done").c_str());
    if (s.causal) {
        Swatch(kMaskedFill, tr("tiles.stream_masked").c_str());
        Swatch(kSkippedFill, tr("tiles.stream_skipped").c_str());
    }
    DrawStreamTrace(state, t, r, s, width);
}

}  // namespace tilelab::gui::tiles
