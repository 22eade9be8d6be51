// Register-tiled stencil: the coarsened kernel, but only the current plane stays in shared memory.
// Plane z−1 and plane z+1 are needed only by the thread of the same (x, y), so each thread keeps
// them in registers (prev, next) and the block shares just plane z, whose x-y neighbours other
// threads read: TX·TY floats of shared memory (4 KB at 32×32) instead of three times that.
// Global traffic is exactly the coarsened kernel's: register tiling moves reuse from shared
// memory into registers, it does not remove loads.
//
// As in the coarsened kernel, loads run ahead of use (plane z+3 is requested while plane z is
// computed) so the memory system stays busy. The z loop is unrolled eight steps at a time, which
// turns the register rotation prev ← curr ← next ← ahead ← after into renaming for all but one
// step in eight; unrolling all Z steps measured no faster on an H200 and compiles several
// times longer at Z = 32 or 64. The boundary planes 0 and Nz−1
// are copied to out only where their values are needed anyway (plane 0 in the prologue, plane
// Nz−1 after the walk): a store of a value just loaded would make the thread wait for the load.
// One shared plane costs a second barrier per step (see below); a second buffer would save it,
// but measured no faster on an H200.
#pragma once
#include "stencil_common.cuh"

template <int TX, int TY, int Z>
__global__ void __launch_bounds__(TX * TY)
register_tiled_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                       int nz, unsigned long long* counters) {
    static_assert(TX >= 3 && TY >= 3, "a tile needs at least one output cell inside its halo");
    static_assert(Z >= 1, "a block computes at least one output plane");
    TL_COUNTER(counters);
    __shared__ float curr_s[TY][TX];

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

    auto load_plane = [&](int z) {
        TL_GLOAD(1);
        return in[size_t(z) * plane + column];
    };
    // Planes 0 and nz−1 are boundary conditions: the block that holds one (the first block for
    // plane 0, the last for nz−1) copies this thread's cell of it to out.
    auto copy_if_boundary = [&](float value, int z) {
        if ((z == 0 || z == nz - 1) && owns) {
            out[size_t(z) * plane + column] = value;
            TL_GSTORE(1);
        }
    };

    // Input planes z_first−1 .. z_end; z_end ≥ z_first + 1, so the first three always exist.
    float prev = 0.0f, curr = 0.0f, next = 0.0f, ahead = 0.0f;
    if (in_grid) {
        prev = load_plane(z_first - 1);
        curr = load_plane(z_first);
        next = load_plane(z_first + 1);
        if (z_first + 2 <= z_end) ahead = load_plane(z_first + 2);
        copy_if_boundary(prev, z_first - 1);
        curr_s[ty][tx] = curr;
        TL_SSTORE(1);
    }

#pragma unroll 8
    for (int i = 0; i < Z; ++i) {
        const int z = z_first + i;
        if (z >= z_end) break;  // the same for the whole block: the barriers stay uniform

        float after = 0.0f;
        if (in_grid && z + 3 <= z_end) after = load_plane(z + 3);
        __syncthreads();  // curr_s holds plane z for every thread

        if (owns) {
            float result = curr;  // an x or y boundary cell is copied
            if (computes) {
                result = apply_stencil(curr, curr_s[ty][tx - 1], curr_s[ty][tx + 1],
                                       curr_s[ty - 1][tx], curr_s[ty + 1][tx], prev, next);
                TL_SLOAD(4);
            }
            out[size_t(z) * plane + column] = result;
            TL_GSTORE(1);
        }
        __syncthreads();  // nobody reads plane z from curr_s any more

        prev = curr;
        curr = next;
        next = ahead;
        ahead = after;
        if (in_grid && z + 1 < z_end) {
            curr_s[ty][tx] = curr;
            TL_SSTORE(1);
        }
    }
    // The last step moved plane z_end into curr.
    if (in_grid) copy_if_boundary(curr, z_end);
}
