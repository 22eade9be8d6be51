// Lesson 15's kernel (kernels/attention/online_softmax.cuh) run on the CPU (engine/src/cpu/) at
// random valid configurations, every input type and odd sizes (N that no BR or BC divides, a
// partial last key tile, d from 4 to 48, one or two heads; every RPT and the mask on and off): each output is validated against the
// family's double-precision reference with its tolerance, and the global and shared accesses the
// kernel executes equal the cost model's, element for element. A kernel that forgets to rescale
// its running sum and output when the maximum grows fails the same check.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "../../families/attention/shape.h"
#include "cpu_checks.h"
#include "exercise_edits.h"
#include "model/element_bits.h"
#include "model/family_common.h"
#include "model_engine.h"
#include "tilelab/banks.h"
#include "tilelab/engine.h"
#include "tilelab/exercise.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

using test::model_engine;

std::string describe(const RunRequest& r) {
    std::string s = r.variant + " at " + format_problem(r.problem);
    for (const auto& [name, value] : r.params) s += " " + name + "=" + std::to_string(value);
    return s;
}

RunOptions on_cpu(const Problem& p) { return test::cpu_run_options(p); }

TEST(OnlineSoftmaxOnCpu, ValidatesAndCountsAsModelledAtRandomConfigurationsAndOddSizes) {
    const Variant* v = find_variant("attention.online_softmax");
    ASSERT_NE(v, nullptr);
    std::mt19937_64 rng(15);
    const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    int checked = 0;
    for (int attempt = 0; attempt < 400 && checked < 10; ++attempt) {
        RunRequest req{v->id, {}, Problem{{pick(1, 70), 4 * pick(1, 12), pick(1, 2)}}};
        for (const ParamSpec& spec : v->params) {
            const std::vector<int> values = spec.values();
            req.params[spec.name] = values[size_t(pick(0, int64_t(values.size()) - 1))];
        }
        // Keep each run to a fraction of a second on one core: at most 128 threads a block.
        if (req.params["BR"] / req.params["RPT"] * req.params["TPR"] > 128 || !model_engine().invalid_reason(req).empty()) continue;
        const RunResult r = model_engine().run(req, on_cpu(req.problem));
        ASSERT_TRUE(r.cpu.has_value()) << describe(req) << ": " << r.error;
        const CpuCheck& c = *r.cpu;
        ASSERT_EQ(c.status, "passed") << describe(req) << ": " << c.message << " " << c.validation.message;
        EXPECT_EQ(c.counted, c.model) << describe(req);
        ++checked;
    }
    EXPECT_GE(checked, 10);
}

// The exercise's update without the rescale (α): the first tile's weights keep their old scale,
// so every row with more than one key tile is wrong.
TEST(OnlineSoftmaxOnCpu, AnUpdateWithoutTheRescaleFails) {
    const Exercise* ex = test::exercise_of("attention.online_softmax");
    ASSERT_NE(ex, nullptr);
    const std::string text = test::mutated(*ex, "l[k] *= alpha;", "");
    const RunRequest req{"attention.online_softmax", {}, Problem{{75, 32, 2}}};
    const RunResult r = model_engine().run(req, UserKernel{"mine.cu", text}, on_cpu(req.problem));
    ASSERT_TRUE(r.cpu.has_value()) << r.error;
    EXPECT_EQ(r.cpu->status, "failed") << r.cpu->message;
}

// The causal mask on the CPU: the run validates against the family's causal reference and counts
// what the model says (a block stops at its diagonal tile); a kernel that keeps the tile loop's
// bound but forgets the per-key mask weighs keys past the row and fails.
TEST(OnlineSoftmaxOnCpu, TheCausalMaskValidatesCountsAsModelledAndCannotBeLeftOut) {
    const RunRequest req{"attention.online_softmax", {{"BR", 16}, {"BC", 8}, {"CAUSAL", 1}}, Problem{{75, 32, 2}}};
    const RunResult r = model_engine().run(req, on_cpu(req.problem));
    ASSERT_TRUE(r.cpu.has_value()) << r.error;
    ASSERT_EQ(r.cpu->status, "passed") << r.cpu->message << " " << r.cpu->validation.message;
    EXPECT_EQ(r.cpu->counted, r.cpu->model);
    EXPECT_LT(r.cpu->model.global_loads, 0.7 * model_engine().analyze(RunRequest{req.variant, {{"BR", 16}, {"BC", 8}}, req.problem})
                                                       .model.total.global_loads);

    const Exercise* ex = test::exercise_of("attention.online_softmax");
    ASSERT_NE(ex, nullptr);
    const std::string text = test::mutated(*ex, "(CAUSAL == 0 || n0 + j <= row[k])", "true");
    const RunResult wrong = model_engine().run(req, UserKernel{"mine.cu", text}, on_cpu(req.problem));
    ASSERT_TRUE(wrong.cpu.has_value()) << wrong.error;
    EXPECT_EQ(wrong.cpu->status, "failed") << wrong.cpu->message;
}

// SPLIT = 1 (kernels/attention/online_softmax_2d.cuh) on the CPU at odd sizes: each input type,
// the mask on and off, rows per thread and threads per row that leave a partial last key tile and
// rows past N; validated, and counted == model. The same kernel with each lane keeping its own
// tile maximum (no butterfly across the row) weighs its keys against different maxima and fails.
TEST(OnlineSoftmaxOnCpu, SplittingTheKeysValidatesCountsAsModelledAndNeedsTheRowsMaximum) {
    struct Case {
        ParamValues params;
        Problem problem;
    };
    const std::vector<Case> cases = {
        {{{"BR", 32}, {"BC", 16}, {"TPR", 4}, {"RPT", 2}}, Problem{{75, 32, 2}}},
        {{{"BR", 64}, {"BC", 32}, {"TPR", 8}, {"RPT", 4}, {"CAUSAL", 1}}, Problem{{70, 32, 1}}},
        {{{"BR", 16}, {"BC", 8}, {"TPR", 4}, {"RPT", 2}, {"PREC", int(ElementType::bf16)}, {"CAUSAL", 1}}, Problem{{41, 48, 2}}},
        {{{"BR", 64}, {"BC", 16}, {"TPR", 1}, {"RPT", 2}, {"PREC", int(ElementType::f16)}}, Problem{{37, 12, 1}}},
    };
    for (const Case& c : cases) {
        RunRequest req{"attention.online_softmax", c.params, c.problem};
        req.params["SPLIT"] = 1;
        ASSERT_EQ(model_engine().invalid_reason(req), "") << describe(req);
        const RunResult r = model_engine().run(req, on_cpu(req.problem));
        ASSERT_TRUE(r.cpu.has_value()) << describe(req) << ": " << r.error;
        ASSERT_EQ(r.cpu->status, "passed") << describe(req) << ": " << r.cpu->message << " " << r.cpu->validation.message;
        EXPECT_EQ(r.cpu->counted, r.cpu->model) << describe(req);
        EXPECT_EQ(r.kernel_file, "attention/online_softmax_2d.cuh");
    }
    const std::string text = test::kernel_with("attention/online_softmax_2d.cuh",
                                               "top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, offset << kShift));", "(void)offset;");
    RunRequest req{"attention.online_softmax", cases[0].params, cases[0].problem};
    req.params["SPLIT"] = 1;
    EXPECT_EQ(test::cpu_status_of_text(req, text), "failed");
}

// The bank model of both kernels (variant.cpp's shared sites, tilelab/banks.h's measured rule):
// SPLIT 0's float4 reads take four wavefronts from TPR = 4 on (an H200's counters: 4.00 at the
// defaults) and two at TPR ≤ 2, where neighbouring lanes share addresses. SPLIT 1's lane pairing
// gives two for every float4 read and one for every scalar store of P — except at TPR = 32, where
// a warp holds one row and its lanes' keys all differ (K and V reads take four). No conflicts at
// head widths that are multiples of 32 and TPR ≥ 4 (below it P's stores share banks); and the
// float4 reads the sites issue are the model's shared loads, float for float.
TEST(OnlineSoftmaxModel, TheBankModelGivesTwoWavefrontsAFloat4ReadOnlyWhereLanesShareAddresses) {
    const Variant* v = find_variant("attention.online_softmax");
    ASSERT_NE(v, nullptr);
    struct Case {
        ParamValues params;
        Problem problem;
        double read_wavefronts;   // per float4 read instruction (K and V reads at TPR = 32: 4)
    };
    const std::vector<Case> cases = {
        {{}, Problem{{4096, 64, 64}}, 4},
        {{{"TPR", 8}, {"RPT", 4}, {"BC", 16}}, Problem{{4096, 128, 64}}, 4},
        {{{"TPR", 2}}, Problem{{1000, 64, 3}}, 2},
        {{{"SPLIT", 1}, {"BR", 64}, {"BC", 32}, {"TPR", 8}, {"RPT", 4}}, Problem{{1024, 64, 8}}, 2},
        {{{"SPLIT", 1}, {"BR", 128}, {"BC", 64}, {"TPR", 16}, {"RPT", 8}, {"CAUSAL", 1}}, Problem{{4000, 128, 2}}, 2},
        {{{"SPLIT", 1}, {"BR", 64}, {"BC", 32}, {"TPR", 4}, {"RPT", 2}}, Problem{{77, 96, 2}}, 2},
        {{{"SPLIT", 1}, {"BR", 32}, {"BC", 32}, {"TPR", 32}, {"RPT", 1}}, Problem{{300, 128, 1}}, 2},
    };
    for (const Case& c : cases) {
        const ParamValues values = with_defaults(v->params, c.params);
        SCOPED_TRACE(v->kernel(values).name_expression + " at " + format_problem(c.problem));
        ASSERT_TRUE(v->declares_shared_sites);
        const CostModel m = v->cost_model(values, c.problem);
        const BankModel b = bank_model(v->shared_sites(values, c.problem));
        double read_floats = 0;
        for (const BankSiteTotals& site : b.sites) {
            SCOPED_TRACE(site.name);
            EXPECT_EQ(site.conflicts(), 0.0);
            if (site.store && site.width_bytes == 4) {
                EXPECT_EQ(site.wavefronts, site.instructions);
            } else if (!site.store) {
                const bool one_row = values.at("TPR") == 32 && site.name.find("Q") != 0 && site.name.find("P") != 0;
                EXPECT_EQ(site.wavefronts, (one_row ? 4 : c.read_wavefronts) * site.instructions);
                read_floats += site.instructions * 32 * 4;
            }
        }
        EXPECT_EQ(read_floats, m.total.shared_loads);
    }
}

// The Tiles panel's row trace (families/attention/model.h) walks the tiles the row's block walks
// and ends at what a plain two-pass softmax of that row gives: the largest score it sees and the
// sum of e^(s − max), with the inputs seeded and rounded (here BF16) as the run's are.
TEST(OnlineSoftmaxModel, TheTilesPanelsRowTraceEndsAtTheRowsMaximumAndSum) {
    const Variant* v = find_variant("attention.online_softmax");
    ASSERT_NE(v, nullptr);
    const ParamValues values =
        with_defaults(v->params, {{"BR", 16}, {"BC", 8}, {"CAUSAL", 1}, {"PREC", int(ElementType::bf16)}});
    const Problem p{{75, 32, 2}};
    const TileGeometry g = v->tiles(values, p);
    ASSERT_TRUE(g.stream_trace);
    const int64_t row = 37, d = 32;
    const uint64_t seed = 1234;
    const std::vector<StreamStep> steps = g.stream_trace(row, seed);
    EXPECT_EQ(int64_t(steps.size()), g.stream_steps(row / 16)) << "block 2 stops at key 47: 6 tiles of 8";
    EXPECT_EQ(steps.size(), 6u);
    auto input = [&](uint64_t s, int64_t r, int64_t c) {
        return double(round_to_element(seeded_uniform(s, uint64_t(r * d + c)), ElementType::bf16));
    };
    std::vector<double> scores;
    for (int64_t j = 0; j <= row; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < d; ++c) dot += input(seed, row, c) * input(seed ^ kAttentionSeedK, j, c);
        scores.push_back(dot / std::sqrt(double(d)));
    }
    double top = scores[0], sum = 0;
    for (const double s : scores) top = std::max(top, s);
    for (const double s : scores) sum += std::exp(s - top);
    EXPECT_DOUBLE_EQ(steps.back().m, top);
    EXPECT_NEAR(steps.back().l, sum, 1e-12 * sum);
    EXPECT_EQ(steps.front().alpha, 0.0) << "nothing to rescale before the first tile";
    for (size_t i = 1; i < steps.size(); ++i) {
        EXPECT_GT(steps[i].alpha, 0.0);
        EXPECT_LE(steps[i].alpha, 1.0);
        EXPECT_GE(steps[i].m, steps[i - 1].m);
    }
}

}  // namespace
}  // namespace tilelab
