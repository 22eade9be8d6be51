// What the attention lessons' variants share (lessons/15_*, lessons/16_*): a block owns BR query
// rows of one head and the grid walks row blocks along x and heads along y, so the Tiles panel's
// geometry, the grid's limit and the K/V traffic figures are the same for every such kernel, with
// the causal mask (the family option) or without.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>
#include "model/element_bits.h"
#include "model/family_common.h"
#include "tilelab/i18n.h"
#include "tilelab/target.h"
#include "tilelab/tiles.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "shape.h"

namespace tilelab::attention {

// "" or why ⌈N/BR⌉ row blocks do not fit in gridDim.x.
inline std::string grid_reason(const Problem& p, int br, const Target& t) {
    if (ceil_div(p.dim[0], br) > t.max_grid_dim[0])
        return trf("family.attention.grid", p.dim[0], ceil_div(p.dim[0], br), t.max_grid_dim[0]);
    return "";
}

// One past the last key row block `b` (BR rows) streams: N, or with the mask min(N, (b+1)·BR).
inline int64_t block_keys(int64_t N, int br, int64_t b, bool causal) { return causal ? std::min(N, (b + 1) * br) : N; }

// The running state of query row `row` of head 0 through the key tiles its block walks (BR rows a
// block, BC keys a tile, the mask or not), recomputed in double from the seeded inputs rounded to
// the input type as the GPU's fill rounds them (families/attention/gpu_cuda.cpp), for N·d up to
// 2^22 (empty past it): per tile the largest score s = q·k/√d, m' = max(m, tile max),
// α = e^(m − m'), l = α·l + Σ e^(s − m').
inline std::vector<StreamStep> row_trace(const Problem& p, int br, int bc, bool causal, ElementType input, int64_t row,
                                         uint64_t seed) {
    const int64_t N = p.dim[0], d = p.dim[1];
    // A row costs N·d multiply-adds on the GUI thread, once per row: past 2^22 (about 20 ms) none.
    if (row < 0 || row >= N || N * d > (int64_t(1) << 22)) return {};
    auto value = [&](uint64_t s, int64_t r, int64_t c) {
        return double(round_to_element(seeded_uniform(s, uint64_t(r * d + c)), input));
    };
    std::vector<double> q(static_cast<size_t>(d));
    for (int64_t c = 0; c < d; ++c) q[size_t(c)] = value(seed, row, c);
    const int64_t keys = block_keys(N, br, row / br, causal);
    const double scale = 1.0 / std::sqrt(double(d)), minus_inf = -std::numeric_limits<double>::infinity();
    std::vector<StreamStep> steps;
    double m = minus_inf, l = 0;
    for (int64_t n0 = 0; n0 < keys; n0 += bc) {
        std::vector<double> s;
        double top = minus_inf;
        for (int64_t j = n0; j < n0 + bc && j < N; ++j) {
            if (causal && j > row) break;
            double dot = 0;
            for (int64_t c = 0; c < d; ++c) dot += q[size_t(c)] * value(seed ^ kAttentionSeedK, j, c);
            s.push_back(dot * scale);
            top = std::max(top, s.back());
        }
        const double m_new = std::max(m, top), alpha = m == minus_inf ? 0.0 : std::exp(m - m_new);
        l *= alpha;
        for (const double x : s) l += std::exp(x - m_new);
        steps.push_back({top, m_new, alpha, l});
        m = m_new;
    }
    return steps;
}

// O's columns (d) along x, its rows (N) along y, heads along z; the grid walks rows along x and
// heads along y; each block streams the N keys of K and V BC at a time (the Tiles panel draws
// the N×N scores that never exist, the block's strip of them, the tiles it skips with the mask,
// and one row's running maximum and sum from row_trace).
inline TileGeometry row_block_tiles(const Problem& p, int br, int bc, bool causal, ElementType input,
                                    std::array<int64_t, 3> thread_tile) {
    TileGeometry g;
    g.extent = {p.dim[1], p.dim[0], p.dim[2]};
    g.block_tile = {p.dim[1], br, 1};
    g.thread_tile = thread_tile;
    g.grid_axis = {2, 0, 1};
    g.stream_extent = p.dim[0];
    g.stream_tile = bc;
    g.stream_causal = causal;
    g.rows_name = "Q", g.stream_name = "K, V", g.output_name = "O", g.product_name = "S = Q·K^T";
    g.stream_trace = [p, br, bc, causal, input](int64_t row, uint64_t seed) {
        return row_trace(p, br, bc, causal, input, row, seed);
    };
    return g;
}

// What a head's row blocks stream, summed over them: key tiles, and key rows read (K and V each;
// a tile's rows past N are zeros, not reads). Without the mask every block takes all ⌈N/BC⌉ tiles
// and all N keys; with it (causal) block b stops at the tile holding key min(N, (b+1)·BR) − 1.
struct KeyWork {
    double tiles = 0, keys = 0;
};
inline KeyWork key_work(const Problem& p, int br, int bc, bool causal) {
    const int64_t N = p.dim[0], blocks = ceil_div(N, br);
    if (!causal) return {double(blocks) * double(ceil_div(N, bc)), double(blocks) * double(N)};
    KeyWork w;
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t tiles = ceil_div(block_keys(N, br, b, causal), bc);
        w.tiles += double(tiles);
        w.keys += double(std::min(N, tiles * bc));
    }
    return w;
}

// Q's rows once and every key row a block streams, K and V: BH·d·(N + 2·keys), which is
// BH·N·d·(1 + 2·⌈N/BR⌉) without the mask.
inline double global_loads(const Problem& p, int br, int bc, bool causal) {
    const double d = double(p.dim[1]), BH = double(p.dim[2]);
    return BH * d * (double(p.dim[0]) + 2 * key_work(p, br, bc, causal).keys);
}

// Multiply-adds of both products, two FLOPs each: 4·N²·d·BH, and for the scores the mask keeps
// (N·(N+1)/2 per head), 2·N·(N+1)·d·BH. The kernel's masked work on diagonal tiles is not counted.
inline double flops(const Problem& p, bool causal) {
    const double N = double(p.dim[0]), d = double(p.dim[1]), BH = double(p.dim[2]);
    return causal ? 2 * N * (N + 1) * d * BH : 4 * N * N * d * BH;
}

// The formulas both lessons show for the key traffic and the work, with or without the mask.
inline std::vector<Formula> key_formulas(const CostModel& m, bool causal) {
    if (!causal)
        return {{"global loads (total)", "BH·N·d·(1 + 2·⌈N/BR⌉)", m.total.global_loads},
                {"global stores (total)", "BH·N·d", m.total.global_stores},
                {"FLOPs", "4·N²·d·BH", m.flops}};
    return {{"global loads (total)", "BH·d·(N + 2·Σ_b min(N, BC·⌈min(N, (b+1)·BR)/BC⌉))", m.total.global_loads},
            {"global stores (total)", "BH·N·d", m.total.global_stores},
            {"FLOPs (scores the mask keeps)", "2·N·(N+1)·d·BH", m.flops}};
}

// The extras both lessons show: K/V reads per element, key tiles, the N×N matrix never written.
inline std::vector<Formula> shared_extras(const Problem& p, int br, int bc, bool causal) {
    const KeyWork w = key_work(p, br, bc, causal);
    const double N = double(p.dim[0]), BH = double(p.dim[2]);
    if (!causal)
        return {
            {"K and V reads per element", "⌈N/BR⌉", double(ceil_div(p.dim[0], br))},
            {"key tiles", "⌈N/BC⌉", double(ceil_div(p.dim[0], bc))},
            {"score matrix bytes never written (FP32)", "4·BH·N²", BH * N * N * 4.0},
        };
    return {
        {"K and V reads per element (average)", "Σ_b keys_b / N", w.keys / N},
        {"key tiles per block (average)", "Σ_b ⌈min(N, (b+1)·BR)/BC⌉ / ⌈N/BR⌉", w.tiles / double(ceil_div(p.dim[0], br))},
        {"key tiles skipped whole (all blocks)", "BH·(⌈N/BR⌉·⌈N/BC⌉ − Σ_b tiles_b)",
         BH * (double(ceil_div(p.dim[0], br)) * double(ceil_div(p.dim[0], bc)) - w.tiles)},
        {"score matrix bytes never written (FP32)", "4·BH·N²", BH * N * N * 4.0},
    };
}

}  // namespace tilelab::attention
