// Stall samples taken at two or three sampling periods: when two periods' shares agree, which
// rounds the worker shows, and the sentences (tilelab/stalls.h, engine/src/model/stall_periods.cpp).
#include <gtest/gtest.h>
#include <cmath>
#include <nlohmann/json.hpp>
#include "tilelab/i18n.h"
#include "tilelab/result_json.h"
#include "tilelab/stalls.h"

namespace {

using namespace tilelab;

// Samples of a kernel of three lines, as the worker charges them: `hot` samples of the loop's
// load on line 64 (memory throttle), the rest spread over lines 44 and 66 (global memory, barrier).
StallSamples round_of(uint64_t total, double hot_share) {
    const uint64_t hot = uint64_t(double(total) * hot_share);
    StallCounts load, wait, sync;
    load[StallGroup::memory_throttle] = hot;
    wait[StallGroup::global_memory] = (total - hot) / 2;
    sync[StallGroup::barrier] = total - hot - (total - hot) / 2;
    StallSamples s;
    charge_stall_lines({{0x430, load, {{"smem_tiled.cuh", 64}}}, {0x400, wait, {{"smem_tiled.cuh", 44}}},
                        {0x500, sync, {{"smem_tiled.cuh", 66}}}},
                       s);
    return s;
}

TEST(StallPeriods, SpreadIsTheLargestDifferenceOfAGroupOrATopLine) {
    const StallSamples a = round_of(200000, 0.22), b = round_of(100000, 0.34);
    EXPECT_NEAR(stall_period_spread(a, b), 12.0, 0.01);
    EXPECT_NEAR(stall_period_spread(b, a), 12.0, 0.01);
    EXPECT_EQ(stall_period_spread(a, a), 0.0);
    EXPECT_EQ(stall_period_spread(a, StallSamples{}), 0.0) << "no samples: nothing to compare";
}

TEST(StallPeriods, AgreementAllowsThreePointsOrTheNoiseOfFewSamples) {
    EXPECT_TRUE(stall_periods_agree(round_of(200000, 0.30), round_of(100000, 0.325)));
    EXPECT_FALSE(stall_periods_agree(round_of(200000, 0.30), round_of(100000, 0.34)));
    // 100 samples each: a share of 30% against 40% is within four standard errors (about 27 points).
    EXPECT_TRUE(stall_periods_agree(round_of(100, 0.30), round_of(100, 0.40)));
    EXPECT_FALSE(stall_periods_agree(round_of(100, 0.10), round_of(100, 0.90)));
}

TEST(StallPeriods, TwoAgreeingPeriodsAreBothShown) {
    const StallPeriodChoice c = choose_stall_periods({round_of(200000, 0.33), round_of(100000, 0.34)});
    EXPECT_FALSE(c.need_third);
    EXPECT_EQ(c.shown, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(c.left_out, -1);
    EXPECT_NEAR(c.spread, 1.0, 0.01);
    EXPECT_EQ(choose_stall_periods({round_of(1000, 0.5)}).shown, std::vector<size_t>{0}) << "a forced period: one round";
}

TEST(StallPeriods, APeriodThatDisagreesWithTwoOthersIsLeftOut) {
    // matmul.smem_tiled on an H200 (2026-12-04): 2^11 gave line 64 22%, 2^12 and 2^13 33-34%.
    const StallSamples p11 = round_of(250000, 0.22), p12 = round_of(120000, 0.345), p13 = round_of(60000, 0.333);
    StallPeriodChoice c = choose_stall_periods({p11, p12});
    EXPECT_TRUE(c.need_third);
    EXPECT_TRUE(c.shown.empty());
    c = choose_stall_periods({p11, p12, p13});
    EXPECT_FALSE(c.need_third);
    EXPECT_EQ(c.shown, (std::vector<size_t>{1, 2}));
    EXPECT_EQ(c.left_out, 0);
    EXPECT_NEAR(c.spread, 12.5, 0.01) << "the one left out against the farther of the two shown";
    // The middle period, or the last, can be the odd one too.
    EXPECT_EQ(choose_stall_periods({p12, p11, p13}).left_out, 1);
    EXPECT_EQ(choose_stall_periods({p12, p13, p11}).left_out, 2);
}

TEST(StallPeriods, WhereNoTwoAgreeAllAreShownAndTheSentenceSaysSo) {
    const StallPeriodChoice c = choose_stall_periods({round_of(200000, 0.10), round_of(100000, 0.30), round_of(50000, 0.50)});
    EXPECT_EQ(c.shown, (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(c.left_out, -1);
    EXPECT_NEAR(c.spread, 40.0, 0.01);
}

TEST(StallPeriods, ThePeriodsAndTheSentenceInBothLanguages) {
    StallSamples s = round_of(1000, 0.5);
    s.period_log2 = 11;
    EXPECT_EQ(stall_periods_text(s), "2^11");
    EXPECT_EQ(stall_period_note(s), "");
    s.last_period_log2 = 12;
    s.period_spread = 1.2;
    EXPECT_EQ(stall_periods_text(s), "2^11 or 2^12");
    EXPECT_EQ(stall_period_note(s), "") << "two periods that agreed need no sentence";
    s.period_log2 = 12, s.last_period_log2 = 13, s.left_out_period_log2 = 11, s.period_spread = 12.4;
    EXPECT_EQ(stall_periods_text(s), "2^12 or 2^13");
    const std::string note = stall_period_note(s);
    EXPECT_NE(note.find("2^11"), std::string::npos) << note;
    EXPECT_NE(note.find("2^12 and 2^13"), std::string::npos) << note;
    EXPECT_NE(note.find("12 points"), std::string::npos) << note;
    s.period_log2 = 11, s.last_period_log2 = 13, s.left_out_period_log2 = 12;
    EXPECT_EQ(stall_periods_text(s), "2^11 or 2^13");
    s.left_out_period_log2 = 0, s.period_spread = 40;
    EXPECT_EQ(stall_periods_text(s), "2^11, 2^12 or 2^13");
    EXPECT_NE(stall_period_note(s).find("depend on the sampling period"), std::string::npos) << stall_period_note(s);
    set_language(Language::Chinese);
    EXPECT_EQ(stall_periods_text(s), "2^11、2^12 或 2^13");
    EXPECT_NE(stall_period_note(s).find("随采样周期而变"), std::string::npos) << stall_period_note(s);
    set_language(Language::English);
}

TEST(StallPeriods, AWorkersImpossiblePeriodsReadAsOne) {
    StallSamples s = round_of(1000, 0.5);
    s.period_log2 = INT32_MIN, s.last_period_log2 = INT32_MAX, s.left_out_period_log2 = 3, s.period_spread = 1e300;
    EXPECT_EQ(stall_periods_text(s), "2^-2147483648");
    EXPECT_EQ(stall_period_note(s), "");
    s.period_log2 = 11, s.last_period_log2 = 10;
    EXPECT_EQ(stall_periods_text(s), "2^11");
    s.last_period_log2 = 12, s.left_out_period_log2 = 40;   // left out: outside the range, so nothing left out of it
    EXPECT_EQ(stall_periods_text(s), "2^11 or 2^12");
    s.left_out_period_log2 = 12;   // one of two left out: one period shown, no sentence
    EXPECT_EQ(stall_periods_text(s), "2^11");
    EXPECT_EQ(stall_period_note(s), "");
}

TEST(StallPeriods, TheFieldsCrossJsonAndDefaultToOnePeriod) {
    StallSamples s = round_of(1000, 0.5);
    s.period_log2 = 12, s.last_period_log2 = 13, s.left_out_period_log2 = 11, s.period_spread = 12.4;
    EXPECT_EQ(nlohmann::json(s).get<StallSamples>(), s);
    nlohmann::json old = s;
    for (const char* key : {"last_period_log2", "left_out_period_log2", "period_spread"}) old.erase(key);
    const StallSamples read = old.get<StallSamples>();
    EXPECT_EQ(read.last_period_log2, 0);
    EXPECT_EQ(read.left_out_period_log2, 0);
    EXPECT_EQ(stall_periods_text(read), "2^12");
}

TEST(StallPeriods, ThePlanChecksTwoPeriodsUnlessOneLaunchFillsTheTimeOrItIsTurnedOff) {
    const StallSamplingPlan short_kernel = plan_stall_sampling(0.05, false, "", "");
    EXPECT_EQ(short_kernel.launches, 80) << "4 ms of 0.05 ms launches";
    EXPECT_TRUE(short_kernel.check) << "the period check is the default";
    EXPECT_FALSE(plan_stall_sampling(0.05, false, "0", "").check) << "TILELAB_PC_SAMPLING_CHECK=0";
    EXPECT_TRUE(plan_stall_sampling(0.05, false, "1", "").check);
    EXPECT_FALSE(plan_stall_sampling(0.05, true, "", "").check) << "a forced period is sampled alone";
    const StallSamplingPlan long_kernel = plan_stall_sampling(27.0, false, "", "");
    EXPECT_EQ(long_kernel.launches, 1);
    EXPECT_FALSE(long_kernel.check) << "one launch fills the time: halving it is not possible";
    EXPECT_TRUE(plan_stall_sampling(2.0, false, "", "").check) << "two launches of 2 ms";
    EXPECT_EQ(plan_stall_sampling(1e-6, false, "", "").launches, kStallMaxLaunches);
    EXPECT_EQ(plan_stall_sampling(std::nan(""), false, "", "").launches, 1) << "an unknown launch time: one launch";
}

TEST(StallPeriods, LaunchesRunBackToBackUnlessAGapOrApartIsSet) {
    EXPECT_FALSE(plan_stall_sampling(0.05, false, "", "").apart);
    EXPECT_TRUE(plan_stall_sampling(0.05, false, "", "", "1").apart) << "TILELAB_PCSAMP_APART=1";
    EXPECT_FALSE(plan_stall_sampling(0.05, false, "", "", "0").apart);
    EXPECT_TRUE(plan_stall_sampling(0.05, false, "", "5").apart) << "a gap waits for each launch first";
    EXPECT_DOUBLE_EQ(plan_stall_sampling(0.05, false, "", "").gap_ms, 0.0);
    EXPECT_DOUBLE_EQ(plan_stall_sampling(0.05, false, "", "0").gap_ms, 0.0);
    EXPECT_DOUBLE_EQ(plan_stall_sampling(0.05, false, "", "5").gap_ms, 5.0);
    EXPECT_DOUBLE_EQ(plan_stall_sampling(0.05, false, "", "0.25").gap_ms, 0.25);
    EXPECT_DOUBLE_EQ(plan_stall_sampling(0.05, false, "", "1e9").gap_ms, 1000.0) << "at most a second";
    for (const char* bad : {"-1", "x", "2ms", "nan"})
        EXPECT_DOUBLE_EQ(plan_stall_sampling(0.05, false, "", bad).gap_ms, 0.0) << bad << ": none";
}

}  // namespace
