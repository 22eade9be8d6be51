// The thread-coarsened stencil as data: parameters, constraints, launch shape and cost model of
// kernels/stencil/03_coarsened.cuh. A TX×TY block walks Z output planes along z with three input
// planes in shared memory, so the tile grows to 32×32 without a 32³-thread block.
#include <fmt/format.h>
#include "../stencil_common.h"

namespace tilelab {
namespace {

using stencil::Grid;
using stencil::PlaneWalkShape;

int coarsened_smem_bytes(const PlaneWalkShape& s) { return 3 * s.shared_plane_floats() * 4; }

std::string coarsened_invalid_reason(const ParamValues& p, const Problem& problem, const Target&) {
    return stencil::plane_walk_invalid_reason(PlaneWalkShape(p), problem);
}

KernelInstance coarsened_kernel(const ParamValues& p) {
    const PlaneWalkShape s(p);
    return {"stencil/03_coarsened.cuh", "coarsened_stencil<" + s.template_args() + ">"};
}

CostModel coarsened_cost_model(const ParamValues& p, const Problem& problem) {
    const PlaneWalkShape s(p);
    const Grid g(problem);
    const double RY = s.ry, Z = s.z, halo = s.around ? 1 : 0;
    const double outputs = s.block_outputs();   // a whole block
    const double loaded = s.global_loads(problem);

    CostModel m;
    m.flops = stencil::kFlopsPerOutput * g.interior();
    // A thread whose RY cells are all outputs (and, with the halo around, that loads a halo cell).
    m.per_thread = {RY * (Z + 2) + halo * Z, RY * Z, 7 * RY * Z, RY * (Z + 2) + halo * Z};
    m.per_block = {s.block_loads(), outputs, 7 * outputs, s.block_loads()};
    // Exact: each in-grid tile cell loads Z+2 planes (fewer in the last block along z), each halo
    // cell its Z output planes, and every loaded value goes to shared memory; interior outputs
    // read 7 shared values, the x-y boundary cells of planes 1..Nz−2 read their own one; every
    // cell is written once.
    m.total = {loaded, g.points(), 7 * g.interior() + g.plane_ring() * double(g.nz - 2), loaded};
    stencil::finish_cost_model(m, g);

    m.formulas = stencil::plane_walk_global_formulas(s, problem, m);
    m.formulas.insert(m.formulas.end(), {
        {"shared loads / block", "7 · outputs / block", m.per_block.shared_loads},
        {"shared loads (total)", "7·(Nx−2)(Ny−2)(Nz−2) + (Nx·Ny − (Nx−2)(Ny−2))·(Nz−2)", m.total.shared_loads},
        {"shared stores (total)", "= global loads", m.total.shared_stores},
    });
    stencil::add_common_formulas(m);
    stencil::add_plane_walk_extras(m, s, "(T = 32, Z = 30: 2.68)",
                                   s.around ? "3·(TX+2)·(R+2)·4  (three planes with their halos)" : "3·TX·R·4  (three planes)",
                                   coarsened_smem_bytes(s));
    return m;
}

}  // namespace

Variant make_coarsened_stencil() {
    Variant v;
    v.id = "stencil.coarsened";
    v.family = "stencil";
    v.title = "Thread-coarsened stencil";
    v.summary = "A T×T block walks along z with three planes in shared memory: T reaches 32, 2.68 OP/B, 12 KB per block.";
    v.params = stencil::plane_walk_params();
    v.invalid_reason = coarsened_invalid_reason;
    v.kernel = coarsened_kernel;
    v.launch = [](const ParamValues& p, const Problem& problem) { return PlaneWalkShape(p).launch(problem); };
    v.tiles = [](const ParamValues& p, const Problem& problem) { return PlaneWalkShape(p).tiles(problem, 3); };
    v.cost_model = coarsened_cost_model;
    v.smem_bytes = [](const ParamValues& p) { return coarsened_smem_bytes(PlaneWalkShape(p)); };
    return v;
}
TILELAB_REGISTER_VARIANT(make_coarsened_stencil)

}  // namespace tilelab
