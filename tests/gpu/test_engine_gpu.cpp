// The engine on a real GPU: every variant's output matches the reference at random parameters
// and sizes (non-multiples of every tile included); the instrumented build counts exactly the
// accesses the cost model predicts; the occupancy calculator agrees with the CUDA runtime; a
// faulting kernel (run, like every kernel, in the GPU worker process) leaves the engine usable;
// oversized problems are refused; runs can be cancelled. Every test skips visibly where there is
// no GPU.
#include <fmt/format.h>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <thread>
#include <unistd.h>
#include "fixed_variant.h"
#include "model/family_shape.h"
#include "testing/engine_testing.h"
#include "gpu.h"
#include "warm_compile.h"

using namespace tilelab;
using tilelab::testing::shared_engine;

namespace {

// Quick runs: one timed repetition, no flush, no reference; counting on.
RunOptions quick_options(bool count = true) {
    RunOptions o = tilelab::testing::test_run_options(0, 1, count);
    o.flush_l2 = false;
    return o;
}

std::string describe(const RunRequest& r) {
    std::string params;
    for (const auto& [name, value] : r.params) params += fmt::format("{}{}={}", params.empty() ? "" : " ", name, value);
    return fmt::format("{} [{}] at {}", r.variant, params, format_problem(r.problem));
}

int64_t uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Random sizes for a family, from its shape's test ranges: small (non-multiples of everything) or large.
Problem random_problem(const std::string& family, std::mt19937_64& rng, bool large) {
    const auto ranges = make_family_shape(family)->test_sizes(large ? FamilyShape::TestSizes::large : FamilyShape::TestSizes::small);
    Problem p;
    for (size_t i = 0; i < 3; ++i) p.dim[i] = uniform(rng, ranges[i].lo, ranges[i].hi);
    return p;
}

Problem fixed_problem(const std::string& family) { return make_family_shape(family)->test_problem(); }

// Draws parameters (and, if `problem` is null, sizes) until the engine accepts the request.
bool draw_valid_request(const Variant& v, std::mt19937_64& rng, bool large, const Problem* problem,
                        RunRequest& out, std::string& last_reason) {
    for (int attempt = 0; attempt < 10000; ++attempt) {   // some variants take few sizes (lesson 16: d = 2^k)
        RunRequest r{v.id, {}, problem ? *problem : random_problem(v.family, rng, large)};
        for (const ParamSpec& spec : v.params) {
            const std::vector<int> values = spec.values();
            r.params[spec.name] = values[size_t(uniform(rng, 0, int64_t(values.size()) - 1))];
        }
        last_reason = shared_engine().invalid_reason(r);
        if (last_reason.empty()) {
            out = r;
            return true;
        }
    }
    return false;
}

std::string variant_test_name(const ::testing::TestParamInfo<size_t>& info) {
    std::string name = all_variants()[info.param].id;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

// The first written matmul variant, for the tests that need any working kernel.
const Variant* working_matmul() {
    for (const Variant& v : all_variants())
        if (v.family == "matmul" && v.defined()) return &v;
    return nullptr;
}

void expect_counts_equal(const AccessCounts& model, const AccessCounts& counted, const std::string& what) {
    EXPECT_EQ(model.global_loads, counted.global_loads) << what << ": global loads";
    EXPECT_EQ(model.global_stores, counted.global_stores) << what << ": global stores";
    EXPECT_EQ(model.shared_loads, counted.shared_loads) << what << ": shared loads";
    EXPECT_EQ(model.shared_stores, counted.shared_stores) << what << ": shared stores";
}

}  // namespace

// [SECTION] Every variant: validation and model == counted ----------------------------------

class VariantOnGpu : public ::testing::TestWithParam<size_t> {
protected:
    const Variant& variant() const { return all_variants()[GetParam()]; }
    void SetUp() override {
        TILELAB_REQUIRE_GPU();
        if (!variant().defined()) GTEST_SKIP() << variant().id << " has no kernel yet (placeholder variant).";
    }
};

// 25 random small configurations (sizes 1..700 for matmul, non-multiples of every tile) and 5
// large ones; each is validated against the reference and counted by the instrumented build.
// A configuration whose registers turn out (after compiling) not to fit one block on an SM is
// refused by the engine with stage "launch"; at least 20 must run, validate and count.
TEST_P(VariantOnGpu, ValidatesAndCountsExactlyWhatTheModelSays) {
    const Variant& v = variant();
    std::mt19937_64 rng(0xC0FFEE + GetParam());
    std::vector<RunRequest> requests(30);
    for (size_t i = 0; i < requests.size(); ++i) {
        std::string why;
        ASSERT_TRUE(draw_valid_request(v, rng, /*large=*/i >= 25, nullptr, requests[i], why))
            << v.id << ": no valid configuration found in 1000 draws; last reason: " << why;
    }
    tilelab::testing::warm_compile_cache(shared_engine(), requests, /*counted=*/true);
    int counted_runs = 0;
    for (const RunRequest& req : requests) {
        const RunResult r = shared_engine().run(req, quick_options());
        const std::string what = describe(req);
        if (!r.ok && r.stage == "launch") {   // refused before launching, with a reason
            EXPECT_FALSE(r.error.empty()) << what;
            continue;
        }
        // A configuration that may fail its check by design (lesson 14's naive softmax at large
        // scores) and did: checked, and stopped there as every failed check is.
        if (!r.ok && r.stage == "validate" && !r.may_be_wrong.empty()) {
            EXPECT_TRUE(r.validation.checked && !r.validation.passed) << what;
            continue;
        }
        ASSERT_TRUE(r.ok) << what << ": " << r.stage << ": " << r.error;
        EXPECT_TRUE(r.validation.checked && r.validation.passed) << what << ": " << r.validation.message;
        if (!r.counted) continue;   // the instrumented build did not fit; the timed one ran
        expect_counts_equal(r.model.total, *r.counted, what);
        ++counted_runs;
    }
    EXPECT_GE(counted_runs, 20) << v.id;
}

// The occupancy the engine computes (cuda_occupancy.h from the target and ptxas's registers and
// shared memory) equals what the runtime says for the loaded kernel, for every valid
// configuration per variant at a fixed size, or a random 60 of them where there are more.
TEST_P(VariantOnGpu, OccupancyEqualsTheRuntimeCalculator) {
    const Variant& v = variant();
    const Problem problem = fixed_problem(v.family);
    std::mt19937_64 rng(0x0CC + GetParam());
    std::set<ParamValues> seen;
    std::vector<RunRequest> requests;
    for (int i = 0; i < 200 && requests.size() < 60; ++i) {   // small spaces: each configuration once
        RunRequest req;
        std::string why;
        if (!draw_valid_request(v, rng, false, &problem, req, why)) break;
        if (seen.insert(req.params).second) requests.push_back(req);
    }
    tilelab::testing::warm_compile_cache(shared_engine(), requests, /*counted=*/false);
    int checked = 0;
    for (const RunRequest& req : requests) {
        const RunResult r = shared_engine().analyze(req);
        // A block that does not fit an SM is refused by the engine; the runtime must agree: 0 blocks.
        const bool refused = !r.ok && r.stage == "launch" && r.compiled && r.compiled->ok;
        ASSERT_TRUE(r.ok || refused) << describe(req) << ": " << r.error;
        std::string error;
        const int runtime = engine_testing::runtime_blocks_per_sm(*r.compiled, r.launch, error);
        ASSERT_GE(runtime, 0) << describe(req) << ": " << error;
        EXPECT_EQ(r.occupancy.blocks_per_sm, runtime)
            << describe(req) << ": " << r.compiled->ptxas.registers << " registers, " << r.compiled->ptxas.smem_bytes
            << " B static + " << r.launch.dynamic_smem << " B dynamic shared memory, "
            << r.launch.threads_per_block() << " threads; limiter " << r.occupancy.limiter;
        ++checked;
    }
    EXPECT_GT(checked, 0) << v.id;
}

INSTANTIATE_TEST_SUITE_P(AllVariants, VariantOnGpu, ::testing::Range<size_t>(0, all_variants().size()),
                         variant_test_name);

// [SECTION] Device and measurement ----------------------------------------------------------

TEST(EngineGpu, TargetComesFromTheDevice) {
    TILELAB_REQUIRE_GPU();
    const Target t = shared_engine().target();
    EXPECT_EQ(t.source, "device");
    EXPECT_GT(t.sm_count, 0);
    EXPECT_GT(t.smem_per_block_optin, 0);
    EXPECT_GT(t.peak_fp32_gflops, 0) << t.peaks_note;
    EXPECT_GT(t.dram_gbps, 0) << t.peaks_note;
    EXPECT_NE(t.peaks_note.find("computed"), std::string::npos);
    EXPECT_FALSE(shared_engine().set_target(target_presets().front()));
}

TEST(EngineGpu, TimesValidatesAndComparesWithCublas) {
    TILELAB_REQUIRE_GPU();
    const Variant* v = working_matmul();
    if (!v) GTEST_SKIP() << "no matmul variant has a kernel yet";
    RunOptions opt;
    opt.repetitions = 7;
    const RunResult r = shared_engine().run({v->id, {}, Problem{{1024, 1024, 1024}}}, opt);
    ASSERT_TRUE(r.ok) << r.stage << ": " << r.error;
    EXPECT_TRUE(r.measured);
    EXPECT_TRUE(r.validation.passed);
    ASSERT_EQ(r.timing.samples_ms.size(), 7u);
    EXPECT_GT(r.timing.min_ms, 0);
    EXPECT_LE(r.timing.min_ms, r.timing.median_ms);
    EXPECT_LE(r.timing.median_ms, r.timing.max_ms);
    EXPECT_EQ(r.reference_name, "cuBLAS SGEMM");
    EXPECT_GT(r.reference_ms, 0);
    EXPECT_NEAR(r.pct_of_reference, r.reference_ms / r.timing.median_ms * 100, 1e-9);
    EXPECT_NEAR(r.gflops, 2.0 * 1024 * 1024 * 1024 / (r.timing.median_ms * 1e6), 1e-6 * r.gflops);
    EXPECT_NEAR(r.gbps_effective, 4.0 * 3 * 1024 * 1024 / (r.timing.median_ms * 1e6), 1e-6 * r.gbps_effective);
}

TEST(EngineGpu, CeilingsAreMeasuredAndBelowTheComputedPeaks) {
    TILELAB_REQUIRE_GPU();
    const Ceilings c = shared_engine().ceilings();
    ASSERT_TRUE(c.measured) << c.note;
    const Target t = shared_engine().target();
    EXPECT_GT(c.copy_gbps, 0);
    EXPECT_LT(c.copy_gbps, 1.05 * t.dram_gbps) << c.note << "; " << t.peaks_note;
    EXPECT_GT(c.sgemm_gflops, 0);
    EXPECT_LT(c.sgemm_gflops, 1.05 * t.peak_fp32_gflops) << c.note << "; " << t.peaks_note;
}

// [SECTION] Validation can fail -----------------------------------------------------------------

// A matmul that leaves out one product of every dot product must fail validation: the tolerance
// is tight enough to see a single missing term, let alone a missing tile.
TEST(EngineGpu, AKernelMissingOneProductFailsValidation) {
    TILELAB_REQUIRE_GPU();
    const Variant v = tilelab::testing::fixed_variant({.id = "test.skips_one_product", .family = "matmul"}, [](const ParamReader&) {
        return tilelab::testing::FixedKernel{{"test/skip_product.cuh", "skip_product_matmul<1>"},
                                             [](const Problem& p) { return tilelab::testing::blocks_of_16x16("matmul", p); }};
    });
    add_variant(v);
    for (const Problem p : {Problem{{100, 90, 80}}, Problem{{700, 600, 500}}}) {   // CPU and cuBLAS reference
        const RunResult r = shared_engine().run({v.id, {}, p}, quick_options(false));
        EXPECT_FALSE(r.ok) << format_problem(p);
        EXPECT_EQ(r.stage, "validate") << r.error;
        EXPECT_TRUE(r.validation.checked);
        EXPECT_FALSE(r.validation.passed);
        EXPECT_NE(r.validation.message.find("C["), std::string::npos) << r.validation.message;
        EXPECT_NE(r.error.find("max error"), std::string::npos) << r.error;
        EXPECT_FALSE(r.measured);
    }
}

// [SECTION] Faults, refusals, cancellation ------------------------------------------------------

TEST(EngineGpu, RecoversFromAFaultingKernel) {
    TILELAB_REQUIRE_GPU();
    const Variant* good = working_matmul();
    if (!good) GTEST_SKIP() << "no matmul variant has a kernel yet";
    add_variant(tilelab::testing::fixed_variant({.id = "test.fault", .family = "matmul"}, {"test/fault.cuh", "faulting_matmul<0>"},
                                                LaunchShape{{1, 1, 1}, {32, 1, 1}, 0}));

    const Problem problem{{256, 256, 256}};
    const RunResult before = shared_engine().run({good->id, {}, problem}, quick_options());
    ASSERT_TRUE(before.ok) << before.error;

    // The fault happens in the GPU worker process, never in this one: the worker replies with
    // the CUDA error and exits; the engine starts a fresh worker for the next run.
    const RunResult bad = shared_engine().run({"test.fault", {}, problem}, quick_options(false));
    EXPECT_FALSE(bad.ok);
    EXPECT_FALSE(bad.measured);
    EXPECT_TRUE(bad.stage == "launch" || bad.stage == "run") << bad.stage;
    EXPECT_NE(bad.error.find("illegal"), std::string::npos) << bad.error;
    EXPECT_NE(bad.error.find("worker process was restarted"), std::string::npos) << bad.error;

    // Same problem as before, twice: the new worker builds its buffers and loads its cubins anew.
    for (int i = 0; i < 2; ++i) {
        const RunResult after = shared_engine().run({good->id, {}, problem}, quick_options());
        ASSERT_TRUE(after.ok) << "run " << i + 1 << " after the fault: " << after.stage << ": " << after.error;
        EXPECT_TRUE(after.validation.checked && after.validation.passed) << after.validation.message;
        EXPECT_TRUE(after.measured);
        ASSERT_TRUE(after.counted.has_value());
        EXPECT_EQ(*after.counted, *before.counted);
    }
    // And a second fault is survived the same way.
    const RunResult again = shared_engine().run({"test.fault", {}, problem}, quick_options(false));
    EXPECT_NE(again.error.find("illegal"), std::string::npos) << again.error;
    const RunResult last = shared_engine().run({good->id, {}, problem}, quick_options());
    EXPECT_TRUE(last.ok && last.validation.passed) << last.stage << ": " << last.error;
}

TEST(EngineGpu, RefusesAProblemThatDoesNotFitWithTheSizes) {
    TILELAB_REQUIRE_GPU();
    const Variant* v = working_matmul();
    if (!v) GTEST_SKIP() << "no matmul variant has a kernel yet";
    // Leave 256 MiB free; 8192³ needs 4·3·8192² bytes = 768 MiB plus the reference.
    std::string error;
    auto hog = engine_testing::occupy_device_memory(size_t(256) << 20, error);
    ASSERT_TRUE(error.empty()) << error;
    const RunResult r = shared_engine().run({v->id, {}, Problem{{8192, 8192, 8192}}}, quick_options());
    hog.reset();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.stage, "input");
    EXPECT_NE(r.error.find("M=8192"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("GiB free"), std::string::npos) << r.error;
    // And with the memory back, a normal run works.
    const RunResult ok = shared_engine().run({v->id, {}, Problem{{512, 512, 512}}}, quick_options());
    EXPECT_TRUE(ok.ok) << ok.error;
}

TEST(EngineGpu, CancelledBeforeTheFirstRepetition) {
    TILELAB_REQUIRE_GPU();
    const Variant* v = working_matmul();
    if (!v) GTEST_SKIP() << "no matmul variant has a kernel yet";
    CancelFlag cancel{true};
    RunOptions opt = quick_options(false);
    opt.repetitions = 1000;
    const RunResult r = shared_engine().run({v->id, {}, Problem{{512, 512, 512}}}, opt, &cancel);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.stage, "run");
    EXPECT_EQ(r.error, "cancelled");
    EXPECT_TRUE(r.timing.samples_ms.empty());
}

TEST(EngineGpu, CancelledFromAnotherThreadWhileRunning) {
    TILELAB_REQUIRE_GPU();
    const Variant* v = working_matmul();
    if (!v) GTEST_SKIP() << "no matmul variant has a kernel yet";
    const Problem problem{{2048, 2048, 2048}};
    RunOptions opt = quick_options(false);
    // Compile and set up the inputs first, so that the cancelled run goes straight to timing.
    ASSERT_TRUE(shared_engine().run({v->id, {}, problem}, opt).ok);
    CancelFlag cancel{false};
    opt.repetitions = 1000000;   // hours, unless cancelled
    const auto start = std::chrono::steady_clock::now();
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::seconds(2));
        cancel = true;
    });
    const RunResult r = shared_engine().run({v->id, {}, problem}, opt, &cancel);
    canceller.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.error, "cancelled");
    EXPECT_FALSE(r.timing.samples_ms.empty()) << "it should have been cancelled mid-way, not before starting";
    EXPECT_LT(seconds, 60);
}

// A counting run compiles its instrumented build beside the plain one (Engine::compile_counting_now,
// issue 38): measure() finds it compiled ahead — done, or in flight and waited for — instead of
// compiling it after the plain build. A fresh engine and cache, so that neither build is on disk.
TEST(EngineGpu, TheInstrumentedBuildCompilesBesideThePlainOne) {
    TILELAB_REQUIRE_GPU();
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / fmt::format("tilelab-counting-now-{}", ::getpid());
    std::filesystem::remove_all(dir);
    EngineConfig cfg;
    cfg.cache_dir = dir.string();
    {
        Engine engine(cfg);
        const RunResult r = engine.run({"convolution.filter_memory", {{"FILTERS", 8}}, Problem{{300, 200, 1}}}, quick_options());
        ASSERT_TRUE(r.ok) << r.stage << ": " << r.error;
        ASSERT_TRUE(r.counted.has_value());
        EXPECT_FALSE(r.stages.compile_cached) << "the plain build came from a cache: the test measures nothing";
        EXPECT_TRUE(r.stages.count_prefetch_hit) << "measure() compiled the instrumented build itself, after the plain one";
    }
    std::filesystem::remove_all(dir);
}
