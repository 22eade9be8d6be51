// Temporal blocking: one launch advances the 7-point stencil by T time steps, so each cell goes
// through DRAM once per T steps instead of once per step.
//
// A block owns an output tile of (32 − 2T) × (TY·RY − 2T) columns and ZC planes. It reads the
// tile widened by T cells on every side (the halo a cell's value after T steps depends on) and
// walks that region along z plane by plane, with one "level" per time step: level 0 is the input,
// level l the grid after l steps. Level l of plane z needs level l−1 at planes z−1, z, z+1, so
// level l runs one plane behind level l−1: when plane p of the input arrives, level 1 computes
// plane p−1, level 2 plane p−2, ..., level T plane p−T — a pipeline T planes deep. Every level
// shrinks by one cell a side (its outermost ring lacks neighbours), so after T levels only the
// output tile is right: the ring cells computed on the way are the recompute temporal blocking
// pays for its saved trips to DRAM.
//
// Where each value sits:
//  - a warp is one row of 32 threads across the region's 32 columns, so x neighbours come from
//    the next lanes by shuffle (the region's first and last columns are never computed);
//  - a thread holds RY consecutive rows: a y neighbour is one of its own registers, except above
//    its first row and below its last, which it reads from shared memory, where the thread above
//    or below left its edge row;
//  - z neighbours and the centre are the thread's own registers: for every level, the planes
//    z−1 (prev) and z (mid); plane z+1 is the value the level below just produced.
// Shared memory holds only edge rows, per level and per iteration parity (written in iteration k,
// read in k+1), so one barrier per plane is enough.
// Moving prev ← mid ← fresh costs two register copies a cell a level (about a sixth of the
// instructions). Unrolling the loop three times, or twice with the planes in two register sets by
// parity, avoids them all but was slower on an H200 (more registers, or warps waiting for their
// instructions: twice the code); the two-column kernel below keeps a running sum instead of prev and saves
// one of the two copies (docs/benchmarks.md).
//
// Cells outside the grid are never loaded (0 in the one-column kernel); boundary cells (a
// coordinate 0 or n−1) keep their input value at every level, as one sweep copies them. The host
// launches ⌈steps / T⌉ of these, reading the last one's output.
#pragma once
#include "stencil_common.cuh"

// Copies of a block's walk, chosen once per block by where its region lies:
//  - kInterior: every cell inside the grid's interior. Every cell gets the stencil, no select, and
//    is loaded without asking whether it lies in the grid. Most blocks: at 512³ and a 64×24
//    region, 7 of 9 block columns and 27 of 29 block rows.
//  - kEdgeX (the two-column kernel): every row inside the interior, the region reaching the
//    boundary or past it along x only. Whether a cell is loaded, and whether it gets the stencil
//    or keeps its value, is then a matter of its column: two conditions a thread, not one a cell
//    (at 512³, 2 of the 9 block columns × 27 block rows: a fifth of the blocks).
//  - kEdge: any other region. Each cell gets the stencil or keeps its value by a select on its
//    own condition, and is loaded only where it lies in the grid.
enum WalkRegion { kInterior, kEdgeX, kEdge };
template <int K>
struct Walk {
    static constexpr int value = K;
};
// `computed` where `compute`, else `kept`, as a select the compiler cannot look into. Written
// plainly, NVVM splits Walk<kEdgeX>'s loop on its two per-lane conditions, and in the copy where a
// lane keeps its value it drops that lane's edge-row loads — fewer shared loads than the model
// counts, in the PTX the CPU run executes (ptxas for sm_90 made one loop of it, its 12 shared
// loads an iteration all there).
__device__ __forceinline__ float select_opaque(bool compute, float computed, float kept) {
    float r;
    asm("{\n\t.reg .pred %%keep;\n\tsetp.ne.u32 %%keep, %3, 0;\n\tselp.f32 %0, %1, %2, %%keep;\n\t}"
        : "=f"(r)
        : "f"(computed), "f"(kept), "r"(unsigned(compute)));
    return r;
}
// Whether the region of w × h cells from (x0, y0) reaches the boundary (or past it).
__device__ __forceinline__ bool region_at_edge(int x0, int w, int y0, int h, int nx, int ny) {
    return !(x0 >= 1 && x0 + w <= nx - 1 && y0 >= 1 && y0 + h <= ny - 1);
}

template <int T, int TY, int RY, int ZC, int AHEAD>
__global__ void __launch_bounds__(32 * TY)
temporal_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                 unsigned long long* counters) {
    constexpr int H = TY * RY;                  // region rows
    constexpr int BX = 32 - 2 * T, BY = H - 2 * T;
    static_assert(T >= 1 && BX >= 1 && BY >= 1, "the region must be wider than twice the steps");
    static_assert(ZC >= 1 && AHEAD >= 1, "a block owns a plane at least and loads one ahead");
    TL_COUNTER(counters);
    // Edge rows of each level's newest plane, by iteration parity: first_s[l][parity][ty] is
    // thread row ty's first row, last_s its last (levels 0 .. T−1; level T goes to out).
    __shared__ float first_s[T][2][TY][32], last_s[T][2][TY][32];

    const int lane = threadIdx.x, ty = threadIdx.y;
    const int x = int(blockIdx.x) * BX - T + lane;
    const int y_first = int(blockIdx.y) * BY - T + ty * RY;
    const int zs = int(blockIdx.z) * ZC, ze = min(zs + ZC, nz);   // output planes [zs, ze)
    // Offsets fit 32 bits: the family takes at most 2^30 cells. Worked out once, so that the
    // loop's integer work is one add per plane, not per cell.
    const int plane = nx * ny;
    bool in_grid[RY], inner[RY], owns[RY];
    unsigned column[RY];   // unsigned: an address is then one wide multiply-add from the plane's
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        const int y = y_first + r, h = ty * RY + r;
        in_grid[r] = x >= 0 && x < nx && y >= 0 && y < ny;
        inner[r] = x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1;
        owns[r] = in_grid[r] && lane >= T && lane < 32 - T && h >= T && h < H - T;
        column[r] = in_grid[r] ? unsigned(y * nx + x) : 0u;
    }
    // Input planes the block needs: [zs − T, ze + T), inside the grid.
    const int load_lo = max(zs - T, 0), load_hi = min(ze + T, nz);
    // In an interior region (Walk<kInterior>) every cell is in the grid: no check a row.
    auto load_plane = [&](int p, float (&v)[RY], auto edge) {
        constexpr bool EDGE = decltype(edge)::value != kInterior;
        const bool loaded = p >= load_lo && p < load_hi;   // the same for the whole block
        const float* from = in + ptrdiff_t(p) * plane;
#pragma unroll
        for (int r = 0; r < RY; ++r) {
            v[r] = 0.0f;
            if (loaded && (!EDGE || in_grid[r])) {
                v[r] = from[column[r]];
                TL_GLOAD(1);
            }
        }
    };
    // A thread's edge rows for the rows next to it: the row below reads `first`, the row above `last`.
    float* const first_mine = &first_s[0][0][ty][lane];
    float* const last_mine = &last_s[0][0][ty][lane];
    constexpr int kSlot = TY * 32;   // floats from one (level, parity) slot to the next
    auto share = [&](int level, int parity, const float (&v)[RY]) {
        const int slot = (2 * level + parity) * kSlot;
        if (ty > 0) {
            first_mine[slot] = v[0];
            TL_SSTORE(1);
        }
        if (ty < TY - 1) {
            last_mine[slot] = v[RY - 1];
            TL_SSTORE(1);
        }
    };

    // The input planes requested ahead: queue[a] is plane p + a of iteration k (p = zs − T + k).
    float queue[AHEAD][RY];
#pragma unroll
    for (int a = 0; a < AHEAD; ++a) load_plane(zs - T + a, queue[a], Walk<kEdge>{});
    float prev[T][RY], mid[T][RY];   // per level below T: planes z−1 and z of the plane it feeds
#pragma unroll
    for (int l = 0; l < T; ++l)
#pragma unroll
        for (int r = 0; r < RY; ++r) prev[l][r] = mid[l][r] = 0.0f;

    const int iterations = (ze - zs) + 2 * T;
    const auto walk = [&](auto edge) {
        constexpr bool EDGE = decltype(edge)::value != kInterior;
        for (int k = 0; k < iterations; ++k) {
            const int p = zs - T + k, parity = k & 1;
            float fresh[RY];   // the newest plane of the level below: the input's plane p first
#pragma unroll
            for (int r = 0; r < RY; ++r) fresh[r] = queue[0][r];
#pragma unroll
            for (int a = 0; a + 1 < AHEAD; ++a)
#pragma unroll
                for (int r = 0; r < RY; ++r) queue[a][r] = queue[a + 1][r];
            load_plane(p + AHEAD, queue[AHEAD - 1], edge);
            // Level 1 reads them where it computes.
            if (p >= max(load_lo, 1) && p < min(load_hi, nz - 1)) share(0, parity, fresh);

#pragma unroll
            for (int l = 1; l <= T; ++l) {
                // Level l computes plane z from level l−1's planes z−1 (prev), z (mid) and z+1 (fresh):
                // the planes level T needs, [zs − (T−l), ze + (T−l)), those inside the grid, where
                // boundary planes 0 and Nz−1 keep their values. The condition is the same for the
                // whole block, so the shuffles and barriers stay uniform.
                const int z = p - l;
                const bool active = z >= max(zs - (T - l), 0) && z < min(ze + (T - l), nz);
                const bool computes = active && z >= 1 && z < nz - 1;
                float result[RY];
#pragma unroll
                for (int r = 0; r < RY; ++r) result[r] = mid[l - 1][r];   // a boundary cell keeps its value
                if (computes) {
#pragma unroll
                    for (int r = 0; r < RY; ++r) {
                        const float centre = mid[l - 1][r];
                        const float x_minus = __shfl_up_sync(0xffffffffu, centre, 1);
                        const float x_plus = __shfl_down_sync(0xffffffffu, centre, 1);
                        float y_minus = centre, y_plus = centre;   // the region's own edge rows: never outputs
                        if (r > 0) {
                            y_minus = mid[l - 1][r - 1];
                        } else if (ty > 0) {
                            // EXERCISE-BEGIN: y_minus: the row above this thread's first row, level l−1 at plane z (left in shared memory last iteration by the thread row above)
                            y_minus = last_s[l - 1][parity ^ 1][ty - 1][lane];
                            TL_SLOAD(1);
                            // EXERCISE-END
                        }
                        if (r < RY - 1) {
                            y_plus = mid[l - 1][r + 1];
                        } else if (ty < TY - 1) {
                            y_plus = first_mine[(2 * (l - 1) + (parity ^ 1)) * kSlot + 32];   // first_s[l−1][parity^1][ty+1][lane]
                            TL_SLOAD(1);
                        }
                        // At the edge, evaluated everywhere and selected, not branched around: the
                        // few boundary lanes would cost the whole warp a branch per row.
                        const float sum =
                            apply_stencil(centre, x_minus, x_plus, y_minus, y_plus, prev[l - 1][r], fresh[r]);
                        result[r] = !EDGE || inner[r] ? sum : centre;
                    }
                }
                // EXERCISE-BEGIN: move level l−1's planes on (prev ← mid ← fresh) and hand level l's result up as the next level's fresh plane
#pragma unroll
                for (int r = 0; r < RY; ++r) {
                    prev[l - 1][r] = mid[l - 1][r];
                    mid[l - 1][r] = fresh[r];
                    fresh[r] = result[r];
                }
                // EXERCISE-END
                if (l < T) {
                    if (computes) share(l, parity, fresh);   // level l+1 reads them where it computes
                } else if (active) {
#pragma unroll
                    for (int r = 0; r < RY; ++r)
                        if (owns[r]) {
                            (out + ptrdiff_t(z) * plane)[column[r]] = fresh[r];
                            TL_GSTORE(1);
                        }
                }
            }
            __syncthreads();   // this iteration's edge rows are written; last iteration's are read
        }
    };
    if (region_at_edge(int(blockIdx.x) * BX - T, 32, int(blockIdx.y) * BY - T, H, nx, ny)) walk(Walk<kEdge>{});
    else walk(Walk<kInterior>{});
}

// Two columns a thread (CX = 2): the region is 64 columns, lane l holding columns 2l and 2l+1, so
// two shuffles a row serve two cells and the tile is 64 − 2T columns of 64 (x recompute 2T/64).
// The same pipeline as above. Written out for its two columns rather than as a loop over columns:
// ptxas schedules this form about 8% faster on an H200 (11.64 against 12.57 ms, docs/benchmarks.md),
// and the one-column kernel above stays as it was measured. Two changes cut the register moves
// (4.4% faster at 512³ on an H200, docs/benchmarks.md):
//  - a level keeps a running sum instead of the plane before: below = c5 · (plane z−1), formed
//    when plane z−1 moves on, so computing plane z adds the other six products to it and one
//    copy (mid ← fresh) is left instead of two. The same seven products in another order: the
//    tolerance does not depend on the order (families/stencil/shape.h);
//  - a plane that is not loaded (outside the grid or the block's planes) is not set to 0 first:
//    its registers keep what they held. No computed cell reads it: a computed cell's neighbours
//    are inside the grid, and the planes a level computes need only planes the level below
//    computed or, at level 0, loaded. Cells outside the grid are never computed (the select
//    keeps them). RY · CX moves an iteration fewer.
// It has a third walk, Walk<kEdgeX>, for regions at the grid's edge along x only: its loop is 620
// instructions an iteration against the general edge walk's 718 (the interior's: 563), 3.7% less
// time at 512³ and 1.4% at 768³ on an H200 (2026-12-04, docs/benchmarks.md).
// A row's offset kept once for both columns and the outputs a thread writes kept as bits (below)
// took the loops to about 540, 604 and 688 instructions (counted on a first form of the change):
// 2.2% less time at 512³, 2.5% at 768³ (same GPU and day).
template <int T, int TY, int RY, int ZC, int AHEAD>
__global__ void __launch_bounds__(32 * TY)
temporal_stencil_two_columns(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                             unsigned long long* counters) {
    constexpr int CX = 2, W = 32 * CX;
    constexpr int H = TY * RY;
    constexpr int BX = W - 2 * T, BY = H - 2 * T;
    static_assert(T >= 1 && BX >= 1 && BY >= 1, "the region must be wider than twice the steps");
    static_assert(RY * CX <= 32, "a thread's cells fit the bits of owns_bits");
    TL_COUNTER(counters);
    // Edge rows as above, a thread's two columns 32 words apart: [l][parity][ty][column][lane].
    __shared__ float first_s[T][2][TY][CX][32], last_s[T][2][TY][CX][32];

    const int lane = threadIdx.x, ty = threadIdx.y;
    const int x0 = int(blockIdx.x) * BX - T + CX * lane;   // this thread's first column
    const int y_first = int(blockIdx.y) * BY - T + ty * RY;
    const int zs = int(blockIdx.z) * ZC, ze = min(zs + ZC, nz);
    const int plane = nx * ny;
    bool in_grid[RY][CX], inner[RY][CX];
    // Bit r·CX + c: the thread writes that cell's output. One word tested a cell, where twelve
    // bools became predicates that ptxas shuffled in and out of registers each iteration.
    unsigned owns_bits = 0;
    bool col_in[CX], col_inner[CX];   // by column alone, for Walk<kEdgeX>, whose rows are all inner
    // Row r's offset in a plane, at the thread's first column; the second column is the next
    // word, so a row is one address computation and two loads (the second at +4 bytes).
    int row_off[RY];
#pragma unroll
    for (int c = 0; c < CX; ++c) {
        const int x = x0 + c;
        col_in[c] = x >= 0 && x < nx;
        col_inner[c] = x >= 1 && x < nx - 1;
    }
#pragma unroll
    for (int r = 0; r < RY; ++r)
#pragma unroll
        for (int c = 0; c < CX; ++c) {
            const int y = y_first + r, h = ty * RY + r, x = x0 + c, w = CX * lane + c;
            in_grid[r][c] = x >= 0 && x < nx && y >= 0 && y < ny;
            inner[r][c] = x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1;
            if (in_grid[r][c] && w >= T && w < W - T && h >= T && h < H - T) owns_bits |= 1u << (r * CX + c);
        }
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        const int y = y_first + r;
        row_off[r] = y >= 0 && y < ny ? y * nx + x0 : 0;   // x0 + c may lie outside: then not loaded
    }
    const int load_lo = max(zs - T, 0), load_hi = min(ze + T, nz);
    auto load_plane = [&](int p, float (&v)[RY][CX], auto edge) {
        constexpr int KIND = decltype(edge)::value;
        const bool loaded = p >= load_lo && p < load_hi;
        const float* from = in + ptrdiff_t(p) * plane;
#pragma unroll
        for (int r = 0; r < RY; ++r)
#pragma unroll
            for (int c = 0; c < CX; ++c) {
                if (loaded && (KIND == kInterior || (KIND == kEdgeX ? col_in[c] : in_grid[r][c]))) {
                    v[r][c] = from[row_off[r] + c];
                    TL_GLOAD(1);
                }
            }
    };
    float* const first_mine = &first_s[0][0][ty][0][lane];
    float* const last_mine = &last_s[0][0][ty][0][lane];
    constexpr int kSlot = TY * W;
    auto share = [&](int level, int parity, const float (&v)[RY][CX]) {
        const int slot = (2 * level + parity) * kSlot;
        if (ty > 0) {
            first_mine[slot] = v[0][0];
            first_mine[slot + 32] = v[0][1];
            TL_SSTORE(2);
        }
        if (ty < TY - 1) {
            last_mine[slot] = v[RY - 1][0];
            last_mine[slot + 32] = v[RY - 1][1];
            TL_SSTORE(2);
        }
    };

    float queue[AHEAD][RY][CX];   // 0 until loaded, so that nothing is read uninitialised
#pragma unroll
    for (int a = 0; a < AHEAD; ++a)
#pragma unroll
        for (int r = 0; r < RY; ++r)
#pragma unroll
            for (int c = 0; c < CX; ++c) queue[a][r][c] = 0.0f;
#pragma unroll
    for (int a = 0; a < AHEAD; ++a) load_plane(zs - T + a, queue[a], Walk<kEdge>{});
    float below[T][RY][CX], mid[T][RY][CX];   // per level below T: c5 · (plane z−1), and plane z
#pragma unroll
    for (int l = 0; l < T; ++l)
#pragma unroll
        for (int r = 0; r < RY; ++r)
#pragma unroll
            for (int c = 0; c < CX; ++c) below[l][r][c] = mid[l][r][c] = 0.0f;

    const int iterations = (ze - zs) + 2 * T;
    const auto walk = [&](auto edge) {
        constexpr int KIND = decltype(edge)::value;
        for (int k = 0; k < iterations; ++k) {
            const int p = zs - T + k, parity = k & 1;
            float fresh[RY][CX];
#pragma unroll
            for (int r = 0; r < RY; ++r)
#pragma unroll
                for (int c = 0; c < CX; ++c) fresh[r][c] = queue[0][r][c];
#pragma unroll
            for (int a = 0; a + 1 < AHEAD; ++a)
#pragma unroll
                for (int r = 0; r < RY; ++r)
#pragma unroll
                    for (int c = 0; c < CX; ++c) queue[a][r][c] = queue[a + 1][r][c];
            load_plane(p + AHEAD, queue[AHEAD - 1], edge);
            if (p >= max(load_lo, 1) && p < min(load_hi, nz - 1)) share(0, parity, fresh);

#pragma unroll
            for (int l = 1; l <= T; ++l) {
                const int z = p - l;
                const bool active = z >= max(zs - (T - l), 0) && z < min(ze + (T - l), nz);
                const bool computes = active && z >= 1 && z < nz - 1;
                float result[RY][CX];
#pragma unroll
                for (int r = 0; r < RY; ++r)
#pragma unroll
                    for (int c = 0; c < CX; ++c) result[r][c] = mid[l - 1][r][c];
                if (computes) {
#pragma unroll
                    for (int r = 0; r < RY; ++r) {
                        // Each column is the other's x neighbour; the lanes beside give the outer two.
                        const float c0 = mid[l - 1][r][0], c1 = mid[l - 1][r][1];
                        const float left = __shfl_up_sync(0xffffffffu, c1, 1);
                        const float right = __shfl_down_sync(0xffffffffu, c0, 1);
                        float ym0 = c0, ym1 = c1, yp0 = c0, yp1 = c1;
                        if (r > 0) {
                            ym0 = mid[l - 1][r - 1][0], ym1 = mid[l - 1][r - 1][1];
                        } else if (ty > 0) {
                            ym0 = last_s[l - 1][parity ^ 1][ty - 1][0][lane];
                            ym1 = last_s[l - 1][parity ^ 1][ty - 1][1][lane];
                            TL_SLOAD(2);
                        }
                        if (r < RY - 1) {
                            yp0 = mid[l - 1][r + 1][0], yp1 = mid[l - 1][r + 1][1];
                        } else if (ty < TY - 1) {
                            yp0 = first_mine[(2 * (l - 1) + (parity ^ 1)) * kSlot + W];
                            yp1 = first_mine[(2 * (l - 1) + (parity ^ 1)) * kSlot + W + 32];
                            TL_SLOAD(2);
                        }
                        const float s0 = apply_stencil_onto(below[l - 1][r][0], c0, left, c1, ym0, yp0, fresh[r][0]);
                        const float s1 = apply_stencil_onto(below[l - 1][r][1], c1, c0, right, ym1, yp1, fresh[r][1]);
                        if (KIND == kEdgeX) {
                            result[r][0] = select_opaque(col_inner[0], s0, c0);
                            result[r][1] = select_opaque(col_inner[1], s1, c1);
                        } else {
                            result[r][0] = KIND == kInterior || inner[r][0] ? s0 : c0;
                            result[r][1] = KIND == kInterior || inner[r][1] ? s1 : c1;
                        }
                    }
                }
#pragma unroll
                for (int r = 0; r < RY; ++r)
#pragma unroll
                    for (int c = 0; c < CX; ++c) {
                        below[l - 1][r][c] = stencil_coef[5] * mid[l - 1][r][c];   // plane z+1's z−1 term
                        mid[l - 1][r][c] = fresh[r][c];
                        fresh[r][c] = result[r][c];
                    }
                if (l < T) {
                    if (computes) share(l, parity, fresh);
                } else if (active) {
#pragma unroll
                    for (int r = 0; r < RY; ++r)
#pragma unroll
                        for (int c = 0; c < CX; ++c)
                            if (owns_bits & (1u << (r * CX + c))) {
                                (out + ptrdiff_t(z) * plane)[row_off[r] + c] = fresh[r][c];
                                TL_GSTORE(1);
                            }
                }
            }
            __syncthreads();
        }
    };
    const int rx = int(blockIdx.x) * BX - T, ry = int(blockIdx.y) * BY - T;
    if (!region_at_edge(rx, W, ry, H, nx, ny)) walk(Walk<kInterior>{});
    else if (ry >= 1 && ry + H <= ny - 1) walk(Walk<kEdgeX>{});
    else walk(Walk<kEdge>{});
}
