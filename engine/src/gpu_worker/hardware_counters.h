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

// How L2 is emptied before each replay pass: `run` enqueues kernels of its own (reading a buffer
// twice L2's size and discarding its lines) and returns how many. In the pass (the default for
// the counts) they run after the profiler's start, each a range of its own that is read and left
// out: the start itself leaves about 3 MB of dirty lines in L2 (H100, 2026-12-06), which a
// kernel's reads would push out and DRAM writes would count. Before the pass is where ncu empties
// it, which counts its own set-up's lines instead (docs/benchmarks.md). Two kinds of metric keep
// it before the pass, as ncu: the ratios per active cycle (with the emptying's kernels just before
// it in the pass, a small causal FlashAttention grid read 6.8 % achieved occupancy against 7.33 %
// before and in ncu; H100, 2026-12-06) and L2's own counts (register_2d at 369³ read 13-15 % fewer
// L2 bytes than ncu after an emptying in the pass, even the read alone, and 0.5-1.7 % with it
// before; H100, 2026-12-07).
struct L2Emptying {
    // Where run() happens for a metric group: kSplit, after the profiler's start for the counts
    // but L2's and before it for the rest (the default); kAllBefore, before it for every group, as
    // ncu; kAllInPass, after it for every group (a diagnostic).
    enum class Place { kSplit, kAllBefore, kAllInPass };
    std::function<int()> run;
    Place place = Place::kSplit;
    // Whether a group whose counts are emptied in the pass by default (MetricGroup::empty_in_pass)
    // is emptied in the pass here.
    bool in_pass_for(bool group_in_pass) const {
        return place == Place::kAllInPass || (place == Place::kSplit && group_in_pass);
    }
};

class HardwareCounterSession {
public:
    HardwareCounterSession();
    ~HardwareCounterSession();
    HardwareCounterSession(const HardwareCounterSession&) = delete;
    HardwareCounterSession& operator=(const HardwareCounterSession&) = delete;

    // One counter pass on the current device's context. For each replay pass: L2 emptied (see
    // L2Emptying), then launch() profiled (its kernels, same inputs every time; it may throw
    // CudaError, which is passed on after the profiler is disabled). Never returns ok with missing
    // metrics; a setup that cannot profile (no privileges, unsupported GPU) is remembered and not
    // retried.
    // TILELAB_SIMULATE_CUPTI_ERROR=N (a CUptiResult) makes every pass fail as if CUPTI had
    // returned N, for testing the messages end to end; TILELAB_HW_TRACE=1 prints where the
    // pass's time went (set-up; per configuration enable, each pass's start, launch and stop,
    // decode, evaluation, disable) on stderr. TILELAB_HW_NCU_LAUNCH=1 runs one
    // pass's emptying and launch() without CUPTI (status skipped), for ncu to profile that
    // launch from the same cache state (every pass launch is in the NVTX range
    // "tilelab-hardware-pass").
    // The one-time set-up alone (what the first collect() would do first), so that it can happen
    // while the worker is idle. A failure is remembered for collect() to report. Never throws.
    void prepare();

    // `kernels`: how many kernels launch() launches (a lesson of several passes), each profiled
    // as a range of its own; the ".sum" metrics add up over them, the others are kernel `own`'s.
    HardwareCounters collect(const L2Emptying& empty, const std::function<void()>& launch, int kernels = 1, int own = 0);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace tilelab
