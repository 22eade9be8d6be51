// The thread-coarsened stencil as data: parameters, constraints, launch shape and cost model of
// kernels/stencil/coarsened.cuh. A TX×TY block walks Z output planes along z with three input
// planes in shared memory, so the tile grows to 32×32 without a 32³-thread block.
#include <fmt/format.h>
#include "../../families/stencil/banks.h"
#include "../../families/stencil/model.h"

namespace tilelab {
namespace {

using stencil::Grid;
using stencil::PlaneWalkShape;

// kernels/stencil/coarsened.cuh at one set of parameter values: the plane walk's shape, three planes in shared memory.
struct CoarsenedStencil : PlaneWalkShape {
    static CoarsenedStencil from(const ParamReader& p) { return {PlaneWalkShape(p)}; }
    int smem_bytes() const { return 3 * shared_plane_floats() * 4; }
    std::string invalid_reason(const Problem& problem, const Target&) const {
        return stencil::plane_walk_invalid_reason(*this, problem);
    }
    KernelInstance kernel() const;
    LaunchShape launch(const Problem& problem) const { return PlaneWalkShape::launch(problem); }
    TileGeometry tiles(const Problem& problem) const { return PlaneWalkShape::tiles(problem, 3); }
    CostModel cost_model(const Problem& problem) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& problem) const;
};

KernelInstance CoarsenedStencil::kernel() const {
    const CoarsenedStencil& s = *this;
    return {"stencil/coarsened.cuh", "coarsened_stencil<" + s.template_args() + ">"};
}

CostModel CoarsenedStencil::cost_model(const Problem& problem) const {
    const CoarsenedStencil& s = *this;
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
                                   s.smem_bytes());
    return m;
}

// The kernel's shared accesses, single floats (ld/st.shared.f32 in the PTX), in its order:
//  - before the walk, each in-grid row stores planes z₀−1, z₀, z₀+1 into buffers 0, 1, 2, and a
//    halo thread the halo of planes z₀ (buffer 1) and z₀+1 (buffer 2, if the block walks two);
//  - at step i the buffers are prev = i mod 3, curr = (i+1) mod 3, next = (i+2) mod 3; each
//    row it owns reads its centre from curr (the compiler hoists that load out of the branch:
//    boundary cells copy it), and each computing row its four x-y neighbours in curr and its
//    cells of prev and next; then each in-grid row stores plane z+2 into prev (while z+2 ≤ the
//    block's last input plane) and a halo thread its cell of plane z+2 (while z+2 is an output).
// One instance per x-y block class and row r (and buffer, before the walk). In the walk a step's
// buffers are a whole-warp shift of step 0's by a multiple of S words, which moves every lane's
// bank alike and changes no count, so its sites show step 0's buffers and count every step (the
// walk test serves the rotating buffers themselves).
std::vector<SharedAccessSite> CoarsenedStencil::shared_sites(const Problem& problem) const {
    const CoarsenedStencil& s = *this;
    if (!stencil::plane_walk_invalid_reason(s, problem).empty()) return {};
    const auto classes = stencil::plane_block_classes(s, problem);
    const int RY = s.ry, pitch = s.tx + (s.around ? 2 : 0), plane = (s.rows() + (s.around ? 2 : 0)) * pitch;
    // Weights of instances (class, r, buffer b < buffers): blocks × steps, `steps(b)` per block.
    auto weights = [&](int rows, int buffers, auto steps) {
        std::vector<double> w;
        for (const auto& c : classes)
            for (int r = 0; r < rows; ++r)
                for (int b = 0; b < buffers; ++b) w.push_back(c.count * steps(b));
        return w;
    };
    auto steps_where = [&](auto pred) {
        return [&s, &problem, pred](int b) { return stencil::z_steps(s, problem, [&](int i, int n) { return pred(i, n, b); }); };
    };
    const auto prologue = steps_where([](int i, int, int) { return i == 0; });
    const auto prologue_halo = steps_where([](int i, int n, int b) { return i == 0 && b > 0 && (b == 1 || n >= 2); });
    const auto each_step = steps_where([](int, int, int) { return true; });
    const auto store_step = steps_where([](int i, int n, int) { return i + 2 <= n; });
    const auto halo_step = steps_where([](int i, int n, int) { return i + 2 < n; });

    // Row r's cell in buffer b + shift, moved by `delta` words, where the row takes part.
    enum class Who { in_grid, owns, computes };
    auto cell_site = [&](std::string name, std::string formula, bool store, int buffers, auto steps, int shift,
                         int64_t delta, Who who) {
        return stencil::float_site(std::move(name), std::move(formula), store, s.threads(), weights(RY, buffers, steps),
                                   [classes, RY, buffers, plane, shift, delta, who](int i, int t) -> int64_t {
                                       const int b = i % buffers, r = (i / buffers) % RY;
                                       const auto c = classes[size_t(i / buffers / RY)].cells.cell(t, r);
                                       const bool on = who == Who::in_grid ? c.in_grid : who == Who::owns ? c.owns : c.computes;
                                       return on ? int64_t((b + shift) % 3) * plane + c.word + delta : -1;
                                   });
    };
    auto halo_site = [&](std::string name, std::string formula, int buffers, auto steps) {
        return stencil::float_site(std::move(name), std::move(formula), true, s.threads(), weights(1, buffers, steps),
                                   [classes, buffers, plane](int i, int t) -> int64_t {
                                       const int64_t h = classes[size_t(i / buffers)].cells.halo_word(t);
                                       return h < 0 ? -1 : (i % buffers) * int64_t(plane) + h;
                                   });
    };
    const std::string S = s.around ? "S = (R+2)·(TX+2)" : "S = TX·R";
    const std::string cell = stencil::plane_cell_formula(s);
    const std::string halo = "word = b·S + sy·(TX+2) + sx: rows 0 and R+1 for t < 2·TX, then columns 0 and TX+1, " + S;
    auto in_curr = [&](const std::string& dy, const std::string& dx) {
        return "word = c·S + " + stencil::plane_cell_formula(s, dy, dx) + ",  c = (i+1) mod 3 (curr), " + S;
    };
    std::vector<SharedAccessSite> out;
    out.push_back(cell_site("tile store (planes z₀−1, z₀, z₀+1)", "word = b·S + " + cell + ",  b = 0, 1, 2, " + S, true,
                            3, prologue, 0, 0, Who::in_grid));
    if (s.around) out.push_back(halo_site("halo store (planes z₀, z₀+1)", halo + ",  b = 1, 2", 3, prologue_halo));
    out.push_back(cell_site("load centre", in_curr("", ""), false, 1, each_step, 1, 0, Who::owns));
    out.push_back(cell_site("load x−1", in_curr("", " − 1"), false, 1, each_step, 1, -1, Who::computes));
    out.push_back(cell_site("load x+1", in_curr("", " + 1"), false, 1, each_step, 1, 1, Who::computes));
    out.push_back(cell_site("load y−1", in_curr(" − 1", ""), false, 1, each_step, 1, -pitch, Who::computes));
    out.push_back(cell_site("load y+1", in_curr(" + 1", ""), false, 1, each_step, 1, pitch, Who::computes));
    out.push_back(cell_site("load z−1 (prev)", "word = p·S + " + cell + ",  p = i mod 3 (prev), " + S, false,
                            1, each_step, 0, 0, Who::computes));
    out.push_back(cell_site("load z+1 (next)", "word = n·S + " + cell + ",  n = (i+2) mod 3 (next), " + S, false,
                            1, each_step, 2, 0, Who::computes));
    out.push_back(cell_site("tile store (plane z+2)", "word = p·S + " + cell + ",  p = i mod 3 (prev), " + S, true,
                            1, store_step, 0, 0, Who::in_grid));
    if (s.around) out.push_back(halo_site("halo store (plane z+2)", halo + ",  b = i mod 3 (prev)", 1, halo_step));
    return out;
}

}  // namespace

TILELAB_VARIANT(make_coarsened_stencil, CoarsenedStencil,
                {.id = "stencil.coarsened", .family = "stencil", .params = stencil::plane_walk_params()})

}  // namespace tilelab
