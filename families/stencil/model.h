// What the four stencil variants (lessons 08–11) share on the host: the grid's counts, the way
// tiled kernels cover an axis, and the checks every variant makes. Formulas here are the ones the
// cost models show; tests/cpu/test_stencil_models.cpp checks them against a walk of each kernel.
#pragma once
#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab::stencil {

// 7 multiplies and 6 adds per interior output (kernels/stencil/stencil_common.cuh).
constexpr double kFlopsPerOutput = 13;
// Seven 4-byte inputs per output when nothing is reused: PMPP's basic ratio 13 / 28.
constexpr double kBytesPerInput = 4;

// The order-r star stencil (the basic and shared-tiled kernels' RADIUS): r cells each way along
// each axis. r = 1 is the 7-point stencil above, r = 2 the 13-point one.
inline int star_points(int r) { return 6 * r + 1; }
inline double star_flops(int r) { return 2.0 * star_points(r) - 1; }   // P multiplies, P − 1 adds

// The RADIUS parameter of the basic and shared-tiled kernels.
inline ParamSpec radius_param() {
    return {.name = "RADIUS", .kind = ParamKind::Int, .min = 1, .max = 2, .def = 1};
}

struct Grid {
    int64_t nx, ny, nz;
    int r = 1;   // the stencil's order: the boundary is r cells deep
    explicit Grid(const Problem& p, int radius = 1) : nx(p.dim[0]), ny(p.dim[1]), nz(p.dim[2]), r(radius) {}
    double points() const { return double(nx) * double(ny) * double(nz); }
    // Cells at least r from every face: they get the stencil.
    double interior() const { return double(nx - 2 * r) * double(ny - 2 * r) * double(nz - 2 * r); }
    // Cells on the faces: boundary conditions, copied from in to out.
    double boundary() const { return points() - interior(); }
    // Boundary cells of one x-y plane (its edge ring).
    double plane_ring() const { return double(nx) * double(ny) - double(nx - 2) * double(ny - 2); }
};

// Tiles of `tile` cells along an axis of n cells, stepping by tile−2r (an r-cell halo each side):
// G = ⌈(n−2r)/(tile−2r)⌉ tiles cover the n−2r interior cells.
inline int64_t tiles_along(int64_t n, int tile, int r = 1) { return ceil_div(n - 2 * r, tile - 2 * r); }

// Cells of those tiles that lie inside the grid, summed over the tiles: n + 2r·(G−1).
// Every tile but the last is whole; the tiles overlap by 2r cells at each of the G−1 seams.
inline double tile_cells_in_grid(int64_t n, int tile, int r = 1) {
    return double(n + 2 * r * (tiles_along(n, tile, r) - 1));
}

// One sentence if a grid is too small for an order-r stencil, else "".
inline std::string grid_too_small_reason(const Problem& p, int r = 1) {
    static const char* const names[3] = {"Nx", "Ny", "Nz"};
    for (int i = 0; i < 3; ++i)
        if (p.dim[i] < 2 * r + 1)
            return trf("family.stencil.model.but_point_stencil_needs",
                names[i], p.dim[i], star_points(r), 2 * r + 1, r);
    return "";
}

// The target's launch limits (threads per block, block and grid sides, shared memory per block)
// are not checked here: the engine checks them for every variant (generic_invalid_reason in
// engine/src/host/engine.cpp), each with one sentence.

// Fills the fields every stencil cost model derives the same way from flops and totals.
inline void finish_cost_model(CostModel& m, const Grid& g) {
    m.set_element_types({});   // FP32 throughout
    m.intensity = m.flops / m.global_bytes;
    m.compulsory_bytes = m.load_bytes(g.points()) + m.store_bytes(g.points());  // every cell read once and written once
}

// The formulas at the end of every stencil model's list (r: the stencil's order).
inline void add_common_formulas(CostModel& m, int r = 1) {
    m.formulas.push_back({"global bytes", "4·(global loads + global stores)", m.global_bytes});
    m.formulas.push_back({"arithmetic intensity (FLOP/B)", "FLOPs / global bytes (whole launch, exact)", m.intensity});
    m.formulas.push_back({"compulsory bytes", "8·Nx·Ny·Nz (read each cell once, write it once)", m.compulsory_bytes});
    m.extras.push_back({"global bytes / compulsory bytes", "global bytes / (8·Nx·Ny·Nz)",
                        m.global_bytes / m.compulsory_bytes});
    if (r == 1) {
        m.extras.push_back({"OP/B upper bound", "13 / 4: each input loaded once per output (tile → ∞, PMPP)",
                            kFlopsPerOutput / kBytesPerInput});
        return;
    }
    m.extras.push_back({"OP/B upper bound", "(12·R + 1) / 4: each input loaded once per output (tile → ∞)",
                        star_flops(r) / kBytesPerInput});
}

}  // namespace tilelab::stencil

namespace tilelab::stencil {

// The coarsened and register-tiled kernels: a TX×TY block walks Z output planes along z. Each
// thread looks after RY rows, so the tile is TX × R with R = TY·RY (the book: RY = 1, TX = TY = T).
// The register-tiled kernel's VX (1 elsewhere) gives a thread VX consecutive columns of each row:
// its block is TX/VX × TY threads for the same TX-wide tile.
// HALO = 0 puts the halo inside the tile (the book's input tile, outputs (TX−2)×(R−2)); HALO = 1
// puts it around the tile (outputs TX×R, the 2·TX + 2·R halo cells loaded on top, one per thread).
// kernels/stencil/stencil_common.cuh (PlaneTile) has the kernel side.
struct PlaneWalkShape {
    int tx, ty, ry, z;
    bool around;
    int vx;
    explicit PlaneWalkShape(const ParamReader& p)
        : tx(p["TX"]), ty(p["TY"]), ry(p.get("RY", 1)), z(p["Z"]), around(p.get("HALO", 0) != 0), vx(p.get("VX", 1)) {}
    int rows() const { return ty * ry; }
    int threads_x() const { return tx / vx; }
    int threads() const { return threads_x() * ty; }
    // Columns between a shared row's start and the tile: 1 around (the halo column) at VX = 1, VX
    // around otherwise (pieces stay VX-aligned), 0 inside.
    int pad() const { return around ? vx : 0; }
    // Threads that load a piece of the halo each output plane: a row above and below in pieces of
    // VX cells, a column each side one cell a thread.
    int halo_pieces() const { return around ? 2 * threads_x() + 2 * rows() : 0; }
    // Outputs of a whole tile per plane, and halo cells loaded on top of the tile per output plane.
    double tile_outputs() const { return around ? double(tx) * rows() : double(tx - 2) * (rows() - 2); }
    double tile_cells() const { return double(tx) * rows(); }
    double halo_cells() const { return around ? 2.0 * tx + 2.0 * rows() : 0.0; }
    int shared_plane_floats() const { return around ? (tx + 2 * pad()) * (rows() + 2) : tx * rows(); }
    // The kernel template's arguments, in the order both kernels declare them.
    std::string template_args() const { return fmt::format("{}, {}, {}, {}, {}", tx, ty, ry, z, around ? "true" : "false"); }
    std::array<int64_t, 3> blocks(const Problem& p) const {
        const int64_t gz = ceil_div(p.dim[2] - 2, z);
        if (around) return {ceil_div(p.dim[0], tx), ceil_div(p.dim[1], rows()), gz};
        return {tiles_along(p.dim[0], tx), tiles_along(p.dim[1], rows()), gz};
    }
    // The tile as the Tiles panel draws it; `shared_planes` is how many planes the kernel keeps in
    // shared memory (three for the coarsened kernel, one for the register-tiled one).
    TileGeometry tiles(const Problem& p, int shared_planes) const {
        TileGeometry t;
        t.halo = 1;
        t.walks_z = true;
        // Outputs of the busiest thread: its RY rows, less the halo rows among them when the
        // halo is inside a tile fewer than three threads tall.
        t.thread_tile = {vx, around ? ry : ry - std::max(0, 3 - ty), z};
        t.shared_planes = shared_planes;
        if (around) {
            t.extent = {p.dim[0], p.dim[1], p.dim[2] - 2};
            t.block_tile = {tx, rows(), z};
            t.halo_load = HaloLoad::OnTop;
            t.shared_plane = {tx + 2 * pad(), rows() + 2};
        } else {
            t.extent = {p.dim[0] - 2, p.dim[1] - 2, p.dim[2] - 2};
            t.block_tile = {tx - 2, rows() - 2, z};
            t.halo_load = HaloLoad::ExtraThreads;
            t.shared_plane = {tx, rows()};
        }
        return t;
    }
    LaunchShape launch(const Problem& p) const {
        const auto b = blocks(p);
        LaunchShape shape;
        shape.block = {unsigned(threads_x()), unsigned(ty), 1};
        shape.grid = {unsigned(b[0]), unsigned(b[1]), unsigned(b[2])};
        return shape;
    }
    // Input planes loaded, summed over the blocks along z: every block loads its Z (or fewer)
    // output planes plus the two around them, so nz − 2 + 2·Gz.
    double planes_loaded(int64_t nz) const { return double(nz - 2 + 2 * ceil_div(nz - 2, z)); }
    // Tile cells inside the grid, summed over one plane of blocks. Inside: tiles overlap by two
    // cells at each seam, (Nx + 2(Gx−1))·(Ny + 2(Gy−1)). Around: tiles partition the plane.
    double tile_cells_per_plane(const Problem& p) const {
        if (around) return double(p.dim[0]) * double(p.dim[1]);
        return tile_cells_in_grid(p.dim[0], tx) * tile_cells_in_grid(p.dim[1], rows());
    }
    // Halo cells inside the grid, summed over one plane of blocks (around only): a block has a
    // halo row above unless it is first along y and one below unless it is last, each as wide as
    // its tile is inside the grid; likewise for columns: 2·Nx·(Gy−1) + 2·Ny·(Gx−1).
    double halo_cells_per_plane(const Problem& p) const {
        if (!around) return 0;
        const auto b = blocks(p);
        return 2.0 * double(p.dim[0]) * double(b[1] - 1) + 2.0 * double(p.dim[1]) * double(b[0] - 1);
    }
    // Global loads of the whole launch: tile cells of Z+2 planes per block, halo cells of its Z.
    double global_loads(const Problem& p) const {
        return tile_cells_per_plane(p) * planes_loaded(p.dim[2]) + halo_cells_per_plane(p) * double(p.dim[2] - 2);
    }
    // Per block: what a whole block loads, and its outputs, over its Z planes.
    double block_loads() const { return tile_cells() * (z + 2) + halo_cells() * z; }
    double block_outputs() const { return tile_outputs() * z; }
    // PMPP's per-block ratio: 13 FLOPs per output over 4 bytes per input loaded (stores not counted).
    double pmpp_op_per_byte() const { return kFlopsPerOutput * block_outputs() / (kBytesPerInput * block_loads()); }
    double halo_fraction() const { return 1.0 - block_outputs() / block_loads(); }
};

inline std::string plane_walk_invalid_reason(const PlaneWalkShape& s, const Problem& problem) {
    if (auto r = grid_too_small_reason(problem); !r.empty()) return r;
    if (!s.around && s.rows() < 3)
        return trf("family.stencil.model.with_halo_inside_tile", s.rows());
    if (s.vx > 1) {
        if (!s.around) return trf("family.stencil.model.columns_need_halo_around", s.vx);
        if (s.tx % s.vx != 0) return trf("family.stencil.model.columns_split_tile", s.tx, s.vx);
        if (problem.dim[0] % s.vx != 0) return trf("family.stencil.model.columns_split_rows", s.vx, problem.dim[0]);
    }
    // One thread per halo piece (per halo cell at VX = 1, where TX/VX = TX).
    if (s.around && s.halo_pieces() > s.threads())
        return trf(s.vx > 1 ? "family.stencil.model.with_halo_pieces_around_tile" : "family.stencil.model.with_halo_around_tile",
                   s.halo_pieces(), s.threads_x(), s.ty, s.threads());
    return "";
}

// Parameters of the two plane-walking kernels. The defaults are the book's: halo inside, one row
// per thread; the lessons' last steps switch to the layout that reaches the copy bandwidth.
inline std::vector<ParamSpec> plane_walk_params() {
    return {
        {.name = "TX", .kind = ParamKind::Int, .min = 3, .max = 128, .def = 32},
        {.name = "TY", .kind = ParamKind::Int, .min = 1, .max = 64, .def = 32},
        {.name = "RY", .kind = ParamKind::Int, .min = 1, .max = 8, .def = 1},
        {.name = "Z", .kind = ParamKind::Int, .min = 1, .max = 64, .def = 32},
        {.name = "HALO", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 0},
    };
}

// The two plane-walking kernels load and store exactly the same global data (they differ only in
// what sits in shared memory), so their global formulas and tile extras are written once here.
inline std::vector<Formula> plane_walk_global_formulas(const PlaneWalkShape& s, const Problem& problem,
                                                       const CostModel& m) {
    const auto blocks = s.blocks(problem);
    if (!s.around)
        return {
            {"tiles along x", "Gx = ⌈(Nx−2)/(TX−2)⌉", double(blocks[0])},
            {"tiles along y", "Gy = ⌈(Ny−2)/(TY·RY−2)⌉", double(blocks[1])},
            {"blocks along z", "Gz = ⌈(Nz−2)/Z⌉", double(blocks[2])},
            {"FLOPs", "13·(Nx−2)·(Ny−2)·(Nz−2)", m.flops},
            {"global loads / thread", "RY·(Z + 2) (its RY columns of Z+2 input planes)", m.per_thread.global_loads},
            {"global loads / block", "TX·TY·RY·(Z+2)", m.per_block.global_loads},
            {"outputs / block", "(TX−2)·(TY·RY−2)·Z", s.block_outputs()},
            {"global loads (total)", "(Nx + 2(Gx−1))·(Ny + 2(Gy−1))·(Nz − 2 + 2·Gz)", m.total.global_loads},
            {"global stores (total)", "Nx·Ny·Nz (each cell once)", m.total.global_stores},
        };
    return {
        {"tiles along x", "Gx = ⌈Nx/TX⌉", double(blocks[0])},
        {"tiles along y", "Gy = ⌈Ny/(TY·RY)⌉", double(blocks[1])},
        {"blocks along z", "Gz = ⌈(Nz−2)/Z⌉", double(blocks[2])},
        {"FLOPs", "13·(Nx−2)·(Ny−2)·(Nz−2)", m.flops},
        {"global loads / thread", s.vx > 1 ? "VX·RY·(Z + 2) + VX·Z for a thread that also loads a piece of a halo row"
                                           : "RY·(Z + 2) + Z for a thread that also loads a halo cell",
         m.per_thread.global_loads},
        {"global loads / block", "TX·TY·RY·(Z+2) + (2·TX + 2·TY·RY)·Z", m.per_block.global_loads},
        {"outputs / block", "TX·TY·RY·Z", s.block_outputs()},
        {"global loads (total)", "Nx·Ny·(Nz − 2 + 2·Gz) + (2·Nx·(Gy−1) + 2·Ny·(Gx−1))·(Nz−2)", m.total.global_loads},
        {"global stores (total)", "Nx·Ny·Nz (each cell once)", m.total.global_stores},
    };
}

// PMPP's ratio, the halo fraction, the kernel's shared memory and the block size, first in the extras.
inline void add_plane_walk_extras(CostModel& m, const PlaneWalkShape& s, const std::string& op_per_byte_note,
                                  const std::string& smem_expression, int smem_bytes) {
    const char* ratio = s.around ? "13·TX·R·Z / (4·(TX·R·(Z+2) + (2·TX + 2·R)·Z)), R = TY·RY  "
                                 : "13·(TX−2)(R−2)·Z / (4·TX·R·(Z+2)), R = TY·RY  ";
    const char* halo = s.around ? "1 − TX·R·Z / (TX·R·(Z+2) + (2·TX + 2·R)·Z)" : "1 − (TX−2)(R−2)·Z / (TX·R·(Z+2))";
    m.extras.insert(m.extras.begin(),
                    {{"OP/B, PMPP per-block ratio", ratio + op_per_byte_note, s.pmpp_op_per_byte()},
                     {"halo fraction of the loads", halo, s.halo_fraction()},
                     {"shared memory / block (bytes)", smem_expression, double(smem_bytes)},
                     {"threads / block", s.vx > 1 ? "TX/VX·TY" : "TX·TY", double(s.threads())}});
    m.quoted_intensity = "OP/B, PMPP per-block ratio";
}

}  // namespace tilelab::stencil
