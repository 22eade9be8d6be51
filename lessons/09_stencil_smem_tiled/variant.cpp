// The shared-memory tiled stencil as data: parameters, constraints, launch shape and cost model
// of kernels/stencil/smem_tiled.cuh. A T×T×T block loads a T³ input tile once and computes
// the (T−2R)³ outputs inside its R-cell halo from shared memory (R = 1: the 7-point stencil).
#include <fmt/format.h>
#include <cmath>
#include "../../families/stencil/banks.h"
#include "../../families/stencil/model.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

using stencil::Grid;

// kernels/stencil/smem_tiled.cuh at one set of parameter values.
struct SmemTiledStencil {
    int t = 8;   // <- T: edge of the cubic block and of its shared tile, halo included
    int r = 1;   // <- RADIUS: how far the stencil reaches along each axis

    static inline const std::vector<ParamSpec> params = {
        {.name = "T", .kind = ParamKind::Int, .min = 3, .max = 12, .def = 8},
        stencil::radius_param(),
    };
    static SmemTiledStencil from(const ParamReader& p) { return {.t = p["T"], .r = p.get("RADIUS", 1)}; }
    std::string invalid_reason(const Problem& problem, const Target& target) const;
    KernelInstance kernel() const;
    TileGeometry tiles(const Problem& problem) const;
    CostModel cost_model(const Problem& problem) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& problem) const;
    int threads() const { return t * t * t; }
    int smem_bytes() const { return 4 * t * t * t; }
    int inner() const { return t - 2 * r; }   // outputs along each axis
    std::array<int64_t, 3> blocks(const Problem& p) const {
        return {stencil::tiles_along(p.dim[0], t, r), stencil::tiles_along(p.dim[1], t, r),
                stencil::tiles_along(p.dim[2], t, r)};
    }
    // The grid is the blocks above, each block the tile.
    LaunchShape launch(const Problem& p) const {
        const auto b = blocks(p);
        return {.grid = {unsigned(b[0]), unsigned(b[1]), unsigned(b[2])}, .block = {unsigned(t), unsigned(t), unsigned(t)}};
    }
};

std::string SmemTiledStencil::invalid_reason(const Problem& problem, const Target& target) const {
    const SmemTiledStencil& s = *this;
    if (auto r = stencil::grid_too_small_reason(problem, s.r); !r.empty()) return r;
    if (s.inner() < 1)
        return trf("constraint.stencil.smem_tiled.tile_t_has_no", s.t, s.r, 2 * s.r + 1);
    if (s.threads() > target.max_threads_per_block) {
        // The largest cube of threads a block can hold: 10 for 1024 threads.
        int largest = 1;
        while ((largest + 1) * (largest + 1) * (largest + 1) <= target.max_threads_per_block) ++largest;
        return trf("constraint.stencil.smem_tiled.t_t_t_tile",
            s.t, s.threads(), target.max_threads_per_block, largest);
    }
    // Block sides, shared memory and the grid are the engine's generic checks.
    return "";
}

KernelInstance SmemTiledStencil::kernel() const {
    const SmemTiledStencil& s = *this;
    return {"stencil/smem_tiled.cuh", fmt::format("smem_tiled_stencil<{}, {}>", s.t, s.r)};
}

// The (T−2R)³ outputs inside a T³ input tile, all T planes of it in shared memory; the tile's
// edge threads load the halo and compute nothing.
TileGeometry SmemTiledStencil::tiles(const Problem& problem) const {
    const SmemTiledStencil& s = *this;
    TileGeometry t;
    t.extent = {problem.dim[0] - 2 * s.r, problem.dim[1] - 2 * s.r, problem.dim[2] - 2 * s.r};
    t.block_tile = {s.inner(), s.inner(), s.inner()};
    t.halo = s.r;
    t.halo_load = HaloLoad::ExtraThreads;
    t.shared_planes = s.t;
    t.shared_plane = {s.t, s.t};
    return t;
}

CostModel SmemTiledStencil::cost_model(const Problem& problem) const {
    const SmemTiledStencil& s = *this;
    const Grid g(problem, s.r);
    const double T = s.t, inner = std::pow(double(s.inner()), 3), tile = std::pow(T, 3);
    const double points = stencil::star_points(s.r), flops = stencil::star_flops(s.r);
    // Tile cells inside the grid, summed over the tiles of each axis: n + 2R·(G−1).
    const double lx = stencil::tile_cells_in_grid(g.nx, s.t, s.r), ly = stencil::tile_cells_in_grid(g.ny, s.t, s.r),
                 lz = stencil::tile_cells_in_grid(g.nz, s.t, s.r);
    const double loaded = lx * ly * lz;
    const bool seven = s.r == 1;   // the 7-point stencil: the formulas in PMPP's numbers

    CostModel m;
    m.flops = flops * g.interior();
    m.per_thread = {1, 1, points, 1};                            // an output thread of a full tile
    m.per_block = {tile, inner, points * inner, tile};           // a full tile inside the grid
    // Exact: each thread whose cell is in the grid loads it and stores it to shared memory once;
    // each interior output reads 6·R + 1 shared values; every cell is written once (boundary cells
    // from the register the thread loaded).
    m.total = {loaded, g.points(), points * g.interior(), loaded};
    stencil::finish_cost_model(m, g);

    m.formulas = {
        {"tile edge T", "T", T},
        {"tiles along x", seven ? "Gx = ⌈(Nx−2)/(T−2)⌉" : "Gx = ⌈(Nx−2R)/(T−2R)⌉", double(s.blocks(problem)[0])},
        {"tiles along y", seven ? "Gy = ⌈(Ny−2)/(T−2)⌉" : "Gy = ⌈(Ny−2R)/(T−2R)⌉", double(s.blocks(problem)[1])},
        {"tiles along z", seven ? "Gz = ⌈(Nz−2)/(T−2)⌉" : "Gz = ⌈(Nz−2R)/(T−2R)⌉", double(s.blocks(problem)[2])},
        {"FLOPs", seven ? "13·(Nx−2)·(Ny−2)·(Nz−2)" : "(12·R + 1)·(Nx−2R)·(Ny−2R)·(Nz−2R)", m.flops},
        {"global loads / block", "T³", m.per_block.global_loads},
        {"outputs / block", seven ? "(T−2)³" : "(T−2R)³", m.per_block.global_stores},
        {"shared loads / block", seven ? "7·(T−2)³" : "(6·R + 1)·(T−2R)³", m.per_block.shared_loads},
        {"global loads (total)",
         seven ? "(Nx + 2(Gx−1))·(Ny + 2(Gy−1))·(Nz + 2(Gz−1))" : "(Nx + 2R(Gx−1))·(Ny + 2R(Gy−1))·(Nz + 2R(Gz−1))",
         m.total.global_loads},
        {"global stores (total)", "Nx·Ny·Nz (each cell once)", m.total.global_stores},
        {"shared loads (total)", seven ? "7·(Nx−2)·(Ny−2)·(Nz−2)" : "(6·R + 1)·interior", m.total.shared_loads},
        {"shared stores (total)", "= global loads", m.total.shared_stores},
    };
    stencil::add_common_formulas(m, s.r);
    m.extras.insert(m.extras.begin(),
                    {{"OP/B, PMPP per-block ratio", seven ? "13·(T−2)³ / (4·T³)" : "(12·R + 1)·(T−2R)³ / (4·T³)",
                      flops * inner / (4 * tile)},
                     {"halo fraction of the input tile", seven ? "(T³ − (T−2)³) / T³" : "(T³ − (T−2R)³) / T³",
                      (tile - inner) / tile},
                     {"shared memory / block (bytes)", "4·T³", double(s.smem_bytes())},
                     {"threads / block", "T³ (≤ the block limit, hence T ≤ 10 for 1024)", tile}});
    m.quoted_intensity = "OP/B, PMPP per-block ratio";
    return m;
}

// The kernel's shared accesses, single floats (ld/st.shared.f32 in the PTX): each thread whose
// cell is in the grid stores it at word t = (tz·T + ty)·T + tx, and each computing thread reads
// its 6·R + 1 cells, one load each, in apply_star_stencil's order. Only the last block along an
// axis can be cut by the grid, so a site has one instance per class of blocks (whole or last along
// x, y and z), weighted by how many blocks it stands for.
std::vector<SharedAccessSite> SmemTiledStencil::shared_sites(const Problem& problem) const {
    const SmemTiledStencil& s = *this;
    if (s.inner() < 1 || !stencil::grid_too_small_reason(problem, s.r).empty()) return {};
    const auto blocks = s.blocks(problem);
    struct BlockClass {
        std::array<int64_t, 3> start;   // the tile's first cell along x, y, z
    };
    std::vector<BlockClass> classes;
    std::vector<double> weights;
    for (const auto& cz : axis_classes(blocks[2], false))
        for (const auto& cy : axis_classes(blocks[1], false))
            for (const auto& cx : axis_classes(blocks[0], false)) {
                const int64_t step = s.inner();
                classes.push_back({{cx.block * step, cy.block * step, cz.block * step}});
                weights.push_back(cx.count * cy.count * cz.count);
            }
    const int T = s.t, R = s.r;
    const std::array<int64_t, 3> n = {problem.dim[0], problem.dim[1], problem.dim[2]};
    // Thread t's cell (t mod T, t/T mod T, t/T²) and what it does in block class i.
    auto site = [&](std::string name, std::string formula, bool store, std::array<int, 3> d) {
        return stencil::float_site(std::move(name), std::move(formula), store, s.threads(), weights,
                                   [classes, n, T, R, store, d](int i, int t) -> int64_t {
                                       const std::array<int, 3> tc = {t % T, t / T % T, t / (T * T)};
                                       for (int a = 0; a < 3; ++a) {
                                           const int64_t c = classes[size_t(i)].start[size_t(a)] + tc[size_t(a)];
                                           const bool on = store ? c < n[size_t(a)] : stencil::tile_computes(tc[size_t(a)], T, c, n[size_t(a)], R);
                                           if (!on) return -1;
                                       }
                                       return t + d[0] + int64_t(T) * d[1] + int64_t(T) * T * d[2];
                                   });
    };
    std::vector<SharedAccessSite> out;
    out.push_back(site("tile store", "word = (tz·T + ty)·T + tx", true, {0, 0, 0}));
    out.push_back(site("load centre", "word = (tz·T + ty)·T + tx", false, {0, 0, 0}));
    for (int d = 1; d <= R; ++d) {
        const std::string k = std::to_string(d), kt = d == 1 ? "" : k + "·";
        out.push_back(site("load x−" + k, "word = (tz·T + ty)·T + tx − " + k, false, {-d, 0, 0}));
        out.push_back(site("load x+" + k, "word = (tz·T + ty)·T + tx + " + k, false, {d, 0, 0}));
        out.push_back(site("load y−" + k, "word = (tz·T + ty − " + k + ")·T + tx", false, {0, -d, 0}));
        out.push_back(site("load y+" + k, "word = (tz·T + ty + " + k + ")·T + tx", false, {0, d, 0}));
        out.push_back(site("load z−" + k, "word = (tz·T + ty)·T + tx − " + kt + "T²", false, {0, 0, -d}));
        out.push_back(site("load z+" + k, "word = (tz·T + ty)·T + tx + " + kt + "T²", false, {0, 0, d}));
    }
    return out;
}

}  // namespace

TILELAB_VARIANT(make_smem_tiled_stencil, SmemTiledStencil,
                {.id = "stencil.smem_tiled", .family = "stencil", .params = SmemTiledStencil::params})

}  // namespace tilelab
