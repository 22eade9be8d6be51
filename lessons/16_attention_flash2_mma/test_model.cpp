// Lesson 16's cost model, bank model and constraints, and its kernel run on the CPU (the GPU's
// VariantOnGpu checks it there too). The walk below follows
// kernels/attention/flash2_mma.cuh's loops and branches: every thread's 16-byte copies of Q once
// and of K and V per key tile (zero-filled past N, counted only inside), every warp's ldmatrix.x4
// (8 values a lane), and the float2 stores of O's rows inside N; with CAUSAL, a block's key loop
// stops at the tile holding its last row's key. Counts must equal the model's at
// random valid configurations and odd sizes. The shared sites must put every copy on its own piece
// and read every fragment without a bank conflict, at every head width.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "../../families/attention/shape.h"
#include "cpu_checks.h"
#include "exercise_edits.h"
#include "lookups.h"
#include "model_engine.h"
#include "random_requests.h"
#include "tilelab/banks.h"
#include "tilelab/compile.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

using test::model_engine;
using test::registered_variant;

const Variant& flash2() { return registered_variant("attention.flash2_mma"); }

AccessCounts walk(const ParamValues& v, const Problem& p) {
    const int64_t N = p.dim[0], d = p.dim[1], BH = p.dim[2];
    const int br = v.at("BR"), bc = v.at("BC"), warps = v.at("WARPS"), T = 32 * warps;
    const bool causal = v.at("CAUSAL") != 0;
    const int pieces = int(d / 8), tiles_m = br / warps / 16;
    AccessCounts c;
    auto copy = [&](int rows, int64_t first) {
        for (int r = 0; r < rows * pieces / T; ++r)
            for (int t = 0; t < T; ++t) {
                const int e = t + r * T;
                if (first + e / pieces < N) c.global_loads += 8;
                c.shared_stores += 8;
            }
    };
    for (int64_t head = 0; head < BH; ++head)
        for (int64_t row0 = 0; row0 < N; row0 += br) {
            copy(br, row0);
            c.shared_loads += double(warps) * tiles_m * (d / 16) * 32 * 8;   // Q's fragments
            const int64_t keys = causal ? std::min(N, row0 + br) : N;   // the block's last key + 1
            for (int64_t n0 = 0; n0 < keys; n0 += bc) {
                copy(bc, n0);   // K
                copy(bc, n0);   // V
                c.shared_loads += double(warps) * (d / 16) * (bc / 16) * 32 * 8;   // K's fragments
                c.shared_loads += double(warps) * (bc / 16) * (d / 16) * 32 * 8;   // V's fragments
            }
            for (int warp = 0; warp < warps; ++warp)
                for (int i = 0; i < tiles_m; ++i)
                    for (int lane = 0; lane < 32; ++lane)
                        for (int h = 0; h < 2; ++h)
                            if (row0 + warp * (br / warps) + 16 * i + lane / 4 + 8 * h < N) c.global_stores += 2 * (d / 8);
        }
    return c;
}

TEST(Flash2Model, CountsEqualTheWalkAtRandomConfigurationsAndOddSizes) {
    test::for_random_models(flash2(), 30, 20261130, {.max_dim = 200, .align = 16, .aligned_every = 1},
                            [&](const ParamValues& values, const Problem&, const CostModel&) {
        // d must be a multiple of 16 (the requests are aligned); N and BH odd on purpose.
        for (const int64_t N : {1, 77, 130, 301})
            for (const int64_t BH : {1, 3}) {
                const Problem p{{N, 64, BH}};
                if (!model_engine().invalid_reason(RunRequest{.variant = flash2().id, .params = values, .problem = p}).empty())
                    continue;
                SCOPED_TRACE("N=" + std::to_string(N) + " BH=" + std::to_string(BH));
                const CostModel m = flash2().cost_model(values, p);
                EXPECT_EQ(m.total, walk(values, p));
                EXPECT_EQ(m.load_element_bytes, 2);
                EXPECT_EQ(m.store_element_bytes, 4);
            }
    });
}

ParamValues with(std::initializer_list<std::pair<const std::string, int>> given) {
    return with_defaults(flash2().params, ParamValues(given));
}

// The mask halves the work: at N = 4096 and BR = BC = 64, block b streams b + 1 key tiles,
// 64·65/2 = 2080 of the 64·64 = 4096 tiles; the FLOPs count the N·(N+1)/2 scores kept; the
// variant asks its family for the causal reference, and the kernel is named with the mask.
TEST(Flash2Model, TheCausalMaskSkipsTheTilesPastEachBlocksDiagonal) {
    const Problem p{{4096, 64, 4}};
    const CostModel plain = flash2().cost_model(with({}), p), causal = flash2().cost_model(with({{"CAUSAL", 1}}), p);
    EXPECT_DOUBLE_EQ(test::extra_value(causal, "key tiles skipped whole (all blocks)"), 4.0 * (4096 - 2080));
    EXPECT_DOUBLE_EQ(causal.total.global_loads, 4.0 * 64 * (4096 + 2 * 2080 * 64));
    EXPECT_DOUBLE_EQ(plain.total.global_loads, 4.0 * 4096 * 64 * (1 + 2 * 64));
    EXPECT_DOUBLE_EQ(causal.flops, 2.0 * 4096 * 4097 * 64 * 4);
    EXPECT_EQ(flash2().bind(with({{"CAUSAL", 1}}))->family_options(), (FamilyOptions{{"causal", 1}}));
    EXPECT_EQ(flash2().bind(with({}))->family_options(), (FamilyOptions{{"causal", 0}}));
    EXPECT_NE(kernel_for(flash2(), with({{"CAUSAL", 1}}), p).name_expression.find(", 1>"), std::string::npos);
}

// Every copy of a tile lands on its own 16-byte piece inside the shared memory, and the pieces
// cover the three tiles exactly; every ldmatrix phase reads eight different 16-byte columns.
TEST(Flash2Model, TheSwizzlePlacesEveryPieceOnceAndReadsEveryFragmentWithoutConflicts) {
    for (const int d : {32, 64, 128})
        for (const int bc : {32, 64}) {
            const ParamValues values = with({{"BC", bc}});
            const Problem p{{1000, d, 2}};
            if (!model_engine().invalid_reason(RunRequest{.variant = flash2().id, .params = values, .problem = p}).empty())
                continue;
            SCOPED_TRACE("d=" + std::to_string(d) + " BC=" + std::to_string(bc));
            const int64_t smem = int64_t(test::extra_value(flash2().cost_model(values, p), "dynamic shared memory (bytes)"));
            std::set<int64_t> seen;
            for (const SharedAccessSite& s : flash2().shared_sites(values, p)) {
                for (int inst = 0; inst < s.instances; ++inst)
                    for (int w = 0; w < s.warps(); ++w) {
                        const WarpBanks b = s.warp(inst, w);
                        EXPECT_EQ(b.conflicts(), 0) << s.name << " instance " << inst << " warp " << w;
                    }
                if (!s.store) continue;
                for (int r = 0; r < s.instances; ++r)
                    for (int t = 0; t < s.threads; ++t) {
                        const int64_t at = s.byte_address(r, t);
                        EXPECT_EQ(at % 16, 0);
                        EXPECT_TRUE(at >= 0 && at < smem) << s.name << " at " << at;
                        EXPECT_TRUE(seen.insert(at).second) << s.name << " copy " << r << "," << t << " at " << at;
                    }
            }
            EXPECT_EQ(int64_t(seen.size()) * 16, smem);
        }
}

TEST(Flash2Model, EachRefusalSaysWhy) {
    const Target* h100 = find_target("h100");
    const Target* t4 = find_target("t4");
    ASSERT_TRUE(h100 && t4);
    auto reason = [&](std::initializer_list<std::pair<const std::string, int>> given, int64_t d, const Target& t) {
        return flash2().invalid_reason(with(given), Problem{{4096, d, 4}}, t);
    };
    EXPECT_EQ(reason({}, 64, *h100), "");
    EXPECT_EQ(reason({{"PREC", int(ElementType::bf16)}}, 128, *h100), "");
    EXPECT_EQ(reason({}, 64, *t4), "") << "FP16 mma.sync runs on sm_75";
    EXPECT_NE(reason({{"PREC", int(ElementType::bf16)}}, 64, *t4).find("sm_80"), std::string::npos);
    EXPECT_NE(reason({}, 72, *h100).find("power of two"), std::string::npos) << "d = 72 is no whole mma.sync step";
    EXPECT_NE(reason({}, 96, *h100).find("power of two"), std::string::npos) << "192-byte rows: the XOR leaves the row";
    EXPECT_NE(reason({{"BR", 32}, {"WARPS", 4}}, 64, *h100).find("multiple of 64"), std::string::npos);
    EXPECT_NE(reason({{"BR", 128}, {"WARPS", 4}, {"BC", 128}}, 128, *h100).find("(128/2 + 128/2 + 128/4) = 320"), std::string::npos)
        << "32 rows a warp at d = 128 and BC = 128: 2·(64 + 64 + 32) = 320 registers of state";
    EXPECT_NE(reason({{"BR", 256}, {"WARPS", 16}, {"BC", 256}}, 256, *h100), "");
}

// The kernel itself on the CPU (engine/src/cpu/cpu_tensor.cpp models ldmatrix, mma.sync and
// cp.async as the PTX ISA defines them): validated, and counted == model, with either input type,
// the mask, one and two stages, at N that no tile divides. Two mistakes a learner makes fail: V's
// fragments read without .trans, and V's copies used before waiting for them (a race).
TEST(Flash2OnCpu, ValidatesCountsAsModelledAndCatchesAMissingTransposeAndAMissingWait) {
    struct Case {
        ParamValues params;
        Problem problem;
    };
    const std::vector<Case> cases = {
        {{}, Problem{{75, 32, 2}}},
        {{{"PREC", int(ElementType::bf16)}, {"CAUSAL", 1}}, Problem{{75, 64, 1}}},
        {{{"BR", 128}, {"WARPS", 8}, {"BC", 64}, {"STAGES", 1}}, Problem{{131, 64, 1}}},
        {{{"PREC", int(ElementType::bf16)}, {"BR", 64}, {"BC", 16}, {"WARPS", 4}, {"CAUSAL", 1}}, Problem{{37, 128, 1}}},
    };
    for (const Case& c : cases) {
        const RunRequest req{"attention.flash2_mma", c.params, c.problem};
        ASSERT_EQ(model_engine().invalid_reason(req), "") << format_problem(c.problem);
        test::expect_cpu_run_passes_with_the_models_counts(req, 1234);
    }
    const std::string* source = embedded_source("attention/flash2_mma.cuh");
    ASSERT_NE(source, nullptr);
    const RunRequest req{"attention.flash2_mma", {}, Problem{{75, 32, 2}}};
    EXPECT_EQ(test::cpu_status_of_text(req, *source), "passed");
    EXPECT_EQ(test::cpu_status_of_text(
                  req, test::kernel_with("attention/flash2_mma.cuh", "mma_ldmatrix_x4_trans(b, v_tile", "mma_ldmatrix_x4(b, v_tile")),
              "failed");
    const RunRequest bf16{"attention.flash2_mma", {{"PREC", int(ElementType::bf16)}}, Problem{{75, 32, 2}}};
    EXPECT_EQ(test::cpu_status_of_text(bf16, *source), "passed");
    // The copy lands at the next wait, after P·V has read the buffer: reported as the race it is.
    const std::string no_wait = test::cpu_status_of_text(
        bf16, test::kernel_with("attention/flash2_mma.cuh", "tl_wait<0, kAsync>();\n            __syncthreads();   // V_t is in",
                                "__syncthreads();   // V_t is in"));
    EXPECT_TRUE(no_wait == "failed" || no_wait == "fault") << no_wait;
}

// The weights P are rounded to the input type on their way into P·V: the variant says so, and the
// family's tolerance grows by that type's unit roundoff (families/attention/shape.cpp).
TEST(Flash2Model, RoundingPToTheInputTypeWidensTheToleranceByItsUnitRoundoff) {
    const Precision bf16 = flash2().precision(with({{"PREC", int(ElementType::bf16)}}));
    EXPECT_EQ(bf16.intermediate, ElementType::bf16);
    EXPECT_NE(bf16.describe().find("P in bf16"), std::string::npos);
    EXPECT_DOUBLE_EQ(attention_tolerance(2048, 64, ElementType::bf16, {}) - attention_tolerance(2048, 64, ElementType::f32, {}),
                     std::ldexp(1.0, -8));
    EXPECT_DOUBLE_EQ(attention_tolerance(2048, 64, ElementType::f16, {}) - attention_tolerance(2048, 64, ElementType::f32, {}),
                     std::ldexp(1.0, -11));
    EXPECT_NEAR(attention_tolerance(2048, 64, ElementType::bf16, {}), 4.18e-3, 0.005e-3) << "the lesson's figure";
}

}  // namespace
}  // namespace tilelab
