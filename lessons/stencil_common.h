// What the four stencil variants (lessons 06–09) share on the host: the grid's counts, the way
// tiled kernels cover an axis, and the checks every variant makes. Formulas here are the ones the
// cost models show; tests/cpu/test_stencil_models.cpp checks them against a walk of each kernel.
#pragma once
#include <fmt/format.h>
#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include "tilelab/variant.h"

namespace tilelab::stencil {

// 7 multiplies and 6 adds per interior output (kernels/stencil/stencil_common.cuh).
constexpr double kFlopsPerOutput = 13;
// Seven 4-byte inputs per output when nothing is reused: PMPP's basic ratio 13 / 28.
constexpr double kBytesPerInput = 4;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Grid {
    int64_t nx, ny, nz;
    explicit Grid(const Problem& p) : nx(p.dim[0]), ny(p.dim[1]), nz(p.dim[2]) {}
    double points() const { return double(nx) * double(ny) * double(nz); }
    // Cells with no coordinate on the grid's faces: they get the stencil.
    double interior() const { return double(nx - 2) * double(ny - 2) * double(nz - 2); }
    // Cells on the faces: boundary conditions, copied from in to out.
    double boundary() const { return points() - interior(); }
    // Boundary cells of one x-y plane (its edge ring).
    double plane_ring() const { return double(nx) * double(ny) - double(nx - 2) * double(ny - 2); }
};

// Tiles of `tile` cells along an axis of n cells, stepping by tile−2 (a one-cell halo each side):
// G = ⌈(n−2)/(tile−2)⌉ tiles cover the n−2 interior cells.
inline int64_t tiles_along(int64_t n, int tile) { return ceil_div(n - 2, tile - 2); }

// Cells of those tiles that lie inside the grid, summed over the tiles: n + 2·(G−1).
// Every tile but the last is whole; the tiles overlap by two cells at each of the G−1 seams.
inline double tile_cells_in_grid(int64_t n, int tile) { return double(n + 2 * (tiles_along(n, tile) - 1)); }

// One sentence if a grid is too small for a 7-point stencil, else "".
inline std::string grid_too_small_reason(const Problem& p) {
    static const char* const names[3] = {"Nx", "Ny", "Nz"};
    for (int i = 0; i < 3; ++i)
        if (p.dim[i] < 3)
            return fmt::format("{} is {}, but a 7-point stencil needs at least 3 cells along each axis "
                               "(one interior cell between two boundary cells).",
                               names[i], p.dim[i]);
    return "";
}

// One sentence if the grid of blocks exceeds the target's launch limits, else "".
inline std::string grid_limit_reason(const std::array<int64_t, 3>& blocks, const Target& t) {
    static const char* const axes[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i)
        if (blocks[i] > t.max_grid_dim[i])
            return fmt::format("The launch needs {} blocks along {}, but a grid may have at most {} there.",
                               blocks[i], axes[i], t.max_grid_dim[i]);
    return "";
}

// One sentence if a block has too many threads or too long a side for the target, else "".
inline std::string block_limit_reason(const std::array<int64_t, 3>& block, const std::string& what,
                                      const Target& t) {
    const int64_t threads = block[0] * block[1] * block[2];
    if (threads > t.max_threads_per_block)
        return fmt::format("{} needs {} threads, but a block may have at most {}.", what, threads,
                           t.max_threads_per_block);
    static const char* const axes[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i)
        if (block[i] > t.max_block_dim[i])
            return fmt::format("{} is {} threads long in {}, but a block may be at most {} long there.",
                               what, block[i], axes[i], t.max_block_dim[i]);
    return "";
}

// One sentence if the kernel's static shared memory exceeds the target's per-block limit, else "".
inline std::string smem_limit_reason(int bytes, const std::string& what, const Target& t) {
    if (bytes > t.smem_per_block)
        return fmt::format("{} takes {} bytes of shared memory, but {} allows {} per block.", what, bytes,
                           t.name, t.smem_per_block);
    return "";
}

// Fills the fields every stencil cost model derives the same way from flops and totals.
inline void finish_cost_model(CostModel& m, const Grid& g) {
    m.global_bytes = 4 * (m.total.global_loads + m.total.global_stores);
    m.intensity = m.flops / m.global_bytes;
    m.compulsory_bytes = 8 * g.points();  // every cell read once and written once
}

// The formulas at the end of every stencil model's list.
inline void add_common_formulas(CostModel& m) {
    m.formulas.push_back({"global bytes", "4·(global loads + global stores)", m.global_bytes});
    m.formulas.push_back({"arithmetic intensity (FLOP/B)", "FLOPs / global bytes (whole launch, exact)", m.intensity});
    m.formulas.push_back({"compulsory bytes", "8·Nx·Ny·Nz (read each cell once, write it once)", m.compulsory_bytes});
    m.extras.push_back({"global bytes / compulsory bytes", "global bytes / (8·Nx·Ny·Nz)",
                        m.global_bytes / m.compulsory_bytes});
    m.extras.push_back({"OP/B upper bound", "13 / 4: each input loaded once per output (tile → ∞, PMPP)",
                        kFlopsPerOutput / kBytesPerInput});
}

}  // namespace tilelab::stencil

namespace tilelab::stencil {

// The coarsened and register-tiled kernels: a TX×TY block (the book's T×T) covers a TX×TY input
// tile in x-y and walks Z output planes along z, loading Z+2 input planes.
struct PlaneWalkShape {
    int tx, ty, z;
    explicit PlaneWalkShape(const ParamValues& p) : tx(p.at("TX")), ty(p.at("TY")), z(p.at("Z")) {}
    int threads() const { return tx * ty; }
    std::array<int64_t, 3> blocks(const Problem& p) const {
        return {tiles_along(p.dim[0], tx), tiles_along(p.dim[1], ty), ceil_div(p.dim[2] - 2, z)};
    }
    LaunchShape launch(const Problem& p) const {
        const auto b = blocks(p);
        LaunchShape shape;
        shape.block = {unsigned(tx), unsigned(ty), 1};
        shape.grid = {unsigned(b[0]), unsigned(b[1]), unsigned(b[2])};
        return shape;
    }
    // Input planes loaded, summed over the blocks along z: every block loads its Z (or fewer)
    // output planes plus the two around them, so nz − 2 + 2·Gz.
    double planes_loaded(int64_t nz) const { return double(nz - 2 + 2 * ceil_div(nz - 2, z)); }
    // PMPP's per-block ratio: 13 FLOPs per output over 4 bytes per input loaded (stores not counted).
    double pmpp_op_per_byte() const {
        return kFlopsPerOutput * (tx - 2) * (ty - 2) * z / (kBytesPerInput * tx * ty * (z + 2));
    }
    double halo_fraction() const { return 1.0 - double(tx - 2) * (ty - 2) * z / (double(tx) * ty * (z + 2)); }
};

inline std::string plane_walk_invalid_reason(const PlaneWalkShape& s, int smem_bytes, const std::string& smem_what,
                                             const Problem& problem, const Target& target) {
    if (auto r = grid_too_small_reason(problem); !r.empty()) return r;
    const std::string what = fmt::format("A {}×{} tile (one thread per input column)", s.tx, s.ty);
    if (auto r = block_limit_reason({s.tx, s.ty, 1}, what, target); !r.empty()) return r;
    if (auto r = smem_limit_reason(smem_bytes, smem_what, target); !r.empty()) return r;
    return grid_limit_reason(s.blocks(problem), target);
}

// Parameters of the two plane-walking kernels.
inline std::vector<ParamSpec> plane_walk_params() {
    return {
        {"TX", "Tile width (x)", ParamKind::Int, 3, 128, 1, 32,
         "Input tile width, threads along x: the block writes TX−2 columns, so wider tiles waste less on the x halo "
         "and a warp reads longer contiguous runs. TX = TY = T is the book's T×T."},
        {"TY", "Tile height (y)", ParamKind::Int, 3, 64, 1, 32,
         "Input tile height, threads along y: TY−2 output rows; TX·TY threads per block must stay within the limit."},
        {"Z", "Output planes per block (z)", ParamKind::Int, 1, 64, 1, 32,
         "How far one block walks along z: each block also loads the two planes around its Z, so larger Z "
         "wastes less, but fewer blocks share the work."},
    };
}

// The two plane-walking kernels load and store exactly the same global data (they differ only in
// what sits in shared memory), so their global formulas and tile extras are written once here.
inline std::vector<Formula> plane_walk_global_formulas(const PlaneWalkShape& s, const Problem& problem,
                                                       const CostModel& m) {
    const auto blocks = s.blocks(problem);
    return {
        {"tiles along x", "Gx = ⌈(Nx−2)/(TX−2)⌉", double(blocks[0])},
        {"tiles along y", "Gy = ⌈(Ny−2)/(TY−2)⌉", double(blocks[1])},
        {"blocks along z", "Gz = ⌈(Nz−2)/Z⌉", double(blocks[2])},
        {"FLOPs", "13·(Nx−2)·(Ny−2)·(Nz−2)", m.flops},
        {"global loads / thread", "Z + 2 (its column of Z+2 input planes)", m.per_thread.global_loads},
        {"global loads / block", "TX·TY·(Z+2)", m.per_block.global_loads},
        {"outputs / block", "(TX−2)·(TY−2)·Z", double(s.tx - 2) * (s.ty - 2) * s.z},
        {"global loads (total)", "(Nx + 2(Gx−1))·(Ny + 2(Gy−1))·(Nz − 2 + 2·Gz)", m.total.global_loads},
        {"global stores (total)", "Nx·Ny·Nz (each cell once)", m.total.global_stores},
    };
}

// PMPP's ratio, the halo fraction, the kernel's shared memory and the block size, first in the extras.
inline void add_plane_walk_extras(CostModel& m, const PlaneWalkShape& s, const std::string& op_per_byte_note,
                                  const std::string& smem_expression, int smem_bytes) {
    m.extras.insert(m.extras.begin(),
                    {{"OP/B, PMPP per-block ratio", "13·(TX−2)(TY−2)·Z / (4·TX·TY·(Z+2))  " + op_per_byte_note,
                      s.pmpp_op_per_byte()},
                     {"halo fraction of the input tile", "1 − (TX−2)(TY−2)·Z / (TX·TY·(Z+2))", s.halo_fraction()},
                     {"shared memory / block (bytes)", smem_expression, double(smem_bytes)},
                     {"threads / block", "TX·TY", double(s.threads())}});
}

}  // namespace tilelab::stencil
