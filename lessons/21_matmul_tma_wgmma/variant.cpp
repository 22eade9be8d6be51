// Hopper's tensor cores through TMA and wgmma (kernels/matmul/tma_wgmma.cuh): the block's A and B
// slices arrive by the Tensor Memory Accelerator into swizzled shared stages, each stage with an
// mbarrier, and one warpgroup multiplies them with wgmma.mma_async straight from shared memory.
// BF16 or FP16 operands, FP32 sums; compiled for sm_90a (runs on sm_90 only).
#include <fmt/format.h>
#include <cstdint>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/matmul/hopper.h"

namespace tilelab {
namespace {

using matmul::add_extra;

struct TmaWgmma {
    ElementType input = ElementType::bf16;   // <- PREC
    int bm = 128, bn = 128, bk = 64;         // <- BM, BN, BK: the block tile and its K slice
    int wgn = 128;                           // <- WGN: one wgmma's N (its tile is 64×WGN×16)
    int stages = 3;                          // <- STAGES: slices in the shared ring
    int swizzle = 128;                       // <- SWIZZLE: bytes of a swizzled row (32, 64, 128)
    int inflight = 1;                        // <- INFLIGHT: wgmma groups left running while the next slice's waits

    static inline const std::vector<ParamSpec> params = {
        {.name = "PREC", .kind = ParamKind::Element, .min = int(ElementType::bf16), .max = int(ElementType::f16),
         .def = int(ElementType::bf16)},
        {.name = "BM", .kind = ParamKind::Pow2, .min = 64, .max = 256, .def = 128},
        {.name = "BN", .kind = ParamKind::Pow2, .min = 64, .max = 256, .def = 128},
        {.name = "BK", .kind = ParamKind::Pow2, .min = 16, .max = 128, .def = 64},
        {.name = "WGN", .kind = ParamKind::Pow2, .min = 64, .max = 256, .def = 128},
        {.name = "STAGES", .kind = ParamKind::Int, .min = 1, .max = 8, .def = 3},
        {.name = "SWIZZLE", .kind = ParamKind::Pow2, .min = 32, .max = 128, .def = 128},
        {.name = "INFLIGHT", .kind = ParamKind::Int, .min = 0, .max = 1, .def = 1},
    };
    static TmaWgmma from(const ParamReader& p) {
        return {.input = ElementType(p["PREC"]), .bm = p["BM"], .bn = p["BN"], .bk = p["BK"], .wgn = p["WGN"],
                .stages = p["STAGES"], .swizzle = p["SWIZZLE"], .inflight = p["INFLIGHT"]};
    }
    static constexpr int kThreads = 128;                  // one warpgroup
    int kind() const { return input == ElementType::bf16 ? 1 : 2; }
    int span() const { return swizzle / 2; }              // 2-byte elements in a swizzled row
    int stage_bytes() const { return 2 * (bm * bk + bk * bn); }
    // The stages, one 8-byte mbarrier each, and 1024 bytes to align the first stage.
    int dynamic_smem_bytes() const { return stages * stage_bytes() + 8 * stages + 1024; }
    int accumulators() const { return bm * bn / kThreads; }

    std::string invalid_reason(const Problem& problem, const Target& target) const;
    KernelInstance kernel() const {
        return {"matmul/tma_wgmma.cuh",
                fmt::format("tma_wgmma_matmul<{}, {}, {}, {}, {}, {}, {}, {}>", kind(), bm, bn, bk, wgn, stages, swizzle, inflight),
                0, 90};
    }
    LaunchShape launch(const Problem& p) const;
    TileGeometry tiles(const Problem& problem) const;
    CostModel cost_model(const Problem& problem) const;
    Precision precision() const { return {input, ElementType::f32, ElementType::f32}; }
};

std::string TmaWgmma::invalid_reason(const Problem& p, const Target& t) const {
    if (std::string why = matmul::tma_rows_problem(p); !why.empty()) return why;
    if (bk % span() != 0) return trf("constraint.matmul.tma_wgmma.bk_whole_rows", bk, span(), swizzle);
    if (bn % wgn != 0) return trf("constraint.matmul.tma_wgmma.wgn_divides_bn", wgn, bn);
    if (accumulators() > 128) return trf("constraint.matmul.tma_wgmma.accumulators", bm, bn, accumulators());
    if (inflight == 1 && stages < 2) return tr("constraint.matmul.tma_wgmma.inflight_needs_two_stages");
    if (std::string why = matmul::ring_problem(t, stages, stage_bytes(), dynamic_smem_bytes()); !why.empty()) return why;
    if (ceil_div(p.dim[0], bm) > t.max_grid_dim[1])
        return trf("family.matmul.model.m_needs_block_rows", p.dim[0], ceil_div(p.dim[0], bm), t.max_grid_dim[1]);
    return {};
}

// One block of one warpgroup per BM×BN tile of C; the tensor maps of families/matmul/hopper.h.
LaunchShape TmaWgmma::launch(const Problem& p) const {
    LaunchShape s;
    s.grid = {unsigned(ceil_div(p.dim[1], bn)), unsigned(ceil_div(p.dim[0], bm)), 1};
    s.block = {kThreads, 1, 1};
    s.dynamic_smem = unsigned(dynamic_smem_bytes());
    s.tensor_maps = matmul::wgmma_tensor_maps(p, bm, bk, swizzle);
    return s;
}

// The block tile, the warpgroup's 64×WGN wgmma tiles inside it, and a thread's share: in every
// 64-row band, 2 rows (g and g+8 of its warp's 16) by BN/4 columns (2 of every 8).
TileGeometry TmaWgmma::tiles(const Problem& p) const {
    TileGeometry t;
    t.extent = {p.dim[1], p.dim[0], 1};
    t.block_tile = {bn, bm, 1};
    t.thread_tile = {bn / 4, bm / 32, 1};
    t.reduction = p.dim[2];
    t.k_step = bk;
    t.a_in_shared = t.b_in_shared = true;
    t.warp_tile = {wgn, 64};
    t.mma = {wgn, 64, 16};
    t.mma_lanes_known = true;
    t.mma_operands_in_shared = true;   // wgmma reads A and B by descriptor: only C is in lanes
    return t;
}

// The counts (families/matmul/hopper.h) and what this block of one warpgroup adds to them.
CostModel TmaWgmma::cost_model(const Problem& p) const {
    CostModel m;
    matmul::wgmma_counts(m, p, bm, bn, bk, wgn, kThreads, precision());
    matmul::add_formula(m, "threads / block", "128 (one warpgroup)", kThreads);
    add_extra(m, "accumulator registers / thread", "BM·BN / 128", accumulators());
    add_extra(m, "registers / thread, expected", "accumulators + 32 (one register a sum; the tuner's guess before ptxas)",
              accumulators() + 32);
    add_extra(m, "TMA boxes / K slice", "BK/SPAN + BN/SPAN (SPAN = SWIZZLE/2)", double(bk / span() + bn / span()));
    add_extra(m, "dynamic shared memory (bytes)", "STAGES·(bytes / stage + 8) + 1024", dynamic_smem_bytes());
    return m;
}

}  // namespace

TILELAB_VARIANT(make_tma_wgmma_matmul, TmaWgmma, {.id = "matmul.tma_wgmma", .family = "matmul", .params = TmaWgmma::params})

}  // namespace tilelab
