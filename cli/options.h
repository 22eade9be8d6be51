// What the command line asked for, as one plain struct filled by main.cpp (CLI11) and read by
// the subcommands; plus the CLI's exit codes and the error that carries one.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include "tilelab/result.h"

namespace tilelab::cli {

// Exit codes are part of the CLI's interface: scripts and tests rely on them.
enum ExitCode : int {
    kExitOk = 0,
    kExitRuntime = 1,     // a launch or CUDA call failed
    kExitUsage = 2,       // invalid input: unknown variant/parameter, value out of range, bad size ...
    kExitNoGpu = 3,       // the command needs a GPU and there is none (model mode)
    kExitValidation = 4,  // the kernel ran but its output did not match the reference
    kExitCompile = 5,     // NVRTC/ptxas rejected the kernel
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

    // What to compile or run
    std::string variant;            // variant id, or a lesson id / number
    std::vector<std::string> sets;  // --set NAME=VALUE, repeatable
    std::string size;               // --size; "" = the lesson's size or the family default
    std::string target;             // --target preset key, name or sm_XX (model mode)

    // How to run (run, sweep)
    int repetitions = RunOptions{}.repetitions;
    int warmup = RunOptions{}.warmup;
    bool no_flush = false;
    bool no_count = false;
    bool no_reference = false;
    uint64_t seed = RunOptions{}.seed;

    // Sweep
    std::string param, param2;       // the swept parameters
    std::vector<int> values, values2; // restrict them to these values (default: all valid values)
    bool compile_only = false;       // analyse every point, run none

    RunOptions run_options() const {
        RunOptions o;
        o.warmup = warmup;
        o.repetitions = repetitions;
        o.flush_l2 = !no_flush;
        o.count_accesses = !no_count;
        o.time_reference = !no_reference;
        o.seed = seed;
        return o;
    }
};

}  // namespace tilelab::cli
