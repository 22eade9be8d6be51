// Everything a panel shows about one configuration. The GUI and the CLI only ever read this.
#pragma once
#include <optional>
#include <string>
#include <vector>
#include "tilelab/compile.h"
#include "tilelab/hardware.h"
#include "tilelab/occupancy.h"
#include "tilelab/variant.h"

namespace tilelab {

struct RunRequest {
    std::string variant;   // id
    ParamValues params;    // missing names take defaults
    Problem problem;
    bool operator==(const RunRequest&) const = default;
};

struct RunOptions {
    int warmup = 2;
    int repetitions = 10;
    bool flush_l2 = true;       // flush L2 between repetitions
    bool count_accesses = true; // run the instrumented build once
    bool time_reference = true; // time cuBLAS (matmul) at the same size for "% of cuBLAS"
    bool hardware_counters = true; // read the launch's hardware counters (CUPTI) after timing it
    uint64_t seed = 1234;
};

struct Timing {
    double median_ms = 0, min_ms = 0, max_ms = 0;
    std::vector<double> samples_ms;
};

struct Validation {
    bool checked = false;
    bool passed = false;
    double max_abs_error = 0;
    double max_rel_error = 0;
    double tolerance = 0;
    std::string reference;   // "cuBLAS FP32", "double (GPU)", "double (GPU, interior)"
    std::string message;     // first mismatch, when failed
};

// Where one request's time went, wall milliseconds (0: the stage did not run). For latency logs:
// the GUI prints them with --log-latency. The GPU worker fills the stages it runs.
struct StageTimes {
    double compile_ms = 0;         // the kernel's compile in analyze(): NVRTC, or a cache hit
    double count_compile_ms = 0;   // the instrumented build (TILELAB_COUNT=1)
    double worker_ms = 0;          // the GPU worker's whole round trip, transfers included
    // Inside the GPU worker:
    double setup_ms = 0;           // inputs and reference output (when the problem changed), loading the cubin
    double validate_ms = 0;        // the checked launch and the comparison with the reference
    double timing_ms = 0;          // warm-ups and timed repetitions
    double count_ms = 0;           // the instrumented launch
    double reference_ms = 0;       // timing cuBLAS / the device copy (once per problem)
    double hardware_ms = 0;        // the hardware-counter pass (every replay, set-up, evaluation)
    // Compile ahead (Engine::compile_ahead): the build was already in the memory cache when the
    // request asked for it (no NVRTC, no disk, no wait), and was put there ahead of time.
    bool compile_cached = false;        // the kernel: found in the memory cache
    bool prefetch_hit = false;          // ... and compiled ahead
    bool count_compile_cached = false;  // the instrumented build: found in the memory cache
    bool count_prefetch_hit = false;    // ... and compiled ahead
};

struct RunResult {
    RunRequest request;        // with defaults filled in
    std::string target;        // target name
    std::string arch;          // "sm_90"

    // Any stage can fail; the stage says where: "input", "compile", "launch", "run", "validate",
    // "hardware" (a replay of the counter pass failed to launch).
    bool ok = false;
    std::string stage;
    std::string error;

    // Static analysis (no GPU needed)
    LaunchShape launch;
    std::shared_ptr<const CompileResult> compiled;
    Occupancy occupancy;
    CostModel model;
    std::string kernel_source;    // the .cuh as compiled
    std::string name_expression;  // its instantiation

    // Measured (GPU mode only)
    bool measured = false;
    std::string no_gpu_reason;    // why nothing was measured
    Timing timing;
    Validation validation;
    std::optional<AccessCounts> counted;
    double gflops = 0;            // model flops / median time
    double gbps_model = 0;        // model global bytes / median time
    double gbps_effective = 0;    // compulsory bytes / median time
    double reference_ms = 0;      // cuBLAS at this size (matmul) or device copy of the same bytes (stencil)
    std::string reference_name;   // "cuBLAS SGEMM" / "device copy"
    double pct_of_reference = 0;  // reference_ms / median_ms · 100
    // DRAM, L2, L1, shared-memory and occupancy counters of one launch (tilelab/hardware.h);
    // status says why there are none (model mode, not asked, no permission ...).
    HardwareCounters hardware;
    double gbps_dram = 0;         // measured DRAM bytes (read + write) / median time; 0 without counters

    StageTimes stages;
};

}  // namespace tilelab
