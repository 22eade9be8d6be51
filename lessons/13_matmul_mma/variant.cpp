// Tensor cores through mma.sync and ldmatrix (kernels/matmul/mma.cuh): fragments with a stated
// lane layout, loaded by ldmatrix from shared tiles laid out plain, padded or XOR-swizzled, STAGES
// slices in flight, blocks walked GROUP rows at a time for L2. TF32, BF16 or FP16 operands, FP32
// sums; the whole lesson runs at the precision it declares.
#include <fmt/format.h>
#include <cstdint>
#include "tilelab/banks.h"
#include "tilelab/i18n.h"
#include "tilelab/mma_layout.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/matmul/model.h"

namespace tilelab {
namespace {

using matmul::add_extra;
using matmul::add_formula;

struct Mma {
    ElementType input = ElementType::f16;   // <- PREC
    int bm = 128, bn = 128, bk = 32;        // <- BM, BN, BK: the block tile and its K slice
    int wm = 64, wn = 64;                   // <- WM, WN: one warp's tile of C
    int stages = 3;                         // <- STAGES: slices in the copy ring
    int frags = 2;                          // <- FRAGS: fragment register sets (2: the next step loads during this one)
    int layout = 2;                         // <- LAYOUT: 0 plain, 1 padded, 2 swizzled
    int group = 8;                          // <- GROUP: block rows walked together (1 = launch order)
    int round = 1;                          // <- ROUND: TF32 only, 1 to nearest, 0 truncated by the tensor cores

    static inline const std::vector<ParamSpec> params = matmul::tensor_params(/*WN*/ 64, /*STAGES*/ 3, {
        {.name = "FRAGS", .kind = ParamKind::Int, .min = 1, .max = 2, .def = 2},
        {.name = "LAYOUT", .kind = ParamKind::Int, .min = 0, .max = 2, .def = 2},
        {.name = "GROUP", .kind = ParamKind::Pow2, .min = 1, .max = 16, .def = 8},
        {.name = "ROUND", .kind = ParamKind::Int, .min = 0, .max = 1, .def = 1},
    }, /*STAGES up to*/ 6);
    static Mma from(const ParamReader& p) {
        return {.input = ElementType(p["PREC"]), .bm = p["BM"], .bn = p["BN"], .bk = p["BK"], .wm = p["WM"],
                .wn = p["WN"], .stages = p["STAGES"], .frags = p["FRAGS"], .layout = p["LAYOUT"], .group = p["GROUP"],
                .round = p["ROUND"]};
    }
    bool tf32() const { return input == ElementType::tf32; }
    int fk() const { return tf32() ? 8 : 16; }   // one mma.sync's depth
    // kernels/matmul/mma.cuh's KIND: TF32 rounded (0) or truncated (3), BF16 (1), FP16 (2). BF16 and
    // FP16 are exact in memory and ignore ROUND, so both values share their kernel.
    int kind() const { return tf32() ? (round ? 0 : 3) : input == ElementType::bf16 ? 1 : 2; }
    int eb() const { return element_bytes(input); }
    int vec() const { return 16 / eb(); }        // elements in a 16-byte piece
    int warps() const { return (bm / wm) * (bn / wn); }
    int threads() const { return 32 * warps(); }
    int tiles_m() const { return wm / 16; }
    int tiles_n() const { return wn / 8; }
    int pad() const { return layout == 1 ? 16 : 0; }
    int row_a() const { return bk * eb(); }      // bytes of data in a row of As[BM][BK]
    int row_b() const { return bn * eb(); }      // ... and of Bs[BK][BN]
    int bytes_a() const { return bm * (row_a() + pad()); }
    int stage_bytes() const { return bytes_a() + bk * (row_b() + pad()); }
    int dynamic_smem_bytes() const { return stages * stage_bytes(); }
    // kernels/matmul/mma.cuh's mma_offset, the same three layouts.
    int64_t offset(int row_bytes, bool scalar_columns, int row, int chunk) const;

    std::string invalid_reason(const Problem& problem, const Target& target) const;
    bool vectorized(const Problem& p) const { return p.dim[2] % vec() == 0 && p.dim[1] % vec() == 0; }
    KernelInstance kernel_for(bool v) const {
        return {"matmul/mma.cuh", fmt::format("mma_matmul<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", kind(), bm, bn,
                                              bk, wm, wn, stages, frags, layout, group, v ? "true" : "false")};
    }
    KernelInstance kernel() const { return kernel_for(true); }
    KernelInstance kernel_at(const Problem& p) const { return kernel_for(vectorized(p)); }
    matmul::TensorTiling tiling() const { return {bm, bn, bk, wm, wn, vec(), dynamic_smem_bytes()}; }
    LaunchShape launch(const Problem& p) const { return matmul::tensor_launch(tiling(), p); }
    TileGeometry tiles(const Problem& problem) const;
    CostModel cost_model(const Problem& problem) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& problem) const;
    Precision precision() const { return {input, ElementType::f32, ElementType::f32}; }
};

int64_t Mma::offset(int row_bytes, bool scalar_columns, int row, int chunk) const {
    if (layout == 0) return int64_t(row) * row_bytes + chunk * 16;
    if (layout == 1) return int64_t(row) * (row_bytes + 16) + chunk * 16;
    return mma_swizzled_offset(row_bytes, row, chunk, scalar_columns);
}

std::string Mma::invalid_reason(const Problem& p, const Target& t) const {
    const std::string name = element_label(input);
    if (input == ElementType::f32)
        return tr("constraint.matmul.mma.prec_fp32_mma_sync");
    const int needs = input == ElementType::f16 ? 75 : 80;
    if (t.arch() < needs)
        return trf("constraint.matmul.mma.mma_sync_needs_sm", name, needs, t.arch_name(), t.arch());
    if (bk % fk() != 0 || row_a() < 32)
        return trf("constraint.matmul.mma.bk_slice_must_hold", bk, fk());
    if (wm * wn / 32 > 128)
        return trf("constraint.matmul.mma.warp_tile_accumulators_per", wm, wn, wm * wn / 32);
    return matmul::tensor_tiling_reason(tiling(), p, t,
                                        trf("constraint.matmul.mma.stages_slices_bytes", stages, stage_bytes()));
}

// A warp's tile is (WM/16)×(WN/8) tiles of 16×8; lane 4g+t holds rows g and g+8, columns 2t and
// 2t+1 of each: a thread's share is WM/8 rows by WN/4 columns, spread over the warp tile.
TileGeometry Mma::tiles(const Problem& p) const {
    TileGeometry t = matmul::tensor_tiles(tiling(), p, {8, 16, fk()});
    t.mma_lanes_known = true;
    return t;
}

// Counts in elements of the operands (global loads, shared stores and loads) and of C (global
// stores), exact for any M, N, K: every thread issues every copy of every slice (out-of-range
// pieces zero-fill), every lane receives 16 bytes from each ldmatrix.x4 (TF32's B: two 4-byte
// loads per 8-wide tile and 8-deep step), and every element of C is stored once.
CostModel Mma::cost_model(const Problem& p) const {
    const double gx = double(ceil_div(p.dim[1], bn)), gy = double(ceil_div(p.dim[0], bm));
    const double steps = double(ceil_div(p.dim[2], bk)), blocks = gx * gy, ksteps = double(bk / fk());
    const double mmas_per_slice = double(tiles_m()) * tiles_n() * ksteps;

    CostModel m;
    matmul::tensor_block_counts(m, tiling(), p, precision());

    add_extra(m, "accumulator registers / thread", "4·(WM/16)·(WN/8)", 4.0 * tiles_m() * tiles_n());
    add_extra(m, "fragment registers / thread", "FRAGS·(4·WM/16 + 2·WN/8)", double(frags) * (4 * tiles_m() + 2 * tiles_n()));
    add_extra(m, "mma.sync / warp / K slice", "(WM/16)·(WN/8)·BK/FK", mmas_per_slice);
    const double ldsm = tf32() ? tiles_m() * ksteps : (tiles_m() + tiles_n() / 2.0) * ksteps;
    add_extra(m, "ldmatrix.x4 / warp / K slice", tf32() ? "(WM/16)·BK/8" : "(WM/16 + WN/16)·BK/16", ldsm);
    if (tf32()) {
        add_extra(m, "4-byte B loads / warp / K slice", "2·(WN/8)·BK/8", 2.0 * tiles_n() * ksteps);
        add_extra(m, "TF32 rounding adds / thread / K slice", "ROUND·(4·WM/16 + 2·WN/8)·BK/8",
                  double(round) * (4 * tiles_m() + 2 * tiles_n()) * ksteps);
    }
    const double mmas = blocks * warps() * steps * mmas_per_slice;
    add_extra(m, "mma.sync, total", "blocks·warps·⌈K/BK⌉·(mma.sync / warp / K slice)", mmas);
    add_extra(m, "tensor-core FLOPs issued", "2·16·8·FK · mma.sync, total (padding included)", mmas * 2.0 * 16 * 8 * fk());
    add_extra(m, "FLOPs per shared element loaded", "2·WM·WN / (WM+WN)", 2.0 * wm * wn / (wm + wn));
    add_extra(m, "dynamic shared memory (bytes)", "STAGES·(BM·BK + BK·BN)·bytes (+16 B a row if padded)",
              dynamic_smem_bytes());
    return m;
}

// Every shared access as the kernel issues it, one warp instruction per instance: the copies into
// As and Bs (16-byte pieces, or single elements where K or N is not a multiple of 16 bytes' worth),
// A's ldmatrix.x4 per 16-row tile and step, B's ldmatrix.x4.trans per pair of 8-wide tiles (TF32:
// a 4-byte load per tile, step and half). cp.async's stores reach shared memory without the load/
// store pipe's ld/st instructions: Nsight Compute counts them apart (ldgsts), not in op_st.
std::vector<SharedAccessSite> Mma::shared_sites(const Problem& p) const {
    const Mma c = *this;
    const int T = threads();
    const double repeats =
        double(ceil_div(p.dim[1], bn)) * double(ceil_div(p.dim[0], bm)) * double(ceil_div(p.dim[2], bk));
    const bool whole = vectorized(p);
    const int width = whole ? 16 : eb(), per = whole ? vec() : 1;   // bytes and elements of one copy
    const int64_t base_b = bytes_a();
    auto site = [&](std::string name, std::string formula, bool store, int w, int instances) {
        SharedAccessSite s;
        s.name = std::move(name);
        s.formula = std::move(formula);
        s.store = store;
        s.width_bytes = w;
        s.threads = T;
        s.instances = instances;
        s.repeats = repeats;
        return s;
    };
    const std::string layout_name = layout == 0 ? "plain" : layout == 1 ? "padded" : "swizzled";
    SharedAccessSite sa = site(fmt::format("As store ({} B)", width), "e = t + r·threads: row e / (BK/v), piece e mod (BK/v), " + layout_name,
                               true, width, bm * bk / per / T);
    sa.byte_address = [c, T, per](int r, int t) {
        const int e = t + r * T, m = e / (c.bk / per), k = (e % (c.bk / per)) * per;
        return c.offset(c.row_a(), false, m, k / c.vec()) + (k % c.vec()) * c.eb();
    };
    SharedAccessSite sb = site(fmt::format("Bs store ({} B)", width), "e = t + r·threads: row e / (BN/v), piece e mod (BN/v), " + layout_name,
                               true, width, bk * bn / per / T);
    sb.byte_address = [c, T, per, base_b](int r, int t) {
        const int e = t + r * T, k = e / (c.bn / per), n = (e % (c.bn / per)) * per;
        return base_b + c.offset(c.row_b(), c.tf32(), k, n / c.vec()) + (n % c.vec()) * c.eb();
    };
    sa.caveat = sb.caveat = whole ? "cp.async stores: Nsight Compute counts them as ldgsts, apart from shared stores."
                                  : (eb() == 2 ? "2-byte stores: served as 4-byte ones in their word (not measured)." : "");
    const int ksteps = bk / fk();
    SharedAccessSite la = site("A fragments (ldmatrix.x4)", "row = warp_row + 16i + (lane mod 16), piece = kk/v + lane/16, " + layout_name,
                               false, 16, tiles_m() * ksteps);
    la.byte_address = [c](int inst, int t) {
        const int lane = t % 32, warp = t / 32, i = inst % c.tiles_m(), kk = inst / c.tiles_m() * c.fk();
        const int row = (warp / (c.bn / c.wn)) * c.wm + i * 16 + (lane & 15);
        return c.offset(c.row_a(), false, row, kk / c.vec() + (lane >> 4));
    };
    std::vector<SharedAccessSite> sites = {sa, sb, la};
    if (tf32()) {
        SharedAccessSite lb = site("B fragments (4-byte loads)", "k = kk + t + 4h, n = warp_col + 8j + g (lane = 4g + t), " + layout_name,
                                   false, 4, 2 * tiles_n() * ksteps);
        lb.byte_address = [c, base_b](int inst, int t) {
            const int lane = t % 32, warp = t / 32, h = inst % 2, j = inst / 2 % c.tiles_n(), kk = inst / 2 / c.tiles_n() * 8;
            const int k = kk + (lane & 3) + 4 * h, n = (warp % (c.bn / c.wn)) * c.wn + 8 * j + (lane >> 2);
            return base_b + c.offset(c.row_b(), true, k, n / 4) + (n % 4) * 4;
        };
        sites.push_back(lb);
    } else {
        SharedAccessSite lb = site("B fragments (ldmatrix.x4.trans)", "k = kk + (lane mod 16), piece = (warp_col + 8j)/8 + lane/16, " + layout_name,
                                   false, 16, tiles_n() / 2 * ksteps);
        lb.byte_address = [c, base_b](int inst, int t) {
            const int lane = t % 32, warp = t / 32, j = 2 * (inst % (c.tiles_n() / 2)), kk = inst / (c.tiles_n() / 2) * 16;
            const int col = (warp % (c.bn / c.wn)) * c.wn + 8 * j;
            return base_b + c.offset(c.row_b(), false, kk + (lane & 15), col / 8 + (lane >> 4));
        };
        sites.push_back(lb);
    }
    return sites;
}

}  // namespace

TILELAB_VARIANT(make_mma_matmul, Mma, {.id = "matmul.mma", .family = "matmul", .params = Mma::params})

}  // namespace tilelab
