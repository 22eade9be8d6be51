// Stall sampling in the GPU worker (tilelab/stalls.h): CUPTI's PC Sampling API in continuous
// mode (kernels are not serialised) with start/stop control, enabled on the context once per
// worker and kept enabled, so a run pays only its sampled launches and the decoding. Sampling is
// on only between start and stop, around launches of its own after the timed repetitions: the
// timed launches are never sampled. Samples are mapped to source lines through the cubin's line
// table as Nsight Compute maps them (line_table.h; the kernels are compiled with -lineinfo), with
// cuptiGetSassToSourceCorrelation where that table cannot be read.
// libcupti is opened with dlopen (cupti_library.h). A failure never fails the run: the result
// says why in one sentence, and a set-up that cannot sample (no permission, unsupported) is not
// tried again in this process.
#pragma once
#include <functional>
#include <memory>
#include "tilelab/compile.h"
#include "tilelab/stalls.h"

namespace tilelab {

class PcSamplingSession {
public:
    PcSamplingSession();
    ~PcSamplingSession();
    PcSamplingSession(const PcSamplingSession&) = delete;
    PcSamplingSession& operator=(const PcSamplingSession&) = delete;

    // Opens libcupti, reads the device's stall reasons and enables sampling on the current
    // context. Done once; the worker calls it while idle. Never throws.
    void prepare();

    // Samples `kernel`: launches(n, plan) runs it n times (plan.apart: each waited for, and the GPU
    // left idle plan.gap_ms after it), as plan_stall_sampling (tilelab/stalls.h) says for a launch of about
    // `launch_ms`: a few milliseconds of launches in all, at a period chosen so that the run gives
    // some hundred thousand samples; with the period check (the default, TILELAB_PC_SAMPLING_CHECK=0
    // turns it off), half the launches at that period, half at twice it, and a third share at four
    // times it where the first two disagree (choose_stall_periods), so launches() is called two or
    // three times, each a start of its own (about 110 ms on an H200). TILELAB_PCSAMP_GAP_MS=N: an
    // idle time after each launch, TILELAB_PCSAMP_APART=1 each launch waited for, diagnostics (the
    // default: back to back, as the launches are timed). launches()' first call must load the
    // cubin afresh and keep it loaded until collect() returns: CUPTI attributes samples only to
    // modules loaded while sampling is enabled (after a re-enable, an H200 counted the samples of
    // an earlier load as "non-user kernels"). TILELAB_PC_SAMPLING_PERIOD=N (5 to 31) forces 2^N
    // cycles for every launch (a small N overflows the hardware buffer: the overflow sentence).
    // launches() may throw CudaError, passed on once sampling stops.
    // TILELAB_PCSAMP_TRACE=1 prints where the time went (enable, launches, decoding) on stderr.
    StallSamples collect(const CompileResult& kernel, double launch_ms,
                         const std::function<void(int, const StallSamplingPlan&)>& launches);

    // Disables sampling on the context (the range profiler cannot start while it is enabled:
    // CUPTI_ERROR_INVALID_PARAMETER, measured on an H200); the next collect() enables it again.
    void release();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace tilelab
