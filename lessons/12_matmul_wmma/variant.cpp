// Tensor cores through WMMA (kernels/matmul/wmma.cuh): a warp cuts its WM×WN tile of C into 16×16
// fragments and multiplies 16×FK fragments of A by FK×16 fragments of B with mma_sync; the block
// stages BM×BK and BK×BN tiles in shared memory, STAGES deep. The operands' type is a parameter
// (TF32, BF16, FP16; accumulation FP32), so the whole lesson runs at the precision it declares.
#include <fmt/format.h>
#include <cstdint>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/matmul/model.h"

namespace tilelab {
namespace {

using matmul::add_extra;
using matmul::add_formula;

struct Wmma {
    ElementType input = ElementType::f16;    // <- PREC
    int bm = 128, bn = 128, bk = 32;         // <- BM, BN, BK: the block tile and its K slice
    int wm = 64, wn = 32;                    // <- WM, WN: one warp's tile of C
    int stages = 2;                          // <- STAGES: slices in the copy ring

    static inline const std::vector<ParamSpec> params = matmul::tensor_params(/*WN*/ 32, /*STAGES*/ 2);
    static Wmma from(const ParamReader& p) {
        return {.input = ElementType(p["PREC"]), .bm = p["BM"], .bn = p["BN"], .bk = p["BK"],
                .wm = p["WM"], .wn = p["WN"], .stages = p["STAGES"]};
    }
    // One fragment product: 16×16 of C from 16×FK of A and FK×16 of B (TF32's are 8 deep).
    static constexpr int kFM = 16, kFN = 16;
    int fk() const { return input == ElementType::tf32 ? 8 : 16; }
    int kind() const { return input == ElementType::tf32 ? 0 : input == ElementType::bf16 ? 1 : 2; }
    int in_bytes() const { return element_bytes(input); }
    int vec() const { return 16 / in_bytes(); }   // elements in one 16-byte copy
    int warps() const { return (bm / wm) * (bn / wn); }
    int threads() const { return 32 * warps(); }
    int fragments() const { return (wm / kFM) * (wn / kFN); }   // accumulator fragments of a warp
    // One stage: As[BM][BK + 16 bytes] and Bs[BK][BN + 16 bytes] in the input type; after the
    // stages, one 16×16 float scratch tile per warp for the edges of C.
    int stage_bytes() const { return in_bytes() * (bm * (bk + vec()) + bk * (bn + vec())); }
    int dynamic_smem_bytes() const { return stages * stage_bytes() + warps() * kFM * kFN * 4; }

    std::string invalid_reason(const Problem& problem, const Target& target) const;
    // Two instantiations: 16-byte copies where rows of A and B start on 16-byte boundaries (K
    // and N multiples of 16 bytes' worth of elements), else one element at a time.
    bool vectorized(const Problem& p) const { return p.dim[2] % vec() == 0 && p.dim[1] % vec() == 0; }
    KernelInstance kernel_for(bool vec) const {
        return {"matmul/wmma.cuh", fmt::format("wmma_matmul<{}, {}, {}, {}, {}, {}, {}, {}>", kind(), bm, bn, bk, wm, wn,
                                               stages, vec ? "true" : "false")};
    }
    KernelInstance kernel() const { return kernel_for(true); }
    KernelInstance kernel_at(const Problem& p) const { return kernel_for(vectorized(p)); }
    matmul::TensorTiling tiling() const { return {bm, bn, bk, wm, wn, vec(), dynamic_smem_bytes()}; }
    LaunchShape launch(const Problem& p) const { return matmul::tensor_launch(tiling(), p); }
    TileGeometry tiles(const Problem& problem) const;
    CostModel cost_model(const Problem& problem) const;
    Precision precision() const { return {input, ElementType::f32, ElementType::f32}; }
};

std::string Wmma::invalid_reason(const Problem& p, const Target& t) const {
    const std::string name = element_label(input);
    if (input == ElementType::f32)
        return tr("constraint.matmul.wmma.prec_fp32_tensor_cores");
    const int needs = input == ElementType::f16 ? 70 : 80;
    if (t.arch() < needs)
        return trf("constraint.matmul.wmma.tensor_cores_need_sm", name, needs, t.arch_name(), t.arch());
    if (bk % fk() != 0)
        return trf("constraint.matmul.wmma.bk_not_multiple_fragment", bk, fk(), name, fk());
    if (fragments() > 16)
        return trf("constraint.matmul.wmma.warp_tile_accumulator_fragments", wm, wn, fragments(), 8 * fragments());
    return matmul::tensor_tiling_reason(tiling(), p, t,
                                        trf("constraint.matmul.wmma.stages_slices_bytes_plus",
                                            stages, stage_bytes(), warps() * 1024));
}

// A warp's tile is (WM/16)×(WN/16) fragments of 16×16; a lane holds an eighth of each, in an
// order WMMA does not promise (the thread tile below is the share, not a rectangle).
TileGeometry Wmma::tiles(const Problem& p) const {
    TileGeometry t = matmul::tensor_tiles(tiling(), p, {kFN, kFM, fk()});
    return t;
}

// Counts in elements of the operands (global loads, shared stores and loads) and of C (global
// stores), exact for any M, N, K: every thread issues every copy of every slice (out-of-range ones
// zero-fill), a warp loads (WM/16 + WN/16)·BK/FK fragments per slice, each lane an equal share of
// 16·FK elements, and every element of C is stored once. The edge tiles' trip through the warps'
// scratch is the epilogue's and is not counted (the kernel says so too).
CostModel Wmma::cost_model(const Problem& p) const {
    const double gx = double(ceil_div(p.dim[1], bn)), gy = double(ceil_div(p.dim[0], bm));
    const double steps = double(ceil_div(p.dim[2], bk)), blocks = gx * gy;
    const double mmas_per_slice = double(fragments()) * (bk / fk());

    // A 16×16 fragment that is not wholly inside C (or any, where N is no multiple of 8) goes to C
    // through the warp's shared scratch: 256 floats stored, then those inside C read back. Shared
    // accesses count in the input's elements, so a float is F = 4 / (input bytes) of them.
    const int64_t M = p.dim[0], N = p.dim[1];
    const double whole = N % 8 == 0 ? double(M / kFM) * double(N / kFN) : 0.0;
    const double edges = double(ceil_div(M, kFM)) * double(ceil_div(N, kFN)) - whole;
    const double F = 4.0 / element_bytes(input);
    CostModel m;
    matmul::tensor_block_counts(m, tiling(), p, precision(),
                                {.total = " + 256·F·edge fragments", .thread = " + 256·F·edge fragments / (blocks·threads)",
                                 .loads_total = " + F·(M·N − 256·whole fragments)",
                                 .loads_thread = " + F·(M·N − 256·whole fragments) / (blocks·threads)"},
                                256.0 * F * edges, F * (double(M) * double(N) - 256.0 * whole));
    add_extra(m, "edge fragments (stored through shared scratch)", "⌈M/16⌉·⌈N/16⌉ − whole fragments", edges);

    add_extra(m, "accumulator fragments / warp", "(WM/16)·(WN/16)", fragments());
    add_extra(m, "accumulator registers / thread", "8·(WM/16)·(WN/16)", 8.0 * fragments());
    add_extra(m, "mma_sync / warp / K slice", "(WM/16)·(WN/16)·BK/FK", mmas_per_slice);
    add_extra(m, "fragment loads / warp / K slice", "(WM/16 + WN/16)·BK/FK", double(wm / kFM + wn / kFN) * (bk / fk()));
    const double mmas = blocks * warps() * steps * mmas_per_slice;
    add_extra(m, "mma_sync, total", "blocks·warps·⌈K/BK⌉·(mma_sync / warp / K slice)", mmas);
    add_extra(m, "tensor-core FLOPs issued", "2·16·16·FK · mma_sync, total (padding included)", mmas * 2.0 * kFM * kFN * fk());
    add_extra(m, "FLOPs per shared element loaded", "2·WM·WN / (WM+WN)", 2.0 * wm * wn / (wm + wn));
    add_extra(m, "dynamic shared memory (bytes)", "STAGES·(BM·(BK+16B) + BK·(BN+16B)) + warps·1024", dynamic_smem_bytes());
    return m;
}

}  // namespace

TILELAB_VARIANT(make_wmma_matmul, Wmma, {.id = "matmul.wmma", .family = "matmul", .params = Wmma::params})

}  // namespace tilelab
