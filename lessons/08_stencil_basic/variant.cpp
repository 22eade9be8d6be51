// The basic stencil as data: parameters, constraints, launch shape and cost model of
// kernels/stencil/basic.cuh. One thread per cell in BX×BY×BZ blocks; an interior cell loads
// its 6·R + 1 inputs from global memory (R = 1: the 7-point stencil), a boundary cell (within R
// of a face) loads and copies itself.
#include <fmt/format.h>
#include "../../families/stencil/model.h"

namespace tilelab {
namespace {

using stencil::Grid;

// kernels/stencil/basic.cuh at one set of parameter values.
struct BasicStencil {
    int bx = 8, by = 8, bz = 8;   // <- BX, BY, BZ: the block, one thread per cell
    int r = 1;                    // <- RADIUS: how far the stencil reaches along each axis

    static inline const std::vector<ParamSpec> params = {
        // Default 128×2×1: the fastest shape of scripts/bench_stencil.sh's sweep on an H200 at 512³
        // (32×8, 64×4 and 256×1 were within a few percent; the lesson starts from 32×8).
        {.name = "BX", .kind = ParamKind::Pow2, .min = 1, .max = 1024, .def = 128},
        {.name = "BY", .kind = ParamKind::Pow2, .min = 1, .max = 1024, .def = 2},
        {.name = "BZ", .kind = ParamKind::Pow2, .min = 1, .max = 64, .def = 1},
        stencil::radius_param(),
    };
    static BasicStencil from(const ParamReader& p) {
        return {.bx = p["BX"], .by = p["BY"], .bz = p["BZ"], .r = p.get("RADIUS", 1)};
    }
    std::string invalid_reason(const Problem& problem, const Target& target) const;
    KernelInstance kernel() const;
    TileGeometry tiles(const Problem& problem) const;
    CostModel cost_model(const Problem& problem) const;
    int threads() const { return bx * by * bz; }
    std::array<int64_t, 3> blocks(const Problem& p) const {
        return {ceil_div(p.dim[0], bx), ceil_div(p.dim[1], by), ceil_div(p.dim[2], bz)};
    }
    // The grid is the blocks above, each block the tile.
    LaunchShape launch(const Problem& p) const {
        const auto b = blocks(p);
        return {.grid = {unsigned(b[0]), unsigned(b[1]), unsigned(b[2])}, .block = {unsigned(bx), unsigned(by), unsigned(bz)}};
    }
};

// Block and grid limits are the engine's generic checks.
std::string BasicStencil::invalid_reason(const Problem& problem, const Target&) const {
    return stencil::grid_too_small_reason(problem, r);
}

KernelInstance BasicStencil::kernel() const {
    const BasicStencil& s = *this;
    return {"stencil/basic.cuh", fmt::format("basic_stencil<{}, {}, {}, {}>", s.bx, s.by, s.bz, s.r)};
}

// One thread per cell of the whole grid (boundary cells copy themselves); each reads its
// neighbours, one cell away, from global memory.
TileGeometry BasicStencil::tiles(const Problem& problem) const {
    const BasicStencil& s = *this;
    TileGeometry t;
    t.extent = problem.dim;
    t.block_tile = {s.bx, s.by, s.bz};
    t.halo = s.r;
    t.halo_load = HaloLoad::Global;
    return t;
}

CostModel BasicStencil::cost_model(const Problem& problem) const {
    const BasicStencil& s = *this;
    const Grid g(problem, s.r);
    const double threads = s.threads();
    const double points = stencil::star_points(s.r), flops = stencil::star_flops(s.r);
    const bool seven = s.r == 1;   // the 7-point stencil: the formulas in PMPP's numbers

    CostModel m;
    m.flops = flops * g.interior();
    m.per_thread = {points, 1, 0, 0};                    // an interior cell
    m.per_block = {points * threads, threads, 0, 0};     // a block of interior cells
    // Exact: interior cells load 6·R + 1, boundary cells load 1; every cell is stored once.
    m.total = {points * g.interior() + g.boundary(), g.points(), 0, 0};
    stencil::finish_cost_model(m, g);

    m.formulas = {
        {"interior cells", seven ? "(Nx−2)·(Ny−2)·(Nz−2)" : "(Nx−2R)·(Ny−2R)·(Nz−2R)", g.interior()},
        {"boundary cells", "Nx·Ny·Nz − interior", g.boundary()},
        {"FLOPs", seven ? "13·interior (7 multiplies + 6 adds each)" : "(12·R + 1)·interior", m.flops},
        {"global loads / thread", seven ? "7 (interior cell)" : "6·R + 1 (interior cell)", m.per_thread.global_loads},
        {"global loads / block", seven ? "7·BX·BY·BZ (all interior)" : "(6·R + 1)·BX·BY·BZ (all interior)",
         m.per_block.global_loads},
        {"global loads (total)", seven ? "7·interior + boundary" : "(6·R + 1)·interior + boundary", m.total.global_loads},
        {"global stores (total)", "Nx·Ny·Nz (each cell once)", m.total.global_stores},
    };
    stencil::add_common_formulas(m, s.r);
    m.extras.insert(m.extras.begin(),
                    {"OP/B, PMPP per-thread ratio",
                     seven ? "13 / (7·4): 13 FLOPs over seven 4-byte loads" : "(12·R + 1) / (4·(6·R + 1))",
                     flops / (points * stencil::kBytesPerInput)});
    m.quoted_intensity = "OP/B, PMPP per-thread ratio";
    m.extras.push_back({"loads of each input cell", seven ? "up to 7 (itself and six neighbours)" : "up to 6·R + 1",
                        points});
    // Lesson 08's table of bounds at this order: each input loaded once, 2 FLOPs per point (PMPP's
    // count for comparing stencils with convolutions).
    const double r = s.r, w = 2 * r + 1;
    m.extras.push_back({"points, 1D stencil of this order", "2·R + 1", w});
    m.extras.push_back({"points, 2D stencil of this order", "4·R + 1", 4 * r + 1});
    m.extras.push_back({"points, 3D stencil of this order", "6·R + 1", points});
    m.extras.push_back({"OP/B bound, 2D stencil", "2·(4·R + 1) / 4", 2 * (4 * r + 1) / 4});
    m.extras.push_back({"OP/B bound, 2D convolution of the same reach", "2·(2·R + 1)² / 4", 2 * w * w / 4});
    m.extras.push_back({"OP/B bound, 3D stencil", "2·(6·R + 1) / 4", 2 * points / 4});
    m.extras.push_back({"OP/B bound, 3D convolution of the same reach", "2·(2·R + 1)³ / 4", 2 * w * w * w / 4});
    return m;
}

}  // namespace

TILELAB_VARIANT(make_basic_stencil, BasicStencil,
                {.id = "stencil.basic", .family = "stencil", .params = BasicStencil::params})

}  // namespace tilelab
