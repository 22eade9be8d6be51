// Everything a panel shows about one configuration. The GUI and the CLI only ever read this.
#pragma once
#include <optional>
#include <string>
#include <vector>
#include "tilelab/compile.h"
#include "tilelab/hardware.h"
#include "tilelab/occupancy.h"
#include "tilelab/stalls.h"
#include "tilelab/target.h"
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
    bool quick = false;         // the drag protocol: a fast validated answer, a full run follows (Phase::quick)
    bool hardware_counters = true; // read the launch's hardware counters (CUPTI) after timing it
    bool stall_samples = false;    // sample where its warps wait (CUPTI PC sampling) after timing it
    // Without a GPU (model mode): run the kernel on the CPU at the small size its lesson declares
    // (RunResult::cpu, engine/src/cpu/cpu_run.h) for a verdict. The CLI's run and the exercises ask for it.
    bool cpu_check = false;
    // The CPU run at this size instead of the lesson's (tests of odd sizes; still checked against
    // the family's and the variant's limits). Not sent to the worker.
    std::optional<Problem> cpu_problem{};
    // The whole measurement (set-up, validation, timing, counters) may take this long, then the GPU
    // worker is stopped (an endless loop in a user's kernel) and a fresh one starts with the next
    // run. 0: no limit. Not sent to the worker: the engine's side enforces it.
    int time_limit_ms = 0;
    uint64_t seed = 1234;
};

// How far a result has come. analysed: compiled and analysed, a measurement follows; quick:
// measured with the quick protocol (RunOptions::quick), the full run follows; full: the last
// result for its request: measured in full, or all there is (model mode, a failure).
enum class Phase { analysed, quick, full };
const char* phase_name(Phase p);   // "analysed", "quick", "full" (as in the JSON)

// The quick protocol (the app's drag, the tuner's screening): still validated (never skipped), but
// one warm-up and three repetitions, and no instrumented build (a second NVRTC compile) nor
// hardware counters (a CUPTI pass of several replays). The reference stays: the GPU worker times
// it once per problem. A full run follows.
RunOptions quick_protocol(RunOptions opt);

// The quick protocol's timed launches stay within about kQuickTimingMs: a kernel whose validating
// launch took launch_ms is not warmed up again (that launch did it) and is timed budget/launch_ms
// times, at least once (lesson 07's spilling kernels at 2048³, about 9.7 ms a launch on an H200:
// timed once, so a drag of MAXREG redraws within 50 ms). Other runs keep their plan.
inline constexpr double kQuickTimingMs = 10.0;
struct LaunchCounts {
    int warmup = 0, repetitions = 1;
};
LaunchCounts timed_launches(const RunOptions& opt, double launch_ms);

struct Timing {
    double median_ms = 0, min_ms = 0, max_ms = 0;
    std::vector<double> samples_ms;
    bool operator==(const Timing&) const = default;
};

struct Validation {
    bool checked = false;
    bool passed = false;
    double max_abs_error = 0;
    double max_rel_error = 0;
    double tolerance = 0;
    std::string reference;   // "cuBLAS FP32", "double (GPU)", "double (GPU, interior)"
    std::string message;     // first mismatch, when failed
    bool operator==(const Validation&) const = default;
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
    double stalls_ms = 0;          // PC sampling: the sampled launches and the decoding
    double gpu_wait_ms = 0;        // waiting for the GPU's lock while another learner's run held it
    // Compile ahead (Engine::compile_ahead): the build was already in the memory cache when the
    // request asked for it (no NVRTC, no disk, no wait), and was put there ahead of time.
    bool compile_cached = false;        // the kernel: found in the memory cache
    bool prefetch_hit = false;          // ... and compiled ahead
    bool count_compile_cached = false;  // the instrumented build: found in the memory cache
    bool count_prefetch_hit = false;    // compiled ahead (Engine::compile_ahead or compile_counting_now): found done or in flight
    bool operator==(const StageTimes&) const = default;
};

// What the GPU worker measured for one analysed configuration: times, validation and counts, no
// rates. The host derives every rate from these and the cost model (RunResult::apply).
struct Measurement {
    bool ok = false;
    std::string stage, error;           // as in RunResult, when !ok
    Timing timing;
    Validation validation;
    std::optional<AccessCounts> counted;
    double reference_ms = 0;            // cuBLAS / the device copy at this size, 0 when not timed
    std::string reference_name;
    HardwareCounters hardware;          // the counter pass, when asked for (status says why not)
    StallSamples stalls;                // PC sampling, when asked for (status says why not)
    StageTimes stages;                  // only the worker's own: setup, validate, timing, count, hardware, reference
    // A variant of several kernels (KernelPass): each one's median alone, in order, from the full
    // run's separate repetitions after the timed ones (empty for one kernel and for quick runs).
    std::vector<double> pass_ms;
    // A persistent launch in clusters is cut by the worker to the clusters that fit on the GPU at
    // once (cudaOccupancyMaxActiveClusters): the blocks it launched then, else 0.
    unsigned launched_blocks = 0;
    // The worker lost its CUDA context in this run and is starting again (the reply's context_lost;
    // set by the client, never sent).
    bool context_lost = false;
};

// One kernel of a variant that launches several (tilelab/variant.h's KernelPass), as reported.
struct PassTime {
    std::string label;          // "S = Q·Kᵀ/√d"
    std::string kernel;         // its name expression
    double median_ms = 0;       // alone, 0 until measured
    bool operator==(const PassTime&) const = default;
};

// The kernel run on the CPU (no GPU needed, engine/src/cpu/): compiled to PTX, executed thread by
// thread at a small problem size with bounds and shared-memory races checked, and validated like
// a GPU run. Nothing is timed: the CPU's speed says nothing about a GPU's.
struct CpuCheck {
    // "passed", "failed" (validation), "fault" (out of bounds, race, time limit), "needs_gpu"
    // (an instruction the CPU run does not model), "error" (no PTX, an internal failure).
    std::string status;
    std::string file;              // what ran: the user's file, or the lesson's kernel path
    Problem problem;               // the small size it ran at
    std::string message;           // the fault, why it needs a GPU, or the error (one paragraph)
    Validation validation;         // when it ran to the end
    AccessCounts counted;          // elements moved as this kernel's PTX ran (loads and stores)
    AccessCounts model;            // the cost model at the same size, for comparison
    uint64_t instructions = 0;     // PTX instructions executed
    double seconds = 0;            // compile to PTX and run, wall time
    uint64_t seed = 0;
    bool passed() const { return status == "passed"; }
    // It ran: passed, failed or faulted (not "needs_gpu" or "error").
    bool verdict() const { return passed() || status == "failed" || status == "fault"; }
    bool operator==(const CpuCheck&) const = default;
};

struct RunResult {
    RunRequest request;        // with defaults filled in
    Target target;             // what it was compiled and analysed for (the device in GPU mode)
    Phase phase = Phase::analysed;

    // Any stage can fail; the stage says where: "input", "compile", "launch", "run", "validate",
    // "hardware" (a replay of the counter pass failed to launch).
    bool ok = false;
    std::string stage;
    std::string error;

    // Static analysis (no GPU needed)
    LaunchShape launch;
    std::shared_ptr<const CompileResult> compiled;
    OccupancyInput occupancy_input;   // what occupancy was computed from: threads, registers, shared bytes
    Occupancy occupancy;
    CostModel model;
    Precision precision;          // the variant's element types at these parameters
    FamilyOptions options;        // what it computes beyond them (attention's causal mask), usually {}
    std::string kernel_source;    // the .cuh as compiled
    std::string kernel_file;      // the file kernel_source is: "matmul/tiled.cuh", or user_kernel
    std::string name_expression;  // its instantiation
    std::string user_kernel;      // the user's file name when the kernel is theirs (Engine::analyze with
                                  // a UserKernel; kernel_source is then their text), else ""

    // Measured (GPU mode only)
    bool measured = false;
    std::string no_gpu_reason;    // why nothing was measured
    Timing timing;
    Validation validation;
    std::optional<AccessCounts> counted;
    // Rates: computed on the host from the model and the median time (apply()).
    double gflops = 0;            // model flops / median time
    double gbps_model = 0;        // model global bytes / median time
    double gbps_effective = 0;    // compulsory bytes / median time
    double reference_ms = 0;      // cuBLAS at this size (matmul) or device copy of the same bytes (stencil)
    std::string reference_name;   // "cuBLAS SGEMM" / "device copy"
    double pct_of_reference = 0;  // reference_ms / median_ms · 100
    // DRAM, L2, L1, shared-memory and occupancy counters of one launch (tilelab/hardware.h);
    // status says why there are none (model mode, not asked, no permission ...).
    HardwareCounters hardware;
    // Where its warps wait, per source line (tilelab/stalls.h); status says why there are none.
    StallSamples stalls;
    double gbps_dram = 0;         // measured DRAM bytes (read + write) / median time; 0 without counters (apply())
    // The kernels it launches in order where it launches several (analyze names them, a full run
    // times each alone); the timing above is of all of them together.
    std::vector<PassTime> passes;
    // Where the configuration may fail its check by design (VariantInstance::may_be_wrong): why.
    std::string may_be_wrong;

    StageTimes stages;
    std::optional<CpuCheck> cpu;  // the CPU run, in model mode when RunOptions::cpu_check asked for it

    // Shared memory a block uses: the kernel's static bytes (ptxas) plus the launch's dynamic bytes.
    int smem_bytes() const { return occupancy_input.smem_per_block; }
    // Takes the worker's measurement: its outcome, times, validation and counts, then the rates.
    void apply(const Measurement& m);
};

}  // namespace tilelab
