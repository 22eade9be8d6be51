// The subcommands. Each writes its report to stdout in the chosen format and returns 0, or
// throws CliError (code and one line for stderr) after writing whatever report it has.
#pragma once
#include <string>
#include "options.h"

namespace tilelab::cli {

int cmd_list(const CliOptions& o);       // cmd_info.cpp: variants, parameters, lessons
int cmd_targets(const CliOptions& o);    // cmd_info.cpp: presets and the device
int cmd_ceilings(const CliOptions& o);   // cmd_info.cpp: measured copy bandwidth, cuBLAS peak
int cmd_compile(const CliOptions& o);    // cmd_analyse.cpp: ptxas, occupancy, cost model
int cmd_run(const CliOptions& o);        // cmd_analyse.cpp: the above plus time and validation
int cmd_sweep(const CliOptions& o);      // cmd_sweep.cpp: one or two parameters across values

// Colour only for a terminal, and never when NO_COLOR is set (no-color.org).
bool stdout_wants_color();

}  // namespace tilelab::cli
