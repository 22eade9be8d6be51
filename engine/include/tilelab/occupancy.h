// Occupancy from cuda_occupancy.h (the toolkit's own calculator; needs no GPU), plus the
// arithmetic spelled out for teaching and the data for the three classic curves.
#pragma once
#include <string>
#include <vector>
#include "tilelab/target.h"

namespace tilelab {

struct OccupancyInput {
    int threads_per_block = 0;
    int registers_per_thread = 0;
    int smem_per_block = 0;   // static + dynamic bytes
};

struct Occupancy {
    int blocks_per_sm = 0;
    int active_warps = 0;       // per SM
    int max_warps = 0;          // per SM
    double occupancy = 0;       // active_warps / max_warps, 0..1
    std::string limiter;        // "warps", "registers", "shared memory", "blocks", or several joined by " and "
    // Blocks per SM allowed by each resource alone (INT_MAX, as in cuda_occupancy.h, when the
    // block uses none of it: no registers, or no shared memory and no reservation).
    int limit_warps = 0, limit_registers = 0, limit_smem = 0, limit_blocks = 0;
    std::vector<std::string> steps;  // the arithmetic, one line each
    std::string error;               // e.g. "block of 2048 threads exceeds 1024"
};

Occupancy compute_occupancy(const Target& t, const OccupancyInput& in);

struct CurvePoint { int x = 0; double occupancy = 0; };
struct OccupancyCurves {
    std::vector<CurvePoint> vs_block_size;   // x: threads per block (warp multiples)
    std::vector<CurvePoint> vs_registers;    // x: registers per thread
    std::vector<CurvePoint> vs_smem;         // x: shared bytes per block
};
// Each curve varies one input and keeps the other two at `at`.
OccupancyCurves occupancy_curves(const Target& t, const OccupancyInput& at);

}  // namespace tilelab
