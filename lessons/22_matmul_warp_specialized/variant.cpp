// Warp specialisation on Hopper (kernels/matmul/warp_specialized.cuh): a producer warpgroup drives TMA, one
// or two consumer warpgroups multiply with wgmma, full and empty mbarriers per stage instead of
// the block's barrier, registers moved between the roles by setmaxnreg, persistent blocks walking
// a grouped or Hilbert tile order, clusters of blocks sharing B by TMA multicast. BF16 or FP16 operands, FP32 sums; compiled for sm_90a (sm_90 only).
#include <fmt/format.h>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "../../families/matmul/hopper.h"

// The kernel's tile orders (tile_at), compiled for the host: the model finds the tiles stream-K cuts.
#define __device__
#define __forceinline__ inline
using std::min;
#include "../../kernels/matmul/tile_order.cuh"
#undef __device__
#undef __forceinline__

namespace tilelab {
namespace {

using matmul::add_extra;

struct WarpSpecialized {
    ElementType input = ElementType::bf16;   // <- PREC
    int bn = 256;                            // <- BN: columns of the tile (and of each wgmma)
    int consumers = 2;                       // <- CONSUMERS: consumer warpgroups, 128·128/BN rows each
    int stages = 4;                          // <- STAGES: slices in the shared ring
    int setmaxnreg = 1;                      // <- SETMAXNREG: producer 40 registers a thread, consumers 232
    int persistent = 1;                      // <- PERSISTENT: one block an SM walks the tiles
    int group = 8;                           // <- GROUP: tile rows numbered together (L2 reuse)
    int cluster = 1;                         // <- CLUSTER: blocks a cluster, one above the other, B multicast
    int pingpong = 0;                        // <- PINGPONG: the two consumers take whole tiles in turns
    int epilogue = 0;                        // <- EPILOGUE: C stored by TMA from shared memory
    int order = 0;                           // <- ORDER: tiles numbered grouped (GROUP) or along a Hilbert curve
    int stream_k = 0;                        // <- STREAMK: the last 1 or 2 rounds' tiles shared out by K slices

    static inline const std::vector<ParamSpec> params = {
        {.name = "PREC", .kind = ParamKind::Element, .min = int(ElementType::bf16), .max = int(ElementType::f16),
         .def = int(ElementType::bf16)},
        {.name = "BN", .kind = ParamKind::Pow2, .min = 128, .max = 256, .def = 256},
        {.name = "CONSUMERS", .kind = ParamKind::Int, .min = 1, .max = 2, .def = 2},
        {.name = "STAGES", .kind = ParamKind::Int, .min = 2, .max = 7, .def = 4},
        {.name = "SETMAXNREG", .kind = ParamKind::Int, .min = 0, .max = 1, .def = 1},
        {.name = "PERSISTENT", .kind = ParamKind::Int, .min = 0, .max = 1, .def = 1},
        {.name = "GROUP", .kind = ParamKind::Pow2, .min = 1, .max = 16, .def = 8},
        {.name = "CLUSTER", .kind = ParamKind::Pow2, .min = 1, .max = 4, .def = 1},
        {.name = "PINGPONG", .kind = ParamKind::Int, .min = 0, .max = 1, .def = 0},
        {.name = "EPILOGUE", .kind = ParamKind::Int, .min = 0, .max = 1, .def = 0},
        {.name = "ORDER", .kind = ParamKind::Int, .min = 0, .max = 1, .def = 0},
        {.name = "STREAMK", .kind = ParamKind::Int, .min = 0, .max = 2, .def = 0},
    };
    static WarpSpecialized from(const ParamReader& p) {
        return {.input = ElementType(p["PREC"]), .bn = p["BN"], .consumers = p["CONSUMERS"], .stages = p["STAGES"],
                .setmaxnreg = p["SETMAXNREG"], .persistent = p["PERSISTENT"], .group = p["GROUP"],
                .cluster = p["CLUSTER"], .pingpong = p["PINGPONG"], .epilogue = p["EPILOGUE"],
                .order = p["ORDER"], .stream_k = p["STREAMK"]};
    }
    static constexpr int kBK = 64, kSwizzle = 128;
    static constexpr int kStreamKFlags = 1024;   // the kernel's tl_stream_k_flags
    int kind() const { return input == ElementType::bf16 ? 1 : 2; }
    int bmc() const { return 128 * 128 / bn; }          // rows per consumer: 128 sums a thread
    int bm() const { return pingpong ? bmc() : consumers * bmc(); }   // in turns, a consumer's tile
    int readers() const { return pingpong ? 1 : consumers; }          // consumers that read a slice
    int threads() const { return 128 * (consumers + 1); }
    int stage_bytes() const { return 2 * kBK * (bm() + bn); }
    int staging_bytes() const { return epilogue ? consumers * 4 * 2 * 2048 : 0; }   // two 16×32 FP32 boxes a consumer warp
    // The stages, C's staging, a full and an empty mbarrier a stage, 1024 bytes to align the first stage.
    int dynamic_smem_bytes() const { return stages * stage_bytes() + staging_bytes() + 16 * stages + 1024; }

    std::string invalid_reason(const Problem& problem, const Target& target) const;
    KernelInstance kernel() const {
        return {"matmul/warp_specialized.cuh",
                fmt::format("warp_specialized_matmul<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", kind(), bn, stages,
                            consumers, setmaxnreg, persistent, group, cluster, pingpong, epilogue, order, stream_k),
                0, 90};
    }
    // One block a tile, in whole clusters (a cluster's rows past M padded).
    double blocks(const Problem& p) const {
        return double(ceil_div(p.dim[0], int64_t(bm()) * cluster)) * cluster * double(ceil_div(p.dim[1], bn));
    }
    LaunchShape launch(const Problem& p) const;
    TileGeometry tiles(const Problem& problem) const;
    // Stream-K's cut tiles on `t` (matmul/stream_k.cuh): every part of a cut tile after its head
    // stores partial sums into C, and the part before it reads them back.
    struct Cuts {
        double tiles = 0, elements = 0;   // blocks' tiles cut (each cluster rank's its own), partial sums passed on
    };
    Cuts stream_k_cuts(const Problem& p, const Target& t) const;
    CostModel cost_model(const Problem& problem, const Target& target) const;
    static double staged_boxes(const Problem& p) {
        return double(ceil_div(p.dim[0], int64_t(16))) * double(ceil_div(p.dim[1], int64_t(32)));
    }
    matmul::StagedC staged_c(const Problem& p) const;
    Precision precision() const { return {input, ElementType::f32, ElementType::f32}; }
};

std::string WarpSpecialized::invalid_reason(const Problem& p, const Target& t) const {
    if (std::string why = matmul::tma_rows_problem(p); !why.empty()) return why;
    if (std::string why = matmul::ring_problem(t, stages, stage_bytes(), dynamic_smem_bytes()); !why.empty()) return why;
    if (pingpong && consumers != 2) return tr("constraint.matmul.warp_specialized.pingpong_two");
    if (bn / 64 % cluster != 0) return trf("constraint.matmul.warp_specialized.cluster_boxes", cluster, bn / 64);
    if (blocks(p) > double(t.max_grid_dim[0])) return trf("constraint.matmul.warp_specialized.too_many_tiles", int64_t(blocks(p)));
    if (stream_k && !persistent) return tr("constraint.matmul.warp_specialized.stream_k_persistent");
    if (stream_k && pingpong) return tr("constraint.matmul.warp_specialized.stream_k_pingpong");
    if (const int64_t resident = resident_on(launch(p), t).grid[0]; stream_k && 2 * resident > kStreamKFlags)
        return trf("constraint.matmul.warp_specialized.stream_k_flags", resident, kStreamKFlags / 2);
    return {};
}

// One block per BM×BN tile, or (PERSISTENT) one block an SM of the target walking them
// (LaunchShape::resident_per_sm); the tensor maps of families/matmul/hopper.h.
LaunchShape WarpSpecialized::launch(const Problem& p) const {
    LaunchShape s;
    s.grid = {unsigned(blocks(p)), 1, 1};
    s.cluster = unsigned(cluster);
    s.block = {unsigned(threads()), 1, 1};
    s.dynamic_smem = unsigned(dynamic_smem_bytes());
    s.tensor_maps = matmul::wgmma_tensor_maps(p, bm(), kBK, kSwizzle);
    // C (argument 2), FP32, in boxes of 32 columns by 16 rows (a warp's), 128-byte swizzle: the staged store.
    // The kernel takes it whether or not it stores through it (EPILOGUE).
    s.tensor_maps.push_back({.arg = 2, .element_bytes = 4, .rank = 2, .dims = {uint64_t(p.dim[1]), uint64_t(p.dim[0])},
                             .strides = {4 * uint64_t(p.dim[1])}, .box = {32, 16}, .swizzle = 128});
    s.resident_per_sm = persistent ? 1 : 0;
    // Stream-K shares the tiles among every resident block, also where there are fewer tiles than
    // blocks: the grid asks for as many blocks as there are flags for, the engine cuts it to those
    // that stay resident (resident_on).
    if (stream_k) s.grid[0] = unsigned(std::max<double>(blocks(p), kStreamKFlags / 2 / cluster * cluster));
    return s;
}

// The tile, one wgmma's 64×BN inside it, and a consumer thread's share: 2 rows of every 64-row
// band of its consumer's rows, by BN/4 columns.
TileGeometry WarpSpecialized::tiles(const Problem& p) const {
    TileGeometry t;
    t.extent = {p.dim[1], p.dim[0], 1};
    t.block_tile = {bn, bm(), 1};
    t.thread_tile = {bn / 4, bmc() / 32, 1};
    t.reduction = p.dim[2];
    t.k_step = kBK;
    t.a_in_shared = t.b_in_shared = true;
    t.warp_tile = {bn, 64};
    t.mma = {bn, 64, 16};
    t.mma_lanes_known = true;
    t.mma_operands_in_shared = true;   // wgmma reads A and B by descriptor: only C is in lanes
    t.tiles_walked = true;          // one index over the tiles, GROUP rows at a time or along a Hilbert curve
    t.shared_by_k = stream_k != 0;  // every resident block takes a share of the last rounds' K slices
    t.loading_threads = 128;        // the producer warpgroup
    t.tiles_in_turns = pingpong ? 2 : 1;   // in turns, each consumer holds a whole tile of its own
    t.ring_stages = stages;
    return t;
}

// EPILOGUE = 1: every 16-row band of C below M (a warp's) and every 32-column box left of N is
// staged once, 16·32 floats written by the warp and read back by TMA; shared accesses are counted
// in the operands' 2-byte elements, so a float counts 2.
matmul::StagedC WarpSpecialized::staged_c(const Problem& p) const {
    if (!epilogue) return {};
    return {.total = staged_boxes(p) * 2.0 * 16 * 32, .per_block = 2.0 * bm() * bn,
            .formula = {.total = " + 2·16·32·(C boxes staged)", .thread = " + 2·BM·BN / threads"}};
}

// G workers (clusters) on U cluster tiles of S slices: where U mod G > 0 the last
// (STREAMK − 1)·G + U mod G tiles (all U where U < G) are one run of slice-steps cut at ⌊w·steps/G'⌋, w = 1 .. G'−1, among
// G' = min(G, steps) workers; a tile with c cuts inside it has c + 1 parts in every block of its
// cluster, and c of them pass partial sums on through C (each stored once and read once).
WarpSpecialized::Cuts WarpSpecialized::stream_k_cuts(const Problem& p, const Target& t) const {
    Cuts cuts;
    if (!stream_k) return cuts;
    const int64_t M = p.dim[0], N = p.dim[1], slices = ceil_div(p.dim[2], int64_t(kBK));
    const int64_t tiles_m = ceil_div(M, int64_t(bm())), tiles_n = ceil_div(N, int64_t(bn));
    const int64_t cluster_rows = ceil_div(tiles_m, int64_t(cluster)), units = cluster_rows * tiles_n;
    const int64_t workers = int64_t(resident_on(launch(p), t).grid[0]) / cluster;
    const int64_t rounds = units / workers, left = units % workers;
    if (left == 0) return cuts;
    const int64_t whole_end = std::max<int64_t>(rounds + 1 - stream_k, 0) * workers, steps = (units - whole_end) * slices;
    const int64_t sharers = std::min(workers, steps);   // no share empty
    std::vector<int> inside(size_t(units - whole_end), 0);   // cuts inside each shared tile
    for (int64_t w = 1; w < sharers; ++w)
        if (const int64_t cut = steps * w / sharers; cut % slices != 0) ++inside[size_t(cut / slices)];
    for (size_t r = 0; r < inside.size(); ++r) {
        if (inside[r] == 0) continue;
        int cm, tn;
        tile_at(order, group, int(whole_end + int64_t(r)), int(cluster_rows), int(tiles_n), cm, tn);
        for (int rank = 0; rank < cluster; ++rank) {
            const int64_t m0 = (int64_t(cm) * cluster + rank) * bm(), n0 = int64_t(tn) * bn;
            cuts.tiles += 1;
            cuts.elements += inside[r] * double(std::clamp<int64_t>(M - m0, 0, bm())) * double(std::clamp<int64_t>(N - n0, 0, bn));
        }
    }
    return cuts;
}

CostModel WarpSpecialized::cost_model(const Problem& p, const Target& target) const {
    CostModel m;
    const matmul::StagedC staged = staged_c(p);
    const Cuts cuts = stream_k_cuts(p, target);
    const matmul::PartialSums partial{.sums = cuts.elements,
                                      .formula = stream_k ? matmul::GlobalExtra{" + 2·(stream-K partial sums)", " + stream-K partial sums"}
                                                          : matmul::GlobalExtra{}};
    matmul::wgmma_counts(m, p, bm(), bn, kBK, bn, threads(), precision(), cluster, staged, partial);
    if (stream_k) {
        add_extra(m, "stream-K: tiles cut", "blocks' tiles the shares' cuts fall inside (on this GPU's resident blocks)",
                  cuts.tiles);
        add_extra(m, "stream-K: partial sums through C",
                  "Σ cuts inside a tile · its elements (each stored by one part, read by the part before it)", cuts.elements);
    }
    matmul::add_formula(m, "threads / block", "128·(CONSUMERS + 1)", threads());
    add_extra(m, "accumulator registers / thread", "BMC·BN / 128 (a consumer's)", double(bmc()) * bn / 128);
    add_extra(m, "rows / consumer", "BMC = 128·128 / BN", bmc());
    add_extra(m, "arrivals / empty barrier",
              pingpong ? "4·CLUSTER (the warps of the slice's one consumer, in every block of the cluster)"
                       : "4·CONSUMERS·CLUSTER (every consumer warp of the cluster)",
              4.0 * readers() * cluster);
    // What ptxas allocates at launch: with setmaxnreg the launch's whole share (65,536 / threads,
    // a multiple of 8; at most the consumers' 232), else the sums + 32.
    const int share = std::min(232, 65536 / threads() / 8 * 8);
    add_extra(m, "registers / thread, expected", setmaxnreg ? "min(232, 65536 / threads)" : "BMC·BN / 128 + 32",
              setmaxnreg ? share : bmc() * bn / 128 + 32);
    add_extra(m, "registers / thread after setmaxnreg", setmaxnreg ? "consumers 232, producer 40" : "all alike (no setmaxnreg)",
              setmaxnreg ? 232 : 0);
    add_extra(m, "dynamic shared memory (bytes)", "STAGES·(bytes / stage + 16) + 1024 + EPILOGUE·CONSUMERS·16,384",
              dynamic_smem_bytes());
    if (epilogue)
        add_extra(m, "C boxes staged", "⌈M/16⌉·⌈N/32⌉ (16×32 FP32, a warp's, written to shared memory, stored by TMA)",
                  staged_boxes(p));
    return m;
}

}  // namespace

TILELAB_VARIANT(make_warp_specialized_matmul, WarpSpecialized,
                {.id = "matmul.warp_specialized", .family = "matmul", .params = WarpSpecialized::params})

}  // namespace tilelab
