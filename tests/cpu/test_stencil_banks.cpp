// The stencil kernels' shared-memory bank sites (lessons/08..10, families/stencil/banks.h) against a
// CPU walk of each kernel: every block of the launch, every step of its walk along z, every shared
// load and store in the order the kernel issues them, each thread's address worked out here from
// the kernel source, grouped into warps of 32 consecutive linear thread ids (x fastest) and served
// by the same warp_banks() the model uses. Small odd sizes, so the edge blocks are cut by the grid.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>
#include "bank_walk.h"
#include "test_target.h"
#include "spawned_program.h"
#include "tilelab/banks.h"
#include "tilelab/variant.h"

using namespace tilelab;

namespace {

using tilelab::testing::KernelWalk;
using tilelab::testing::expect_model_equals_walk;

int64_t ceil_div64(int64_t a, int64_t b) { return (a + b - 1) / b; }

// kernels/stencil/stencil_common.cuh, as the kernels call them.
bool computes_along(int t, int tile, int64_t c, int64_t n, int r) { return t >= r && t <= tile - 1 - r && c < n - r; }
bool owns_along(int t, int tile, int64_t c, int64_t n) {
    return computes_along(t, tile, c, n, 1) || (c < 1 && t == c) || (c >= n - 1 && c - t + tile >= n);
}

// kernels/stencil/smem_tiled.cuh, every block.
KernelWalk walk_smem_tiled(int T, int R, const Problem& prob) {
    const std::array<int64_t, 3> n = {prob.dim[0], prob.dim[1], prob.dim[2]};
    KernelWalk walk;
    walk.threads = T * T * T;
    const int step = T - 2 * R;
    for (int64_t bz = 0; bz < ceil_div64(n[2] - 2 * R, step); ++bz)
        for (int64_t by = 0; by < ceil_div64(n[1] - 2 * R, step); ++by)
            for (int64_t bx = 0; bx < ceil_div64(n[0] - 2 * R, step); ++bx) {
                std::vector<bool> in_grid(size_t(walk.threads)), computes(size_t(walk.threads));
                for (int tz = 0; tz < T; ++tz)
                    for (int ty = 0; ty < T; ++ty)
                        for (int tx = 0; tx < T; ++tx) {
                            const int t = (tz * T + ty) * T + tx;
                            const int64_t x = bx * step + tx, y = by * step + ty, z = bz * step + tz;
                            in_grid[size_t(t)] = x < n[0] && y < n[1] && z < n[2];
                            computes[size_t(t)] = in_grid[size_t(t)] && computes_along(tx, T, x, n[0], R) &&
                                                  computes_along(ty, T, y, n[1], R) && computes_along(tz, T, z, n[2], R);
                        }
                // tile[tz][ty][tx] is word (tz·T + ty)·T + tx = t.
                walk.issue("tile store", true, [&](int t) { return in_grid[size_t(t)] ? t : -1; });
                auto load = [&](const std::string& name, int dx, int dy, int dz) {
                    walk.issue(name, false, [&](int t) -> int64_t {
                        return computes[size_t(t)] ? t + dx + int64_t(T) * dy + int64_t(T) * T * dz : -1;
                    });
                };
                load("load centre", 0, 0, 0);
                for (int d = 1; d <= R; ++d) {
                    const std::string k = std::to_string(d);
                    load("load x−" + k, -d, 0, 0);
                    load("load x+" + k, d, 0, 0);
                    load("load y−" + k, 0, -d, 0);
                    load("load y+" + k, 0, d, 0);
                    load("load z−" + k, 0, 0, -d);
                    load("load z+" + k, 0, 0, d);
                }
            }
    return walk;
}

// One thread of a plane-walking block (PlaneTile in kernels/stencil/stencil_common.cuh).
struct PlaneThread {
    std::vector<bool> in_grid, owns, computes;
    std::vector<int> row;
    bool has_halo = false, halo_row = false;   // halo_row: a piece of VX cells of the row above or below
    int halo_sx = 0, halo_sy = 0;
};

// VX: the register-tiled kernel's columns a thread (TX/VX threads along x; 1 for the others).
struct PlaneConfig {
    int TX, TY, RY, Z;
    bool around;
    int VX = 1;
    int R() const { return TY * RY; }
    int A() const { return around ? 1 : 0; }
    int pad() const { return around ? VX : 0; }
    int threads_x() const { return TX / VX; }
    int pitch() const { return TX + 2 * pad(); }
    int plane() const { return (R() + 2 * A()) * pitch(); }
};

std::vector<PlaneThread> plane_threads(const PlaneConfig& c, const Problem& prob, int64_t bx, int64_t by) {
    const int64_t nx = prob.dim[0], ny = prob.dim[1];
    const int R = c.R();
    const int64_t x0 = c.around ? bx * c.TX : bx * (c.TX - 2), y0 = c.around ? by * R : by * (R - 2);
    const int TXT = c.threads_x(), VX = c.VX, PAD = c.pad();
    std::vector<PlaneThread> out(size_t(TXT * c.TY));
    for (int ty = 0; ty < c.TY; ++ty)
        for (int tx = 0; tx < TXT; ++tx) {
            PlaneThread& p = out[size_t(ty * TXT + tx)];
            const int64_t x = x0 + int64_t(VX) * tx;
            for (int r = 0; r < c.RY; ++r) {
                const int row = ty + r * c.TY;
                const int64_t y = y0 + row;
                const bool in = x < nx && y < ny;
                p.row.push_back(row);
                p.in_grid.push_back(in);
                if (c.around) {
                    p.owns.push_back(in);
                    p.computes.push_back(in && x + VX - 1 > 0 && x < nx - 1 && y > 0 && y < ny - 1);
                } else {
                    p.owns.push_back(in && owns_along(tx, c.TX, x, nx) && owns_along(row, R, y, ny));
                    p.computes.push_back(computes_along(tx, c.TX, x, nx, 1) && computes_along(row, R, y, ny, 1));
                }
            }
            if (c.around) {
                const int t = ty * TXT + tx;
                int64_t hx = -1, hy = -1;
                p.halo_row = t < 2 * TXT;
                if (t < TXT) {
                    hx = x0 + VX * t, hy = y0 - 1, p.halo_sx = PAD + VX * t, p.halo_sy = 0;
                } else if (t < 2 * TXT) {
                    hx = x0 + VX * (t - TXT), hy = y0 + R, p.halo_sx = PAD + VX * (t - TXT), p.halo_sy = R + 1;
                } else if (t < 2 * TXT + R) {
                    hx = x0 - 1, hy = y0 + t - 2 * TXT, p.halo_sx = PAD - 1, p.halo_sy = t - 2 * TXT + 1;
                } else if (t < 2 * TXT + 2 * R) {
                    hx = x0 + c.TX, hy = y0 + t - 2 * TXT - R, p.halo_sx = PAD + c.TX, p.halo_sy = t - 2 * TXT - R + 1;
                }
                p.has_halo = hx >= 0 && hy >= 0 && hx < nx && hy < ny;
            }
        }
    return out;
}

std::array<int64_t, 3> plane_blocks(const PlaneConfig& c, const Problem& prob) {
    const int64_t gz = ceil_div64(prob.dim[2] - 2, c.Z);
    if (c.around) return {ceil_div64(prob.dim[0], c.TX), ceil_div64(prob.dim[1], c.R()), gz};
    return {ceil_div64(prob.dim[0] - 2, c.TX - 2), ceil_div64(prob.dim[1] - 2, c.R() - 2), gz};
}

// Walks every block of the plane walk: `block(walk, its threads, its first output plane, the
// plane past its last)` issues what one block does.
template <class Block>
KernelWalk walk_every_block(const PlaneConfig& c, const Problem& prob, Block block) {
    KernelWalk walk;
    walk.threads = c.threads_x() * c.TY;
    const auto blocks = plane_blocks(c, prob);
    for (int64_t bz = 0; bz < blocks[2]; ++bz)
        for (int64_t by = 0; by < blocks[1]; ++by)
            for (int64_t bx = 0; bx < blocks[0]; ++bx) {
                const int64_t z_first = 1 + bz * c.Z;
                block(walk, plane_threads(c, prob, bx, by), z_first, std::min(z_first + c.Z, prob.dim[2] - 1));
            }
    return walk;
}

// kernels/stencil/coarsened.cuh, every block and step.
KernelWalk walk_coarsened(const PlaneConfig& c, const Problem& prob) {
    const int A = c.A(), P = c.pitch(), S = c.plane();
    return walk_every_block(c, prob, [&](KernelWalk& walk, const std::vector<PlaneThread>& th, int64_t z_first, int64_t z_end) {
        // planes[b][sy][sx] is word b·S + sy·P + sx.
        auto cell = [&](const std::string& name, bool store, int r, int buffer, int dy, int dx,
                        const std::vector<bool> PlaneThread::*who) {
            walk.issue(name, store, [&](int t) -> int64_t {
                const PlaneThread& p = th[size_t(t)];
                if (!(p.*who)[size_t(r)]) return -1;
                return int64_t(buffer) * S + int64_t(p.row[size_t(r)] + A + dy) * P + t % c.TX + A + dx;
            });
        };
        auto halo = [&](const std::string& name, int buffer) {
            walk.issue(name, true, [&](int t) -> int64_t {
                const PlaneThread& p = th[size_t(t)];
                return p.has_halo ? int64_t(buffer) * S + int64_t(p.halo_sy) * P + p.halo_sx : -1;
            });
        };
        for (int r = 0; r < c.RY; ++r)
            for (int k = 0; k < 3; ++k) cell("tile store (planes z₀−1, z₀, z₀+1)", true, r, k, 0, 0, &PlaneThread::in_grid);
        halo("halo store (planes z₀, z₀+1)", 1);
        if (z_first + 1 < z_end) halo("halo store (planes z₀, z₀+1)", 2);
        int below = 0, centre = 1, above = 2;
        for (int i = 0; i < c.Z; ++i) {
            const int64_t z = z_first + i;
            if (z >= z_end) break;
            for (int r = 0; r < c.RY; ++r) {
                // The centre load is common to both branches: the compiler hoists it (PTX).
                cell("load centre", false, r, centre, 0, 0, &PlaneThread::owns);
                cell("load x−1", false, r, centre, 0, -1, &PlaneThread::computes);
                cell("load x+1", false, r, centre, 0, 1, &PlaneThread::computes);
                cell("load y−1", false, r, centre, -1, 0, &PlaneThread::computes);
                cell("load y+1", false, r, centre, 1, 0, &PlaneThread::computes);
                cell("load z−1 (prev)", false, r, below, 0, 0, &PlaneThread::computes);
                cell("load z+1 (next)", false, r, above, 0, 0, &PlaneThread::computes);
            }
            for (int r = 0; r < c.RY; ++r)
                if (z + 2 <= z_end) cell("tile store (plane z+2)", true, r, below, 0, 0, &PlaneThread::in_grid);
            if (z + 2 < z_end) halo("halo store (plane z+2)", below);
            const int refilled = below;
            below = centre;
            centre = above;
            above = refilled;
        }
    });
}

// kernels/stencil/register_tiled.cuh, every block and step: pieces of VX floats (one at VX = 1).
KernelWalk walk_register_tiled(const PlaneConfig& c, const Problem& prob) {
    const int A = c.A(), P = c.pitch(), VX = c.VX;
    return walk_every_block(c, prob, [&](KernelWalk& walk, const std::vector<PlaneThread>& th, int64_t z_first, int64_t z_end) {
        // curr_s[sy][sx] is word sy·P + sx.
        auto cell = [&](const std::string& name, bool store, int r, int dy, int dx, bool computing, int floats) {
            walk.issue(name, store, [&](int t) -> int64_t {
                const PlaneThread& p = th[size_t(t)];
                const bool on = computing ? p.owns[size_t(r)] && p.computes[size_t(r)] : p.in_grid[size_t(r)];
                return on ? int64_t(p.row[size_t(r)] + A + dy) * P + c.pad() + VX * (t % c.threads_x()) + dx : -1;
            }, floats);
        };
        auto halo = [&](const std::string& name, int which, int floats) {   // which: 0 any, 1 rows, 2 columns
            walk.issue(name, true, [&](int t) -> int64_t {
                const PlaneThread& p = th[size_t(t)];
                const bool on = p.has_halo && (which == 0 || (which == 1) == p.halo_row);
                return on ? int64_t(p.halo_sy) * P + p.halo_sx : -1;
            }, floats);
        };
        for (int i = 0; i < c.Z; ++i) {
            if (z_first + i >= z_end) break;
            for (int r = 0; r < c.RY; ++r) cell("tile store (plane z)", true, r, 0, 0, false, VX);
            if (VX == 1) {
                halo("halo store (plane z)", 0, 1);
            } else {
                halo("halo store, rows (plane z)", 1, VX);
                halo("halo store, columns (plane z)", 2, 1);
            }
            for (int r = 0; r < c.RY; ++r) {
                cell("load x−1", false, r, 0, -1, true, 1);
                cell("load x+1", false, r, 0, VX, true, 1);
                cell("load y−1", false, r, -1, 0, true, VX);
                cell("load y+1", false, r, 1, 0, true, VX);
            }
        }
    });
}

// A random valid plane-walk configuration at a small odd-ish size.
bool random_plane_config(std::mt19937& rng, const Variant& v, PlaneConfig& c, Problem& prob, ParamValues& p) {
    c = {int(3 + rng() % 38), int(1 + rng() % 12), int(1 + rng() % 3), int(1 + rng() % 7), rng() % 2 == 1};
    prob = Problem{{int64_t(3 + rng() % 90), int64_t(3 + rng() % 60), int64_t(3 + rng() % 20)}};
    p = with_defaults(v.params, {{"TX", c.TX}, {"TY", c.TY}, {"RY", c.RY}, {"Z", c.Z}, {"HALO", c.around ? 1 : 0}});
    if (p.count("VX")) {   // the register-tiled kernel: pieces of 1, 2 or 4 columns, the halo around
        c.VX = 1 << (rng() % 3);
        if (c.VX > 1) {
            c.around = true, c.TX = c.VX * (1 + c.TX / c.VX);
            prob.dim[0] = c.VX * (1 + prob.dim[0] / c.VX);
            p["VX"] = c.VX, p["TX"] = c.TX, p["HALO"] = 1;
        }
    }
    return c.TX * c.TY <= 1024 && v.invalid_reason(p, prob, tilelab::testing::test_target()).empty();
}

// The plane-walk variant `id`'s bank model against `walk` of every block and step, at 20 random
// configurations (seeded) that it accepts.
template <class Walk>
void expect_model_equals_walk_at_random(const char* id, unsigned seed, Walk walk) {
    const Variant* v = find_variant(id);
    ASSERT_NE(v, nullptr);
    std::mt19937 rng(seed);
    for (int n = 0; n < 20;) {
        PlaneConfig c{};
        Problem prob;
        ParamValues p;
        if (!random_plane_config(rng, *v, c, prob, p)) continue;
        ++n;
        SCOPED_TRACE(::testing::Message() << "TX=" << c.TX << " TY=" << c.TY << " RY=" << c.RY << " Z=" << c.Z << " HALO="
                                          << c.around << " VX=" << c.VX << " at " << prob.dim[0] << "x" << prob.dim[1] << "x" << prob.dim[2]);
        expect_model_equals_walk(*v, p, prob, walk(c, prob));
    }
}

}  // namespace

TEST(StencilBanks, SmemTiledModelEqualsAWalkOfEveryBlock) {
    const Variant* v = find_variant("stencil.smem_tiled");
    ASSERT_NE(v, nullptr);
    std::mt19937 rng(8);
    for (int n = 0; n < 20;) {
        const int R = int(1 + rng() % 2), T = int(2 * R + 1 + rng() % (11 - 2 * R));
        const Problem prob{{int64_t(2 * R + 1 + rng() % 30), int64_t(2 * R + 1 + rng() % 30), int64_t(2 * R + 1 + rng() % 20)}};
        const ParamValues p = with_defaults(v->params, {{"T", T}, {"RADIUS", R}});
        if (!v->invalid_reason(p, prob, tilelab::testing::test_target()).empty()) continue;
        ++n;
        SCOPED_TRACE(::testing::Message() << "T=" << T << " R=" << R << " at " << prob.dim[0] << "x" << prob.dim[1] << "x" << prob.dim[2]);
        expect_model_equals_walk(*v, p, prob, walk_smem_tiled(T, R, prob));
    }
}

TEST(StencilBanks, CoarsenedModelEqualsAWalkOfEveryBlockAndStep) {
    expect_model_equals_walk_at_random("stencil.coarsened", 9, walk_coarsened);
}

TEST(StencilBanks, RegisterTiledModelEqualsAWalkOfEveryBlockAndStep) {
    expect_model_equals_walk_at_random("stencil.register_tiled", 10, walk_register_tiled);
}

// What the plane walks' banks look like at the lessons' widths: a warp is one row of a 32-wide tile,
// so every tile load and store is conflict-free; with the halo around the tile a shared row is
// TX + 2 = 34 floats, and the 32 halo cells of a column, 34 words apart, fall on 16 banks: 2-way.
TEST(StencilBanks, ThirtyTwoWideTilesAreConflictFreeButTheirHaloColumnsAreTwoWay) {
    for (const char* id : {"stencil.coarsened", "stencil.register_tiled"}) {
        const Variant* v = find_variant(id);
        ASSERT_NE(v, nullptr);
        for (int halo = 0; halo <= 1; ++halo) {
            SCOPED_TRACE(::testing::Message() << id << " HALO=" << halo);
            const ParamValues p = with_defaults(v->params, {{"TX", 32}, {"TY", 32}, {"RY", 1}, {"Z", 8}, {"HALO", halo}});
            const Problem prob{{256, 256, 64}};
            ASSERT_EQ(v->invalid_reason(p, prob, tilelab::testing::test_target()), "");
            const BankModel m = full_cost_model(*v, p, prob).banks;
            ASSERT_TRUE(m.modelled);
            for (const BankSiteTotals& s : m.sites) {
                const bool halo_column = s.name.find("halo store") != std::string::npos;
                EXPECT_EQ(s.worst_ways, halo_column ? 2 : 1) << s.name;
                EXPECT_GT(s.instructions, 0) << s.name;
            }
            EXPECT_EQ(m.load_conflicts, 0);
            EXPECT_EQ(m.store_conflicts > 0, halo == 1);
        }
    }
}

// An instance weight counts its instance that many times (tilelab/banks.h).
TEST(StencilBanks, InstanceWeightsScaleEachInstance) {
    SharedAccessSite s;
    s.name = "two rows";
    s.threads = 32;
    s.instances = 2;
    s.repeats = 3;
    s.instance_weights = {5, 0};
    s.byte_address = [](int instance, int t) { return int64_t(4) * (instance == 0 ? t : 32 * t); };
    const BankModel m = bank_model({s});
    EXPECT_EQ(m.load_instructions, 15);
    EXPECT_EQ(m.load_wavefronts, 15) << "the 32-way instance has weight 0";
    EXPECT_EQ(m.sites.at(0).worst_ways, 1);
}

// `compile --json` gives the bank model's totals for every stencil kernel with shared memory
// (null was "not covered yet"), and none for the basic one, which has no shared memory.
TEST(StencilBanks, CompileJsonHasSharedWavefrontsForTheTiledStencils) {
    const std::string cli = test::cli_path();
    for (const char* id : {"stencil.smem_tiled", "stencil.coarsened", "stencil.register_tiled", "stencil.basic"}) {
        SCOPED_TRACE(id);
        const std::string cmd = "TILELAB_MODEL_MODE=1 '" + cli + "' compile " + id + " --size 63 --json 2>/dev/null";
        FILE* pipe = ::popen(cmd.c_str(), "r");
        ASSERT_NE(pipe, nullptr);
        std::string out;
        char buf[4096];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
        ASSERT_EQ(::pclose(pipe), 0) << out;
        const auto j = nlohmann::json::parse(out);
        const Variant* v = find_variant(id);
        ASSERT_NE(v, nullptr);
        const BankModel banks = full_cost_model(*v, j["params"].get<ParamValues>(), Problem{{63, 63, 63}}).banks;
        if (j["smem_bytes"].get<int>() == 0) {
            EXPECT_FALSE(banks.modelled);
            EXPECT_EQ(j["shared_wavefronts"].get<double>(), 0);
            continue;
        }
        ASSERT_FALSE(j["shared_wavefronts"].is_null());
        ASSERT_FALSE(j["bank_conflicts"].is_null());
        EXPECT_GT(j["shared_wavefronts"].get<double>(), 0);
        EXPECT_DOUBLE_EQ(j["shared_wavefronts"].get<double>(), banks.wavefronts());
        EXPECT_DOUBLE_EQ(j["bank_conflicts"].get<double>(), banks.conflicts());
        EXPECT_EQ(j["model"]["banks"]["sites"].size(), banks.sites.size());
    }
}
