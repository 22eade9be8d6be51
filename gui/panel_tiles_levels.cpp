// The Tiles panel's time–space picture of a stencil that fuses time steps (TileGeometry::
// time_steps > 0, lesson 20): one row per level, bottom to top, across the region's columns
// along x. Level 0 is the input the block loads; level l is evaluated on every column but right
// only l columns in from each edge (its outermost ring lacks neighbours); the top level's right
// columns are the tile the block writes. The rest is the recompute the saved DRAM trips cost.
// Below it, the same levels along z: the block walks its ZC planes and TSTEPS more on each side,
// level l running l planes behind the input, so one iteration is a diagonal across the levels:
// the one that writes the plane the panel's z slider shows.
#include <algorithm>
#include <functional>
#include <vector>
#include "plot.h"
#include "tiles_draw.h"
#include "tilelab/i18n.h"
#include "text_wrap.h"

namespace tilelab::gui::tiles {

namespace {
const ImU32 kInputFill = IM_COL32(86, 180, 233, 200);     // level 0: loaded
const ImU32 kWastedFill = IM_COL32(90, 94, 104, 200);     // evaluated, not right: thrown away
const ImU32 kWaveEdge = IM_COL32(255, 255, 255, 235);     // the cells of one iteration

// Which of the block's planes (relative to its first output plane) the z picture shows: all of
// them when they fit, else `width` consecutive ones around `centre`, with a gap column (-1 −
// count, never a plane) on each side where planes are left out.
std::vector<int64_t> ShownPlanes(int64_t first, int64_t count, int64_t width, int64_t centre) {
    std::vector<int64_t> shown;
    if (count <= width) {
        for (int64_t i = 0; i < count; ++i) shown.push_back(first + i);
        return shown;
    }
    const int64_t start = std::clamp(centre - width / 2, first, first + count - width);
    if (start > first) shown.push_back(-1 - count);
    for (int64_t z = start; z < start + width; ++z) shown.push_back(z);
    if (start + width < first + count) shown.push_back(-1 - count);
    return shown;
}

// A cell's colour in both pictures: the input at level 0; above it, wrong (thrown away), right and
// kept for the next level, or right at the top level (written).
ImU32 LevelFill(int level, int levels, bool right) {
    return level == 0 ? kInputFill : !right ? kWastedFill : level == levels ? kOutputFill : kRegisterFill;
}

// Both pictures' frame: a row of `columns` cells a level, level 0 at the bottom, each row labelled
// "level l", `width` wide in all, the space reserved below. cell(dl, level, column, a, b) draws
// the cell between corners a and b; `row_text_y` is where text centred in a row starts.
void DrawLevelRows(int levels, int64_t columns, float width,
                   const std::function<void(ImDrawList*, int, int64_t, ImVec2, ImVec2, float)>& cell) {
    const float font = ImGui::GetFontSize();
    const float label_w = font * 5.5f;
    const float cell_w = std::clamp((width - label_w) / float(columns), 3.0f, font * 1.2f);
    const float row_h = std::clamp(font * 12 / float(levels + 1), font * 0.6f, font * 1.4f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    for (int level = 0; level <= levels; ++level) {
        const float y0 = origin.y + row_h * float(levels - level), y1 = y0 + row_h - 2;
        const float row_text_y = y0 + (row_h - font) / 2;
        Caption(dl, ImVec2(origin.x, row_text_y), trf("tiles.level", level));
        for (int64_t c = 0; c < columns; ++c) {
            const float x0 = origin.x + label_w + cell_w * float(c);
            cell(dl, level, c, ImVec2(x0, y0), ImVec2(x0 + cell_w - 1, y1), row_text_y);
        }
    }
    ImGui::Dummy(ImVec2(label_w + cell_w * float(columns), row_h * float(levels + 1) + 2));
}
}  // namespace

void DrawTimeLevels(const TileGeometry& t, float width) {
    const int levels = t.time_steps;
    const int64_t columns = t.block_tile[0] + 2 * t.halo;   // the region, along x
    if (levels <= 0 || columns <= 0) return;
    DrawLevelRows(levels, columns, width, [&](ImDrawList* dl, int level, int64_t c, ImVec2 a, ImVec2 b, float) {
        const bool right = c >= level && c < columns - level;
        dl->AddRectFilled(a, b, LevelFill(level, levels, right));
    });
    Swatch(kInputFill, trf("tiles.levels_input", columns).c_str());
    Swatch(kRegisterFill, tr("tiles.levels_kept").c_str());
    Swatch(kOutputFill, trf("tiles.levels_output", t.block_tile[0]).c_str());
    Swatch(kWastedFill, tr("tiles.levels_wasted").c_str());
}

void DrawTimePipeline(const TileGeometry& t, float width, int64_t plane) {
    const int levels = t.time_steps;
    const int64_t own = t.block_tile[2];   // ZC: the planes the block writes
    if (levels <= 0 || own <= 0) return;
    const int64_t count = own + 2 * int64_t(levels);   // planes −T … ZC+T−1
    // The outlined iteration writes output plane `plane`: input plane plane + T has arrived.
    const int64_t wave = std::clamp<int64_t>(plane, 0, own - 1) + levels;
    const std::vector<int64_t> shown = ShownPlanes(-levels, count, 4 * int64_t(levels) + 8, wave - levels / 2);
    const int64_t gap = -1 - count;
    WrappedText(trf("tiles.pipeline", count, own, levels));
    DrawLevelRows(levels, int64_t(shown.size()), width, [&](ImDrawList* dl, int level, int64_t i, ImVec2 a, ImVec2 b, float text_y) {
        const int64_t z = shown[size_t(i)];
        if (z == gap) {
            if (level == 0) Caption(dl, ImVec2(a.x, text_y), "…");
            return;
        }
        // Level l computes planes [−(T−l), ZC+(T−l)); level 0 is the input loaded.
        const int64_t reach = levels - level;
        if (z < -reach || z >= own + reach) return;
        dl->AddRectFilled(a, b, LevelFill(level, levels, z >= 0 && z < own));
        if (z == wave - level) dl->AddRect(a, b, kWaveEdge, 0, 0, 2.0f);
    });
    Swatch(kInputFill, trf("tiles.pipeline_input", levels).c_str());
    Swatch(kOutputFill, trf("tiles.pipeline_output", levels, own).c_str());
    Swatch(kWastedFill, tr("tiles.pipeline_halo").c_str());
    Swatch(kWaveEdge, trf("tiles.pipeline_wave", wave - levels + 1).c_str());
}

}  // namespace tilelab::gui::tiles
