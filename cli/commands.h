// The subcommands. Each writes its report to stdout in the chosen format and returns 0, or
// throws CliError (code and one line for stderr) after writing whatever report it has.
#pragma once
#include <string>
#include "options.h"
#include "tilelab/engine.h"

namespace tilelab::cli {

int cmd_list(const CliOptions& o);       // cmd_info.cpp: variants, parameters, lessons
int cmd_targets(const CliOptions& o);    // cmd_info.cpp: presets and the device
int cmd_ceilings(const CliOptions& o);   // cmd_info.cpp: measured copy bandwidth, cuBLAS peak
int cmd_compile(const CliOptions& o);    // cmd_analyse.cpp: ptxas, occupancy, cost model
int cmd_run(const CliOptions& o);        // cmd_analyse.cpp: the above plus time and validation
int cmd_sweep(const CliOptions& o);      // cmd_sweep.cpp: one or two parameters across values
int cmd_tune(const CliOptions& o);       // cmd_tune.cpp: the best parameters on this GPU (autotuner)
int cmd_exercise(const CliOptions& o);   // cmd_exercise.cpp: list, one exercise, its starting file
int cmd_drill(const CliOptions& o);      // cmd_drill.cpp: a lesson's drills; check an answer

// cmd_exercise.cpp: --source FILE read and checked (a usage error if it cannot be a kernel file).
UserKernel read_source_flag(const std::string& path);
// Prints a failed user compile's diagnostics to stderr (file:line:col: error: ...) and returns the
// line for the exit message.
std::string report_user_compile_errors(const RunResult& r);

// Colour only for a terminal, and never when NO_COLOR is set (no-color.org).
bool stdout_wants_color();

}  // namespace tilelab::cli
