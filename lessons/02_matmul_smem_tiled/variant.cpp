// The shared-memory tiled matmul variant as data: parameters, constraints, launch shape and cost
// model of kernels/matmul/smem_tiled.cuh. A TILE×TILE block stages tiles of A and B in shared
// memory so that each element loaded from global memory is used TILE times.
#include <fmt/format.h>
#include <cstdint>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/matmul/model.h"

namespace tilelab {
namespace {

// kernels/matmul/smem_tiled.cuh at one set of parameter values.
struct SmemTiled {
    int tile = 16;   // <- TILE: edge of the block and of both shared tiles
    int pad = 0;     // <- PAD: extra columns per shared row (0 or 1)

    static inline const std::vector<ParamSpec> params = {
        {.name = "TILE", .kind = ParamKind::Int, .min = 4, .max = 32, .step = 4, .def = 16},
        {.name = "PAD", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 0},
    };
    static SmemTiled from(const ParamReader& p) { return {.tile = p["TILE"], .pad = p.flag("PAD") ? 1 : 0}; }
    int threads() const { return tile * tile; }
    int smem_bytes() const { return 2 * tile * (tile + pad) * int(sizeof(float)); }

    std::string invalid_reason(const Problem& problem, const Target& target) const;
    KernelInstance kernel() const;
    // One TILE×TILE block per tile of C: x along its N columns, y along its M rows.
    LaunchShape launch(const Problem& p) const {
        return {.grid = {unsigned(ceil_div(p.dim[1], tile)), unsigned(ceil_div(p.dim[0], tile)), 1},
                .block = {unsigned(tile), unsigned(tile), 1}};
    }
    TileGeometry tiles(const Problem& problem) const;
    CostModel cost_model(const Problem& problem) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& problem) const;
};

std::string SmemTiled::invalid_reason(const Problem& problem, const Target& target) const {
    const SmemTiled& s = *this;
    if (s.threads() > target.max_threads_per_block)
        return trf("constraint.matmul.smem_tiled.tile_needs_threads_one",
            s.tile, s.threads(), target.max_threads_per_block);
    if (s.smem_bytes() > target.smem_per_block)
        return trf("constraint.matmul.smem_tiled.two_tiles_floats_take",
            s.tile, s.tile + s.pad, s.smem_bytes(), target.name, target.smem_per_block);
    const int64_t blocks_y = ceil_div(problem.dim[0], s.tile);
    if (blocks_y > target.max_grid_dim[1])
        return trf("constraint.matmul.smem_tiled.covering_rows_with_row",
            problem.dim[0], s.tile, blocks_y, target.max_grid_dim[1]);
    return "";
}

KernelInstance SmemTiled::kernel() const {
    return {"matmul/smem_tiled.cuh", fmt::format("smem_tiled_matmul<{}, {}>", tile, pad)};
}

// A TILE×TILE tile of C per block, one output per thread; each k-step stages a TILE×TILE tile of A
// and of B in shared memory.
TileGeometry SmemTiled::tiles(const Problem& problem) const {
    const SmemTiled& s = *this;
    TileGeometry t;
    t.extent = {problem.dim[1], problem.dim[0], 1};
    t.block_tile = {s.tile, s.tile, 1};
    t.reduction = problem.dim[2];
    t.k_step = s.tile;
    t.a_in_shared = t.b_in_shared = true;
    return t;
}

CostModel SmemTiled::cost_model(const Problem& problem) const {
    const SmemTiled& s = *this;
    const int64_t Mi = problem.dim[0], Ni = problem.dim[1], Ki = problem.dim[2];
    const double M = double(Mi), N = double(Ni), K = double(Ki), T = s.tile;
    const double blocks_x = double(ceil_div(Ni, s.tile));   // ⌈N/T⌉ blocks along a row of C
    const double blocks_y = double(ceil_div(Mi, s.tile));   // ⌈M/T⌉ blocks along a column of C
    const double k_tiles = double(ceil_div(Ki, s.tile));    // ⌈K/T⌉ steps along K
    const double blocks = blocks_x * blocks_y;

    CostModel m;
    // One thread, at (0,0) of a full block: per k-tile one element of A and one of B, each
    // stored to shared memory; then 2·T shared reads for T multiply-adds.
    m.per_thread = {2 * k_tiles, 1, 2 * T * k_tiles, 2 * k_tiles};
    // A full block: T rows of A and T columns of B, each read once, whole (K elements).
    m.per_block = {2 * T * K, T * T, 2 * T * T * T * k_tiles, 2 * T * T * k_tiles};
    // Exact for any M, N, K: out-of-range elements are never loaded, so every element of A is
    // loaded once by each of the ⌈N/T⌉ block columns and every element of B once by each of the
    // ⌈M/T⌉ block rows. Shared accesses are issued by every thread of every block, including the
    // threads past the edge of C (they still fill tiles and pass the barriers).
    const double a_loads = M * K * blocks_x;
    const double b_loads = K * N * blocks_y;
    m.total = {a_loads + b_loads, M * N, blocks * T * T * k_tiles * 2 * T, blocks * T * T * k_tiles * 2};
    matmul::finish_cost_model(m, problem);   // flops, global bytes, intensity, compulsory bytes

    m.formulas = {
        {"tile edge T", "TILE", T},
        {"FLOPs", "2·M·N·K", m.flops},
        {"global loads / thread", "2·⌈K/T⌉", m.per_thread.global_loads},
        {"shared loads / thread", "2·T·⌈K/T⌉", m.per_thread.shared_loads},
        {"shared stores / thread", "2·⌈K/T⌉", m.per_thread.shared_stores},
        {"global loads / block", "2·T·K", m.per_block.global_loads},
        {"global loads of A (total)", "M·K·⌈N/T⌉", a_loads},
        {"global loads of B (total)", "K·N·⌈M/T⌉", b_loads},
        {"global loads (total)", "M·K·⌈N/T⌉ + K·N·⌈M/T⌉  (= 2·M·N·K/T when T divides M and N)",
         m.total.global_loads},
        {"global stores (total)", "M·N", m.total.global_stores},
        {"shared loads (total)", "⌈N/T⌉·⌈M/T⌉·T²·⌈K/T⌉·2·T", m.total.shared_loads},
        {"shared stores (total)", "⌈N/T⌉·⌈M/T⌉·T²·⌈K/T⌉·2", m.total.shared_stores},
        {"global bytes", "4·(global loads + global stores)", m.global_bytes},
        {"arithmetic intensity (FLOP/B)", "2·M·N·K / global bytes ≈ T/4", m.intensity},
        {"compulsory bytes", "4·(M·K + K·N + M·N)", m.compulsory_bytes},
    };
    m.extras = {
        {"loads of each A element", "⌈N/T⌉", blocks_x},
        {"loads of each B element", "⌈M/T⌉", blocks_y},
        {"shared memory / block (bytes)", "2·T·(T + PAD)·4", double(s.smem_bytes())},
        {"global bytes / compulsory bytes", "global bytes / (4·(M·K + K·N + M·N))",
         m.global_bytes / m.compulsory_bytes},
    };
    return m;
}

// The kernel's shared accesses. Thread t is (tx, ty) = (t mod T, t / T); a row of a tile is
// T + PAD floats. Two 4-byte stores and T 4-byte reads of b_tile; the T reads of a_tile[ty][k]
// are merged by the compiler into float4 reads where a row starts 16-byte aligned (PAD=0), else
// stay scalar (SharedSiteBuilder's rule; at 2048³ the H100 counts 5/8 of the all-scalar shared-load
// instructions at PAD=0 and all of them at PAD=1). Every thread issues them at every k-tile, so
// all blocks and k-tiles look the same.
std::vector<SharedAccessSite> SmemTiled::shared_sites(const Problem& problem) const {
    const SmemTiled& s = *this;
    const int T = s.tile, L = s.tile + s.pad;
    const double repeats = double(ceil_div(problem.dim[1], T)) * double(ceil_div(problem.dim[0], T)) *
                           double(ceil_div(problem.dim[2], T));
    auto site = [&](std::string name, std::string formula, bool store, int instances, auto word) {
        SharedAccessSite a;
        a.name = std::move(name);
        a.formula = std::move(formula);
        a.store = store;
        a.threads = s.threads();
        a.instances = instances;
        a.repeats = repeats;
        a.byte_address = [T, word](int k, int t) { return int64_t(4) * word(t % T, t / T, k); };
        return a;
    };
    std::vector<SharedAccessSite> out = {
        site("a_tile[ty][tx] = a", "word = ty·(T+PAD) + tx", true, 1, [L](int tx, int ty, int) { return ty * L + tx; }),
        site("b_tile[ty][tx] = b", "word = ty·(T+PAD) + tx", true, 1, [L](int tx, int ty, int) { return ty * L + tx; }),
    };
    SharedSiteBuilder a_read("a_tile[ty][k]", "word = ty·(T+PAD) + k,  k = 0..T−1", false);
    a_read.run([T, L](int t) { return int64_t(t / T) * L; }, 0, T, pow2_alignment(L));
    a_read.add_to(out, s.threads(), repeats);
    out.push_back(site("b_tile[k][tx]", "word = k·(T+PAD) + tx,  k = 0..T−1", false, T, [L](int tx, int, int k) { return k * L + tx; }));
    return out;
}

}  // namespace

TILELAB_VARIANT(make_smem_tiled_matmul, SmemTiled,
                {.id = "matmul.smem_tiled", .family = "matmul", .params = SmemTiled::params})

}  // namespace tilelab
