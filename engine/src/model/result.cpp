// RunResult::apply: the host's half of a measurement. The GPU worker returns times, validation and
// counts; every rate shown is derived here, from them and the cost model, in one place.
#include "tilelab/result.h"

#include <algorithm>

namespace tilelab {

const char* phase_name(Phase p) {
    switch (p) {
        case Phase::analysed: return "analysed";
        case Phase::quick: return "quick";
        case Phase::full: return "full";
    }
    return "full";
}

// The reference stays asked for: the worker answers it where it has timed it already and leaves
// the timing to the full run otherwise (runner_gpu.cpp).
RunOptions quick_protocol(RunOptions opt) {
    opt.warmup = std::min(opt.warmup, 1);
    opt.repetitions = std::min(opt.repetitions, 3);
    opt.count_accesses = false;
    opt.quick = true;
    opt.hardware_counters = false;
    opt.stall_samples = false;
    return opt;
}

LaunchCounts timed_launches(const RunOptions& opt, double launch_ms) {
    LaunchCounts n{std::max(0, opt.warmup), std::max(1, opt.repetitions)};
    if (!opt.quick || launch_ms * (n.warmup + n.repetitions) <= kQuickTimingMs) return n;
    n.warmup = 0;
    n.repetitions = std::clamp(int(kQuickTimingMs / std::max(launch_ms, 1e-3)), 1, n.repetitions);
    return n;
}

void RunResult::apply(const Measurement& m) {
    ok = m.ok;
    stage = m.stage;
    error = m.error;
    timing = m.timing;
    validation = m.validation;
    counted = m.counted;
    reference_ms = m.reference_ms;
    reference_name = m.reference_name;
    hardware = m.hardware;
    stalls = m.stalls;
    if (m.launched_blocks > 0) launch.grid[0] = m.launched_blocks;
    for (size_t i = 0; i < passes.size(); ++i) passes[i].median_ms = i < m.pass_ms.size() ? m.pass_ms[i] : 0.0;
    // Only the worker's own stages: the compiles and the round trip are timed by the engine.
    stages.setup_ms = m.stages.setup_ms;
    stages.validate_ms = m.stages.validate_ms;
    stages.timing_ms = m.stages.timing_ms;
    stages.count_ms = m.stages.count_ms;
    stages.reference_ms = m.stages.reference_ms;
    stages.hardware_ms = m.stages.hardware_ms;
    stages.stalls_ms = m.stages.stalls_ms;
    stages.gpu_wait_ms = m.stages.gpu_wait_ms;

    measured = m.ok && timing.median_ms > 0;
    gflops = gbps_model = gbps_effective = gbps_dram = pct_of_reference = 0;
    if (!measured) return;
    const double per_second = 1e3 / timing.median_ms;   // 1/ms -> 1/s
    gflops = model.flops * per_second / 1e9;
    gbps_model = model.global_bytes * per_second / 1e9;
    gbps_effective = model.compulsory_bytes * per_second / 1e9;
    if (reference_ms > 0) pct_of_reference = reference_ms / timing.median_ms * 100;
    if (const auto dram = hardware.dram_bytes()) gbps_dram = *dram * per_second / 1e9;
}

}  // namespace tilelab
