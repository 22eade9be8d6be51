// Latency hiding, warps or independent instructions, as data: parameters, constraints, launch
// shape and cost model of kernels/latency/fma_chains.cuh. The grid is the problem's first size
// (blocks): at one block per SM (B = the SM count) the warps an SM holds are one block's, so BLOCK
// sets the occupancy and ILP the independent FMAs each warp keeps in flight — the two ways of
// filling the cycles a dependent FMA waits.
#include <fmt/format.h>
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

constexpr int kChains = 8;        // chains per thread (kLatencyChains in the kernel)
constexpr int kSchedulers = 4;    // warp schedulers per SM on every architecture from Maxwell on

struct FmaChains {
    int ilp = 1;       // <- ILP: chains a thread advances together
    int block = 128;   // <- BLOCK: threads per block
    int unroll = 16;   // <- UNROLL: the step loop's unroll factor

    static inline const std::vector<ParamSpec> params = {
        {.name = "ILP", .kind = ParamKind::Pow2, .min = 1, .max = 8, .def = 1},
        {.name = "BLOCK", .kind = ParamKind::Int, .min = 32, .max = 1024, .step = 32, .def = 128},
        {.name = "UNROLL", .kind = ParamKind::Pow2, .min = 1, .max = 32, .def = 16},
    };
    static FmaChains from(const ParamReader& p) { return {.ilp = p["ILP"], .block = p["BLOCK"], .unroll = p["UNROLL"]}; }

    // Nothing of its own: the engine refuses a block past the target's limit (generic_invalid_reason).
    std::string invalid_reason(const Problem&, const Target&) const { return ""; }
    KernelInstance kernel() const { return {"latency/fma_chains.cuh", fmt::format("fma_chains_latency<{}, {}>", ilp, unroll)}; }
    LaunchShape launch(const Problem& p) const {
        return {.grid = {unsigned(p.dim[0]), 1, 1}, .block = {unsigned(block), 1, 1}};
    }
    FamilyOptions family_options() const { return {{"threads_per_block", block}}; }

    // Chain j of thread t is output (t, j): a block covers BLOCK threads × 8 chains.
    TileGeometry tiles(const Problem& p) const {
        TileGeometry t;
        t.extent = {p.dim[0] * block, kChains, 1};
        t.block_tile = {block, kChains, 1};
        t.thread_tile = {1, kChains, 1};
        return t;
    }

    CostModel cost_model(const Problem& p) const;
};

// Every thread loads a start and an increment per chain and stores a result: 16 loads and 8
// stores, whatever the ILP. The FMAs: FMAS a thread, two FLOPs each.
CostModel FmaChains::cost_model(const Problem& p) const {
    const double blocks = double(p.dim[0]), fmas = double(p.dim[1]), threads = blocks * block;
    const double warps = double(ceil_div(block, 32));
    CostModel m;
    m.per_thread = {2.0 * kChains, double(kChains), 0, 0};
    m.per_block = {2.0 * kChains * block, double(kChains) * block, 0, 0};
    m.total = {2.0 * kChains * threads, kChains * threads, 0, 0};
    m.flops = 2 * fmas * threads;
    m.set_element_types({});   // FP32 throughout
    m.compulsory_bytes = m.global_bytes;
    m.intensity = m.flops / m.global_bytes;
    m.formulas = {
        {"threads", "blocks·BLOCK", threads},
        {"FMAs (total)", "threads·FMAS", fmas * threads},
        {"FLOPs", "2·FMAs", m.flops},
        {"FMAs per chain", "FMAS/8", fmas / kChains},
        {"global loads (total)", "threads·8·2 (start, increment)", m.total.global_loads},
        {"global stores (total)", "threads·8", m.total.global_stores},
    };
    m.extras = {
        {"warps / block", "⌈BLOCK/32⌉", warps},
        {"independent FMAs in flight / warp", "ILP", double(ilp)},
        {"warps / scheduler (one block per SM)", "warps/4", warps / kSchedulers},
        {"independent FMAs / scheduler (one block per SM)", "warps/4·ILP", warps / kSchedulers * ilp},
        {"FMAs per loop iteration", "UNROLL·ILP", double(unroll) * ilp},
    };
    return m;
}

}  // namespace

TILELAB_VARIANT(make_fma_chains, FmaChains, {.id = "latency.fma_chains", .family = "latency", .params = FmaChains::params})

}  // namespace tilelab
