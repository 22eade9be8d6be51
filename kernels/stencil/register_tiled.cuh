// Register-tiled stencil: the coarsened kernel, but only the current plane stays in shared memory.
// Plane z−1 and plane z+1 are needed only by the thread of the same (x, y), so each thread keeps
// them in registers and the block shares just plane z, whose x-y neighbours other threads read:
// one plane of shared memory (4 KB for the book's 32×32 tile) instead of three. Global traffic is
// exactly the coarsened kernel's: register tiling moves reuse from shared memory into registers,
// it does not remove loads.
//
// The tile's layout (halo inside or around it, RY rows per thread) is PlaneTile's, in
// stencil_common.cuh. Each row's planes sit in a register queue q[r][0..4] = planes z−1 .. z+3:
// prev, curr, next, and two planes requested ahead, so loads are in flight across the barriers.
// The z loop is unrolled eight steps at a time, which turns most queue moves into renaming;
// unrolling all Z steps measured no faster on an H200 and compiles much longer at Z = 64. Halo
// cells, when the halo is around the tile, have their own queue h[0..2] = planes z .. z+2.
// Boundary planes 0 and Nz−1 are copied to out where their values are used anyway (plane 0 after
// the first barrier, plane Nz−1 after the walk), never right after their load.
// One shared plane costs a second barrier per step (see below); a second buffer would save it.
#pragma once
#include "stencil_common.cuh"

template <int TX, int TY, int RY, int Z, bool AROUND>
__global__ void __launch_bounds__(TX * TY)
register_tiled_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                       int nz, unsigned long long* counters) {
    using Tile = PlaneTile<TX, TY, RY, AROUND>;
    constexpr int R = Tile::R, A = Tile::A;
    static_assert(TX >= 3 && R >= 3, "a tile needs at least one output cell inside its halo");
    static_assert(!AROUND || 2 * TX + 2 * R <= TX * TY, "one thread per halo cell");
    static_assert(Z >= 1, "a block computes at least one output plane");
    constexpr int kQueue = 5;  // planes z−1 .. z+3
    TL_COUNTER(counters);
    __shared__ float curr_s[R + 2 * A][TX + 2 * A];

    const Tile tile(nx, ny);
    const int tx = threadIdx.x;
    const int z_first = 1 + blockIdx.z * Z;          // first output plane of this block
    const int z_end = min(z_first + Z, nz - 1);      // one past its last output plane
    const size_t plane = size_t(nx) * ny;
    auto load = [&](int z, size_t column) {
        TL_GLOAD(1);
        return in[size_t(z) * plane + column];
    };
    auto store = [&](int z, size_t column, float value) {
        out[size_t(z) * plane + column] = value;
        TL_GSTORE(1);
    };

    // Input planes z_first−1 .. z_end of each row (z_end ≥ z_first + 1); the halo of output
    // planes z_first .. z_end−1 only.
    float q[RY][kQueue], h[3] = {};
#pragma unroll
    for (int r = 0; r < RY; ++r)
#pragma unroll
        for (int k = 0; k < kQueue; ++k)
            q[r][k] = tile.in_grid[r] && z_first - 1 + k <= z_end ? load(z_first - 1 + k, tile.column[r]) : 0.0f;
#pragma unroll
    for (int k = 0; k < 3; ++k)
        if (tile.has_halo && z_first + k < z_end) h[k] = load(z_first + k, tile.halo_column);

#pragma unroll 8
    for (int i = 0; i < Z; ++i) {
        const int z = z_first + i;
        if (z >= z_end) break;  // the same for the whole block: the barriers stay uniform

#pragma unroll
        for (int r = 0; r < RY; ++r)
            if (tile.in_grid[r]) {
                curr_s[tile.row[r] + A][tx + A] = q[r][1];
                TL_SSTORE(1);
            }
        if (tile.has_halo) {
            curr_s[tile.halo_sy][tile.halo_sx] = h[0];
            TL_SSTORE(1);
        }
        // EXERCISE-BEGIN: barrier: curr_s holds plane z for every thread
        __syncthreads();  // curr_s holds plane z for every thread
        // EXERCISE-END

#pragma unroll
        for (int r = 0; r < RY; ++r) {
            if (!tile.owns[r]) continue;
            if (i == 0 && z == 1) store(0, tile.column[r], q[r][0]);  // boundary plane 0
            float result = q[r][1];  // an x or y boundary cell is copied
            if (tile.computes[r]) {
                const int sy = tile.row[r] + A, sx = tx + A;
                // EXERCISE-BEGIN: result: the 7-point stencil (apply_stencil) from q[r][1] (centre), its x/y neighbours in curr_s and the z neighbours q[r][0] and q[r][2]
                result = apply_stencil(q[r][1], curr_s[sy][sx - 1], curr_s[sy][sx + 1],
                                       curr_s[sy - 1][sx], curr_s[sy + 1][sx], q[r][0], q[r][2]);
                TL_SLOAD(4);
                // EXERCISE-END
            }
            store(z, tile.column[r], result);
        }
        // EXERCISE-BEGIN: barrier: nobody reads plane z from curr_s any more
        __syncthreads();  // nobody reads plane z from curr_s any more
        // EXERCISE-END

#pragma unroll
        for (int r = 0; r < RY; ++r) {
#pragma unroll
            // EXERCISE-BEGIN: move the queue one plane on: q[r][k] = q[r][k+1], the last slot loads plane z + kQueue - 1 (0 past z_end)
            for (int k = 0; k + 1 < kQueue; ++k) q[r][k] = q[r][k + 1];
            q[r][kQueue - 1] = tile.in_grid[r] && z + kQueue - 1 <= z_end ? load(z + kQueue - 1, tile.column[r]) : 0.0f;
            // EXERCISE-END
        }
        h[0] = h[1];
        h[1] = h[2];
        h[2] = tile.has_halo && z + 3 < z_end ? load(z + 3, tile.halo_column) : 0.0f;
    }
    // The last step moved plane z_end into q[r][1].
    if (z_end == nz - 1)
#pragma unroll
        for (int r = 0; r < RY; ++r)
            if (tile.owns[r]) store(z_end, tile.column[r], q[r][1]);
}
