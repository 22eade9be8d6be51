// The limits every kernel shares, whatever its variant says: block size and shape, clusters,
// shared memory per block, grid size. Checked after the variant's own rules (engine.cpp).
#pragma once
#include <string>
#include "tilelab/target.h"
#include "tilelab/variant.h"

namespace tilelab {

// "" when `launch` fits the target, else one sentence (English or Chinese, as `say` picks) why not.
std::string launch_limits_problem(const VariantInstance& v, const LaunchShape& launch, const Target& t);

}  // namespace tilelab
