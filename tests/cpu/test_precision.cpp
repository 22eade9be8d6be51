// Precision is data: a variant declares its element types, and bytes, the tolerance, the roof
// and the family's acceptance follow from them. Model mode, no GPU needed (the GPU half, which
// runs the same test variants against cuBLAS at their precision, is tests/gpu/test_precision_gpu.cpp).
#include <gtest/gtest.h>
#include <cmath>
#include "fixed_variant.h"
#include "tilelab/engine.h"
#include "tilelab/result_json.h"
#include "typed_matmul_variant.h"
#include "model_engine.h"

using namespace tilelab;
using tilelab::testing::typed_matmul_variant;

namespace {

using test::model_engine;

TEST(Precision, ElementTypesKnowTheirSizeAndRounding) {
    EXPECT_EQ(element_bytes(ElementType::f32), 4);
    EXPECT_EQ(element_bytes(ElementType::tf32), 4);   // TF32 lives in a float
    EXPECT_EQ(element_bytes(ElementType::bf16), 2);
    EXPECT_EQ(element_bytes(ElementType::f16), 2);
    EXPECT_EQ(unit_roundoff(ElementType::f32), std::ldexp(1.0, -24));
    EXPECT_EQ(unit_roundoff(ElementType::bf16), std::ldexp(1.0, -8));
    EXPECT_EQ(unit_roundoff(ElementType::f16), std::ldexp(1.0, -11));
    for (ElementType t : {ElementType::f32, ElementType::tf32, ElementType::bf16, ElementType::f16})
        EXPECT_EQ(parse_element(element_name(t)), t);
    EXPECT_FALSE(parse_element("fp8").has_value());
    EXPECT_EQ((Precision{ElementType::bf16, ElementType::f32, ElementType::f32}).describe(), "bf16 → fp32");
    EXPECT_EQ(Precision{}.describe(), "fp32");
    EXPECT_EQ(element_label(ElementType::f32), "FP32");   // labels and cuBLAS's names: upper case
    EXPECT_EQ(element_label(ElementType::bf16), "BF16");
    EXPECT_EQ(element_label(ElementType::f16), "FP16");
}

TEST(Precision, ToleranceFollowsTheDerivation) {
    // FP32 and the 16-bit inputs (exact products, FP32 sums): the FP32 lessons' 1e-4·√K, unchanged.
    EXPECT_DOUBLE_EQ(matmul_tolerance({}, 4096), 1e-4 * 64);
    EXPECT_DOUBLE_EQ(matmul_tolerance({ElementType::bf16, ElementType::f32, ElementType::f32}, 4096), 1e-4 * 64);
    // TF32 adds its input rounding, 6·√2·2·2^-10/3 per √K; a 16-bit output adds its unit roundoff.
    const double tf32 = matmul_tolerance({ElementType::tf32, ElementType::f32, ElementType::f32}, 4096);
    EXPECT_NEAR(tf32, (1e-4 + 6 * std::sqrt(2.0) * 2 * std::ldexp(1.0, -10) / 3) * 64, 1e-12);
    EXPECT_GT(tf32, 0.3);
    EXPECT_LT(tf32, 0.4);
    EXPECT_DOUBLE_EQ(matmul_tolerance({ElementType::bf16, ElementType::f32, ElementType::bf16}, 4096),
                     1e-4 * 64 + std::ldexp(1.0, -8));
    EXPECT_NE(matmul_tolerance_rule({ElementType::tf32, ElementType::f32, ElementType::f32}).find("TF32"), std::string::npos);
}

TEST(Precision, TheRoofIsThePeakOfTheInputType) {
    const Target* h100 = find_target("h100");
    ASSERT_NE(h100, nullptr);
    EXPECT_EQ(h100->peak_gflops(ElementType::f32), h100->peak_fp32_gflops);
    EXPECT_EQ(h100->peak_gflops(ElementType::bf16), 989400);
    EXPECT_EQ(h100->peak_gflops(ElementType::tf32), 494700);
    const Target* t4 = find_target("t4");
    ASSERT_NE(t4, nullptr);
    EXPECT_EQ(t4->peak_gflops(ElementType::bf16), 0);   // Turing has no BF16 tensor instruction
    EXPECT_GT(t4->peak_gflops(ElementType::f16), 0);
}

TEST(Precision, BytesComeFromTheElementSize) {
    // A BF16 matmul reads 2-byte operands and writes 4-byte C: half the load bytes of FP32.
    const Problem p{{256, 128, 64}};
    const RunResult bf16 = model_engine().analyze({typed_matmul_variant(ElementType::bf16).id, {}, p});
    const RunResult tf32 = model_engine().analyze({typed_matmul_variant(ElementType::tf32).id, {}, p});
    ASSERT_TRUE(bf16.ok) << bf16.error;
    ASSERT_TRUE(tf32.ok) << tf32.error;
    EXPECT_EQ(bf16.precision.input, ElementType::bf16);
    EXPECT_EQ(bf16.model.load_element_bytes, 2);
    EXPECT_EQ(bf16.model.store_element_bytes, 4);
    const double loads = 2.0 * 256 * 128 * 64, stores = 256.0 * 128;
    EXPECT_DOUBLE_EQ(bf16.model.global_bytes, 2 * loads + 4 * stores);
    EXPECT_DOUBLE_EQ(tf32.model.global_bytes, 4 * loads + 4 * stores);
    EXPECT_DOUBLE_EQ(bf16.model.compulsory_bytes, 2.0 * (256 * 64 + 64 * 128) + 4.0 * 256 * 128);
    EXPECT_DOUBLE_EQ(bf16.model.intensity, bf16.model.flops / bf16.model.global_bytes);
    // The kernel compiled (NVRTC, no GPU needed) and its precision travels in the JSON.
    ASSERT_TRUE(bf16.compiled && bf16.compiled->ok) << (bf16.compiled ? bf16.compiled->error : "");
    const RunResult back = result_from_json(result_to_json(bf16));
    EXPECT_EQ(back.precision, bf16.precision);
    EXPECT_EQ(back.model.load_element_bytes, 2);
}

// A lesson without a precision parameter is FP32 and counts 4 bytes an element; one with one (a
// ParamKind::Element, lesson 12's PREC) is at each value the type it says, in its bytes.
TEST(Precision, EveryLessonIsThePrecisionItSaysAndCountsItsBytes) {
    const Problem small{{64, 64, 64}};
    for (const Variant& v : all_variants()) {
        const ParamSpec* prec = nullptr;
        for (const ParamSpec& s : v.params)
            if (s.kind == ParamKind::Element) prec = &s;
        for (int value : prec ? prec->values() : std::vector<int>{0}) {
            const ParamValues values = with_defaults(v.params, prec ? ParamValues{{prec->name, value}} : ParamValues{});
            if (!model_engine().invalid_reason({v.id, values, small}).empty()) continue;
            const Precision p = v.precision(values);
            if (!prec) EXPECT_TRUE(p.plain_fp32()) << v.id << " is " << p.describe();
            else EXPECT_EQ(element_name(p.input), prec->value_text(value)) << v.id;
            const CostModel m = v.cost_model(values, small);
            EXPECT_EQ(m.load_element_bytes, element_bytes(p.input)) << v.id;
            // Bytes are the loads' and stores' own: elements · element bytes for a kernel of one type
            // each way (every FP32 one); one whose operands differ in size (lesson 14's FP32 scores
            // beside 16-bit weights) lies strictly between 2 and 4 bytes an element.
            EXPECT_DOUBLE_EQ(m.global_bytes, m.global_load_bytes + m.global_store_bytes) << v.id;
            const bool uniform = m.global_load_bytes == element_bytes(p.input) * m.total.global_loads &&
                                 m.global_store_bytes == element_bytes(p.output) * m.total.global_stores;
            if (p.plain_fp32()) {
                EXPECT_TRUE(uniform) << v.id;
            }
            if (!uniform) {
                EXPECT_GT(m.global_load_bytes, 2 * m.total.global_loads) << v.id;
                EXPECT_LT(m.global_load_bytes, 4 * m.total.global_loads) << v.id;
                EXPECT_GT(m.global_store_bytes, 2 * m.total.global_stores) << v.id;
                EXPECT_LT(m.global_store_bytes, 4 * m.total.global_stores) << v.id;
            }
        }
    }
}

TEST(Precision, AFamilyRefusesTypesItCannotHoldInOneSentence) {
    // The stencil family is FP32 only: a BF16 stencil kernel is refused before anything compiles.
    const Variant v = define_variant<tilelab::testing::FixedKernel>(
        {.id = "test.bf16_stencil", .family = "stencil"}, [](const ParamReader&) {
            tilelab::testing::FixedKernel k{{"test/fault.cuh", "faulting_matmul<0>"},
                                            [](const Problem&) { return LaunchShape{{1, 1, 1}, {32, 1, 1}, 0}; }};
            k.element_types = {ElementType::bf16, ElementType::f32, ElementType::f32};
            return k;
        });
    add_variant(v);
    const std::string why = model_engine().invalid_reason({"test.bf16_stencil", {}, Problem{{16, 16, 16}}});
    EXPECT_NE(why.find("FP32 only"), std::string::npos) << why;
    EXPECT_NE(why.find("bf16"), std::string::npos) << why;
}

}  // namespace
