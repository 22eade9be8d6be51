// The client-only build (TILELAB_CUDA=OFF) has no cuda_occupancy.h: occupancy follows our own
// statement of the rules (occupancy_rules_own.cpp), which the full build's tests check against it.
#include "model/occupancy_rules.h"

namespace tilelab {

const OccupancyRules& occupancy_rules() { return own_occupancy_rules(); }

}  // namespace tilelab
