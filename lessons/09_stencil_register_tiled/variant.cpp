// The register-tiled stencil as data: parameters, constraints, launch shape and cost model of
// kernels/stencil/04_register_tiled.cuh. The coarsened walk along z, with only the current plane
// in shared memory; the planes above and below stay in each thread's registers.
#include <fmt/format.h>
#include "../stencil_common.h"

namespace tilelab {
namespace {

using stencil::Grid;
using stencil::PlaneWalkShape;

int register_tiled_smem_bytes(const PlaneWalkShape& s) { return s.tx * s.ty * 4; }

std::string register_tiled_invalid_reason(const ParamValues& p, const Problem& problem, const Target& target) {
    const PlaneWalkShape s(p);
    return stencil::plane_walk_invalid_reason(
        s, register_tiled_smem_bytes(s), fmt::format("One {}×{} plane of floats", s.tx, s.ty), problem, target);
}

KernelInstance register_tiled_kernel(const ParamValues& p) {
    const PlaneWalkShape s(p);
    return {"stencil/04_register_tiled.cuh", fmt::format("register_tiled_stencil<{}, {}, {}>", s.tx, s.ty, s.z)};
}

CostModel register_tiled_cost_model(const ParamValues& p, const Problem& problem) {
    const PlaneWalkShape s(p);
    const Grid g(problem);
    const double TX = s.tx, TY = s.ty, Z = s.z;
    const double outputs = (TX - 2) * (TY - 2) * Z;   // a full block
    const double columns = stencil::tile_cells_in_grid(g.nx, s.tx) * stencil::tile_cells_in_grid(g.ny, s.ty);
    const double loaded = columns * s.planes_loaded(g.nz);

    CostModel m;
    m.flops = stencil::kFlopsPerOutput * g.interior();
    m.per_thread = {Z + 2, Z, 4 * Z, Z};                                 // an output column of a full block
    m.per_block = {TX * TY * (Z + 2), outputs, 4 * outputs, TX * TY * Z};
    // Exact: global loads as in the coarsened kernel; only the Z current planes go to shared
    // memory; an interior output reads its 4 x-y neighbours there (centre, z−1, z+1 in
    // registers); boundary cells are copied from registers; every cell is written once.
    m.total = {loaded, g.points(), 4 * g.interior(), columns * double(g.nz - 2)};
    stencil::finish_cost_model(m, g);

    m.formulas = stencil::plane_walk_global_formulas(s, problem, m);
    m.formulas.insert(m.formulas.end(), {
        {"shared loads / block", "4·(TX−2)·(TY−2)·Z (x-y neighbours only)", m.per_block.shared_loads},
        {"shared stores / block", "TX·TY·Z (the current plane, once per step)", m.per_block.shared_stores},
        {"shared loads (total)", "4·(Nx−2)·(Ny−2)·(Nz−2)", m.total.shared_loads},
        {"shared stores (total)", "(Nx + 2(Gx−1))·(Ny + 2(Gy−1))·(Nz−2)", m.total.shared_stores},
    });
    stencil::add_common_formulas(m);
    stencil::add_plane_walk_extras(m, s, "(same as coarsened)", "TX·TY·4  (one plane)", register_tiled_smem_bytes(s));
    return m;
}

}  // namespace

Variant make_register_tiled_stencil() {
    Variant v;
    v.id = "stencil.register_tiled";
    v.family = "stencil";
    v.title = "Register-tiled stencil";
    v.summary = "The coarsened walk with planes z−1 and z+1 in registers: a third of the shared memory (4 KB at 32×32), the same global traffic.";
    v.params = stencil::plane_walk_params();
    v.invalid_reason = register_tiled_invalid_reason;
    v.kernel = register_tiled_kernel;
    v.launch = [](const ParamValues& p, const Problem& problem) { return PlaneWalkShape(p).launch(problem); };
    v.cost_model = register_tiled_cost_model;
    v.smem_bytes = [](const ParamValues& p) { return register_tiled_smem_bytes(PlaneWalkShape(p)); };
    return v;
}

}  // namespace tilelab
