// The GPU's context lost in a full run's counter pass or sampling (seen on an H100, 2026-12-05):
// through the real engine and client, with the fake worker playing the worker that reports it
// (fake_gpu_worker --lose-context-in STAGE, as runner_gpu.cpp's profile_stages does). The run
// keeps its time, the worker starts afresh once, and later full runs leave that stage out and say
// why, instead of losing the context again every time.
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include "helpers.h"
#include "spawned_program.h"
#include "tilelab/engine.h"
#include "tilelab/hardware.h"
#include "tilelab/stalls.h"

namespace tilelab {
namespace {

struct LostScratch : test::Scratch {
    LostScratch() : test::Scratch("lost-context") {}
    std::string log() const { return (dir / "runs.log").string(); }
    int runs() const {
        std::istringstream in(test::slurp(log()));
        int n = 0;
        for (std::string line; std::getline(in, line);) ++n;
        return n;
    }
};

RunOptions full_run() {
    RunOptions o;
    o.count_accesses = false;
    o.time_reference = false;
    o.hardware_counters = true;
    o.stall_samples = true;
    return o;
}

// Three full runs on a fake GPU that loses its context in `stage`: results for each.
std::vector<RunResult> three_runs(const LostScratch& s, const std::string& stage) {
    EngineConfig cfg;
    cfg.own_worker = true;
    cfg.gpu.command = test::helper_path(test::kFakeGpuWorkerHelper) + " --stdio --count 1 --ms 1 --log " + s.log() +
                      " --lose-context-in " + stage;
    Engine engine(cfg);
    EXPECT_TRUE(engine.device().gpu) << engine.device().reason;
    std::vector<RunResult> out;
    for (int i = 0; i < 3; ++i) out.push_back(engine.run({"matmul.naive", {}, Problem{{64 + 32 * i, 64, 64}}}, full_run()));
    return out;
}

}  // namespace

TEST(LostContext, ACounterPassThatLosesItKeepsTheRunAndIsLeftOutAfterwards) {
    LostScratch s;
    const std::vector<RunResult> r = three_runs(s, "counters");
    for (const RunResult& x : r) {
        ASSERT_TRUE(x.ok) << x.stage << ": " << x.error;
        EXPECT_TRUE(x.measured);
        EXPECT_EQ(x.error, "");
    }
    EXPECT_EQ(r[0].hardware.status, hardware_status::error);
    for (size_t i : {1u, 2u}) {
        EXPECT_EQ(r[i].hardware.status, hardware_status::off) << i;
        EXPECT_NE(r[i].hardware.reason.find("simulated by the fake worker"), std::string::npos) << r[i].hardware.reason;
    }
    EXPECT_EQ(s.runs(), 3) << "every run reached a worker";
}

TEST(LostContext, SamplingThatLosesItIsLeftOutAndTheCountersStay) {
    LostScratch s;
    const std::vector<RunResult> r = three_runs(s, "stalls");
    ASSERT_TRUE(r[0].ok && r[1].ok && r[2].ok);
    EXPECT_EQ(r[0].stalls.status, stall_status::error);
    EXPECT_EQ(r[1].stalls.status, stall_status::off);
    EXPECT_EQ(r[2].stalls.status, stall_status::off);
    // The fake answers counters with nothing (no --hardware file): asked for, so not marked off.
    EXPECT_EQ(r[2].hardware.status, hardware_status::skipped);
}

}  // namespace tilelab
