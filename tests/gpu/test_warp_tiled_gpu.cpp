// What lesson 06 asks the student to predict, checked on a real GPU: the warp-tiled kernel is
// right at sizes that divide nothing (zero-filled cp.async tails, scalar copies where N % 4 != 0),
// the instrumented build counts exactly what the model says at every STAGES and several warp
// shapes, and STAGES changes the time but not the counts. (Random configurations of every
// variant are in test_engine_gpu.cpp.) Every test skips visibly where there is no GPU.
#include <fmt/format.h>
#include <iostream>
#include <string>
#include <vector>
#include "gpu.h"
#include "warm_compile.h"

using namespace tilelab;
using tilelab::testing::shared_engine;

namespace {

const char* kVariant = "matmul.warp_tiled";

std::string describe(const ParamValues& params, const Problem& p) {
    std::string s;
    for (const auto& [name, value] : params) s += fmt::format("{}={} ", name, value);
    return s + "at " + format_problem(p);
}

// Runs once with counting on; insists on a validated result before anyone reads a number.
RunResult run_counted(const ParamValues& params, const Problem& p) {
    RunOptions o = tilelab::testing::test_run_options(0, 1, /*count=*/true);
    o.flush_l2 = false;
    const RunResult r = shared_engine().run({kVariant, params, p}, o);
    const std::string what = describe(params, p);
    EXPECT_TRUE(r.ok) << what << ": " << r.stage << ": " << r.error;
    EXPECT_TRUE(r.measured) << what << ": " << r.no_gpu_reason;
    EXPECT_TRUE(r.validation.checked && r.validation.passed) << what << ": " << r.validation.message;
    return r;
}

void expect_counted_is_model(const RunResult& r, const std::string& what) {
    ASSERT_TRUE(r.counted) << what << ": the instrumented build did not run";
    EXPECT_EQ(r.counted->global_loads, r.model.total.global_loads) << what;
    EXPECT_EQ(r.counted->global_stores, r.model.total.global_stores) << what;
    EXPECT_EQ(r.counted->shared_loads, r.model.total.shared_loads) << what;
    EXPECT_EQ(r.counted->shared_stores, r.model.total.shared_stores) << what;
}

}  // namespace

TEST(WarpTiledGpu, ValidatesAndCountsExactlyAtOddSizes) {
    TILELAB_REQUIRE_GPU();
    const std::vector<ParamValues> shapes = {
        {},                                                                   // the defaults (STAGES=3)
        {{"STAGES", 1}}, {{"STAGES", 2}}, {{"STAGES", 4}},
        {{"WNITER", 1}},                                                      // WMITER = 2
        {{"MINBLOCKS", 1}},                                                   // no register cap
        {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"WM", 32}, {"WN", 32}, {"WNITER", 1}, {"STAGES", 2}},
        {{"BM", 256}, {"BN", 128}, {"BK", 8}, {"WM", 64}, {"WN", 64}, {"WNITER", 1}, {"TN", 8}, {"STAGES", 2}},
        {{"BM", 32}, {"BN", 32}, {"BK", 4}, {"WM", 32}, {"WN", 32}, {"WNITER", 1}, {"TM", 4}, {"TN", 8}},
    };
    // Odd everything (scalar B copies and C stores), N % 4 == 0 with odd M and K (16-byte copies
    // with zero-filled tails), a single element, and K shorter than one slice.
    const std::vector<Problem> sizes = {Problem{{1001, 999, 1003}}, Problem{{257, 260, 131}}, Problem{{1, 1, 1}},
                                        Problem{{129, 132, 3}}, Problem{{640, 384, 1024}}};
    std::vector<RunRequest> requests;
    for (const ParamValues& overrides : shapes)
        for (const Problem& p : sizes) requests.push_back({kVariant, with_defaults(find_variant(kVariant)->params, overrides), p});
    tilelab::testing::warm_compile_cache(shared_engine(), requests, /*counted=*/true);   // the exact-size kernels differ by size
    for (const ParamValues& overrides : shapes) {
        const ParamValues params = with_defaults(find_variant(kVariant)->params, overrides);
        for (const Problem& p : sizes) {
            const std::string what = describe(params, p);
            const std::string why = shared_engine().invalid_reason({kVariant, params, p});
            ASSERT_EQ(why, "") << what;
            const RunResult r = run_counted(params, p);
            if (!r.ok) continue;
            expect_counted_is_model(r, what);
        }
    }
}

TEST(WarpTiledGpu, StagesChangeTheTimeNotTheCounts) {
    TILELAB_REQUIRE_GPU();
    const Problem p{{2048, 2048, 2048}};
    std::vector<AccessCounts> counted;
    std::string times;
    for (int stages = 1; stages <= 4; ++stages) {
        const ParamValues params = with_defaults(find_variant(kVariant)->params, {{"STAGES", stages}});
        const RunResult r = shared_engine().run({kVariant, params, p}, tilelab::testing::test_run_options(1, 5, true));
        ASSERT_TRUE(r.ok) << describe(params, p) << ": " << r.error;
        ASSERT_TRUE(r.validation.checked && r.validation.passed) << r.validation.message;
        ASSERT_TRUE(r.counted);
        counted.push_back(*r.counted);
        times += fmt::format(" STAGES={}: {:.3f} ms", stages, r.timing.median_ms);
    }
    for (size_t i = 1; i < counted.size(); ++i) EXPECT_EQ(counted[i], counted[0]) << "STAGES=" << i + 1;
    std::cout << "[   INFO   ] warp-tiled at 2048³:" << times << "\n";
}
