// Warp tiling (lesson 06): the cost model and the shared-memory sites against a CPU walk of
// kernels/matmul/warp_tiled.cuh. The walk runs the kernel's loops block by block with its
// index maps, its STAGES-deep ring of shared buffers and its barrier order, counts every access
// where the instrumented kernel counts it (TL_GLOAD etc.) and every instruction it issues, and
// computes C the way the kernel does, so a wrong map or a buffer overwritten too early shows up
// as a wrong product. Counts must be exact, at random valid configurations and odd sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../../families/matmul/reference.h"
#include "lookups.h"
#include "tilelab/params.h"
#include "tilelab/variant.h"
#include "../../families/matmul/warp_tiled.h"

namespace tilelab {
namespace {

const Variant& warp_variant() { return test::registered_variant("matmul.warp_tiled"); }
using test::h100;
using test::size;

ParamValues params_of(const matmul::WarpConfig& c) {
    return {{"BM", c.bm}, {"BN", c.bn}, {"BK", c.bk}, {"WM", c.wm}, {"WN", c.wn},
            {"WNITER", c.wniter}, {"TM", c.tm}, {"TN", c.tn}, {"STAGES", c.stages}, {"MINBLOCKS", c.min_blocks}};
}

matmul::WarpConfig config(int bm, int bn, int bk, int wm, int wn, int wniter, int tm, int tn, int stages) {
    matmul::WarpConfig c;
    c.bm = bm; c.bn = bn; c.bk = bk; c.wm = wm; c.wn = wn; c.wniter = wniter; c.tm = tm; c.tn = tn; c.stages = stages;
    return c;
}

std::string describe(const matmul::WarpConfig& c, const Problem& p) {
    return matmul::warp_kernel(c).name_expression + " at " + format_problem(p);
}

using test::Matrices;
using test::max_error;
using test::random_inputs;

// What the walk saw: elements (as the counters count them) and instructions per kind.
struct Walked {
    AccessCounts elements;
    double copy_instructions = 0;        // B's cp.async (or load + store) instructions
    double a_load_instructions = 0;      // A's global loads (float4, or 4 floats where N or K % 4 ≠ 0)
    double a_store_instructions = 0;     // A's transposed 4-byte shared stores
    double shared_load_instructions = 0; // float4 fragment reads
    double global_store_instructions = 0;
    double register_accesses = 0;        // acc, a_frag, b_frag elements read or written
    bool ring_ok = true;                 // no buffer was overwritten before it was computed
};

// ---- the walk of warp_tiled_matmul<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES> ----------------
// With `in` null it only counts. Between barriers the threads run one after another: every copy
// of a step before any compute of that step, as the barrier after cp.async.wait_group guarantees.
// (The kernel stores A's slice after the compute of the step that frees its buffer; at the next
// barrier that is the same as storing it with B's copy, which is what the walk does.)
Walked walk(const matmul::WarpConfig& c, const Problem& p, const Matrices* in, std::vector<float>* out) {
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    const int T = c.threads(), S = c.stages, ld_a = c.ld_a(), ld_b = c.ld_b();
    const int wmiter = c.wmiter(), sub_m = c.sub_m(), sub_n = c.sub_n(), lanes_n = c.lanes_n();
    const int warps_n = c.bn / c.wn, rows = wmiter * c.tm, cols = c.wniter * c.tn;
    const int size_a = c.bk * ld_a, stage_floats = size_a + c.bk * ld_b;
    const bool vec = N % 4 == 0 && K % 4 == 0;
    const int64_t steps = ceil_div(K, c.bk);
    auto warp_row = [&](int t) { return ((t / 32) / warps_n) * c.wm; };
    auto warp_col = [&](int t) { return ((t / 32) % warps_n) * c.wn; };
    // 2×2 quads of lanes, the quads row-major over the step's lanes_n/2 quad columns.
    auto lane_row = [&](int t) { return (2 * ((t % 32) / 4 / (lanes_n / 2)) + (t % 4) / 2) * c.tm; };
    auto lane_col = [&](int t) { return (2 * ((t % 32) / 4 % (lanes_n / 2)) + t % 2) * c.tn; };

    Walked w;
    if (out) out->assign(size_t(M * N), std::nanf(""));
    std::vector<float> smem(size_t(S) * stage_floats, std::nanf(""));
    std::vector<float> acc(size_t(T) * rows * cols);
    std::vector<int64_t> holds(static_cast<size_t>(S));   // which slice each buffer holds (-1 none)
    std::vector<bool> computed(static_cast<size_t>(steps));

    auto load_stage = [&](int stage, int64_t slice, int64_t block_row, int64_t block_col) {
        const int64_t k0 = slice * c.bk;
        if (holds[size_t(stage)] >= 0 && !computed[size_t(holds[size_t(stage)])]) w.ring_ok = false;
        holds[size_t(stage)] = slice;
        float* as = smem.data() + size_t(stage) * stage_floats;
        float* bs = as + size_a;
        for (int tid = 0; tid < T; ++tid) {
            for (int r = 0; r < c.bm * c.bk / 4 / T; ++r) {
                const int e = tid + r * T;
                const int m = e / (c.bk / 4), k = 4 * (e % (c.bk / 4));   // 4 consecutive k of row m
                const int64_t row = block_row + m;
                for (int i = 0; i < 4; ++i) {
                    const int64_t col = k0 + k + i;
                    const bool inside = row < M && col < K;
                    as[size_t(k + i) * ld_a + m] = inside && in ? in->a[size_t(row * K + col)] : 0.f;
                    w.elements.global_loads += inside ? 1 : 0;
                }
                w.elements.shared_stores += 4;
                w.a_load_instructions += vec ? 1 : 4;
                w.a_store_instructions += 4;
            }
            const int width = vec ? 4 : 1;
            for (int r = 0; r < c.bk * c.bn / width / T; ++r) {
                const int e = tid + r * T;
                const int k = e / (c.bn / width), n = (e % (c.bn / width)) * width;
                const int64_t row = k0 + k, col = block_col + n;
                const bool inside = row < K && col < N;   // with width 4, N % 4 == 0: all 4 or none
                for (int i = 0; i < width; ++i)
                    bs[size_t(k) * ld_b + n + i] = inside && in ? in->b[size_t(row * N + col + i)] : 0.f;
                w.elements.global_loads += inside ? width : 0;
                w.elements.shared_stores += width;
                w.copy_instructions += 1;
            }
        }
    };
    auto compute_stage = [&](int stage, int64_t slice) {
        if (holds[size_t(stage)] != slice) w.ring_ok = false;
        const float* as = smem.data() + size_t(stage) * stage_floats;
        const float* bs = as + size_a;
        for (int tid = 0; tid < T; ++tid) {
            const int a0 = warp_row(tid) + lane_row(tid), b0 = warp_col(tid) + lane_col(tid);
            for (int k = 0; k < c.bk; ++k) {
                w.elements.shared_loads += rows + cols;
                w.shared_load_instructions += (rows + cols) / 4;
                w.register_accesses += rows + cols + 4.0 * rows * cols;   // fragments, then the FMAs
                if (!in) continue;
                for (int wm = 0; wm < wmiter; ++wm)
                    for (int i = 0; i < c.tm; ++i) {
                        const float a = as[size_t(k) * ld_a + a0 + wm * sub_m + i];
                        for (int wn = 0; wn < c.wniter; ++wn)
                            for (int j = 0; j < c.tn; ++j)
                                acc[(size_t(tid) * rows + wm * c.tm + i) * cols + wn * c.tn + j] +=
                                    a * bs[size_t(k) * ld_b + b0 + wn * sub_n + j];
                    }
            }
        }
        computed[size_t(slice)] = true;
    };

    for (int64_t by = 0; by < ceil_div(M, c.bm); ++by)
        for (int64_t bx = 0; bx < ceil_div(N, c.bn); ++bx) {
            const int64_t block_row = by * c.bm, block_col = bx * c.bn;
            std::fill(acc.begin(), acc.end(), 0.f);
            w.register_accesses += double(T) * rows * cols;   // acc = 0
            std::fill(holds.begin(), holds.end(), -1);
            std::fill(computed.begin(), computed.end(), false);
            for (int s = 0; s < S - 1; ++s)   // with one stage: none ahead, each slice loaded then computed
                if (s < steps) load_stage(s, s, block_row, block_col);
            for (int64_t t = 0; t < steps; ++t) {
                const int64_t next = t + S - 1;
                if (next < steps) load_stage(int(next % S), next, block_row, block_col);
                compute_stage(int(t % S), t);
            }
            for (int tid = 0; tid < T; ++tid)
                for (int wm = 0; wm < wmiter; ++wm)
                    for (int i = 0; i < c.tm; ++i) {
                        const int64_t row = block_row + warp_row(tid) + wm * sub_m + lane_row(tid) + i;
                        for (int wn = 0; wn < c.wniter; ++wn) {
                            const int64_t col0 = block_col + warp_col(tid) + wn * sub_n + lane_col(tid);
                            for (int j = 0; j < c.tn; ++j) {   // C is stored one float at a time
                                const int64_t col = col0 + j;
                                if (row >= M || col >= N) continue;
                                w.elements.global_stores += 1;
                                w.global_store_instructions += 1;
                                w.register_accesses += 1;   // acc read out
                                if (out)
                                    (*out)[size_t(row * N + col)] = acc[(size_t(tid) * rows + wm * c.tm + i) * cols + wn * c.tn + j];
                            }
                        }
                    }
        }
    return w;
}

// The walk, the model and the bank model's sites agree at `p`; C is right.
void expect_model_is_the_walk(const matmul::WarpConfig& c, const Problem& p, bool compute) {
    SCOPED_TRACE(describe(c, p));
    ASSERT_EQ(warp_variant().invalid_reason(params_of(c), p, h100()), "");
    const Matrices x = compute ? random_inputs(p, 17) : Matrices{};
    std::vector<float> out;
    const Walked w = walk(c, p, compute ? &x : nullptr, compute ? &out : nullptr);
    EXPECT_TRUE(w.ring_ok) << "a shared buffer was overwritten before its slice was computed";
    const CostModel m = warp_variant().cost_model(params_of(c), p);
    EXPECT_EQ(m.total, w.elements);
    EXPECT_EQ(test::extra_value(m, "copy instructions, total"), w.copy_instructions);
    const double threads_total = double(ceil_div(p.dim[1], c.bn) * ceil_div(p.dim[0], c.bm)) * c.threads();
    EXPECT_EQ(test::extra_value(m, "A load instructions / thread") * threads_total, w.a_load_instructions);
    EXPECT_EQ(test::extra_value(m, "A shared store instructions / thread") * threads_total, w.a_store_instructions);
    EXPECT_EQ(test::extra_value(m, "shared load instructions, total"), w.shared_load_instructions);
    EXPECT_EQ(test::extra_value(m, "register-array accesses, total"), w.register_accesses);
    EXPECT_EQ(m.flops, 2.0 * p.dim[0] * p.dim[1] * p.dim[2]);
    // The sites the bank model sees issue exactly the walked instructions and elements.
    double load_elems = 0, store_elems = 0, load_instr = 0, store_instr = 0;
    for (const SharedAccessSite& s : warp_variant().shared_sites(params_of(c), p)) {
        const double instructions = double(s.warps()) * s.instances * s.repeats;
        (s.store ? store_instr : load_instr) += instructions;
        (s.store ? store_elems : load_elems) += instructions * 32 * s.width_bytes / 4;
    }
    EXPECT_EQ(load_elems, w.elements.shared_loads);
    EXPECT_EQ(store_elems, w.elements.shared_stores);
    EXPECT_EQ(load_instr * 32, w.shared_load_instructions);
    EXPECT_EQ(store_instr * 32, w.copy_instructions + w.a_store_instructions);
    if (compute) {
        EXPECT_LT(max_error(p, x, out), 1e-4 * double(p.dim[2]) + 1e-6);
    }
}

const std::vector<matmul::WarpConfig>& fixed_configs() {
    static const std::vector<matmul::WarpConfig> configs = {
        config(128, 128, 16, 64, 32, 2, 8, 4, 3),   // the default
        config(128, 128, 16, 64, 32, 2, 8, 4, 1),   // synchronous copies
        config(128, 128, 8, 64, 64, 4, 8, 4, 4),
        config(64, 64, 8, 32, 32, 1, 8, 4, 2),      // WMITER = 1, 8×4 lanes
        config(64, 128, 32, 32, 64, 2, 4, 8, 2),
        config(32, 32, 4, 32, 32, 1, 4, 8, 3),      // one warp, BK below the 8-k copy run
        config(256, 128, 8, 64, 64, 1, 8, 8, 2),    // WMITER = 2
    };
    return configs;
}

// ============================================================================================

TEST(WarpTiledModel, TotalsAndInstructionsEqualTheWalkAtOddSizes) {
    const std::vector<Problem> sizes = {size(1, 1, 1), size(33, 17, 9), size(130, 129, 31), size(64, 64, 64),
                                        size(77, 100, 45), size(129, 132, 37)};
    for (const auto& c : fixed_configs())
        for (const Problem& p : sizes) expect_model_is_the_walk(c, p, true);
}

TEST(WarpTiledModel, RandomValidConfigurationsAtRandomOddSizes) {
    std::mt19937_64 rng(0x5A11);
    const Variant& v = warp_variant();
    int checked = 0;
    for (int attempt = 0; attempt < 20000 && checked < 16; ++attempt) {
        ParamValues pv;
        for (const ParamSpec& spec : v.params) {
            const std::vector<int> values = spec.values();
            pv[spec.name] = values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
        }
        std::uniform_int_distribution<int64_t> dim(1, 160);
        const Problem p = size(dim(rng), dim(rng), dim(rng));
        if (!v.invalid_reason(pv, p, h100()).empty()) continue;
        expect_model_is_the_walk(matmul::warp_config(pv), p, true);
        ++checked;
    }
    EXPECT_EQ(checked, 16) << "too few valid random configurations";
}

TEST(WarpTiledModel, DefaultCountsAtLargeOddSizes) {
    const matmul::WarpConfig d = matmul::warp_config(with_defaults(warp_variant().params, {}));
    expect_model_is_the_walk(d, size(515, 1037, 301), false);
    expect_model_is_the_walk(d, size(515, 1036, 300), false);
}

TEST(WarpTiledModel, ClosedFormsAt4096) {
    // 128×128 blocks: A and B each read 4096/128 = 32 times; 64 outputs per thread from 16
    // shared floats per k: 8 FLOPs per shared load, as the 8×8 thread tile of lesson 05.
    const CostModel m = warp_variant().cost_model(with_defaults(warp_variant().params, {}), size(4096, 4096, 4096));
    EXPECT_EQ(m.total.global_loads, 2.0 * 32 * 4096 * 4096);
    EXPECT_EQ(m.total.global_stores, 4096.0 * 4096);
    EXPECT_EQ(m.per_thread.shared_loads, 4096.0 * 16);
    EXPECT_EQ(m.per_thread.global_stores, 64);
    EXPECT_EQ(test::extra_value(m, "accumulator registers / thread"), 64);
    EXPECT_EQ(test::extra_value(m, "FLOPs per shared load"), 8);
    EXPECT_EQ(test::extra_value(m, "shared load instructions / thread"), 4096.0 * 4);
    // Per 16-deep slice: 128·16/4/256 = 2 float4 loads of A, stored as 8 floats, and
    // 16·128/4/256 = 2 B copies of 16 bytes.
    EXPECT_EQ(test::extra_value(m, "A load instructions / thread"), 256.0 * 2);
    EXPECT_EQ(test::extra_value(m, "A shared store instructions / thread"), 256.0 * 8);
    EXPECT_EQ(test::extra_value(m, "copy instructions / thread"), 256.0 * 2);
    EXPECT_EQ(test::extra_value(m, "dynamic shared memory (bytes)"), 2 * 16 * (132 + 128) * 4);
}

TEST(WarpTiledModel, DefaultReadsAndCopiesAreConflictFreeAndAStoresTwoWay) {
    const Variant& v = warp_variant();
    const ParamValues d = with_defaults(v.params, {});
    for (const Problem& p : {size(4096, 4096, 4096), size(1001, 1003, 999)}) {
        const BankModel b = bank_model(v.shared_sites(d, p));
        for (const BankSiteTotals& s : b.sites) {
            if (s.name.rfind("As store", 0) == 0) {
                // BK=16: 4 lanes per row of A, their k 4 apart; rows of BM+4 = 132 words put k and
                // k+8 on the same bank (8·132 = 33·32): every store takes 2 wavefronts.
                EXPECT_EQ(s.conflicts(), s.instructions) << s.name << " at " << format_problem(p);
                continue;
            }
            EXPECT_EQ(s.conflicts(), 0) << s.name << " at " << format_problem(p);
            // A float4 read is served per half-warp: 2 wavefronts is the least it can take. The
            // 2×2 quads of lanes fetch 32 bytes of A and 32 of B each, 128 per half-warp.
            if (!s.store) {
                EXPECT_EQ(s.wavefronts, 2 * s.instructions) << s.name;
            }
        }
    }
}

TEST(WarpTiledModel, AStoresAreConflictFreeAtBK8) {
    // 2 lanes per row, their k 4 apart (4·132 ≡ 16 mod 32), 16 consecutive rows: 32 banks.
    const Variant& v = warp_variant();
    const ParamValues p8 = with_defaults(v.params, {{"BK", 8}});
    for (const BankSiteTotals& s : bank_model(v.shared_sites(p8, size(1024, 1024, 1024))).sites) {
        if (s.name.rfind("As store", 0) == 0) {
            EXPECT_EQ(s.conflicts(), 0) << s.name;
        }
    }
}

TEST(WarpTiledModel, ConstraintsGiveReasons) {
    const Variant& v = warp_variant();
    const Problem square = size(1024, 1024, 1024);
    auto why = [&](const matmul::WarpConfig& c) { return v.invalid_reason(params_of(c), square, h100()); };
    EXPECT_EQ(v.invalid_reason(with_defaults(v.params, {}), square, h100()), "");
    EXPECT_EQ(v.invalid_reason(with_defaults(v.params, {}), size(1001, 999, 7), h100()), "") << "any size";
    EXPECT_EQ(why(config(128, 128, 16, 128, 32, 2, 8, 4, 3)), "") << "one warp row, WMITER = 2";
    EXPECT_NE(why(config(64, 128, 16, 128, 32, 2, 8, 4, 3)).find("WM=128 does not divide BM=64"), std::string::npos);
    EXPECT_NE(why(config(256, 256, 16, 16, 32, 1, 4, 4, 1)).find("threads per block"), std::string::npos);
    EXPECT_NE(why(config(128, 128, 16, 64, 16, 4, 8, 8, 3)).find("WNITER=4"), std::string::npos);
    EXPECT_NE(why(config(128, 128, 16, 32, 16, 1, 8, 8, 3)).find("WMITER"), std::string::npos);
    EXPECT_NE(why(config(128, 128, 16, 128, 32, 4, 4, 8, 3)).find("2×2 quads"), std::string::npos);   // 1 lane wide
    EXPECT_NE(why(config(256, 256, 16, 128, 128, 1, 16, 8, 1)).find("accumulators"), std::string::npos);
    EXPECT_NE(why(config(128, 128, 4, 32, 32, 1, 4, 8, 2)).find("equal shares"), std::string::npos);
    EXPECT_NE(why(config(256, 256, 32, 64, 64, 2, 8, 4, 4)).find("shared memory"), std::string::npos);
    matmul::WarpConfig big = config(128, 128, 32, 32, 16, 1, 4, 4, 1);   // 32 warps, 1024 threads
    EXPECT_EQ(why(big), "") << "two blocks of 1024 threads fit an H100 SM";
    const Target* t4 = find_target("t4");
    ASSERT_NE(t4, nullptr);
    EXPECT_NE(v.invalid_reason(params_of(big), square, *t4).find("an SM can hold"), std::string::npos);
    big.min_blocks = 1;
    EXPECT_EQ(v.invalid_reason(params_of(big), square, *t4), "");
}

TEST(WarpTiledModel, KernelLaunchAndSharedMemoryFollowTheParameters) {
    const Variant& v = warp_variant();
    const ParamValues d = with_defaults(v.params, {});
    EXPECT_EQ(v.kernel(d).name_expression, "warp_tiled_matmul<128, 128, 16, 64, 32, 2, 8, 4, 2, 2>");
    EXPECT_EQ(v.kernel(d).source_file, "matmul/warp_tiled.cuh");
    const LaunchShape s = v.launch(d, size(1000, 300, 7));
    EXPECT_EQ(s.grid, (std::array<unsigned, 3>{3, 8, 1}));   // ⌈300/128⌉, ⌈1000/128⌉
    EXPECT_EQ(s.threads_per_block(), 256);
    // Two stages of As[16][132] and Bs[16][128], all dynamic: 33280 bytes (three would be 49920,
    // over the 48 KB a block may declare statically).
    EXPECT_EQ(s.dynamic_smem, 33280u);
    EXPECT_EQ(v.launch(with_defaults(v.params, {{"STAGES", 3}}), size(1000, 300, 7)).dynamic_smem, 49920u);
    EXPECT_EQ(v.smem_bytes(d), 0);
    const TileGeometry t = v.tiles(d, size(1000, 300, 7));
    EXPECT_EQ(t.thread_tile[0], 8);   // WNITER·TN columns
    EXPECT_EQ(t.thread_tile[1], 8);   // WMITER·TM rows
}

}  // namespace
}  // namespace tilelab
