// The Compare tab's sweeps over several GPUs (gui/engine_thread_pool.cpp), without a GPU: the
// engine thread reaches a fake host of two GPUs (tests/tools/fake_gpu_worker.cpp) through a GPU
// command; with the GPU set "all" a sweep goes to a pool, every point comes back labelled with
// the GPU that measured it, and the progress counts points per GPU. And the wake-up a UI sleeps on:
// every result handed over is counted and calls the UI's hook, so a frame draws it at once.
#include <gtest/gtest.h>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include "engine_thread.h"

namespace tilelab::gui {
namespace {

TEST(EngineThreadPool, ASweepOnTwoGpusIsLabelledAndCountedPerGpu) {
    EngineConfig cfg;
    cfg.gpu.command = std::string(TILELAB_FAKE_WORKER_PATH) + " --stdio --count 2 --ms 20";
    EngineThread engine(cfg);
    EXPECT_NE(engine.set_gpu_set("0,x"), "") << "not a GPU set";
    ASSERT_EQ(engine.set_gpu_set("all"), "");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!engine.ready() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(engine.device().gpu) << engine.device().reason;

    std::vector<RunRequest> reqs;
    for (int k = 1; k <= 8; ++k) reqs.push_back(RunRequest{"matmul.naive", {}, Problem{{32 * k, 32 * k, 32 * k}}});
    RunOptions opt;
    opt.count_accesses = false;
    opt.hardware_counters = false;
    engine.submit_sweep(reqs, opt);
    SweepProgress p;
    do {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        p = engine.sweep_progress();
    } while ((p.running || p.done < p.total) && std::chrono::steady_clock::now() < deadline);
    ASSERT_EQ(p.done, reqs.size());
    const auto results = engine.sweep_results();
    const auto gpus = engine.sweep_gpus();
    ASSERT_EQ(gpus.size(), reqs.size());
    std::set<std::string> used;
    for (size_t i = 0; i < results.size(); ++i) {
        ASSERT_TRUE(results[i]);
        EXPECT_TRUE(results[i]->ok) << results[i]->error;
        EXPECT_EQ(gpus[i].rfind("Fake GPU #", 0), 0u) << gpus[i];
        used.insert(gpus[i]);
    }
    EXPECT_EQ(used.size(), 2u) << "both GPUs took points";
    EXPECT_NE(p.per_gpu.find("Fake GPU #0 on fakehost: "), std::string::npos) << p.per_gpu;
    EXPECT_NE(p.per_gpu.find("Fake GPU #1 on fakehost: "), std::string::npos) << p.per_gpu;
}

TEST(EngineThreadWake, EveryResultHandedOverWakesTheUiAndIsCounted) {
    EngineConfig cfg;
    cfg.gpu.command = std::string(TILELAB_FAKE_WORKER_PATH) + " --stdio --count 1 --ms 20";
    EngineThread engine(cfg);
    std::atomic<int> wakes{0};
    engine.set_on_delivery([&] { ++wakes; });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!engine.ready() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(engine.device().gpu) << engine.device().reason;

    const uint64_t before = engine.deliveries();
    EXPECT_FALSE(engine.wait_for_delivery(before, 30)) << "nothing asked, nothing handed over";
    RunOptions opt;
    opt.count_accesses = false;
    opt.hardware_counters = false;
    engine.submit(RunRequest{"matmul.naive", {}, Problem{{64, 64, 64}}}, opt);
    EngineUpdate u;
    bool final = false;
    uint64_t seen = before;
    while (!final && std::chrono::steady_clock::now() < deadline) {
        ASSERT_TRUE(engine.wait_for_delivery(seen, 30000)) << "the result came without a wake-up";
        seen = engine.deliveries();
        if (engine.poll(u)) final = u.result->phase == Phase::full;
    }
    ASSERT_TRUE(final) << "no measured result";
    EXPECT_TRUE(u.result->ok) << u.result->error;
    EXPECT_GE(seen, before + 1);
    // The engine thread counts a result before it calls the hook: the last call may still be running.
    while (uint64_t(wakes.load()) < seen && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(uint64_t(wakes.load()), seen) << "the hook runs once per result handed over";
}

}  // namespace
}  // namespace tilelab::gui
