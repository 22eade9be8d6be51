// Temporal blocking as data: parameters, constraints, passes and cost model of
// kernels/stencil/temporal.cuh. STEPS time steps of the 7-point stencil, TSTEPS of them per
// launch: ⌊STEPS / TSTEPS⌋ launches of the TSTEPS kernel, then one of STEPS mod TSTEPS if any.
// The family chains the launches (each reads what the last wrote) and checks the grid after
// STEPS steps against as many reference sweeps.
#include <fmt/format.h>
#include "tilelab/i18n.h"
#include <algorithm>
#include "../../families/stencil/banks.h"
#include "../../families/stencil/model.h"

namespace tilelab {
namespace {

// What one launch of the kernel with `t` levels does, summed over its blocks. Every count is
// exact: the kernel's loops are walked here axis by axis (tests/cpu/test_stencil_temporal.cpp
// walks them thread by thread).
struct LaunchCounts {
    double blocks = 0, loads = 0, stores = 0, shared_loads = 0, shared_stores = 0;
    double computed = 0;   // cell-updates evaluated, ring cells and copies included
    double shuffles = 0;
    // Level-planes the blocks compute, summed over the blocks: levels 1..t (they read edge rows)
    // and 0..t−1 (they leave them).
    double level_planes_up = 0, level_planes_down = 0;
    double planes_loaded = 0;   // Σ over the blocks along z of the input planes they read
    // Blocks whose whole region lies inside the grid's interior: the kernel's second copy of the
    // walk, without the per-cell boundary select.
    double interior_blocks = 0;
    // Blocks at the edge along x only (rows in the interior): the two-column kernel's third walk,
    // whose conditions are its columns' (kernels/stencil/temporal.cuh, Walk<kEdgeX>).
    double edge_x_blocks = 0;
};

// A whole run: `full` launches of the TSTEPS kernel, then `last` (zeros where STEPS divides).
struct RunCounts {
    LaunchCounts full, last;
    double launches_full = 0;
    double sum(double LaunchCounts::*field) const { return launches_full * full.*field + last.*field; }
};

// The levels' planes a thread keeps (prev and mid of TSTEPS levels, RY rows of CX columns each)
// are registers; past 96 of them, with the loads ahead, addresses and the sums on top, a thread
// nears the 255 a thread can have (96 compiled to 199–222 registers with CUDA 13.0, no spills).
constexpr int kMaxPipelineRegisters = 96;

struct TemporalStencil {
    int steps, t, ty, ry, cx, zc, ahead;
    static TemporalStencil from(const ParamReader& p) {
        return {p["STEPS"], p["TSTEPS"], p["TY"], p["RY"], p["CX"], p["ZC"], p["AHEAD"]};
    }
    int rows() const { return ty * ry; }
    int columns() const { return 32 * cx; }   // the region's: a warp, CX columns a thread
    int out_x(int levels) const { return columns() - 2 * levels; }
    int out_y(int levels) const { return rows() - 2 * levels; }
    int full_launches() const { return steps / t; }
    int rest() const { return steps % t; }
    int launches() const { return full_launches() + (rest() > 0 ? 1 : 0); }

    KernelInstance kernel_of(int levels) const {
        const char* kernel = cx == 1 ? "temporal_stencil" : "temporal_stencil_two_columns";
        return {"stencil/temporal.cuh", fmt::format("{}<{}, {}, {}, {}, {}>", kernel, levels, ty, ry, zc, ahead)};
    }
    KernelInstance kernel() const { return kernel_of(t); }
    LaunchShape launch_of(int levels, const Problem& p) const {
        LaunchShape s;
        s.block = {32u, unsigned(ty), 1u};
        s.grid = {unsigned(ceil_div(p.dim[0], out_x(levels))), unsigned(ceil_div(p.dim[1], out_y(levels))),
                  unsigned(ceil_div(p.dim[2], zc))};
        return s;
    }
    LaunchShape launch(const Problem& p) const { return launch_of(t, p); }
    std::vector<KernelPass> passes(const Problem& p) const {
        std::vector<KernelPass> out;
        if (full_launches() > 0)
            out.push_back({say("{} steps a launch", "每次启动 {} 步", t), kernel_of(t), launch_of(t, p), full_launches()});
        if (rest() > 0)
            out.push_back({rest() == 1 ? say("the last step", "最后一步") : say("the last {} steps", "最后 {} 步", rest()), kernel_of(rest()),
                           launch_of(rest(), p), 1});
        return out;
    }
    FamilyOptions family_options() const { return {{"steps", steps}}; }
    // Both arrays of edge rows: [TSTEPS][2][TY][CX][32] floats each.
    int smem_bytes() const { return 2 * t * 2 * ty * columns() * 4; }
    std::string invalid_reason(const Problem& p, const Target&) const;
    LaunchCounts counts(int levels, const Problem& p) const;
    RunCounts run_counts(const Problem& p) const {
        return {counts(t, p), rest() > 0 ? counts(rest(), p) : LaunchCounts{}, double(full_launches())};
    }
    TileGeometry tiles(const Problem& p) const;
    CostModel cost_model(const Problem& p) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& p) const;
};

std::string TemporalStencil::invalid_reason(const Problem& p, const Target&) const {
    if (auto r = stencil::grid_too_small_reason(p); !r.empty()) return r;
    if (t > steps) return trf("constraint.stencil.temporal.more_than_steps", t, steps);
    if (out_y(t) < 1) return trf("constraint.stencil.temporal.rows", ty, ry, rows(), t, 2 * t);
    if (2 * t * ry * cx > kMaxPipelineRegisters)
        return trf("constraint.stencil.temporal.registers", t, ry, cx, t, ry, cx, 2 * t * ry * cx, kMaxPipelineRegisters);
    return "";
}

// Cells of the window [lo, hi) inside [0, n).
int64_t inside(int64_t lo, int64_t hi, int64_t n) { return std::max<int64_t>(0, std::min(hi, n) - std::max<int64_t>(lo, 0)); }

LaunchCounts TemporalStencil::counts(int levels, const Problem& p) const {
    const int64_t nx = p.dim[0], ny = p.dim[1], nz = p.dim[2];
    const int bx = out_x(levels), by = out_y(levels), h = rows(), w = columns();
    const LaunchShape shape = launch_of(levels, p);
    // Region columns and rows inside the grid, over the blocks along x and along y.
    // And the block columns and rows whose region lies in the interior, [1, N−1) (region_at_edge).
    double cols = 0, rows_in = 0, inner_x = 0, inner_y = 0;
    for (int64_t b = 0; b < shape.grid[0]; ++b) {
        cols += double(inside(b * bx - levels, b * bx - levels + w, nx));
        inner_x += double(inside(b * bx - levels, b * bx - levels + w, nx - 1) == w && b * bx - levels >= 1);
    }
    for (int64_t b = 0; b < shape.grid[1]; ++b) {
        rows_in += double(inside(b * by - levels, b * by - levels + h, ny));
        inner_y += double(inside(b * by - levels, b * by - levels + h, ny - 1) == h && b * by - levels >= 1);
    }
    // Along z: input planes loaded, and the planes each level computes (level l: those level
    // `levels` needs, [zs − (levels−l), ze + (levels−l)), but for the boundary planes 0 and
    // Nz−1, which keep their values); level 0's are the loaded planes but those two. A level
    // shares the edge rows of the planes it computes (level 0: loads) for the level above.
    LaunchCounts c;
    const double xy_blocks = double(shape.grid[0]) * double(shape.grid[1]);
    c.blocks = xy_blocks * shape.grid[2];
    c.interior_blocks = inner_x * inner_y * shape.grid[2];
    c.edge_x_blocks = (double(shape.grid[0]) - inner_x) * inner_y * shape.grid[2];
    for (int64_t b = 0; b < shape.grid[2]; ++b) {
        const int64_t zs = b * zc, ze = std::min<int64_t>(zs + zc, nz);
        c.planes_loaded += double(inside(zs - levels, ze + levels, nz));
        for (int l = 0; l <= levels; ++l) {
            const int64_t lo = std::max<int64_t>(zs - (levels - l), 1), hi = ze + (levels - l);
            const double active = xy_blocks * double(inside(lo, hi, nz - 1));
            if (l < levels) c.level_planes_down += active;
            if (l > 0) c.level_planes_up += active;
        }
    }
    c.loads = cols * rows_in * c.planes_loaded;
    c.stores = double(nx) * double(ny) * double(nz);
    // Each thread row but the first leaves its first row, each but the last its last row (CX
    // columns a thread), for every plane of levels 0 .. t−1; levels 1 .. t read them back. A
    // level-plane of a block evaluates all its W·H cells, with two shuffles a thread and row.
    const double edge = 2.0 * w * (ty - 1);
    c.shared_stores = edge * c.level_planes_down;
    c.shared_loads = edge * c.level_planes_up;
    c.computed = double(w) * h * c.level_planes_up;
    c.shuffles = 2.0 * 32 * h * c.level_planes_up;
    return c;
}

TileGeometry TemporalStencil::tiles(const Problem& p) const {
    TileGeometry g;
    g.extent = {p.dim[0], p.dim[1], p.dim[2]};
    g.block_tile = {out_x(t), out_y(t), zc};
    g.thread_tile = {std::min(cx, out_x(t)), std::min(ry, out_y(t)), zc};   // a thread that owns all it holds
    g.halo = t;   // the region reaches TSTEPS cells past the outputs on every side
    g.halo_load = HaloLoad::ExtraThreads;
    g.walks_z = true;
    g.time_steps = t;
    return g;
}

CostModel TemporalStencil::cost_model(const Problem& p) const {
    const stencil::Grid g(p);
    const RunCounts run = run_counts(p);
    auto sum = [&](double LaunchCounts::*field) { return run.sum(field); };
    const double cells = g.points(), cell_steps = cells * steps;
    const double computed = sum(&LaunchCounts::computed);

    CostModel m;
    m.flops = stencil::kFlopsPerOutput * g.interior() * steps;
    m.total = {sum(&LaunchCounts::loads), sum(&LaunchCounts::stores), sum(&LaunchCounts::shared_loads),
               sum(&LaunchCounts::shared_stores)};
    // A whole block of a full launch in the middle of the grid: its region of W·H cells (W = 32·CX)
    // for ZC + 2·TSTEPS planes; level l evaluated on ZC + 2(TSTEPS − l) planes.
    const double level_planes = double(t) * zc + double(t) * (t - 1);   // Σ_{l=1..T} (ZC + 2(T−l))
    const double down_planes = double(t) * zc + double(t) * (t + 1);    // Σ_{l=0..T−1} (ZC + 2(T−l))
    const double w = columns(), edge = 2.0 * w * (ty - 1);
    m.per_block = {w * rows() * (zc + 2 * t), double(out_x(t)) * out_y(t) * zc, edge * level_planes, edge * down_planes};
    // A thread of a middle thread row that owns all its RY·CX cells.
    m.per_thread = {double(ry) * cx * (zc + 2 * t), double(ry) * cx * zc, ty > 1 ? 2.0 * cx * level_planes : 0.0,
                    ty > 1 ? 2.0 * cx * down_planes : 0.0};
    stencil::finish_cost_model(m, g);
    // DRAM, for a grid larger than L2 (the compulsory bytes stay the input read once and the
    // output written once: a small grid's intermediates can stay in L2): each launch writes every
    // cell once and reads every cell once, the halo columns and rows neighbouring blocks share
    // from L2 (they run side by side); but the 2·TSTEPS planes a block reads beyond its own along
    // z are read again from DRAM: the block that shares them is a whole x-y layer of blocks away
    // in the launch order. Ideal: 8 bytes a cell a launch.
    const double dram_reads = sum(&LaunchCounts::planes_loaded) * double(p.dim[0]) * double(p.dim[1]);
    const double dram = 4.0 * dram_reads + 4.0 * cells * launches(), ideal = 8.0 * cells * launches();

    m.formulas = {
        {"launches", "⌊STEPS/TSTEPS⌋ + (1 if STEPS mod TSTEPS > 0)", double(launches())},
        {"outputs / block", "(32·CX − 2·TSTEPS)·(TY·RY − 2·TSTEPS)·ZC", m.per_block.global_stores},
        {"blocks / launch", "⌈Nx/(32·CX−2T)⌉·⌈Ny/(TY·RY−2T)⌉·⌈Nz/ZC⌉", run.full.blocks},
        {"FLOPs", "13·(Nx−2)·(Ny−2)·(Nz−2)·STEPS", m.flops},
        {"global loads / block", "32·CX·TY·RY·(ZC + 2·TSTEPS) (the region, TSTEPS planes either side)", m.per_block.global_loads},
        {"global loads (total)", "Σ launches: region cells in the grid × planes [zs−T, ze+T) in the grid", m.total.global_loads},
        {"global stores (total)", "Nx·Ny·Nz·launches (each cell once a launch)", m.total.global_stores},
        {"shared stores / block", "64·CX·(TY−1)·Σ_{l=0..T−1}(ZC + 2(T−l)) (edge rows, levels below T)", m.per_block.shared_stores},
        {"shared loads / block", "64·CX·(TY−1)·Σ_{l=1..T}(ZC + 2(T−l)) (edge rows read back)", m.per_block.shared_loads},
        {"shared loads (total)", "Σ launches and blocks of the above, z windows cut at the grid", m.total.shared_loads},
        {"shared stores (total)", "Σ launches and blocks of the above, z windows cut at the grid", m.total.shared_stores},
    };
    stencil::add_common_formulas(m);
    for (Formula& f : m.extras)   // the one-sweep bound, TSTEPS sweeps a load
        if (f.quantity == "OP/B upper bound")
            f = {"OP/B upper bound", "13·TSTEPS / 4: each input loaded once per TSTEPS updates (tile → ∞)", 13.0 * t / 4};
    m.extras.insert(m.extras.begin(), {
        {"DRAM bytes / cell-step (model)", "(4·Nx·Ny·Σ planes read + 4·Nx·Ny·Nz·launches) / (Nx·Ny·Nz·STEPS), grid > L2",
         dram / cell_steps},
        {"DRAM bytes / cell-step (ideal)", "8·launches / STEPS (each launch reads and writes each cell once)", ideal / cell_steps},
        {"global bytes / cell-step", "4·(loads + stores) / (Nx·Ny·Nz·STEPS)", m.global_bytes / cell_steps},
        {"recompute fraction", "1 − Nx·Ny·Nz·STEPS / cell-updates evaluated", 1.0 - cell_steps / computed},
        {"cell-updates evaluated", "Σ launches, blocks: 32·CX·TY·RY per level-plane", computed},
        {"FLOPs executed", "13 · cell-updates evaluated (the ring's recompute included)", stencil::kFlopsPerOutput * computed},
        {"shuffles (total)", "2 a thread and row per level-plane (x−1 of its first column, x+1 of its last): 2/CX per cell-update", sum(&LaunchCounts::shuffles)},
        {"shared memory / block (bytes)", "2 arrays · TSTEPS · 2 parities · TY · 32·CX · 4", double(smem_bytes())},
        {"threads / block", "32·TY", 32.0 * ty},
        {"blocks inside the grid / launch",
         "blocks whose region lies in [1, Nx−1)·[1, Ny−1): they compute every cell, no boundary select", run.full.interior_blocks},
        {"blocks at the x edge only / launch",
         "blocks whose rows lie in [1, Ny−1) but not their columns in [1, Nx−1): at CX = 2, a select by column",
         run.full.edge_x_blocks},
        {"time steps a DRAM pass", "TSTEPS", double(t)},
    });
    return m;
}

// The edge rows: a warp stores or reads 32 consecutive floats of one thread row's slot, column c
// of its threads (one wavefront), CX times, whatever the level and parity (which shift the slot
// by whole rows of 32 words).
std::vector<SharedAccessSite> TemporalStencil::shared_sites(const Problem& p) const {
    if (!invalid_reason(p, Target{}).empty() || ty < 2) return {};
    const RunCounts run = run_counts(p);
    const std::vector<double> down = {cx * run.sum(&LaunchCounts::level_planes_down)};
    const std::vector<double> up = {cx * run.sum(&LaunchCounts::level_planes_up)};
    const int threads = 32 * ty, rows_of_threads = ty, words_a_row = 32 * cx;
    auto site = [&](const char* name, bool store, const std::vector<double>& weights, bool first) {
        return stencil::float_site(name, first ? "word = (ty·CX + c)·32 + lane, thread rows 1 … TY−1" : "word = (ty·CX + c)·32 + lane, thread rows 0 … TY−2",
                                   store, threads, weights, [rows_of_threads, words_a_row, first, store](int, int thread) -> int64_t {
                                       const int row = thread / 32, lane = thread % 32;
                                       // Stores: the writer's own row; loads: the row below (first) or above (last).
                                       const int slot = store ? row : first ? row + 1 : row - 1;
                                       const bool used = store ? (first ? row > 0 : row < rows_of_threads - 1)
                                                               : (first ? row < rows_of_threads - 1 : row > 0);
                                       return used ? int64_t(slot) * words_a_row + lane : -1;   // column c = 0: the others alike
                                   });
    };
    return {site("first row store", true, down, true), site("last row store", true, down, false),
            site("first row read (y+1)", false, up, true), site("last row read (y−1)", false, up, false)};
}

}  // namespace

TILELAB_VARIANT(make_temporal_stencil, TemporalStencil,
                {.id = "stencil.temporal", .family = "stencil",
                 .params = {
                     {.name = "TSTEPS", .kind = ParamKind::Int, .min = 1, .max = 8, .def = 3},
                     {.name = "STEPS", .kind = ParamKind::Int, .min = 1, .max = 256, .def = 64, .tuned = false},
                     {.name = "TY", .kind = ParamKind::Int, .min = 1, .max = 32, .def = 4},
                     {.name = "RY", .kind = ParamKind::Int, .min = 1, .max = 8, .def = 8},
                     {.name = "CX", .kind = ParamKind::Int, .min = 1, .max = 2, .def = 1},
                     {.name = "ZC", .kind = ParamKind::Int, .min = 1, .max = 1024, .def = 64},
                     {.name = "AHEAD", .kind = ParamKind::Int, .min = 1, .max = 4, .def = 1},
                 }})

}  // namespace tilelab
