// Shared by every stencil kernel: the coefficients, the one formula they all apply, and the rule
// that decides which block writes a cell. Compiled by NVRTC only.
//
// The grid is nx × ny × nz floats, x fastest: cell (x, y, z) lives at in[(z·ny + y)·nx + x].
// Boundary cells (any coordinate 0 or n−1) hold boundary conditions: the sweep copies them from
// in to out unchanged; every other cell gets the 7-point stencil.
#pragma once
#include "common.cuh"

// c0 centre, c1 x−1, c2 x+1, c3 y−1, c4 y+1, c5 z−1, c6 z+1. Set by the host through
// cudaLibraryGetGlobal(..., "stencil_coef"). Every thread of a warp reads the same coefficient at
// the same time, which is the access the constant cache serves in one transaction.
__constant__ float stencil_coef[7];

// The 7-point stencil: 7 multiplies and 6 adds, the 13 FLOPs the cost models count per output.
// The CPU reference sums in the same order (in double).
__device__ __forceinline__ float apply_stencil(float centre, float x_minus, float x_plus,
                                               float y_minus, float y_plus, float z_minus,
                                               float z_plus) {
    return stencil_coef[0] * centre + stencil_coef[1] * x_minus + stencil_coef[2] * x_plus +
           stencil_coef[3] * y_minus + stencil_coef[4] * y_plus + stencil_coef[5] * z_minus +
           stencil_coef[6] * z_plus;
}

// Tiled kernels load an input tile of `tile` cells along one axis, starting one cell before the
// block's first output (the halo), so consecutive blocks overlap by two cells. Along that axis a
// thread at tile position t and grid coordinate c writes its cell when
//   - it is an inner tile position (1 ≤ t ≤ tile−2) holding an interior cell, or
//   - c is the grid's first or last cell (a boundary cell only this block holds).
// Every cell of the grid is thereby written by exactly one thread of one block.
__device__ __forceinline__ bool tile_owns(int t, int tile, int c, int n) {
    return (t >= 1 && t <= tile - 2 && c < n - 1) || c == 0 || c == n - 1;
}

// True when the thread's cell along this axis gets the stencil (inner tile position, interior cell).
__device__ __forceinline__ bool tile_computes(int t, int tile, int c, int n) {
    return t >= 1 && t <= tile - 2 && c < n - 1;
}
