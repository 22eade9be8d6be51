// The register-tiled stencil as data: parameters, constraints, launch shape and cost model of
// kernels/stencil/register_tiled.cuh. The coarsened walk along z, with only the current plane
// in shared memory; the planes above and below stay in each thread's registers.
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
    return {"stencil/register_tiled.cuh", "register_tiled_stencil<" + s.template_args() + ">"};
}

CostModel RegisterTiledStencil::cost_model(const Problem& problem) const {
    const RegisterTiledStencil& s = *this;
    const Grid g(problem);
    const double RY = s.ry, Z = s.z, halo = s.around ? 1 : 0;
    const double outputs = s.block_outputs();   // a whole block
    const double stored = s.tile_cells_per_plane(problem) + s.halo_cells_per_plane(problem);

    CostModel m;
    m.flops = stencil::kFlopsPerOutput * g.interior();
    // A thread whose RY cells are all outputs (and, with the halo around, that loads a halo cell).
    m.per_thread = {RY * (Z + 2) + halo * Z, RY * Z, 4 * RY * Z, RY * Z + halo * Z};
    m.per_block = {s.block_loads(), outputs, 4 * outputs, (s.tile_cells() + s.halo_cells()) * Z};
    // Exact: global loads as in the coarsened kernel; only the Nz−2 current planes (tile and halo
    // cells) go to shared memory; an interior output reads its 4 x-y neighbours there (centre,
    // z−1, z+1 in registers); boundary cells are copied from registers; every cell is written once.
    m.total = {s.global_loads(problem), g.points(), 4 * g.interior(), stored * double(g.nz - 2)};
    stencil::finish_cost_model(m, g);

    m.formulas = stencil::plane_walk_global_formulas(s, problem, m);
    m.formulas.insert(m.formulas.end(), {
        {"shared loads / block", "4 · outputs / block (x-y neighbours only)", m.per_block.shared_loads},
        {"shared stores / block", s.around ? "(TX·R + 2·TX + 2·R)·Z (the current plane and its halo, once per step)"
                                           : "TX·R·Z (the current plane, once per step)", m.per_block.shared_stores},
        {"shared loads (total)", "4·(Nx−2)·(Ny−2)·(Nz−2)", m.total.shared_loads},
        {"shared stores (total)", "(tile cells + halo cells per plane)·(Nz−2)", m.total.shared_stores},
    });
    stencil::add_common_formulas(m);
    stencil::add_plane_walk_extras(m, s, "(same as coarsened)",
                                   s.around ? "(TX+2)·(R+2)·4  (one plane with its halo)" : "TX·R·4  (one plane)",
                                   s.smem_bytes());
    return m;
}

// The kernel's shared accesses, single floats (ld/st.shared.f32 in the PTX): at every step of the
// walk, each in-grid row stores its cell of plane z and a halo thread its halo cell; after the
// barrier each computing row reads its four x-y neighbours (the centre and the z neighbours come
// from registers). One instance per x-y block class and row r; the steps along z are the same.
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
    const int RY = s.ry, pitch = s.tx + (s.around ? 2 : 0);
    // A row's cell moved by `delta` words, where the row takes part (`computing`: it gets the stencil).
    auto cell_site = [&](std::string name, std::string formula, bool store, int64_t delta, bool computing) {
        return stencil::float_site(std::move(name), "word = " + formula, store, s.threads(), per_row,
                                   [classes, RY, delta, computing](int i, int t) -> int64_t {
                                       const auto c = classes[size_t(i / RY)].cells.cell(t, i % RY);
                                       return (computing ? c.computes : c.in_grid) ? c.word + delta : -1;
                                   });
    };
    std::vector<SharedAccessSite> out;
    out.push_back(cell_site("tile store (plane z)", stencil::plane_cell_formula(s), true, 0, false));
    if (s.around)
        out.push_back(stencil::float_site(
            "halo store (plane z)", "word = sy·(TX+2) + sx: rows 0 and R+1 for t < 2·TX, then columns 0 and TX+1",
            true, s.threads(), per_block,
            [classes](int i, int t) { return classes[size_t(i)].cells.halo_word(t); }));
    out.push_back(cell_site("load x−1", stencil::plane_cell_formula(s, "", " − 1"), false, -1, true));
    out.push_back(cell_site("load x+1", stencil::plane_cell_formula(s, "", " + 1"), false, 1, true));
    out.push_back(cell_site("load y−1", stencil::plane_cell_formula(s, " − 1"), false, -pitch, true));
    out.push_back(cell_site("load y+1", stencil::plane_cell_formula(s, " + 1"), false, pitch, true));
    return out;
}

}  // namespace

TILELAB_VARIANT(make_register_tiled_stencil, RegisterTiledStencil,
                {.id = "stencil.register_tiled", .family = "stencil", .params = stencil::plane_walk_params()})

}  // namespace tilelab
