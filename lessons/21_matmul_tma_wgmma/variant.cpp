// Hopper's tensor cores through TMA and wgmma (kernels/matmul/tma_wgmma.cuh): the block's A and B
// slices arrive by the Tensor Memory Accelerator into swizzled shared stages, each stage with an
// mbarrier, and one warpgroup multiplies them with wgmma.mma_async straight from shared memory.
// BF16 or FP16 operands, FP32 sums; compiled for sm_90a (runs on sm_90 only).
#include <fmt/format.h>
#include <cstdint>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/matmul/model.h"

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
    double wgmma_per_slice() const { return double(bk / 16) * (bm / 64) * (bn / wgn); }

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
    if (p.dim[1] % 8 != 0 || p.dim[2] % 8 != 0) return trf("constraint.matmul.tma_wgmma.rows_of_16_bytes", p.dim[2], p.dim[1]);
    if (bk % span() != 0) return trf("constraint.matmul.tma_wgmma.bk_whole_rows", bk, span(), swizzle);
    if (bn % wgn != 0) return trf("constraint.matmul.tma_wgmma.wgn_divides_bn", wgn, bn);
    if (accumulators() > 128) return trf("constraint.matmul.tma_wgmma.accumulators", bm, bn, accumulators());
    if (inflight == 1 && stages < 2) return tr("constraint.matmul.tma_wgmma.inflight_needs_two_stages");
    const int limit = t.smem_per_block_optin > 0 ? t.smem_per_block_optin : t.smem_per_block;
    if (dynamic_smem_bytes() > limit)
        return trf("constraint.matmul.tma_wgmma.shared_memory", stages, stage_bytes(), dynamic_smem_bytes(), limit);
    if (ceil_div(p.dim[0], bm) > t.max_grid_dim[1])
        return trf("family.matmul.model.m_needs_block_rows", p.dim[0], ceil_div(p.dim[0], bm), t.max_grid_dim[1]);
    return {};
}

// One block of one warpgroup per BM×BN tile of C; A's tensor map is K×M (boxes SPAN×BM), B's N×K
// (boxes SPAN×BK), both of 2-byte elements in the chosen swizzle.
LaunchShape TmaWgmma::launch(const Problem& p) const {
    LaunchShape s;
    s.grid = {unsigned(ceil_div(p.dim[1], bn)), unsigned(ceil_div(p.dim[0], bm)), 1};
    s.block = {kThreads, 1, 1};
    s.dynamic_smem = unsigned(dynamic_smem_bytes());
    const uint64_t M = uint64_t(p.dim[0]), N = uint64_t(p.dim[1]), K = uint64_t(p.dim[2]);
    s.tensor_maps = {
        {.arg = 0, .element_bytes = 2, .rank = 2, .dims = {K, M}, .strides = {2 * K}, .box = {uint32_t(span()), uint32_t(bm)},
         .swizzle = swizzle},
        {.arg = 1, .element_bytes = 2, .rank = 2, .dims = {N, K}, .strides = {2 * N}, .box = {uint32_t(span()), uint32_t(bk)},
         .swizzle = swizzle},
    };
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
    return t;
}

// Counts in elements, exact for any M, N, K: TMA reads the parts of A and B inside the matrices
// (every element of A once per block column, of B once per block row) and writes whole boxes into
// shared memory (zeros past the edges); each wgmma reads its 64×16 of A and 16×WGN of B from shared
// memory; every element of C is stored once.
CostModel TmaWgmma::cost_model(const Problem& p) const {
    const double gx = double(ceil_div(p.dim[1], bn)), gy = double(ceil_div(p.dim[0], bm));
    const double slices = double(ceil_div(p.dim[2], bk)), blocks = gx * gy;
    const double reads_per_k = double(bm) * bn * (1.0 / wgn + 1.0 / 64) / kThreads;
    CostModel m;
    matmul::block_tiled_counts(m, p, bm, bn, bk, kThreads, double(accumulators()), reads_per_k, precision());
    matmul::add_formula(m, "threads / block", "128 (one warpgroup)", kThreads);
    matmul::add_block_tiled_formulas(m, blocks, "BM·BN / 128", "BM·BN·(1/WGN + 1/64) / 128");
    add_extra(m, "accumulator registers / thread", "BM·BN / 128", accumulators());
    add_extra(m, "wgmma / block / K slice", "(BK/16)·(BM/64)·(BN/WGN)", wgmma_per_slice());
    const double wgmmas = blocks * slices * wgmma_per_slice();
    add_extra(m, "wgmma, total", "blocks·⌈K/BK⌉·(wgmma / block / K slice)", wgmmas);
    add_extra(m, "tensor-core FLOPs issued", "2·64·WGN·16 · wgmma, total (padding included)", wgmmas * 2.0 * 64 * wgn * 16);
    add_extra(m, "TMA boxes / K slice", "BK/SPAN + BN/SPAN (SPAN = SWIZZLE/2)", double(bk / span() + bn / span()));
    add_extra(m, "bytes / stage", "2·(BM·BK + BK·BN)", stage_bytes());
    add_extra(m, "dynamic shared memory (bytes)", "STAGES·(bytes / stage + 8) + 1024", dynamic_smem_bytes());
    return m;
}

}  // namespace

TILELAB_VARIANT(make_tma_wgmma_matmul, TmaWgmma, {.id = "matmul.tma_wgmma", .family = "matmul", .params = TmaWgmma::params})

}  // namespace tilelab
