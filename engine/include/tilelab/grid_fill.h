// How full a launch keeps the SMs when its grid is smaller than one wave: a grid of B blocks on S
// SMs puts at most ⌈B/S⌉ blocks on an SM at once, however many the SM could hold (Occupancy).
// Lesson 17 runs one block per SM on purpose; any small grid shows the same.
#pragma once
#include "tilelab/occupancy.h"
#include "tilelab/target.h"

namespace tilelab {

struct GridFill {
    bool limits = false;        // the grid, not the SM's resources, caps the blocks per SM
    int blocks_per_sm = 0;      // at most, with the blocks spread evenly
    int warps_per_sm = 0;
    double occupancy = 0;       // warps_per_sm / the SM's maximum
};

// `blocks` blocks of `threads_per_block` threads on t's SMs, given the kernel's occupancy.
GridFill grid_fill(const Target& t, const Occupancy& occ, int64_t blocks, int64_t threads_per_block);

}  // namespace tilelab
