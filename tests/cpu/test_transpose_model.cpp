// The transpose's cost model (lessons/03_transpose_smem/variant.cpp) against a CPU walk of
// kernels/transpose/smem.cuh: every block, thread and loop trip, counting where the
// kernel's TL_GLOAD/TL_GSTORE/TL_SLOAD/TL_SSTORE count, at random sizes and parameters.
#include <gtest/gtest.h>
#include <random>
#include "test_target.h"
#include "tilelab/variant.h"

using namespace tilelab;

TEST(TransposeModel, TotalsEqualACpuWalkOfTheKernel) {
    const Variant* v = find_variant("transpose.smem");
    ASSERT_NE(v, nullptr);
    std::mt19937 rng(3);
    for (int n = 0; n < 40; ++n) {
        const int T = 8 << (rng() % 4), vec = 1 << (rng() % 3), pad = int(rng() % 9);
        const int W = vec * int(1 + rng() % 150), H = vec * int(1 + rng() % 150);
        SCOPED_TRACE(::testing::Message() << "TILE=" << T << " VEC=" << vec << " at " << W << "x" << H);
        AccessCounts walked;
        const int cols = T / vec;
        for (int by = 0; by < (H + T - 1) / T; ++by)
            for (int bx = 0; bx < (W + T - 1) / T; ++bx)
                for (int ty = 0; ty < 8; ++ty)
                    for (int tx = 0; tx < cols; ++tx)
                        for (int j = 0; j < T / 8; ++j) {
                            const int r = ty + 8 * j, c = tx * vec;
                            if (by * T + r < H && bx * T + c < W) walked.global_loads += vec;
                            walked.shared_stores += vec;
                            walked.shared_loads += vec;
                            if (bx * T + r < W && by * T + c < H) walked.global_stores += vec;
                        }
        const ParamValues p = with_defaults(v->params, {{"TILE", T}, {"VEC", vec}, {"PAD", pad}});
        const Problem prob{{W, H, 1}};
        ASSERT_EQ(v->invalid_reason(p, prob, tilelab::testing::test_target()), "") << "a valid configuration";
        EXPECT_EQ(v->cost_model(p, prob).total, walked);
    }
}

TEST(TransposeModel, WideAccessesNeedAlignedRows) {
    const Variant* v = find_variant("transpose.smem");
    ASSERT_NE(v, nullptr);
    const ParamValues p = with_defaults(v->params, {{"VEC", 4}});
    EXPECT_NE(v->invalid_reason(p, Problem{{1002, 1000, 1}}, tilelab::testing::test_target()).find("multiples of 4"), std::string::npos);
    EXPECT_EQ(v->invalid_reason(p, Problem{{1000, 1004, 1}}, tilelab::testing::test_target()), "");
}
