// [SECTION] Tiles panel, tensor cores: one mma.sync's fragments lane by lane. A (16×K), B (K×8)
// and C (16×8) as grids of cells, each labelled with the lane that holds it and coloured by the
// lane's group g (lane = 4g + t); pointing at a cell outlines every cell of that lane in all three,
// with its register in a tooltip. The layouts are the engine's (tilelab/mma_layout.h), drawn for the
// operands' element size; nothing here knows a kernel.
#include <algorithm>
#include <array>
#include <cfloat>
#include <string>
#include <vector>
#include "tilelab/i18n.h"
#include "tilelab/mma_layout.h"
#include "panels.h"
#include "plot.h"
#include "ui_common.h"

namespace tilelab::gui {

namespace {

// The lane groups g = 0..7: Okabe–Ito's colour-blind-safe colours, and a grey.
constexpr std::array<ImU32, 8> kGroupFill = {
    IM_COL32(230, 159, 0, 255),  IM_COL32(86, 180, 233, 255), IM_COL32(0, 158, 115, 255),
    IM_COL32(240, 228, 66, 255), IM_COL32(0, 114, 178, 255),  IM_COL32(213, 94, 0, 255),
    IM_COL32(204, 121, 167, 255), IM_COL32(170, 170, 170, 255)};
const ImU32 kCellText = IM_COL32(20, 20, 24, 255);

struct Grid {
    MmaOperand op;
    const char* name;   // "A", "B", "C"
    int rows, cols;
    ImVec2 at;          // top-left corner of the cells
};

char RegisterLetter(MmaOperand op) { return op == MmaOperand::A ? 'a' : op == MmaOperand::B ? 'b' : 'c'; }

// The cell of `grid` under the mouse, or false.
bool HoveredCell(const Grid& grid, float cell, int& row, int& col) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const float x = (m.x - grid.at.x) / cell, y = (m.y - grid.at.y) / cell;
    if (x < 0 || y < 0 || x >= float(grid.cols) || y >= float(grid.rows)) return false;
    row = int(y);
    col = int(x);
    return true;
}

void DrawGrid(ImDrawList* dl, const Grid& grid, int element_bytes, float cell, int highlighted_lane, bool labels) {
    const float font = ImGui::GetFontSize();
    dl->AddText(ImVec2(grid.at.x, grid.at.y - font * 1.25f), plot::kTextColor,
                (std::string(grid.name) + "  " + std::to_string(grid.rows) + "×" + std::to_string(grid.cols)).c_str());
    for (int r = 0; r < grid.rows; ++r)
        for (int c = 0; c < grid.cols; ++c) {
            const MmaLaneElement e = mma_lane_of(grid.op, element_bytes, r, c);
            const ImVec2 a(grid.at.x + float(c) * cell, grid.at.y + float(r) * cell);
            const ImVec2 b(a.x + cell - 1, a.y + cell - 1);
            const bool lit = highlighted_lane < 0 || e.lane == highlighted_lane;
            dl->AddRectFilled(a, b, plot::WithAlpha(kGroupFill[size_t(e.lane / 4)], lit ? 1.0f : 0.25f));
            if (e.lane == highlighted_lane) dl->AddRect(a, b, plot::kHighlight, 0, 0, 2.0f);
            if (!labels) continue;
            const std::string text = std::to_string(e.lane);
            const float px = std::min(cell * 0.62f, font * 0.8f);
            const ImVec2 size = ImGui::GetFont()->CalcTextSizeA(px, FLT_MAX, 0.0f, text.c_str());
            dl->AddText(ImGui::GetFont(), px, ImVec2(a.x + (cell - size.x) * 0.5f, a.y + (cell - size.y) * 0.5f), kCellText,
                        text.c_str());
        }
}

std::string CellTip(const Grid& grid, int element_bytes, int row, int col) {
    const MmaLaneElement e = mma_lane_of(grid.op, element_bytes, row, col);
    std::string reg = std::string(1, RegisterLetter(grid.op)) + std::to_string(e.reg);
    const std::string half = mma_per_register(grid.op, element_bytes) > 1
                                 ? trf("tiles.lanes_half", tr(e.half == 0 ? "tiles.lanes_low" : "tiles.lanes_high"))
                                 : std::string();
    return trf("tiles.lanes_tip", grid.name, row, col, e.lane, e.lane / 4, e.lane % 4, reg, half);
}

}  // namespace

void DrawFragmentLanes(int element_bytes, int64_t wgmma_n) {
    const int k = mma_cols(MmaOperand::A, element_bytes);   // the instruction's depth
    if (wgmma_n > 0) {   // wgmma: A and B stay in shared memory; a warp's accumulators only
        TextWithHelp(trf("tiles.lanes_title_wgmma", wgmma_n), trf("tiles.lanes_help_wgmma", wgmma_n, wgmma_n / 2).c_str());
    } else {
        const std::string shape = "m16n8k" + std::to_string(k) + (element_bytes == 4 ? ", TF32" : ", BF16/FP16");
        TextWithHelp(trf("tiles.lanes_title", shape),
                     trf("tiles.lanes_help", "16×" + std::to_string(k), mma_per_register(MmaOperand::A, element_bytes)).c_str());
    }

    const float font = ImGui::GetFontSize();
    const float width = std::max(font * 16, ImGui::GetContentRegionAvail().x * 0.96f);
    // As the product reads: A left of C, B above it; a gap for the captions.
    const float cell = std::min(font * 1.8f, width / float(k + 8 + 2));
    const float gap = std::max(cell * 2, font * 1.5f);
    const bool labels = cell >= font * 0.85f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float top = origin.y + font * 1.4f, left = origin.x;
    const float c_x = left + cell * float(k) + cell * 2, c_y = top + cell * float(k) + gap;
    std::vector<Grid> grids = {Grid{MmaOperand::C, "C", 16, 8, wgmma_n > 0 ? ImVec2(left, top) : ImVec2(c_x, c_y)}};
    if (wgmma_n == 0) {
        grids.push_back(Grid{MmaOperand::A, "A", 16, k, ImVec2(left, c_y)});
        grids.push_back(Grid{MmaOperand::B, "B", k, 8, ImVec2(c_x, top)});
    }
    ImGui::InvisibleButton("##mma_lanes", ImVec2(width, grids[0].at.y - origin.y + cell * 16 + font * 0.5f));
    int lane = -1, row = 0, col = 0;
    const Grid* hovered = nullptr;
    if (ImGui::IsItemHovered())
        for (const Grid& g : grids)
            if (HoveredCell(g, cell, row, col)) {
                hovered = &g;
                lane = mma_lane_of(g.op, element_bytes, row, col).lane;
            }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (const Grid& g : grids) DrawGrid(dl, g, element_bytes, cell, lane, labels);
    if (hovered) WrappedTooltip(CellTip(*hovered, element_bytes, row, col).c_str());
}

}  // namespace tilelab::gui
