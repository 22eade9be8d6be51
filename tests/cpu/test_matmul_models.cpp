// The cost models of the first two matmul lessons, checked the way the lessons tell them:
// closed forms against the seeds' numbers, and exact totals at any size against a CPU walk of the
// kernels' own loop structure (every block, every thread, every k-tile), which is what the
// instrumented GPU build counts. The GPU then confirms model == counted (test_engine_gpu.cpp).
#include <gtest/gtest.h>
#include "test_target.h"
#include <string>
#include <vector>
#include "tilelab/compile.h"
#include "tilelab/variant.h"

using namespace tilelab;

namespace {

const Variant& naive() {
    const Variant* v = find_variant("matmul.naive");
    EXPECT_NE(v, nullptr);
    return *v;
}

const Variant& tiled() {
    const Variant* v = find_variant("matmul.smem_tiled");
    EXPECT_NE(v, nullptr);
    return *v;
}

Problem size(int64_t m, int64_t n, int64_t k) { return Problem{{m, n, k}}; }

using tilelab::testing::test_target;

// What one launch of kernels/matmul/naive.cuh issues, thread by thread, plus how many times
// each element of C is written (must be exactly once).
struct Walk {
    AccessCounts counts;
    std::vector<int> writes;   // per element of C
    AccessCounts first_thread, first_block;

    // What thread (tx, ty) of block (bx, by) issued, `t`, added where it counts.
    void add(const AccessCounts& t, unsigned bx, unsigned by, unsigned tx, unsigned ty) {
        const auto plus = [&t](AccessCounts& c) {
            c.global_loads += t.global_loads;
            c.global_stores += t.global_stores;
            c.shared_loads += t.shared_loads;
            c.shared_stores += t.shared_stores;
        };
        plus(counts);
        if (bx != 0 || by != 0) return;
        plus(first_block);
        if (tx == 0 && ty == 0) first_thread = t;
    }
};

Walk walk_naive(const Variant& v, const ParamValues& p, const Problem& pr) {
    const int M = int(pr.dim[0]), N = int(pr.dim[1]), K = int(pr.dim[2]);
    const int BX = p.at("BX"), BY = p.at("BY"), SWAP = p.at("SWAP");
    const LaunchShape ls = v.launch(p, pr);
    Walk w;
    w.writes.assign(size_t(M) * N, 0);
    for (unsigned by = 0; by < ls.grid[1]; ++by)
        for (unsigned bx = 0; bx < ls.grid[0]; ++bx)
            for (unsigned ty = 0; ty < ls.block[1]; ++ty)
                for (unsigned tx = 0; tx < ls.block[0]; ++tx) {
                    const int along_x = int(bx) * BX + int(tx), along_y = int(by) * BY + int(ty);
                    const int col = SWAP ? along_y : along_x, row = SWAP ? along_x : along_y;
                    if (row >= M || col >= N) continue;   // the kernel returns here
                    AccessCounts t;
                    for (int k = 0; k < K; ++k) t.global_loads += 2;   // A[row][k], B[k][col]
                    t.global_stores += 1;
                    ++w.writes[size_t(row) * N + col];
                    w.add(t, bx, by, tx, ty);
                }
    return w;
}

// The same for kernels/matmul/smem_tiled.cuh: loads only in range, every thread fills the
// tiles and runs the T-step inner loop, stores only in range.
Walk walk_tiled(const Variant& v, const ParamValues& p, const Problem& pr) {
    const int M = int(pr.dim[0]), N = int(pr.dim[1]), K = int(pr.dim[2]);
    const int T = p.at("TILE");
    const LaunchShape ls = v.launch(p, pr);
    EXPECT_EQ(ls.block[0], unsigned(T));
    EXPECT_EQ(ls.block[1], unsigned(T));
    const int k_tiles = (K + T - 1) / T;
    Walk w;
    w.writes.assign(size_t(M) * N, 0);
    for (unsigned by = 0; by < ls.grid[1]; ++by)
        for (unsigned bx = 0; bx < ls.grid[0]; ++bx)
            for (int ty = 0; ty < T; ++ty)
                for (int tx = 0; tx < T; ++tx) {
                    const int row = int(by) * T + ty, col = int(bx) * T + tx;
                    AccessCounts t;
                    for (int kt = 0; kt < k_tiles; ++kt) {
                        if (row < M && kt * T + tx < K) t.global_loads += 1;   // A element
                        if (kt * T + ty < K && col < N) t.global_loads += 1;   // B element
                        t.shared_stores += 2;                                   // both tiles
                        for (int k = 0; k < T; ++k) t.shared_loads += 2;        // a_tile, b_tile
                    }
                    if (row < M && col < N) {
                        t.global_stores += 1;
                        ++w.writes[size_t(row) * N + col];
                    }
                    w.add(t, bx, by, tx, ty);
                }
    return w;
}

void expect_each_output_written_once(const Walk& w) {
    for (size_t i = 0; i < w.writes.size(); ++i)
        ASSERT_EQ(w.writes[i], 1) << "element " << i << " of C";
}

// Sizes that are multiples of nothing in particular, plus edge cases: 1×1×1, K=1, thin C.
const std::vector<Problem> kOddSizes = {size(1, 1, 1),   size(5, 7, 3),    size(33, 17, 65),
                                        size(100, 37, 50), size(64, 64, 64), size(31, 96, 1),
                                        size(130, 3, 47),  size(1, 70, 9)};

}  // namespace

// ---- naive ---------------------------------------------------------------------------------

TEST(MatmulNaiveModel, IssuesTwoKPlusOneGlobalAccessesPerThread) {
    // Seed 002: square N, each thread 2N loads and 1 store.
    const CostModel m = naive().cost_model(with_defaults(naive().params, {}), size(1024, 1024, 1024));
    EXPECT_EQ(m.per_thread.global_loads, 2 * 1024);
    EXPECT_EQ(m.per_thread.global_stores, 1);
    EXPECT_EQ(m.per_thread.global_loads + m.per_thread.global_stores, 2 * 1024 + 1);
    EXPECT_EQ(m.per_thread.shared_loads + m.per_thread.shared_stores, 0) << "naive uses no shared memory";
    // The per-thread count depends on K only, not on M or N.
    const CostModel rect = naive().cost_model(with_defaults(naive().params, {}), size(300, 5000, 77));
    EXPECT_EQ(rect.per_thread.global_loads + rect.per_thread.global_stores, 2 * 77 + 1);
}

TEST(MatmulNaiveModel, ReadsEachAElementNTimesAndEachBElementMTimes) {
    const CostModel m = naive().cost_model(with_defaults(naive().params, {}), size(256, 512, 128));
    EXPECT_EQ(m.total.global_loads, 2.0 * 256 * 512 * 128);
    EXPECT_EQ(m.total.global_stores, 256.0 * 512);
    EXPECT_EQ(m.flops, 2.0 * 256 * 512 * 128);
    EXPECT_EQ(m.compulsory_bytes, 4.0 * (256 * 128 + 128 * 512 + 256 * 512));
    // One FLOP pair per two 4-byte loads: intensity just under 1/4 FLOP per byte.
    EXPECT_LT(m.intensity, 0.25);
    EXPECT_GT(m.intensity, 0.249);
}

TEST(MatmulNaiveModel, AsksForAbout683TimesTheCompulsoryTrafficAt1024) {
    // Lesson 1 quotes this ratio: 4·(2·N³ + N²) / (4·3·N²) = (2·N + 1) / 3 = 683 at N = 1024.
    const CostModel m = naive().cost_model(with_defaults(naive().params, {}), size(1024, 1024, 1024));
    EXPECT_EQ(m.global_bytes / m.compulsory_bytes, 683);
}

TEST(MatmulNaiveModel, TotalsEqualAWalkOfTheKernelAtAnySize) {
    for (int swap : {0, 1})
        for (auto [bx, by] : std::vector<std::pair<int, int>>{{1, 1}, {4, 8}, {16, 16}, {32, 1}, {8, 32}})
            for (const Problem& pr : kOddSizes) {
                const ParamValues p = with_defaults(naive().params, {{"BX", bx}, {"BY", by}, {"SWAP", swap}});
                SCOPED_TRACE(naive().kernel(p).name_expression + " at " + format_problem(pr));
                const Walk w = walk_naive(naive(), p, pr);
                expect_each_output_written_once(w);
                EXPECT_EQ(naive().cost_model(p, pr).total, w.counts);
            }
}

TEST(MatmulNaiveModel, SwapChangesTheMappingNotTheCounts) {
    const Problem pr = size(96, 40, 24);
    const ParamValues coalesced = with_defaults(naive().params, {{"SWAP", 0}});
    const ParamValues strided = with_defaults(naive().params, {{"SWAP", 1}});
    EXPECT_EQ(naive().cost_model(coalesced, pr).total, naive().cost_model(strided, pr).total);
    EXPECT_NE(naive().kernel(coalesced).name_expression, naive().kernel(strided).name_expression);
    // With SWAP the grid's x axis follows the rows of C.
    EXPECT_EQ(naive().launch(strided, pr).grid[0], unsigned((96 + 15) / 16));
    EXPECT_EQ(naive().launch(coalesced, pr).grid[0], unsigned((40 + 15) / 16));
}

TEST(MatmulNaiveModel, NamesTheKernelItCompiles) {
    const ParamValues p = with_defaults(naive().params, {{"BX", 32}, {"BY", 8}, {"SWAP", 1}});
    const KernelInstance k = naive().kernel(p);
    EXPECT_EQ(k.source_file, "matmul/naive.cuh");
    EXPECT_EQ(k.name_expression, "naive_matmul<32, 8, 1>");
    EXPECT_EQ(naive().smem_bytes(p), 0);
}

TEST(MatmulNaiveModel, RefusesABlockOverTheThreadLimitWithASentence) {
    const ParamValues p = with_defaults(naive().params, {{"BX", 64}, {"BY", 32}});
    const std::string why = naive().invalid_reason(p, size(1024, 1024, 1024), test_target());
    EXPECT_NE(why.find("64×32 block has 2048 threads"), std::string::npos) << why;
    EXPECT_NE(why.find("1024 per block"), std::string::npos) << why;
    EXPECT_EQ(why.back(), '.');
    // 32×32 is exactly the limit and runs.
    EXPECT_EQ(naive().invalid_reason(with_defaults(naive().params, {{"BX", 32}, {"BY", 32}}),
                                     size(1024, 1024, 1024), test_target()),
              "");
}

TEST(MatmulNaiveModel, RefusesAGridTooTallWithASentence) {
    // One row per block along y: 100000 rows need 100000 blocks, over the grid's y limit.
    const ParamValues p = with_defaults(naive().params, {{"BX", 256}, {"BY", 1}});
    const std::string why = naive().invalid_reason(p, size(100000, 64, 8), test_target());
    EXPECT_NE(why.find("100000 blocks along y"), std::string::npos) << why;
    // Swapped, the rows go along x, which has room.
    EXPECT_EQ(naive().invalid_reason(with_defaults(naive().params, {{"BX", 256}, {"BY", 1}, {"SWAP", 1}}),
                                     size(100000, 64, 8), test_target()),
              "");
}

// ---- shared-memory tiled ---------------------------------------------------------------------

TEST(MatmulTiledModel, Tiled32LoadsEachAElementNOver32Times) {
    const ParamValues p = with_defaults(tiled().params, {{"TILE", 32}});
    const int64_t n = 1024;
    const CostModel m = tiled().cost_model(p, size(n, n, n));
    auto extra = [&](const std::string& q) {
        for (const Formula& f : m.extras)
            if (f.quantity == q) return f.value;
        ADD_FAILURE() << "no extra named " << q;
        return 0.0;
    };
    EXPECT_EQ(extra("loads of each A element"), n / 32);
    EXPECT_EQ(extra("loads of each B element"), n / 32);
    // Per thread: one A and one B element per k-tile, N/32 k-tiles.
    EXPECT_EQ(m.per_thread.global_loads, 2 * n / 32);
    EXPECT_EQ(m.per_thread.global_stores, 1);
    // ... and 2·32 shared reads per k-tile: 2·N in all, as many as naive's global loads.
    EXPECT_EQ(m.per_thread.shared_loads, 2 * n);
}

TEST(MatmulTiledModel, TotalGlobalLoadsAre2MNKOverTileWhenTheTileDivides) {
    // Seed 004: 2·M·N·K/TILE global loads in total.
    for (int tile : tiled().params[0].values()) {
        const int64_t lcm = 3360;   // lcm(4, 8, 12, ..., 32): every tile size divides it
        const int64_t M = lcm, N = 2 * lcm, K = 3 * lcm;
        const CostModel m = tiled().cost_model(with_defaults(tiled().params, {{"TILE", tile}}), size(M, N, K));
        EXPECT_EQ(m.total.global_loads, 2.0 * M * N * K / tile) << "TILE=" << tile;
        EXPECT_EQ(m.total.global_stores, double(M * N));
    }
    // Square seed case: N=4096, TILE=32.
    const CostModel m = tiled().cost_model(with_defaults(tiled().params, {{"TILE", 32}}), size(4096, 4096, 4096));
    EXPECT_EQ(m.total.global_loads, 2.0 * 4096 * 4096 * 4096 / 32);
}

TEST(MatmulTiledModel, DoublingTheTileHalvesGlobalLoads) {
    const Problem pr = size(2048, 2048, 2048);
    double previous = 0;
    for (int tile : {4, 8, 16, 32}) {
        const CostModel m = tiled().cost_model(with_defaults(tiled().params, {{"TILE", tile}}), pr);
        if (previous > 0) {
            EXPECT_EQ(m.total.global_loads * 2, previous) << "TILE=" << tile;
        }
        previous = m.total.global_loads;
        // ... while intensity grows like T/4 FLOP per byte (a little under: C is written too).
        EXPECT_LT(m.intensity, tile / 4.0);
        EXPECT_GT(m.intensity, tile / 4.0 * 0.95);
    }
}

TEST(MatmulTiledModel, BoundaryTotalsEqualAWalkOfTheKernelAtAnySize) {
    for (int tile : tiled().params[0].values())
        for (int pad : {0, 1})
            for (const Problem& pr : kOddSizes) {
                const ParamValues p = with_defaults(tiled().params, {{"TILE", tile}, {"PAD", pad}});
                SCOPED_TRACE(tiled().kernel(p).name_expression + " at " + format_problem(pr));
                const Walk w = walk_tiled(tiled(), p, pr);
                expect_each_output_written_once(w);
                const CostModel m = tiled().cost_model(p, pr);
                EXPECT_EQ(m.total, w.counts);
                // Where tile (0,0) lies wholly inside C, the per-thread and per-block figures are
                // exactly what its first thread and the whole block issue.
                if (pr.dim[0] >= tile && pr.dim[1] >= tile) {
                    EXPECT_EQ(m.per_thread, w.first_thread);
                    EXPECT_EQ(m.per_block, w.first_block);
                }
            }
}

TEST(MatmulTiledModel, AtNonMultiplesEachElementIsLoadedOncePerBlockRowOrColumn) {
    // M=100, N=37, K=50, T=16: ⌈37/16⌉ = 3 block columns read all of A, ⌈100/16⌉ = 7 block rows all of B.
    const CostModel m = tiled().cost_model(with_defaults(tiled().params, {{"TILE", 16}}), size(100, 37, 50));
    EXPECT_EQ(m.total.global_loads, 100.0 * 50 * 3 + 50.0 * 37 * 7);
    EXPECT_GT(m.total.global_loads, 2.0 * 100 * 37 * 50 / 16) << "partial tiles cost more than 2MNK/T";
}

TEST(MatmulTiledModel, PadCostsSharedMemoryNotAccesses) {
    const Problem pr = size(512, 512, 512);
    const ParamValues plain = with_defaults(tiled().params, {{"TILE", 32}, {"PAD", 0}});
    const ParamValues padded = with_defaults(tiled().params, {{"TILE", 32}, {"PAD", 1}});
    EXPECT_EQ(tiled().smem_bytes(plain), 2 * 32 * 32 * 4);
    EXPECT_EQ(tiled().smem_bytes(padded), 2 * 32 * 33 * 4);
    EXPECT_EQ(tiled().cost_model(plain, pr).total, tiled().cost_model(padded, pr).total);
    EXPECT_EQ(tiled().kernel(padded).source_file, "matmul/smem_tiled.cuh");
    EXPECT_EQ(tiled().kernel(padded).name_expression, "smem_tiled_matmul<32, 1>");
}

TEST(MatmulTiledModel, RefusesTilesTheTargetCannotHoldWithASentence) {
    // A hypothetical part with 256 threads per block and 4 KB of shared memory per block.
    Target small = test_target();
    small.name = "small GPU";
    small.max_threads_per_block = 256;
    small.smem_per_block = 4096;
    const Problem pr = size(1024, 1024, 1024);
    std::string why = tiled().invalid_reason(with_defaults(tiled().params, {{"TILE", 32}}), pr, small);
    EXPECT_NE(why.find("32×32 tile needs 1024 threads"), std::string::npos) << why;
    EXPECT_NE(why.find("256 per block"), std::string::npos) << why;
    // 16×16 fits the threads; padded, its tiles take 2·16·17·4 = 2176 bytes: fits. 4 KB stops 24×24.
    EXPECT_EQ(tiled().invalid_reason(with_defaults(tiled().params, {{"TILE", 16}, {"PAD", 1}}), pr, small), "");
    small.max_threads_per_block = 1024;
    why = tiled().invalid_reason(with_defaults(tiled().params, {{"TILE", 24}}), pr, small);
    EXPECT_NE(why.find("4608 bytes of shared memory"), std::string::npos) << why;
    EXPECT_NE(why.find("small GPU allows 4096 per block"), std::string::npos) << why;
}

// ---- both ------------------------------------------------------------------------------------

TEST(MatmulVariants, DefaultsAreInRangeAndRunnable) {
    for (const Variant* v : {&naive(), &tiled()}) {
        SCOPED_TRACE(v->id);
        EXPECT_EQ(v->family, "matmul");
        ASSERT_FALSE(v->params.empty());
        for (const ParamSpec& spec : v->params) {
            EXPECT_EQ(spec.range_reason(spec.def), "") << spec.name;
            EXPECT_FALSE(spec.help.empty()) << spec.name;
            EXPECT_FALSE(spec.label.empty()) << spec.name;
        }
        const ParamValues defaults = with_defaults(v->params, {});
        EXPECT_EQ(v->invalid_reason(defaults, size(4096, 4096, 4096), test_target()), "");
        const CostModel m = v->cost_model(defaults, size(4096, 4096, 4096));
        EXPECT_EQ(m.global_bytes, 4 * (m.total.global_loads + m.total.global_stores));
        EXPECT_DOUBLE_EQ(m.intensity, m.flops / m.global_bytes);
        EXPECT_FALSE(m.formulas.empty());
    }
}

TEST(MatmulVariants, TilingTradesSharedMemoryForFewerGlobalLoads) {
    // The headline of lesson 2: at N=1024, naive loads 2N³ floats; tiled 32×32 loads 2N³/32.
    const Problem pr = size(1024, 1024, 1024);
    const double naive_loads = naive().cost_model(with_defaults(naive().params, {}), pr).total.global_loads;
    const double tiled_loads =
        tiled().cost_model(with_defaults(tiled().params, {{"TILE", 32}}), pr).total.global_loads;
    EXPECT_EQ(naive_loads / tiled_loads, 32);
}

TEST(MatmulVariants, FormulaValuesMatchTheFiguresTheyExplain) {
    for (const Variant* v : {&naive(), &tiled()}) {
        const CostModel m = v->cost_model(with_defaults(v->params, {}), size(300, 200, 100));
        const std::vector<std::pair<std::string, double>> shown = {
            {"FLOPs", m.flops},
            {"global loads / thread", m.per_thread.global_loads},
            {"global loads (total)", m.total.global_loads},
            {"global stores (total)", m.total.global_stores},
            {"global bytes", m.global_bytes},
            {"arithmetic intensity (FLOP/B)", m.intensity},
            {"compulsory bytes", m.compulsory_bytes},
        };
        for (const auto& [quantity, value] : shown) {
            SCOPED_TRACE(v->id + ": " + quantity);
            int found = 0;
            for (const Formula& f : m.formulas) {
                if (f.quantity != quantity) continue;
                ++found;
                EXPECT_FALSE(f.expression.empty());
                EXPECT_EQ(f.value, value);
            }
            EXPECT_EQ(found, 1);
        }
    }
}

TEST(MatmulTiledCompile, EveryTileSizeCompilesWithTheSharedMemoryItDeclares) {
    // Non-power-of-two tiles (12, 20, 28) included: the slider offers them, so NVRTC must take them.
    CompileService service("");
    for (int tile : tiled().params[0].values())
        for (int pad : {0, 1}) {
            const ParamValues p = with_defaults(tiled().params, {{"TILE", tile}, {"PAD", pad}});
            const KernelInstance k = tiled().kernel(p);
            SCOPED_TRACE(k.name_expression);
            const auto r = service.compile({k.source_file, k.name_expression, 90, 0, {"TILELAB_COUNT=1"}});
            ASSERT_TRUE(r->ok) << r->error << "\n" << r->log;
            EXPECT_EQ(r->ptxas.smem_bytes, tiled().smem_bytes(p)) << r->log;
        }
}
