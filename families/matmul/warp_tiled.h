// The warp-tiled kernel (kernels/matmul/warp_tiled.cuh) on the host: parameters, constraints,
// launch, tiles, the exact cost model and the shared-memory sites for the bank model. Lesson 06
// declares its variant from these; tests/cpu/test_matmul_warp_models.cpp checks them against a
// CPU walk of the kernel.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <fmt/format.h>
#include "model.h"
#include "tilelab/banks.h"

namespace tilelab::matmul {

struct WarpConfig {
    int bm = 128, bn = 128, bk = 16;   // block tile, and the K slice of one stage
    int wm = 64, wn = 32;              // warp tile
    int wniter = 2;                    // warp steps along N (WMITER follows)
    int tm = 8, tn = 4;                // thread tile of one warp step
    int stages = 2;                    // shared buffers in the copy ring (1 = synchronous)
    int min_blocks = 2;                // __launch_bounds__ minimum blocks per SM

    int warps() const { return (bm / wm) * (bn / wn); }
    int threads() const { return 32 * warps(); }
    // WMITER·WNITER steps of 32 lanes × TM×TN cover the warp tile. 0 where they cannot.
    int wmiter() const {
        const int per_step = 32 * tm * tn * wniter;
        return per_step > 0 && (wm * wn) % per_step == 0 ? wm * wn / per_step : 0;
    }
    int sub_m() const { return wmiter() > 0 ? wm / wmiter() : 0; }   // rows of one warp step
    int sub_n() const { return wn / wniter; }                       // columns of one warp step
    int lanes_n() const { return sub_n() / tn; }
    int ld_a() const { return bm + 4; }   // As[k][m]: rows padded by 4 floats
    int ld_b() const { return bn; }
    // A's slot e (4 consecutive k of one row, as the kernel's a_slot): its row and first k.
    int a_slot_row(int e) const { return e / (bk / 4); }
    int a_slot_k(int e) const { return 4 * (e % (bk / 4)); }
    int stage_bytes() const { return 4 * bk * (ld_a() + ld_b()); }
    int dynamic_smem_bytes() const { return stages * stage_bytes(); }
    int accumulators() const { return wmiter() * tm * wniter * tn; }
};

// A lane's place in a warp step, in units of TM rows and TN columns: 2×2 quads of lanes, the quads
// row-major over the step (as the kernel computes lane_row / lane_col).
inline int warp_lane_row(const WarpConfig& c, int lane) { return 2 * ((lane / 4) / (c.lanes_n() / 2)) + (lane % 4) / 2; }
inline int warp_lane_col(const WarpConfig& c, int lane) { return 2 * ((lane / 4) % (c.lanes_n() / 2)) + lane % 2; }

// Which of the kernel's two bodies runs (its one branch): float4 loads of A and 16-byte copies of
// B where N and K are multiples of 4 (rows start on 16-byte boundaries), else 4 bytes at a time.
// (warp_tiled_matmul_exact, for multiples of the block tile, is the float4 body without checks.)
inline bool warp_vectorized(const Problem& p) { return p.dim[1] % 4 == 0 && p.dim[2] % 4 == 0; }

inline WarpConfig warp_config(const ParamReader& v) {
    const WarpConfig d;
    return {
        .bm = v.get("BM", d.bm), .bn = v.get("BN", d.bn), .bk = v.get("BK", d.bk),
        .wm = v.get("WM", d.wm), .wn = v.get("WN", d.wn), .wniter = v.get("WNITER", d.wniter),
        .tm = v.get("TM", d.tm), .tn = v.get("TN", d.tn), .stages = v.get("STAGES", d.stages),
        .min_blocks = v.get("MINBLOCKS", d.min_blocks),
    };
}

inline std::vector<ParamSpec> warp_param_specs() {
    return {
        {.name = "BM", .kind = ParamKind::Pow2, .min = 32, .max = 256, .def = 128},
        {.name = "BN", .kind = ParamKind::Pow2, .min = 32, .max = 256, .def = 128},
        {.name = "BK", .kind = ParamKind::Pow2, .min = 4, .max = 32, .def = 16},
        {.name = "WM", .kind = ParamKind::Pow2, .min = 16, .max = 128, .def = 64},
        {.name = "WN", .kind = ParamKind::Pow2, .min = 16, .max = 128, .def = 32},
        {.name = "WNITER", .kind = ParamKind::Pow2, .min = 1, .max = 4, .def = 2},
        {.name = "TM", .kind = ParamKind::Pow2, .min = 4, .max = 16, .def = 8},
        {.name = "TN", .kind = ParamKind::Pow2, .min = 4, .max = 8, .def = 4},
        {.name = "STAGES", .kind = ParamKind::Int, .min = 1, .max = 4, .def = 2},
        {.name = "MINBLOCKS", .kind = ParamKind::Int, .min = 1, .max = 2, .def = 2},
    };
}

inline std::string warp_invalid_reason(const WarpConfig& c, const Problem& p, const Target& t) {
    if (c.bm % c.wm != 0)
        return trf("family.matmul.warp_tiled.wm_does_not_divide", c.wm, c.bm);
    if (c.bn % c.wn != 0)
        return trf("family.matmul.warp_tiled.wn_does_not_divide", c.wn, c.bn);
    const int threads = c.threads();
    if (threads > t.max_threads_per_block)
        return trf("family.matmul.warp_tiled.bm_wm_bn_wn", c.warps(), threads, t.max_threads_per_block);
    if (c.wn % (c.wniter * c.tn) != 0)
        return trf("family.matmul.warp_tiled.wn_does_not_split", c.wn, c.wniter, c.tn);
    if (c.wmiter() == 0 || c.wm % c.wmiter() != 0 || c.sub_m() % c.tm != 0)
        return trf("family.matmul.warp_tiled.warp_tile_not_whole", c.wm, c.wn, c.tm, c.tn, c.wniter);
    if (c.lanes_n() < 2 || c.lanes_n() > 16)
        return trf("family.matmul.warp_tiled.warp_step_lanes_wide",
            c.lanes_n(), c.lanes_n() > 0 ? 32 / c.lanes_n() : 0);
    if (c.accumulators() > 128)
        return trf("family.matmul.warp_tiled.each_thread_would_hold", c.accumulators());
    if ((c.bm * c.bk / 4) % threads != 0)
        return trf("family.matmul.warp_tiled.tile_has_bm_bk", c.bm * c.bk / 4, threads);
    if ((c.bk * c.bn / 4) % threads != 0)
        return trf("family.matmul.warp_tiled.b_tile_has_bk", c.bk * c.bn / 4, threads);
    if (c.stages < 1 || c.stages > 4)
        return trf("family.matmul.warp_tiled.stages_must_be_1", c.stages);
    if (c.min_blocks < 1 || c.min_blocks > 2)
        return trf("family.matmul.warp_tiled.minblocks_must_be_1", c.min_blocks);
    if (int64_t(c.min_blocks) * threads > t.max_threads_per_sm)
        return trf("family.matmul.warp_tiled.minblocks_blocks_threads_threads",
            c.min_blocks, threads, int64_t(c.min_blocks) * threads, t.max_threads_per_sm);
    const int limit = t.smem_per_block_optin > 0 ? t.smem_per_block_optin : t.smem_per_block;
    if (c.dynamic_smem_bytes() > limit)
        return trf("family.matmul.warp_tiled.stages_buffers_bytes_bk",
            c.stages, c.stage_bytes(), c.dynamic_smem_bytes(), limit, t.arch_name());
    if (ceil_div(p.dim[0], c.bm) > t.max_grid_dim[1])
        return trf("family.matmul.warp_tiled.m_needs_block_rows",
            p.dim[0], ceil_div(p.dim[0], c.bm), t.max_grid_dim[1]);
    return {};
}

// Sizes that are multiples of the block tile get warp_tiled_matmul_exact, the body without bounds
// checks or zero fills (one instantiation: NVRTC compiles it faster than the two-body kernel).
inline bool warp_exact(const WarpConfig& c, const Problem& p) {
    return p.dim[0] % c.bm == 0 && p.dim[1] % c.bn == 0 && p.dim[2] % c.bk == 0;
}

inline KernelInstance warp_kernel(const WarpConfig& c, bool exact = false) {
    KernelInstance k;
    k.source_file = "matmul/warp_tiled.cuh";
    k.name_expression = fmt::format("{}<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", exact ? "warp_tiled_matmul_exact" : "warp_tiled_matmul",
                                    c.bm, c.bn, c.bk, c.wm, c.wn, c.wniter, c.tm, c.tn, c.stages, c.min_blocks);
    return k;
}

inline LaunchShape warp_launch(const WarpConfig& c, const Problem& p) {
    LaunchShape s;
    s.grid = {unsigned(ceil_div(p.dim[1], c.bn)), unsigned(ceil_div(p.dim[0], c.bm)), 1};
    s.block = {unsigned(c.threads()), 1, 1};
    s.dynamic_smem = unsigned(c.dynamic_smem_bytes());
    return s;
}

// A thread's outputs: WMITER·TM rows by WNITER·TN columns (spread over the warp tile).
inline TileGeometry warp_tiles(const WarpConfig& c, const Problem& p) {
    TileGeometry t;
    t.extent = {p.dim[1], p.dim[0], 1};
    t.block_tile = {c.bn, c.bm, 1};
    t.thread_tile = {int64_t(c.wniter) * c.tn, int64_t(c.wmiter()) * c.tm, 1};
    t.reduction = p.dim[2];
    t.k_step = c.bk;
    t.a_in_shared = t.b_in_shared = true;
    t.warp_tile = {c.wn, c.wm};
    t.warp_steps = {c.wniter, c.wmiter()};
    return t;
}

// Counts in 4-byte elements (a float4 counts 4), exact for any M, N, K: every thread issues every
// copy of every stage (out-of-range ones zero-fill shared memory and read nothing), reads
// WMITER·TM + WNITER·TN shared floats per k, and stores the outputs inside C.
inline CostModel warp_cost_model(const WarpConfig& c, const Problem& p) {
    const double M = double(p.dim[0]), N = double(p.dim[1]);
    const double bm = c.bm, bn = c.bn, bk = c.bk, T = c.threads();
    const double rows = double(c.wmiter()) * c.tm, cols = double(c.wniter) * c.tn;   // a thread's outputs
    const double gx = double(ceil_div(p.dim[1], c.bn)), gy = double(ceil_div(p.dim[0], c.bm));
    const double steps = double(ceil_div(p.dim[2], c.bk));
    const double blocks = gx * gy, kk = steps * bk;
    const bool vec = warp_vectorized(p);

    CostModel m;
    block_tiled_counts(m, p, c.bm, c.bn, c.bk, T, rows * cols, rows + cols);

    add_formula(m, "warps / block", "(BM/WM)·(BN/WN)", c.warps());
    add_formula(m, "threads / block", "32·(BM/WM)·(BN/WN)", T);
    add_formula(m, "warp steps along M (WMITER)", "WM·WN / (32·TM·TN·WNITER)", c.wmiter());
    add_block_tiled_formulas(m, blocks, "WMITER·TM·WNITER·TN", "WMITER·TM + WNITER·TN");

    // Instructions: every fragment read is a float4; A is loaded as float4 (4 floats where N or
    // K % 4 ≠ 0) and stored to shared memory one float at a time (transposed); B is copied 16 bytes
    // at a time (4 where N or K % 4 ≠ 0); C is stored one float at a time.
    const double load_a = vec ? bm * bk / 4 / T : bm * bk / T, store_a = bm * bk / T;
    const double copy_b = vec ? bk * bn / 4 / T : bk * bn / T;
    const double lds_per_thread = kk * (rows + cols) / 4;
    const double copies_per_thread = steps * copy_b;
    add_extra(m, "accumulator registers / thread", "WMITER·TM·WNITER·TN", rows * cols);
    add_extra(m, "FLOPs per shared load", "2·WMITER·TM·WNITER·TN / (WMITER·TM + WNITER·TN)", 2 * rows * cols / (rows + cols));
    add_extra(m, "shared load instructions / thread", "⌈K/BK⌉·BK·(WMITER·TM + WNITER·TN)/4 (all float4)", lds_per_thread);
    add_extra(m, "shared load bytes / thread", "4 · shared loads / thread", 4 * m.per_thread.shared_loads);
    add_extra(m, "shared load instructions, total", "blocks·threads·(shared load instructions / thread)",
              blocks * T * lds_per_thread);
    add_extra(m, "A load instructions / thread", vec ? "⌈K/BK⌉·BM·BK/4 / threads (float4)"
                                                      : "⌈K/BK⌉·BM·BK / threads (4-byte: N or K % 4 ≠ 0)",
              steps * load_a);
    add_extra(m, "A shared store instructions / thread", "⌈K/BK⌉·BM·BK / threads (4-byte, transposed)", steps * store_a);
    add_extra(m, "copy instructions / thread", vec ? "⌈K/BK⌉·BK·BN/4 / threads (B, 16-byte)"
                                                   : "⌈K/BK⌉·BK·BN / threads (B, 4-byte: N or K % 4 ≠ 0)",
              copies_per_thread);
    add_extra(m, "copy instructions, total", "blocks·threads·(copy instructions / thread)", blocks * T * copies_per_thread);
    add_extra(m, "shared bytes stored, total", "4 · shared stores, total", 4 * m.total.shared_stores);
    add_extra(m, "global bytes loaded, total", "4 · global loads, total", 4 * m.total.global_loads);
    // Register arrays: zeroing the accumulators; per k, the fragments' writes and per FMA two
    // fragment reads and the accumulator's read and write; reading out the accumulators that are
    // stored (all of them in an interior thread, one per element of C in total).
    const double reg = 2 * rows * cols + kk * (rows + cols + 4 * rows * cols);
    add_extra(m, "register-array accesses / thread",
              "2·R·S + ⌈K/BK⌉·BK·(R+S+4·R·S), R = WMITER·TM, S = WNITER·TN", reg);
    add_extra(m, "register-array accesses / block", "threads · per thread", reg * T);
    add_extra(m, "register-array accesses, total", "blocks·threads·(R·S + ⌈K/BK⌉·BK·(R+S+4·R·S)) + M·N",
              blocks * T * (reg - rows * cols) + M * N);
    add_extra(m, "dynamic shared memory (bytes)", "STAGES·BK·((BM+4) + BN)·4", c.dynamic_smem_bytes());
    return m;
}

// Every shared access site as the kernel issues it (all explicit: 4-byte transposed stores of A, 16-
// or 4-byte B copies, float4 fragment reads), per thread of the block, per block step.
inline std::vector<SharedAccessSite> warp_shared_sites(const WarpConfig& c, const Problem& p) {
    const int threads = c.threads(), ld_a = c.ld_a(), ld_b = c.ld_b();
    const int wm_iter = c.wmiter(), sub_m = c.sub_m(), sub_n = c.sub_n();
    const int warps_n = c.bn / c.wn;
    const bool vec = warp_vectorized(p);
    const double repeats = double(ceil_div(p.dim[1], c.bn)) * double(ceil_div(p.dim[0], c.bm)) *
                           double(ceil_div(p.dim[2], c.bk));
    std::vector<SharedAccessSite> out;

    SharedSiteBuilder a_store("As store (transposed)", "As[k+i][m]: word = (k+i)·(BM+4) + m, BK/4 lanes per row", true);
    for (int r = 0; r < c.bm * c.bk / 4 / threads; ++r)
        for (int i = 0; i < 4; ++i)
            a_store.run([=](int t) {
                const int e = t + r * threads;
                return int64_t(c.a_slot_k(e) + i) * ld_a + c.a_slot_row(e);
            }, 0, 1, 1);
    SharedSiteBuilder b_copy("Bs copy (cp.async)", "Bs[k][n]: word = k·BN + n", true);
    const int width = vec ? 4 : 1;
    for (int r = 0; r < c.bk * c.bn / width / threads; ++r)
        b_copy.run([=](int t) {
            const int e = t + r * threads;
            return int64_t(e / (c.bn / width)) * ld_b + (e % (c.bn / width)) * width;
        }, 0, width, width);
    if (c.stages > 1)
        b_copy.set_caveat("cp.async writes shared memory from the L1 side: Nsight Compute counts these under the "
                          "LDGSTS counters, not shared stores; the wavefronts use the store rule.");

    const auto warp_row = [=](int t) { return ((t / 32) / warps_n) * c.wm; };
    const auto warp_col = [=](int t) { return ((t / 32) % warps_n) * c.wn; };
    const auto lane_row = [=](int t) { return warp_lane_row(c, t % 32) * c.tm; };
    const auto lane_col = [=](int t) { return warp_lane_col(c, t % 32) * c.tn; };
    SharedSiteBuilder a_read("As read (a_frag)", "As[k][m]: word = k·(BM+4) + warp row + wm·WM/WMITER + lane row·TM + 4g", false);
    SharedSiteBuilder b_read("Bs read (b_frag)", "Bs[k][n]: word = k·BN + warp col + wn·WN/WNITER + lane col·TN + 4g", false);
    for (int k = 0; k < c.bk; ++k) {
        for (int w = 0; w < wm_iter; ++w)
            for (int g = 0; g < c.tm / 4; ++g)
                a_read.run([=](int t) { return int64_t(warp_row(t) + lane_row(t)); },
                           int64_t(k) * ld_a + w * sub_m + 4 * g, 4, 4);
        for (int w = 0; w < c.wniter; ++w)
            for (int g = 0; g < c.tn / 4; ++g)
                b_read.run([=](int t) { return int64_t(warp_col(t) + lane_col(t)); },
                           int64_t(k) * ld_b + w * sub_n + 4 * g, 4, 4);
    }
    for (const SharedSiteBuilder* b : {&a_store, &b_copy, &a_read, &b_read}) b->add_to(out, threads, repeats);
    return out;
}

// The warp-tiled kernel as a variant's config (lesson 06). All of its shared memory is dynamic
// (STAGES buffers may pass the 48 KB static limit), so it declares no static bytes.
struct WarpTiledVariant : WarpConfig {
    static WarpTiledVariant from(const ParamReader& p) { return {warp_config(p)}; }
    std::string invalid_reason(const Problem& p, const Target& t) const { return warp_invalid_reason(*this, p, t); }
    KernelInstance kernel() const { return warp_kernel(*this); }
    KernelInstance kernel_at(const Problem& p) const { return warp_kernel(*this, warp_exact(*this, p)); }
    LaunchShape launch(const Problem& p) const { return warp_launch(*this, p); }
    TileGeometry tiles(const Problem& p) const { return warp_tiles(*this, p); }
    CostModel cost_model(const Problem& p) const { return warp_cost_model(*this, p); }
    std::vector<SharedAccessSite> shared_sites(const Problem& p) const { return warp_shared_sites(*this, p); }
};

}  // namespace tilelab::matmul
