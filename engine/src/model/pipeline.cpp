// One block's pipeline, event by event (tilelab/pipeline.h states the rules).
#include "tilelab/pipeline.h"
#include <algorithm>
#include <cmath>
#include "tilelab/precision.h"
#include "tilelab/result.h"
#include "tilelab/tiles.h"
#include "tilelab/util.h"

namespace tilelab {

namespace {
constexpr int64_t kMostSlices = 1 << 16;   // a bound on the work simulated (and drawn)

bool finite_at_least(double v, double lo) { return std::isfinite(v) && v >= lo; }
}  // namespace

std::string pipeline_input_error(const PipelineInput& in) {
    if (in.stages < 1) return "a pipeline needs at least one stage";
    if (in.slices < 1 || in.tiles < 1) return "a pipeline needs at least one slice of one tile";
    if (in.slices > kMostSlices / in.tiles) return "too many slices to simulate";
    if (in.groups < 1 || in.groups > 8) return "consumer groups must be 1 to 8";
    if (!finite_at_least(in.mma_us, 0) || !finite_at_least(in.load_us, 0) || !finite_at_least(in.latency_us, 0) ||
        !finite_at_least(in.store_us, 0))
        return "durations must be finite and not negative";
    return "";
}

PipelineTimeline simulate_pipeline(const PipelineInput& in) {
    PipelineTimeline out;
    if (!pipeline_input_error(in).empty()) return out;
    const int64_t n = in.slices * in.tiles, S = in.stages;
    std::vector<double> mma_start(size_t(n), 0), release(size_t(n), 0);
    std::vector<double> group_free(size_t(in.groups), 0);
    double issue_prev = 0, arrival_prev = 0, mma_end_prev = 0;
    for (int64_t g = 0; g < n; ++g) {
        // The producer: stage g mod S must be empty (slice g − S handed back). With S ≥ 2 that
        // slice's release was decided when slice g − S + 1 ≤ g − 1 started.
        const double empty_at = g >= S ? release[size_t(g - S)] : 0;
        const double issue = std::max(issue_prev, empty_at);
        if (g >= S && empty_at > issue_prev) out.producer_wait_us += empty_at - issue_prev;
        const double arrival = std::max(issue + in.latency_us, arrival_prev) + in.load_us;
        const int lane = int(g % S);
        out.spans.push_back({PipelineSpanKind::Loading, lane, g, issue, arrival});
        issue_prev = issue;
        arrival_prev = arrival;

        // The consumers.
        const int64_t tile = g / in.slices;
        const int group = int(tile % in.groups);
        const bool first_of_tile = g % in.slices == 0, last_of_tile = (g + 1) % in.slices == 0;
        double start = std::max(arrival, mma_end_prev);
        if (first_of_tile) start = std::max(start, group_free[size_t(group)]);
        out.consumer_wait_us += start - mma_end_prev;
        mma_start[size_t(g)] = start;
        const double end = start + in.mma_us;
        // Slice g − 1's stage comes back as slice g starts (wait_group 1); a tile's last slice's,
        // or every slice's with one stage, at its own end (wait_group 0).
        if (!first_of_tile && S > 1) release[size_t(g - 1)] = start;
        if (last_of_tile || S == 1) release[size_t(g)] = end;
        out.spans.push_back({PipelineSpanKind::Loaded, lane, g, arrival, start});
        out.spans.push_back({PipelineSpanKind::Multiplying, int(S) + group, g, start, end});
        mma_end_prev = end;
        if (last_of_tile) {
            group_free[size_t(group)] = end + in.store_us;
            out.spans.push_back({PipelineSpanKind::Storing, int(S) + group, g, end, end + in.store_us});
            out.end_us = std::max(out.end_us, end + in.store_us);
        }
    }
    // The stage rows: each slice's stage is read from its multiply's start to its release.
    for (int64_t g = 0; g < n; ++g)
        out.spans.push_back({PipelineSpanKind::Multiplying, int(g % S), g, mma_start[size_t(g)], release[size_t(g)]});
    return out;
}

std::optional<double> fit_load_us(PipelineInput in, double measured_us) {
    if (!pipeline_input_error(in).empty() || !finite_at_least(measured_us, 0)) return std::nullopt;
    const double store_per_load = in.load_us > 0 ? in.store_us / in.load_us : 0;   // the same rate moves both
    auto end_at = [&](double load) {
        in.load_us = load;
        in.store_us = store_per_load * load;
        return simulate_pipeline(in).end_us;
    };
    double lo = 0, hi = measured_us;   // every slice loads, so end ≥ load_us: hi ends at or past it
    double end_lo = end_at(lo), end_hi = end_at(hi);
    if (end_lo > measured_us) return std::nullopt;
    for (int i = 0; i < 48 && end_hi - end_lo > measured_us * 1e-4; ++i) {
        const double mid = (lo + hi) / 2, end_mid = end_at(mid);
        if (end_mid > measured_us) hi = mid, end_hi = end_mid;
        else lo = mid, end_lo = end_mid;
    }
    return (lo + hi) / 2;
}

std::optional<RunPipeline> run_pipeline(const TileGeometry& t, const RunResult& r, double rate_gbps, double latency_us) {
    const int bps = std::max(1, r.occupancy.blocks_per_sm);
    const double peak = r.target.peak_gflops(r.precision.input);
    const int64_t launched = r.launch.blocks();
    if (t.ring_stages <= 0 || t.k_steps() <= 0 || peak <= 0 || r.target.sm_count <= 0 || launched <= 0 || rate_gbps <= 0)
        return std::nullopt;
    RunPipeline p;
    const int64_t bm = t.block_tile[1], bn = t.block_tile[0], bk = t.k_step;
    p.stage_bytes = int64_t(element_bytes(r.precision.input)) * bk * (bm + bn);
    p.tile_store_bytes = int64_t(element_bytes(r.precision.output)) * bm * bn;
    p.blocks_resident = r.target.sm_count * bps;
    const double flop_per_us = peak * 1e3 / double(p.blocks_resident);   // GFLOP/s = 10³ FLOP/µs
    const double bytes_per_us = rate_gbps * 1e3;                          // GB/s = 10³ B/µs
    p.input.stages = t.ring_stages;
    p.input.slices = t.k_steps();
    p.input.tiles = ceil_div(t.blocks(0) * t.blocks(1), launched);
    p.input.groups = int(std::max<int64_t>(1, t.tiles_in_turns));
    p.input.mma_us = 2.0 * double(bm * bn * bk) / flop_per_us;
    p.input.load_us = double(p.stage_bytes) / bytes_per_us;
    p.input.store_us = double(p.tile_store_bytes) / bytes_per_us;
    p.input.latency_us = latency_us;
    if (r.measured && r.timing.median_ms > 0)
        p.measured_block_us = r.timing.median_ms * 1e3 / double(ceil_div(launched, int64_t(p.blocks_resident)));
    if (!pipeline_input_error(p.input).empty()) return std::nullopt;
    return p;
}

}  // namespace tilelab
