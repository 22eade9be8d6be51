// The register-tiled stencil as data: parameters, constraints, launch shape and cost model of
// kernels/stencil/register_tiled.cuh. The coarsened walk along z, with only the current plane
// in shared memory; the planes above and below stay in each thread's registers. VX columns a
// thread move each row in float2 or float4 pieces.
#include <fmt/format.h>
#include "../../families/stencil/banks.h"
#include "../../families/stencil/model.h"

namespace tilelab {
namespace {

using stencil::Grid;
using stencil::PlaneWalkShape;

// kernels/stencil/register_tiled.cuh at one set of parameter values: the plane walk's shape, one plane in shared memory.
struct RegisterTiledStencil : PlaneWalkShape {
    static RegisterTiledStencil from(const ParamReader& p) { return {PlaneWalkShape(p)}; }
    int smem_bytes() const { return shared_plane_floats() * 4; }
    std::string invalid_reason(const Problem& problem, const Target&) const {
        return stencil::plane_walk_invalid_reason(*this, problem);
    }
    KernelInstance kernel() const;
    LaunchShape launch(const Problem& problem) const { return PlaneWalkShape::launch(problem); }
    TileGeometry tiles(const Problem& problem) const { return PlaneWalkShape::tiles(problem, 1); }
    CostModel cost_model(const Problem& problem) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& problem) const;
};

KernelInstance RegisterTiledStencil::kernel() const {
    const RegisterTiledStencil& s = *this;
    if (s.vx == 1) return {"stencil/register_tiled.cuh", "register_tiled_stencil<" + s.template_args() + ">"};
    return {"stencil/register_tiled.cuh", fmt::format("register_tiled_stencil_pieces<{}, {}>", s.template_args(), s.vx)};
}

CostModel RegisterTiledStencil::cost_model(const Problem& problem) const {
    const RegisterTiledStencil& s = *this;
    const Grid g(problem);
    const double RY = s.ry, Z = s.z, VX = s.vx, halo = s.around ? VX : 0;
    const double outputs = s.block_outputs();   // a whole block
    const double stored = s.tile_cells_per_plane(problem) + s.halo_cells_per_plane(problem);
    // Shared floats a piece of VX cells reads when one of them gets the stencil: the pieces above
    // and below and one cell each side (4 at VX = 1: the four x-y neighbours).
    const double piece_reads = 2 * VX + 2;

    CostModel m;
    m.flops = stencil::kFlopsPerOutput * g.interior();
    // A thread whose RY pieces are all outputs (and, with the halo around, that loads a piece of a halo row).
    m.per_thread = {VX * RY * (Z + 2) + halo * Z, VX * RY * Z, piece_reads * RY * Z, VX * RY * Z + halo * Z};
    m.per_block = {s.block_loads(), outputs, piece_reads * outputs / VX, (s.tile_cells() + s.halo_cells()) * Z};
    // Exact: global loads as in the coarsened kernel; only the Nz−2 current planes (tile and halo
    // cells) go to shared memory; a piece with an interior cell reads its x-y neighbours there
    // (centre, z−1, z+1 in registers); boundary cells are copied from registers; every cell is
    // written once. Pieces start on multiples of VX: those reaching an interior column are the
    // ⌊(Nx−2)/VX⌋ + 1 starting at 0 … Nx−2 (at VX = 1 the one at 0 does not: Nx−2).
    const double pieces_x = s.vx == 1 ? double(g.nx - 2) : double((g.nx - 2) / s.vx + 1);
    m.total = {s.global_loads(problem), g.points(), piece_reads * pieces_x * double(g.ny - 2) * double(g.nz - 2),
               stored * double(g.nz - 2)};
    stencil::finish_cost_model(m, g);

    m.formulas = stencil::plane_walk_global_formulas(s, problem, m);
    const bool pieces = s.vx > 1;
    m.formulas.insert(m.formulas.end(), {
        {"shared loads / block", pieces ? "(2·VX + 2) · outputs / VX (the pieces above and below, a cell each side)"
                                        : "4 · outputs / block (x-y neighbours only)", m.per_block.shared_loads},
        {"shared stores / block", s.around ? "(TX·R + 2·TX + 2·R)·Z (the current plane and its halo, once per step)"
                                           : "TX·R·Z (the current plane, once per step)", m.per_block.shared_stores},
        {"shared loads (total)", pieces ? "(2·VX + 2)·(⌊(Nx−2)/VX⌋ + 1)·(Ny−2)·(Nz−2)" : "4·(Nx−2)·(Ny−2)·(Nz−2)",
         m.total.shared_loads},
        {"shared stores (total)", "(tile cells + halo cells per plane)·(Nz−2)", m.total.shared_stores},
    });
    stencil::add_common_formulas(m);
    stencil::add_plane_walk_extras(m, s, "(same as coarsened)",
                                   !s.around ? "TX·R·4  (one plane)"
                                   : pieces  ? "(TX+2·VX)·(R+2)·4  (one plane with its halo, rows VX-aligned)"
                                             : "(TX+2)·(R+2)·4  (one plane with its halo)",
                                   s.smem_bytes());
    return m;
}

// The kernel's shared accesses (ld/st.shared in the PTX: f32, or v2/v4.f32 pieces at VX > 1): at
// every step of the walk, each in-grid row stores its piece of plane z and a halo thread its halo
// piece; after the barrier each computing row reads the pieces above and below and the cells left
// and right (the centre, the x neighbours inside a piece and the z neighbours come from
// registers). One instance per x-y block class and row r; the steps along z are the same.
std::vector<SharedAccessSite> RegisterTiledStencil::shared_sites(const Problem& problem) const {
    const RegisterTiledStencil& s = *this;
    if (!stencil::plane_walk_invalid_reason(s, problem).empty()) return {};
    const auto classes = stencil::plane_block_classes(s, problem);
    const double steps = stencil::z_steps(s, problem, [](int, int) { return true; });   // Nz − 2
    std::vector<double> per_row, per_block;
    for (const auto& c : classes) {
        per_block.push_back(c.count * steps);
        for (int r = 0; r < s.ry; ++r) per_row.push_back(c.count * steps);
    }
    const int RY = s.ry, VX = s.vx, pitch = s.tx + 2 * s.pad();
    // A row's piece (`floats` wide) moved by `delta` words, where the row takes part (`computing`:
    // a cell of it gets the stencil).
    auto cell_site = [&](std::string name, std::string formula, bool store, int64_t delta, bool computing, int floats) {
        return stencil::float_site(std::move(name), "word = " + formula, store, s.threads(), per_row,
                                   [classes, RY, delta, computing](int i, int t) -> int64_t {
                                       const auto c = classes[size_t(i / RY)].cells.cell(t, i % RY);
                                       return (computing ? c.computes : c.in_grid) ? c.word + delta : -1;
                                   }, floats);
    };
    using Halo = stencil::PlaneTileCells::HaloKind;
    auto halo_site = [&](std::string name, std::string formula, Halo kind, int floats) {
        return stencil::float_site(std::move(name), std::move(formula), true, s.threads(), per_block,
                                   [classes, kind](int i, int t) { return classes[size_t(i)].cells.halo_word(t, kind); },
                                   floats);
    };
    std::vector<SharedAccessSite> out;
    out.push_back(cell_site("tile store (plane z)", stencil::plane_cell_formula(s), true, 0, false, VX));
    if (s.around && VX == 1)
        out.push_back(halo_site("halo store (plane z)",
                                "word = sy·(TX+2) + sx: rows 0 and R+1 for t < 2·TX, then columns 0 and TX+1",
                                Halo::Any, 1));
    if (s.around && VX > 1) {
        out.push_back(halo_site("halo store, rows (plane z)",
                                "word = sy·(TX+2·VX) + VX + VX·t: rows 0 and R+1 for t < 2·TX/VX", Halo::Rows, VX));
        out.push_back(halo_site("halo store, columns (plane z)",
                                "word = sy·(TX+2·VX) + sx: columns VX−1 and TX+VX for the next 2·R threads",
                                Halo::Columns, 1));
    }
    out.push_back(cell_site("load x−1", stencil::plane_cell_formula(s, "", " − 1"), false, -1, true, 1));
    out.push_back(cell_site("load x+1", stencil::plane_cell_formula(s, "", VX > 1 ? " + VX" : " + 1"), false, VX, true, 1));
    out.push_back(cell_site("load y−1", stencil::plane_cell_formula(s, " − 1"), false, -pitch, true, VX));
    out.push_back(cell_site("load y+1", stencil::plane_cell_formula(s, " + 1"), false, pitch, true, VX));
    return out;
}

}  // namespace

TILELAB_VARIANT(make_register_tiled_stencil, RegisterTiledStencil,
                {.id = "stencil.register_tiled", .family = "stencil", .params = [] {
                     auto params = stencil::plane_walk_params();
                     params.push_back({.name = "VX", .kind = ParamKind::Pow2, .min = 1, .max = 4, .def = 1});
                     return params;
                 }()})

}  // namespace tilelab
