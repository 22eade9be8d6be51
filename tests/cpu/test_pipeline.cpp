// One block's pipeline timeline (tilelab/pipeline.h) against timelines worked by hand from its
// rules: a load-bound ring, a compute-bound one, a latency that two stages cannot hide and four
// can, stores between tiles with and without turns; the fit back to a load time; bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tilelab/pipeline.h"

namespace tilelab {
namespace {

PipelineInput ring(int stages, int64_t slices, double mma, double load, double latency = 0) {
    return PipelineInput{.stages = stages, .slices = slices, .mma_us = mma, .load_us = load, .latency_us = latency};
}

// Loads of 2 behind multiplies of 1: slice g arrives at 2(g + 1) and is multiplied at once; the
// tensor pipe waits 2 before the first and 1 before each of the 7 others. The producer, with four
// loads queued at 0, waits too: stage 0 comes back when slice 1 starts (4), then one every 2 (the
// stages of slices 1, 2, 3 at 6, 8, 10), held 4 + 2 + 2 + 2 — waiting on stages does not mean the
// loads are not the bound.
TEST(Pipeline, ALoadBoundRingRunsAtTheLoadRate) {
    const PipelineTimeline t = simulate_pipeline(ring(4, 8, 1, 2));
    EXPECT_DOUBLE_EQ(t.end_us, 17);
    EXPECT_DOUBLE_EQ(t.consumer_wait_us, 9);
    EXPECT_DOUBLE_EQ(t.producer_wait_us, 10);
}

// Multiplies of 2, loads of 1: after the first arrival the multiplies run back to back, and the
// producer is held at empty stages (it is 3 slices ahead and would run further).
TEST(Pipeline, AComputeBoundRingRunsAtTheTensorRate) {
    const PipelineTimeline t = simulate_pipeline(ring(4, 8, 2, 1));
    EXPECT_DOUBLE_EQ(t.end_us, 17);
    EXPECT_DOUBLE_EQ(t.consumer_wait_us, 1);
    EXPECT_GT(t.producer_wait_us, 0);
}

// A latency of 3 and multiplies of 1. Two stages: slice g is issued when slice g − 1 starts (slice
// g − 2's stage handed back), so a slice starts every 3: 3, 4, 7, 10, 13, 16, the end 17. Four
// stages: three loads in flight cover it: 3, 4, 5, 6, then 7 (issued at 4), 8: the end 9.
TEST(Pipeline, MoreStagesHideTheLatency) {
    EXPECT_DOUBLE_EQ(simulate_pipeline(ring(2, 6, 1, 0, 3)).end_us, 17);
    EXPECT_DOUBLE_EQ(simulate_pipeline(ring(4, 6, 1, 0, 3)).end_us, 9);
}

// Two tiles of two slices, stores of 5. Together: the second tile's first multiply waits for the
// first tile's store (2 → 7), its own store ends at 14. In turns: the second group multiplies at
// 2 while the first stores, and its own store ends at 4 + 5 = 9.
TEST(Pipeline, ConsumersInTurnsMultiplyWhileTheOthersStore) {
    PipelineInput in = ring(4, 2, 1, 0);
    in.tiles = 2;
    in.store_us = 5;
    EXPECT_DOUBLE_EQ(simulate_pipeline(in).end_us, 14);
    EXPECT_DOUBLE_EQ(simulate_pipeline(in).consumer_wait_us, 5);
    in.groups = 2;
    EXPECT_DOUBLE_EQ(simulate_pipeline(in).end_us, 9);
    EXPECT_DOUBLE_EQ(simulate_pipeline(in).consumer_wait_us, 0);
}

// Every stage row holds a slice from its issue to its hand-back without overlap, in slice order.
TEST(Pipeline, AStageHoldsOneSliceAtATime) {
    const PipelineTimeline t = simulate_pipeline(ring(3, 10, 1, 0.7, 2.5));
    std::vector<double> free_at(3, 0);
    std::vector<int64_t> last(3, -1);
    for (const PipelineSpan& s : t.spans) {
        if (s.lane >= 3 || s.kind != PipelineSpanKind::Loading) continue;
        EXPECT_GE(s.start_us, free_at[size_t(s.lane)] - 1e-12) << "slice " << s.slice;
        EXPECT_EQ(s.slice % 3, s.lane);
        EXPECT_GT(s.slice, last[size_t(s.lane)]);
        last[size_t(s.lane)] = s.slice;
        for (const PipelineSpan& r : t.spans)   // the hand-back of the slice now loading into this stage
            if (r.lane == s.lane && r.slice == s.slice && r.kind == PipelineSpanKind::Multiplying) free_at[size_t(s.lane)] = r.end_us;
    }
}

TEST(Pipeline, TheFitFindsTheLoadTimeBack) {
    const PipelineInput in = ring(4, 8, 1, 2);
    const auto load = fit_load_us(in, simulate_pipeline(in).end_us);
    ASSERT_TRUE(load.has_value());
    EXPECT_NEAR(*load, 2, 2e-3);
    EXPECT_FALSE(fit_load_us(in, 5).has_value()) << "8 multiplies of 1 cannot end by 5";
    // With stores the same rate moves them: fitted from loads of 1 and stores of 2 (a rate half the
    // true one), the loads of 2 come back and the stores with them.
    PipelineInput stored = in;
    stored.tiles = 2, stored.store_us = 4;
    const double end = simulate_pipeline(stored).end_us;
    stored.load_us = 1, stored.store_us = 2;
    const auto back = fit_load_us(stored, end);
    ASSERT_TRUE(back.has_value());
    EXPECT_NEAR(*back, 2, 2e-3);
    // A measurement long against the load (lesson 22's two stages at 4096³: 256 slices, a stage's
    // load under 1 µs, 279 µs measured): the fitted block ends at the measured time.
    PipelineInput two{.stages = 2, .slices = 64, .tiles = 4, .mma_us = 0.517, .load_us = 49.152, .store_us = 131.072};
    const auto fitted = fit_load_us(two, 278.75);
    ASSERT_TRUE(fitted.has_value());
    two.store_us *= *fitted / two.load_us, two.load_us = *fitted;
    EXPECT_NEAR(simulate_pipeline(two).end_us, 278.75, 278.75 * 1e-3);
}

TEST(Pipeline, BadInputGetsAReasonAndNoTimeline) {
    EXPECT_NE(pipeline_input_error(ring(0, 8, 1, 1)), "");
    EXPECT_NE(pipeline_input_error(ring(4, 0, 1, 1)), "");
    EXPECT_NE(pipeline_input_error(ring(4, 8, std::numeric_limits<double>::quiet_NaN(), 1)), "");
    EXPECT_NE(pipeline_input_error(ring(4, 8, 1, -1)), "");
    PipelineInput huge = ring(4, int64_t(1) << 40, 1, 1);
    EXPECT_NE(pipeline_input_error(huge), "");
    EXPECT_TRUE(simulate_pipeline(huge).spans.empty());
    EXPECT_FALSE(fit_load_us(huge, 1).has_value());
    EXPECT_EQ(pipeline_input_error(ring(4, 8, 1, 1)), "");
}

}  // namespace
}  // namespace tilelab
