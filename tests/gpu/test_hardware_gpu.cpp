// The hardware counters on a real GPU, read the way the app reads them (the GPU worker's CUPTI
// pass after the timed runs), checked against what the lessons say about them: DRAM reads at
// least the compulsory bytes and, without spills, no more than the model's global bytes; a fully
// coalesced tiled kernel asks L1 for exactly 4 bytes per modelled load. (Each metric against
// `ncu --metrics` on the same launch: scripts/check_counters.py.) Every test skips visibly
// without a GPU.
#include <fmt/format.h>
#include <random>
#include <string>
#include "gpu.h"
#include "model/family_shape.h"
#include "tilelab/hardware.h"

using namespace tilelab;
using tilelab::testing::shared_engine;

namespace {

RunOptions with_counters() { return tilelab::testing::test_run_options(0, 1, false, /*hardware=*/true); }

std::string describe(const RunResult& r) {
    std::string params;
    for (const auto& [name, value] : r.request.params) params += fmt::format(" {}={}", name, value);
    return fmt::format("{}{} at {}", r.request.variant, params, format_problem(r.request.problem));
}

// Runs, insists on a valid result with every counter read, and returns it.
RunResult run_with_counters(const RunRequest& req) {
    const RunResult r = shared_engine().run(req, with_counters());
    EXPECT_TRUE(r.ok) << describe(r) << ": " << r.stage << ": " << r.error;
    EXPECT_TRUE(r.validation.passed) << describe(r) << ": " << r.validation.message;
    EXPECT_EQ(r.hardware.status, hardware_status::ok) << describe(r) << ": " << r.hardware.reason;
    EXPECT_GE(r.hardware.passes, 1);
    return r;
}

// Five random valid configurations of `v` at random sizes (small, so that the test stays short).
std::vector<RunRequest> random_requests(const Variant& v, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    const auto sizes = make_family_shape(v.family)->test_sizes(FamilyShape::TestSizes::counters);
    std::vector<RunRequest> out;
    for (int attempt = 0; attempt < 20000 && out.size() < 5; ++attempt) {
        RunRequest r{v.id, {}, {}};
        for (size_t i = 0; i < 3; ++i) r.problem.dim[i] = uniform(sizes[i].lo, sizes[i].hi);
        for (const ParamSpec& spec : v.params) {
            const std::vector<int> values = spec.values();
            r.params[spec.name] = values[size_t(uniform(0, int64_t(values.size()) - 1))];
        }
        // A configuration that may fail its check by design (lesson 14's naive softmax at large
        // scores) stops before the counters: not one to read them on.
        if (!v.bind(with_defaults(v.params, r.params))->may_be_wrong(r.problem).empty()) continue;
        if (shared_engine().invalid_reason(r).empty()) out.push_back(r);
    }
    return out;
}

}  // namespace

class HardwareOnGpu : public ::testing::TestWithParam<size_t> {
protected:
    const Variant& variant() const { return all_variants()[GetParam()]; }
    void SetUp() override {
        TILELAB_REQUIRE_GPU();
        if (!variant().defined()) GTEST_SKIP() << variant().id << " has no kernel yet (placeholder variant).";
    }
};

// DRAM reads at least the inputs once (the counter pass starts each replay with a cold L2) and,
// for a kernel that does not spill, never more than the model's global bytes (caches can only
// remove traffic). A spilling kernel's local memory also goes through L2 to DRAM and is not in
// the model's global bytes (measured on an H100: 0.49-1.56 GB read against 0.07-0.39 GB modelled,
// for register_2d and register_pressure configurations with 2-10 kB of spills).
TEST_P(HardwareOnGpu, DramReadsAtLeastTheCompulsoryBytesAndAtMostTheModelsGlobalBytes) {
    const std::vector<RunRequest> requests = random_requests(variant(), 0x14C0 + GetParam());
    ASSERT_EQ(requests.size(), 5u) << "not enough valid configurations of " << variant().id;
    for (const RunRequest& req : requests) {
        const RunResult r = run_with_counters(req);
        if (!r.hardware.ok()) continue;
        const double read = *r.hardware.get("dram__bytes_read.sum");
        // The inputs: compulsory bytes less the output, written once (4 bytes per store). A chain
        // of launches (lesson 20's time steps) stores once a launch, so this undercounts its input
        // (a bound still, and the upper one below holds): its intermediates may stay in L2.
        const double compulsory_read = r.model.compulsory_bytes - 4 * r.model.total.global_stores;
        EXPECT_GE(read, 0.95 * compulsory_read) << describe(r);
        if (!(r.compiled && r.compiled->ptxas.spills())) {
            // Plus what is not data: the kernel's code, its parameters and, for an atomic, the line it
            // reads first — a few KB, hidden elsewhere by the model counting stores that DRAM reads
            // never see, but not for a kernel that only reads (lesson 18: 9 KB over 56 MB read).
            constexpr double kNotData = 64 * 1024;
            EXPECT_LE(read, r.model.global_bytes + kNotData) << describe(r);
        }
        const double occupancy = *r.hardware.get("sm__warps_active.avg.pct_of_peak_sustained_active");
        EXPECT_GT(occupancy, 0) << describe(r);
        // Achieved at most theoretical, within 2% and one percentage point: a grid of fewer blocks than
        // SMs runs a few microseconds, and there the pass reads a little over what one block per SM
        // allows (H200, 2026-12-01, flash2_mma at 943x32x7, 8 warps a block: 12.64-13.30% against
        // 12.5%, where ncu reads 12.35-12.43% on the same launch). That was with the ratios scheduled
        // beside the counts; in passes of their own (2026-12-04) a register-tiled stencil of 110
        // blocks read 45.3% where it had read 46.8-48.4% (theoretical 45.3%, ncu 45.29%).
        EXPECT_LE(occupancy, 100.0 * r.occupancy.occupancy * 1.02 + 1.0) << describe(r) << ": achieved above theoretical";
    }
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, HardwareOnGpu, ::testing::Range<size_t>(0, all_variants().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                             std::string name = all_variants()[info.param].id;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

// Lesson 2's tiles load whole rows of 8, 16 or 32 floats: every 32-byte sector a warp touches is
// used in full, so L1 serves exactly 4 bytes per load the model counts, no more.
TEST(HardwareGpu, CoalescedTiledLoadsAskL1ForFourBytesPerModelledLoad) {
    TILELAB_REQUIRE_GPU();
    std::mt19937_64 rng(14);
    for (int tile : {8, 16, 32}) {
        for (int pad : {0, 1}) {
            const int64_t n = 32 * std::uniform_int_distribution<int64_t>(8, 40)(rng);
            const RunResult r = run_with_counters({"matmul.smem_tiled", {{"TILE", tile}, {"PAD", pad}}, Problem{{n, n, n}}});
            if (!r.hardware.ok()) continue;
            EXPECT_EQ(*r.hardware.get("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"), 4 * r.model.total.global_loads)
                << describe(r);
            EXPECT_EQ(*r.hardware.get("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"), 4 * r.model.total.global_stores)
                << describe(r);
        }
    }
}

// --no-hardware (and the GUI's quick drag runs) skip the pass: no replays, no CUPTI.
TEST(HardwareGpu, ARunThatDoesNotAskReadsNoCounters) {
    TILELAB_REQUIRE_GPU();
    RunOptions o = with_counters();
    o.hardware_counters = false;
    const RunResult r = shared_engine().run({"matmul.smem_tiled", {{"TILE", 16}, {"PAD", 0}}, Problem{{512, 512, 512}}}, o);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.hardware.status, hardware_status::skipped);
    EXPECT_TRUE(r.hardware.metrics.empty());
    EXPECT_EQ(r.stages.hardware_ms, 0);
}

// Lesson 18's read writes one word (an atomic per warp into one float) after reading 537 MB, four
// times L2 and more on the GPUs measured. The pass empties L2 after its profiler's start for its
// DRAM counts (L2Emptying), so what its reads push out of L2 is not the profiler's dirty lines: 0.01-0.29 MB
// in 12 launches on an H100, against 1.4-3.2 MB with L2 emptied before the start and 1.2-2.6 MB
// in ncu (2026-12-06, docs/benchmarks.md). A placement that lets those lines back in fails here.
TEST(HardwareGpu, AKernelThatWritesOneWordHasAlmostNoDramWrites) {
    TILELAB_REQUIRE_GPU();
    const RunResult r = run_with_counters(
        {"bandwidth.stream_read", {{"ILP", 8}, {"VEC", 4}, {"BLOCK", 160}}, Problem{{89, 134217728, 1}}});
    if (!r.hardware.ok()) return;
    const std::optional<double> written = r.hardware.get("dram__bytes_write.sum");
    const std::optional<double> read = r.hardware.get("dram__bytes_read.sum");
    ASSERT_TRUE(written && read) << describe(r);
    EXPECT_GT(*read, 500e6) << describe(r);   // the read itself reached DRAM
    EXPECT_LT(*written, 1e6) << describe(r);
}
