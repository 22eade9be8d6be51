// Several GPUs at once (tilelab/gpu_pool.h) without a GPU: a fake worker (tests/tools/
// fake_gpu_worker.cpp) speaks the real stdio protocol through --gpu-command, plays one GPU of a
// host with two, and answers each run with a time made from the job. The pool must measure every
// point exactly once, spread over both GPUs, label each, stop both on cancel, give a dead
// worker's point to the other GPU, and never compare points measured on different GPU models.
#include <gtest/gtest.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include "host/remote_link.h"
#include "spawned_program.h"
#include "tilelab/gpu_pool.h"
#include "tilelab/result_json.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct PoolScratch : test::Scratch {
    PoolScratch() : test::Scratch("pool-test") {}
    std::string log() const { return (dir / "runs.log").string(); }
    // The fake worker's command line: a host of two GPUs, each run taking `ms`.
    std::string command(const std::string& extra = "", int ms = 30) const {
        return test::helper_path(test::kFakeGpuWorkerHelper) + " --stdio --count 2 --ms " + std::to_string(ms) + " --log " + log() +
               (extra.empty() ? "" : " " + extra);
    }
    // Lines of the run log, one per run a fake GPU answered: "DEVICE PROBLEM LAUNCH".
    std::vector<std::string> runs() const {
        std::istringstream in(test::slurp(log()));
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        return lines;
    }
};

// One kernel, many problem sizes: one compile, and each point's size names it in the run log.
std::vector<RunRequest> points(int n) {
    std::vector<RunRequest> reqs;
    for (int k = 1; k <= n; ++k) {
        const int64_t size = 32 * k;
        reqs.push_back(RunRequest{"matmul.naive", {}, Problem{{size, size, size}}});
    }
    return reqs;
}

RunOptions quick_options() {
    RunOptions o;
    o.count_accesses = false;
    o.hardware_counters = false;
    return o;
}

bool open_pool(GpuPool& pool, const PoolScratch& s, const std::string& extra, int ms = 30, const std::string& gpus = "all") {
    GpuSet set;
    EXPECT_EQ(parse_gpu_set(gpus, set), "");
    GpuLocation place;
    place.command = s.command(extra, ms);
    EngineConfig base;   // the default compile cache: one kernel, compiled once on a fresh machine
    std::string failure;
    const bool opened = pool.open({place}, set, base, failure);
    EXPECT_TRUE(opened) << failure;
    return opened;
}

TEST(GpuPool, EveryPointIsMeasuredExactlyOnceSpreadOverBothGpusAndLabelled) {
    PoolScratch s;
    GpuPool pool;
    ASSERT_TRUE(open_pool(pool, s, ""));
    ASSERT_EQ(pool.size(), 2u) << "--gpus all on a host of two GPUs";
    EXPECT_FALSE(pool.mixed_models());
    const std::vector<RunRequest> reqs = points(12);
    const std::vector<PoolResult> results = pool.run_all(reqs, quick_options(), nullptr);
    ASSERT_EQ(results.size(), reqs.size());
    std::vector<size_t> per_gpu(2, 0);
    for (size_t i = 0; i < results.size(); ++i) {
        EXPECT_TRUE(results[i].result.ok) << results[i].result.error;
        EXPECT_EQ(results[i].result.request.problem.dim, reqs[i].problem.dim) << "results come back in the order asked";
        ASSERT_GE(results[i].gpu, 0);
        ++per_gpu[size_t(results[i].gpu)];
        // The fake's time: the first extent / 1000, twice that on GPU 1.
        EXPECT_DOUBLE_EQ(results[i].result.timing.median_ms, reqs[i].problem.dim[0] / 1000.0 * (1 + results[i].gpu));
    }
    EXPECT_GT(per_gpu[0], 0u);
    EXPECT_GT(per_gpu[1], 0u);
    EXPECT_EQ(pool.gpus()[0].label.rfind("Fake GPU #0 on fakehost", 0), 0u) << pool.gpus()[0].label;
    EXPECT_EQ(pool.gpus()[1].label.rfind("Fake GPU #1 on fakehost", 0), 0u) << pool.gpus()[1].label;
    const std::vector<std::string> runs = s.runs();
    EXPECT_EQ(runs.size(), reqs.size()) << "one run per point, none twice";
    std::map<std::string, int> seen;
    for (const std::string& line : runs) ++seen[line.substr(line.find(' ') + 1)];
    EXPECT_EQ(seen.size(), reqs.size());
}

TEST(GpuPool, ACancelStopsEveryGpu) {
    PoolScratch s;
    GpuPool pool;
    ASSERT_TRUE(open_pool(pool, s, "", 200));
    CancelFlag cancel{false};
    const auto start = Clock::now();
    const std::vector<PoolResult> results = pool.run_all(points(20), quick_options(), &cancel, [&](const PoolProgress& p) {
        if (p.done >= 2) cancel = true;
    });
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(3)) << "20 runs of 200 ms on two GPUs would take 2 s";
    const auto measured = std::count_if(results.begin(), results.end(), [](const PoolResult& r) { return r.result.ok; });
    // Two done when the cancel came, and at most the one the other GPU had in hand.
    EXPECT_GE(measured, 2);
    EXPECT_LE(measured, 3);
    EXPECT_EQ(s.runs().size(), size_t(measured));
    const auto never_ran = std::count_if(results.begin(), results.end(), [](const PoolResult& r) { return r.gpu < 0; });
    EXPECT_GE(never_ran, 15);
    for (const PoolResult& r : results) {
        if (r.gpu < 0) {
            EXPECT_NE(r.result.error.find("cancelled"), std::string::npos) << r.result.error;
        }
    }
}

TEST(GpuPool, AWorkerKilledMidSweepLosesNoPointAndIsReportedOnce) {
    PoolScratch s;
    GpuPool pool;
    ASSERT_TRUE(open_pool(pool, s, "--die-on 1 --die-after 2"));
    std::vector<std::string> events;
    const std::vector<RunRequest> reqs = points(10);
    const std::vector<PoolResult> results = pool.run_all(reqs, quick_options(), nullptr, [&](const PoolProgress& p) {
        if (!p.event.empty()) events.push_back(p.event);
    });
    std::vector<size_t> per_gpu(2, 0);
    for (const PoolResult& r : results) {
        EXPECT_TRUE(r.result.ok) << r.result.error;
        if (r.gpu >= 0) ++per_gpu[size_t(r.gpu)];
    }
    EXPECT_EQ(per_gpu[1], 2u) << "GPU 1 died on its third point";
    EXPECT_EQ(per_gpu[0], reqs.size() - 2);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_NE(events[0].find("Fake GPU #1"), std::string::npos) << events[0];
    EXPECT_EQ(s.runs().size(), reqs.size());
}

// A worker that exits as the real one does when a kernel never returns (it held the GPU past its
// limit and did not stop: worker::kHungKernelExitStatus) is reported as that, not as a crash.
TEST(GpuPool, AWorkerLeftByAKernelThatNeverReturnedSaysSo) {
    PoolScratch s;
    GpuPool pool;
    ASSERT_TRUE(open_pool(pool, s, "--die-on 1 --die-after 0 --die-code 3"));
    std::vector<std::string> events;
    const std::vector<PoolResult> results = pool.run_all(points(4), quick_options(), nullptr, [&](const PoolProgress& p) {
        if (!p.event.empty()) events.push_back(p.event);
    });
    for (const PoolResult& r : results) EXPECT_TRUE(r.result.ok) << r.result.error;
    ASSERT_EQ(events.size(), 1u);
    EXPECT_NE(events[0].find("never returned"), std::string::npos) << events[0];
    EXPECT_EQ(events[0].find("unexpectedly"), std::string::npos) << events[0];
}

TEST(GpuPool, PointsAreComparedOnlyWithPointsOfTheSameGpuModel) {
    PoolScratch s;
    GpuPool pool;
    ASSERT_TRUE(open_pool(pool, s, "--models 'Fake A,Fake B'"));
    EXPECT_TRUE(pool.mixed_models());
    const std::vector<PoolResult> results = pool.run_all(points(8), quick_options(), nullptr);
    const std::vector<double> pct = pct_of_best_per_model(results, pool.gpus());
    // Fake B (GPU 1) is twice as slow: compared across models its best would be under 100.
    std::map<int, double> best;
    for (size_t i = 0; i < results.size(); ++i) {
        ASSERT_GE(results[i].gpu, 0);
        ASSERT_GT(pct[i], 0);
        best[results[i].gpu] = std::max(best[results[i].gpu], pct[i]);
    }
    ASSERT_EQ(best.size(), 2u);
    EXPECT_DOUBLE_EQ(best[0], 100);
    EXPECT_DOUBLE_EQ(best[1], 100);
}

TEST(GpuPool, AGpuNumberTheHostDoesNotHaveIsSaidInOneSentence) {
    PoolScratch s;
    GpuPool pool;
    GpuSet set;
    ASSERT_EQ(parse_gpu_set("0,5", set), "");
    GpuLocation place;
    place.command = s.command();
    std::string failure;
    EXPECT_FALSE(pool.open({place}, set, EngineConfig{}, failure));
    EXPECT_NE(failure.find("GPU 5"), std::string::npos) << failure;
    EXPECT_NE(failure.find("no GPU 5"), std::string::npos) << failure;
    for (const char* bad : {"", "x", "1,,2", "0,", "-1", "all,0"}) EXPECT_NE(parse_gpu_set(bad, set), "") << bad;
    ASSERT_EQ(parse_gpu_set("1,0", set), "");
    EXPECT_EQ(set.devices, (std::vector<int>{1, 0}));
}

TEST(GpuPool, TheCliSweepLabelsEachPointWithItsGpu) {
    PoolScratch s;
    const test::Spawned r = test::spawn(
        test::cli_path(),
        {"sweep", "matmul.naive", "--param", "BX", "--values", "8,16,32", "--size", "128", "--no-count", "--json",
         "--gpu-command", s.command(), "--gpus", "all"},
        {}, 60, s.dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto points = nlohmann::json::parse(r.out);
    ASSERT_EQ(points.size(), 3u);
    for (const auto& p : points) {
        EXPECT_EQ(p.value("status", ""), "ok") << p.dump();
        EXPECT_EQ(p.value("gpu", "").rfind("Fake GPU #", 0), 0u) << p.dump();
        EXPECT_GT(p.value("pct_of_best", 0.0), 0) << p.dump();
    }
    EXPECT_NE(r.err.find("2 GPUs"), std::string::npos) << r.err;
    const test::Spawned bad = test::spawn(test::cli_path(), {"sweep", "02", "--param", "TILE", "--gpus", "0,x"}, {}, 30,
                                          s.dir.string());
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find("--gpus wants"), std::string::npos) << bad.err;
    const test::Spawned two_hosts = test::spawn(test::cli_path(), {"run", "02", "--gpu-host", "a", "--gpu-host", "b"}, {}, 30,
                                                s.dir.string());
    EXPECT_EQ(two_hosts.exit_code, 2) << two_hosts.err;
    EXPECT_NE(two_hosts.err.find("only sweep spreads"), std::string::npos) << two_hosts.err;
}

TEST(GpuPool, TheDeviceNumberReachesTheWorkerThroughSshAndThroughACommand) {
    GpuLocation ssh;
    ssh.host = "gpu01";
    ssh.device = 1;
    const std::vector<std::string> argv = launcher_argv(ssh);
    ASSERT_GE(argv.size(), 4u);
    EXPECT_EQ(std::vector<std::string>(argv.end() - 4, argv.end()),
              (std::vector<std::string>{"tilelab-gpu-worker", "--stdio", "--gpu-device", "1"}));
    GpuLocation command;
    command.command = "srun tilelab-gpu-worker --stdio";
    command.device = 3;
    EXPECT_EQ(launcher_argv(command).back(), "srun tilelab-gpu-worker --stdio --gpu-device 3");
    command.device = -1;
    EXPECT_EQ(launcher_argv(command).back(), "srun tilelab-gpu-worker --stdio") << "no number: the worker's default";
    command.device = 5000;
    EXPECT_NE(command.problem(), "");
}

TEST(GpuPool, TheTunerTimesItsCandidatesOnBothGpus) {
    PoolScratch s;
    // Its own cache folder: the fake GPU's times must never land in the real tune cache.
    const test::Spawned r = test::spawn(
        test::cli_path(),
        {"tune", "matmul.naive", "--param", "BX", "--candidates", "4", "--sample", "0", "--size", "128", "--budget", "30",
         "--json", "--gpu-command", s.command(), "--gpus", "all"},
        {"XDG_CACHE_HOME=" + (s.dir / "cache").string()}, 120, s.dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> devices;
    for (const std::string& line : s.runs()) devices.insert(line.substr(0, line.find(' ')));
    EXPECT_EQ(devices, (std::set<std::string>{"0", "1"})) << "the candidates' first timing is spread over both GPUs";
    const auto report = nlohmann::json::parse(r.out);
    EXPECT_GE(report.at("tried").get<int>(), 4) << r.out;
    const test::Spawned mixed = test::spawn(
        test::cli_path(),
        {"tune", "matmul.naive", "--param", "BX", "--gpu-command", s.command("--models 'Fake A,Fake B'"), "--gpus", "all"},
        {"XDG_CACHE_HOME=" + (s.dir / "cache").string()}, 60, s.dir.string());
    EXPECT_EQ(mixed.exit_code, 2) << mixed.err;
    EXPECT_NE(mixed.err.find("one model"), std::string::npos) << mixed.err;
}

}  // namespace
}  // namespace tilelab
