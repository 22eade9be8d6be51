// Thread-coarsened stencil: a TX×TY block (the book's T×T) walks along z, computing Z output
// planes of (TX−2)×(TY−2) cells, one plane per step. Three input planes (z−1, z, z+1) live in
// shared memory, so the block needs TX·TY threads instead of T³ and T can reach 32: the halo
// shrinks to the x-y edges plus two planes per Z, and each input is loaded once per block.
// Cost: 3·TX·TY floats of shared memory (12 KB at 32×32) and one barrier per plane.
//
// Engineering beyond the book, none of it changing what is loaded or stored:
//  - the three planes rotate through three buffers (plane j of the tile sits in buffer j % 3)
//    instead of being copied down each step; the z loop is unrolled so j % 3 is a constant;
//  - one barrier per plane, not two: a thread reads planes z−1 and z+1 only at its own cell, so
//    it may overwrite its own cell of plane z−1's buffer right after computing (see below);
//  - each thread requests its global loads kAhead planes before they go to shared memory
//    (software pipelining), so several loads per thread are in flight while the block computes;
//  - the boundary planes 0 and Nz−1 are copied to out when they are stored to shared memory, not
//    when they are loaded: a store of a loaded value makes the thread wait for that load, and
//    doing it at load time would have turned every prefetch into a wait.
#pragma once
#include "stencil_common.cuh"

template <int TX, int TY, int Z>
__global__ void __launch_bounds__(TX * TY)
coarsened_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                  unsigned long long* counters) {
    static_assert(TX >= 3 && TY >= 3, "a tile needs at least one output cell inside its halo");
    static_assert(Z >= 1, "a block computes at least one output plane");
    // Planes each thread has requested but not yet stored to shared memory, on top of the three
    // there. Two measured best on an H200 (one and three were slower; more costs registers).
    constexpr int kAhead = 2;
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

    auto load_plane = [&](int z) {
        TL_GLOAD(1);
        return in[size_t(z) * plane + column];
    };
    // Stores this thread's cell of input plane z into a shared buffer. Planes 0 and nz−1 are
    // boundary conditions: the block that holds one (the first block for plane 0, the last for
    // nz−1) also copies it to out.
    auto keep = [&](float (*buffer)[TX], float value, int z) {
        buffer[ty][tx] = value;
        TL_SSTORE(1);
        if ((z == 0 || z == nz - 1) && owns) {
            out[size_t(z) * plane + column] = value;
            TL_GSTORE(1);
        }
    };

    // Input planes z_first−1 .. z_end; z_end ≥ z_first + 1, so the first three always exist.
    // All loads are issued before the first store, so their latencies overlap.
    float ahead[kAhead] = {};  // ahead[k] holds plane z+2+k at the step computing plane z
    if (in_grid) {
        const float below = load_plane(z_first - 1), centre = load_plane(z_first),
                    above = load_plane(z_first + 1);
#pragma unroll
        for (int k = 0; k < kAhead; ++k)
            if (z_first + 2 + k <= z_end) ahead[k] = load_plane(z_first + 2 + k);
        keep(planes[0], below, z_first - 1);
        keep(planes[1], centre, z_first);
        keep(planes[2], above, z_first + 1);
    }

#pragma unroll
    for (int i = 0; i < Z; ++i) {
        const int z = z_first + i;
        if (z >= z_end) break;  // the same for the whole block: the barriers stay uniform
        float (*prev)[TX] = planes[i % 3];
        float (*curr)[TX] = planes[(i + 1) % 3];
        float (*next)[TX] = planes[(i + 2) % 3];

        float fresh = 0.0f;
        if (in_grid && z + 2 + kAhead <= z_end) fresh = load_plane(z + 2 + kAhead);
        // Plane z+1, stored at the end of the last step, is visible to all; and every thread is
        // done reading plane z−1 (the last step's curr) at its neighbours' cells.
        __syncthreads();

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
        // No second barrier: other threads read only curr; prev (plane z−1) is read by this
        // thread alone, at its own cell, so its cell can take plane z+2 at once. Plane z+2
        // becomes curr two steps on, after the next barrier has made the store visible.
        if (in_grid && z + 2 <= z_end) keep(prev, ahead[0], z + 2);
#pragma unroll
        for (int k = 0; k + 1 < kAhead; ++k) ahead[k] = ahead[k + 1];
        ahead[kAhead - 1] = fresh;
    }
}
