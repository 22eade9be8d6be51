// The plot module's arithmetic: axis mapping, ticks, range fitting, labels, colour map, roofline.
#include <gtest/gtest.h>
#include <cmath>
#include "plot_math.h"

namespace plot = tilelab::gui::plot;
using plot::Range;
using plot::Scale;

TEST(PlotMath, LinearMappingIsAFractionOfTheRange) {
    EXPECT_DOUBLE_EQ(plot::Normalize(25, {0, 100}, Scale::Linear), 0.25);
    EXPECT_DOUBLE_EQ(plot::Normalize(-50, {0, 100}, Scale::Linear), -0.5);
    EXPECT_DOUBLE_EQ(plot::Denormalize(0.25, {0, 100}, Scale::Linear), 25);
}

TEST(PlotMath, LogMappingPutsEachDecadeAtTheSameDistance) {
    EXPECT_NEAR(plot::Normalize(10, {1, 1000}, Scale::Log10), 1.0 / 3, 1e-12);
    EXPECT_NEAR(plot::Normalize(100, {1, 1000}, Scale::Log10), 2.0 / 3, 1e-12);
    EXPECT_NEAR(plot::Denormalize(2.0 / 3, {1, 1000}, Scale::Log10), 100, 1e-9);
    // Zero and negatives have no place on a log axis.
    EXPECT_TRUE(std::isinf(plot::Normalize(0, {1, 1000}, Scale::Log10)));
    EXPECT_TRUE(std::isinf(plot::Normalize(-3, {1, 1000}, Scale::Log10)));
}

TEST(PlotMath, NiceStepsAreOneTwoOrFiveTimesAPowerOfTen) {
    EXPECT_DOUBLE_EQ(plot::NiceStep(10, 5), 2);
    EXPECT_DOUBLE_EQ(plot::NiceStep(1024, 6), 200);
    EXPECT_DOUBLE_EQ(plot::NiceStep(1, 5), 0.2);
    EXPECT_DOUBLE_EQ(plot::NiceStep(65536, 4), 20000);
    EXPECT_DOUBLE_EQ(plot::NiceStep(0.03, 3), 0.01);
}

TEST(PlotMath, LinearTicksCoverTheRangeWithReadableLabels) {
    auto ticks = plot::LinearTicks({0, 1024}, 6);
    ASSERT_EQ(ticks.size(), 6u);
    EXPECT_EQ(ticks.front().label, "0");
    EXPECT_EQ(ticks.back().label, "1000");
    EXPECT_DOUBLE_EQ(ticks[1].value, 200);

    auto fractions = plot::LinearTicks({0, 1}, 5);
    ASSERT_EQ(fractions.size(), 6u);
    EXPECT_EQ(fractions[1].label, "0.2");
    EXPECT_EQ(fractions.back().label, "1");

    auto crossing = plot::LinearTicks({-1, 1}, 4);
    bool has_zero = false;
    for (const auto& t : crossing) has_zero |= t.label == "0";
    EXPECT_TRUE(has_zero) << "no -0 label";
}

TEST(PlotMath, LogTicksMarkEveryDecade) {
    auto ticks = plot::LogTicks({1, 1000});
    int majors = 0;
    for (const auto& t : ticks) {
        if (t.major) {
            ++majors;
            EXPECT_FALSE(t.label.empty());
        } else {
            EXPECT_TRUE(t.label.empty()) << "three decades: minor ticks stay unlabelled";
        }
    }
    EXPECT_EQ(majors, 4);                 // 1, 10, 100, 1000
    EXPECT_EQ(ticks.size(), 3u * 9 + 1);  // 1..9 in each decade, then 1000
    EXPECT_EQ(ticks.back().label, "1k");
}

TEST(PlotMath, NarrowLogAxesStillGetLabels) {
    auto two_decades = plot::LogTicks({10, 1000});
    int labelled_minor = 0;
    for (const auto& t : two_decades) labelled_minor += !t.major && !t.label.empty();
    EXPECT_EQ(labelled_minor, 4);   // 20, 50, 200, 500

    auto within_decade = plot::LogTicks({200, 800});
    ASSERT_GE(within_decade.size(), 2u);
    for (const auto& t : within_decade) {
        EXPECT_GT(t.value, 0);
        EXPECT_GE(t.value, 200);
        EXPECT_LE(t.value, 800);
        EXPECT_FALSE(t.label.empty());
    }
}

TEST(PlotMath, FittedRangesEndOnTicksOrDecades) {
    EXPECT_EQ(plot::FitRange({3, 97}, Scale::Linear, true), (Range{0, 100}));
    EXPECT_EQ(plot::FitRange({13, 97}, Scale::Linear, false), (Range{0, 100}));
    EXPECT_EQ(plot::FitRange({3, 970}, Scale::Log10), (Range{1, 1000}));
    // Non-positive values are ignored on a log axis, NaN everywhere.
    EXPECT_EQ(plot::FitRange({0, -5, 20, 300, NAN}, Scale::Log10), (Range{10, 1000}));
    EXPECT_EQ(plot::FitRange({}, Scale::Linear), (Range{0, 1}));
    Range single = plot::FitRange({5}, Scale::Linear);
    EXPECT_LT(single.min, 5);
    EXPECT_GT(single.max, 5);
}

TEST(PlotMath, TickLabelsUseThousandsSuffixesWhenLong) {
    EXPECT_EQ(plot::FormatTick(50000, 10000), "50k");
    EXPECT_EQ(plot::FormatTick(1500, 500), "1500");
    EXPECT_EQ(plot::FormatTick(2000, 1000), "2k");
    EXPECT_EQ(plot::FormatTick(0.25, 0.05), "0.25");
    EXPECT_EQ(plot::FormatTick(1e6, 1e6), "1M");
    EXPECT_EQ(plot::FormatTick(0.1, 0.1), "0.1");
    EXPECT_EQ(plot::FormatValue(67000), "67.0k");
    EXPECT_EQ(plot::FormatValue(256), "256");
    EXPECT_EQ(plot::FormatValue(0.4567), "0.457");
}

TEST(PlotMath, ColourMapGetsLighterFromLowToHigh) {
    auto luminance = [](plot::Rgb c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; };
    double previous = -1;
    for (int i = 0; i <= 40; ++i) {
        double l = luminance(plot::ColorMap(i / 40.0));
        EXPECT_GT(l, previous) << "at t = " << i / 40.0;
        previous = l;
    }
    // Out-of-range inputs clamp to the ends.
    EXPECT_EQ(luminance(plot::ColorMap(-1)), luminance(plot::ColorMap(0)));
    EXPECT_EQ(luminance(plot::ColorMap(7)), luminance(plot::ColorMap(1)));
}

TEST(PlotMath, RooflineIsTheLowerOfTheTwoRoofs) {
    // 1000 GFLOP/s peak, 100 GB/s: memory-bound below 10 FLOP/B, compute-bound above.
    EXPECT_DOUBLE_EQ(plot::RooflineRidge(1000, 100), 10);
    EXPECT_DOUBLE_EQ(plot::RooflineAttainable(1000, 100, 2), 200);
    EXPECT_DOUBLE_EQ(plot::RooflineAttainable(1000, 100, 50), 1000);
    EXPECT_DOUBLE_EQ(plot::RooflineAttainable(1000, 100, 10), 1000);
}

TEST(PlotMath, PowerOfTwoStepsSuitBytes) {
    // 228 KiB of shared memory in at most 4 steps: 64 KiB ticks (0, 64, 128, 192 KiB).
    EXPECT_DOUBLE_EQ(plot::PowerOfTwoStep(228 * 1024, 4, 1024), 64 * 1024);
    EXPECT_DOUBLE_EQ(plot::PowerOfTwoStep(100, 5), 32);
    EXPECT_DOUBLE_EQ(plot::PowerOfTwoStep(3, 8), 1);   // never below the unit
}
