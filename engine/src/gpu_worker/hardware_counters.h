// The counter pass, in the GPU worker: CUPTI's range profiler (cupti_range_profiler.h) collects
// the metrics of tilelab/hardware.h for one kernel launch, replayed by us (user replay) as many
// times as the metrics need passes, and the profiler host API (cupti_profiler_host.h) turns the
// raw counters into metric values. libcupti is opened with dlopen on the first collect(), so no
// binary links it: everything still starts where there is no driver, and only a process that
// asks for counters ever loads it.
//
// The metrics are scheduled once per worker and device (chip name, counter availability, config
// images: the counts in one, the ratios per active cycle in another, so that a ratio's numerator
// and its active cycles come from the same launch); each collect() enables the profiler on the
// context, runs each configuration's passes and disables it again, so the timed launches before
// it never run under the profiler.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include "tilelab/hardware.h"

namespace tilelab {

// The hardware_status for a CUPTI result code (CUptiResult): insufficient_privileges,
// profiler_busy, unsupported or error. Pure, so the CPU tests can check the mapping.
std::string hardware_status_for_cupti(int cupti_result);

class HardwareCounterSession {
public:
    HardwareCounterSession();
    ~HardwareCounterSession();
    HardwareCounterSession(const HardwareCounterSession&) = delete;
    HardwareCounterSession& operator=(const HardwareCounterSession&) = delete;

    // One counter pass on the current device's context. For each replay pass: before_pass()
    // outside the profiled range (the runner flushes L2 there, as ncu does by default), then
    // launch() inside it (its kernels, same inputs every time; it may throw CudaError, which is
    // passed on after the profiler is disabled). Never returns ok with missing metrics; a
    // setup that cannot profile (no privileges, unsupported GPU) is remembered and not retried.
    // TILELAB_SIMULATE_CUPTI_ERROR=N (a CUptiResult) makes every pass fail as if CUPTI had
    // returned N, for testing the messages end to end; TILELAB_HW_TRACE=1 prints where the
    // pass's time went (set-up; per configuration enable, each pass's start, launch and stop,
    // decode, evaluation, disable) on stderr. TILELAB_HW_NCU_LAUNCH=1 runs one
    // pass's before_pass() and launch() without CUPTI (status skipped), for ncu to profile that
    // launch from the same cache state (every pass launch is in the NVTX range
    // "tilelab-hardware-pass").
    // The one-time set-up alone (what the first collect() would do first), so that it can happen
    // while the worker is idle. A failure is remembered for collect() to report. Never throws.
    void prepare();

    // `kernels`: how many kernels launch() launches (a lesson of several passes), each profiled
    // as a range of its own; the ".sum" metrics add up over them, the others are kernel `own`'s.
    HardwareCounters collect(const std::function<void()>& before_pass, const std::function<void()>& launch, int kernels = 1,
                             int own = 0);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace tilelab
