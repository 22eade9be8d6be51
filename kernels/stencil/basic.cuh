// Basic stencil: one thread per grid cell, every operand straight from global memory.
// A BX×BY×BZ block covers a box of cells. An interior cell loads its 6·R + 1 inputs (R = 1: the
// 7-point stencil, 13 FLOPs over 28 bytes, 0.46 OP/B; R = 2: 13 points, 25 FLOPs over 52 bytes),
// a boundary cell (within R of a face) loads itself and copies it. Neighbouring threads load the
// same inputs again; only the caches stand between that and 6·R + 1 times the DRAM traffic.
#pragma once
#include "stencil_common.cuh"

template <int BX, int BY, int BZ, int R>
__global__ void __launch_bounds__(BX * BY * BZ)
basic_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
              unsigned long long* counters) {
    static_assert(R >= 1 && R <= TL_MAX_STENCIL_RADIUS, "the order must have coefficients in stencil_coef");
    TL_COUNTER(counters);
    note_stencil_radius<R>();
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int z = blockIdx.z * BZ + threadIdx.z;
    // EXERCISE-BEGIN: threads past the edge of the grid (x, y or z) leave
    if (x >= nx || y >= ny || z >= nz) return;  // the last blocks overhang the grid
    // EXERCISE-END

    const size_t plane = size_t(nx) * ny;  // size_t: 512³ cells already pass 2^27
    const size_t at = size_t(z) * plane + size_t(y) * nx + x;
    const bool interior = x >= R && x < nx - R && y >= R && y < ny - R && z >= R && z < nz - R;
    if (interior) {
        const long long row = nx, slab = (long long)plane;
        // EXERCISE-BEGIN: out[at]: the star stencil of radius R over in (apply_star_stencil with a lambda reading in[at + dx + dy·nx + dz·nx·ny])
        out[at] = apply_star_stencil<R>([&](int dx, int dy, int dz) { return in[at + dx + dy * row + dz * slab]; });
        TL_GLOAD(6 * R + 1);
        // EXERCISE-END
    } else {
        // EXERCISE-BEGIN: a boundary cell keeps its value: out[at] = in[at]
        out[at] = in[at];  // boundary condition: unchanged
        TL_GLOAD(1);
        // EXERCISE-END
    }
    TL_GSTORE(1);
}
