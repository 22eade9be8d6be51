// Lesson 20's temporal blocking (kernels/stencil/temporal.cuh) walked on the CPU, block by block
// and thread by thread, iteration by iteration with its levels in the kernel's order: each
// thread's registers (the load queue, prev and mid of every level), the shared edge rows by
// parity, the shuffles as reads of the next lane's centre. The walk proves the kernel's pipeline
// right (after a launch of T levels the grid equals T reference sweeps, every cell written once,
// boundary cells unchanged) and the cost model exact: its loads, stores and shared accesses
// equal what the walk issued, at random odd sizes and parameters. The GPU confirms counted ==
// model (the registry's GPU tests) and the CPU run runs the PTX itself (test_cpu_run.cpp at the
// lesson's first step, one level a launch; below at two and three levels, with short z blocks).
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>
#include "model_engine.h"
#include "stencil_checks.h"

using namespace tilelab;

namespace {

using namespace tilelab::test;

constexpr float kCoef[7] = {0.40f, 0.11f, 0.09f, 0.12f, 0.08f, 0.13f, 0.07f};

struct Params {
    int t, ty, ry, zc, ahead, cx = 1;
};

struct Walk {
    std::vector<float> out;
    std::vector<int> writes;
    double loads = 0, stores = 0, shared_loads = 0, shared_stores = 0;
    double evaluated = 0;   // cell-updates the levels evaluate, ring cells included
};

float stencil(float c, float xm, float xp, float ym, float yp, float zm, float zp) {
    return kCoef[0] * c + kCoef[1] * xm + kCoef[2] * xp + kCoef[3] * ym + kCoef[4] * yp + kCoef[5] * zm + kCoef[6] * zp;
}

// One launch of temporal_stencil<T, TY, RY, ZC, AHEAD> (or _two_columns) over `in` (nx × ny × nz),
// column by column: "thread" below is a column of a thread row (w + W·ty), each lane holding CX.
Walk walk_launch(const std::vector<float>& in, int nx, int ny, int nz, const Params& k) {
    const int T = k.t, TY = k.ty, RY = k.ry, W = 32 * k.cx, H = TY * RY, BX = W - 2 * T, BY = H - 2 * T;
    const int gx = (nx + BX - 1) / BX, gy = (ny + BY - 1) / BY, gz = (nz + k.zc - 1) / k.zc;
    const size_t plane = size_t(nx) * ny;
    Walk w;
    w.out.assign(in.size(), NAN);
    w.writes.assign(in.size(), 0);
    const int threads = W * TY;
    for (int bz = 0; bz < gz; ++bz)
        for (int by = 0; by < gy; ++by)
            for (int bx = 0; bx < gx; ++bx) {
                const int zs = bz * k.zc, ze = std::min(zs + k.zc, nz);
                const int lo = std::max(zs - T, 0), hi = std::min(ze + T, nz);
                // Per thread (lane + 32·ty) and row r: the queue, prev[l], mid[l].
                auto at = [&](int thread, int r) { return size_t(thread) * RY + size_t(r); };
                std::vector<float> queue(size_t(k.ahead) * threads * RY), prev(size_t(T) * threads * RY, 0.0f),
                    mid(size_t(T) * threads * RY, 0.0f);
                std::vector<float> first(size_t(T) * 2 * threads, NAN), last(size_t(T) * 2 * threads, NAN);
                auto cell = [&](int thread, int r, int& x, int& y) {
                    x = bx * BX - T + thread % W;
                    y = by * BY - T + (thread / W) * RY + r;
                };
                auto load_plane = [&](int p, float* v) {   // v[at(thread, r)]
                    for (int th = 0; th < threads; ++th)
                        for (int r = 0; r < RY; ++r) {
                            int x, y;
                            cell(th, r, x, y);
                            const bool in_grid = x >= 0 && x < nx && y >= 0 && y < ny;
                            v[at(th, r)] = 0.0f;
                            if (in_grid && p >= lo && p < hi) {
                                v[at(th, r)] = in[size_t(p) * plane + size_t(y) * nx + size_t(x)];
                                ++w.loads;
                            }
                        }
                };
                auto share = [&](int level, int parity, const std::vector<float>& v) {
                    for (int th = 0; th < threads; ++th) {
                        const int ty = th / W;
                        const size_t slot = (size_t(level) * 2 + size_t(parity)) * threads + size_t(th);
                        if (ty > 0) first[slot] = v[at(th, 0)], ++w.shared_stores;
                        if (ty < TY - 1) last[slot] = v[at(th, RY - 1)], ++w.shared_stores;
                    }
                };
                for (int a = 0; a < k.ahead; ++a) load_plane(zs - T + a, &queue[size_t(a) * threads * RY]);
                const int iterations = (ze - zs) + 2 * T;
                for (int it = 0; it < iterations; ++it) {
                    const int p = zs - T + it, parity = it & 1;
                    std::vector<float> fresh(queue.begin(), queue.begin() + threads * RY);
                    std::copy(queue.begin() + threads * RY, queue.end(), queue.begin());
                    load_plane(p + k.ahead, &queue[size_t(k.ahead - 1) * threads * RY]);
                    if (p >= std::max(lo, 1) && p < std::min(hi, nz - 1)) share(0, parity, fresh);
                    for (int l = 1; l <= T; ++l) {
                        const int z = p - l;
                        const bool active = z >= std::max(zs - (T - l), 0) && z < std::min(ze + (T - l), nz);
                        const bool computes = active && z >= 1 && z < nz - 1;
                        if (computes) w.evaluated += double(threads) * RY;   // the whole region, ring included
                        float* pv = &prev[size_t(l - 1) * threads * RY];
                        float* md = &mid[size_t(l - 1) * threads * RY];
                        std::vector<float> result(md, md + threads * RY);
                        if (computes)
                            for (int th = 0; th < threads; ++th)
                                for (int r = 0; r < RY; ++r) {
                                    const int col = th % W, ty = th / W;
                                    const float c = md[at(th, r)];
                                    const float xm = col > 0 ? md[at(th - 1, r)] : c, xp = col < W - 1 ? md[at(th + 1, r)] : c;
                                    float ym = c, yp = c;
                                    const size_t read = (size_t(l - 1) * 2 + size_t(parity ^ 1)) * threads;
                                    if (r > 0) ym = md[at(th, r - 1)];
                                    else if (ty > 0) ym = last[read + size_t(th - W)], ++w.shared_loads;
                                    if (r < RY - 1) yp = md[at(th, r + 1)];
                                    else if (ty < TY - 1) yp = first[read + size_t(th + W)], ++w.shared_loads;
                                    int x, y;
                                    cell(th, r, x, y);
                                    const bool inner = x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1;
                                    if (inner) result[at(th, r)] = stencil(c, xm, xp, ym, yp, pv[at(th, r)], fresh[at(th, r)]);
                                }
                        for (size_t i = 0; i < size_t(threads) * RY; ++i) pv[i] = md[i], md[i] = fresh[i], fresh[i] = result[i];
                        if (l < T) {
                            if (computes) share(l, parity, fresh);
                        } else if (active) {
                            for (int th = 0; th < threads; ++th)
                                for (int r = 0; r < RY; ++r) {
                                    int x, y;
                                    cell(th, r, x, y);
                                    const int col = th % W, h = (th / W) * RY + r;
                                    if (x < 0 || x >= nx || y < 0 || y >= ny || col < T || col >= W - T || h < T || h >= H - T)
                                        continue;
                                    const size_t i = size_t(z) * plane + size_t(y) * nx + size_t(x);
                                    w.out[i] = fresh[at(th, r)];
                                    ++w.writes[i];
                                    ++w.stores;
                                }
                        }
                    }
                }
            }
    return w;
}

// One reference sweep in double, rounded to float (the family's reference).
std::vector<float> sweep(const std::vector<float>& g, int nx, int ny, int nz) {
    std::vector<float> o(g);
    const size_t plane = size_t(nx) * ny;
    for (int z = 1; z < nz - 1; ++z)
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                const size_t i = size_t(z) * plane + size_t(y) * nx + size_t(x);
                const double s = double(kCoef[0]) * g[i] + double(kCoef[1]) * g[i - 1] + double(kCoef[2]) * g[i + 1] +
                                 double(kCoef[3]) * g[i - size_t(nx)] + double(kCoef[4]) * g[i + size_t(nx)] +
                                 double(kCoef[5]) * g[i - plane] + double(kCoef[6]) * g[i + plane];
                o[i] = float(s);
            }
    return o;
}

ParamValues values(int steps, const Params& k) {
    return {{"STEPS", steps}, {"TSTEPS", k.t}, {"TY", k.ty}, {"RY", k.ry}, {"CX", k.cx}, {"ZC", k.zc}, {"AHEAD", k.ahead}};
}

TEST(StencilTemporal, WalkOfEveryBlockEqualsTheModelAndTheReference) {
    std::mt19937 rng(20);
    const Variant& v = variant("stencil.temporal");
    int checked = 0;
    for (int trial = 0; trial < 40 && checked < 14; ++trial) {
        const Params k{int(rng() % 4) + 1, int(rng() % 4) + 1, int(rng() % 5) + 1, int(rng() % 9) + 1, int(rng() % 3) + 1,
                       int(rng() % 2) + 1};
        const int nx = 3 + int(rng() % 140), ny = 3 + int(rng() % 40), nz = 3 + int(rng() % 20);
        const int steps = k.t * (1 + int(rng() % 2)) + int(rng() % 3);   // full launches and perhaps a rest
        const Problem p = grid(nx, ny, nz);
        if (!v.invalid_reason(values(steps, k), p, tilelab::testing::test_target()).empty()) continue;
        ++checked;
        SCOPED_TRACE(::testing::Message() << nx << "x" << ny << "x" << nz << " STEPS=" << steps << " T=" << k.t << " TY=" << k.ty
                                          << " RY=" << k.ry << " CX=" << k.cx << " ZC=" << k.zc << " AHEAD=" << k.ahead);
        std::vector<float> g(size_t(nx) * ny * nz), ref;
        for (float& f : g) f = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
        ref = g;
        double loads = 0, stores = 0, sloads = 0, sstores = 0, evaluated = 0;
        for (int done = 0; done < steps;) {
            const Params launch{std::min(k.t, steps - done), k.ty, k.ry, k.zc, k.ahead, k.cx};
            const Walk w = walk_launch(g, nx, ny, nz, launch);
            for (int s = 0; s < launch.t; ++s) ref = sweep(ref, nx, ny, nz);
            ASSERT_TRUE(std::all_of(w.writes.begin(), w.writes.end(), [](int n) { return n == 1; })) << "a cell not written exactly once";
            for (size_t i = 0; i < g.size(); ++i)
                ASSERT_NEAR(w.out[i], ref[i], 32 * 0x1p-24 * (done + launch.t)) << "cell " << i;
            loads += w.loads, stores += w.stores, sloads += w.shared_loads, sstores += w.shared_stores;
            evaluated += w.evaluated;
            g = w.out;
            done += launch.t;
        }
        const CostModel m = v.cost_model(values(steps, k), p);
        EXPECT_EQ(m.total.global_loads, loads);
        EXPECT_EQ(m.total.global_stores, stores);
        EXPECT_EQ(m.total.shared_loads, sloads);
        EXPECT_EQ(m.total.shared_stores, sstores);
        EXPECT_EQ(extra_value(m, "cell-updates evaluated"), evaluated);
        EXPECT_EQ(extra_value(m, "FLOPs executed"), 13 * evaluated);
    }
    EXPECT_GE(checked, 10);
}

TEST(StencilTemporal, DramBytesPerCellStepFallAsOneOverTstepsPlusTheZHalo) {
    const Variant& v = variant("stencil.temporal");
    const Problem p = grid(512, 512, 512);
    for (int t = 1; t <= 8; ++t) {
        const CostModel m = v.cost_model(values(64, Params{t, 8, 4, 64, 2}), p);
        const double launches = 64 / t + (64 % t ? 1 : 0);
        EXPECT_DOUBLE_EQ(extra_value(m, "DRAM bytes / cell-step (ideal)"), 8.0 * launches / 64) << "T=" << t;
        // The z halo read again: 2·T more planes for each of the 8 blocks along z but the first
        // and last (T each), 14·T planes in all, over 512.
        const double reads = 4.0 * (1 + 14.0 * t / 512) * (64 / t) + (64 % t ? 4.0 * (1 + 14.0 * (64 % t) / 512) : 0);
        EXPECT_DOUBLE_EQ(extra_value(m, "DRAM bytes / cell-step (model)"), (reads + 4.0 * launches) / 64) << "T=" << t;
    }
}

// The blocks that run the walk without the boundary select: those whose every region cell lies
// in the grid's interior, counted cell by cell here against the model's count by axis; and those
// whose rows all lie in the interior but not their columns (the two-column kernel's x-edge walk).
TEST(StencilTemporal, CountsTheBlocksWhoseRegionLiesInsideTheGrid) {
    const Variant& v = variant("stencil.temporal");
    struct Case {
        int n;
        Params k;
        double expected;   // -1: only against the walk below
    };
    for (const Case& c : {Case{256, Params{3, 4, 6, 64, 1, 2}, 156}, Case{512, Params{3, 4, 6, 64, 1, 2}, 1512},
                          Case{75, Params{1, 3, 4, 5, 1, 1}, -1}, Case{100, Params{2, 8, 2, 7, 2, 2}, -1}}) {
        const Params& k = c.k;
        const int W = 32 * k.cx, H = k.ty * k.ry, BX = W - 2 * k.t, BY = H - 2 * k.t;
        const int gx = (c.n + BX - 1) / BX, gy = (c.n + BY - 1) / BY, gz = (c.n + k.zc - 1) / k.zc;
        double inner = 0, edge_x = 0;
        for (int by = 0; by < gy; ++by)
            for (int bx = 0; bx < gx; ++bx) {
                bool all = true, rows = true;
                for (int y = by * BY - k.t; y < by * BY - k.t + H; ++y)
                    for (int x = bx * BX - k.t; x < bx * BX - k.t + W; ++x) {
                        all = all && x >= 1 && x <= c.n - 2 && y >= 1 && y <= c.n - 2;
                        rows = rows && y >= 1 && y <= c.n - 2;
                    }
                inner += all ? gz : 0;
                edge_x += rows && !all ? gz : 0;
            }
        const CostModel m = v.cost_model(values(64, k), grid(c.n, c.n, c.n));
        EXPECT_DOUBLE_EQ(extra_value(m, "blocks inside the grid / launch"), inner) << c.n;
        EXPECT_DOUBLE_EQ(extra_value(m, "blocks at the x edge only / launch"), edge_x) << c.n;
        if (c.expected >= 0) {
            EXPECT_DOUBLE_EQ(inner, c.expected) << c.n;
        }
        if (c.n == 512) {
            EXPECT_DOUBLE_EQ(edge_x, 2 * 27 * 8);   // 2 of 9 block columns, 27 of 29 block rows, 8 along z
        }
    }
}

// The kernel's PTX on the CPU run past the lesson's first step: one, two and three levels a
// launch, each followed by a launch of the rest, z blocks of 4 to 6 planes with a short last one,
// one and two planes loaded ahead, one and two columns a thread (regions at the grid's edge and
// inside it); the grid within its tolerance, counted accesses equal to the model's.
TEST(StencilTemporal, ItsPtxPassesOnTheCpuAtSeveralLevelsAndShortZBlocks) {
    // 131 columns: at two columns a thread the second block along x lies inside the grid (x 55 …
    // 118 at TSTEPS=3), and along y blocks 1 … TY·RY − 2·TSTEPS rows down: the interior walk runs.
    const Problem p = grid(131, 29, 13);
    for (int t = 1; t <= 3; ++t)
        for (int zc = 4; zc <= 6; ++zc) {
            SCOPED_TRACE(::testing::Message() << "TSTEPS=" << t << " ZC=" << zc << " CX=" << 1 + (t + zc) % 2);
            expect_cpu_run_passes_with_the_models_counts(
                RunRequest{"stencil.temporal", values(t + 1, Params{t, 3, 4, zc, 1 + zc % 2, 1 + (t + zc) % 2}), p}, 7);
        }
}

TEST(StencilTemporal, RefusesARegionWithoutOutputRowsMoreStepsPerLaunchThanStepsAndTooManyRegisters) {
    const Problem p = grid(64, 64, 64);
    EXPECT_NE(engine_invalid_reason("stencil.temporal", values(64, Params{4, 2, 4, 64, 2}), p), "");   // 8 rows, 2·4 rings
    EXPECT_EQ(engine_invalid_reason("stencil.temporal", values(64, Params{4, 3, 3, 64, 2}), p), "");   // 9 rows: 1 output row
    EXPECT_NE(engine_invalid_reason("stencil.temporal", values(3, Params{4, 8, 4, 64, 2}), p), "");
    EXPECT_EQ(engine_invalid_reason("stencil.temporal", values(64, Params{3, 4, 8, 64, 1, 2}), p), "");   // 96 planes' values
    EXPECT_NE(engine_invalid_reason("stencil.temporal", values(64, Params{4, 4, 8, 64, 1, 2}), p), "");   // 128
}

}  // namespace
