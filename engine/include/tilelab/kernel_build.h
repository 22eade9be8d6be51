// The build the engine compiles for a kernel instance — plain, or instrumented to count accesses
// (TILELAB_COUNT=1). analyze(), measure(), compile-ahead and bench/compile_sweep all make their
// requests here, so that their cache keys and their compile times are those of the same builds.
#pragma once
#include "tilelab/compile.h"
#include "tilelab/variant.h"

namespace tilelab {

CompileRequest kernel_build(const KernelInstance& k, int arch, bool instrumented);

}  // namespace tilelab
