// Shared-memory tiled stencil: a T×T×T block loads a T³ input tile (one cell per thread) and
// computes the (T−2)³ outputs inside it; the outer layer of threads only loads the halo.
// Each input now comes from global memory once per block instead of up to 7 times, but the
// halo is large in 3D (58% of an 8³ tile), and T³ ≤ 1024 threads caps T at 10.
// Boundary cells are copied from the register the thread loaded, not from shared memory.
#pragma once
#include "stencil_common.cuh"

template <int T>
__global__ void __launch_bounds__(T * T * T)
smem_tiled_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                   unsigned long long* counters) {
    static_assert(T >= 3, "a tile needs at least one output cell inside its one-cell halo");
    TL_COUNTER(counters);
    __shared__ float tile[T][T][T];

    // The tile starts one cell before the block's first output: blocks step by T−2.
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int x = blockIdx.x * (T - 2) + tx;
    const int y = blockIdx.y * (T - 2) + ty;
    const int z = blockIdx.z * (T - 2) + tz;
    const bool in_grid = x < nx && y < ny && z < nz;
    const size_t plane = size_t(nx) * ny;
    const size_t at = size_t(z) * plane + size_t(y) * nx + x;

    float value = 0.0f;
    if (in_grid) {
        value = in[at];
        TL_GLOAD(1);
        tile[tz][ty][tx] = value;
        TL_SSTORE(1);
    }
    __syncthreads();  // the whole tile must be in shared memory before anyone reads a neighbour

    if (!in_grid) return;
    if (tile_computes(tx, T, x, nx) && tile_computes(ty, T, y, ny) && tile_computes(tz, T, z, nz)) {
        out[at] = apply_stencil(tile[tz][ty][tx], tile[tz][ty][tx - 1], tile[tz][ty][tx + 1],
                                tile[tz][ty - 1][tx], tile[tz][ty + 1][tx],
                                tile[tz - 1][ty][tx], tile[tz + 1][ty][tx]);
        TL_SLOAD(7);
        TL_GSTORE(1);
    } else if (tile_owns(tx, T, x, nx) && tile_owns(ty, T, y, ny) && tile_owns(tz, T, z, nz)) {
        out[at] = value;  // a boundary cell this block alone holds
        TL_GSTORE(1);
    }
}
