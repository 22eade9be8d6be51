// The Tiles panel's picture of a ring of shared-memory stages (TileGeometry::ring_stages > 0,
// lesson 22): at the k-step the panel's slider shows, which stage each role is on. Slice j lives
// in stage j mod S on lap j / S. The consumers multiply slice n; they have just handed slice
// n − 1's stage back (after wgmma.wait_group 1), so the producer is refilling it with slice
// n + S − 1, and the stages between hold slices n + 1 … n + S − 2, loaded and waiting. Each box
// shows its stage's slice, lap and role, with the A and B parts of the stage to scale; below, the
// parity each side waits on.
#include <algorithm>
#include <string>
#include <vector>
#include "plot.h"
#include "tiles_draw.h"
#include "tilelab/format.h"
#include "tilelab/i18n.h"
#include "tilelab/precision.h"
#include "tilelab/util.h"
#include "text_wrap.h"

namespace tilelab::gui::tiles {

namespace {
enum class StageRole { Multiplying, Loaded, Loading };

ImU32 RoleFill(StageRole role) {
    return role == StageRole::Multiplying ? kOutputFill : role == StageRole::Loaded ? kSmemFill : kHaloFill;
}
const char* RoleKey(StageRole role) {
    return role == StageRole::Multiplying ? "tiles.ring_multiplying" : role == StageRole::Loaded ? "tiles.ring_loaded" : "tiles.ring_loading";
}
// Slice j of a tile of `slices`: its k-step, else the next tile's (a block walking tiles), else none.
std::string SliceLabel(int64_t j, int64_t slices, bool next_tile) {
    return j < slices ? trf("tiles.ring_kstep", j + 1) : next_tile ? trf("tiles.ring_next_tile", j - slices + 1) : tr("tiles.ring_no_next_tile");
}
}  // namespace

void DrawStageRing(const AppState& state, const TileGeometry& t, const RunResult& r) {
    const int stages = t.ring_stages;
    const int64_t slices = t.k_steps();
    if (stages <= 0 || slices <= 0) return;
    const int64_t n = std::clamp<int64_t>(state.tile_k_step, 0, slices - 1);   // the slice being multiplied
    const int64_t bm = t.block_tile[1], bn = t.block_tile[0], bk = t.k_step;
    const int64_t stage_bytes = int64_t(element_bytes(r.precision.input)) * bk * (bm + bn);
    // More blocks than the launch has: each walks on to another tile after this one.
    const bool next_tile = int64_t(r.launch.blocks()) < t.blocks(0) * t.blocks(1);
    WrappedText(trf("tiles.ring", n + 1, slices, stages, format_bytes(stage_bytes), bm, bk, bn));

    const float font = ImGui::GetFontSize(), gap = font * 0.5f, line = font * 1.05f;
    const auto slice_of = [&](int s) { return n + ((s - n) % stages + stages) % stages; };   // stage s holds n … n+S−1
    const auto role_of = [&](int s) {
        const int64_t j = slice_of(s);
        return j == n ? StageRole::Multiplying : j == n + stages - 1 ? StageRole::Loading : StageRole::Loaded;
    };
    // The boxes side by side, or in rows where a box would cut a word of its text in two ("wgmm|a" at
    // presenter text): each as wide as its widest label line and its role's widest word.
    const Advance advance = CurrentAdvance();
    float widest = 0;
    for (int s = 0; s < stages; ++s)
        for (const std::string& label : {trf("tiles.ring_stage", s), SliceLabel(slice_of(s), slices, next_tile),
                                         trf("tiles.ring_lap", slice_of(s) / stages)})
            widest = std::max(widest, ImGui::CalcTextSize(label.c_str()).x);
    for (StageRole role : {StageRole::Multiplying, StageRole::Loaded, StageRole::Loading})
        widest = std::max(widest, WidestUnbreakable(tr(RoleKey(role)), advance));
    const auto box_width = [&](int per_row) {
        return std::min((ImGui::GetContentRegionAvail().x - gap * float(per_row - 1)) / float(per_row), font * 10);
    };
    int per_row = stages;
    while (per_row > 1 && box_width(per_row) - font * 0.6f < widest) per_row = (per_row + 1) / 2;
    const int rows = (stages + per_row - 1) / per_row;
    const float box_w = box_width(per_row);
    // What a stage is doing, on as many lines as the box's width needs.
    std::vector<std::vector<std::string>> role_lines(static_cast<size_t>(stages));
    size_t most_lines = 1;
    for (int s = 0; s < stages; ++s) {
        const std::string broken = BreakLines(tr(RoleKey(role_of(s))), box_w - font * 0.6f, advance);
        role_lines[size_t(s)] = split(broken, '\n');
        most_lines = std::max(most_lines, role_lines[size_t(s)].size());
    }
    const float box_h = font * 5.6f + line * float(most_lines - 1);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    for (int s = 0; s < stages; ++s) {
        const int64_t j = slice_of(s);
        const StageRole role = role_of(s);
        const ImVec2 a(origin.x + float(s % per_row) * (box_w + gap), origin.y + float(s / per_row) * (box_h + gap));
        const ImVec2 b(a.x + box_w, a.y + box_h);
        Rect(dl, a, b, plot::WithAlpha(RoleFill(role), 0.45f), role == StageRole::Multiplying ? plot::kHighlight : kMatrixEdge,
             role == StageRole::Multiplying ? 2.5f : 1.0f);
        const float x = a.x + font * 0.3f;
        dl->PushClipRect(a, b, true);   // a box narrower than a label (a window narrower still) cuts it, not the next box
        Caption(dl, ImVec2(x, a.y + font * 0.15f), trf("tiles.ring_stage", s));
        Caption(dl, ImVec2(x, a.y + font * 1.2f), SliceLabel(j, slices, next_tile));
        Caption(dl, ImVec2(x, a.y + font * 2.25f), trf("tiles.ring_lap", j / stages));
        for (size_t i = 0; i < role_lines[size_t(s)].size(); ++i)
            Caption(dl, ImVec2(x, a.y + font * 3.3f + line * float(i)), role_lines[size_t(s)][i]);
        // The stage's A and B parts to scale (BM and BN rows of BK elements).
        const float bar_y = b.y - font * 0.9f, split = a.x + 2 + (box_w - 4) * float(bm) / float(bm + bn);
        Rect(dl, ImVec2(a.x + 2, bar_y), ImVec2(split, b.y - 2), kTileFill, kMatrixEdge);
        Rect(dl, ImVec2(split, bar_y), ImVec2(b.x - 2, b.y - 2), kSmemFill, kMatrixEdge);
        if (split - a.x > font) Caption(dl, ImVec2(a.x + 4, bar_y), "A", IM_COL32(20, 20, 20, 255));
        if (b.x - split > font) Caption(dl, ImVec2(split + 2, bar_y), "B", IM_COL32(20, 20, 20, 255));
        dl->PopClipRect();
    }
    ImGui::Dummy(ImVec2(float(per_row) * box_w + float(per_row - 1) * gap, float(rows) * (box_h + gap)));

    const int s_now = int(n % stages);
    if (n == 0)
        WrappedText(trf("tiles.ring_consumers_first", s_now));
    else
        WrappedText(trf("tiles.ring_consumers", s_now, (n / stages) & 1, n / stages, int((n - 1) % stages)));
    const int64_t j = n + stages - 1;   // the slice the producer is loading
    if (stages > 1 && (j < slices || next_tile))
        WrappedText(trf("tiles.ring_producer", int(j % stages), ((j / stages) & 1) ^ 1, j / stages,
                        SliceLabel(j, slices, next_tile)));
}

}  // namespace tilelab::gui::tiles
