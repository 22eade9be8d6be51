// What the Hopper matmul lessons (21 TMA + wgmma, 22 warp specialisation) share: the TMA tensor
// maps over A and B, the limits TMA and the shared ring put on them, and the counts of a block
// tiling fed by TMA and multiplied by wgmma.
#pragma once
#include <algorithm>
#include <cstdint>
#include "model.h"

namespace tilelab::matmul {

// A's map is K×M (boxes SPAN×BM), B's N×K (boxes SPAN×BK), both of 2-byte elements, swizzled by
// `swizzle` bytes; SPAN = swizzle/2 elements is one swizzled row.
inline std::vector<TensorMapSpec> wgmma_tensor_maps(const Problem& p, int bm, int bk, int swizzle) {
    const uint64_t M = uint64_t(p.dim[0]), N = uint64_t(p.dim[1]), K = uint64_t(p.dim[2]);
    const uint32_t span = uint32_t(swizzle / 2);
    return {
        {.arg = 0, .element_bytes = 2, .rank = 2, .dims = {K, M}, .strides = {2 * K}, .box = {span, uint32_t(bm)}, .swizzle = swizzle},
        {.arg = 1, .element_bytes = 2, .rank = 2, .dims = {N, K}, .strides = {2 * N}, .box = {span, uint32_t(bk)}, .swizzle = swizzle},
    };
}

// TMA copies whole 16-byte units of a row: K (A's rows) and N (B's) must be multiples of 8
// two-byte elements; M may be anything.
inline std::string tma_rows_problem(const Problem& p) {
    if (p.dim[1] % 8 != 0 || p.dim[2] % 8 != 0) return trf("constraint.matmul.tma_wgmma.rows_of_16_bytes", p.dim[2], p.dim[1]);
    return {};
}

// The shared ring: `stages` stages of `stage_bytes`, `bytes` with barriers and alignment, against
// what a block of `t` may have (the opt-in limit, which the runner sets).
inline std::string ring_problem(const Target& t, int stages, int stage_bytes, int bytes) {
    const int limit = t.smem_per_block_optin > 0 ? t.smem_per_block_optin : t.smem_per_block;
    if (bytes > limit) return trf("constraint.matmul.tma_wgmma.shared_memory", stages, stage_bytes, bytes, limit);
    return {};
}

// C staged in shared memory on its way out (lesson 22's EPILOGUE = 1): elements written there and
// read back by TMA, in all and per block, and how the formulas name them.
struct StagedC {
    double total = 0, per_block = 0;
    SharedExtra formula;
};

// FP32 partial sums that go out to C and are read back once each (lesson 22's stream-K): global
// stores, and loads counted in the operands' elements (4 bytes a sum); `formula` names them in the
// total loads' and stores' formulas.
struct PartialSums {
    double sums = 0;
    GlobalExtra formula;
};

// Counts in elements, exact for any M, N, K: TMA reads the parts of A and B inside the matrices
// (every element of A once per tile column, of B once per tile row, or per cluster row where
// `cluster` > 0 blocks multicast it: lesson 22) and writes whole boxes into shared memory (zeros
// past the edges); each wgmma reads its 64×16 of A and 16×WGN of B from shared memory; every
// element of C is stored once (and, where `staged` says so, staged in shared memory first).
// `threads` of the block share the reads.
inline void wgmma_counts(CostModel& m, const Problem& p, int bm, int bn, int bk, int wgn, int threads, const Precision& precision,
                         int cluster = 0, const StagedC& staged = {}, const PartialSums& partial = {}) {
    const int c = std::max(cluster, 1);
    const double blocks = double(ceil_div(p.dim[1], bn)) * double(ceil_div(p.dim[0], int64_t(bm) * c)) * c;
    const double reads_per_k = double(bm) * bn * (1.0 / wgn + 1.0 / 64) / threads;
    block_tiled_counts(m, p, bm, bn, bk, threads, double(bm) * bn / threads, reads_per_k, precision, c);
    m.total.shared_stores += staged.total, m.total.shared_loads += staged.total;
    m.per_block.shared_stores += staged.per_block, m.per_block.shared_loads += staged.per_block;
    m.per_thread.shared_stores += staged.per_block / threads, m.per_thread.shared_loads += staged.per_block / threads;
    if (partial.sums > 0) {
        m.total.global_stores += partial.sums;
        m.total.global_loads += partial.sums * 4 / m.load_element_bytes;
        finish_cost_model(m, p, precision);   // bytes and intensity with them
    }
    add_block_tiled_formulas(m, blocks, "BM·BN / threads", "BM·BN·(1/WGN + 1/64) / threads", cluster > 0, staged.formula,
                             partial.formula);
    const double per_slice = double(bk / 16) * (bm / 64) * (bn / wgn);
    add_extra(m, "wgmma / block / K slice", "(BK/16)·(BM/64)·(BN/WGN)", per_slice);
    const double wgmmas = blocks * double(ceil_div(p.dim[2], bk)) * per_slice;
    add_extra(m, "wgmma, total", "blocks·⌈K/BK⌉·(wgmma / block / K slice)", wgmmas);
    add_extra(m, "tensor-core FLOPs issued", "2·64·WGN·16 · wgmma, total (padding included)", wgmmas * 2.0 * 64 * wgn * 16);
    add_extra(m, "bytes / stage", "2·(BM·BK + BK·BN)", 2.0 * (bm * bk + bk * bn));
}

}  // namespace tilelab::matmul
