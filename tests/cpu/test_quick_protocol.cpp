// The quick protocol (a drag's first measured result) keeps its timed launches within a budget:
// fast kernels keep one warm-up and three repetitions, slow ones (lesson 07's spilling kernels)
// are timed fewer times, never less than once; full runs keep their plan whatever a launch takes.
#include <gtest/gtest.h>
#include "tilelab/result.h"

namespace tilelab {
namespace {

TEST(QuickProtocol, FastKernelsKeepTheirWarmUpAndThreeRepetitions) {
    const RunOptions quick = quick_protocol(RunOptions{});
    const LaunchCounts n = timed_launches(quick, 0.35);
    EXPECT_EQ(n.warmup, 1);
    EXPECT_EQ(n.repetitions, 3);
    EXPECT_LE(0.35 * (n.warmup + n.repetitions), kQuickTimingMs);
}

TEST(QuickProtocol, SlowKernelsAreTimedFewerTimesWithinTheBudgetButAtLeastOnce) {
    const RunOptions quick = quick_protocol(RunOptions{});
    for (const double ms : {2.6, 4.0, 5.5, 8.0, 12.0, 19.0, 40.0, 300.0}) {
        const LaunchCounts n = timed_launches(quick, ms);
        EXPECT_EQ(n.warmup, 0) << ms;
        EXPECT_GE(n.repetitions, 1) << ms;
        EXPECT_LE(n.repetitions, 3) << ms;
        if (n.repetitions > 1) {
            EXPECT_LE(ms * n.repetitions, kQuickTimingMs) << ms;
        }
    }
    EXPECT_EQ(timed_launches(quick, 3.0).repetitions, 3);
    EXPECT_EQ(timed_launches(quick, 6.0).repetitions, 1);
    EXPECT_EQ(timed_launches(quick, 9.7).repetitions, 1);   // lesson 07's defaults on an H200
    EXPECT_EQ(timed_launches(quick, 40.0).repetitions, 1);
}

TEST(QuickProtocol, FullRunsKeepTheirPlanHoweverLongALaunchTakes) {
    RunOptions full;
    full.warmup = 2;
    full.repetitions = 10;
    const LaunchCounts n = timed_launches(full, 300.0);
    EXPECT_EQ(n.warmup, 2);
    EXPECT_EQ(n.repetitions, 10);
}

}  // namespace
}  // namespace tilelab
