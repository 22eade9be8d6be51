// What lessons 1 and 2 ask the student to predict, checked on a real GPU: swapping the naive
// mapping costs time but no accesses; doubling the tile halves the counted global loads; the tiled
// kernel beats the naive one. (Validation and model == counted for every variant at random sizes
// are in test_engine_gpu.cpp.) Every test skips visibly where there is no GPU.
#include <string>
#include "gpu.h"

using namespace tilelab;
using tilelab::testing::shared_engine;

namespace {

RunOptions timed(bool count) { return tilelab::testing::test_run_options(1, 5, count); }

// Runs and insists the result is valid before anyone reads a number from it.
RunResult run_valid(const std::string& variant, const ParamValues& params, int64_t n, bool count) {
    const RunResult r = shared_engine().run({variant, params, Problem{{n, n, n}}}, timed(count));
    EXPECT_TRUE(r.ok) << variant << ": " << r.stage << ": " << r.error;
    EXPECT_TRUE(r.measured) << r.no_gpu_reason;
    EXPECT_TRUE(r.validation.checked && r.validation.passed) << variant << ": " << r.validation.message;
    return r;
}

}  // namespace

TEST(MatmulGpu, SwappingTheNaiveMappingCostsTimeNotAccesses) {
    TILELAB_REQUIRE_GPU();
    const int64_t n = 2048;
    const RunResult coalesced = run_valid("matmul.naive", {{"BX", 16}, {"BY", 16}, {"SWAP", 0}}, n, true);
    const RunResult strided = run_valid("matmul.naive", {{"BX", 16}, {"BY", 16}, {"SWAP", 1}}, n, true);
    ASSERT_TRUE(coalesced.counted && strided.counted);
    EXPECT_EQ(*coalesced.counted, *strided.counted) << "the same loop, the same accesses";
    // Lesson 1 asks the student to predict a slowdown: 16 lanes on 16 different rows of A need
    // 16 sectors per load instead of a few. Demand a clear margin, not a rounding difference.
    EXPECT_GT(strided.timing.median_ms, 1.5 * coalesced.timing.median_ms)
        << "SWAP=0 " << coalesced.timing.median_ms << " ms, SWAP=1 " << strided.timing.median_ms << " ms";
}

TEST(MatmulGpu, DoublingTheTileHalvesTheCountedGlobalLoads) {
    TILELAB_REQUIRE_GPU();
    const int64_t n = 1024;
    double previous = 0;
    for (int tile : {8, 16, 32}) {
        const RunResult r = run_valid("matmul.smem_tiled", {{"TILE", tile}, {"PAD", 0}}, n, true);
        ASSERT_TRUE(r.counted) << "TILE=" << tile;
        EXPECT_EQ(r.counted->global_loads, 2.0 * n * n * n / tile) << "TILE=" << tile;
        if (previous > 0) {
            EXPECT_EQ(r.counted->global_loads * 2, previous) << "TILE=" << tile;
        }
        previous = r.counted->global_loads;
    }
}

TEST(MatmulGpu, Tiled32IsFasterThanNaive16x16) {
    TILELAB_REQUIRE_GPU();
    const int64_t n = 2048;
    const RunResult naive = run_valid("matmul.naive", {{"BX", 16}, {"BY", 16}, {"SWAP", 0}}, n, false);
    const RunResult tiled = run_valid("matmul.smem_tiled", {{"TILE", 32}, {"PAD", 0}}, n, false);
    EXPECT_LT(tiled.timing.median_ms, naive.timing.median_ms)
        << "naive " << naive.timing.median_ms << " ms, tiled " << tiled.timing.median_ms << " ms";
}
