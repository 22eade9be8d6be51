// Lesson 21's cost model against a CPU walk of kernels/matmul/tma_wgmma.cuh as its counting build
// counts: every block, every slice thread 0 asks TMA for (the elements inside A and B it reads,
// the whole boxes it writes into shared memory), every wgmma the warpgroup issues (its 64×16 of A
// and 16×WGN of B read from shared memory) and every store of C by every thread in wgmma's
// accumulator layout. Exact at random configurations, odd M and sizes that are not multiples of the
// tiles. Also the launch: its tensor maps cover A and B with boxes one swizzled row wide, whose
// bytes add up to the stage the mbarrier expects, and the shared memory holds the aligned ring.
// The products themselves are checked on the GPU (scripts/gpu_tensor_check.sh 21).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "lookups.h"
#include "model_engine.h"
#include "random_requests.h"
#include "tilelab/engine.h"
#include "tilelab/precision.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

using test::model_engine;
using test::registered_variant;

const Variant& wgmma() { return registered_variant("matmul.tma_wgmma"); }

struct Walked {
    AccessCounts total;
    double wgmmas = 0;
};

Walked walk(const ParamValues& v, const Problem& p) {
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    const int bm = v.at("BM"), bn = v.at("BN"), bk = v.at("BK"), wgn = v.at("WGN");
    const int64_t gx = (N + bn - 1) / bn, gy = (M + bm - 1) / bm, slices = (K + bk - 1) / bk;
    Walked w;
    for (int64_t by = 0; by < gy; ++by)
        for (int64_t bx = 0; bx < gx; ++bx) {
            const int64_t m0 = by * bm, n0 = bx * bn;
            for (int64_t t = 0; t < slices; ++t) {
                const int64_t k_in = std::min<int64_t>(bk, K - t * bk);
                w.total.global_loads += double(k_in * (std::min<int64_t>(bm, M - m0) + std::min<int64_t>(bn, N - n0)));
                w.total.shared_stores += double(bm * bk + bk * bn);
                for (int kk = 0; kk < bk / 16; ++kk)
                    for (int i = 0; i < bm / 64; ++i)
                        for (int j = 0; j < bn / wgn; ++j) {
                            w.total.shared_loads += 64 * 16 + 16 * wgn;
                            w.wgmmas += 1;
                        }
            }
            for (int thread = 0; thread < 128; ++thread)
                for (int i = 0; i < bm / 64; ++i)
                    for (int j = 0; j < bn / wgn; ++j)
                        for (int c = 0; c < wgn / 8; ++c)
                            for (int h = 0; h < 2; ++h) {
                                const int lane = thread % 32, warp = thread / 32;
                                const int64_t row = m0 + 64 * i + 16 * warp + lane / 4 + 8 * h;
                                const int64_t col = n0 + j * wgn + 8 * c + 2 * (lane % 4);
                                if (row >= M) continue;
                                w.total.global_stores += col + 1 < N ? 2 : col < N ? 1 : 0;
                            }
        }
    return w;
}

ParamValues with(const std::vector<std::string>& sets) { return test::values_with(wgmma(), sets); }

// Random valid configurations at sizes with N and K multiples of 8 (TMA's rows), M any.
TEST(TmaWgmmaModel, CountsEqualTheWalkAtRandomConfigurationsAndOddSizes) {
    const Variant& v = wgmma();
    std::mt19937 rng(20261201);
    int checked = 0;
    for (const RunRequest& base : test::random_valid_requests(v, 30, 20261201, {.max_dim = 400, .align = 8, .aligned_every = 1})) {
        RunRequest req = base;
        if (checked % 2 == 1) req.problem.dim[0] = std::uniform_int_distribution<int64_t>(1, 400)(rng) | 1;   // odd M
        ASSERT_EQ(model_engine().invalid_reason(req), "");
        const ParamValues values = with_defaults(v.params, req.params);
        SCOPED_TRACE(v.kernel(values).name_expression + " at " + format_problem(req.problem));
        const CostModel m = v.cost_model(values, req.problem);
        const Walked w = walk(values, req.problem);
        EXPECT_EQ(m.total, w.total);
        EXPECT_DOUBLE_EQ(test::extra_value(m, "wgmma, total"), w.wgmmas);
        EXPECT_EQ(m.load_element_bytes, 2);
        EXPECT_EQ(m.store_element_bytes, 4);
        ++checked;
    }
    EXPECT_EQ(checked, 30);
}

// The tensor maps cover A (K×M) and B (N×K) with boxes one swizzled row wide; the boxes of a
// slice add up to the bytes the stage's mbarrier is told to expect; the ring fits its 1024-byte
// alignment, its barriers and the stages.
TEST(TmaWgmmaModel, TheTensorMapsBoxesFillExactlyOneStage) {
    const Variant& v = wgmma();
    for (const char* swizzle : {"SWIZZLE=32", "SWIZZLE=64", "SWIZZLE=128"})
        for (const char* bk : {"BK=64", "BK=128"}) {
            const ParamValues values = with({swizzle, bk, "STAGES=3"});
            const Problem p = test::size(1000, 512, 776);
            const LaunchShape l = v.launch(values, p);
            ASSERT_EQ(l.tensor_maps.size(), 2u);
            const TensorMapSpec& a = l.tensor_maps[0];
            const TensorMapSpec& b = l.tensor_maps[1];
            const int sw = values.at("SWIZZLE"), bm = values.at("BM"), bn = values.at("BN"), k = values.at("BK");
            EXPECT_EQ(a.arg, 0);
            EXPECT_EQ(b.arg, 1);
            EXPECT_EQ(a.dims[0], 776u);
            EXPECT_EQ(a.dims[1], 1000u);
            EXPECT_EQ(a.strides[0], 2u * 776);
            EXPECT_EQ(b.dims[0], 512u);
            EXPECT_EQ(b.dims[1], 776u);
            EXPECT_EQ(b.strides[0], 2u * 512);
            for (const TensorMapSpec* m : {&a, &b}) {
                EXPECT_EQ(m->swizzle, sw);
                EXPECT_EQ(int(m->box[0]) * m->element_bytes, sw) << "a box is one swizzled row wide";
            }
            const int boxes_a = k / (sw / 2), boxes_b = bn / (sw / 2);
            const double stage = test::extra_value(v.cost_model(values, p), "bytes / stage");
            EXPECT_EQ(boxes_a * int(a.box[0] * a.box[1]) * 2 + boxes_b * int(b.box[0] * b.box[1]) * 2, int(stage));
            EXPECT_EQ(int(a.box[1]), bm);
            EXPECT_EQ(int(b.box[1]), k);
            EXPECT_EQ(int(l.dynamic_smem), 3 * int(stage) + 3 * 8 + 1024);
            EXPECT_EQ(l.block[0], 128u);
        }
}

TEST(TmaWgmmaModel, OnlySm90RunsItElsewhereItIsAnalysedAndEachRefusalSaysWhy) {
    const Variant& v = wgmma();
    auto reason = [&](const std::vector<std::string>& sets, const char* preset, Problem p = test::size(256, 256, 256)) {
        const Target* t = find_target(preset);
        if (!t) throw std::runtime_error(std::string("no target preset ") + preset);
        return v.invalid_reason(with(sets), p, *t);
    };
    EXPECT_EQ(reason({}, "h100"), "");
    EXPECT_EQ(reason({}, "h200"), "");
    EXPECT_EQ(reason({"PREC=fp16"}, "h100"), "");
    // Elsewhere it is analysed, not compiled: the model stands and the compile row says why.
    for (const char* preset : {"a100", "rtx4090"}) {
        EXPECT_EQ(reason({}, preset), "") << preset;
        Engine engine(EngineConfig{"", /*force_model_mode=*/true});
        engine.set_target(*find_target(preset));
        const RunResult r = engine.analyze(RunRequest{.variant = v.id, .params = {}, .problem = test::size(256, 256, 256)});
        ASSERT_TRUE(r.ok) << preset << ": " << r.error;
        ASSERT_TRUE(r.compiled);
        EXPECT_FALSE(r.compiled->ok);
        EXPECT_NE(r.compiled->error.find("sm_90a"), std::string::npos) << r.compiled->error;
        EXPECT_NE(r.compiled->error.find(find_target(preset)->arch_name()), std::string::npos) << r.compiled->error;
        EXPECT_EQ(r.model.total.global_loads, 256.0 * 256 * 2 * 2) << "the model at 256³: A and B read twice each";
        // Six stages (197,680 bytes) exceed these GPUs' blocks but not sm_90's, the only limits it meets.
        const RunResult six = engine.analyze(RunRequest{.variant = v.id, .params = {{"STAGES", 6}}, .problem = test::size(256, 256, 256)});
        EXPECT_TRUE(six.ok) << preset << ": " << six.error;
    }
    EXPECT_NE(reason({}, "h100", test::size(256, 255, 256)).find("multiples of 8"), std::string::npos);
    EXPECT_NE(reason({}, "h100", test::size(256, 256, 100)).find("multiples of 8"), std::string::npos);
    EXPECT_EQ(reason({}, "h100", test::size(255, 256, 256)), "") << "M is free: TMA zero-fills the last rows";
    EXPECT_NE(reason({"BK=32", "SWIZZLE=128"}, "h100").find("BK=32"), std::string::npos);
    EXPECT_NE(reason({"BN=64", "WGN=128"}, "h100").find("BN=64"), std::string::npos);
    EXPECT_NE(reason({"BM=256", "BN=128"}, "h100").find("256"), std::string::npos) << "256 sums a thread";
    EXPECT_NE(reason({"STAGES=1", "INFLIGHT=1"}, "h100").find("STAGES"), std::string::npos);
    EXPECT_NE(reason({"STAGES=8", "BK=128"}, "h100").find("shared memory"), std::string::npos);
    EXPECT_EQ(v.kernel(with({})).arch_specific, 90) << "wgmma and setmaxnreg exist in sm_90a only";
}

}  // namespace
}  // namespace tilelab
