// Precision is data, on the GPU: TF32, BF16 and FP16 test variants (kernels/test/typed_matmul.cuh)
// validate against the reference at their own precision (the double kernel over the same rounded
// inputs at small sizes, cuBLAS GemmEx at larger ones), report "% of cuBLAS" against cuBLAS at the
// same precision, and sit under their own roof. A kernel that drops one product fails at the
// same tolerance. Skips visibly without a GPU.
#include <gtest/gtest.h>
#include <cstdio>
#include "gpu.h"
#include "typed_matmul_variant.h"

using namespace tilelab;
using tilelab::testing::shared_engine;
using tilelab::testing::typed_matmul_variant;

namespace {

RunOptions with_reference() {
    RunOptions o = tilelab::testing::test_run_options(1, 3, true);
    o.time_reference = true;
    return o;
}

// 300×200×100: the double reference; 1100×900×700: cuBLAS at the same precision.
const Problem kSmall{{300, 200, 100}}, kLarge{{1100, 900, 700}};

class PrecisionOnGpu : public ::testing::TestWithParam<ElementType> {};

TEST_P(PrecisionOnGpu, ValidatesAgainstItsOwnPrecisionAndSitsUnderItsRoof) {
    TILELAB_REQUIRE_GPU();
    const ElementType input = GetParam();
    if (input != ElementType::f16 && shared_engine().target().arch() < 80) GTEST_SKIP() << "needs sm_80: " << element_name(input);
    const Variant& v = typed_matmul_variant(input);
    for (const Problem& p : {kSmall, kLarge}) {
        const RunResult r = shared_engine().run({v.id, {}, p}, with_reference());
        ASSERT_TRUE(r.ok) << format_problem(p) << ": " << r.error;
        EXPECT_TRUE(r.validation.passed) << r.validation.message;
        EXPECT_DOUBLE_EQ(r.validation.tolerance, matmul_tolerance(v.precision({}), p.dim[2]));
        EXPECT_EQ(r.precision.input, input);
        // "% of cuBLAS" is against cuBLAS at the same precision.
        const std::string upper = element_label(input);
        EXPECT_NE(r.reference_name.find(upper), std::string::npos) << r.reference_name;
        EXPECT_GT(r.pct_of_reference, 0);
        if (p == kLarge) {
            EXPECT_NE(r.validation.reference.find(upper), std::string::npos) << r.validation.reference;
        }
        // Under its own roof, and counted == model at its element size.
        EXPECT_LT(r.gflops, r.target.peak_gflops(input)) << r.gflops;
        // For the record (docs/benchmarks.md): what the naive test kernel reaches against cuBLAS.
        std::printf("[precision] %s %s on %s: %.3f ms, %.0f GFLOP/s; %s %.3f ms; %.2f %% of it; tolerance %.3g, max rel error %.3g\n",
                    element_name(input), format_problem(p).c_str(), r.target.name.c_str(), r.timing.median_ms, r.gflops,
                    r.reference_name.c_str(), r.reference_ms, r.pct_of_reference, r.validation.tolerance,
                    r.validation.max_rel_error);
        ASSERT_TRUE(r.counted.has_value());
        EXPECT_EQ(r.counted->global_loads, r.model.total.global_loads);
        EXPECT_EQ(r.counted->global_stores, r.model.total.global_stores);
    }
}

TEST_P(PrecisionOnGpu, AKernelMissingOneProductFailsAtThisPrecision) {
    TILELAB_REQUIRE_GPU();
    const ElementType input = GetParam();
    if (input != ElementType::f16 && shared_engine().target().arch() < 80) GTEST_SKIP() << "needs sm_80: " << element_name(input);
    const Variant& v = typed_matmul_variant(input, 1);
    for (const Problem& p : {kSmall, kLarge}) {
        const RunResult r = shared_engine().run({v.id, {}, p}, tilelab::testing::test_run_options(0, 1, false));
        EXPECT_FALSE(r.ok) << format_problem(p);
        EXPECT_EQ(r.stage, "validate") << r.error;
        EXPECT_FALSE(r.validation.passed);
    }
}

INSTANTIATE_TEST_SUITE_P(Types, PrecisionOnGpu, ::testing::Values(ElementType::tf32, ElementType::bf16, ElementType::f16),
                         [](const auto& info) { return std::string(element_name(info.param)); });

}  // namespace
