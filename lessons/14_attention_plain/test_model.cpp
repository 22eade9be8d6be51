// Lesson 14's three kernels (kernels/attention/plain.cuh) run one after another on the CPU
// (engine/src/cpu/, the variant's passes): every softmax, input type, mask and Q scale at odd
// sizes (N that no 64-row tile or 4-row block divides, d not a multiple of 16, one or two heads)
// validates against the family's double-precision reference, and the accesses the three kernels
// execute add up to the cost model's, element for element, with S counted in floats and P in the
// input type. The naive softmax overflows FP16 at large scores and fails with NaN; the safe one
// passes on the same inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../../families/attention/shape.h"
#include "gpu.h"
#include "cpu_checks.h"
#include "model_engine.h"
#include "tilelab/engine.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

using test::model_engine;

RunOptions on_cpu(const Problem& p) { return test::cpu_run_options(p); }

std::string describe(const RunRequest& r) {
    std::string s = format_problem(r.problem);
    for (const auto& [name, value] : r.params) s += " " + name + "=" + std::to_string(value);
    return s;
}

TEST(PlainAttentionOnCpu, EverySoftmaxTypeAndMaskValidatesAndCountsAsModelled) {
    int checked = 0;
    for (int softmax : {0, 1, 2})
        for (int prec : {int(ElementType::f32), int(ElementType::bf16), int(ElementType::f16)})
            for (int causal : {0, 1}) {
                const Problem p{{softmax == 1 ? 70 : 37, softmax == 2 ? 20 : 12, causal + 1}};
                const RunRequest req{"attention.plain", {{"PREC", prec}, {"SOFTMAX", softmax}, {"CAUSAL", causal}}, p};
                const RunResult r = model_engine().run(req, on_cpu(p));
                ASSERT_TRUE(r.cpu.has_value()) << describe(req) << ": " << r.error;
                ASSERT_EQ(r.cpu->status, "passed") << describe(req) << ": " << r.cpu->message << " " << r.cpu->validation.message;
                EXPECT_EQ(r.cpu->counted, r.cpu->model) << describe(req);
                ++checked;
            }
    EXPECT_EQ(checked, 18);
}

// The run names its three kernels in order; the lesson's own (the softmax) is the middle one.
TEST(PlainAttentionModel, ThreePassesInOrderWithTheSoftmaxAsTheLessonsKernel) {
    const RunRequest req{"attention.plain", {{"SOFTMAX", 2}}, Problem{{2048, 64, 16}}};
    const RunResult r = model_engine().analyze(req);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.passes.size(), 3u);
    EXPECT_EQ(r.passes[0].kernel, "plain_attention_scores<0>");
    EXPECT_EQ(r.passes[1].kernel, "plain_attention<0, 2>");
    EXPECT_EQ(r.passes[1].kernel, r.name_expression);
    EXPECT_EQ(r.passes[2].kernel, "plain_attention_weigh<0>");
}

// Bytes follow each operand's type: with BF16 inputs Q, K, V and P are 2 bytes, S and O 4.
TEST(PlainAttentionModel, BytesCountEachOperandInItsOwnType) {
    const Problem p{{2048, 64, 16}};
    const CostModel f32 = find_variant("attention.plain")->cost_model({}, p);
    const CostModel bf16 = find_variant("attention.plain")->cost_model({{"PREC", int(ElementType::bf16)}}, p);
    EXPECT_EQ(f32.total, bf16.total) << "the same elements";
    EXPECT_DOUBLE_EQ(f32.global_bytes, 4 * (f32.total.global_loads + f32.total.global_stores));
    const double N = 2048, d = 64, BH = 16, s_loads = 3 * N * N * BH;
    EXPECT_DOUBLE_EQ(bf16.global_load_bytes, 2 * (bf16.total.global_loads - s_loads) + 4 * s_loads);
    EXPECT_DOUBLE_EQ(bf16.global_store_bytes, 4 * (N * N * BH + N * d * BH) + 2 * N * N * BH);
    EXPECT_DOUBLE_EQ(bf16.global_bytes, bf16.global_load_bytes + bf16.global_store_bytes);
    EXPECT_DOUBLE_EQ(bf16.load_bytes(bf16.total.global_loads), bf16.global_load_bytes);
}

// QSCALE = 16 gives scores near 16 at N = 300: e^s overflows FP16 (65504 = e^11.09) and the naive
// softmax's rows become inf / inf; the safe softmax on the same inputs passes, and so does the
// naive one in BF16 (FP32's exponent range).
TEST(PlainAttentionOnCpu, TheNaiveSoftmaxOverflowsFp16AtLargeScoresAndTheSafeOneDoesNot) {
    const Problem p{{300, 16, 1}};
    const auto run = [&](int softmax, ElementType prec) {
        const RunRequest req{"attention.plain", {{"PREC", int(prec)}, {"SOFTMAX", softmax}, {"QSCALE", 16}}, p};
        const RunResult r = model_engine().run(req, on_cpu(p));
        EXPECT_TRUE(r.cpu.has_value()) << r.error;
        return r.cpu.value_or(CpuCheck{});
    };
    const CpuCheck naive = run(0, ElementType::f16);
    EXPECT_EQ(naive.status, "failed");
    EXPECT_NE(naive.validation.message.find("nan"), std::string::npos) << naive.validation.message;
    EXPECT_EQ(run(1, ElementType::f16).status, "passed");
    EXPECT_EQ(run(0, ElementType::bf16).status, "passed");
}

// On a GPU: the three kernels validate and count as modelled together, a full run times each one
// alone (their sum near the launch of all three: the same work, launched apart), a quick run
// does not; the naive softmax in FP16 at QSCALE = 16 fails with NaN and says it may, by design.
TEST(PlainAttentionOnGpu, AFullRunTimesEachKernelAloneAndTheNaiveOverflowIsExpected) {
    TILELAB_REQUIRE_GPU();
    using testing::shared_engine;
    const RunRequest req{"attention.plain", {{"PREC", int(ElementType::bf16)}, {"CAUSAL", 1}}, Problem{{517, 72, 3}}};
    const RunResult r = shared_engine().run(req, testing::test_run_options(1, 5, true));
    ASSERT_TRUE(r.ok) << r.stage << ": " << r.error;
    EXPECT_TRUE(r.validation.passed) << r.validation.message;
    ASSERT_TRUE(r.counted.has_value());
    EXPECT_EQ(*r.counted, r.model.total);
    ASSERT_EQ(r.passes.size(), 3u);
    double sum = 0;
    for (const PassTime& p : r.passes) {
        EXPECT_GT(p.median_ms, 0) << p.label;
        sum += p.median_ms;
    }
    EXPECT_GT(sum, 0.5 * r.timing.median_ms);
    EXPECT_LT(sum, 2.0 * r.timing.median_ms);
    RunOptions quick = testing::test_run_options(0, 1, false);
    quick.quick = true;
    for (const PassTime& p : shared_engine().run(req, quick).passes) EXPECT_EQ(p.median_ms, 0) << p.label;

    const RunRequest naive{"attention.plain", {{"PREC", int(ElementType::f16)}, {"SOFTMAX", 0}, {"QSCALE", 16}}, Problem{{1024, 64, 2}}};
    const RunResult n = shared_engine().run(naive, testing::test_run_options(0, 1, false));
    EXPECT_FALSE(n.may_be_wrong.empty());
    ASSERT_TRUE(n.validation.checked) << n.stage << ": " << n.error;
    EXPECT_FALSE(n.validation.passed);
    EXPECT_NE(n.validation.message.find("nan"), std::string::npos) << n.validation.message;
}

// The family's reference in double runs through cuBLAS DGEMM in chunks of at most 64 MB of scores
// (families/attention/gpu_cuda.cpp): whole heads while one head's N×N fits — at N = 1500, seven
// heads go three, three and one — and blocks of one head's rows past that — at N = 4097, 2047,
// 2047 and 3 rows. The plain kernels validate against it in both regimes, masked and not: a chunk
// read or written at the wrong offset would miss by far more than the tolerance.
TEST(PlainAttentionOnGpu, ValidatesAgainstTheReferenceInWholeHeadsAndInBlocksOfRows) {
    TILELAB_REQUIRE_GPU();
    using testing::shared_engine;
    for (const Problem& p : {Problem{{1500, 40, 7}}, Problem{{4097, 40, 1}}})
        for (int causal : {0, 1}) {
            const RunRequest req{"attention.plain", {{"SOFTMAX", 1}, {"CAUSAL", causal}}, p};
            const RunResult r = shared_engine().run(req, testing::test_run_options(0, 1, false));
            ASSERT_TRUE(r.ok) << describe(req) << ": " << r.stage << ": " << r.error;
            EXPECT_TRUE(r.validation.passed) << describe(req) << ": " << r.validation.message;
            EXPECT_LT(r.validation.max_rel_error, r.validation.tolerance) << describe(req);
        }
}

}  // namespace
}  // namespace tilelab
