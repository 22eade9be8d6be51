// Stall samples on a real GPU, taken the way the app takes them (the GPU worker's PC sampling on
// launches after the timed ones): the naive matmul waits mostly on global memory, on a line of
// its own kernel file; sampling beside the counter pass leaves both working, run after run, and a
// counter pass after a sampled run without counters still reads them; a
// sampling failure never fails the run, nor does a counter pass that loses the context. (Each lesson against ncu's source page:
// scripts/check_stalls.py.) Every test skips visibly without a GPU.
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include "gpu.h"
#include "spawned_program.h"
#include "tilelab/result_json.h"
#include "tilelab/engine.h"
#include "tilelab/hardware.h"
#include "tilelab/stalls.h"

using namespace tilelab;
using tilelab::testing::shared_engine;

namespace {

RunOptions with_stalls(bool counters) {
    RunOptions o = tilelab::testing::test_run_options(0, 1, false, counters);
    o.stall_samples = true;
    return o;
}

}  // namespace

// Lesson 1's lesson point, measured on an H200 (67 % global memory, docs/benchmarks.md): most
// samples wait for the loads, and they sit on lines of matmul/naive.cuh.
TEST(StallsGpu, TheNaiveMatmulWaitsMostlyOnGlobalMemoryInItsOwnFile) {
    TILELAB_REQUIRE_GPU();
    const RunResult r = shared_engine().run({"matmul.naive", {}, Problem{{1024, 1024, 1024}}}, with_stalls(false));
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.stalls.status, stall_status::ok) << r.stalls.reason;
    EXPECT_GT(r.stalls.total, 10000u);
    EXPECT_EQ(r.stalls.counts.top(), StallGroup::global_memory);
    ASSERT_FALSE(r.stalls.lines.empty());
    EXPECT_TRUE(stall_file_matches(r.stalls.lines.front().file, r.kernel_file)) << r.stalls.lines.front().file;
    EXPECT_GT(r.stages.stalls_ms, 0);
    // With the toolkit's disassembler on this machine, every sampled instruction has its text, and
    // the global-memory waits are on the instructions after the loads (an FFMA reading a loaded value).
    if (::access("/usr/local/cuda/bin/nvdisasm", X_OK) == 0) {
        ASSERT_FALSE(r.stalls.pcs.empty());
        for (const StallPc& pc : r.stalls.pcs) EXPECT_NE(pc.sass, "") << "offset 0x" << std::hex << pc.offset;
    }
}

// The range profiler cannot start while sampling is enabled: the worker disables sampling before
// the counter pass and enables it again for the next run. Three runs in a row keep both.
TEST(StallsGpu, SamplesAndCountersTogetherRunAfterRun) {
    TILELAB_REQUIRE_GPU();
    for (int tile : {8, 16, 32}) {
        const RunResult r = shared_engine().run({"matmul.smem_tiled", {{"TILE", tile}, {"PAD", 0}}, Problem{{512, 512, 512}}},
                                                with_stalls(true));
        ASSERT_TRUE(r.ok) << r.error;
        EXPECT_EQ(r.stalls.status, stall_status::ok) << "TILE=" << tile << ": " << r.stalls.reason;
        EXPECT_EQ(r.hardware.status, hardware_status::ok) << "TILE=" << tile << ": " << r.hardware.reason;
    }
}

// A sampled run without counters leaves sampling enabled; a later run that reads counters (and
// does not sample) still gets them: the counter pass disables sampling whoever enabled it. (In the
// GPU suite's third shard on an H200, 2026-11-30, every counter test after the naive matmul's
// sampled run failed with CUPTI_ERROR_INVALID_PARAMETER before this.)
TEST(StallsGpu, CountersAfterASampledRunWithoutThem) {
    TILELAB_REQUIRE_GPU();
    const RunRequest naive{"matmul.naive", {}, Problem{{256, 256, 256}}};
    const RunResult sampled = shared_engine().run(naive, with_stalls(false));
    ASSERT_TRUE(sampled.ok) << sampled.error;
    ASSERT_EQ(sampled.stalls.status, stall_status::ok) << sampled.stalls.reason;
    const RunResult counted = shared_engine().run(naive, tilelab::testing::test_run_options(0, 1, false, true));
    ASSERT_TRUE(counted.ok) << counted.error;
    EXPECT_EQ(counted.hardware.status, hardware_status::ok) << counted.hardware.reason;
    EXPECT_GE(counted.hardware.passes, 1);
}

// Not asked (the quick protocol, the CLI without --stalls): nothing sampled, nothing spent.
TEST(StallsGpu, ARunThatDoesNotAskIsNotSampled) {
    TILELAB_REQUIRE_GPU();
    const RunResult r = shared_engine().run({"matmul.smem_tiled", {{"TILE", 16}, {"PAD", 0}}, Problem{{512, 512, 512}}},
                                            quick_protocol(with_stalls(false)));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.stalls.status, stall_status::skipped);
    EXPECT_EQ(r.stages.stalls_ms, 0);
}

// With the period check (TILELAB_PC_SAMPLING_CHECK=1, through the CLI and its worker), the naive
// matmul is sampled at two periods, whose shares agree: no third period, no sentence.
TEST(StallsGpu, TheNaiveMatmulsTwoPeriodsAgree) {
    TILELAB_REQUIRE_GPU();
    const auto dir = std::filesystem::temp_directory_path() / ("tilelab_stall_periods_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto r = tilelab::test::spawn(tilelab::test::cli_path(),
                                        {"run", "matmul.naive", "--size", "1024", "--stalls", "--no-hardware", "--json"},
                                        {"TILELAB_PC_SAMPLING_CHECK=1"}, 300, dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const StallSamples s = nlohmann::json::parse(r.out).at("stalls").get<StallSamples>();
    ASSERT_EQ(s.status, stall_status::ok) << s.reason;
    EXPECT_EQ(s.last_period_log2, s.period_log2 + 1);
    EXPECT_EQ(s.left_out_period_log2, 0);
    EXPECT_LE(s.period_spread, kStallPeriodPoints);
    EXPECT_EQ(s.reason, "");
    std::filesystem::remove_all(dir);
}

// A counter pass that loses the GPU's context (simulated: TILELAB_SIMULATE_LOST_CONTEXT_IN=counters
// makes the worker's counter stage throw a sticky CUDA error, as cudaMalloc did on an H100,
// 2026-12-05) keeps the run's validated time and samples; the worker starts afresh, and the engine
// asks for counters no more this session: the next full run says "off" and why, with no restart.
TEST(StallsGpu, ACounterPassThatLosesTheContextKeepsTheRunAndTurnsCountersOff) {
    TILELAB_REQUIRE_GPU();
    ::setenv("TILELAB_SIMULATE_LOST_CONTEXT_IN", "counters", 1);
    EngineConfig cfg;
    cfg.own_worker = true;
    Engine engine(cfg);
    const RunRequest naive{"matmul.naive", {}, Problem{{256, 256, 256}}};
    const RunResult first = engine.run(naive, with_stalls(true));
    ::unsetenv("TILELAB_SIMULATE_LOST_CONTEXT_IN");   // the worker that follows would not simulate
    ASSERT_TRUE(first.ok) << first.stage << ": " << first.error;
    EXPECT_TRUE(first.measured);
    EXPECT_TRUE(first.validation.passed);
    EXPECT_EQ(first.stalls.status, stall_status::ok) << first.stalls.reason;
    EXPECT_EQ(first.hardware.status, hardware_status::error);
    EXPECT_NE(first.hardware.reason.find("context was lost"), std::string::npos) << first.hardware.reason;
    EXPECT_EQ(first.error, "");
    const RunResult second = engine.run(naive, with_stalls(true));
    ASSERT_TRUE(second.ok) << second.stage << ": " << second.error;
    EXPECT_TRUE(second.measured);
    EXPECT_EQ(second.hardware.status, hardware_status::off);
    EXPECT_NE(second.hardware.reason.find("context was lost"), std::string::npos) << second.hardware.reason;
    EXPECT_EQ(second.hardware.passes, 0);
    EXPECT_EQ(second.stalls.status, stall_status::ok) << second.stalls.reason;
}
