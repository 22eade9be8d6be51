// What the command line asked for, as one plain struct filled by main.cpp (CLI11) and read by
// the subcommands; plus the CLI's exit codes and the error that carries one.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include "tilelab/input_policy.h"
#include "tilelab/result.h"

namespace tilelab::cli {

// Exit codes are part of the CLI's interface: scripts and tests rely on them. They are the
// codes every TileLab executable uses (tilelab/input_policy.h), under the CLI's old names.
enum ExitCode : int {
    kExitOk = tilelab::kExitOk,
    kExitRuntime = tilelab::kExitFailed,            // a launch or CUDA call failed
    kExitUsage = tilelab::kExitInvalidInput,        // invalid input: unknown name, value out of range, empty value ...
    kExitNoGpu = tilelab::kExitNoGpu,               // the command needs a GPU and there is none (model mode)
    kExitValidation = tilelab::kExitValidation,     // the kernel ran but its output did not match the reference
    kExitCompile = tilelab::kExitCompile,           // NVRTC/ptxas rejected the kernel
};

// Thrown by a subcommand to stop with `code`; main prints "tilelab-cli: <what()>" on one line.
class CliError : public std::runtime_error {
public:
    CliError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

inline CliError usage_error(const std::string& message) { return CliError(kExitUsage, message); }

enum class OutputFormat { Table, Json, Csv };

struct CliOptions {
    // Output and mode (every subcommand)
    OutputFormat format = OutputFormat::Table;
    bool model_mode = false;        // --model-mode or TILELAB_MODEL_MODE=1
    bool with_log = false;          // --log: the NVRTC/ptxas log in the report
    std::vector<std::string> gpu_hosts;  // --gpu-host [user@]host, repeatable: the GPU worker through ssh
    std::string gpus;               // sweep/tune --gpus all|0,1: several GPUs at once (tilelab/gpu_pool.h)
    std::string gpu_command;        // --gpu-command "...": the GPU worker through any launcher (sh -c)
    int connect_timeout_s = 15;     // --connect-timeout

    // What to compile or run
    std::string lang;               // --lang en|zh; "" = the locale's
    std::string variant;            // variant id, or a lesson id / number
    std::vector<std::string> sets;  // --set NAME=VALUE, repeatable
    std::string size;               // --size; "" = the lesson's size or the family default
    std::string target;             // --target preset key, name or sm_XX (model mode)
    int step = -1;                  // --step N (from 1, as the app shows steps; 0 reads as 1): the lesson's state there; -1 = not given
    std::string source;             // compile/run --source FILE: the user's kernel instead of the lesson's
    std::string quantity;           // compile/run --quantity NAME: only that named quantity (tilelab/quantities.h)
    int time_limit_s = 10;          // run --time-limit: a run that takes longer is stopped (endless loop)

    // exercise
    std::string exercise;           // "list" or a lesson number / id
    bool skeleton = false;          // --skeleton: print the starting file

    // drill
    std::string drill_answer;       // --answer K=VALUE: check drill K (number from 1, or id)
    bool drill_reveal = false;      // --reveal: every drill's answer as the engine gives it here

    // How to run (run, sweep)
    int repetitions = RunOptions{}.repetitions;
    int warmup = RunOptions{}.warmup;
    bool no_flush = false;
    bool no_count = false;
    bool no_reference = false;
    bool no_hardware = false;       // run: --no-hardware skips the hardware-counter pass
    bool hardware = false;          // sweep: --hardware adds it to every point
    bool stalls = false;            // run, sweep: --stalls samples where the warps wait (CUPTI PC sampling)
    uint64_t seed = RunOptions{}.seed;

    // Sweep
    std::string param, param2;       // the swept parameters
    std::vector<std::string> values, values2;  // restrict them to these values (default: all valid values)
    bool compile_only = false;       // analyse every point, run none

    // Tune
    std::vector<std::string> tune_params;  // --param, repeatable: the searched parameters (default: all)
    std::string budget;              // --budget SECONDS as typed; "" = 60
    bool fresh = false;              // --fresh: measure again even when the cache has a ranking
    int tune_candidates = 24;        // --candidates: kept by the model's score
    int tune_sample = 8;             // --sample: drawn at random (seeded) from the other valid points

    RunOptions run_options() const {
        RunOptions o;
        o.warmup = warmup;
        o.repetitions = repetitions;
        o.flush_l2 = !no_flush;
        o.count_accesses = !no_count;
        o.time_reference = !no_reference;
        o.hardware_counters = !no_hardware;
        o.stall_samples = stalls;
        o.seed = seed;
        if (!source.empty()) {
            o.count_accesses = false;   // a user's kernel is not counted (tilelab/engine.h, UserKernel)
            o.time_limit_ms = time_limit_s * 1000;
        }
        return o;
    }
};

}  // namespace tilelab::cli
