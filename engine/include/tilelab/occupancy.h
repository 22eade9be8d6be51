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

// Registers as the SM allocates them (cuda_occupancy.h, cudaOccRegAllocationGranularity): per
// warp, in units of 256 registers on every architecture from Kepler to Blackwell, so per thread
// ptxas's count rounded up to a multiple of 256 / 32 = 8 (transpose.smem at TILE=8: ptxas 14,
// allocated 16, which is Nsight Compute's launch__registers_per_thread on an H100). Occupancy is
// computed with the allocated count; this is the one place that states it for display.
struct RegisterAllocation {
    int ptxas = 0;            // per thread, as ptxas reports them
    int per_thread = 0;       // allocated per thread: per_warp / warp size
    int per_warp = 0;         // ptxas × warp size, rounded up to `unit`
    int unit = 0;             // the allocation unit, registers per warp
    int thread_multiple = 0;  // unit / warp size: the allocated per-thread count is a multiple of it
    bool rounded() const { return per_thread != ptxas; }
};
RegisterAllocation allocated_registers(const Target& t, int ptxas_registers);

struct CurvePoint { int x = 0; double occupancy = 0; };
struct OccupancyCurves {
    std::vector<CurvePoint> vs_block_size;   // x: threads per block (warp multiples)
    std::vector<CurvePoint> vs_registers;    // x: registers per thread
    std::vector<CurvePoint> vs_smem;         // x: shared bytes per block
};
// Each curve varies one input and keeps the other two at `at`.
OccupancyCurves occupancy_curves(const Target& t, const OccupancyInput& at);

}  // namespace tilelab
