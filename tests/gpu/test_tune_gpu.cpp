// The autotuner on a real GPU: every point it ranks ran and validated, the ranking is by median
// time, the budget stops it, a cancel stops it at once. Skips visibly without a GPU.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "gpu.h"
#include "spawned_program.h"
#include "tilelab/tune.h"

using namespace tilelab;
using tilelab::testing::shared_engine;

namespace {

TuneConfig small_tune() {
    TuneConfig cfg;
    cfg.problem = Problem{{1024, 1024, 1024}};
    cfg.shortlist = 6;
    cfg.sample = 2;
    cfg.budget_s = 60;
    return cfg;
}

TEST(TuneGpu, RanksValidatedPointsByMedianTime) {
    TILELAB_REQUIRE_GPU();
    const TuneReport r = run_tune(shared_engine(), *find_variant("matmul.smem_tiled"), small_tune());
    ASSERT_TRUE(r.gpu);
    ASSERT_GT(r.tried, 0);
    ASSERT_FALSE(r.candidates.empty());
    EXPECT_TRUE(r.candidates.front().measured && r.candidates.front().valid);
    EXPECT_EQ(r.candidates.front().phase, "full");
    for (size_t i = 1; i < r.candidates.size(); ++i) {
        const auto &a = r.candidates[i - 1], &b = r.candidates[i];
        if (a.measured && a.valid && b.measured && b.valid) {
            EXPECT_LE(a.median_ms, b.median_ms) << i;
        }
    }
    EXPECT_GT(r.reference_ms, 0) << "matmul is ranked against cuBLAS";
}

TEST(TuneGpu, TheBudgetStopsTheSearch) {
    TILELAB_REQUIRE_GPU();
    TuneConfig cfg = small_tune();
    cfg.shortlist = 200;
    cfg.budget_s = 2;
    const auto start = std::chrono::steady_clock::now();
    const TuneReport r = run_tune(shared_engine(), *find_variant("matmul.warp_tiled"), cfg);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(r.budget_hit);
    // One point past the budget at most (a compile and a quick run), plus the plan.
    EXPECT_LT(took, 30) << took;
}

TEST(TuneGpu, ACancelStopsItAtOnce) {
    TILELAB_REQUIRE_GPU();
    CancelFlag cancel{true};
    TuneCallbacks cb;
    cb.cancel = &cancel;
    const TuneReport r = run_tune(shared_engine(), *find_variant("matmul.smem_tiled"), small_tune(), cb);
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.tried, 0);
}

// The CLI end to end: measured, then cached (said so, with the date), then a corrupt cache file
// refused in one line and measured again.
TEST(TuneGpu, TheCliCachesTheRankingPerGpuAndRefusesACorruptFile) {
    TILELAB_REQUIRE_GPU();
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("tilelab_tune_gpu_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "scratch");
    const std::vector<std::string> args = {"tune", "matmul.smem_tiled", "--size", "512", "--param", "TILE",
                                           "--candidates", "2", "--sample", "0", "--budget", "60"};
    const std::vector<std::string> env = {"XDG_CACHE_HOME=" + dir.string(), "LANG=C", "LC_ALL=C"};
    const auto first = test::spawn(test::cli_path(), args, env, 300, (dir / "scratch").string());
    ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
    EXPECT_EQ(first.out.find("cached:"), std::string::npos);
    const auto second = test::spawn(test::cli_path(), args, env, 300, (dir / "scratch").string());
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_NE(second.out.find("cached: measured at"), std::string::npos) << second.out;
    for (const auto& f : fs::directory_iterator(dir / "tilelab" / "tune")) std::ofstream(f.path()) << "{ not json";
    const auto third = test::spawn(test::cli_path(), args, env, 300, (dir / "scratch").string());
    EXPECT_EQ(third.exit_code, 0) << third.err;
    EXPECT_NE(third.err.find("is refused"), std::string::npos) << third.err;
    EXPECT_EQ(third.out.find("cached:"), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
