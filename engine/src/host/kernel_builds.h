// Internal to the engine: the builds it compiles for a request — the kernel's, plain or
// instrumented, and those of a variant's other passes — and what occupancy sees of a build.
// analyze(), measure() and compile-ahead all go through here, so that their cache keys agree.
#pragma once
#include <string>
#include <vector>
#include "protocol/worker_protocol.h"
#include "tilelab/compile.h"
#include "tilelab/kernel_build.h"
#include "tilelab/occupancy.h"
#include "tilelab/result.h"
#include "tilelab/variant.h"

namespace tilelab {

// What occupancy sees of a build: the block's threads, ptxas's registers, and static plus dynamic
// shared memory.
OccupancyInput occupancy_input(const CompileResult& c, const LaunchShape& launch);

// The kernels of a variant that launches several (KernelPass), compiled for a job: each one's
// plain build and, where `counted`, its instrumented one (all or none: one that cannot launch
// counted drops the counting). From the user's text where the run is of the user's file. Returns
// the first failure's sentence, or "".
std::string compile_passes(CompileService& compiler, const std::vector<KernelPass>& passes, const RunResult& r, bool counted,
                           worker::MeasureJob& job);

}  // namespace tilelab
