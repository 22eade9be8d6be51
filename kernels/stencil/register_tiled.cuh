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
//
// register_tiled_stencil_pieces, below: VX = 2 or 4 columns a thread (the halo around the tile
// only). A thread's cells of a row are VX consecutive floats, loaded, stored and moved through
// shared memory as one float2 or float4 (so Nx must be a multiple of VX). Fewer, wider accesses
// carry the same bytes: the x neighbours inside a piece come from the thread's own registers, so a
// piece of VX outputs reads 2·VX + 2 floats of shared memory (the pieces above and below, one cell
// each side) instead of 4·VX. It is a kernel of its own: the walk above, written for pieces of
// any width, ran 3% slower at VX = 1 (10% at Z = 32) on an H200 (docs/benchmarks.md).

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

// VX consecutive floats of a row: one access of 4·VX bytes (a float2 or float4).
template <int VX>
struct alignas(4 * VX) RowPiece {
    float v[VX];
};

template <int TX, int TY, int RY, int Z, bool AROUND, int VX>
__global__ void __launch_bounds__(TX / VX * TY)
register_tiled_stencil_pieces(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                              int nz, unsigned long long* counters) {
    static_assert(VX == 2 || VX == 4, "one column a thread is register_tiled_stencil");
    using Tile = PlaneTile<TX, TY, RY, AROUND, VX>;
    using Piece = RowPiece<VX>;
    constexpr int R = Tile::R, A = Tile::A, PAD = Tile::PAD, THREADS = TX / VX * TY;
    static_assert(TX >= 3 && R >= 3, "a tile needs at least one output cell inside its halo");
    static_assert(!AROUND || 2 * Tile::THREADS_X + 2 * R <= THREADS, "one thread per halo piece");
    static_assert(Z >= 1, "a block computes at least one output plane");
    constexpr int kQueue = 5;  // planes z−1 .. z+3
    TL_COUNTER(counters);
    __shared__ __align__(16) float curr_s[R + 2 * A][TX + 2 * PAD];

    const Tile tile(nx, ny);
    const int tx = threadIdx.x;
    const int z_first = 1 + blockIdx.z * Z;          // first output plane of this block
    const int z_end = min(z_first + Z, nz - 1);      // one past its last output plane
    const size_t plane = size_t(nx) * ny;
    // Nx is a multiple of VX (the host checks): a piece lies wholly inside the grid or outside it,
    // and every piece starts on a multiple of 4·VX bytes.
    auto load = [&](int z, size_t column) {
        TL_GLOAD(VX);
        return *reinterpret_cast<const Piece*>(in + size_t(z) * plane + column);
    };
    auto store = [&](int z, int r, const Piece& c) {
        *reinterpret_cast<Piece*>(out + size_t(z) * plane + tile.column[r]) = c;
        TL_GSTORE(VX);
    };
    auto share = [&](int sy, int sx, const Piece& c) {
        *reinterpret_cast<Piece*>(&curr_s[sy][sx]) = c;
        TL_SSTORE(VX);
    };
    const Piece none = {};
    // A halo piece: VX cells of the row above or below, or one cell of a column (in v[0]).
    auto load_halo = [&](int z) {
        if (tile.halo_row) return load(z, tile.halo_column);
        Piece c = none;
        TL_GLOAD(1);
        c.v[0] = in[size_t(z) * plane + tile.halo_column];
        return c;
    };

    // Input planes z_first−1 .. z_end of each row (z_end ≥ z_first + 1); the halo of output
    // planes z_first .. z_end−1 only.
    Piece q[RY][kQueue], h[3] = {none, none, none};
#pragma unroll
    for (int r = 0; r < RY; ++r)
#pragma unroll
        for (int k = 0; k < kQueue; ++k)
            q[r][k] = tile.in_grid[r] && z_first - 1 + k <= z_end ? load(z_first - 1 + k, tile.column[r]) : none;
#pragma unroll
    for (int k = 0; k < 3; ++k)
        if (tile.has_halo && z_first + k < z_end) h[k] = load_halo(z_first + k);

#pragma unroll 8
    for (int i = 0; i < Z; ++i) {
        const int z = z_first + i;
        if (z >= z_end) break;  // the same for the whole block: the barriers stay uniform

#pragma unroll
        for (int r = 0; r < RY; ++r)
            if (tile.in_grid[r]) share(tile.row[r] + A, PAD + VX * tx, q[r][1]);
        if (tile.has_halo) {
            if (tile.halo_row) {
                share(tile.halo_sy, tile.halo_sx, h[0]);
            } else {
                curr_s[tile.halo_sy][tile.halo_sx] = h[0].v[0];
                TL_SSTORE(1);
            }
        }
        __syncthreads();  // curr_s holds plane z for every thread

#pragma unroll
        for (int r = 0; r < RY; ++r) {
            if (!tile.owns[r]) continue;
            if (i == 0 && z == 1) store(0, r, q[r][0]);  // boundary plane 0
            const Piece& c = q[r][1];
            Piece result = c;  // an x or y boundary cell is copied
            if (tile.computes[r]) {
                const int sy = tile.row[r] + A, sx = PAD + VX * tx;
                // The pieces above and below, the cells left and right of this one.
                const Piece above = *reinterpret_cast<const Piece*>(&curr_s[sy - 1][sx]);
                const Piece below = *reinterpret_cast<const Piece*>(&curr_s[sy + 1][sx]);
                const float left = curr_s[sy][sx - 1], right = curr_s[sy][sx + VX];
                TL_SLOAD(2 * VX + 2);
                // Every cell of the piece is computed and its boundary cells keep their value: no
                // branch per cell, and the loads above are used whatever the piece holds.
#pragma unroll
                for (int j = 0; j < VX; ++j) {
                    const float x_minus = j == 0 ? left : c.v[j - 1], x_plus = j == VX - 1 ? right : c.v[j + 1];
                    const float stencil = apply_stencil(c.v[j], x_minus, x_plus, above.v[j], below.v[j], q[r][0].v[j], q[r][2].v[j]);
                    result.v[j] = tile.computes_cell(r, j) ? stencil : c.v[j];
                }
            }
            store(z, r, result);
        }
        __syncthreads();  // nobody reads plane z from curr_s any more

#pragma unroll
        for (int r = 0; r < RY; ++r) {
#pragma unroll
            for (int k = 0; k + 1 < kQueue; ++k) q[r][k] = q[r][k + 1];
            q[r][kQueue - 1] = tile.in_grid[r] && z + kQueue - 1 <= z_end ? load(z + kQueue - 1, tile.column[r]) : none;
        }
        h[0] = h[1];
        h[1] = h[2];
        h[2] = tile.has_halo && z + 3 < z_end ? load_halo(z + 3) : none;
    }
    // The last step moved plane z_end into q[r][1].
    if (z_end == nz - 1)
#pragma unroll
        for (int r = 0; r < RY; ++r)
            if (tile.owns[r]) store(z_end, r, q[r][1]);
}
