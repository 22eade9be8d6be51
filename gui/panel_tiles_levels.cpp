// The Tiles panel's time–space picture of a stencil that fuses time steps (TileGeometry::
// time_steps > 0, lesson 20): one row per level, bottom to top, across the region's columns
// along x. Level 0 is the input the block loads; level l is evaluated on every column but right
// only l columns in from each edge (its outermost ring lacks neighbours); the top level's right
// columns are the tile the block writes. The rest is the recompute the saved DRAM trips cost.
#include <algorithm>
#include "plot.h"
#include "tiles_draw.h"
#include "tilelab/i18n.h"

namespace tilelab::gui::tiles {

namespace {
const ImU32 kInputFill = IM_COL32(86, 180, 233, 200);     // level 0: loaded
const ImU32 kWastedFill = IM_COL32(90, 94, 104, 200);     // evaluated, not right: thrown away
}  // namespace

void DrawTimeLevels(const TileGeometry& t, float width) {
    const int levels = t.time_steps;
    const int64_t columns = t.block_tile[0] + 2 * t.halo;   // the region, along x
    if (levels <= 0 || columns <= 0) return;
    const float font = ImGui::GetFontSize();
    const float label_w = font * 5.5f;
    const float cell = std::clamp((width - label_w) / float(columns), 3.0f, font * 1.2f);
    const float row_h = std::clamp(font * 12 / float(levels + 1), font * 0.6f, font * 1.4f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    for (int level = 0; level <= levels; ++level) {
        const float y0 = origin.y + row_h * float(levels - level), y1 = y0 + row_h - 2;
        Caption(dl, ImVec2(origin.x, y0 + (row_h - font) / 2), trf("tiles.level", level));
        for (int64_t c = 0; c < columns; ++c) {
            const bool right = c >= level && c < columns - level;
            const ImU32 fill = level == 0 ? kInputFill : !right ? kWastedFill : level == levels ? kOutputFill : kRegisterFill;
            const float x0 = origin.x + label_w + cell * float(c);
            dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x0 + cell - 1, y1), fill);
        }
    }
    ImGui::Dummy(ImVec2(label_w + cell * float(columns), row_h * float(levels + 1) + 2));
    Swatch(kInputFill, trf("tiles.levels_input", columns).c_str());
    Swatch(kRegisterFill, tr("tiles.levels_kept").c_str());
    Swatch(kOutputFill, trf("tiles.levels_output", t.block_tile[0]).c_str());
    Swatch(kWastedFill, tr("tiles.levels_wasted").c_str());
}

}  // namespace tilelab::gui::tiles
