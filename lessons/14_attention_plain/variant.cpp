// Attention the plain way, as data: three kernels of kernels/attention/plain.cuh launched in
// order (KernelPass) — S = Q·K^T/√d into an N×N matrix per head, the softmax of each row into P,
// O = P·V — with their parameters, launch shapes and one cost model for the three. The lesson's
// own kernel is the softmax; the two products are one tiled matrix-product kernel.
#include <fmt/format.h>
#include <cmath>
#include <algorithm>
#include <cstdint>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

constexpr int kTile = 64, kDepth = 16, kThreads = 256, kRowsPerBlock = 4;   // plain.cuh's

struct PlainAttention {
    ElementType input = ElementType::f32;   // <- PREC: Q, K, V and the weights P in memory
    int softmax = 1;                        // <- SOFTMAX: 0 naive, 1 safe (three passes), 2 online (two)
    bool causal = false;                    // <- CAUSAL: row i weighs keys 0..i only
    int q_scale = 1;                        // <- QSCALE: Q's values multiplied by it (larger scores)

    static inline const std::vector<ParamSpec> params = {
        {.name = "PREC", .kind = ParamKind::Element, .min = int(ElementType::f32), .max = int(ElementType::f16),
         .def = int(ElementType::f32)},
        {.name = "SOFTMAX", .kind = ParamKind::Int, .min = 0, .max = 2, .def = 1},
        {.name = "CAUSAL", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 0, .tuned = false},
        {.name = "QSCALE", .kind = ParamKind::Pow2, .min = 1, .max = 64, .def = 1, .tuned = false},
    };
    static PlainAttention from(const ParamReader& p) {
        return {.input = ElementType(p["PREC"]), .softmax = p["SOFTMAX"], .causal = p.flag("CAUSAL"), .q_scale = p["QSCALE"]};
    }
    int kind() const { return input == ElementType::bf16 ? 1 : input == ElementType::f16 ? 2 : 0; }

    std::string invalid_reason(const Problem& p, const Target& t) const;
    // The softmax: the kernel the lesson is about. CAUSAL is named only when set.
    KernelInstance kernel() const {
        return {"attention/plain.cuh", fmt::format("plain_attention<{}, {}{}>", kind(), softmax, causal ? ", 1" : "")};
    }
    // The softmax: a warp a row, 4 rows a block, a head per grid row.
    LaunchShape launch(const Problem& p) const {
        return {.grid = {unsigned(ceil_div(p.dim[0], kRowsPerBlock)), unsigned(p.dim[2]), 1}, .block = {32 * kRowsPerBlock, 1, 1}};
    }
    // What the softmax's blocks own: 4 whole rows of one head's P each, a lane every 32nd element.
    TileGeometry tiles(const Problem& p) const {
        TileGeometry t;
        t.extent = {p.dim[0], p.dim[0], p.dim[2]};
        t.block_tile = {p.dim[0], kRowsPerBlock, 1};
        t.thread_tile = {ceil_div(p.dim[0], 32), 1, 1};
        t.grid_axis = {2, 0, 1};
        t.product_name = "S", t.output_name = "P";   // the scores read, the weights written (both N×N, stored)
        t.stream_causal = causal;
        return t;
    }
    std::vector<KernelPass> passes(const Problem& p) const {
        const unsigned N = unsigned(p.dim[0]), d = unsigned(p.dim[1]), BH = unsigned(p.dim[2]);
        const unsigned row_tiles = unsigned(ceil_div(N, kTile));
        return {{"S = Q·K^T/√d", {"attention/plain.cuh", fmt::format("plain_attention_scores<{}>", kind())},
                 {.grid = {row_tiles, row_tiles, BH}, .block = {kThreads, 1, 1}}},
                {"P = softmax(S)", kernel(), launch(p)},
                {"O = P·V", {"attention/plain.cuh", fmt::format("plain_attention_weigh<{}>", kind())},
                 {.grid = {unsigned(ceil_div(d, kTile)), row_tiles, BH}, .block = {kThreads, 1, 1}}}};
    }
    CostModel cost_model(const Problem& p) const;
    // The naive softmax's e^s in the input type overflows past s = ln(65504) = 11.09 in FP16 and
    // 88.72 in FP32 and BF16. Q's values reach QSCALE and K's 1, so a score's standard deviation
    // is QSCALE/3; the largest of up to 10^12 scores lies within 7.5 of them: QSCALE ≥ 8 can
    // overflow FP16 (7.5·8/3 = 20), QSCALE = 64 FP32 and BF16 (160); below, neither can.
    std::string may_be_wrong(const Problem&) const {
        if (softmax != 0) return "";
        if (input == ElementType::f16 && q_scale >= 8) return trf("expected.attention.plain.overflow_fp16", q_scale);
        if (q_scale >= 64) return trf("expected.attention.plain.overflow_fp32", q_scale);
        return "";
    }
    Precision precision() const { return {input, ElementType::f32, ElementType::f32, input}; }
    FamilyOptions family_options() const {
        return {{"causal", causal ? 1 : 0}, {"scores", 1}, {"q_scale", q_scale}};
    }
};

std::string PlainAttention::invalid_reason(const Problem& p, const Target& t) const {
    if (input == ElementType::tf32) return tr("constraint.attention.plain.no_tf32");
    const int64_t N = p.dim[0], BH = p.dim[2];
    if (ceil_div(N, kTile) > t.max_grid_dim[1])
        return trf("constraint.attention.plain.grid", N, ceil_div(N, kTile), t.max_grid_dim[1]);
    if (BH > std::min(t.max_grid_dim[1], t.max_grid_dim[2]))
        return trf("constraint.attention.plain.heads", BH, std::min(t.max_grid_dim[1], t.max_grid_dim[2]));
    return "";
}

// The model of one tiled product C (rows × cols) += A (rows × depth)·B: a block of 64×64
// outputs loads its rows of A and its columns of B once per 16-deep slice, those inside the
// matrices only; it stores whole 16×64 slices of both in shared memory (zeros past an edge) and
// each of its 256 threads reads 4 + 4 floats per depth step.
struct Product {
    double a_loads, b_loads, shared_loads, shared_stores;
};
Product product(double rows, double cols, double depth, double heads) {
    const double row_tiles = double(ceil_div(int64_t(rows), kTile)), col_tiles = double(ceil_div(int64_t(cols), kTile));
    const double blocks = row_tiles * col_tiles * heads, steps = double(ceil_div(int64_t(depth), kDepth));
    return {heads * rows * depth * col_tiles, heads * cols * depth * row_tiles, blocks * steps * kThreads * kDepth * 8,
            blocks * steps * 2 * kTile * kDepth};
}

// Counts in elements (Q, K, V and P of the input type, S and O floats), exact for any N: the two
// products (product()), and the softmax's reads of S — SOFTMAX 0 reads a row's live scores twice
// (the sum, then the weights), 1 three times (maximum, sum, weights), 2 twice (maximum and sum
// together, then the weights) — and its writes of P (every element, the masked ones as 0). The
// bytes follow from each operand's own type.
CostModel PlainAttention::cost_model(const Problem& p) const {
    const double N = double(p.dim[0]), d = double(p.dim[1]), BH = double(p.dim[2]);
    const double live = causal ? N * (N + 1) / 2 : N * N;   // scores a head's softmax reads per pass
    const double passes = softmax == 1 ? 3 : 2;
    const Product scores = product(N, N, d, BH), weigh = product(N, d, N, BH);
    const double s_loads = passes * live * BH, p_stores = N * N * BH, s_stores = N * N * BH, o_stores = N * d * BH;
    CostModel m;
    m.total = {scores.a_loads + scores.b_loads + s_loads + weigh.a_loads + weigh.b_loads, s_stores + p_stores + o_stores,
               scores.shared_loads + weigh.shared_loads, scores.shared_stores + weigh.shared_stores};
    const double blocks = double(launch(p).blocks());
    m.per_block = {passes * live * BH / blocks, p_stores / blocks, 0, 0};   // the softmax's blocks
    m.per_thread = {m.per_block.global_loads / (32 * kRowsPerBlock), m.per_block.global_stores / (32 * kRowsPerBlock), 0, 0};
    m.flops = 4 * N * N * d * BH;   // both products over the whole matrix, masked half included
    m.set_element_types(precision());
    m.shared_widened_bytes = int(sizeof(float));   // the products stage floats
    const double e = element_bytes(input);
    m.global_load_bytes = e * (m.total.global_loads - s_loads) + 4 * s_loads;
    m.global_store_bytes = 4 * (s_stores + o_stores) + e * p_stores;
    m.global_bytes = m.global_load_bytes + m.global_store_bytes;
    m.intensity = m.flops / m.global_bytes;
    m.compulsory_bytes = e * 3 * BH * N * d + 4 * BH * N * d;
    const char* reads = softmax == 1 ? "3" : "2";
    m.formulas = {
        {"S loads by the softmax", fmt::format("{}·{}·BH", reads, causal ? "N(N+1)/2" : "N²"), s_loads},
        {"S stores (FP32)", "N²·BH", s_stores},
        {"P stores", "N²·BH", p_stores},
        {"Q and K loads (S = Q·K^T)", "2·⌈N/64⌉·N·d·BH", scores.a_loads + scores.b_loads},
        {"P loads (O = P·V)", "⌈d/64⌉·N²·BH", weigh.a_loads},
        {"V loads (O = P·V)", "⌈N/64⌉·N·d·BH", weigh.b_loads},
        {"global bytes", fmt::format("{}·(Q, K, V, P) + 4·(S, O)", element_bytes(input)), m.global_bytes},
        {"FLOPs", "2 products of 2·N²·d per head: 4·N²·d·BH", m.flops},
    };
    m.extras = {
        {"N×N bytes (S and P, all heads)", fmt::format("(4 + {})·N²·BH", element_bytes(input)), (4 + e) * N * N * BH},
        {"share of bytes in S and P", "(S, P bytes) / global bytes",
         (4 * (s_loads + s_stores) + e * (p_stores + weigh.a_loads)) / m.global_bytes},
        // What DRAM must carry where the caches absorb every re-read (a softmax row's second and
        // third passes, the products' re-reads of Q, K, V): S and P written and read once each,
        // Q, K, V read and O written once — the hardware counters' side of the lesson.
        {"DRAM bytes, each matrix crossing once", fmt::format("2·(4 + {})·N²·BH + compulsory", element_bytes(input)),
         2 * (4 + e) * N * N * BH + m.compulsory_bytes},
    };
    return m;
}

}  // namespace

TILELAB_VARIANT(make_plain_attention, PlainAttention,
                {.id = "attention.plain", .family = "attention", .params = PlainAttention::params})

}  // namespace tilelab
