// Thread-coarsened stencil: a TX×TY block (the book's T×T) walks along z, computing Z output
// planes of (TX−2)×(TY−2) cells, one plane per step. Three input planes (z−1, z, z+1) live in
// shared memory, so the block needs TX·TY threads instead of T³ and T can reach 32: the halo
// shrinks to the x-y edges plus two planes per Z, and each input is loaded once per block.
// Cost: 3·TX·TY floats of shared memory (12 KB at 32×32) and two barriers per plane.
//
// Two engineering choices beyond the book, neither changing what is loaded or stored:
//  - the three planes rotate through three buffers (plane j of the tile sits in buffer j % 3)
//    instead of being copied down each step; the z loop is unrolled so j % 3 is a constant;
//  - each thread loads the plane it will store one step before storing it (software pipelining),
//    so a global load is in flight while the block computes, keeping the memory system busy.
#pragma once
#include "stencil_common.cuh"

template <int TX, int TY, int Z>
__global__ void __launch_bounds__(TX * TY)
coarsened_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                  unsigned long long* counters) {
    static_assert(TX >= 3 && TY >= 3, "a tile needs at least one output cell inside its halo");
    static_assert(Z >= 1, "a block computes at least one output plane");
    TL_COUNTER(counters);
    __shared__ float planes[3][TY][TX];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * (TX - 2) + tx;        // tile starts one cell before the outputs
    const int y = blockIdx.y * (TY - 2) + ty;
    const int z_first = 1 + blockIdx.z * Z;          // first output plane of this block
    const int z_end = min(z_first + Z, nz - 1);      // one past its last output plane
    const bool in_grid = x < nx && y < ny;
    const bool owns = in_grid && tile_owns(tx, TX, x, nx) && tile_owns(ty, TY, y, ny);
    const bool computes = tile_computes(tx, TX, x, nx) && tile_computes(ty, TY, y, ny);
    const size_t plane = size_t(nx) * ny;
    const size_t column = size_t(y) * nx + x;

    // Loads this thread's cell of input plane z. Planes 0 and nz−1 are boundary conditions: the
    // block that loads one (the first block for plane 0, the last for nz−1) also copies it.
    auto load_plane = [&](int z) {
        const float v = in[size_t(z) * plane + column];
        TL_GLOAD(1);
        if ((z == 0 || z == nz - 1) && owns) {
            out[size_t(z) * plane + column] = v;
            TL_GSTORE(1);
        }
        return v;
    };

    // Input planes z_first−1 .. z_end; z_end ≥ z_first + 1, so the first three always exist.
    float staged = 0.0f;  // the plane that goes into shared memory at the end of the next step
    if (in_grid) {
        planes[0][ty][tx] = load_plane(z_first - 1);
        planes[1][ty][tx] = load_plane(z_first);
        planes[2][ty][tx] = load_plane(z_first + 1);
        TL_SSTORE(3);
        if (z_first + 2 <= z_end) staged = load_plane(z_first + 2);
    }

#pragma unroll
    for (int i = 0; i < Z; ++i) {
        const int z = z_first + i;
        if (z >= z_end) break;  // the same for the whole block: the barriers stay uniform
        float (*prev)[TX] = planes[i % 3];
        float (*curr)[TX] = planes[(i + 1) % 3];
        float (*next)[TX] = planes[(i + 2) % 3];

        float ahead = 0.0f;
        if (in_grid && z + 3 <= z_end) ahead = load_plane(z + 3);
        __syncthreads();  // plane z+1, stored at the end of the last step, is visible to all

        if (owns) {
            float result;
            if (computes) {
                result = apply_stencil(curr[ty][tx], curr[ty][tx - 1], curr[ty][tx + 1],
                                       curr[ty - 1][tx], curr[ty + 1][tx], prev[ty][tx],
                                       next[ty][tx]);
                TL_SLOAD(7);
            } else {
                result = curr[ty][tx];  // an x or y boundary cell: copied
                TL_SLOAD(1);
            }
            out[size_t(z) * plane + column] = result;
            TL_GSTORE(1);
        }
        __syncthreads();  // nobody reads plane z−1 any more: its buffer takes plane z+2

        if (in_grid && z + 2 <= z_end) {
            prev[ty][tx] = staged;
            TL_SSTORE(1);
        }
        staged = ahead;
    }
}
