// The 2D register-tiled kernel (kernels/matmul/register_2d.cuh) on the host: its parameters,
// constraints, launch shape and cost model, declared once and used by lesson 05 (matmul.register_2d)
// and lesson 07 (matmul.register_pressure), which compiles the same kernel. Its shared-memory
// sites and the variant's config type are register_2d_banks.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <fmt/format.h>
#include "model.h"

namespace tilelab::matmul {

struct Register2dConfig {
    int bm = 128, bn = 128, bk = 8, tm = 8, tn = 8;
    int float4_loads = 1, transpose_a = 1, pad = 4, double_buffer = 1;
    int unroll = 2;       // 2 all loops, 1 all but the k loop, 0 none (register-pressure lesson)
    int max_registers = 0;  // -maxrregcount, 0 = none
    int min_blocks = 0;     // __launch_bounds__ minimum blocks per SM, 0 = no launch bounds

    int threads() const { return (bm / tm) * (bn / tn); }
    // Static shared memory of the kernel, in bytes.
    int smem_bytes() const {
        const int a = transpose_a ? bk * (bm + pad) : bm * (bk + pad);
        const int b = bk * (bn + pad);
        return (double_buffer ? 2 : 1) * (a + b) * 4;
    }
};

// The values of a request, read with the defaults above for what a variant does not declare
// (lesson 05 has no MAXREG, MINBLOCKS or UNROLL).
inline Register2dConfig register_2d_config(const ParamReader& v) {
    const Register2dConfig d;
    return {
        .bm = v.get("BM", d.bm), .bn = v.get("BN", d.bn), .bk = v.get("BK", d.bk),
        .tm = v.get("TM", d.tm), .tn = v.get("TN", d.tn),
        .float4_loads = v.get("FLOAT4", d.float4_loads), .transpose_a = v.get("TRANSPOSE_A", d.transpose_a),
        .pad = v.get("PAD", d.pad), .double_buffer = v.get("DBUF", d.double_buffer),
        .unroll = v.get("UNROLL", d.unroll), .max_registers = v.get("MAXREG", d.max_registers),
        .min_blocks = v.get("MINBLOCKS", d.min_blocks),
    };
}

inline std::vector<ParamSpec> register_2d_param_specs() {
    return {
        {.name = "BM", .kind = ParamKind::Pow2, .min = 16, .max = 256, .def = 128},
        {.name = "BN", .kind = ParamKind::Pow2, .min = 16, .max = 256, .def = 128},
        {.name = "BK", .kind = ParamKind::Pow2, .min = 1, .max = 64, .def = 8},
        {.name = "TM", .kind = ParamKind::Pow2, .min = 1, .max = 16, .def = 8},
        {.name = "TN", .kind = ParamKind::Pow2, .min = 1, .max = 16, .def = 8},
        {.name = "FLOAT4", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 1},
        {.name = "TRANSPOSE_A", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 1},
        {.name = "PAD", .kind = ParamKind::Int, .min = 0, .max = 8, .def = 4},
        {.name = "DBUF", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 1},
    };
}

inline std::vector<ParamSpec> register_pressure_param_specs() {
    std::vector<ParamSpec> specs = register_2d_param_specs();
    specs.push_back({.name = "MAXREG", .kind = ParamKind::Int, .min = 0, .max = 255, .def = 0});
    specs.push_back({.name = "MINBLOCKS", .kind = ParamKind::Int, .min = 0, .max = 32, .def = 0});
    specs.push_back({.name = "UNROLL", .kind = ParamKind::Int, .min = 0, .max = 2, .def = 2});
    return specs;
}

// The most values one thread may copy into the shared tiles per k-tile (register_2d_invalid_reason).
inline constexpr int kMaxCopiesPerThread = 256;

inline std::string register_2d_invalid_reason(const Register2dConfig& c, const Problem& p,
                                              const Target& t) {
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    if (c.bm % c.tm != 0)
        return trf("family.matmul.register_2d.tm_does_not_divide", c.tm, c.bm);
    if (c.bn % c.tn != 0)
        return trf("family.matmul.register_2d.tn_does_not_divide", c.tn, c.bn);
    const int threads = c.threads();
    if (threads > t.max_threads_per_block)
        return trf("family.matmul.register_2d.bm_tm_bn_tn", threads, t.max_threads_per_block);
    if ((c.bm * c.bk) % threads != 0)
        return trf("family.matmul.register_2d.tile_has_bm_bk", c.bm * c.bk, threads);
    if ((c.bk * c.bn) % threads != 0)
        return trf("family.matmul.register_2d.b_tile_has_bk", c.bk * c.bn, threads);
    // Each thread copies (BM + BN)·BK / threads values per k-tile, one unrolled load each. Past
    // kMaxCopiesPerThread NVRTC takes minutes to compile the kernel (measured with CUDA 13.0: one
    // thread per block at BK = 32 did not finish in 100 s, with or without DBUF; 256 copies took
    // 9 s), and with DBUF the copied values, held in registers, could not fit a thread's 255.
    if (const int copies = (c.bm + c.bn) * c.bk / threads; copies > kMaxCopiesPerThread)
        return trf("family.matmul.register_2d.copies_per_thread", c.bm, c.bn, c.bk, threads, copies, kMaxCopiesPerThread);
    if (c.float4_loads) {
        if (c.bk % 4 != 0)
            return trf("family.matmul.register_2d.float4_loads_read_4", c.bk);
        if ((c.bm * c.bk / 4) % threads != 0 || (c.bk * c.bn / 4) % threads != 0)
            return trf("family.matmul.register_2d.with_float4_loads_each", c.bm * c.bk / 4, c.bk * c.bn / 4, threads);
        if (K % 4 != 0)
            return trf("family.matmul.register_2d.float4_loads_need_each", K);
        if (N % 4 != 0)
            return trf("family.matmul.register_2d.float4_loads_b_stores", N);
    }
    if (c.smem_bytes() > t.smem_per_block)
        return trf("family.matmul.register_2d.tiles_need_bytes_static", c.smem_bytes(), t.smem_per_block);
    if (ceil_div(M, c.bm) > t.max_grid_dim[1])
        return trf("family.matmul.register_2d.m_needs_block_rows", M, ceil_div(M, c.bm), t.max_grid_dim[1]);
    if (c.unroll < 0 || c.unroll > 2) return trf("family.matmul.register_2d.unroll_must_be_0", c.unroll);
    if (c.max_registers != 0 && (c.max_registers < 32 || c.max_registers > t.max_regs_per_thread))
        return trf("family.matmul.register_2d.maxreg_must_be_0", c.max_registers, t.max_regs_per_thread);
    if (c.max_registers != 0 && c.min_blocks != 0)
        return tr("family.matmul.register_2d.ptxas_ignores_maxrregcount_for");
    if (c.min_blocks != 0) {
        if (c.min_blocks > t.max_blocks_per_sm)
            return trf("family.matmul.register_2d.minblocks_asks_for_more", c.min_blocks, t.max_blocks_per_sm);
        if (int64_t(c.min_blocks) * threads > t.max_threads_per_sm)
            return trf("family.matmul.register_2d.minblocks_blocks_threads_threads",
                c.min_blocks, threads, int64_t(c.min_blocks) * threads, t.max_threads_per_sm);
    }
    return {};
}

inline KernelInstance register_2d_kernel(const Register2dConfig& c) {
    KernelInstance k;
    k.source_file = "matmul/register_2d.cuh";
    const std::string args = fmt::format("{}, {}, {}, {}, {}, {}, {}, {}, {}, {}", c.bm, c.bn, c.bk, c.tm, c.tn,
                                         c.float4_loads, c.transpose_a, c.pad, c.double_buffer, c.unroll);
    k.name_expression = c.min_blocks > 0
                            ? fmt::format("register_2d_matmul_bounded<{}, {}>", args, c.min_blocks)
                            : fmt::format("register_2d_matmul<{}>", args);
    k.max_registers = c.max_registers;
    return k;
}

inline LaunchShape register_2d_launch(const Register2dConfig& c, const Problem& p) {
    LaunchShape s;
    s.grid = {unsigned(ceil_div(p.dim[1], c.bn)), unsigned(ceil_div(p.dim[0], c.bm)), 1};
    s.block = {unsigned(c.threads()), 1, 1};
    return s;
}

// A BM×BN tile of C per block, TM×TN per thread; each k-step stages BM×BK of A and BK×BN of B in
// shared memory.
inline TileGeometry register_2d_tiles(const Register2dConfig& c, const Problem& p) {
    TileGeometry t;
    t.extent = {p.dim[1], p.dim[0], 1};
    t.block_tile = {c.bn, c.bm, 1};
    t.thread_tile = {c.tn, c.tm, 1};
    t.reduction = p.dim[2];
    t.k_step = c.bk;
    t.a_in_shared = t.b_in_shared = true;
    return t;
}

// Counts in 4-byte elements. Totals are exact for any M, N, K: out-of-range elements are not
// loaded, every block still stores whole (zero-padded) tiles to shared memory and every thread
// still reads TM + TN shared values per k.
inline CostModel register_2d_cost_model(const Register2dConfig& c, const Problem& p) {
    const double bk = c.bk, tm = c.tm, tn = c.tn, T = c.threads();
    const double gx = double(ceil_div(p.dim[1], c.bn)), gy = double(ceil_div(p.dim[0], c.bm));
    const double steps = double(ceil_div(p.dim[2], c.bk));
    const double blocks = gx * gy;

    CostModel m;
    block_tiled_counts(m, p, c.bm, c.bn, c.bk, T, double(tm) * tn, double(tm) + tn);

    const double kk = steps * bk;  // k values a thread walks, K rounded up to a multiple of BK
    add_formula(m, "threads / block", "(BM/TM)·(BN/TN)", T);
    add_block_tiled_formulas(m, blocks, "TM·TN", "TM+TN");

    // Register arrays: per k, TM + TN fragment writes, 2·TM·TN fragment reads by the FMAs and
    // TM·TN accumulator reads and writes; plus zeroing and writing out the accumulators.
    const double reg_per_thread = 2 * tm * tn + kk * (tm + tn + 4 * tm * tn);
    add_extra(m, "accumulator registers / thread", "TM·TN", tm * tn);
    add_extra(m, "register-array accesses / thread", "2·TM·TN + ⌈K/BK⌉·BK·(TM+TN+4·TM·TN)", reg_per_thread);
    add_extra(m, "register-array accesses / block", "threads · per thread", reg_per_thread * T);
    add_extra(m, "register-array accesses, total", "blocks · threads · per thread", reg_per_thread * T * blocks);
    add_extra(m, "FLOPs per shared load", "2·TM·TN / (TM+TN)", 2 * tm * tn / (tm + tn));
    add_extra(m, "static shared memory (bytes)", "stages·(A tile + B tile)·4, rows padded by PAD",
              c.smem_bytes());
    return m;
}

}  // namespace tilelab::matmul
