// The Tiles panel's picture of a kernel whose blocks own whole rows of a stored N×N matrix
// (TileGeometry with a product_name and no streamed operand: lesson 14's softmax; stream_causal
// marks the causal mask). One head's
// product (S, read) beside the output (P, written), the chosen block's rows marked in both, the
// causal triangle where the mask is on, and one row of the block cut into its lanes' columns.
#include <algorithm>
#include <string>
#include "panels.h"
#include "plot.h"
#include "tilelab/i18n.h"
#include "tiles_draw.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui::tiles {
namespace {

const ImU32 kMaskedFill = IM_COL32(0, 0, 0, 130);   // keys past their row

// S and P side by side, `size` px a side each, the block's rows [r0, r1) marked. Each caption is
// broken into lines no wider than its matrix (large text, Chinese) and the rows make room for them.
void DrawRowMatrices(const TileGeometry& t, int64_t n, int64_t r0, int64_t r1, float size) {
    const float font = ImGui::GetFontSize(), gap = font * 1.5f, line = ImGui::GetTextLineHeight();
    const Advance advance = CurrentAdvance();
    const std::string dims = "  " + std::to_string(n) + "×" + std::to_string(n);
    std::string above[2], below[2];
    float top = line, bottom = line;   // the taller caption of the two, at least a line (ImGui measures broken text)
    for (int m = 0; m < 2; ++m) {
        above[m] = BreakLines((m == 0 ? t.product_name : t.output_name) + dims, size, advance);
        below[m] = BreakLines(tr(m == 0 ? "tiles.rows_read" : "tiles.rows_written"), size, advance);
        top = std::max(top, ImGui::CalcTextSize(above[m].c_str()).y);
        bottom = std::max(bottom, ImGui::CalcTextSize(below[m].c_str()).y);
    }
    top += font * 0.4f, bottom += font * 0.4f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(2 * size + gap, size + top + bottom));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float scale = size / float(n);
    for (int m = 0; m < 2; ++m) {
        const ImVec2 a(origin.x + float(m) * (size + gap), origin.y + top), b(a.x + size, a.y + size);
        Rect(dl, a, b, m == 0 ? kSmemFill : plot::WithAlpha(kOutputFill, 0.45f), kMatrixEdge);
        if (t.stream_causal) dl->AddTriangleFilled(a, ImVec2(b.x, a.y), b, kMaskedFill);
        const float y0 = a.y + float(r0) * scale, y1 = a.y + float(std::min(r1, n)) * scale;
        Rect(dl, ImVec2(a.x, y0), ImVec2(b.x, y1), m == 0 ? kTileFill : kOutputFill, plot::kHighlight, 2.0f);
        Caption(dl, ImVec2(a.x, origin.y), above[m]);
        Caption(dl, ImVec2(a.x, b.y + font * 0.2f), below[m]);
    }
}

// One row of n elements as 32 lanes share it: lane t takes columns t, t + 32, ...; the first
// `shown` columns drawn one cell each, lane 0's outlined.
void DrawRowLanes(int64_t n, float width) {
    const float font = ImGui::GetFontSize();
    const int64_t shown = std::min<int64_t>(n, 128);
    const float cell = width / float(shown), height = font * 1.6f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(width, height));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int64_t j = 0; j < shown; ++j) {
        const ImVec2 a(origin.x + float(j) * cell, origin.y), b(a.x + cell, a.y + height);
        const float shade = 0.25f + 0.75f * float(j % 32) / 31.0f;
        Rect(dl, a, b, plot::WithAlpha(kRegisterFill, shade), j % 32 == 0 ? plot::kHighlight : 0, 2.0f);
    }
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    WrappedText(trf("tiles.rows_lanes", shown, n));
    ImGui::PopTextWrapPos();
}

}  // namespace

void DrawRows(AppState& state, const TileGeometry& t, const RunResult& r) {
    const int64_t n = t.extent[0], rows = t.block_tile[1];
    const int64_t blocks = t.blocks(1);
    if (n <= 0 || rows <= 0 || blocks <= 0) return;
    WrappedText(trf("tiles.rows_block", rows, n, t.product_name, t.output_name, r.launch.threads_per_block(),
                    blocks, t.extent[2]));
    if (t.stream_causal) WrappedText(tr("tiles.rows_causal"));
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(tr("tiles.block").c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    state.tile_block_y = std::clamp(state.tile_block_y, 0, int(blocks - 1));
    ImGui::SliderInt("##rowblock", &state.tile_block_y, 0, int(blocks - 1), "%d");
    const int64_t r0 = int64_t(state.tile_block_y) * rows, r1 = std::min(n, r0 + rows);
    const std::string range = trf("tiles.rows_range", r0, r1 - 1);   // under the slider where it would run past the edge
    SameLineIfFits(ImGui::CalcTextSize(range.c_str()).x);
    ImGui::TextUnformatted(range.c_str());
    const float font = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float width = std::min(avail.x, font * 36);
    const float size = std::max(font * 6, std::min((width - font * 1.5f) / 2, avail.y - font * 9));
    DrawRowMatrices(t, n, r0, r1, size);
    DrawRowLanes(n, width);
    Swatch(kTileFill, trf("tiles.rows_swatch_read", t.product_name).c_str());
    Swatch(kOutputFill, trf("tiles.rows_swatch_written", t.output_name).c_str());
    if (t.stream_causal) Swatch(kMaskedFill, tr("tiles.stream_masked").c_str());
}

}  // namespace tilelab::gui::tiles
