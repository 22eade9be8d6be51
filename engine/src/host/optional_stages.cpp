#include "host/optional_stages.h"
#include "tilelab/hardware.h"
#include "tilelab/i18n.h"
#include "tilelab/stalls.h"

namespace tilelab {
namespace {

std::string what_happened(const std::string& first) { return say("What happened: {}", "当时的情况：{}", first); }

}  // namespace

RunOptions OptionalStages::ask(const RunOptions& wanted) const {
    std::lock_guard lock(mutex_);
    RunOptions o = wanted;
    if (!counters_off_.empty()) o.hardware_counters = false;
    if (!stalls_off_.empty()) o.stall_samples = false;
    return o;
}

void OptionalStages::learn(const RunOptions& wanted, const Measurement& m, RunResult& r) {
    std::lock_guard lock(mutex_);
    // Only a run that kept its results lost the context in an extra stage: the worker stops at the
    // first stage that loses it, so the stage reporting an error is the one.
    if (m.context_lost && m.ok) {
        if (wanted.hardware_counters && counters_off_.empty() && m.hardware.status == hardware_status::error)
            counters_off_ = m.hardware.reason;
        else if (wanted.stall_samples && stalls_off_.empty() && m.stalls.status == stall_status::error)
            stalls_off_ = m.stalls.reason;
        return;   // this run's own statuses say what happened
    }
    if (wanted.hardware_counters && !counters_off_.empty() && r.hardware.status == hardware_status::skipped) {
        r.hardware.status = hardware_status::off;
        r.hardware.reason = hardware_reason(hardware_status::off) + " " + what_happened(counters_off_);
    }
    if (wanted.stall_samples && !stalls_off_.empty() && r.stalls.status == stall_status::skipped) {
        r.stalls.status = stall_status::off;
        r.stalls.reason = stall_reason(stall_status::off) + " " + what_happened(stalls_off_);
    }
}

}  // namespace tilelab
