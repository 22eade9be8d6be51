// Shared by every stencil kernel: the coefficients, the one formula they all apply, and the rule
// that decides which block writes a cell. Compiled by NVRTC only.
//
// The grid is nx × ny × nz floats, x fastest: cell (x, y, z) lives at in[(z·ny + y)·nx + x].
// Boundary cells (any coordinate 0 or n−1) hold boundary conditions: the sweep copies them from
// in to out unchanged; every other cell gets the 7-point stencil. The basic and shared-tiled
// kernels also come as an order-R "star" stencil (R cells each way along each axis, 6·R + 1
// points); their boundary is then R cells deep.
#pragma once
#include "common.cuh"

// The largest order any kernel takes (R = 2: the 13-point stencil).
#define TL_MAX_STENCIL_RADIUS 2

// c0 centre, then six per distance d = 1..R: x−d, x+d, y−d, y+d, z−d, z+d (so c1..c6 are the
// 7-point stencil's x−1, x+1, y−1, y+1, z−1, z+1). Set by the host through
// cudaLibraryGetGlobal(..., "stencil_coef"). Every thread of a warp reads the same coefficient at
// the same time, which is the access the constant cache serves in one transaction.
__constant__ float stencil_coef[1 + 6 * TL_MAX_STENCIL_RADIUS];

// The order of the stencil a kernel applied, for the host's validation: an order-R kernel with
// R > 1 writes R here once per launch (thread 0 of block 0); the 7-point kernels leave the 0 the
// host puts here, which means 1. Never read by a kernel; not a counted access.
__device__ int stencil_radius_used;

template <int R>
__device__ __forceinline__ void note_stencil_radius() {
    if (R > 1 && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 && threadIdx.x == 0 && threadIdx.y == 0 &&
        threadIdx.z == 0)
        stencil_radius_used = R;
}

// The 7-point stencil: 7 multiplies and 6 adds, the 13 FLOPs the cost models count per output.
// The CPU reference sums in the same order (in double).
__device__ __forceinline__ float apply_stencil(float centre, float x_minus, float x_plus,
                                               float y_minus, float y_plus, float z_minus,
                                               float z_plus) {
    return stencil_coef[0] * centre + stencil_coef[1] * x_minus + stencil_coef[2] * x_plus +
           stencil_coef[3] * y_minus + stencil_coef[4] * y_plus + stencil_coef[5] * z_minus +
           stencil_coef[6] * z_plus;
}

// The same stencil onto a running sum that already holds its z−1 term (below = c5 · z_minus):
// the other six products in the same order after it (the temporal kernels, kernels/stencil/temporal.cuh).
__device__ __forceinline__ float apply_stencil_onto(float below, float centre, float x_minus, float x_plus,
                                                    float y_minus, float y_plus, float z_plus) {
    return below + stencil_coef[0] * centre + stencil_coef[1] * x_minus + stencil_coef[2] * x_plus +
           stencil_coef[3] * y_minus + stencil_coef[4] * y_plus + stencil_coef[6] * z_plus;
}

// The order-R star stencil: 6·R + 1 multiplies and 6·R adds (12·R + 1 FLOPs; 13 at R = 1), summed
// in the order of the coefficients, as the reference does. at(dx, dy, dz) is the input at that
// offset from the output cell.
template <int R, class Input>
__device__ __forceinline__ float apply_star_stencil(const Input& at) {
    float sum = stencil_coef[0] * at(0, 0, 0);
#pragma unroll
    for (int d = 1; d <= R; ++d) {
        const int c = 6 * (d - 1) + 1;
        sum += stencil_coef[c + 0] * at(-d, 0, 0);
        sum += stencil_coef[c + 1] * at(d, 0, 0);
        sum += stencil_coef[c + 2] * at(0, -d, 0);
        sum += stencil_coef[c + 3] * at(0, d, 0);
        sum += stencil_coef[c + 4] * at(0, 0, -d);
        sum += stencil_coef[c + 5] * at(0, 0, d);
    }
    return sum;
}

// True when the thread's cell along this axis gets the stencil: an inner tile position
// (r ≤ t ≤ tile−1−r) holding an interior cell (c < n−r; c ≥ r follows from t ≥ r).
__device__ __forceinline__ bool tile_computes(int t, int tile, int c, int n, int r = 1) {
    return t >= r && t <= tile - 1 - r && c < n - r;
}

// Tiled kernels load an input tile of `tile` cells along one axis, starting r cells before the
// block's first output (the halo), so consecutive blocks overlap by 2·r cells. Along that axis a
// thread at tile position t and grid coordinate c writes its cell when
//   - it computes it (above), or
//   - c is one of the grid's first r cells and this is the first block (t == c), or
//   - c is one of its last r cells and this is the last block (its tile reaches the end: c − t + tile ≥ n).
// Every cell of the grid is thereby written by exactly one thread of one block. At r = 1 the
// first and last cells are held by one block only, so this is "c == 0 or c == n−1".
__device__ __forceinline__ bool tile_owns(int t, int tile, int c, int n, int r = 1) {
    return tile_computes(t, tile, c, n, r) || (c < r && t == c) || (c >= n - r && c - t + tile >= n);
}

// Where the cells of a plane-walking block are. The block is TX/VX × TY threads; each thread looks
// after RY rows of the tile (rows ty, ty + TY, ty + 2·TY, ...) and VX consecutive columns of each
// (VX·tx … VX·tx + VX − 1; VX = 1 but in the register-tiled kernel), so the tile is TX × R with
// R = TY·RY: more cells per thread means more independent loads in flight per thread.
//
// Two layouts of the halo (the one-cell ring an output's x-y neighbours reach into):
//  - inside the tile (AROUND = false, the book's; VX = 1): the tile is the input tile, starting one
//    cell before the block's outputs; its edge cells are loaded but not computed, and consecutive
//    tiles overlap by two cells. Tile rows start one float before a 128-byte line.
//  - around the tile (AROUND = true): the tile is the output tile, starting on the block's first
//    output, and the 2·TX + 2·R halo cells are extra loads: the rows above and below in pieces
//    of VX cells, one piece per thread for threads 0, 1, ..., then the columns left and right one
//    cell per thread. Every cell is an output; rows are aligned; the halo is loaded once per
//    output plane and its corners not at all.
// In shared memory the tile's rows sit A = 1 row down (room for the halo row above; 0 inside) and
// PAD columns in: one around at VX = 1, VX around otherwise (a row's pieces stay VX-aligned for
// vector accesses; the halo column sits just left of the tile), 0 inside.
template <int TX, int TY, int RY, bool AROUND, int VX = 1>
struct PlaneTile {
    static_assert(VX == 1 || VX == 2 || VX == 4, "a thread's cells of a row: one float, a float2 or a float4");
    static_assert(TX % VX == 0, "the tile's width is a whole number of threads");
    static_assert(VX == 1 || AROUND, "several columns a thread need the halo around the tile (aligned rows)");
    static constexpr int R = TY * RY;
    static constexpr int A = AROUND ? 1 : 0;
    static constexpr int PAD = AROUND ? VX : 0;
    static constexpr int THREADS_X = TX / VX;
    int x;                     // this thread's first column
    int row[RY];               // tile rows of its cells (ty + r·TY)
    bool in_grid[RY];          // its first cell of row r inside the grid: the row's cells are loaded
    bool owns[RY];             // this block writes them
    bool computes[RY];         // some of them get the stencil (else they are copied)
    bool inner_row[RY];        // the row is inside the grid's interior along y (halo around only)
    size_t column[RY];         // offset of the first cell within an x-y plane
    bool has_halo = false;     // this thread loads one halo piece of each output plane
    bool halo_row = false;     // ... of the row above or below: VX cells (else one cell of a column)
    int halo_sx = 0, halo_sy = 0;
    size_t halo_column = 0;

    // Whether cell j of row r (column x + j) gets the stencil.
    __device__ bool computes_cell(int r, int j) const {
        if (VX == 1) return computes[r];
        return inner_row[r] && x + j > 0 && x + j < nx_ - 1;
    }

    __device__ PlaneTile(int nx, int ny) : nx_(nx) {
        const int tx = threadIdx.x, ty = threadIdx.y;
        const int x0 = AROUND ? blockIdx.x * TX : blockIdx.x * (TX - 2);
        const int y0 = AROUND ? blockIdx.y * R : blockIdx.y * (R - 2);
        x = x0 + VX * tx;
#pragma unroll
        for (int r = 0; r < RY; ++r) {
            row[r] = ty + r * TY;
            const int y = y0 + row[r];
            in_grid[r] = x < nx && y < ny;
            if (AROUND) {
                if (VX > 1) inner_row[r] = y > 0 && y < ny - 1;
                owns[r] = in_grid[r];
                computes[r] = in_grid[r] && x + VX - 1 > 0 && x < nx - 1 && y > 0 && y < ny - 1;
            } else {
                owns[r] = in_grid[r] && tile_owns(tx, TX, x, nx) && tile_owns(row[r], R, y, ny);
                computes[r] = tile_computes(tx, TX, x, nx) && tile_computes(row[r], R, y, ny);
            }
            column[r] = size_t(y) * nx + x;
        }
        if (AROUND) {
            // Halo piece t: the row above (t < TX/VX), the row below, the column left, the column right.
            const int t = ty * THREADS_X + tx;
            int hx = -1, hy = -1;
            if (t < THREADS_X) {
                hx = x0 + VX * t, hy = y0 - 1, halo_sx = PAD + VX * t, halo_sy = 0, halo_row = true;
            } else if (t < 2 * THREADS_X) {
                hx = x0 + VX * (t - THREADS_X), hy = y0 + R, halo_sx = PAD + VX * (t - THREADS_X), halo_sy = R + 1;
                halo_row = true;
            } else if (t < 2 * THREADS_X + R) {
                hx = x0 - 1, hy = y0 + t - 2 * THREADS_X, halo_sx = PAD - 1, halo_sy = t - 2 * THREADS_X + 1;
            } else if (t < 2 * THREADS_X + 2 * R) {
                hx = x0 + TX, hy = y0 + t - 2 * THREADS_X - R, halo_sx = PAD + TX, halo_sy = t - 2 * THREADS_X - R + 1;
            }
            has_halo = hx >= 0 && hy >= 0 && hx < nx && hy < ny;
            if (has_halo) halo_column = size_t(hy) * nx + hx;
        }
    }

private:
    int nx_;
};
