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

inline std::string register_2d_invalid_reason(const Register2dConfig& c, const Problem& p,
                                              const Target& t) {
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    if (c.bm % c.tm != 0)
        return say("TM={} does not divide BM={}: the block's rows must split evenly into thread tiles.", "TM={} 不整除 BM={}：线程块的行必须能平均分成线程分块。", c.tm, c.bm);
    if (c.bn % c.tn != 0)
        return say("TN={} does not divide BN={}: the block's columns must split evenly into thread tiles.", "TN={} 不整除 BN={}：线程块的列必须能平均分成线程分块。", c.tn, c.bn);
    const int threads = c.threads();
    if (threads > t.max_threads_per_block)
        return say("(BM/TM)·(BN/TN) = {} threads per block is more than the {} a block may have.", "(BM/TM)·(BN/TN) = 每个线程块 {} 个线程，超过了线程块允许的 {} 个。", threads,
                           t.max_threads_per_block);
    if ((c.bm * c.bk) % threads != 0)
        return say("The A tile has BM·BK = {} elements, which {} threads cannot load in equal shares: make BM·BK a multiple of the thread count.", "A 分块有 BM·BK = {} 个元素，{} 个线程无法平均分担加载：让 BM·BK 成为线程数的倍数。",
                           c.bm * c.bk, threads);
    if ((c.bk * c.bn) % threads != 0)
        return say("The B tile has BK·BN = {} elements, which {} threads cannot load in equal shares: make BK·BN a multiple of the thread count.", "B 分块有 BK·BN = {} 个元素，{} 个线程无法平均分担加载：让 BK·BN 成为线程数的倍数。",
                           c.bk * c.bn, threads);
    if (c.float4_loads) {
        if (c.bk % 4 != 0)
            return say("float4 loads of A read 4 consecutive k, so BK must be a multiple of 4 (BK={}).", "A 的 float4 加载读取 4 个连续的 k，所以 BK 必须是 4 的倍数（BK={}）。", c.bk);
        if ((c.bm * c.bk / 4) % threads != 0 || (c.bk * c.bn / 4) % threads != 0)
            return say("With float4 loads each thread must load whole float4s: the A and B tiles hold {} and {} float4s for {} threads.", "使用 float4 加载时每个线程必须加载完整的 float4：A 和 B 分块分别有 {} 和 {} 个 float4，而线程有 {} 个。",
                               c.bm * c.bk / 4, c.bk * c.bn / 4, threads);
        if (K % 4 != 0)
            return say("float4 loads of A need each row of A to start on a 16-byte boundary, so K must be a multiple of 4 (K={}); turn FLOAT4 off for this size.", "A 的 float4 加载要求 A 的每一行从 16 字节边界开始，所以 K 必须是 4 的倍数（K={}）；这个规模请关闭 FLOAT4。", K);
        if (N % 4 != 0)
            return say("float4 loads of B and stores of C need each row to start on a 16-byte boundary, so N must be a multiple of 4 (N={}); turn FLOAT4 off for this size.", "B 的 float4 加载和 C 的 float4 写回要求每一行从 16 字节边界开始，所以 N 必须是 4 的倍数（N={}）；这个规模请关闭 FLOAT4。", N);
    }
    if (c.smem_bytes() > t.smem_per_block)
        return say("The tiles need {} bytes of static shared memory, more than the {} a block may declare.", "这些分块需要 {} 字节静态共享内存，超过了一个线程块可声明的 {} 字节。", c.smem_bytes(),
                           t.smem_per_block);
    if (ceil_div(M, c.bm) > t.max_grid_dim[1])
        return say("M={} needs {} block rows, more than the {} gridDim.y allows: raise BM.", "M={} 需要 {} 行线程块，超过了 gridDim.y 允许的 {}：请增大 BM。", M, ceil_div(M, c.bm),
                           t.max_grid_dim[1]);
    if (c.unroll < 0 || c.unroll > 2) return say("UNROLL={} must be 0, 1 or 2.", "UNROLL={} 只能是 0、1 或 2。", c.unroll);
    if (c.max_registers != 0 && (c.max_registers < 32 || c.max_registers > t.max_regs_per_thread))
        return say("MAXREG={} must be 0 (no cap) or between 32 and {}, the most registers a thread may have.", "MAXREG={} 必须是 0（不限制），或在 32 到 {}（一个线程最多可用的寄存器数）之间。", c.max_registers,
                           t.max_regs_per_thread);
    if (c.max_registers != 0 && c.min_blocks != 0)
        return say("ptxas ignores -maxrregcount for a kernel with __launch_bounds__: set either MAXREG or MINBLOCKS, not both.",
                   "带 __launch_bounds__ 的内核会让 ptxas 忽略 -maxrregcount：MAXREG 和 MINBLOCKS 只能设一个。");
    if (c.min_blocks != 0) {
        if (c.min_blocks > t.max_blocks_per_sm)
            return say("MINBLOCKS={} asks for more blocks per SM than the {} an SM can hold.", "MINBLOCKS={} 要求的每 SM 线程块数超过了一个 SM 能容纳的 {} 个。", c.min_blocks, t.max_blocks_per_sm);
        if (int64_t(c.min_blocks) * threads > t.max_threads_per_sm)
            return say("MINBLOCKS={} blocks of {} threads is {} threads, more than the {} an SM can hold.", "MINBLOCKS={} 个线程块、每块 {} 个线程，共 {} 个线程，超过了一个 SM 能容纳的 {} 个。", c.min_blocks, threads,
                               int64_t(c.min_blocks) * threads, t.max_threads_per_sm);
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
