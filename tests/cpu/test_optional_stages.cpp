// The engine's memory of the full run's extras (host/optional_stages.h): a counter pass or a
// sampling that lost the GPU's context is asked for no more, and later results say why; anything
// less (a failure that kept the context, a failed run) changes nothing.
#include <gtest/gtest.h>
#include "host/optional_stages.h"
#include "tilelab/hardware.h"
#include "tilelab/i18n.h"
#include "tilelab/stalls.h"

using namespace tilelab;

namespace {

RunOptions full() {
    RunOptions o;
    o.hardware_counters = true;
    o.stall_samples = true;
    return o;
}

// A run that kept its results, with the worker's context lost (or not) in one extra stage.
Measurement kept(bool context_lost, const char* failed_stage) {
    Measurement m;
    m.ok = true;
    m.context_lost = context_lost;
    m.hardware.status = m.stalls.status = "ok";
    if (std::string(failed_stage) == "counters") {
        m.hardware.status = hardware_status::error;
        m.hardware.reason = "The hardware-counter pass failed. (the GPU's context was lost: unspecified launch failure)";
        m.stalls.status = stall_status::ok;
    } else if (std::string(failed_stage) == "stalls") {
        m.stalls.status = stall_status::error;
        m.stalls.reason = "Stall sampling failed; the run itself is unaffected. (the GPU's context was lost: x)";
        m.hardware.status = hardware_status::skipped;   // the worker stopped before it
    }
    return m;
}

// What the engine shows for a run asked for with `wanted` that came back as `m`.
RunResult shown(OptionalStages& stages, const RunOptions& wanted, const Measurement& m) {
    RunResult r;
    r.apply(m);
    stages.learn(wanted, m, r);
    return r;
}

}  // namespace

TEST(OptionalStages, ACounterPassThatLostTheContextIsAskedForNoMore) {
    OptionalStages stages;
    EXPECT_TRUE(stages.ask(full()).hardware_counters);
    const RunResult first = shown(stages, full(), kept(true, "counters"));
    EXPECT_EQ(first.hardware.status, hardware_status::error) << "the run that lost it says what happened itself";
    const RunOptions next = stages.ask(full());
    EXPECT_FALSE(next.hardware_counters);
    EXPECT_TRUE(next.stall_samples);
    // The worker, not asked, reports the counters skipped: shown as off, with the first failure.
    Measurement later;
    later.ok = true;
    later.stalls.status = stall_status::ok;
    const RunResult second = shown(stages, full(), later);
    EXPECT_EQ(second.hardware.status, hardware_status::off);
    EXPECT_NE(second.hardware.reason.find("off for the rest of this session"), std::string::npos) << second.hardware.reason;
    EXPECT_NE(second.hardware.reason.find("unspecified launch failure"), std::string::npos) << second.hardware.reason;
    EXPECT_EQ(second.stalls.status, stall_status::ok);
    // A run that did not want counters (a quick run) is not told they are off.
    RunOptions quick = full();
    quick.hardware_counters = quick.stall_samples = false;
    EXPECT_EQ(shown(stages, quick, later).hardware.status, hardware_status::skipped);
}

TEST(OptionalStages, SamplingThatLostTheContextIsAskedForNoMore) {
    OptionalStages stages;
    (void)shown(stages, full(), kept(true, "stalls"));
    EXPECT_FALSE(stages.ask(full()).stall_samples);
    EXPECT_TRUE(stages.ask(full()).hardware_counters) << "the counter pass did not run, so it did not fail";
    Measurement later;
    later.ok = true;
    later.hardware.status = hardware_status::ok;
    const RunResult r = shown(stages, full(), later);
    EXPECT_EQ(r.stalls.status, stall_status::off);
    EXPECT_EQ(r.hardware.status, hardware_status::ok);
}

TEST(OptionalStages, LessThanALostContextInAnExtraStageChangesNothing) {
    OptionalStages stages;
    (void)shown(stages, full(), kept(false, "counters"));   // a CUPTI error: the context kept
    Measurement failed = kept(true, "counters");
    failed.ok = false;                                      // the kernel itself faulted
    (void)shown(stages, full(), failed);
    RunOptions no_counters = full();
    no_counters.hardware_counters = false;                  // an error in a stage not asked for
    (void)shown(stages, no_counters, kept(true, "counters"));
    EXPECT_TRUE(stages.ask(full()).hardware_counters);
    EXPECT_TRUE(stages.ask(full()).stall_samples);
}

TEST(OptionalStages, TheSentenceFollowsTheLanguage) {
    const Language before = language();
    set_language(Language::Chinese);
    OptionalStages stages;
    (void)shown(stages, full(), kept(true, "counters"));
    Measurement later;
    later.ok = true;
    const RunResult r = shown(stages, full(), later);
    EXPECT_NE(r.hardware.reason.find("本次会话"), std::string::npos) << r.hardware.reason;
    set_language(before);
}
