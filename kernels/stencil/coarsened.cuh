// Thread-coarsened stencil: a TX×TY block (the book's T×T) walks along z, computing Z output
// planes of its tile, one plane per step (with the book's layout, (TX−2)×(TY−2) cells). Three
// input planes (z−1, z, z+1) live in shared memory, so the block needs TX·TY threads instead of
// T³ and T can reach 32: the halo shrinks to the x-y edges plus two planes per Z, and each input is loaded once per block.
// Cost: three tile planes of shared memory (12 KB for the book's 32×32) and one barrier per plane.
// The tile's layout (halo inside or around it, RY rows per thread) is PlaneTile's, in
// stencil_common.cuh.
//
// Engineering beyond the book, none of it changing what is loaded or stored:
//  - the three planes rotate through three buffers (the buffer of plane z−1 takes plane z+2)
//    instead of being copied down each step;
//  - one barrier per plane, not two: a thread reads planes z−1 and z+1 only at its own cell, so
//    it may overwrite its own cell of plane z−1's buffer right after computing (see below);
//  - each thread requests its global loads kAhead planes before they go to shared memory
//    (software pipelining), so several loads per thread are in flight while the block computes;
//  - the boundary planes 0 and Nz−1 are copied to out when they are stored to shared memory, not
//    when they are loaded: a store of a loaded value makes the thread wait for that load, and
//    doing it at load time would have turned every prefetch into a wait.
#pragma once
#include "stencil_common.cuh"

template <int TX, int TY, int RY, int Z, bool AROUND>
__global__ void __launch_bounds__(TX * TY)
coarsened_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                  unsigned long long* counters) {
    using Tile = PlaneTile<TX, TY, RY, AROUND>;
    constexpr int R = Tile::R, A = Tile::A;
    static_assert(TX >= 3 && R >= 3, "a tile needs at least one output cell inside its halo");
    static_assert(!AROUND || 2 * TX + 2 * R <= TX * TY, "one thread per halo cell");
    static_assert(Z >= 1, "a block computes at least one output plane");
    // Planes each thread has requested but not yet stored to shared memory, on top of the three
    // there. Measured on an H200 at 512³, L2 flushed before each run: with the halo inside the
    // tile two is best (0.416 ms against 0.437 with one, 32×16, Z = 16; three was slower still);
    // with the halo around it one is (0.310 ms against 0.321 with two, 64×4, RY = 4, Z = 32):
    // each plane ahead costs RY registers, and these tiles keep RY rows in flight anyway.
    constexpr int kAhead = AROUND ? 1 : 2;
    TL_COUNTER(counters);
    __shared__ float planes[3][R + 2 * A][TX + 2 * A];

    const Tile tile(nx, ny);
    const int tx = threadIdx.x;
    const int z_first = 1 + blockIdx.z * Z;          // first output plane of this block
    const int z_end = min(z_first + Z, nz - 1);      // one past its last output plane
    const size_t plane = size_t(nx) * ny;
    auto load = [&](int z, size_t column) {
        TL_GLOAD(1);
        return in[size_t(z) * plane + column];
    };
    // Stores row r's cell of input plane z into a shared buffer. Planes 0 and nz−1 are boundary
    // conditions: the block that holds one (the first block for plane 0, the last for nz−1) also
    // copies it to out.
    auto keep = [&](float (*buffer)[TX + 2 * A], int r, float value, int z) {
        buffer[tile.row[r] + A][tx + A] = value;
        TL_SSTORE(1);
        if ((z == 0 || z == nz - 1) && tile.owns[r]) {
            out[size_t(z) * plane + tile.column[r]] = value;
            TL_GSTORE(1);
        }
    };
    // The halo cell of output plane z (halo around the tile only).
    auto keep_halo = [&](float (*buffer)[TX + 2 * A], float value) {
        buffer[tile.halo_sy][tile.halo_sx] = value;
        TL_SSTORE(1);
    };

    // Input planes z_first−1 .. z_end; z_end ≥ z_first + 1, so the first three always exist.
    // All loads are issued before the first store, so their latencies overlap. ahead[r][k] holds
    // plane z+2+k at the step computing plane z; halo_ahead[k] the halo cell of that plane.
    float ahead[RY][kAhead] = {}, halo_ahead[kAhead] = {};
    {
        float first[RY][3] = {}, halo_first[2] = {};
#pragma unroll
        for (int r = 0; r < RY; ++r) {
            if (!tile.in_grid[r]) continue;
#pragma unroll
            for (int k = 0; k < 3; ++k) first[r][k] = load(z_first - 1 + k, tile.column[r]);
#pragma unroll
            for (int k = 0; k < kAhead; ++k)
                if (z_first + 2 + k <= z_end) ahead[r][k] = load(z_first + 2 + k, tile.column[r]);
        }
        if (tile.has_halo) {
#pragma unroll
            for (int k = 0; k < 2; ++k)
                if (z_first + k < z_end) halo_first[k] = load(z_first + k, tile.halo_column);
#pragma unroll
            for (int k = 0; k < kAhead; ++k)
                if (z_first + 2 + k < z_end) halo_ahead[k] = load(z_first + 2 + k, tile.halo_column);
        }
#pragma unroll
        for (int r = 0; r < RY; ++r)
            if (tile.in_grid[r])
#pragma unroll
                for (int k = 0; k < 3; ++k) keep(planes[k], r, first[r][k], z_first - 1 + k);
        if (tile.has_halo) {
            keep_halo(planes[1], halo_first[0]);
            if (z_first + 1 < z_end) keep_halo(planes[2], halo_first[1]);
        }
    }

    int below = 0, centre = 1, above = 2;  // buffers holding planes z−1, z, z+1
#pragma unroll 8
    for (int i = 0; i < Z; ++i) {
        const int z = z_first + i;
        if (z >= z_end) break;  // the same for the whole block: the barriers stay uniform
        float (*prev)[TX + 2 * A] = planes[below];
        float (*curr)[TX + 2 * A] = planes[centre];
        float (*next)[TX + 2 * A] = planes[above];

        float fresh[RY], halo_fresh = 0.0f;
#pragma unroll
        for (int r = 0; r < RY; ++r)
            fresh[r] = tile.in_grid[r] && z + 2 + kAhead <= z_end ? load(z + 2 + kAhead, tile.column[r]) : 0.0f;
        if (tile.has_halo && z + 2 + kAhead < z_end) halo_fresh = load(z + 2 + kAhead, tile.halo_column);
        // Plane z+1, stored at the end of the last step, is visible to all; and every thread is
        // done reading plane z−1 (the last step's curr) at its neighbours' cells.
        // EXERCISE-BEGIN: barrier: plane z+1 is visible to all, and everyone is done reading plane z-1
        __syncthreads();
        // EXERCISE-END

#pragma unroll
        for (int r = 0; r < RY; ++r) {
            if (!tile.owns[r]) continue;
            const int sy = tile.row[r] + A, sx = tx + A;
            float result;
            if (tile.computes[r]) {
                // EXERCISE-BEGIN: result: the 7-point stencil (apply_stencil) of the centre cell, its four neighbours in curr, and the cells of prev and next
                result = apply_stencil(curr[sy][sx], curr[sy][sx - 1], curr[sy][sx + 1], curr[sy - 1][sx],
                                       curr[sy + 1][sx], prev[sy][sx], next[sy][sx]);
                TL_SLOAD(7);
                // EXERCISE-END
            } else {
                result = curr[sy][sx];  // an x or y boundary cell: copied
                TL_SLOAD(1);
            }
            out[size_t(z) * plane + tile.column[r]] = result;
            TL_GSTORE(1);
        }
        // No second barrier: other threads read only curr; prev (plane z−1) is read by this
        // thread alone, at its own cells, so they can take plane z+2 at once. Its halo cells were
        // last read as curr, before this step's barrier. Plane z+2 becomes curr two steps on,
        // after the next barrier has made the stores visible.
#pragma unroll
        for (int r = 0; r < RY; ++r) {
            if (tile.in_grid[r] && z + 2 <= z_end) keep(prev, r, ahead[r][0], z + 2);
#pragma unroll
            for (int k = 0; k + 1 < kAhead; ++k) ahead[r][k] = ahead[r][k + 1];
            ahead[r][kAhead - 1] = fresh[r];
        }
        if (tile.has_halo && z + 2 < z_end) keep_halo(prev, halo_ahead[0]);
#pragma unroll
        for (int k = 0; k + 1 < kAhead; ++k) halo_ahead[k] = halo_ahead[k + 1];
        halo_ahead[kAhead - 1] = halo_fresh;
        // EXERCISE-BEGIN: rotate the three buffers: the one that held plane z-1 now holds plane z+2
        const int refilled = below;  // now holds plane z+2
        below = centre;
        centre = above;
        above = refilled;
        // EXERCISE-END
    }
}
