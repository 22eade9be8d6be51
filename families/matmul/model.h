// What every matmul variant's model shares (C = A·B, A M×K, B K×N): the formula and extra lists
// the cost model shows, and the fields every matmul cost model derives the same way. The
// family's problem shape is shape.cpp, its GPU half gpu_cuda.cpp.
#pragma once
#include <array>
#include <string>
#include <utility>
#include <vector>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab::matmul {

inline void add_formula(CostModel& m, std::string quantity, std::string expression, double value) {
    m.formulas.push_back({std::move(quantity), std::move(expression), value});
}
inline void add_extra(CostModel& m, std::string quantity, std::string expression, double value) {
    m.extras.push_back({std::move(quantity), std::move(expression), value});
}

// Fills the fields every matmul cost model derives the same way, at the kernel's element types.
inline void finish_cost_model(CostModel& m, const Problem& p, const Precision& precision = {}) {
    const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
    m.flops = 2 * M * N * K;
    m.set_element_types(precision);
    m.intensity = m.global_bytes > 0 ? m.flops / m.global_bytes : 0;
    m.compulsory_bytes = m.load_bytes(M * K + K * N) + m.store_bytes(M * N);
}

// The counts of a block-tiled kernel, exact for any M, N, K: a BM×BN tile of C per block, walked
// in ⌈K/BK⌉ steps that each stage BM×BK of A and BK×BN of B in shared memory (out-of-range
// elements are not loaded but the whole tiles are stored, zero-padded), every thread reading
// `reads` shared values per k for its `outputs` outputs (rows + cols and rows·cols for a thread
// tile; a warp's share of its fragments on tensor cores). Then the fields above, at `precision`.
// In clusters of `cluster` blocks one above the other that multicast B (lesson 22), each block
// reads its A and a cluster's share of B, and the grid has whole clusters (padded along M).
inline void block_tiled_counts(CostModel& m, const Problem& p, int bm, int bn, int bk, double threads, double outputs,
                               double reads, const Precision& precision = {}, int cluster = 1) {
    const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
    const double gx = double(ceil_div(p.dim[1], bn)), gy_clusters = double(ceil_div(p.dim[0], int64_t(bm) * cluster));
    const double kk = double(ceil_div(p.dim[2], bk)) * bk;   // k values a block walks: K rounded up to BK
    const double blocks = gx * gy_clusters * cluster;
    // A full interior block reads its BM rows of A and BN columns of B once each (a cluster's share of B).
    m.per_block.global_loads = K * (bm + double(bn) / cluster);
    m.per_block.global_stores = double(bm) * bn;
    m.per_block.shared_stores = kk * (bm + bn);
    m.per_block.shared_loads = threads * kk * reads;
    m.per_thread.global_loads = m.per_block.global_loads / threads;
    m.per_thread.global_stores = outputs;
    m.per_thread.shared_stores = m.per_block.shared_stores / threads;
    m.per_thread.shared_loads = kk * reads;
    // Each element of A is read once per block column, each element of B once per block row (cluster row).
    m.total.global_loads = M * K * gx + K * N * gy_clusters;
    m.total.global_stores = M * N;
    m.total.shared_stores = blocks * m.per_block.shared_stores;
    m.total.shared_loads = blocks * m.per_block.shared_loads;
    finish_cost_model(m, p, precision);
}

// block_tiled_counts' formulas, as the cost model shows them after the variant's own first lines:
// `outputs` is a thread's outputs ("TM·TN"), `reads` the shared values it reads per k ("TM+TN";
// a whole formula where it has its own divisor, "(WM+WN) / 32").
// `clustered`: the forms with CLUSTER (block_tiled_counts' clusters). A variant whose shared
// memory also holds something else read back as often as it is written (lesson 22 stages C there)
// adds those elements to m's shared counts first and names them: `shared_extra.total` is appended
// to the total shared stores' and loads' formulas, `shared_extra.thread` to the per-thread ones.
// Likewise `global_extra` for global traffic beyond the tiling's (lesson 22's stream-K partial
// sums), appended to the total global loads' and stores' formulas.
struct SharedExtra {
    std::string total, thread;
    std::string loads_total{}, loads_thread{};   // where the loads' term differs from the stores' (lesson 12's edges)
};
struct GlobalExtra {
    std::string loads, stores;
};
inline void add_block_tiled_formulas(CostModel& m, double blocks, const std::string& outputs, const std::string& reads,
                                     bool clustered = false, const SharedExtra& shared_extra = {},
                                     const GlobalExtra& global_extra = {}) {
    add_formula(m, "blocks", clustered ? "⌈N/BN⌉·CLUSTER·⌈M/(CLUSTER·BM)⌉" : "⌈N/BN⌉·⌈M/BM⌉", blocks);
    add_formula(m, "global loads / thread", clustered ? "K·(BM+BN/CLUSTER) / threads" : "K·(BM+BN) / threads",
                m.per_thread.global_loads);
    add_formula(m, "global stores / thread", outputs, m.per_thread.global_stores);
    add_formula(m, "shared stores / thread", "⌈K/BK⌉·BK·(BM+BN) / threads" + shared_extra.thread, m.per_thread.shared_stores);
    const std::string per_k = reads.find('/') != std::string::npos ? reads : "(" + reads + ")";
    const std::string loads_thread = shared_extra.loads_thread.empty() ? shared_extra.thread : shared_extra.loads_thread;
    const std::string loads_total = shared_extra.loads_total.empty() ? shared_extra.total : shared_extra.loads_total;
    add_formula(m, "shared loads / thread", "⌈K/BK⌉·BK·" + per_k + loads_thread, m.per_thread.shared_loads);
    add_formula(m, "global loads, total",
                (clustered ? "M·K·⌈N/BN⌉ + K·N·⌈M/(CLUSTER·BM)⌉" : "M·K·⌈N/BN⌉ + K·N·⌈M/BM⌉") + global_extra.loads,
                m.total.global_loads);
    add_formula(m, "global stores, total", "M·N" + global_extra.stores, m.total.global_stores);
    add_formula(m, "shared stores, total", "blocks·⌈K/BK⌉·BK·(BM+BN)" + shared_extra.total, m.total.shared_stores);
    add_formula(m, "shared loads, total", "blocks·threads·⌈K/BK⌉·BK·" + per_k + loads_total, m.total.shared_loads);
    add_formula(m, "FLOPs", "2·M·N·K", m.flops);
    const bool fp32 = m.load_element_bytes == 4 && m.store_element_bytes == 4;
    add_formula(m, "arithmetic intensity (FLOP/B)",
                fp32 ? "2·M·N·K / (4·(global loads + stores))" : "2·M·N·K / (bytes loaded + bytes stored)", m.intensity);
}

// The parameters the tensor-core lessons (12 WMMA, 13 mma.sync) share, in this order: PREC, the
// block tile BM×BN and its K slice BK, the warp tile WM×WN, STAGES; `more` follows them. The
// defaults that differ, and the most stages a lesson's kernel takes, are arguments.
inline std::vector<ParamSpec> tensor_params(int wn_default, int stages_default, std::vector<ParamSpec> more = {},
                                            int stages_max = 4) {
    std::vector<ParamSpec> specs = {
        {.name = "PREC", .kind = ParamKind::Element, .min = int(ElementType::tf32), .max = int(ElementType::f16),
         .def = int(ElementType::f16)},
        {.name = "BM", .kind = ParamKind::Pow2, .min = 16, .max = 256, .def = 128},
        {.name = "BN", .kind = ParamKind::Pow2, .min = 16, .max = 256, .def = 128},
        {.name = "BK", .kind = ParamKind::Pow2, .min = 8, .max = 64, .def = 32},
        {.name = "WM", .kind = ParamKind::Pow2, .min = 16, .max = 128, .def = 64},
        {.name = "WN", .kind = ParamKind::Pow2, .min = 16, .max = 128, .def = wn_default},
        {.name = "STAGES", .kind = ParamKind::Int, .min = 1, .max = stages_max, .def = stages_default},
    };
    specs.insert(specs.end(), more.begin(), more.end());
    return specs;
}

// What the tensor-core lessons (12 WMMA, 13 mma.sync) refuse alike, in this order: warp tiles that
// do not split the block tile, more threads than a block may have, 16-byte copies of the A and B
// tiles that the threads cannot share equally, shared memory past the block's limit (`smem_what`:
// the lesson's phrase for what its bytes are, already in the user's language) and more block rows
// than gridDim.y allows. "" when all hold.
struct TensorTiling {
    int bm = 0, bn = 0, bk = 0, wm = 0, wn = 0;
    int vec = 0;            // elements in a 16-byte copy
    int smem_bytes = 0;     // the block's dynamic shared memory
};
inline std::string tensor_tiling_reason(const TensorTiling& c, const Problem& p, const Target& t,
                                        const std::string& smem_what) {
    const int warps = (c.bm / c.wm) * (c.bn / c.wn), threads = 32 * warps;
    if (c.bm % c.wm != 0 || c.bn % c.wn != 0)
        return trf("family.matmul.model.wm_wn_must_divide", c.wm, c.wn, c.bm, c.bn);
    if (threads > t.max_threads_per_block)
        return trf("family.matmul.model.bm_wm_bn_wn", warps, threads, t.max_threads_per_block);
    const int copies_a = c.bm * c.bk / c.vec, copies_b = c.bk * c.bn / c.vec;
    if (copies_a % threads != 0 || copies_b % threads != 0)
        return trf("family.matmul.model.b_tiles_are_copies", copies_a, copies_b, threads);
    const int limit = t.smem_per_block_optin > 0 ? t.smem_per_block_optin : t.smem_per_block;
    if (c.smem_bytes > limit)
        return trf("family.matmul.model.bytes_shared_memory_more", smem_what, c.smem_bytes, t.arch_name(), limit);
    if (ceil_div(p.dim[0], c.bm) > t.max_grid_dim[1])
        return trf("family.matmul.model.m_needs_block_rows", p.dim[0], ceil_div(p.dim[0], c.bm), t.max_grid_dim[1]);
    return {};
}

// What a tensor-core lesson's block of warps shares beside its refusals: one block per BM×BN tile
// of C (grid N/BN × M/BM), 32·(BM/WM)·(BN/WN) threads, the dynamic shared memory of its stages.
inline LaunchShape tensor_launch(const TensorTiling& c, const Problem& p) {
    LaunchShape s;
    s.grid = {unsigned(ceil_div(p.dim[1], c.bn)), unsigned(ceil_div(p.dim[0], c.bm)), 1};
    s.block = {unsigned(32 * (c.bm / c.wm) * (c.bn / c.wn)), 1, 1};
    s.dynamic_smem = unsigned(c.smem_bytes);
    return s;
}

// The tile geometry both draw: block, warp and (shared-out) thread tiles over C, A and B through
// shared memory, and the instruction's fragment `mma` ({N, M, K} of one product).
inline TileGeometry tensor_tiles(const TensorTiling& c, const Problem& p, std::array<int64_t, 3> mma) {
    TileGeometry t;
    t.extent = {p.dim[1], p.dim[0], 1};
    t.block_tile = {c.bn, c.bm, 1};
    t.thread_tile = {c.wn / 4, c.wm / 8, 1};
    t.reduction = p.dim[2];
    t.k_step = c.bk;
    t.a_in_shared = t.b_in_shared = true;
    t.warp_tile = {c.wn, c.wm};
    t.mma = mma;
    return t;
}

// The counts and first formulas of both cost models: a block tile of warps, each thread's share
// of C is WM·WN/32 outputs and it reads (WM+WN)/32 shared values per k.
// `extra_stores` and `extra_loads` (totals, named by `extra`): shared traffic beyond the tiles of
// A and B, spread evenly over the blocks and threads in the per-block and per-thread figures.
inline void tensor_block_counts(CostModel& m, const TensorTiling& c, const Problem& p, const Precision& precision,
                                const SharedExtra& extra = {}, double extra_stores = 0, double extra_loads = 0) {
    const double warps = double(c.bm / c.wm) * (c.bn / c.wn), T = 32 * warps;
    const double blocks = double(ceil_div(p.dim[1], c.bn)) * double(ceil_div(p.dim[0], c.bm));
    block_tiled_counts(m, p, c.bm, c.bn, c.bk, T, double(c.wm) * c.wn / 32, double(c.wm + c.wn) / 32, precision);
    m.total.shared_stores += extra_stores, m.total.shared_loads += extra_loads;
    m.per_block.shared_stores += extra_stores / blocks, m.per_block.shared_loads += extra_loads / blocks;
    m.per_thread.shared_stores += extra_stores / (blocks * T), m.per_thread.shared_loads += extra_loads / (blocks * T);
    add_formula(m, "warps / block", "(BM/WM)·(BN/WN)", warps);
    add_formula(m, "threads / block", "32·(BM/WM)·(BN/WN)", T);
    add_block_tiled_formulas(m, blocks, "WM·WN / 32", "(WM+WN) / 32", false, extra);
}

}  // namespace tilelab::matmul
