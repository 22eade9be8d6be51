// [SECTION] Tiles panel: a picture of how the launch cuts the problem into tiles.
// A reduction (matmul): the C grid with the selected block's tile, the A and B tiles it loads at
// each k-step (a step slider and a play button), and one thread's outputs. A neighbourhood
// (stencil): a block's input tile with its halo against the output tile, and along z the planes
// a coarsened block streams through, with what sits in shared memory and what in registers.
//
// Nothing here knows a kernel or a family: each variant declares its geometry (Variant::tiles,
// tilelab/tiles.h) and this file draws what is declared — a reduction walked in k-steps, a
// neighbourhood with its halo, a walk along z, a streamed operand (panel_tiles_stream.cpp) — so
// a new variant is drawn without touching it.
#include <algorithm>
#include <string>
#include "analysis_common.h"
#include "tilelab/i18n.h"
#include "panels.h"
#include "plot.h"
#include "tiles_draw.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

using namespace tiles;

// ---- geometry, from the variant's declaration --------------------------------------------------

// A reduction (C = A·B): the C grid of blocks, one block's tile and the k-steps along K.
struct MatmulGeometry {
    int64_t M = 0, N = 0, K = 0;
    int64_t grid_x = 1, grid_y = 1;   // x over the columns of C (N), y over its rows (M)
    int64_t BM = 1, BN = 1, BK = 1;   // C tile rows × columns; the k-step depth
    int64_t threads = 1, bx = 1, by = 1;
    int64_t TM = 1, TN = 1;           // one thread's outputs (rows × columns)
    int64_t WM = 0, WN = 0;           // one warp's outputs (0: no warp tiles)
    int64_t steps_m = 1, steps_n = 1; // the warp's steps over them; a thread's outputs split alike
    int64_t FM = 0, FN = 0, FK = 0;   // a tensor-core fragment of C (rows × columns) and its depth; 0: none
    bool lanes_known = false;         // the fragments' lanes are stated (mma.sync), not opaque (WMMA)
    bool operands_in_shared = false;  // wgmma: A and B read from shared memory by descriptor
    double outputs_per_thread = 1;
    int smem_bytes = 0;
    bool a_shared = false, b_shared = false;   // where a k-step's tiles of A and B are staged
    int64_t k_steps = 1;
    int64_t cluster = 1;              // blocks a cluster, taking tiles one above the other (lesson 22)
};

MatmulGeometry DeriveMatmul(const TileGeometry& t, const RunResult& r) {
    MatmulGeometry g;
    g.N = t.extent[0];
    g.M = t.extent[1];
    g.K = t.reduction;
    g.grid_x = t.blocks(0);
    g.grid_y = t.blocks(1);
    g.BN = t.block_tile[0];
    g.BM = t.block_tile[1];
    g.BK = std::max<int64_t>(1, t.k_step);
    g.TN = t.thread_tile[0];
    g.TM = t.thread_tile[1];
    g.WN = t.warp_tile[0];
    g.WM = t.warp_tile[1];
    g.steps_n = std::max<int64_t>(1, t.warp_steps[0]);
    g.steps_m = std::max<int64_t>(1, t.warp_steps[1]);
    g.FN = t.mma[0];
    g.FM = t.mma[1];
    g.FK = t.mma[2];
    g.lanes_known = t.mma_lanes_known;
    g.operands_in_shared = t.mma_operands_in_shared;
    g.bx = r.launch.block[0];
    g.by = int64_t(r.launch.block[1]) * r.launch.block[2];
    g.threads = std::max<int64_t>(1, r.launch.threads_per_block());
    g.outputs_per_thread = double(g.BM * g.BN * t.tiles_in_turns) / double(std::max<int64_t>(1, g.threads - t.loading_threads));
    g.smem_bytes = r.smem_bytes();
    g.a_shared = t.a_in_shared;
    g.b_shared = t.b_in_shared;
    g.k_steps = std::max<int64_t>(1, t.k_steps());
    g.cluster = std::max<int64_t>(1, r.launch.cluster);
    return g;
}

// A neighbourhood (a stencil): a block's output tile inside its input tile, and the planes
// along z that a block walking z streams through.
struct StencilGeometry {
    int64_t out[3] = {1, 1, 1};       // output tile of one block, per axis
    int64_t block[3] = {1, 1, 1};     // threads per axis
    int64_t halo = 1;                 // how far the stencil reaches
    int64_t in_x = 1, in_y = 1;       // input tile in x and y (output + halo on both sides)
    int64_t threads = 1;
    double outputs_per_thread = 1;
    int smem_bytes = 0;
    int planes_in_smem = 0;           // x–y planes of the input tile shared memory holds
    int64_t plane_x = 1, plane_y = 1; // what one of those planes holds
    bool streams_z = false;           // a block walks along z (thread coarsening)
    HaloLoad halo_load = HaloLoad::Global;
};

StencilGeometry DeriveStencil(const TileGeometry& t, const RunResult& r) {
    StencilGeometry g;
    for (size_t a = 0; a < 3; ++a) {
        g.out[a] = t.block_tile[a];
        g.block[a] = r.launch.block[a];
    }
    g.halo = t.halo;
    g.in_x = g.out[0] + 2 * g.halo;
    g.in_y = g.out[1] + 2 * g.halo;
    g.threads = std::max<int64_t>(1, r.launch.threads_per_block());
    g.outputs_per_thread = double(t.block_outputs()) / double(g.threads);
    g.smem_bytes = r.smem_bytes();
    g.planes_in_smem = t.shared_planes;
    g.plane_x = t.shared_plane[0];
    g.plane_y = t.shared_plane[1];
    g.streams_z = t.walks_z && g.out[2] > 1;
    g.halo_load = t.halo_load;
    return g;
}

// ---- matmul ----------------------------------------------------------------------------------

// The whole problem to scale: A left of C, B above it; the block's strips of A and B, the tiles
// of this k-step, and the block's C tile filling up as the k-steps go by. Click C to pick a block.
void DrawMatmulOverview(AppState& state, const MatmulGeometry& g, float width, float max_height) {
    const float font = ImGui::GetFontSize();
    const float gap = font * 0.6f;
    const double total_w = double(g.K + g.N), total_h = double(g.K + g.M);
    const std::string a_caption = "A  " + std::to_string(g.M) + "×" + std::to_string(g.K);
    const std::string b_caption = "B  " + std::to_string(g.K) + "×" + std::to_string(g.N);
    const float a_wide = ImGui::CalcTextSize(a_caption.c_str()).x + gap, b_wide = ImGui::CalcTextSize(b_caption.c_str()).x;
    // A's caption sits over A, left of B's; where K is thin beside M and N, A's column is narrower
    // than its caption, which then runs into B's: B's moves right of it, or, where the panel has no
    // room for that, one line up (with a line more room above the picture).
    auto scale_for = [&](float label_room) {
        return float(std::min((width - label_room - gap) / total_w, (max_height - label_room * 2 - gap) / total_h));
    };
    // At this scale A's caption (over A, left of C) reaches B's (over B, a line higher by K's
    // height on screen plus a tenth of a font) on both axes.
    auto captions_meet = [&](float scale) { return float(g.K) * scale + gap < a_wide && float(g.K) * scale < font * 1.1f; };
    const bool b_fits_beside = a_wide + b_wide <= width;
    const bool b_above = !b_fits_beside && captions_meet(scale_for(font * 1.5f));
    const float label_room = font * (b_above ? 2.75f : 1.5f);
    const float scale = scale_for(label_room);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 c0(origin.x + float(g.K) * scale + gap, origin.y + label_room + float(g.K) * scale + gap);
    const ImVec2 c1(c0.x + float(g.N) * scale, c0.y + float(g.M) * scale);
    const ImVec2 a0(c0.x - gap - float(g.K) * scale, c0.y), a1(c0.x - gap, c1.y);
    const ImVec2 b0(c0.x, c0.y - gap - float(g.K) * scale), b1(c1.x, c0.y - gap);
    ImGui::InvisibleButton("##overview", ImVec2(width, c1.y - origin.y + label_room));
    if (ImGui::IsItemClicked()) {
        ImVec2 m = ImGui::GetIO().MousePos;
        if (m.x >= c0.x && m.x < c1.x && m.y >= c0.y && m.y < c1.y) {
            state.tile_block_x = std::clamp(int((m.x - c0.x) / (float(g.BN) * scale)), 0, int(g.grid_x - 1));
            state.tile_block_y = std::clamp(int((m.y - c0.y) / (float(g.BM) * scale)), 0, int(g.grid_y - 1));
        }
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int64_t row0 = state.tile_block_y * g.BM, col0 = state.tile_block_x * g.BN;
    const int64_t rows = std::min(g.BM, g.M - row0), cols = std::min(g.BN, g.N - col0);
    const int64_t k0 = int64_t(state.tile_k_step) * g.BK, kw = std::min(g.BK, g.K - k0);
    auto at = [&](ImVec2 base, int64_t x, int64_t y) { return ImVec2(base.x + float(x) * scale, base.y + float(y) * scale); };

    for (auto [p, q] : {std::pair{a0, a1}, {b0, b1}, {c0, c1}}) Rect(dl, p, q, kMatrixFill, kMatrixEdge);
    GridLines(dl, c0, c1, g.grid_x, g.grid_y, plot::kGridColor);
    // A: the block's row strip and this k-step's tile; B: its column strip and tile.
    Rect(dl, at(a0, 0, row0), at(a0, g.K, row0 + rows), kStripFill, plot::WithAlpha(kTileFill, 0.6f));
    Rect(dl, at(a0, k0, row0), at(a0, k0 + kw, row0 + rows), kTileFill, plot::kTextColor, 2.0f);
    Rect(dl, at(b0, col0, 0), at(b0, col0 + cols, g.K), kStripFill, plot::WithAlpha(kTileFill, 0.6f));
    Rect(dl, at(b0, col0, k0), at(b0, col0 + cols, k0 + kw), kTileFill, plot::kTextColor, 2.0f);
    // C: the block's tile, more opaque with every k-step done.
    const float done = float(state.tile_k_step + 1) / float(g.k_steps);
    const ImVec2 t0 = at(c0, col0, row0), t1 = at(c0, col0 + cols, row0 + rows);
    Rect(dl, t0, t1, plot::WithAlpha(kOutputFill, 0.3f + 0.7f * done), plot::kHighlight, 2.5f);
    // A cluster: its tiles one above the other, sharing the B strip, outlined together.
    if (g.cluster > 1) {
        const int64_t crow0 = state.tile_block_y / g.cluster * g.cluster * g.BM, crows = std::min(g.cluster * g.BM, g.M - crow0);
        dl->AddRect(at(c0, col0, crow0), at(c0, col0 + cols, crow0 + crows), kClusterEdge, 0, 0, 2.0f);
        dl->AddRect(at(b0, col0, 0), at(b0, col0 + cols, g.K), kClusterEdge, 0, 0, 2.0f);
    }
    // A tile of a few pixels is easy to miss on a projector: ring it.
    if (t1.x - t0.x < font)
        dl->AddCircle(ImVec2((t0.x + t1.x) * 0.5f, (t0.y + t1.y) * 0.5f), font * 0.9f, plot::kHighlight, 24, 2.5f);
    const ImVec2 a_at(a0.x, b1.y - font * 1.2f);
    ImVec2 b_at(b0.x, b0.y - font * 1.3f);
    if (captions_meet(scale)) {
        if (b_fits_beside) b_at.x = a_at.x + a_wide;
        else b_at.y = a_at.y - font * 1.25f;
    }
    Caption(dl, a_at, a_caption);
    Caption(dl, b_at, b_caption);
    Caption(dl, ImVec2(c0.x, c1.y + font * 0.2f),
            trf("tiles.c_caption", g.M, g.N, g.grid_x * g.grid_y));
}

// One block close up: this k-step's A and B tiles, its C tile with a cell per thread, and thread
// (0, 0)'s outputs with the rows of A and the columns of B it reads for them.
void DrawBlockZoom(const AppState& state, const MatmulGeometry& g, float width, float max_height) {
    const float font = ImGui::GetFontSize();
    const float gap = font * 0.5f, title = font * 1.5f, label = font * 1.3f;
    const float zs = float(std::min((width - gap - font) / double(g.BK + g.BN),
                                    (max_height - title - label * 2 - gap) / double(g.BK + g.BM)));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 zc0(origin.x + float(g.BK) * zs + gap, origin.y + title + label + float(g.BK) * zs + gap);
    const ImVec2 zc1(zc0.x + float(g.BN) * zs, zc0.y + float(g.BM) * zs);
    const ImVec2 za0(zc0.x - gap - float(g.BK) * zs, zc0.y), za1(zc0.x - gap, zc1.y);
    const ImVec2 zb0(zc0.x, zc0.y - gap - float(g.BK) * zs), zb1(zc1.x, zc0.y - gap);
    ImGui::InvisibleButton("##zoom", ImVec2(width, zc1.y - origin.y + label));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    Caption(dl, origin,
            trf("tiles.block_caption", state.tile_block_x, state.tile_block_y, state.tile_k_step + 1, g.k_steps),
            plot::kHighlight);
    const ImU32 staged_a = g.a_shared ? kSmemFill : kTileFill, staged_b = g.b_shared ? kSmemFill : kTileFill;
    Rect(dl, za0, za1, staged_a, plot::kTextColor);
    Rect(dl, zb0, zb1, staged_b, plot::kTextColor);
    Rect(dl, zc0, zc1, plot::WithAlpha(kOutputFill, 0.35f), plot::kHighlight, 2.0f);
    auto zat = [&](ImVec2 base, int64_t x, int64_t y) { return ImVec2(base.x + float(x) * zs, base.y + float(y) * zs); };
    const bool warps = g.WM > 0 && g.WN > 0;
    const bool fragments = warps && g.FM > 0 && g.FN > 0 && g.FK > 0;
    if (fragments) {
        // The warp tiles, warp 0's cut into its fragments of C; fragment (0, 0) and the A and B
        // fragments whose product the first mma of the k-step adds to it.
        GridLines(dl, zc0, zc1, std::max<int64_t>(1, g.BN / g.WN), std::max<int64_t>(1, g.BM / g.WM), IM_COL32(255, 255, 255, 90));
        GridLines(dl, zc0, zat(zc0, g.WN, g.WM), std::max<int64_t>(1, g.WN / g.FN), std::max<int64_t>(1, g.WM / g.FM),
                  IM_COL32(255, 255, 255, 60));
        Rect(dl, zc0, zat(zc0, g.WN, g.WM), 0, plot::kHighlight, 2.0f);
        Rect(dl, zat(za0, 0, 0), zat(za0, std::min(g.FK, g.BK), g.FM), kRegisterFill, plot::kTextColor);
        Rect(dl, zat(zb0, 0, 0), zat(zb0, g.FN, std::min(g.FK, g.BK)), kRegisterFill, plot::kTextColor);
        Rect(dl, zc0, zat(zc0, g.FN, g.FM), kRegisterFill, plot::kTextColor, 2.0f);
    } else if (warps) {
        // The warp tiles, warp 0's outlined, and thread (0, 0)'s micro-tile in each of its steps.
        GridLines(dl, zc0, zc1, std::max<int64_t>(1, g.BN / g.WN), std::max<int64_t>(1, g.BM / g.WM), IM_COL32(255, 255, 255, 90));
        Rect(dl, zc0, zat(zc0, g.WN, g.WM), 0, plot::kHighlight, 2.0f);
        const int64_t mt = g.TM / g.steps_m, nt = g.TN / g.steps_n, sm = g.WM / g.steps_m, sn = g.WN / g.steps_n;
        for (int64_t i = 0; i < g.steps_m; ++i) Rect(dl, zat(za0, 0, i * sm), zat(za0, g.BK, i * sm + mt), kRegisterFill, 0);
        for (int64_t j = 0; j < g.steps_n; ++j) Rect(dl, zat(zb0, j * sn, 0), zat(zb0, j * sn + nt, g.BK), kRegisterFill, 0);
        for (int64_t i = 0; i < g.steps_m; ++i)
            for (int64_t j = 0; j < g.steps_n; ++j)
                Rect(dl, zat(zc0, j * sn, i * sm), zat(zc0, j * sn + nt, i * sm + mt), kRegisterFill, plot::kTextColor, 2.0f);
    } else {
        GridLines(dl, zc0, zc1, std::max<int64_t>(1, g.BN / g.TN), std::max<int64_t>(1, g.BM / g.TM), IM_COL32(255, 255, 255, 40));
        Rect(dl, zat(za0, 0, 0), zat(za0, g.BK, g.TM), kRegisterFill, 0);
        Rect(dl, zat(zb0, 0, 0), zat(zb0, g.TN, g.BK), kRegisterFill, 0);
        Rect(dl, zc0, zat(zc0, g.TN, g.TM), kRegisterFill, plot::kTextColor, 2.0f);
    }
    const std::string a = "A " + std::to_string(g.BM) + "×" + std::to_string(g.BK);
    const std::string b = "B " + std::to_string(g.BK) + "×" + std::to_string(g.BN);
    Caption(dl, ImVec2(origin.x, zb0.y - label),
            g.a_shared == g.b_shared ? trf(g.a_shared ? "tiles.operands_in_shared" : "tiles.operands_from_global", a, b)
                                     : trf("tiles.operands_split", g.a_shared ? a : b, g.a_shared ? b : a));
    Caption(dl, ImVec2(zc0.x, zc1.y + font * 0.2f), trf("tiles.c_tile", g.BM, g.BN));
    if (fragments && g.operands_in_shared)
        Swatch(kRegisterFill, trf("tiles.warpgroup_wgmma", g.WM, g.WN, g.FK, (g.WM / g.FM) * (g.WN / g.FN) * std::max<int64_t>(1, g.BK / g.FK),
                                  g.FM, g.FN).c_str());
    else if (fragments)
        Swatch(kRegisterFill, (trf("tiles.warp_fragments", g.WM, g.WN, g.WM / g.FM, g.WN / g.FN, g.FM, g.FN, g.FM, g.FK,
                                   g.FK, g.FN, (g.WM / g.FM) * (g.WN / g.FN) * std::max<int64_t>(1, g.BK / g.FK)) +
                               " " + tr(g.lanes_known ? "tiles.fragments_lanes_below" : "tiles.fragments_opaque"))
                                  .c_str());
    else if (warps)
        Swatch(kRegisterFill, trf("tiles.warp_thread", g.WM, g.WN, g.steps_m, g.steps_n, g.TM / g.steps_m,
                                  g.TN / g.steps_n).c_str());
    else
        Swatch(kRegisterFill,
               trf(g.TM * g.TN > 1 ? "tiles.thread_outputs_in_registers" : "tiles.thread_one_output", g.TM, g.TN).c_str());
    if (g.a_shared || g.b_shared) Swatch(kSmemFill, tr("tiles.staged_once_per_k_step_then_read_by_every_thread").c_str());
    if (!g.a_shared || !g.b_shared) Swatch(kTileFill, tr("tiles.read_from_global_memory_by_each_thread").c_str());
}

void DrawProduct(AppState& state, const TileGeometry& t, const RunResult& r) {
    const MatmulGeometry g = DeriveMatmul(t, r);
    if (g.M <= 0 || g.N <= 0 || g.K <= 0) return;
    state.tile_block_x = std::clamp(state.tile_block_x, 0, int(g.grid_x - 1));
    state.tile_block_y = std::clamp(state.tile_block_y, 0, int(g.grid_y - 1));

    const std::string per_thread = plot::FormatValue(g.outputs_per_thread);
    if (t.tiles_walked || t.loading_threads > 0)   // a tile schedule, a producer that only loads (lesson 22)
        WrappedText(trf("tiles.matmul_walked", g.BM, g.BN, g.threads - t.loading_threads, g.threads, per_thread,
                        g.TM, g.TN, t.loading_threads, g.grid_x, g.grid_y, r.launch.blocks()));
    else
        WrappedText(trf(g.outputs_per_thread == 1 ? "tiles.matmul_block_one" : "tiles.matmul_block", g.BM, g.BN,
                        g.threads, g.bx, g.by, per_thread, g.TM, g.TN, g.grid_x, g.grid_y));
    if (t.tiles_in_turns > 1)   // consumers holding tiles of their own, in turns (lesson 22)
        WrappedText(trf("tiles.matmul_turns", t.tiles_in_turns, g.BM, g.BN));
    if (r.launch.cluster > 1)   // thread-block clusters sharing B by TMA multicast (lesson 22)
        WrappedText(trf("tiles.matmul_cluster", r.launch.cluster, int64_t(r.launch.cluster) * g.BM, g.BN));
    if (g.a_shared && g.b_shared)
        WrappedText(trf("tiles.both_shared", g.BM, g.BK, g.BK, g.BN, format_bytes(g.smem_bytes), g.k_steps,
                        g.K));
    else if (g.a_shared || g.b_shared)
        WrappedText(trf("tiles.one_shared", g.a_shared ? "A" : "B", format_bytes(g.smem_bytes),
                        g.a_shared ? "B" : "A", g.k_steps, g.K));
    else
        WrappedText(tr("tiles.no_shared_matmul"));

    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(tr("tiles.block").c_str());
    // Two sliders of 8 em beside the label where they fit; at a projector's text size the second
    // goes under the first, and neither is wider than the panel.
    const float slider = ImGui::GetFontSize() * 8;
    SameLineIfFits(slider);
    ImGui::SetNextItemWidth(FieldWidth(slider));
    ImGui::SliderInt("##bx", &state.tile_block_x, 0, int(g.grid_x - 1), "x = %d");
    SameLineIfFits(slider);
    ImGui::SetNextItemWidth(FieldWidth(slider));
    ImGui::SliderInt("##by", &state.tile_block_y, 0, int(g.grid_y - 1), "y = %d");
    HelpMarker(tr("tiles.matmul_help").c_str());
    StepControls(state, tr("tiles.k_step").c_str(), g.k_steps);
    if (t.ring_stages > 0) {   // the stages at this k-step, and the block's pipeline over time (lesson 22)
        DrawStageRing(state, t, r);
        DrawPipelineTimeline(state, t, r);
    }

    const float font = ImGui::GetFontSize();
    const float avail_w = ImGui::GetContentRegionAvail().x;
    if (avail_w > font * 50) {
        const float height = font * 26;
        ImGui::BeginGroup();
        DrawMatmulOverview(state, g, avail_w * 0.55f, height);
        ImGui::EndGroup();
        ImGui::SameLine(0, font);
        ImGui::BeginGroup();
        DrawBlockZoom(state, g, ImGui::GetContentRegionAvail().x, height);
        ImGui::EndGroup();
    } else {
        DrawMatmulOverview(state, g, avail_w, std::min(avail_w, font * 26));
        ImGui::Spacing();
        DrawBlockZoom(state, g, avail_w, std::min(avail_w, font * 22));
    }
    if (t.mma_lanes_known) {
        ImGui::Spacing();
        DrawFragmentLanes(element_bytes(r.precision.input), t.mma_operands_in_shared ? t.mma[0] : 0);
    }
}

// ---- stencil ---------------------------------------------------------------------------------

// One x–y plane of a block's input tile: the halo ring around the output tile, a cell per
// element, and the 7-point footprint of the first output.
void DrawStencilSlice(const StencilGeometry& g, float width, float max_height) {
    const float font = ImGui::GetFontSize();
    const int64_t in_x = g.in_x, in_y = g.in_y;
    const float cell = std::min((width - font) / float(in_x), (max_height - font * 1.5f) / float(in_y));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float wrap_at = ImGui::GetCursorPosX() + width;   // the legend wraps within the picture's width
    const ImVec2 s0(origin.x, origin.y + font * 1.5f), s1(s0.x + cell * float(in_x), s0.y + cell * float(in_y));
    ImGui::InvisibleButton("##slice", ImVec2(width, s1.y - origin.y + font * 0.4f));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    Caption(dl, origin, tr("tiles.one_x_y_plane_of_a_block_s_tile").c_str());
    Rect(dl, s0, s1, kHaloFill, plot::kTextColor);
    const ImVec2 o0(s0.x + cell * float(g.halo), s0.y + cell * float(g.halo));
    const ImVec2 o1(o0.x + cell * float(g.out[0]), o0.y + cell * float(g.out[1]));
    Rect(dl, o0, o1, kOutputFill, plot::kHighlight, 2.0f);
    GridLines(dl, s0, s1, in_x, in_y, IM_COL32(255, 255, 255, 30));
    // The first output and its x–y neighbours, `halo` cells each way (the z ones are in the planes
    // above and below).
    const ImVec2 center(o0.x + cell * 0.5f, o0.y + cell * 0.5f);
    const float dot = std::max(2.5f, cell * 0.25f);
    dl->AddCircleFilled(center, dot, plot::kHighlight);
    for (int d = 1; d <= int(g.halo); ++d)
        for (auto [dx, dy] : {std::pair{d, 0}, {-d, 0}, {0, d}, {0, -d}})
            dl->AddCircleFilled(ImVec2(center.x + cell * float(dx), center.y + cell * float(dy)), dot, plot::kTextColor);
    ImGui::PushTextWrapPos(wrap_at);
    Swatch(kOutputFill, trf("tiles.output_tile", g.out[0], g.out[1]).c_str());
    Swatch(kHaloFill, trf(g.halo_load == HaloLoad::OnTop          ? "tiles.halo_on_top"
                          : g.halo_load == HaloLoad::ExtraThreads ? "tiles.halo_extra_threads"
                                                                  : "tiles.halo_inputs_only",
                          g.halo).c_str());
    ImGui::PopTextWrapPos();
}

// Along z: the block's input planes as a stack; at the current step the prev/curr/next window,
// coloured by where it lives. How many planes shared memory holds is what the variant declares.
void DrawStencilPlanes(const AppState& state, const StencilGeometry& g, float width, float max_height) {
    const float font = ImGui::GetFontSize();
    const int64_t planes = g.out[2] + 2 * g.halo;
    const float plane_h = std::clamp((max_height - font * 2) / float(planes), 3.0f, font * 1.4f);
    const float skew = font * 1.5f, plane_w = std::max(font * 4, width - font * 9 - skew);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float base_y = origin.y + font * 1.8f + plane_h * float(planes);
    const int64_t curr = g.halo + state.tile_k_step;
    // The window's labels, a line apart around curr: thin planes and a wide halo (lesson 20's
    // levels) spread them past the stack, so the group is moved below the caption and the
    // picture is as tall as its lowest label (they ran over the legend below).
    const float label_step = std::max(plane_h, font * 1.15f);
    const float curr_mid_at = base_y - plane_h * (float(curr) + 0.5f);
    const float label_shift = std::max(0.0f, origin.y + font * 1.8f - (curr_mid_at - float(g.halo) * label_step - font * 0.5f));
    const float bottom = std::max(base_y, curr_mid_at + label_shift + float(g.halo) * label_step + font * 0.5f);
    ImGui::InvisibleButton("##planes", ImVec2(width, bottom - origin.y + font * 0.4f));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    Caption(dl, origin, trf("tiles.input_planes_along_z", planes, g.out[2]));
    for (int64_t p = 0; p < planes; ++p) {
        const float y = base_y - plane_h * float(p + 1);
        const ImVec2 quad[4] = {{origin.x, y + plane_h}, {origin.x + plane_w, y + plane_h},
                                {origin.x + plane_w + skew, y}, {origin.x + skew, y}};
        const int64_t offset = p - curr;
        const bool in_window = offset >= -g.halo && offset <= g.halo;
        // With three planes in shared memory the whole window is there; with one, only curr.
        const bool in_smem = in_window && (g.planes_in_smem >= 3 || (g.planes_in_smem >= 1 && offset == 0));
        dl->AddConvexPolyFilled(quad, 4, !in_window ? kMatrixFill : in_smem ? kSmemFill : kRegisterFill);
        const bool halo_plane = p < g.halo || p >= planes - g.halo;
        dl->AddPolyline(quad, 4, halo_plane ? plot::WithAlpha(kHaloFill, 1.0f) : kMatrixEdge, ImDrawFlags_Closed, 1.0f);
        if (in_window) {
            // Thin planes would stack their labels: spread them a line apart, with a leader line.
            const float plane_mid = y + plane_h * 0.5f;
            const float label_mid = curr_mid_at + label_shift - float(offset) * label_step;
            const ImVec2 edge(quad[1].x + skew * 0.5f, plane_mid);
            const ImVec2 tag(quad[2].x + font * 1.2f, label_mid);
            const ImU32 color = offset == 0 ? plot::kHighlight : plot::kTextColor;
            dl->AddLine(edge, ImVec2(tag.x - font * 0.2f, tag.y), plot::WithAlpha(color, 0.7f), 1.5f);
            Caption(dl, ImVec2(tag.x, tag.y - font * 0.5f),
                    tr(offset < 0 ? "tiles.plane_prev" : offset == 0 ? "tiles.plane_curr" : "tiles.plane_next"), color);
        }
    }
    // No whole plane (lesson 20 keeps only the rows threads hand to each other): said so, not
    // "0 planes of 0×0".
    if (g.planes_in_smem == 0 && g.smem_bytes > 0)
        Swatch(kSmemFill, trf("tiles.shared_rows_only", format_bytes(g.smem_bytes)).c_str());
    else if (g.planes_in_smem > 0)
        Swatch(kSmemFill, (g.planes_in_smem == 1
                               ? trf("tiles.shared_one_plane", g.plane_x, g.plane_y, format_bytes(g.smem_bytes))
                               : trf("tiles.shared_planes", g.planes_in_smem, g.plane_x, g.plane_y, format_bytes(g.smem_bytes)))
                              .c_str());
    if (g.planes_in_smem < 3)
        Swatch(kRegisterFill, tr("tiles.registers_each_thread_keeps_prev_and_next_of_its").c_str());
}

void DrawNeighbourhood(AppState& state, const TileGeometry& t, const RunResult& r) {
    const StencilGeometry g = DeriveStencil(t, r);
    const std::string per_thread = plot::FormatValue(g.outputs_per_thread);
    WrappedText(trf(g.outputs_per_thread == 1 ? "tiles.stencil_block_one" : "tiles.stencil_block", g.out[0],
                    g.out[1], g.out[2], g.threads, g.block[0], g.block[1], g.block[2], per_thread));
    if (t.time_steps > 0)
        WrappedText(trf("tiles.time_steps", t.time_steps, g.out[0], g.out[1]));
    else if (g.planes_in_smem > 0)
        WrappedText(trf("tiles.stencil_input_tile", g.in_x, g.in_y, g.halo, format_bytes(g.smem_bytes)));
    else
        WrappedText(tr("tiles.no_shared_stencil"));
    if (t.time_steps > 0) {
        const float width = std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 40);
        DrawTimeLevels(t, width);
        DrawTimePipeline(t, width, state.tile_k_step);   // the z slider below sets the plane
    }
    if (g.streams_z) {
        StepControls(state, tr("tiles.z_plane").c_str(), g.out[2]);
        HelpMarker(tr("tiles.coarsened_help").c_str());
    }

    const float font = ImGui::GetFontSize();
    const float avail_w = ImGui::GetContentRegionAvail().x;
    if (!g.streams_z) {
        DrawStencilSlice(g, std::min(avail_w, font * 26), font * 26);
    } else if (avail_w > font * 45) {
        ImGui::BeginGroup();
        DrawStencilSlice(g, avail_w * 0.5f, font * 24);
        ImGui::EndGroup();
        ImGui::SameLine(0, font);
        ImGui::BeginGroup();
        DrawStencilPlanes(state, g, ImGui::GetContentRegionAvail().x, font * 24);
        ImGui::EndGroup();
    } else {
        DrawStencilSlice(g, std::min(avail_w, font * 18), font * 18);
        ImGui::Spacing();
        DrawStencilPlanes(state, g, avail_w, font * 20);
    }
}

}  // namespace

void DrawTilesPanel(AppState& state) {
    const RunResult* shown = ResultOrHint(state, tr("hint.see_its_tiles").c_str());
    if (!shown) return;
    const RunResult& r = *shown;
    const Variant* v = find_variant(r.request.variant);
    if (!v) {
        ImGui::TextDisabled("%s", trf("tiles.unknown_variant", r.request.variant).c_str());
        return;
    }
    if (!r.ok && r.stage == "input") {
        WrappedTextColored(StatusColorVec(false), trf("tiles.cannot_run", r.error));
        return;
    }
    if (!v->declares_tiles) {
        ImGui::TextDisabled("%s", trf("tiles.no_tiles", v->id).c_str());
        return;
    }
    const TileGeometry t = v->tiles(with_defaults(v->params, r.request.params), r.request.problem);
    for (size_t a = 0; a < 3; ++a)
        if (t.extent[a] <= 0 || t.block_tile[a] <= 0 || t.thread_tile[a] <= 0) return;
    if (t.reduction > 0) DrawProduct(state, t, r);
    else if (t.halo > 0) DrawNeighbourhood(state, t, r);
    else if (t.stream_tile > 0) DrawStream(state, t, r);
    else if (!t.product_name.empty()) DrawRows(state, t, r);
    else WrappedTextDisabled(trf("tiles.no_picture", v->id));
}

}  // namespace tilelab::gui
