// One block's software pipeline as a timeline (lesson 22's Tiles panel): a ring of S shared
// stages, a producer that asks TMA for slice g of the block's work (tile g / slices, k-step
// g mod slices) into stage g mod S, consumers that multiply it, and a store of each finished tile.
// No CUDA here; a model of the order of events, not a prediction: two of its three durations are
// inputs the picture states (a load's latency, the load rate), the third comes from the datasheet.
//
// The rules, those of kernels/matmul/warp_specialized.cuh:
//   • the producer issues load g once stage g mod S is empty (slice g − S handed back) and after
//     load g − 1; a load arrives `latency_us` after its issue, its bytes then streaming in at
//     the load rate one load after another: arrival_g = max(issue_g + latency, arrival_{g−1}) + load_us;
//   • the consumers start slice g's multiply once it has arrived, slice g − 1's multiply is done
//     (one tensor pipe) and, on a tile's first slice, once the group that takes the tile has stored
//     its previous one (groups = 1, or 2 taking tiles in turns); it takes mma_us;
//   • they hand slice g's stage back when they may issue slice g + 1 (wgmma.wait_group 1 after it:
//     = slice g + 1's start), or at slice g's end where it is its tile's last (wait_group 0) or
//     there is one stage only;
//   • after a tile's last slice its group stores the tile: store_us.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilelab {

struct RunResult;
struct TileGeometry;

struct PipelineInput {
    int stages = 0;           // S ≥ 1
    int64_t slices = 0;       // k-steps of one tile ≥ 1
    int64_t tiles = 1;        // tiles the block walks ≥ 1
    int groups = 1;           // consumer groups taking the tiles in turns (1 = all together)
    double mma_us = 0;        // one slice's multiply
    double load_us = 0;       // one stage's bytes at the load rate
    double latency_us = 0;    // from a load's issue to its first byte
    double store_us = 0;      // one tile's store
    bool operator==(const PipelineInput&) const = default;
};

enum class PipelineSpanKind { Loading, Loaded, Multiplying, Storing };

// lane: a stage (0 … S−1: Loading, Loaded, Multiplying of the slice it holds) or a consumer group
// (S + group: the Multiplying of its slices and its Storing).
struct PipelineSpan {
    PipelineSpanKind kind;
    int lane = 0;
    int64_t slice = 0;        // g: tile g / slices, k-step g mod slices
    double start_us = 0, end_us = 0;
};

struct PipelineTimeline {
    std::vector<PipelineSpan> spans;     // in the order they were decided
    double end_us = 0;                   // the block's last store done
    double consumer_wait_us = 0;         // the tensor pipe idle, waiting on a slice's arrival or a store
    double producer_wait_us = 0;         // the producer held at an empty stage it wanted to fill
};

// The timeline, or why the input cannot have one.
PipelineTimeline simulate_pipeline(const PipelineInput& in);
std::string pipeline_input_error(const PipelineInput& in);

// The load time per stage (load_us) at which the simulated block ends at `measured_us`, the
// store time scaled with it (one rate moves both: store_us / load_us as given), the rest as given
// (bisection until the two ends are within 0.01 % of measured_us; end_us grows with load_us). Empty when even instant loads
// and stores end later than that (the measurement beats the model's tensor roof).
std::optional<double> fit_load_us(PipelineInput in, double measured_us);

// A run's pipeline: the block's durations from its model and target. mma_us: a slice's
// 2·BM·BN·BK FLOPs at the tensor roof's share of one block (peak / SMs / blocks per SM);
// load_us and store_us: the stage's A and B bytes and the tile's C bytes at `rate_gbps` per
// block; tiles: the most any launched block walks.
struct RunPipeline {
    PipelineInput input;
    int64_t stage_bytes = 0, tile_store_bytes = 0;
    // The measured kernel time per wave of blocks (the whole kernel when they are resident at once),
    // 0 when nothing was measured: what one block's simulated life is compared with.
    double measured_block_us = 0;
    int blocks_resident = 0;             // blocks that run at once: SMs × blocks per SM
};
std::optional<RunPipeline> run_pipeline(const TileGeometry& t, const RunResult& r, double rate_gbps, double latency_us);

}  // namespace tilelab
