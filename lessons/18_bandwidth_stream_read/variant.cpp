// Bytes in flight, as data: parameters, constraints, launch shape and cost model of
// kernels/bandwidth/stream_read.cuh. As in lesson 17 the grid is the problem's first size (blocks):
// at one block per SM, BLOCK sets the warps an SM holds, and ILP and VEC the bytes each thread keeps
// in flight — the three ways of covering DRAM's latency × bandwidth.
#include <fmt/format.h>
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

struct StreamRead {
    int ilp = 1;       // <- ILP: independent loads a thread issues before using them
    int vec = 1;       // <- VEC: floats per load
    int block = 256;   // <- BLOCK: threads per block

    static inline const std::vector<ParamSpec> params = {
        {.name = "ILP", .kind = ParamKind::Pow2, .min = 1, .max = 8, .def = 1},
        {.name = "VEC", .kind = ParamKind::Pow2, .min = 1, .max = 4, .def = 1},
        {.name = "BLOCK", .kind = ParamKind::Int, .min = 32, .max = 1024, .step = 32, .def = 256},
    };
    static StreamRead from(const ParamReader& p) { return {.ilp = p["ILP"], .vec = p["VEC"], .block = p["BLOCK"]}; }

    // Nothing of its own: the engine refuses a block past the target's limit (generic_invalid_reason).
    std::string invalid_reason(const Problem&, const Target&) const { return ""; }
    KernelInstance kernel() const { return {"bandwidth/stream_read.cuh", fmt::format("stream_read_bandwidth<{}, {}>", vec, ilp)}; }
    LaunchShape launch(const Problem& p) const { return {.grid = {unsigned(p.dim[0]), 1, 1}, .block = {unsigned(block), 1, 1}}; }

    // A block is BLOCK threads, each walking the input in passes of ILP loads.
    TileGeometry tiles(const Problem& p) const {
        TileGeometry t;
        t.extent = {p.dim[0] * block, 1, 1};
        t.block_tile = {block, 1, 1};
        return t;
    }

    CostModel cost_model(const Problem& p) const;
};

// Every float is loaded once (the tail of N mod VEC floats by thread 0); each warp adds its sum to
// the result with one 8-byte atomic, counted as a store of two 4-byte elements.
CostModel StreamRead::cost_model(const Problem& p) const {
    const double blocks = double(p.dim[0]), n = double(p.dim[1]), threads = blocks * block;
    const double warps = blocks * double(block / 32);
    const double in_flight = 4.0 * vec * ilp;
    CostModel m;
    m.per_thread = {n / threads, 0, 0, 0};
    m.per_block = {n / blocks, 2.0 * double(block / 32), 0, 0};
    m.total = {n, 2 * warps, 0, 0};
    m.flops = 0;
    m.set_element_types({});
    m.compulsory_bytes = 4 * n + 8;
    m.intensity = 0;
    m.formulas = {
        {"threads", "blocks·BLOCK", threads},
        {"global loads (total)", "N", n},
        {"global stores (total)", "2·warps (one 8-byte atomic a warp)", m.total.global_stores},
        {"global bytes", "4·N + 8·warps", m.global_bytes},
    };
    m.extras = {
        {"bytes per load", "4·VEC", 4.0 * vec},
        {"bytes in flight / thread", "4·VEC·ILP", in_flight},
        {"bytes in flight / SM (one block per SM)", "BLOCK·4·VEC·ILP", in_flight * block},
        {"passes / thread", "⌈(N/VEC) / (threads·ILP)⌉", double(ceil_div(int64_t(p.dim[1] / vec), int64_t(threads) * ilp))},
    };
    return m;
}

}  // namespace

TILELAB_VARIANT(make_stream_read, StreamRead, {.id = "bandwidth.stream_read", .family = "bandwidth", .params = StreamRead::params})

}  // namespace tilelab
