// The naive matmul variant as data: parameters, constraints, launch shape and cost model of
// kernels/matmul/naive.cuh. One thread per element of C; every operand comes from global memory.
#include <fmt/format.h>
#include <cstdint>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/matmul/model.h"

namespace tilelab {
namespace {

// kernels/matmul/naive.cuh at one set of parameter values.
struct Naive {
    int bx = 16, by = 16;   // <- BX, BY: the block's threads along threadIdx.x and .y
    bool swap = false;      // <- SWAP: threadIdx.x walks rows of C instead of columns

    static inline const std::vector<ParamSpec> params = {
        {.name = "BX", .kind = ParamKind::Pow2, .min = 1, .max = 1024, .def = 16},
        {.name = "BY", .kind = ParamKind::Pow2, .min = 1, .max = 1024, .def = 16},
        {.name = "SWAP", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 0},
    };
    static Naive from(const ParamReader& p) { return {.bx = p["BX"], .by = p["BY"], .swap = p.flag("SWAP")}; }
    std::string invalid_reason(const Problem& problem, const Target& target) const;
    KernelInstance kernel() const;
    LaunchShape launch(const Problem& problem) const;
    TileGeometry tiles(const Problem& problem) const;
    CostModel cost_model(const Problem& problem) const;
};

std::string Naive::invalid_reason(const Problem& problem, const Target& target) const {
    const Naive& s = *this;
    const int64_t threads = int64_t(s.bx) * s.by;
    if (threads > target.max_threads_per_block)
        return trf("constraint.matmul.naive.block_has_threads_limit",
            s.bx, s.by, threads, target.max_threads_per_block);
    // threadIdx.y's axis gets blockIdx.y, whose range is far smaller than blockIdx.x's.
    const int64_t along_y = s.swap ? problem.dim[1] : problem.dim[0];
    const int64_t blocks_y = ceil_div(along_y, s.by);
    if (blocks_y > target.max_grid_dim[1])
        return trf("constraint.matmul.naive.covering_with_blocks_high",
            along_y, s.swap ? tr("constraint.matmul.naive.columns") : tr("constraint.matmul.naive.rows"), s.by,
            blocks_y, target.max_grid_dim[1]);
    return "";
}

KernelInstance Naive::kernel() const {
    const Naive& s = *this;
    return {"matmul/naive.cuh", fmt::format("naive_matmul<{}, {}, {}>", s.bx, s.by, s.swap ? 1 : 0)};
}

LaunchShape Naive::launch(const Problem& problem) const {
    const Naive& s = *this;
    const int64_t M = problem.dim[0], N = problem.dim[1];
    // threadIdx.x covers columns (SWAP=0) or rows (SWAP=1); the grid follows the same axes.
    const int64_t along_x = s.swap ? M : N, along_y = s.swap ? N : M;
    LaunchShape shape;
    shape.block = {unsigned(s.bx), unsigned(s.by), 1};
    shape.grid = {unsigned(ceil_div(along_x, s.bx)), unsigned(ceil_div(along_y, s.by)), 1};
    return shape;
}

// One output per thread, every k its own step, both operands read straight from global memory.
TileGeometry Naive::tiles(const Problem& problem) const {
    const Naive& s = *this;
    TileGeometry t;
    t.extent = {problem.dim[1], problem.dim[0], 1};   // C: N columns, M rows
    if (s.swap) {
        // threadIdx.x and the grid's x walk the rows of C.
        t.block_tile = {s.by, s.bx, 1};
        t.grid_axis = {1, 0, 2};
    } else {
        t.block_tile = {s.bx, s.by, 1};
    }
    t.reduction = problem.dim[2];
    t.k_step = 1;
    return t;
}

CostModel Naive::cost_model(const Problem& problem) const {
    const Naive& s = *this;
    const double M = double(problem.dim[0]), N = double(problem.dim[1]), K = double(problem.dim[2]);
    const double threads_per_block = double(s.bx) * s.by;

    CostModel m;
    // Each thread that owns an element of C reads a row of A and a column of B (2·K loads) and
    // writes its element once. Threads outside C return first, so the total has no boundary terms.
    m.per_thread = {2 * K, 1, 0, 0};
    m.per_block = {threads_per_block * 2 * K, threads_per_block, 0, 0};
    m.total = {2 * M * N * K, M * N, 0, 0};
    matmul::finish_cost_model(m, problem);   // flops, global bytes, intensity, compulsory bytes

    m.formulas = {
        {"FLOPs", "2·M·N·K", m.flops},
        {"global loads / thread", "2·K", m.per_thread.global_loads},
        {"global accesses / thread", "2·K + 1", m.per_thread.global_loads + m.per_thread.global_stores},
        {"global loads / block", "BX·BY·2·K", m.per_block.global_loads},
        {"global loads (total)", "2·M·N·K", m.total.global_loads},
        {"global stores (total)", "M·N", m.total.global_stores},
        {"global bytes", "4·(2·M·N·K + M·N)", m.global_bytes},
        {"arithmetic intensity (FLOP/B)", "2·M·N·K / (4·(2·M·N·K + M·N)) ≈ 1/4", m.intensity},
        {"compulsory bytes", "4·(M·K + K·N + M·N)", m.compulsory_bytes},
    };
    m.extras = {
        {"loads of each A element", "N", N},
        {"loads of each B element", "M", M},
        {"global bytes / compulsory bytes", "4·(2·M·N·K + M·N) / (4·(M·K + K·N + M·N))",
         m.global_bytes / m.compulsory_bytes},
    };
    return m;
}

}  // namespace

TILELAB_VARIANT(make_naive_matmul, Naive,
                {.id = "matmul.naive", .family = "matmul", .params = Naive::params})

}  // namespace tilelab
