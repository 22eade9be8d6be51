// Lesson 22's cost model against a CPU walk of kernels/matmul/warp_specialized.cuh as its counting build
// counts: the tiles in the kernel's grouped order (each visited once, by any number of persistent
// blocks), the producer's TMA boxes per slice (in a cluster, its A and its share of B), every
// consumer's wgmma and its stores of C. Exact at random configurations and odd M. The engine launches a persistent kernel one block an SM of the
// target, never more blocks than tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <string>

#include "lookups.h"
#include "model_engine.h"
#include "random_requests.h"
#include "tilelab/i18n.h"
#include "tilelab/pipeline.h"
#include "tilelab/tune.h"
#include "tilelab/variant.h"

// The kernel's tile orders, compiled for the host.
#define __device__
#define __forceinline__ inline
using std::min;
#include "../../kernels/matmul/tile_order.cuh"
#include "../../kernels/matmul/stream_k.cuh"
#undef __device__
#undef __forceinline__

namespace tilelab {
namespace {

using test::model_engine;
using test::registered_variant;

const Variant& specialized() { return registered_variant("matmul.warp_specialized"); }

struct Walked {
    AccessCounts total;
    double wgmmas = 0;
    std::set<std::pair<int64_t, int64_t>> tiles;
};

// The elements of C one block's consumers store for the tile at (m0, n0): each thread's pairs of
// its wgmma sums, rows below M, columns left of N.
double stores_of_tile(int64_t m0, int64_t n0, const Problem& p, int readers, int bmc, int bn) {
    const int64_t M = p.dim[0], N = p.dim[1];
    double stored = 0;
    for (int thread = 128; thread < 128 * (readers + 1); ++thread)
        for (int i = 0; i < bmc / 64; ++i)
            for (int c = 0; c < bn / 8; ++c)
                for (int h = 0; h < 2; ++h) {
                    const int lane = thread % 32, warp = thread / 32 % 4;
                    const int64_t row = m0 + (thread / 128 - 1) * bmc + 64 * i + 16 * warp + lane / 4 + 8 * h;
                    const int64_t col = n0 + 8 * c + 2 * (lane % 4);
                    if (row >= M) continue;
                    stored += col + 1 < N ? 2 : col < N ? 1 : 0;
                }
    return stored;
}

Walked walk(const ParamValues& v, const Problem& p) {
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    const int bn = v.at("BN"), consumers = v.at("CONSUMERS"), group = v.at("GROUP"), cluster = v.at("CLUSTER");
    const int readers = v.at("PINGPONG") ? 1 : consumers;   // in turns, one consumer a whole tile
    const int bmc = 128 * 128 / bn, bm = readers * bmc;
    const int64_t tiles_m = (M + bm - 1) / bm, tiles_n = (N + bn - 1) / bn, slices = (K + 63) / 64;
    const int64_t cluster_rows = (tiles_m + cluster - 1) / cluster;
    Walked w;
    for (int64_t id = 0; id < cluster_rows * tiles_n; ++id) {
        int cm_, tn_;   // the kernel's own order (kernels/matmul/tile_order.cuh)
        tile_at(v.at("ORDER"), group, int(id), int(cluster_rows), int(tiles_n), cm_, tn_);
        const int64_t cm = cm_, tn = tn_;
        for (int rank = 0; rank < cluster; ++rank) {   // every block of the cluster, past M or not
            const int64_t tm = cm * cluster + rank, m0 = tm * bm, n0 = tn * bn;
            if (tm < tiles_m) w.tiles.insert({tm, tn});
            for (int64_t t = 0; t < slices; ++t) {
                const int64_t k_in = std::min<int64_t>(64, K - t * 64);
                int64_t b_columns = 0;   // the boxes this block reads and multicasts
                for (int x = rank; x < bn / 64; x += cluster) b_columns += std::clamp<int64_t>(N - n0 - 64 * x, 0, 64);
                w.total.global_loads += double(k_in * (std::clamp<int64_t>(M - m0, 0, bm) + b_columns));
                w.total.shared_stores += double(64 * (bm + bn));
                for (int c = 0; c < readers; ++c)
                    for (int kk = 0; kk < 4; ++kk)
                        for (int i = 0; i < bmc / 64; ++i) w.total.shared_loads += 64 * 16 + 16 * bn, w.wgmmas += 1;
            }
            w.total.global_stores += stores_of_tile(m0, n0, p, readers, bmc, bn);   // the tile's consumer(s)
            // EPILOGUE: each warp's 16-row band below M, each 32-column box left of N, staged and read back.
            if (v.at("EPILOGUE"))
                for (int band = 0; band < bm / 16; ++band)
                    for (int q = 0; q < bn / 32; ++q)
                        if (m0 + 16 * band < M && n0 + 32 * q < N) w.total.shared_stores += 1024, w.total.shared_loads += 1024;
        }
    }
    return w;
}

TEST(WarpSpecializedModel, CountsEqualTheWalkAtRandomConfigurationsAndOddSizes) {
    const Variant& v = specialized();
    std::mt19937 rng(20261202);
    int checked = 0;
    for (const RunRequest& base : test::random_valid_requests(v, 24, 20261202, {.max_dim = 600, .align = 8, .aligned_every = 1})) {
        RunRequest req = base;
        if (checked % 2 == 1) req.problem.dim[0] = std::uniform_int_distribution<int64_t>(1, 600)(rng) | 1;
        req.params["STREAMK"] = 0;   // its partial sums depend on the blocks resident: the stream-K test below
        ASSERT_EQ(model_engine().invalid_reason(req), "");
        const ParamValues values = with_defaults(v.params, req.params);
        SCOPED_TRACE(v.kernel(values).name_expression + " at " + format_problem(req.problem));
        const CostModel m = v.cost_model(values, req.problem);
        const Walked w = walk(values, req.problem);
        EXPECT_EQ(m.total, w.total);
        EXPECT_DOUBLE_EQ(test::extra_value(m, "wgmma, total"), w.wgmmas);
        const int bm = (values.at("PINGPONG") ? 1 : values.at("CONSUMERS")) * 128 * 128 / values.at("BN");
        EXPECT_EQ(int64_t(w.tiles.size()), ((req.problem.dim[0] + bm - 1) / bm) * ((req.problem.dim[1] + values.at("BN") - 1) / values.at("BN")))
            << "the grouped order visits every tile once";
        ++checked;
    }
    EXPECT_EQ(checked, 24);
}

// ORDER = 1's curve (the kernel's own hilbert_tile) on every grid up to 48×48: each tile once, each
// step to a neighbour (a diagonal at an odd split, never further), and on grids of even sides every
// step one tile across or down.
TEST(WarpSpecializedModel, TheHilbertOrderVisitsEveryTileOnceStepByStep) {
    for (int m = 1; m <= 48; ++m)
        for (int n = 1; n <= 48; ++n) {
            std::set<std::pair<int, int>> seen;
            int pm = 0, pn = 0, longer = 0;
            for (int id = 0; id < m * n; ++id) {
                int tm = -1, tn = -1;
                hilbert_tile(id, m, n, tm, tn);
                ASSERT_TRUE(tm >= 0 && tm < m && tn >= 0 && tn < n) << m << "×" << n << " tile " << id;
                seen.insert({tm, tn});
                const int step = std::abs(tm - pm) + std::abs(tn - pn);
                if (id > 0) {
                    ASSERT_LE(step, 2) << m << "×" << n << " tile " << id;
                }
                longer += id > 0 && step > 1;
                pm = tm, pn = tn;
            }
            EXPECT_EQ(int(seen.size()), m * n) << m << "×" << n;
            if (m % 2 == 0 && n % 2 == 0) {
                EXPECT_EQ(longer, 0) << m << "×" << n;
            }
        }
}

// Lesson 22's step on the tile order: at 8192³ with clusters of two (a 32×32 grid of 256×256
// cluster tiles, 66 clusters in flight), each run of 66 consecutive tiles reads the rows of A and
// the columns of B of the tiles it holds; averaged over the 15 whole runs, the Hilbert curve's runs
// hold 5,103 of them, GROUP = 8's 4,762 (a run of the curve fits one of its squares only where it
// starts on one).
TEST(WarpSpecializedModel, TheHilbertRunsInFlightAt8192WithClustersHoldMoreRowsAndColumns) {
    const int side = 32, run = 66;
    for (int order = 0; order < 2; ++order) {
        int64_t held = 0, runs = 0;
        for (int start = 0; start + run <= side * side; start += run, ++runs) {
            std::set<int> rows, cols;
            for (int id = start; id < start + run; ++id) {
                int tm = 0, tn = 0;
                if (order == 1) hilbert_tile(id, side, side, tm, tn);
                else grouped_tile<8>(id, side, side, tm, tn);
                rows.insert(tm), cols.insert(tn);
            }
            held += 256 * int64_t(rows.size() + cols.size());
        }
        EXPECT_EQ(runs, 15);
        EXPECT_EQ((held + runs / 2) / runs, order == 1 ? 5103 : 4762) << "ORDER=" << order;
    }
}

// Persistent: one block an SM of the target (132 on the H100 preset), never more than the tiles.
TEST(WarpSpecializedModel, APersistentLaunchHasOneBlockAnSmAndNoMoreThanTheTiles) {
    RunRequest req{.variant = "matmul.warp_specialized", .params = {}, .problem = test::size(4096, 4096, 4096)};
    const RunResult r = model_engine().analyze(req);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.launch.grid[0], unsigned(r.target.sm_count));
    EXPECT_EQ(r.launch.block[0], 384u);
    req.params["PERSISTENT"] = 0;
    EXPECT_EQ(model_engine().analyze(req).launch.grid[0], 32u * 16) << "128×256 tiles";
    req.params["PERSISTENT"] = 1;
    req.problem = test::size(256, 512, 64);
    EXPECT_EQ(model_engine().analyze(req).launch.grid[0], 4u) << "a persistent grid never exceeds the tiles";
}

// The Tiles panel's pipeline timeline takes one block's work from the run: a stage's A and B boxes,
// the tile's FP32 store, the k-steps, the most tiles a block walks, the consumers' turns, and a
// slice's 2·BM·BN·BK FLOPs at one SM's share of the tensor roof.
TEST(WarpSpecializedModel, ThePipelineTimelineTakesOneBlocksWorkFromTheRun) {
    RunRequest req{.variant = "matmul.warp_specialized", .params = {}, .problem = test::size(4096, 4096, 4096)};
    RunResult r = model_engine().analyze(req);
    ASSERT_TRUE(r.ok) << r.error;
    auto p = run_pipeline(specialized().tiles(r.request.params, req.problem), r, 50, 0.5);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->stage_bytes, 2 * 64 * (128 + 256));
    EXPECT_EQ(p->tile_store_bytes, 4 * 128 * 256);
    EXPECT_EQ(p->input.stages, 4);
    EXPECT_EQ(p->input.slices, 64);
    EXPECT_EQ(p->input.tiles, (512 + r.target.sm_count - 1) / r.target.sm_count);
    EXPECT_EQ(p->input.groups, 1);
    EXPECT_DOUBLE_EQ(p->input.mma_us, 2.0 * 128 * 256 * 64 / (r.target.peak_gflops(ElementType::bf16) * 1e3 / r.target.sm_count));
    EXPECT_DOUBLE_EQ(p->input.load_us, 49152 / 50e3);
    EXPECT_DOUBLE_EQ(p->input.latency_us, 0.5);
    EXPECT_EQ(p->measured_block_us, 0) << "nothing measured in model mode";
    req.params["PINGPONG"] = 1;
    r = model_engine().analyze(req);
    p = run_pipeline(specialized().tiles(r.request.params, req.problem), r, 50, 0.5);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->input.groups, 2);
    EXPECT_FALSE(run_pipeline(specialized().tiles(r.request.params, req.problem), r, 0, 0.5).has_value()) << "no load rate";
}

// Clusters: whole clusters in the grid (a third tile row gets a partner past M), a persistent grid
// cut to whole clusters, and a cluster must split B's boxes evenly.
TEST(WarpSpecializedModel, AClusteredLaunchHasWholeClusters) {
    RunRequest req{.variant = "matmul.warp_specialized", .params = {{"CLUSTER", 2}, {"PERSISTENT", 0}},
                   .problem = test::size(384, 512, 64)};
    RunResult r = model_engine().analyze(req);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.launch.cluster, 2u);
    EXPECT_EQ(r.launch.grid[0], 2u * 2 * 2) << "3 tile rows of 128 make 2 cluster rows, by 2 tile columns";
    req.params = {{"CLUSTER", 4}};
    req.problem = test::size(4096, 4096, 4096);
    r = model_engine().analyze(req);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.launch.grid[0], unsigned(r.target.sm_count) / 4 * 4);
    EXPECT_EQ(r.launch.grid[0] % 4, 0u);
    const Variant& v = specialized();
    EXPECT_NE(v.invalid_reason(with_defaults(v.params, {{"CLUSTER", 4}, {"BN", 128}}), test::size(512, 512, 512), *find_target("h100"))
                  .find("CLUSTER must divide"),
              std::string::npos);
    const CostModel one = v.cost_model(with_defaults(v.params, {}), test::size(4096, 4096, 4096));
    const CostModel two = v.cost_model(with_defaults(v.params, {{"CLUSTER", 2}}), test::size(4096, 4096, 4096));
    EXPECT_DOUBLE_EQ(one.total.global_loads - two.total.global_loads, 4096.0 * 4096 * 16) << "B read once a cluster row: 16 rows fewer";
}

// In turns: the block tile is one consumer's, its slices read by one consumer warpgroup; the
// counts are one consumer's tiling with the third warpgroup's threads, and two consumers are needed.
TEST(WarpSpecializedModel, ConsumersInTurnsTakeWholeTilesOfTheirOwn) {
    const Variant& v = specialized();
    const Problem p = test::size(4096, 4096, 4096);
    const ParamValues turns = with_defaults(v.params, {{"PINGPONG", 1}, {"BN", 128}});
    const CostModel m = v.cost_model(turns, p);
    EXPECT_DOUBLE_EQ(test::extra_value(m, "arrivals / empty barrier"), 4.0);
    EXPECT_EQ(m.total, v.cost_model(with_defaults(v.params, {{"CONSUMERS", 1}, {"BN", 128}}), p).total)
        << "128×128 tiles either way";
    RunRequest req{.variant = "matmul.warp_specialized", .params = {{"PINGPONG", 1}, {"PERSISTENT", 0}, {"BN", 128}}, .problem = p};
    const RunResult r = model_engine().analyze(req);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.launch.grid[0], 32u * 32) << "one block a 128×128 tile";
    EXPECT_EQ(r.launch.block[0], 384u);
    EXPECT_EQ(v.invalid_reason(with_defaults(v.params, {{"PINGPONG", 1}, {"CONSUMERS", 1}}), p, *find_target("h200")),
              tr("constraint.matmul.warp_specialized.pingpong_two"));
    EXPECT_EQ(v.invalid_reason(with_defaults(v.params, {{"PINGPONG", 1}, {"BN", 128}, {"STAGES", 7}}), p, *find_target("h200")), "")
        << "7 stages of 32 KB";
}

// C through shared memory and TMA: two 2 KB buffers a consumer warp beside the ring (four 48 KB stages
// still fit), C's tensor map (FP32, 32×64 boxes) always passed, and the staged floats counted.
TEST(WarpSpecializedModel, StoringCByTmaStagesEveryBoxOnce) {
    const Variant& v = specialized();
    const Problem p = test::size(1000, 1000, 64);
    const ParamValues staged = with_defaults(v.params, {{"EPILOGUE", 1}});
    EXPECT_EQ(v.invalid_reason(staged, p, *find_target("h200")), "") << "4·49,152 + 32,768 + 1,088 bytes fit in 232,448";
    const CostModel with = v.cost_model(staged, p), without = v.cost_model(with_defaults(v.params, {}), p);
    EXPECT_DOUBLE_EQ(test::extra_value(with, "C boxes staged"), 63.0 * 32);
    EXPECT_DOUBLE_EQ(with.total.shared_stores - without.total.shared_stores, 63.0 * 32 * 1024);
    EXPECT_EQ(with.total.global_stores, without.total.global_stores);
    EXPECT_DOUBLE_EQ(test::extra_value(with, "dynamic shared memory (bytes)"), 4 * 49152 + 32768 + 64 + 1024);
    const LaunchShape s = v.launch(staged, p);
    ASSERT_EQ(s.tensor_maps.size(), 3u);
    EXPECT_EQ(s.tensor_maps[2].arg, 2);
    EXPECT_EQ(s.tensor_maps[2].element_bytes, 4);
    EXPECT_EQ(s.tensor_maps[2].box[0] * 4u, 128u) << "a box row is one 128-byte swizzle row";
    EXPECT_EQ(s.tensor_maps[2].box[1], 16u) << "a warp's rows";
}

TEST(WarpSpecializedModel, OnlySm90RunsItAndTheRingMustFit) {
    const Variant& v = specialized();
    const auto values = [&](ParamValues given) { return with_defaults(v.params, given); };
    EXPECT_EQ(v.invalid_reason(values({}), test::size(512, 512, 512), *find_target("h200")), "");
    EXPECT_NE(v.invalid_reason(values({}), test::size(512, 500, 512), *find_target("h100")).find("multiples of 8"), std::string::npos);
    EXPECT_NE(v.invalid_reason(values({{"STAGES", 5}}), test::size(512, 512, 512), *find_target("h100")).find("shared memory"),
              std::string::npos)
        << "5 stages of 49,152 bytes";
    EXPECT_EQ(v.invalid_reason(values({{"STAGES", 6}, {"CONSUMERS", 1}, {"BN", 128}}), test::size(512, 512, 512), *find_target("h100")), "");
    EXPECT_EQ(v.kernel(values({})).arch_specific, 90);
    // Elsewhere the engine analyses it against sm_90's limits (its 197,696 bytes exceed an A100
    // block's 166,912) and the compile row says why it is not compiled.
    Engine engine(EngineConfig{"", /*force_model_mode=*/true});
    engine.set_target(*find_target("a100"));
    const RunResult r = engine.analyze(RunRequest{.variant = v.id, .params = {}, .problem = test::size(512, 512, 512)});
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.compiled);
    EXPECT_NE(r.compiled->error.find("sm_80"), std::string::npos) << r.compiled->error;
    EXPECT_EQ(r.launch.grid[0], 8u) << "4·2 tiles of 128×256, fewer than sm_90's SMs";
}

// The tuner's model guesses registers before ptxas from what the model expects (one register a
// sum, or setmaxnreg's share), not the FP32 lessons' 2 a sum: the two-consumer tile fits one block
// an SM and ranks ahead of one consumer, as measured (H200, 4096³: 0.185 against 0.208 ms).
TEST(WarpSpecializedModel, TheTunersModelRanksTwoConsumersFirst) {
    const Variant& v = specialized();
    const Problem p = test::size(4096, 4096, 4096);
    const auto score = [&](ParamValues given) { return model_score_ms(model_engine(), v, with_defaults(v.params, given), p); };
    EXPECT_LT(score({}), score({{"CONSUMERS", 1}}));
    EXPECT_LT(score({{"SETMAXNREG", 0}}), score({{"SETMAXNREG", 0}, {"CONSUMERS", 1}}));
}

// The persistent blocks' last round of tiles counts: one 128×256 tile past the SMs' count (133 on
// 132) takes two rounds, so it scores about twice the time of one round of 132, not 133/132 of it.
TEST(WarpSpecializedModel, TheTunersModelCountsTheLastRoundOfTiles) {
    const Variant& v = specialized();
    const auto score = [&](int64_t tiles) {
        return model_score_ms(model_engine(), v, with_defaults(v.params, {}), test::size(128 * tiles, 256, 4096));
    };
    const int sms = model_engine().target().sm_count;
    ASSERT_GT(sms, 0);
    EXPECT_GT(score(sms + 1) / score(sms), 1.9);
    EXPECT_LT(score(2 * sms) / score(sms + 1), 1.05) << "two full rounds cost what one tile past one round does";
    const auto shared = [&](int rounds, int64_t tiles) {
        return model_score_ms(model_engine(), v, with_defaults(v.params, {{"STREAMK", rounds}}), test::size(128 * tiles, 256, 4096));
    };
    // Not a second round: the tile past the round is shared among all blocks, at the price of the
    // partial sums of the tiles the runs cut (STREAMK=2: 131 of 133 here, 8% more bytes in the
    // roofline; STREAMK=1: the one tile past the round, cut into 64 parts of one slice each).
    for (int rounds : {1, 2})
        EXPECT_LT(shared(rounds, sms + 1) / shared(rounds, sms), 1.1) << "STREAMK=" << rounds << " shares the tile past the round";
}

// Stream-K on the H100 preset's resident blocks: the kernel's own schedule (kernels/matmul/
// stream_k.cuh), walked worker by worker, gives every slice of every tile to exactly one worker;
// a cut tile's parts lie on consecutive workers, head first; a head ends its worker's share, a
// tail starts it, a middle is all of it (so every wait is on a part that waits on nothing or only
// on later workers); the most parts a tile has (as the case expects); each part knows
// how many follow it; and the model counts exactly the partial sums passed on (stored by every part
// after the head, read by the part before it: twice their floats in 2-byte loads).
TEST(WarpSpecializedModel, StreamKSharesEverySliceOnceAndTheModelCountsThePartialSums) {
    const Variant& v = specialized();
    struct Case {
        ParamValues given;
        Problem p;
        int most_parts;         // of a tile
        int clusters_fit = 0;   // Target::resident_clusters[CLUSTER], where above 0
    };
    const std::vector<Case> cases = {
        {{{"STREAMK", 2}}, test::size(4096, 4096, 4096), 2},
        {{{"STREAMK", 2}, {"CLUSTER", 2}, {"EPILOGUE", 1}}, test::size(2001, 2056, 1000), 2},
        {{{"STREAMK", 2}, {"CONSUMERS", 1}, {"BN", 128}, {"ORDER", 1}}, test::size(2501, 1032, 520), 2},
        {{{"STREAMK", 2}}, test::size(1536, 1536, 16384), 3},                     // 72 tiles: all shared
        {{{"STREAMK", 2}, {"CLUSTER", 2}}, test::size(1001, 1000, 2000), 5},      // 16 cluster tiles on 66
        {{{"STREAMK", 2}}, test::size(128 * 132, 256, 512), 1},                   // whole rounds
        {{{"STREAMK", 2}}, test::size(301, 296, 312), 5},                         // 30 slice-steps on 132
        {{{"STREAMK", 2}, {"CLUSTER", 2}, {"CONSUMERS", 1}, {"EPILOGUE", 1}, {"ORDER", 1}}, test::size(578, 144, 296), 5},
        {{{"STREAMK", 1}}, test::size(4096, 4096, 4096), 3},                      // the fourth round only: 56.2 of 64 slices each
        {{{"STREAMK", 1}, {"CLUSTER", 2}, {"EPILOGUE", 1}}, test::size(2001, 2056, 1000), 11},   // 6 tiles' 96 slices on 66
        {{{"STREAMK", 1}}, test::size(1536, 1536, 16384), 3},                     // fewer tiles than blocks: as STREAMK=2
        {{{"STREAMK", 1}, {"CONSUMERS", 1}, {"BN", 128}, {"ORDER", 1}}, test::size(2501, 1032, 520), 4},   // 3.3 slices each
        {{{"STREAMK", 1}}, test::size(128 * 132, 256, 512), 1},                   // whole rounds
        // Clusters of 4: 33 on the preset's 132 SMs; 30 where the GPU says so (an H200's GPCs):
        // 9 cluster tiles of 9 slices shared among 33 or 30 clusters.
        {{{"STREAMK", 1}, {"CLUSTER", 4}, {"CONSUMERS", 1}, {"EPILOGUE", 1}, {"GROUP", 1}, {"STAGES", 3}}, test::size(558, 640, 576), 4},
        {{{"STREAMK", 1}, {"CLUSTER", 4}, {"CONSUMERS", 1}, {"EPILOGUE", 1}, {"GROUP", 1}, {"STAGES", 3}}, test::size(558, 640, 576), 4, 30},
    };
    for (const Case& c : cases) {
        const ParamValues values = with_defaults(v.params, c.given);
        SCOPED_TRACE(v.kernel(values).name_expression + " at " + format_problem(c.p));
        Target target = model_engine().target();
        target.resident_clusters[values.at("CLUSTER")] = c.clusters_fit;
        ASSERT_EQ(v.invalid_reason(values, c.p, target), "");
        const int bn = values.at("BN"), readers = values.at("CONSUMERS"), cluster = values.at("CLUSTER");
        const int bmc = 128 * 128 / bn, bm = readers * bmc;
        const int tiles_m = int((c.p.dim[0] + bm - 1) / bm), tiles_n = int((c.p.dim[1] + bn - 1) / bn);
        const int cluster_rows = (tiles_m + cluster - 1) / cluster, units = cluster_rows * tiles_n;
        const int slices = int((c.p.dim[2] + 63) / 64);
        const int workers = int(resident_on(v.launch(values, c.p), target).grid[0]) / cluster;
        struct Part {
            int worker, k_begin, k_end, after;
        };
        std::vector<std::vector<Part>> parts(units);
        for (int worker = 0; worker < workers; ++worker) {
            StreamKSchedule work(units, workers, worker, slices, values.at("STREAMK"));
            std::vector<TileWork> share;
            for (TileWork w; work.take(w);) share.push_back(w);
            for (size_t j = 0; j < share.size(); ++j) {
                const TileWork& w = share[j];
                ASSERT_LT(w.k_begin, w.k_end);
                parts[w.tile].push_back({worker, w.k_begin, w.k_end, is_cut(w, slices) ? work.parts_after(w) : 0});
                if (w.k_end < slices) {
                    EXPECT_EQ(j + 1, share.size()) << "a head or a middle ends its worker's share";
                }
                if (w.k_begin > 0) {
                    for (size_t before = 0; before < j; ++before)
                        EXPECT_TRUE(share[before].k_begin == 0 && share[before].k_end == slices)
                            << "a tail or a middle starts its worker's share of the cut tiles";
                }
            }
        }
        double partial = 0, cut = 0;
        int most = 0;
        for (int u = 0; u < units; ++u) {
            std::vector<Part>& ps = parts[u];
            std::sort(ps.begin(), ps.end(), [](const Part& a, const Part& b) { return a.k_begin < b.k_begin; });
            int k = 0;
            for (size_t i = 0; i < ps.size(); ++i) {
                ASSERT_EQ(ps[i].k_begin, k) << "tile " << u << ": its slices in order, none twice";
                k = ps[i].k_end;
                EXPECT_EQ(ps[i].worker, ps[0].worker + int(i)) << "tile " << u << ": parts on consecutive workers";
                EXPECT_EQ(ps[i].after, int(ps.size() - 1 - i)) << "tile " << u << ": the parts after this one";
            }
            ASSERT_EQ(k, slices) << "tile " << u;
            most = std::max(most, int(ps.size()));
            if (ps.size() < 2) continue;
            int cm = 0, tn = 0;
            tile_at(values.at("ORDER"), values.at("GROUP"), u, cluster_rows, tiles_n, cm, tn);
            for (int rank = 0; rank < cluster; ++rank) {
                partial += double(ps.size() - 1) * stores_of_tile((int64_t(cm) * cluster + rank) * bm, int64_t(tn) * bn, c.p, readers, bmc, bn);
                cut += 1;
            }
        }
        EXPECT_EQ(most, c.most_parts);
        const CostModel with = v.cost_model(values, c.p, target);
        ParamValues whole_tiles = values;
        whole_tiles["STREAMK"] = 0;
        const CostModel plain = v.cost_model(whole_tiles, c.p, target);
        EXPECT_DOUBLE_EQ(test::extra_value(with, "stream-K: tiles cut"), cut);
        EXPECT_DOUBLE_EQ(test::extra_value(with, "stream-K: partial sums through C"), partial);
        EXPECT_DOUBLE_EQ(with.total.global_stores - plain.total.global_stores, partial);
        EXPECT_DOUBLE_EQ(with.total.global_loads - plain.total.global_loads, 2 * partial);
        EXPECT_EQ(with.total.shared_loads, plain.total.shared_loads);
    }
    const Target target = model_engine().target();
    EXPECT_EQ(v.invalid_reason(with_defaults(v.params, {{"STREAMK", 1}, {"PERSISTENT", 0}}), test::size(512, 512, 512), target),
              tr("constraint.matmul.warp_specialized.stream_k_persistent"));
    EXPECT_EQ(v.invalid_reason(with_defaults(v.params, {{"STREAMK", 1}, {"PINGPONG", 1}, {"BN", 128}}), test::size(512, 512, 512), target),
              tr("constraint.matmul.warp_specialized.stream_k_pingpong"));
}

}  // namespace
}  // namespace tilelab
