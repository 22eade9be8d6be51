// Shared by the register-tiling lessons (03 1D, 04 2D, 05 registers/spills/occupancy): the 2D
// kernel's parameters, constraints, launch shape and cost model, declared once and used by the
// 2D variant and by the register-pressure variant, which compiles the same kernel.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <fmt/format.h>
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab::matmul {

inline void add_formula(CostModel& m, std::string quantity, std::string expression, double value) {
    m.formulas.push_back({std::move(quantity), std::move(expression), value});
}
inline void add_extra(CostModel& m, std::string quantity, std::string expression, double value) {
    m.extras.push_back({std::move(quantity), std::move(expression), value});
}

// Fills the fields every matmul cost model derives the same way.
inline void finish_cost_model(CostModel& m, const Problem& p) {
    const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
    m.flops = 2 * M * N * K;
    m.global_bytes = 4 * (m.total.global_loads + m.total.global_stores);
    m.intensity = m.global_bytes > 0 ? m.flops / m.global_bytes : 0;
    m.compulsory_bytes = 4 * (M * K + K * N + M * N);
}

// ---- the 2D register-tiled kernel (kernels/matmul/04_register_tiled_2d.cuh) -----------------

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

inline Register2dConfig register_2d_config(const ParamValues& v) {
    Register2dConfig c;
    auto get = [&](const char* name, int fallback) {
        auto it = v.find(name);
        return it == v.end() ? fallback : it->second;
    };
    c.bm = get("BM", c.bm);
    c.bn = get("BN", c.bn);
    c.bk = get("BK", c.bk);
    c.tm = get("TM", c.tm);
    c.tn = get("TN", c.tn);
    c.float4_loads = get("FLOAT4", c.float4_loads);
    c.transpose_a = get("TRANSPOSE_A", c.transpose_a);
    c.pad = get("PAD", c.pad);
    c.double_buffer = get("DBUF", c.double_buffer);
    c.unroll = get("UNROLL", c.unroll);
    c.max_registers = get("MAXREG", c.max_registers);
    c.min_blocks = get("MINBLOCKS", c.min_blocks);
    return c;
}

inline std::vector<ParamSpec> register_2d_param_specs() {
    return {
        {"BM", "Block tile rows (BM)", ParamKind::Pow2, 16, 256, 1, 128,
         "Rows of C per block: larger reuses each B element more, but needs more threads or a larger thread tile."},
        {"BN", "Block tile columns (BN)", ParamKind::Pow2, 16, 256, 1, 128,
         "Columns of C per block: larger reuses each A element more, at the same costs as BM."},
        {"BK", "K step (BK)", ParamKind::Pow2, 1, 64, 1, 8,
         "Depth of each shared tile: larger means fewer barriers per FMA but more shared memory."},
        {"TM", "Thread tile rows (TM)", ParamKind::Pow2, 1, 16, 1, 8,
         "Rows of C per thread: each A value read from shared memory feeds TN FMAs, at TM·TN accumulator registers."},
        {"TN", "Thread tile columns (TN)", ParamKind::Pow2, 1, 16, 1, 8,
         "Columns of C per thread: each B value read from shared memory feeds TM FMAs, at TM·TN accumulator registers."},
        {"FLOAT4", "float4 global loads", ParamKind::Bool, 0, 1, 1, 1,
         "Load A and B (and store C) 16 bytes at a time: a quarter of the load instructions; needs K and N multiples of 4."},
        {"TRANSPOSE_A", "A transposed in shared memory", ParamKind::Bool, 0, 1, 1, 1,
         "Store the A tile as As[k][m] so a thread's TM values of A are contiguous (float4 reads, no strided conflicts)."},
        {"PAD", "Shared-memory padding", ParamKind::Int, 0, 8, 1, 4,
         "Floats added to each shared row: shifts rows across banks; a multiple of 4 keeps float4 reads aligned."},
        {"DBUF", "Prefetch next tile (double buffer)", ParamKind::Bool, 0, 1, 1, 1,
         "Load the next tiles into registers while computing on the current ones: hides global latency for 2× shared memory."},
    };
}

inline std::vector<ParamSpec> register_pressure_param_specs() {
    std::vector<ParamSpec> specs = register_2d_param_specs();
    specs.push_back({"MAXREG", "Register cap (-maxrregcount)", ParamKind::Int, 0, 255, 1, 0,
                     "0 = no cap; 32..255 caps registers per thread: more blocks fit per SM, but what does not fit spills to local memory."});
    specs.push_back({"MINBLOCKS", "__launch_bounds__ min blocks/SM", ParamKind::Int, 0, 32, 1, 0,
                     "0 = no launch bounds; n asks ptxas to fit n blocks per SM, capping registers at about regs/SM ÷ (n·threads)."});
    specs.push_back({"UNROLL", "Loop unrolling", ParamKind::Int, 0, 2, 1, 2,
                     "2 = every loop unrolled; 1 = the k loop kept rolled; 0 = nothing unrolled, so the register arrays move to local memory."});
    return specs;
}

inline std::string register_2d_invalid_reason(const Register2dConfig& c, const Problem& p,
                                              const Target& t) {
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    if (c.bm % c.tm != 0)
        return fmt::format("TM={} does not divide BM={}: the block's rows must split evenly into thread tiles.", c.tm, c.bm);
    if (c.bn % c.tn != 0)
        return fmt::format("TN={} does not divide BN={}: the block's columns must split evenly into thread tiles.", c.tn, c.bn);
    const int threads = c.threads();
    if (threads > t.max_threads_per_block)
        return fmt::format("(BM/TM)·(BN/TN) = {} threads per block is more than the {} a block may have.", threads,
                           t.max_threads_per_block);
    if ((c.bm * c.bk) % threads != 0)
        return fmt::format("The A tile has BM·BK = {} elements, which {} threads cannot load in equal shares: make BM·BK a multiple of the thread count.",
                           c.bm * c.bk, threads);
    if ((c.bk * c.bn) % threads != 0)
        return fmt::format("The B tile has BK·BN = {} elements, which {} threads cannot load in equal shares: make BK·BN a multiple of the thread count.",
                           c.bk * c.bn, threads);
    if (c.float4_loads) {
        if (c.bk % 4 != 0)
            return fmt::format("float4 loads of A read 4 consecutive k, so BK must be a multiple of 4 (BK={}).", c.bk);
        if ((c.bm * c.bk / 4) % threads != 0 || (c.bk * c.bn / 4) % threads != 0)
            return fmt::format("With float4 loads each thread must load whole float4s: the A and B tiles hold {} and {} float4s for {} threads.",
                               c.bm * c.bk / 4, c.bk * c.bn / 4, threads);
        if (K % 4 != 0)
            return fmt::format("float4 loads of A need each row of A to start on a 16-byte boundary, so K must be a multiple of 4 (K={}); turn FLOAT4 off for this size.", K);
        if (N % 4 != 0)
            return fmt::format("float4 loads of B and stores of C need each row to start on a 16-byte boundary, so N must be a multiple of 4 (N={}); turn FLOAT4 off for this size.", N);
    }
    if (c.smem_bytes() > t.smem_per_block)
        return fmt::format("The tiles need {} bytes of static shared memory, more than the {} a block may declare.", c.smem_bytes(),
                           t.smem_per_block);
    if (ceil_div(M, c.bm) > t.max_grid_dim[1])
        return fmt::format("M={} needs {} block rows, more than the {} gridDim.y allows: raise BM.", M, ceil_div(M, c.bm),
                           t.max_grid_dim[1]);
    if (c.unroll < 0 || c.unroll > 2) return fmt::format("UNROLL={} must be 0, 1 or 2.", c.unroll);
    if (c.max_registers != 0 && (c.max_registers < 32 || c.max_registers > t.max_regs_per_thread))
        return fmt::format("MAXREG={} must be 0 (no cap) or between 32 and {}, the most registers a thread may have.", c.max_registers,
                           t.max_regs_per_thread);
    if (c.max_registers != 0 && c.min_blocks != 0)
        return "ptxas ignores -maxrregcount for a kernel with __launch_bounds__: set either MAXREG or MINBLOCKS, not both.";
    if (c.min_blocks != 0) {
        if (c.min_blocks > t.max_blocks_per_sm)
            return fmt::format("MINBLOCKS={} asks for more blocks per SM than the {} an SM can hold.", c.min_blocks, t.max_blocks_per_sm);
        if (int64_t(c.min_blocks) * threads > t.max_threads_per_sm)
            return fmt::format("MINBLOCKS={} blocks of {} threads is {} threads, more than the {} an SM can hold.", c.min_blocks, threads,
                               int64_t(c.min_blocks) * threads, t.max_threads_per_sm);
    }
    return {};
}

inline KernelInstance register_2d_kernel(const Register2dConfig& c) {
    KernelInstance k;
    k.source_file = "matmul/04_register_tiled_2d.cuh";
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
    const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
    const double bm = c.bm, bn = c.bn, bk = c.bk, tm = c.tm, tn = c.tn, T = c.threads();
    const double gx = double(ceil_div(p.dim[1], c.bn)), gy = double(ceil_div(p.dim[0], c.bm));
    const double steps = double(ceil_div(p.dim[2], c.bk));
    const double blocks = gx * gy;

    CostModel m;
    // A full interior block reads its BM rows of A and BN columns of B once each.
    m.per_block.global_loads = K * (bm + bn);
    m.per_block.global_stores = bm * bn;
    m.per_block.shared_stores = steps * bk * (bm + bn);
    m.per_block.shared_loads = T * steps * bk * (tm + tn);
    m.per_thread.global_loads = m.per_block.global_loads / T;
    m.per_thread.global_stores = tm * tn;
    m.per_thread.shared_stores = m.per_block.shared_stores / T;
    m.per_thread.shared_loads = steps * bk * (tm + tn);
    // Each element of A is read once per block column, each element of B once per block row.
    m.total.global_loads = M * K * gx + K * N * gy;
    m.total.global_stores = M * N;
    m.total.shared_stores = blocks * m.per_block.shared_stores;
    m.total.shared_loads = blocks * m.per_block.shared_loads;
    finish_cost_model(m, p);

    const double kk = steps * bk;  // k values a thread walks, K rounded up to a multiple of BK
    add_formula(m, "threads / block", "(BM/TM)·(BN/TN)", T);
    add_formula(m, "blocks", "⌈N/BN⌉·⌈M/BM⌉", blocks);
    add_formula(m, "global loads / thread", "K·(BM+BN) / threads", m.per_thread.global_loads);
    add_formula(m, "global stores / thread", "TM·TN", m.per_thread.global_stores);
    add_formula(m, "shared stores / thread", "⌈K/BK⌉·BK·(BM+BN) / threads", m.per_thread.shared_stores);
    add_formula(m, "shared loads / thread", "⌈K/BK⌉·BK·(TM+TN)", m.per_thread.shared_loads);
    add_formula(m, "global loads, total", "M·K·⌈N/BN⌉ + K·N·⌈M/BM⌉", m.total.global_loads);
    add_formula(m, "global stores, total", "M·N", m.total.global_stores);
    add_formula(m, "shared stores, total", "blocks·⌈K/BK⌉·BK·(BM+BN)", m.total.shared_stores);
    add_formula(m, "shared loads, total", "blocks·threads·⌈K/BK⌉·BK·(TM+TN)", m.total.shared_loads);
    add_formula(m, "FLOPs", "2·M·N·K", m.flops);
    add_formula(m, "arithmetic intensity (FLOP/B)", "2·M·N·K / (4·(global loads + stores))", m.intensity);

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

// The 2D kernel's constraints, instantiation, launch, tiles, cost model and shared memory, wired into a
// variant; lessons 05 and 06 both compile this kernel and differ only in their parameters.
inline void set_register_2d_functions(Variant& v) {
    v.invalid_reason = [](const ParamValues& pv, const Problem& p, const Target& t) {
        return register_2d_invalid_reason(register_2d_config(pv), p, t);
    };
    v.kernel = [](const ParamValues& pv) { return register_2d_kernel(register_2d_config(pv)); };
    v.launch = [](const ParamValues& pv, const Problem& p) { return register_2d_launch(register_2d_config(pv), p); };
    v.tiles = [](const ParamValues& pv, const Problem& p) { return register_2d_tiles(register_2d_config(pv), p); };
    v.cost_model = [](const ParamValues& pv, const Problem& p) {
        return register_2d_cost_model(register_2d_config(pv), p);
    };
    v.smem_bytes = [](const ParamValues& pv) { return register_2d_config(pv).smem_bytes(); };
}

}  // namespace tilelab::matmul
