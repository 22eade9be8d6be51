// The stencil cost models (lessons 08–11; their figures and constraints: test_stencil_figures.cpp):
// exact totals at any size against a CPU walk of each kernel: every block, every thread, and
// the phases between its barriers, issuing the loads, shared-memory traffic and stores the
// kernel's source issues. The walk also does the arithmetic, so it proves the kernels' loop
//    structure right: every cell written exactly once, boundary cells unchanged, interior cells
//    equal to the reference. The GPU then confirms model == counted (tests/gpu/test_engine_gpu.cpp).
#include <gtest/gtest.h>
#include "test_target.h"
#include <algorithm>
#include <array>
#include <functional>
#include <cmath>
#include <random>
#include <string>
#include <vector>
#include "tilelab/engine.h"
#include "tilelab/variant.h"
#include "lookups.h"
#include "stencil_checks.h"

using namespace tilelab;

namespace {

using tilelab::testing::test_target;
using namespace tilelab::test;   // variant, grid, engine_invalid_reason (stencil_checks.h)

// c0 centre, c1 x−1, c2 x+1, c3 y−1, c4 y+1, c5 z−1, c6 z+1, then the same at distance 2 (the
// order-2 stencil of RADIUS = 2), all different.
constexpr float kCoef[13] = {0.40f, 0.11f, 0.09f, 0.12f, 0.08f, 0.13f, 0.07f,
                             0.06f, 0.04f, 0.05f, 0.03f, 0.02f, 0.01f};

// kernels/stencil/stencil_common.cuh's apply_star_stencil: in(dx, dy, dz) is the input at that offset.
template <class Input>
float apply_star(int r, const Input& in) {
    float sum = kCoef[0] * in(0, 0, 0);
    for (int d = 1; d <= r; ++d) {
        const float* c = kCoef + 6 * (d - 1) + 1;
        sum += c[0] * in(-d, 0, 0);
        sum += c[1] * in(d, 0, 0);
        sum += c[2] * in(0, -d, 0);
        sum += c[3] * in(0, d, 0);
        sum += c[4] * in(0, 0, -d);
        sum += c[5] * in(0, 0, d);
    }
    return sum;
}

float apply_stencil(float c, float xm, float xp, float ym, float yp, float zm, float zp) {
    return kCoef[0] * c + kCoef[1] * xm + kCoef[2] * xp + kCoef[3] * ym + kCoef[4] * yp + kCoef[5] * zm +
           kCoef[6] * zp;
}

// kernels/stencil/stencil_common.cuh's ownership rule along one axis, for a halo r cells deep.
bool tile_computes(int t, int tile, int c, int n, int r = 1) { return t >= r && t <= tile - 1 - r && c < n - r; }
bool tile_owns(int t, int tile, int c, int n, int r = 1) {
    return tile_computes(t, tile, c, n, r) || (c < r && t == c) || (c >= n - r && c - t + tile >= n);
}

// One launch, walked on the CPU: the grid's values, what was loaded and stored, how often each
// cell was written, and the accesses of one chosen block and one chosen thread in it.
struct Walk {
    int nx, ny, nz;
    int r = 1;   // the stencil's order: the boundary is r cells deep
    std::vector<float> in, out;
    std::vector<int> writes;
    AccessCounts counts;
    // The probe: accesses of block (1, 1, 1) and of its thread (1, 1, 1) (z index 0 for the
    // plane-walking kernels, whose blocks are flat), for the per-block and per-thread models.
    AccessCounts probe_block, probe_thread;
    bool in_probe_block = false, in_probe_thread = false;

    Walk(const Problem& p, uint32_t seed) : nx(int(p.dim[0])), ny(int(p.dim[1])), nz(int(p.dim[2])) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        in.resize(size_t(nx) * ny * nz);
        for (float& v : in) v = uniform(rng);
        out.assign(in.size(), NAN);
        writes.assign(in.size(), 0);
    }
    size_t at(int x, int y, int z) const { return (size_t(z) * ny + y) * nx + x; }
    bool interior(int x, int y, int z) const {
        return x >= r && x < nx - r && y >= r && y < ny - r && z >= r && z < nz - r;
    }
    void tally(double AccessCounts::*field, double n) {
        counts.*field += n;
        if (in_probe_block) probe_block.*field += n;
        if (in_probe_thread) probe_thread.*field += n;
    }
    float load(int x, int y, int z) {
        tally(&AccessCounts::global_loads, 1);
        return in[at(x, y, z)];
    }
    void store(int x, int y, int z, float v) {
        tally(&AccessCounts::global_stores, 1);
        out[at(x, y, z)] = v;
        ++writes[at(x, y, z)];
    }
    void shared_loads(int n) { tally(&AccessCounts::shared_loads, n); }
    void shared_stores(int n) { tally(&AccessCounts::shared_stores, n); }
    void enter(unsigned bx, unsigned by, unsigned bz, int tx, int ty, int tz) {
        in_probe_block = bx == 1 && by == 1 && bz == 1;
        in_probe_thread = in_probe_block && tx == 1 && ty == 1 && tz == (probe_flat_blocks ? 0 : 1);
    }
    bool probe_flat_blocks = false;
};

// ---- the walks: one per kernel, following its source statement by statement -----------------

// kernels/stencil/basic.cuh
Walk walk_basic(const Variant& v, const ParamValues& p, const Problem& pr, uint32_t seed) {
    const LaunchShape ls = v.launch(p, pr);
    Walk w(pr, seed);
    w.r = param_or(p, "RADIUS", 1);
    for (unsigned bz = 0; bz < ls.grid[2]; ++bz)
        for (unsigned by = 0; by < ls.grid[1]; ++by)
            for (unsigned bx = 0; bx < ls.grid[0]; ++bx)
                for (int tz = 0; tz < int(ls.block[2]); ++tz)
                    for (int ty = 0; ty < int(ls.block[1]); ++ty)
                        for (int tx = 0; tx < int(ls.block[0]); ++tx) {
                            w.enter(bx, by, bz, tx, ty, tz);
                            const int x = int(bx * ls.block[0]) + tx, y = int(by * ls.block[1]) + ty,
                                      z = int(bz * ls.block[2]) + tz;
                            if (x >= w.nx || y >= w.ny || z >= w.nz) continue;
                            if (w.interior(x, y, z))
                                w.store(x, y, z, apply_star(w.r, [&](int dx, int dy, int dz) {
                                            return w.load(x + dx, y + dy, z + dz);
                                        }));
                            else
                                w.store(x, y, z, w.load(x, y, z));
                        }
    return w;
}

// kernels/stencil/smem_tiled.cuh: phase 1 loads the tile, the barrier, phase 2 computes.
Walk walk_smem_tiled(const Variant& v, const ParamValues& p, const Problem& pr, uint32_t seed) {
    const int T = p.at("T"), R = param_or(p, "RADIUS", 1), S = T - 2 * R;
    const LaunchShape ls = v.launch(p, pr);
    EXPECT_EQ(ls.block[0], unsigned(T));
    EXPECT_EQ(ls.block[2], unsigned(T));
    Walk w(pr, seed);
    w.r = R;
    std::vector<float> tile(size_t(T) * T * T), value(tile.size());
    auto idx = [T](int tx, int ty, int tz) { return (size_t(tz) * T + ty) * T + tx; };
    for (unsigned bz = 0; bz < ls.grid[2]; ++bz)
        for (unsigned by = 0; by < ls.grid[1]; ++by)
            for (unsigned bx = 0; bx < ls.grid[0]; ++bx) {
                auto coords = [&](int tx, int ty, int tz) {
                    return std::array<int, 3>{int(bx) * S + tx, int(by) * S + ty, int(bz) * S + tz};
                };
                // Every thread of the block whose cell is inside the grid, one after another.
                auto each_thread = [&](auto&& body) {
                    for (int tz = 0; tz < T; ++tz)
                        for (int ty = 0; ty < T; ++ty)
                            for (int tx = 0; tx < T; ++tx) {
                                w.enter(bx, by, bz, tx, ty, tz);
                                const auto c = coords(tx, ty, tz);
                                if (c[0] < w.nx && c[1] < w.ny && c[2] < w.nz) body(tx, ty, tz, c);
                            }
                };
                each_thread([&](int tx, int ty, int tz, const std::array<int, 3>& c) {
                    value[idx(tx, ty, tz)] = w.load(c[0], c[1], c[2]);
                    tile[idx(tx, ty, tz)] = value[idx(tx, ty, tz)];
                    w.shared_stores(1);
                });
                // __syncthreads()
                each_thread([&](int tx, int ty, int tz, const std::array<int, 3>& c) {
                    if (tile_computes(tx, T, c[0], w.nx, R) && tile_computes(ty, T, c[1], w.ny, R) &&
                        tile_computes(tz, T, c[2], w.nz, R)) {
                        w.store(c[0], c[1], c[2], apply_star(R, [&](int dx, int dy, int dz) {
                                    return tile[idx(tx + dx, ty + dy, tz + dz)];
                                }));
                        w.shared_loads(6 * R + 1);
                    } else if (tile_owns(tx, T, c[0], w.nx, R) && tile_owns(ty, T, c[1], w.ny, R) &&
                               tile_owns(tz, T, c[2], w.nz, R)) {
                        w.store(c[0], c[1], c[2], value[idx(tx, ty, tz)]);
                    }
                });
            }
    return w;
}

// What the two plane-walking kernels share (PlaneTile in kernels/stencil/stencil_common.cuh): the
// block's cells, its halo cells and its range of planes. Thread (tx, ty) looks after rows
// ty, ty + TY, ... of a TX × R tile (R = TY·RY); cell c = row·TX + tx; shared index with the
// halo offset A; halo cell t (around only) belongs to thread t = ty·TX + tx. With VX columns a
// thread (the register-tiled kernel) the walk still steps cell by cell, column tx standing for
// thread tx / VX: the same cells are loaded, stored and shared, one float at a time.
struct PlaneWalkBlock {
    int TX, TY, RY, R, A, z_first, z_end;
    bool around;
    unsigned bx, by, bz;
    Walk& w;
    int VX = 1;
    int x(int tx) const { return around ? int(bx) * TX + tx : int(bx) * (TX - 2) + tx; }
    int y(int row) const { return around ? int(by) * R + row : int(by) * (R - 2) + row; }
    int row(int ty, int r) const { return ty + r * TY; }
    size_t cell(int tx, int row) const { return size_t(row) * TX + tx; }
    int width() const { return TX + 2 * A; }  // of a shared plane
    size_t shared_index(int tx, int row) const { return size_t(row + A) * width() + tx + A; }
    size_t shared_floats() const { return size_t(R + 2 * A) * width(); }
    bool in_grid(int tx, int row) const { return x(tx) < w.nx && y(row) < w.ny; }
    bool owns(int tx, int row) const {
        if (around) return in_grid(tx, row);
        return in_grid(tx, row) && tile_owns(tx, TX, x(tx), w.nx) && tile_owns(row, R, y(row), w.ny);
    }
    bool computes(int tx, int row) const {
        if (around) return in_grid(tx, row) && x(tx) > 0 && x(tx) < w.nx - 1 && y(row) > 0 && y(row) < w.ny - 1;
        return tile_computes(tx, TX, x(tx), w.nx) && tile_computes(row, R, y(row), w.ny);
    }
    // Column tx starts a piece of VX columns one of which gets the stencil.
    bool piece_computes(int tx, int row) const {
        bool any = false;
        for (int j = 0; j < VX; ++j) any = any || computes(tx + j, row);
        return tx % VX == 0 && any;
    }
    // Thread t's halo cell: grid coordinates and shared index; false if it has none in the grid.
    bool halo(int t, int& hx, int& hy, size_t& shared) const {
        if (!around) return false;
        const int x0 = int(bx) * TX, y0 = int(by) * R;
        int sx = 0, sy = 0;
        if (t < TX) hx = x0 + t, hy = y0 - 1, sx = t + 1, sy = 0;
        else if (t < 2 * TX) hx = x0 + t - TX, hy = y0 + R, sx = t - TX + 1, sy = R + 1;
        else if (t < 2 * TX + R) hx = x0 - 1, hy = y0 + t - 2 * TX, sx = 0, sy = t - 2 * TX + 1;
        else if (t < 2 * TX + 2 * R) hx = x0 + TX, hy = y0 + t - 2 * TX - R, sx = TX + 1, sy = t - 2 * TX - R + 1;
        else return false;
        shared = size_t(sy) * width() + sx;
        return hx >= 0 && hy >= 0 && hx < w.nx && hy < w.ny;
    }
    float load(int tx, int row, int z) { return w.load(x(tx), y(row), z); }
    void store(int tx, int row, int z, float v) { w.store(x(tx), y(row), z, v); }
    // Runs body(tx, ty, t) for every thread of the block: one phase between two barriers.
    template <class Body>
    void each_thread(const Body& body) {
        for (int ty = 0; ty < TY; ++ty)
            for (int tx = 0; tx < TX; ++tx) {
                w.enter(bx, by, bz, tx / VX, ty, 0);
                body(tx, ty, ty * TX + tx);
            }
    }
    // Runs body(tx, row, c) for each of thread (tx, ty)'s RY cells.
    template <class Body>
    void each_cell(int tx, int ty, const Body& body) const {
        for (int r = 0; r < RY; ++r) body(tx, row(ty, r), cell(tx, row(ty, r)));
    }
};

template <class BlockBody>
Walk walk_planes(const Variant& v, const ParamValues& p, const Problem& pr, uint32_t seed, const BlockBody& body) {
    const int TX = p.at("TX"), TY = p.at("TY"), Z = p.at("Z");
    const int RY = param_or(p, "RY", 1), VX = param_or(p, "VX", 1);
    const bool around = param_or(p, "HALO", 0) != 0;
    const LaunchShape ls = v.launch(p, pr);
    EXPECT_EQ(ls.block[0], unsigned(TX / VX));
    EXPECT_EQ(ls.block[1], unsigned(TY));
    EXPECT_EQ(ls.block[2], 1u);
    Walk w(pr, seed);
    w.probe_flat_blocks = true;
    for (unsigned bz = 0; bz < ls.grid[2]; ++bz)
        for (unsigned by = 0; by < ls.grid[1]; ++by)
            for (unsigned bx = 0; bx < ls.grid[0]; ++bx) {
                const int z_first = 1 + int(bz) * Z;
                PlaneWalkBlock b{TX, TY, RY, TY * RY, around ? 1 : 0, z_first, std::min(z_first + Z, w.nz - 1),
                                 around, bx, by, bz, w, VX};
                body(b, Z);
            }
    return w;
}

// kernels/stencil/coarsened.cuh
Walk walk_coarsened(const Variant& v, const ParamValues& p, const Problem& pr, uint32_t seed) {
    return walk_planes(v, p, pr, seed, [](PlaneWalkBlock& b, int Z) {
        const int kAhead = b.around ? 1 : 2;  // the kernel's prefetch depth
        const size_t cells = size_t(b.TX) * b.R, threads = size_t(b.TX) * b.TY;
        std::vector<std::vector<float>> planes(3, std::vector<float>(b.shared_floats()));
        std::vector<std::vector<float>> ahead(kAhead, std::vector<float>(cells, 0.0f));
        std::vector<std::vector<float>> halo_ahead(kAhead, std::vector<float>(threads, 0.0f));
        std::vector<float> fresh(cells, 0.0f), halo_fresh(threads, 0.0f);
        // The kernel's keep: into a shared buffer, and to out if it is a boundary plane.
        auto keep = [&](std::vector<float>& buffer, int tx, int row, float value, int z) {
            buffer[b.shared_index(tx, row)] = value;
            b.w.shared_stores(1);
            if ((z == 0 || z == b.w.nz - 1) && b.owns(tx, row)) b.store(tx, row, z, value);
        };
        auto keep_halo = [&](std::vector<float>& buffer, size_t shared, float value) {
            buffer[shared] = value;
            b.w.shared_stores(1);
        };
        b.each_thread([&](int tx, int ty, int t) {
            std::vector<std::array<float, 3>> first(b.RY);
            b.each_cell(tx, ty, [&](int, int row, size_t c) {
                if (!b.in_grid(tx, row)) return;
                for (int k = 0; k < 3; ++k) first[size_t(row - ty) / b.TY][k] = b.load(tx, row, b.z_first - 1 + k);
                for (int k = 0; k < kAhead; ++k)
                    if (b.z_first + 2 + k <= b.z_end) ahead[k][c] = b.load(tx, row, b.z_first + 2 + k);
            });
            int hx, hy;
            size_t hs = 0;
            const bool has_halo = b.halo(t, hx, hy, hs);
            float halo_first[2] = {};
            if (has_halo) {
                for (int k = 0; k < 2; ++k)
                    if (b.z_first + k < b.z_end) halo_first[k] = b.w.load(hx, hy, b.z_first + k);
                for (int k = 0; k < kAhead; ++k)
                    if (b.z_first + 2 + k < b.z_end) halo_ahead[k][size_t(t)] = b.w.load(hx, hy, b.z_first + 2 + k);
            }
            b.each_cell(tx, ty, [&](int, int row, size_t) {
                if (!b.in_grid(tx, row)) return;
                for (int k = 0; k < 3; ++k) keep(planes[k], tx, row, first[size_t(row - ty) / b.TY][k], b.z_first - 1 + k);
            });
            if (has_halo) {
                keep_halo(planes[1], hs, halo_first[0]);
                if (b.z_first + 1 < b.z_end) keep_halo(planes[2], hs, halo_first[1]);
            }
        });
        int below = 0, centre = 1, above = 2;
        for (int i = 0; i < Z; ++i) {
            const int z = b.z_first + i;
            if (z >= b.z_end) break;
            std::vector<float>& prev = planes[below];
            const std::vector<float>& curr = planes[centre];
            const std::vector<float>& next = planes[above];
            b.each_thread([&](int tx, int ty, int t) {
                b.each_cell(tx, ty, [&](int, int row, size_t c) {
                    fresh[c] = 0.0f;
                    if (b.in_grid(tx, row) && z + 2 + kAhead <= b.z_end) fresh[c] = b.load(tx, row, z + 2 + kAhead);
                });
                int hx, hy;
                size_t hs;
                halo_fresh[size_t(t)] = 0.0f;
                if (b.halo(t, hx, hy, hs) && z + 2 + kAhead < b.z_end) halo_fresh[size_t(t)] = b.w.load(hx, hy, z + 2 + kAhead);
            });
            // __syncthreads(): the only barrier of the step. Each thread then overwrites prev at
            // its own cells (and its halo cell, last read as curr before this barrier) only, and
            // reads other threads' cells only in curr, so walking the threads one after another
            // gives what any interleaving gives.
            b.each_thread([&](int tx, int ty, int t) {
                b.each_cell(tx, ty, [&](int, int row, size_t) {
                    if (!b.owns(tx, row)) return;
                    const size_t s = b.shared_index(tx, row);
                    const size_t W = size_t(b.width());
                    float result;
                    if (b.computes(tx, row)) {
                        result = apply_stencil(curr[s], curr[s - 1], curr[s + 1], curr[s - W], curr[s + W], prev[s], next[s]);
                        b.w.shared_loads(7);
                    } else {
                        result = curr[s];
                        b.w.shared_loads(1);
                    }
                    b.store(tx, row, z, result);
                });
                b.each_cell(tx, ty, [&](int, int row, size_t c) {
                    if (b.in_grid(tx, row) && z + 2 <= b.z_end) keep(prev, tx, row, ahead[0][c], z + 2);
                    for (int k = 0; k + 1 < kAhead; ++k) ahead[k][c] = ahead[k + 1][c];
                    ahead[kAhead - 1][c] = fresh[c];
                });
                int hx, hy;
                size_t hs = 0;
                if (b.halo(t, hx, hy, hs) && z + 2 < b.z_end) keep_halo(prev, hs, halo_ahead[0][size_t(t)]);
                for (int k = 0; k + 1 < kAhead; ++k) halo_ahead[k][size_t(t)] = halo_ahead[k + 1][size_t(t)];
                halo_ahead[kAhead - 1][size_t(t)] = halo_fresh[size_t(t)];
            });
            const int refilled = below;
            below = centre;
            centre = above;
            above = refilled;
        }
    });
}

// kernels/stencil/register_tiled.cuh
Walk walk_register_tiled(const Variant& v, const ParamValues& p, const Problem& pr, uint32_t seed) {
    return walk_planes(v, p, pr, seed, [](PlaneWalkBlock& b, int Z) {
        constexpr int kQueue = 5;  // planes z−1 .. z+3 of each cell
        const size_t cells = size_t(b.TX) * b.R, threads = size_t(b.TX) * b.TY;
        std::vector<float> curr_s(b.shared_floats());
        std::vector<std::vector<float>> q(kQueue, std::vector<float>(cells, 0.0f));
        std::vector<std::array<float, 3>> h(threads, {0.0f, 0.0f, 0.0f});
        b.each_thread([&](int tx, int ty, int t) {
            b.each_cell(tx, ty, [&](int, int row, size_t c) {
                for (int k = 0; k < kQueue; ++k)
                    q[k][c] = b.in_grid(tx, row) && b.z_first - 1 + k <= b.z_end ? b.load(tx, row, b.z_first - 1 + k) : 0.0f;
            });
            int hx, hy;
            size_t hs;
            if (b.halo(t, hx, hy, hs))
                for (int k = 0; k < 3; ++k)
                    if (b.z_first + k < b.z_end) h[size_t(t)][k] = b.w.load(hx, hy, b.z_first + k);
        });
        for (int i = 0; i < Z; ++i) {
            const int z = b.z_first + i;
            if (z >= b.z_end) break;
            b.each_thread([&](int tx, int ty, int t) {
                b.each_cell(tx, ty, [&](int, int row, size_t c) {
                    if (!b.in_grid(tx, row)) return;
                    curr_s[b.shared_index(tx, row)] = q[1][c];
                    b.w.shared_stores(1);
                });
                int hx, hy;
                size_t hs;
                if (b.halo(t, hx, hy, hs)) {
                    curr_s[hs] = h[size_t(t)][0];
                    b.w.shared_stores(1);
                }
            });
            // __syncthreads()
            b.each_thread([&](int tx, int ty, int) {
                b.each_cell(tx, ty, [&](int, int row, size_t c) {
                    if (!b.owns(tx, row)) return;
                    if (i == 0 && z == 1) b.store(tx, row, 0, q[0][c]);
                    float result = q[1][c];
                    if (b.computes(tx, row)) {
                        const size_t s = b.shared_index(tx, row), W = size_t(b.width());
                        result = apply_stencil(q[1][c], curr_s[s - 1], curr_s[s + 1], curr_s[s - W], curr_s[s + W],
                                               q[0][c], q[2][c]);
                    }
                    // A piece reads the pieces above and below and a cell each side once (VX = 1: 4).
                    if (b.piece_computes(tx, row)) b.w.shared_loads(2 * b.VX + 2);
                    b.store(tx, row, z, result);
                });
            });
            // __syncthreads()
            b.each_thread([&](int tx, int ty, int t) {
                b.each_cell(tx, ty, [&](int, int row, size_t c) {
                    for (int k = 0; k + 1 < kQueue; ++k) q[k][c] = q[k + 1][c];
                    q[kQueue - 1][c] = b.in_grid(tx, row) && z + kQueue - 1 <= b.z_end ? b.load(tx, row, z + kQueue - 1) : 0.0f;
                });
                int hx, hy;
                size_t hs;
                auto& ht = h[size_t(t)];
                ht[0] = ht[1];
                ht[1] = ht[2];
                ht[2] = b.halo(t, hx, hy, hs) && z + 3 < b.z_end ? b.w.load(hx, hy, z + 3) : 0.0f;
            });
        }
        // After the walk: the last step moved plane z_end into q[1].
        if (b.z_end == b.w.nz - 1)
            b.each_thread([&](int tx, int ty, int) {
                b.each_cell(tx, ty, [&](int, int row, size_t c) {
                    if (b.owns(tx, row)) b.store(tx, row, b.z_end, q[1][c]);
                });
            });
    });
}

// Every cell written once; boundary cells equal to the input bit for bit; interior cells equal
// to a double-precision sweep within FP32 rounding of a 7-term sum.
void expect_correct_sweep(const Walk& w, const std::string& what) {
    int reported = 0;
    for (int z = 0; z < w.nz; ++z)
        for (int y = 0; y < w.ny; ++y)
            for (int x = 0; x < w.nx; ++x) {
                const size_t a = w.at(x, y, z);
                if (w.writes[a] != 1 && reported++ < 3)
                    ADD_FAILURE() << what << ": cell (" << x << "," << y << "," << z << ") written " << w.writes[a]
                                  << " times";
                if (!w.interior(x, y, z)) {
                    if (!(w.out[a] == w.in[a]) && reported++ < 3)
                        ADD_FAILURE() << what << ": boundary cell (" << x << "," << y << "," << z << ") changed";
                    continue;
                }
                double expected = double(kCoef[0]) * w.in[a];
                for (int d = 1; d <= w.r; ++d) {
                    const float* c = kCoef + 6 * (d - 1) + 1;
                    expected += double(c[0]) * w.in[w.at(x - d, y, z)] + double(c[1]) * w.in[w.at(x + d, y, z)] +
                                double(c[2]) * w.in[w.at(x, y - d, z)] + double(c[3]) * w.in[w.at(x, y + d, z)] +
                                double(c[4]) * w.in[w.at(x, y, z - d)] + double(c[5]) * w.in[w.at(x, y, z + d)];
                }
                if (!(std::fabs(w.out[a] - expected) <= 32 * 0x1p-24) && reported++ < 3)
                    ADD_FAILURE() << what << ": interior cell (" << x << "," << y << "," << z << ") = " << w.out[a]
                                  << ", expected " << expected;
            }
}

void expect_counts(const AccessCounts& model, const AccessCounts& walked, const std::string& what) {
    EXPECT_EQ(model.global_loads, walked.global_loads) << what << ": global loads";
    EXPECT_EQ(model.global_stores, walked.global_stores) << what << ": global stores";
    EXPECT_EQ(model.shared_loads, walked.shared_loads) << what << ": shared loads";
    EXPECT_EQ(model.shared_stores, walked.shared_stores) << what << ": shared stores";
}

std::string describe(const std::string& id, const ParamValues& p, const Problem& pr) {
    std::string s = id + " [";
    for (const auto& [name, value] : p) s += name + "=" + std::to_string(value) + " ";
    return s + "] at " + format_problem(pr);
}

using WalkFn = Walk (*)(const Variant&, const ParamValues&, const Problem&, uint32_t);

// Random valid parameters and sizes 3..40 per axis (multiples of nothing in particular), walked
// and compared with the model's exact totals.
void check_random_configurations(const std::string& id, WalkFn walk, int cases) {
    const Variant& v = variant(id);
    std::mt19937 rng(std::hash<std::string>{}(id) & 0xffffffffu);
    int done = 0;
    for (int attempt = 0; done < cases && attempt < 100 * cases; ++attempt) {
        ParamValues p;
        for (const auto& spec : v.params) {
            auto values = spec.values();
            // Keep the tiles small enough that a 40³ grid holds several of them.
            if (spec.name == "TX" || spec.name == "TY" || spec.name == "Z" || spec.name == "RY")
                values.erase(std::remove_if(values.begin(), values.end(), [](int x) { return x > 24; }), values.end());
            p[spec.name] = values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
        }
        std::uniform_int_distribution<int64_t> side(3, 40);
        const Problem pr = grid(side(rng), side(rng), side(rng));
        if (!engine_invalid_reason(id, p, pr).empty()) continue;
        const std::string what = describe(id, p, pr);
        const Walk w = walk(v, p, pr, uint32_t(done + 1));
        expect_counts(v.cost_model(p, pr).total, w.counts, what);
        expect_correct_sweep(w, what);
        ++done;
    }
    EXPECT_EQ(done, cases) << id << ": too few valid configurations drawn";
}

// Sizes at the edges: the smallest grid, one output plane, tiles that divide exactly, tiles that
// leave one cell over, and axes of very different lengths.
const std::vector<Problem> kEdgeSizes = {grid(3, 3, 3),  grid(3, 17, 5),  grid(34, 34, 34),
                                         grid(35, 33, 4), grid(64, 9, 31), grid(5, 70, 12)};

}  // namespace

TEST(StencilWalk, BasicTotalsEqualTheWalkAtRandomSizes) { check_random_configurations("stencil.basic", walk_basic, 25); }
TEST(StencilWalk, TiledTotalsEqualTheWalkAtRandomSizes) {
    check_random_configurations("stencil.smem_tiled", walk_smem_tiled, 25);
}
TEST(StencilWalk, CoarsenedTotalsEqualTheWalkAtRandomSizes) {
    check_random_configurations("stencil.coarsened", walk_coarsened, 60);
}
TEST(StencilWalk, RegisterTiledTotalsEqualTheWalkAtRandomSizes) {
    check_random_configurations("stencil.register_tiled", walk_register_tiled, 60);
}

TEST(StencilWalk, EdgeSizesAndEdgeTilesEqualTheWalk) {
    struct Case {
        const char* id;
        WalkFn walk;
        std::vector<ParamValues> params;
    };
    const std::vector<Case> cases = {
        {"stencil.basic", walk_basic, {{{"BX", 32}, {"BY", 8}, {"BZ", 1}}, {{"BX", 1}, {"BY", 1}, {"BZ", 64}}, {{"BX", 4}, {"BY", 4}, {"BZ", 4}}}},
        {"stencil.smem_tiled", walk_smem_tiled, {{{"T", 3}}, {{"T", 8}}, {{"T", 10}}}},
        // The order-2 (13-point) stencil: a boundary and a halo two cells deep.
        {"stencil.basic", walk_basic, {{{"BX", 32}, {"BY", 8}, {"BZ", 1}, {"RADIUS", 2}}, {{"BX", 4}, {"BY", 4}, {"BZ", 4}, {"RADIUS", 2}}}},
        {"stencil.smem_tiled", walk_smem_tiled, {{{"T", 5}, {"RADIUS", 2}}, {{"T", 8}, {"RADIUS", 2}}, {{"T", 10}, {"RADIUS", 2}}}},
        {"stencil.coarsened", walk_coarsened, {{{"TX", 3}, {"TY", 3}, {"Z", 1}}, {{"TX", 32}, {"TY", 32}, {"Z", 32}}, {{"TX", 34}, {"TY", 5}, {"Z", 2}}}},
        {"stencil.register_tiled", walk_register_tiled, {{{"TX", 3}, {"TY", 3}, {"Z", 1}}, {{"TX", 32}, {"TY", 32}, {"Z", 32}}, {{"TX", 34}, {"TY", 5}, {"Z", 2}}}},
        // More rows per thread, and the halo around the tile (the layout the bandwidth steps use).
        {"stencil.coarsened", walk_coarsened, {{{"TX", 3}, {"TY", 1}, {"RY", 3}, {"Z", 2}}, {{"TX", 32}, {"TY", 4}, {"RY", 4}, {"Z", 32}, {"HALO", 1}}, {{"TX", 7}, {"TY", 5}, {"RY", 2}, {"Z", 3}, {"HALO", 1}}}},
        {"stencil.register_tiled", walk_register_tiled, {{{"TX", 3}, {"TY", 1}, {"RY", 3}, {"Z", 2}}, {{"TX", 32}, {"TY", 4}, {"RY", 4}, {"Z", 32}, {"HALO", 1}}, {{"TX", 7}, {"TY", 5}, {"RY", 2}, {"Z", 3}, {"HALO", 1}}}},
    };
    for (const auto& c : cases) {
        const Variant& v = variant(c.id);
        for (const auto& p : c.params)
            for (const auto& pr : kEdgeSizes) {
                // An order-2 stencil needs 5 cells along each axis.
                const int64_t need = 2 * param_or(p, "RADIUS", 1) + 1;
                if (std::min({pr.dim[0], pr.dim[1], pr.dim[2]}) < need) continue;
                ASSERT_EQ(engine_invalid_reason(c.id, p, pr), "") << describe(c.id, p, pr);
                const Walk w = c.walk(v, p, pr, 7);
                expect_counts(v.cost_model(p, pr).total, w.counts, describe(c.id, p, pr));
                expect_correct_sweep(w, describe(c.id, p, pr));
            }
    }
}

TEST(StencilWalk, PerThreadAndPerBlockModelsDescribeAnInteriorBlock) {
    // Block (1,1,1) of a grid large enough that it is whole and touches no boundary.
    struct Case {
        const char* id;
        WalkFn walk;
        ParamValues params;
        Problem size;
    };
    const std::vector<Case> cases = {
        {"stencil.basic", walk_basic, {{"BX", 8}, {"BY", 4}, {"BZ", 2}}, grid(30, 14, 9)},
        {"stencil.smem_tiled", walk_smem_tiled, {{"T", 6}}, grid(20, 20, 20)},
        {"stencil.basic", walk_basic, {{"BX", 8}, {"BY", 4}, {"BZ", 2}, {"RADIUS", 2}}, grid(30, 14, 9)},
        {"stencil.coarsened", walk_coarsened, {{"TX", 8}, {"TY", 6}, {"Z", 4}}, grid(25, 20, 14)},
        {"stencil.register_tiled", walk_register_tiled, {{"TX", 8}, {"TY", 6}, {"Z", 4}}, grid(25, 20, 14)},
        {"stencil.coarsened", walk_coarsened, {{"TX", 8}, {"TY", 3}, {"RY", 2}, {"Z", 4}}, grid(25, 20, 14)},
        {"stencil.register_tiled", walk_register_tiled, {{"TX", 8}, {"TY", 3}, {"RY", 2}, {"Z", 4}}, grid(25, 20, 14)},
        // Thread (1, 1) is TX + 1: it also loads a cell of the halo row below the tile.
        {"stencil.coarsened", walk_coarsened, {{"TX", 8}, {"TY", 4}, {"RY", 2}, {"Z", 4}, {"HALO", 1}}, grid(30, 30, 14)},
        {"stencil.register_tiled", walk_register_tiled, {{"TX", 8}, {"TY", 4}, {"RY", 2}, {"Z", 4}, {"HALO", 1}}, grid(30, 30, 14)},
    };
    for (const auto& c : cases) {
        const Variant& v = variant(c.id);
        const Walk w = c.walk(v, c.params, c.size, 3);
        const auto m = v.cost_model(c.params, c.size);
        expect_counts(m.per_block, w.probe_block, describe(c.id, c.params, c.size) + " per block");
        expect_counts(m.per_thread, w.probe_thread, describe(c.id, c.params, c.size) + " per thread");
    }
}
