// Attention with the online softmax, FlashAttention-1 style on CUDA cores, as data: parameters,
// constraints, launch shape and the cost model of kernels/attention/online_softmax.cuh. A block
// owns BR query rows of one head and streams K and V through shared memory BC rows at a time;
// TPR threads share a row, and a thread keeps RPT rows. The N×N score matrix never exists: HBM traffic falls from O(N²) per
// head to Q, O and one pass over K and V per block of rows.
#include <fmt/format.h>
#include <bit>
#include <cmath>
#include <cstdint>
#include "tilelab/banks.h"
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/attention/model.h"

namespace tilelab {
namespace {

struct OnlineSoftmax {
    ElementType input = ElementType::f32;   // <- PREC: Q, K, V in memory
    int br = 64;                            // <- BR: query rows per block
    int bc = 32;                            // <- BC: key rows per shared tile
    int tpr = 4;                            // <- TPR: threads per query row
    bool causal = false;                    // <- CAUSAL: row i sees keys 0..i only
    int rpt = 1;                            // <- RPT: query rows per thread (register tiling)
    bool split = false;                     // <- SPLIT: a row's threads split the keys (1) or d (0)

    static inline const std::vector<ParamSpec> params = {
        {.name = "PREC", .kind = ParamKind::Element, .min = int(ElementType::f32), .max = int(ElementType::f16),
         .def = int(ElementType::f32)},
        {.name = "BR", .kind = ParamKind::Pow2, .min = 8, .max = 256, .def = 64},
        {.name = "BC", .kind = ParamKind::Pow2, .min = 8, .max = 128, .def = 32},
        {.name = "TPR", .kind = ParamKind::Pow2, .min = 1, .max = 32, .def = 4},
        {.name = "CAUSAL", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 0, .tuned = false},
        {.name = "RPT", .kind = ParamKind::Pow2, .min = 1, .max = 8, .def = 1},
        {.name = "SPLIT", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 0},
    };
    static OnlineSoftmax from(const ParamReader& p) {
        return {.input = ElementType(p["PREC"]), .br = p["BR"], .bc = p["BC"], .tpr = p["TPR"], .causal = p.flag("CAUSAL"),
                .rpt = p["RPT"], .split = p.flag("SPLIT")};
    }
    int kind() const { return input == ElementType::bf16 ? 1 : input == ElementType::f16 ? 2 : 0; }
    int threads() const { return br / rpt * tpr; }
    // Values a thread holds for each of its rows: SPLIT 0, q and o (d/TPR each) and the tile's
    // scores (BC); SPLIT 1, o (d/TPR) and its keys' scores (BC/TPR).
    int64_t held(int64_t d) const { return split ? int64_t(rpt) * (d + bc) / tpr : int64_t(rpt) * (2 * d / tpr + bc); }
    // A tile's score products a thread unrolls whole (SPLIT 1 unrolls its loops over d and keys by 2).
    int64_t unrolled(int64_t d) const { return split ? 0 : int64_t(rpt) * bc * (d / tpr); }
    // P's row stride in floats (kernels/attention/online_softmax_2d.cuh, OnlineSoftmax2dLayout).
    int p_stride() const {
        const int bank = tpr >= 4 ? tpr : 4;
        return bc + ((bank - bc % 32) % 32 + 32) % 32;
    }
    // SPLIT 0: K and V tiles of BC rows of d floats each. SPLIT 1: Q and K with rows of d + 4
    // floats, V, and P (BR rows of p_stride()).
    int64_t smem_for(int64_t d) const {
        const int64_t floats = split ? (br + bc) * (d + 4) + bc * d + int64_t(br) * p_stride() : 2 * int64_t(bc) * d;
        return floats * int64_t(sizeof(float));
    }

    std::string invalid_reason(const Problem& p, const Target& t) const;
    // One instantiation per head width: d is a template argument (the registers a thread holds).
    // CAUSAL and RPT are named only where they differ from their defaults (0, 1), as the lesson's
    // first steps wrote the instantiation.
    KernelInstance kernel_at(const Problem& p) const {
        if (split)
            return {"attention/online_softmax_2d.cuh", fmt::format("online_softmax_attention_2d<{}, {}, {}, {}, {}, {}, {}>",
                                                                   p.dim[1], br, bc, tpr, kind(), causal ? 1 : 0, rpt)};
        const std::string tail = rpt != 1 ? fmt::format(", {}, {}", causal ? 1 : 0, rpt) : causal ? ", 1" : "";
        return {"attention/online_softmax.cuh",
                fmt::format("online_softmax_attention<{}, {}, {}, {}, {}{}>", p.dim[1], br, bc, tpr, kind(), tail)};
    }
    KernelInstance kernel() const { return kernel_at(Problem{{1024, 64, 1}}); }
    LaunchShape launch(const Problem& p) const {
        return {.grid = {unsigned(ceil_div(p.dim[0], br)), unsigned(p.dim[2]), 1},
                .block = {unsigned(threads()), 1, 1},
                .dynamic_smem = unsigned(smem_for(p.dim[1]))};
    }
    TileGeometry tiles(const Problem& p) const;
    CostModel cost_model(const Problem& p) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& p) const;
    Precision precision() const { return {input, ElementType::f32, ElementType::f32}; }
    FamilyOptions family_options() const { return {{"causal", causal ? 1 : 0}}; }
};

std::string OnlineSoftmax::invalid_reason(const Problem& p, const Target& t) const {
    const int64_t d = p.dim[1];
    if (input == ElementType::tf32) return tr("constraint.attention.online_softmax.no_tf32");
    if (threads() % 32 != 0 || threads() > t.max_threads_per_block)
        return trf("constraint.attention.online_softmax.threads", br, rpt, tpr, threads(), t.max_threads_per_block);
    if (d % (4 * tpr) != 0) return trf("constraint.attention.online_softmax.d_split", d, tpr, 4 * tpr);
    if (split && bc % tpr != 0) return trf("constraint.attention.online_softmax.keys_split", bc, tpr);
    // A thread holds d/TPR values of q and of o and BC scores per row; past 3·64 of them the
    // kernel spills heavily and NVRTC's unrolling takes long.
    if (held(d) > 192)
        return split ? trf("constraint.attention.online_softmax.registers_2d", rpt, d, bc, tpr, held(d))
                     : trf("constraint.attention.online_softmax.registers", rpt, d, tpr, bc, held(d));
    // The score loop over the tile's BC keys is unrolled whole (the scores live in registers), each
    // key d/TPR multiply-adds for each of RPT rows, and P·V as many again. At 4096 a thread NVRTC
    // took 16-27 s (H200 machine, 2026-12-01, docs/benchmarks.md: every build of lesson 15 over
    // 10 s); at 2048 at most 8.5 s.
    if (unrolled(d) > 2048) return trf("constraint.attention.online_softmax.unrolled", rpt, bc, d, tpr, unrolled(d));
    if (smem_for(d) > t.smem_per_block_optin)
        return split ? trf("constraint.attention.online_softmax.smem_2d", br, bc, d, smem_for(d), t.name, t.smem_per_block_optin)
                     : trf("constraint.attention.online_softmax.smem", bc, d, smem_for(d), t.name, t.smem_per_block_optin);
    return attention::grid_reason(p, br, t);
}

// attention::row_block_tiles: a thread holds d/TPR columns of each of its RPT rows.
TileGeometry OnlineSoftmax::tiles(const Problem& p) const {
    return attention::row_block_tiles(p, br, bc, causal, input, {p.dim[1] / tpr, rpt, 1});
}

// Counts in elements (global loads of the input type, stores of O in floats, shared accesses in
// floats), exact for any N: a block loads its live rows of Q once and every key row it streams
// (K and V; attention::key_work: all N, or up to its diagonal tile with the mask), whatever BR;
// it stores whole tiles of K and V in shared memory (zeros past N). SPLIT 0: each thread reads
// d/TPR floats of every tile row twice (scores, then V), once for all its RPT rows. SPLIT 1: the
// block also stores its BR rows of Q once and each tile's P (BR·BC); each thread reads, per tile,
// BC/TPR rows of K and d/TPR columns of V (2·BC·d/TPR) and its RPT rows of Q and of P (d + BC
// each). Per block and thread: the average block.
CostModel OnlineSoftmax::cost_model(const Problem& p) const {
    const double N = double(p.dim[0]), d = double(p.dim[1]), BH = double(p.dim[2]), T = threads();
    const double row_blocks = double(ceil_div(p.dim[0], br)), blocks = row_blocks * BH;
    const attention::KeyWork w = attention::key_work(p, br, bc, causal);
    const double tiles = w.tiles / row_blocks, keys = w.keys / row_blocks;   // per block, on average
    // Shared floats per tile: loaded by one thread, stored by the block; and stored once a block.
    const double tile_loads = 2 * bc * d / tpr + (split ? rpt * (d + bc) : 0.0);
    const double tile_stores = 2 * bc * d + (split ? double(br) * bc : 0.0), once = split ? br * d : 0.0;
    CostModel m;
    m.per_thread = {rpt * d / tpr + 2 * keys * d / T, rpt * d / tpr, tiles * tile_loads, (once + tiles * tile_stores) / T};
    m.per_block = {br * d + 2 * keys * d, br * d, tiles * tile_loads * T, once + tiles * tile_stores};
    // Totals from the sums themselves (integers), not from the averages.
    m.total = {attention::global_loads(p, br, bc, causal), BH * N * d, BH * w.tiles * tile_loads * T,
               BH * (row_blocks * once + w.tiles * tile_stores)};
    m.flops = attention::flops(p, causal);   // Q·Kᵀ and P·V, two multiply-adds per score and column
    m.set_element_types(precision());
    m.shared_widened_bytes = int(sizeof(float));   // K and V (and Q) are staged as floats
    m.intensity = m.flops / m.global_bytes;
    m.compulsory_bytes = m.load_bytes(3 * BH * N * d) + m.store_bytes(BH * N * d);
    const std::string tile_sum = causal ? "BH·Σ_b tiles_b" : "blocks·⌈N/BC⌉";
    m.formulas = {
        {"threads / block", "BR/RPT·TPR", T},
        {"blocks", "⌈N/BR⌉·BH", blocks},
        {"shared stores (total)", split ? "blocks·BR·d + " + tile_sum + "·(2·BC·d + BR·BC)" : tile_sum + "·2·BC·d",
         m.total.shared_stores},
        {"shared loads (total)", tile_sum + (split ? "·(BR/RPT·2·BC·d + BR·(d + BC))" : "·BR/RPT·2·BC·d"),
         m.total.shared_loads},
    };
    const std::vector<Formula> keys_formulas = attention::key_formulas(m, causal);
    m.formulas.insert(m.formulas.begin() + 2, keys_formulas.begin(), keys_formulas.end());
    m.extras = attention::shared_extras(p, br, bc, causal);
    // Multiply-adds a thread does per tile (2·RPT·BC·d/TPR) over the float4 loads it issues.
    const double fma_per_load = 8 * rpt * bc * d / tpr / tile_loads;
    if (split) {
        m.extras.push_back({"dynamic shared memory (bytes)", "((BR + BC)·(d + 4) + BC·d + BR·PS)·4", double(smem_for(p.dim[1]))});
        m.extras.push_back({"values a thread holds (scores, o)", "RPT·(BC + d)/TPR", double(held(p.dim[1]))});
        m.extras.push_back({"multiply-adds per shared float4 load", "8·RPT·BC·d/TPR / (2·BC·d/TPR + RPT·(d + BC))", fma_per_load});
        m.extras.push_back({"shuffles per row and key tile", "log2(TPR)", std::log2(double(tpr))});
    } else {
        m.extras.push_back({"dynamic shared memory (bytes)", "2·BC·d·4", double(smem_for(p.dim[1]))});
        m.extras.push_back({"values a thread holds (q, o, scores)", "RPT·(2·d/TPR + BC)", double(held(p.dim[1]))});
        m.extras.push_back({"multiply-adds per shared float4 load", "4·RPT", fma_per_load});
        m.extras.push_back({"shuffles per score", "log2(TPR)", std::log2(double(tpr))});
    }
    return m;
}

// The shared accesses, as the kernels issue them (tilelab/banks.h): float4 stores of the staged
// rows (consecutive threads, consecutive 16-byte pieces) and float4 reads; SPLIT 1 also writes P
// one float at a time. Per key tile, every block (attention::key_work); Q's once a block.
// SPLIT 0: thread t is lane t mod TPR of row t / TPR, and every row of a warp reads the same K
// and V piece, so 32/TPR lanes share each address. SPLIT 1: the kernel's lane layout (row group in
// lane bit 0, the lane in the row above it) pairs lanes n, n^1 on K and V and n, n^2 on Q and P.
std::vector<SharedAccessSite> OnlineSoftmax::shared_sites(const Problem& p) const {
    const int tp = tpr, rp = rpt;   // copies: the sites outlive this configuration
    const int T = threads(), D = int(p.dim[1]), chunks = D / 4, G = br / rp;
    const double blocks = double(ceil_div(p.dim[0], br)) * double(p.dim[2]);
    const double tiles = double(p.dim[2]) * attention::key_work(p, br, bc, causal).tiles;
    auto site = [&](std::string name, std::string formula, bool store, int width, int instances, double repeats,
                    std::function<int64_t(int, int)> address) {
        SharedAccessSite s;
        s.name = std::move(name), s.formula = std::move(formula), s.store = store, s.width_bytes = width;
        s.threads = T, s.instances = instances, s.repeats = repeats, s.byte_address = std::move(address);
        if (store && width == 16 && split && input == ElementType::f32)   // the kernel's copies: cp.async for FP32
            s.caveat = "cp.async stores: Nsight Compute counts them as ldgsts, apart from shared stores.";
        return s;
    };
    // Rows of D floats (`stride` floats apart from `base` bytes) staged by consecutive threads.
    auto stage = [=](int rows, int stride, int64_t base) {
        return [=](int r, int t) -> int64_t {
            const int e = t + r * T;
            return e >= rows * chunks ? -1 : base + 4 * (int64_t(e / chunks) * stride + 4 * (e % chunks));
        };
    };
    const std::string copies = "e = t + r·threads: row e / (d/4), float4 e mod (d/4)";
    if (!split) {
        const int64_t v_base = int64_t(bc) * D * 4;
        const int K = ceil_div(bc * chunks, T), per = D / (4 * tp);
        auto read = [=](int64_t base) {
            return [=](int inst, int t) { return base + 16 * (int64_t(inst / per) * chunks + t % tp + tp * (inst % per)); };
        };
        return {site("K store (16 B)", copies, true, 16, K, tiles, stage(bc, D, 0)),
                site("V store (16 B)", copies, true, 16, K, tiles, stage(bc, D, v_base)),
                site("K read (float4)", "key j, piece c + TPR·i (c = t mod TPR)", false, 16, bc * per, tiles, read(0)),
                site("V read (float4)", "key j, piece c + TPR·i (c = t mod TPR)", false, 16, bc * per, tiles, read(v_base))};
    }
    const int qs = D + 4, ps = p_stride(), keys = bc / tp, per = D / (4 * tp), shift = tp < 32 ? 1 : 0;
    const int log2_tp = std::countr_zero(unsigned(tp));   // TPR is a power of two
    const int64_t k_base = int64_t(br) * qs * 4, v_base = k_base + int64_t(bc) * qs * 4, p_base = v_base + int64_t(bc) * D * 4;
    // The kernel's lane layout: row group g, lane c in the row.
    auto lane_c = [=](int t) { return ((t % 32) >> shift) & (tp - 1); };
    auto group = [=](int t) {
        const int lane = t % 32;
        return t / 32 * (32 / tp) + ((lane & shift) | (lane >> (shift + log2_tp) << 1));
    };
    const int K = ceil_div(bc * chunks, T);
    return {
        site("Q store (16 B)", copies + ", rows of d + 4", true, 16, ceil_div(br * chunks, T), blocks, stage(br, qs, 0)),
        site("K store (16 B)", copies + ", rows of d + 4", true, 16, K, tiles, stage(bc, qs, k_base)),
        site("V store (16 B)", copies, true, 16, K, tiles, stage(bc, D, v_base)),
        site("Q read (float4)", "row g + (BR/RPT)·k, float4 at x", false, 16, chunks * rp, tiles,
             [=](int inst, int t) { return 4 * (int64_t(group(t) + G * (inst % rp)) * qs + 4 * (inst / rp)); }),
        site("K read (float4)", "key c + TPR·q, float4 at x", false, 16, chunks * keys, tiles,
             [=](int inst, int t) { return k_base + 4 * (int64_t(lane_c(t) + tp * (inst % keys)) * qs + 4 * (inst / keys)); }),
        site("P store (4 B)", "row g + (BR/RPT)·k, key c + TPR·q", true, 4, rp * keys, tiles,
             [=](int inst, int t) { return p_base + 4 * (int64_t(group(t) + G * (inst / keys)) * ps + lane_c(t) + tp * (inst % keys)); }),
        site("P read (float4)", "row g + (BR/RPT)·k, float4 at key j", false, 16, bc / 4 * rp, tiles,
             [=](int inst, int t) { return p_base + 4 * (int64_t(group(t) + G * (inst % rp)) * ps + 4 * (inst / rp)); }),
        site("V read (float4)", "key j, piece c + TPR·i", false, 16, bc * per, tiles,
             [=](int inst, int t) { return v_base + 4 * (int64_t(inst / per) * D + 4 * (lane_c(t) + tp * (inst % per))); }),
    };
}

}  // namespace

TILELAB_VARIANT(make_online_softmax_attention, OnlineSoftmax,
                {.id = "attention.online_softmax", .family = "attention", .params = OnlineSoftmax::params})

}  // namespace tilelab
