// FlashAttention-2 on tensor cores, as data: parameters, constraints, launch shape and the cost
// model of kernels/attention/flash2_mma.cuh. A block owns BR query rows of one head, WARPS warps
// split them; Q's fragments stay in registers, K and V stream through swizzled shared memory BC
// rows at a time, both products run on mma.sync and P never leaves the registers.
#include <fmt/format.h>
#include <cstdint>
#include "tilelab/banks.h"
#include "tilelab/i18n.h"
#include "tilelab/mma_layout.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/attention/model.h"

namespace tilelab {
namespace {

struct Flash2 {
    ElementType input = ElementType::f16;    // <- PREC: Q, K, V in memory (and P on the tensor cores)
    int br = 64;                             // <- BR: query rows per block
    int bc = 64;                             // <- BC: key rows per shared tile
    int warps = 4;                           // <- WARPS: warps per block, each BR/WARPS rows
    int stages = 2;                          // <- STAGES: 1 copy then compute, 2 copies overlapped
    int minb = 0;                            // <- MINB: blocks per SM the registers must allow (0: ptxas picks)
    bool causal = false;                     // <- CAUSAL: row i sees keys 0..i only

    static inline const std::vector<ParamSpec> params = {
        {.name = "PREC", .kind = ParamKind::Element, .min = int(ElementType::bf16), .max = int(ElementType::f16),
         .def = int(ElementType::f16)},
        {.name = "BR", .kind = ParamKind::Pow2, .min = 16, .max = 256, .def = 64},
        {.name = "BC", .kind = ParamKind::Pow2, .min = 16, .max = 256, .def = 64},
        {.name = "WARPS", .kind = ParamKind::Pow2, .min = 1, .max = 16, .def = 4},
        {.name = "STAGES", .kind = ParamKind::Int, .min = 1, .max = 2, .def = 2},
        {.name = "MINB", .kind = ParamKind::Int, .min = 0, .max = 4, .def = 0},
        {.name = "CAUSAL", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 0, .tuned = false},
    };
    static Flash2 from(const ParamReader& p) {
        return {.input = ElementType(p["PREC"]), .br = p["BR"], .bc = p["BC"], .warps = p["WARPS"], .stages = p["STAGES"],
                .minb = p["MINB"], .causal = p.flag("CAUSAL")};
    }
    int kind() const { return input == ElementType::bf16 ? 1 : 2; }
    int threads() const { return 32 * warps; }
    int rows_per_warp() const { return br / warps; }
    // Q, K and V tiles of 16-bit values.
    int64_t smem_for(int64_t d) const { return (int64_t(br) + 2 * int64_t(bc)) * d * 2; }
    // 32-bit registers of state a thread holds: o (d/2 floats per 16 rows), s (BC/2), Q's fragments (d/4).
    int64_t held(int64_t d) const { return rows_per_warp() / 16 * (d / 2 + bc / 2 + d / 4); }

    std::string invalid_reason(const Problem& p, const Target& t) const;
    // One instantiation per head width: d is a template argument (the fragments a thread holds).
    // CAUSAL is named only when set (its default is 0), as the lesson's first steps wrote it.
    KernelInstance kernel_at(const Problem& p) const {
        const char* mask = causal ? ", 1" : "";
        if (minb == 0)
            return {"attention/flash2_mma.cuh", fmt::format("flash2_mma_attention<{}, {}, {}, {}, {}, {}{}>", p.dim[1], br, bc,
                                                            warps, stages, kind(), mask)};
        return {"attention/flash2_mma.cuh", fmt::format("flash2_mma_attention_minb<{}, {}, {}, {}, {}, {}, {}{}>", p.dim[1], br,
                                                        bc, warps, stages, minb, kind(), mask)};
    }
    KernelInstance kernel() const { return kernel_at(Problem{{4096, 64, 4}}); }
    LaunchShape launch(const Problem& p) const {
        return {.grid = {unsigned(ceil_div(p.dim[0], br)), unsigned(p.dim[2]), 1},
                .block = {unsigned(threads()), 1, 1},
                .dynamic_smem = unsigned(smem_for(p.dim[1]))};
    }
    TileGeometry tiles(const Problem& p) const;
    CostModel cost_model(const Problem& p) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& p) const;
    Precision precision() const { return {input, ElementType::f32, ElementType::f32, input}; }
    FamilyOptions family_options() const { return {{"causal", causal ? 1 : 0}}; }
};

std::string Flash2::invalid_reason(const Problem& p, const Target& t) const {
    const int64_t d = p.dim[1];
    if (input != ElementType::bf16 && input != ElementType::f16) return tr("constraint.attention.flash2_mma.prec");
    // FP16 mma.sync exists from sm_75 (as two 8-deep halves; cp.async falls back to loads), BF16 from sm_80.
    if (input == ElementType::bf16 && t.sm_major < 8)
        return trf("constraint.attention.flash2_mma.sm", t.name, t.sm_major, t.sm_minor);
    if (d < 32 || (d & (d - 1)) != 0) return trf("constraint.attention.flash2_mma.d_pow2", d);
    if (br % (16 * warps) != 0) return trf("constraint.attention.flash2_mma.rows", br, warps, 16 * warps);
    if (threads() > t.max_threads_per_block)
        return trf("constraint.attention.flash2_mma.threads", warps, threads(), t.max_threads_per_block);
    if ((br * d / 8) % threads() != 0 || (bc * d / 8) % threads() != 0)
        return trf("constraint.attention.flash2_mma.copies", br, bc, d, threads());
    if (held(d) > 168) return trf("constraint.attention.flash2_mma.registers", rows_per_warp(), d, bc, held(d));
    if (int64_t(minb) * threads() > t.max_threads_per_sm)
        return trf("constraint.attention.flash2_mma.minb", minb, threads(), t.max_threads_per_sm);
    if (smem_for(d) > t.smem_per_block_optin)
        return trf("constraint.attention.flash2_mma.smem", br, bc, d, smem_for(d), t.name, t.smem_per_block_optin);
    return attention::grid_reason(p, br, t);
}

// attention::row_block_tiles: a lane holds 2 columns of each 8 and 2 rows of each 16 of its warp's rows.
TileGeometry Flash2::tiles(const Problem& p) const {
    return attention::row_block_tiles(p, br, bc, causal, input, {p.dim[1] / 4, 2 * rows_per_warp() / 16, 1});
}

// Counts in elements, exact for any N: global loads of the input type (Q's live rows once, every
// key row a block streams, K and V: attention::key_work), stores of O in floats; shared stores of
// whole tiles (zeros past N); shared loads as ldmatrix delivers them, 8 values a lane per x4: Q's
// fragments once, and every warp reads the whole K and V tile. Per block and thread: the average
// block (with the mask, blocks stream different numbers of tiles).
CostModel Flash2::cost_model(const Problem& p) const {
    const double N = double(p.dim[0]), d = double(p.dim[1]), BH = double(p.dim[2]);
    const double row_blocks = double(ceil_div(p.dim[0], br)), blocks = row_blocks * BH, T = threads();
    const attention::KeyWork w = attention::key_work(p, br, bc, causal);
    const double tiles = w.tiles / row_blocks, keys = w.keys / row_blocks;   // per block, on average
    const double smem_loads = br * d + warps * tiles * 2 * bc * d, smem_stores = br * d + tiles * 2 * bc * d;
    CostModel m;
    m.per_block = {br * d + 2 * keys * d, br * d, smem_loads, smem_stores};
    m.per_thread = {m.per_block.global_loads / T, m.per_block.global_stores / T, smem_loads / T, smem_stores / T};
    // Totals from the sums themselves (integers), not from the averages.
    m.total = {attention::global_loads(p, br, bc, causal), BH * N * d, blocks * br * d + BH * w.tiles * warps * 2 * bc * d,
               blocks * br * d + BH * w.tiles * 2 * bc * d};
    m.flops = attention::flops(p, causal);
    m.set_element_types(precision());
    m.intensity = m.flops / m.global_bytes;
    m.compulsory_bytes = m.load_bytes(3 * BH * N * d) + m.store_bytes(BH * N * d);
    const double mmas = blocks * warps * tiles * (rows_per_warp() / 16.0) * (bc / 8.0) * (d / 16.0) * 2;
    const std::string tile_sum = causal ? "BH·Σ_b tiles_b" : "blocks·⌈N/BC⌉";
    m.formulas = {
        {"threads / block", "32·WARPS", T},
        {"blocks", "⌈N/BR⌉·BH", blocks},
        {"shared stores (total)", "blocks·BR·d + " + tile_sum + "·2·BC·d", m.total.shared_stores},
        {"shared loads (total)", "blocks·BR·d + WARPS·" + tile_sum + "·2·BC·d", m.total.shared_loads},
    };
    const std::vector<Formula> keys_formulas = attention::key_formulas(m, causal);
    m.formulas.insert(m.formulas.begin() + 2, keys_formulas.begin(), keys_formulas.end());
    m.extras = attention::shared_extras(p, br, bc, causal);
    m.extras.push_back({"dynamic shared memory (bytes)", "(BR + 2·BC)·d·2", double(smem_for(p.dim[1]))});
    m.extras.push_back({"registers of state per thread (o, s, q)", "BR/WARPS/16·(d/2 + BC/2 + d/4)", double(held(p.dim[1]))});
    m.extras.push_back({"mma.sync per block per key tile", "WARPS·BR/WARPS/16·BC/8·d/16·2", mmas / blocks / tiles});
    return m;
}

// Every shared access as the kernel issues it, one warp instruction per instance: the 16-bit
// copies of Q (once per block), K and V (per key tile) in 16-byte pieces; Q's ldmatrix.x4 per
// 16-row tile and depth step (once per block); K's ldmatrix.x4 per two 8-key tiles and step; V's
// ldmatrix.x4.trans per two 8-column tiles and step (both per key tile). Tiles are Q, K, V in that
// order, rows of 2·d bytes, XOR-swizzled.
std::vector<SharedAccessSite> Flash2::shared_sites(const Problem& p) const {
    const int T = threads(), row_bytes = int(2 * p.dim[1]), pieces = int(p.dim[1] / 8);
    const int tiles_m = rows_per_warp() / 16, steps_qk = int(p.dim[1] / 16);
    const double blocks = double(ceil_div(p.dim[0], br)) * double(p.dim[2]);
    const double per_tile = double(p.dim[2]) * attention::key_work(p, br, bc, causal).tiles;
    const int64_t k_base = int64_t(br) * row_bytes, v_base = k_base + int64_t(bc) * row_bytes;
    auto site = [&](std::string name, std::string formula, bool store, int instances, double repeats, auto address) {
        SharedAccessSite s;
        s.name = std::move(name);
        s.formula = std::move(formula) + ", swizzled";
        s.store = store;
        s.width_bytes = 16;
        s.threads = T;
        s.instances = instances;
        s.repeats = repeats;
        s.byte_address = address;
        if (store) s.caveat = "cp.async stores: Nsight Compute counts them as ldgsts, apart from shared stores.";
        return s;
    };
    auto copy = [=](int64_t base) {
        return [=](int r, int t) {
            const int e = t + r * T;
            return base + mma_swizzled_offset(row_bytes, e / pieces, e % pieces);
        };
    };
    const Flash2 c = *this;
    return {
        site("Q store (16 B)", "e = t + r·threads: row e / (d/8), piece e mod (d/8)", true, br * pieces / T, blocks, copy(0)),
        site("K store (16 B)", "e = t + r·threads: row e / (d/8), piece e mod (d/8)", true, bc * pieces / T, per_tile, copy(k_base)),
        site("V store (16 B)", "e = t + r·threads: row e / (d/8), piece e mod (d/8)", true, bc * pieces / T, per_tile, copy(v_base)),
        site("Q fragments (ldmatrix.x4)", "row = warp·BR/WARPS + 16i + (lane mod 16), piece = 2q + lane/16", false,
             tiles_m * steps_qk, blocks,
             [=](int inst, int t) {
                 const int lane = t % 32, warp = t / 32, i = inst / steps_qk, q = inst % steps_qk;
                 return mma_swizzled_offset(row_bytes, warp * c.rows_per_warp() + 16 * i + (lane & 15), 2 * q + (lane >> 4));
             }),
        site("K fragments (ldmatrix.x4)", "key = 16p + (lane mod 8) + 8·(lane/16), piece = 2q + (lane/8 mod 2)", false,
             steps_qk * bc / 16, per_tile,
             [=](int inst, int t) {
                 const int lane = t % 32, q = inst / (c.bc / 16), pair = inst % (c.bc / 16);
                 return k_base + mma_swizzled_offset(row_bytes, 16 * pair + (lane & 7) + ((lane >> 4) << 3),
                                                     2 * q + ((lane >> 3) & 1));
             }),
        site("V fragments (ldmatrix.x4.trans)", "key = 16k + (lane mod 16), piece = 2p + lane/16", false,
             bc / 16 * pieces / 2, per_tile,
             [=](int inst, int t) {
                 const int lane = t % 32, k = inst / (pieces / 2), pair = inst % (pieces / 2);
                 return v_base + mma_swizzled_offset(row_bytes, 16 * k + (lane & 15), 2 * pair + (lane >> 4));
             }),
    };
}

}  // namespace

TILELAB_VARIANT(make_flash2_mma_attention, Flash2,
                {.id = "attention.flash2_mma", .family = "attention", .params = Flash2::params})

}  // namespace tilelab
