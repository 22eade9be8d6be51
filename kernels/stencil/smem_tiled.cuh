// Shared-memory tiled stencil: a T×T×T block loads a T³ input tile (one cell per thread) and
// computes the (T−2R)³ outputs inside it; the outer R layers of threads only load the halo.
// Each input now comes from global memory once per block instead of up to 6·R + 1 times, but the
// halo is large in 3D (58% of an 8³ tile at R = 1, 87.5% at R = 2), and T³ ≤ 1024 threads caps T at 10.
// Boundary cells are copied from the register the thread loaded, not from shared memory.
#pragma once
#include "stencil_common.cuh"

template <int T, int R>
__global__ void __launch_bounds__(T * T * T)
smem_tiled_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                   unsigned long long* counters) {
    static_assert(R >= 1 && R <= TL_MAX_STENCIL_RADIUS, "the order must have coefficients in stencil_coef");
    static_assert(T >= 2 * R + 1, "a tile needs at least one output cell inside its R-cell halo");
    TL_COUNTER(counters);
    note_stencil_radius<R>();
    __shared__ float tile[T][T][T];

    // The tile starts R cells before the block's first output: blocks step by T−2R.
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int x = blockIdx.x * (T - 2 * R) + tx;
    const int y = blockIdx.y * (T - 2 * R) + ty;
    const int z = blockIdx.z * (T - 2 * R) + tz;
    const bool in_grid = x < nx && y < ny && z < nz;
    const size_t plane = size_t(nx) * ny;
    const size_t at = size_t(z) * plane + size_t(y) * nx + x;

    float value = 0.0f;
    // EXERCISE-BEGIN: a thread inside the grid loads in[at] into value and into tile[tz][ty][tx]
    if (in_grid) {
        value = in[at];
        TL_GLOAD(1);
        tile[tz][ty][tx] = value;
        TL_SSTORE(1);
    }
    // EXERCISE-END
    // EXERCISE-BEGIN: barrier: the whole tile must be in shared memory before anyone reads a neighbour
    __syncthreads();  // the whole tile must be in shared memory before anyone reads a neighbour
    // EXERCISE-END

    if (!in_grid) return;
    if (tile_computes(tx, T, x, nx, R) && tile_computes(ty, T, y, ny, R) && tile_computes(tz, T, z, nz, R)) {
        // EXERCISE-BEGIN: out[at]: the star stencil of radius R read from the tile (tile[tz + dz][ty + dy][tx + dx])
        out[at] = apply_star_stencil<R>([&](int dx, int dy, int dz) { return tile[tz + dz][ty + dy][tx + dx]; });
        TL_SLOAD(6 * R + 1);
        TL_GSTORE(1);
        // EXERCISE-END
    } else if (tile_owns(tx, T, x, nx, R) && tile_owns(ty, T, y, ny, R) && tile_owns(tz, T, z, nz, R)) {
        out[at] = value;  // a boundary cell this block alone holds
        TL_GSTORE(1);
    }
}
