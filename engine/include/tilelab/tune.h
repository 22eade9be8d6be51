// The autotuner: the best parameters of one variant at one size on this GPU. No CUDA here; the
// CLI's `tune` and (later) the GUI's Compare tab call it.
//
// The search, deterministic for a seed:
//   1. walk every combination of the searched parameters lazily (an odometer over each one's
//      values(), the last declared parameter fastest) and keep the points the engine calls valid;
//      a space of more than kMaxWalkedPoints combinations (lesson 11's 8 million, lesson 20's
//      billions) is walked at kMaxWalkedPoints distinct points drawn at random instead, the same
//      points for every seed (the seed moves step 2's sample only);
//   2. score each valid point by the model alone (no compile): a roofline time from its FLOPs,
//      global and shared accesses (the bound plus a quarter of the other two), divided by the
//      fraction of the last wave of blocks that is full (for a persistent kernel, also of its last
//      round of tiles) and of the warps' lanes in use, scaled up
//      below 8 warps per SM (latency; registers guessed from the model's accumulators where it
//      declares them, ×4 when the guess passes the per-thread limit); points the model cannot tell apart (the same threads, shared
//      memory, FLOPs and traffic) count once: one per signature first, their twins after;
//      keep the `shortlist` best scores plus `sample` points drawn at random (seeded reservoir)
//      from the rest, so a model that misjudges one corner of the space cannot hide it all, and
//      the variant's defaults (so the answer is never worse than what the lesson opens with)
//      and every step of its lessons (a configuration a teacher chose, which the roofline may
//      rank low);
//   3. compile each candidate (NVRTC, no GPU) and prune: register spills, no block fits on an SM,
//      shared memory over the limit; each pruned point keeps its reason, and a pruned model pick
//      is replaced by the next best score (at most 3 × shortlist replacements);
//   4. on a GPU: time every candidate with the quick protocol (validated first, as every run is),
//      then walk from the best by coordinate descent (one parameter one value up or down at a
//      time) while that improves, until four fifths of the budget; then run the best `full_runs`
//      with the full protocol in the rest; stop when cancelled. Rank by median time, the points
//      with a full run first.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include "tilelab/device.h"
#include "tilelab/params.h"
#include "tilelab/target.h"
#include "tilelab/variant.h"

namespace tilelab {

class Engine;
class GpuPool;

// The most combinations step 1 walks: a larger space is sampled (about a second of constraint
// checks on the 2-core development machine; lesson 06's 147,456 are still walked whole).
inline constexpr uint64_t kMaxWalkedPoints = 200000;

struct TuneConfig {
    std::vector<std::string> searched;   // parameter names; empty = every parameter the variant tunes (ParamSpec::searched_by_default)
    ParamValues fixed;                   // values of the parameters not searched (defaults otherwise)
    Problem problem;
    int shortlist = 24;                  // candidates kept by the model's score
    int sample = 8;                      // and drawn at random from the other valid points
    uint64_t seed = 1;
    double budget_s = 60;                // GPU phase: stop measuring after this long
    int full_runs = 3;                   // the best this many get a full run at the end
};

struct TuneCandidate {
    ParamValues params;                  // every parameter of the variant
    std::string origin;                  // "model", "sample", "default", "step" (a lesson's) or "refine" (coordinate descent)
    double score_ms = 0;                 // the model's estimate (step 2), no compile
    double intensity = 0;                // model FLOP per byte of global traffic
    // Step 3: the compile.
    bool analysed = false;
    std::string pruned;                  // non-empty: why this point is not measured
    int registers = 0, spill_bytes = 0, smem_bytes = 0, threads = 0, blocks_per_sm = 0;
    double occupancy = 0;
    // Step 4: the measurement.
    bool measured = false;
    std::string phase;                   // "quick" or "full"
    bool valid = false;                  // validated against the reference
    std::string error;                   // a failed run or validation, one line
    double median_ms = 0, pct_of_reference = 0;
};

struct TuneReport {
    std::string variant, target, arch;   // arch: "sm_90"
    Problem problem;
    std::vector<std::string> searched;
    ParamValues fixed;
    uint64_t seed = 1;
    int shortlist = 0, sample = 0;       // as configured (TuneConfig): part of the cache key
    double budget_s = 0;
    uint64_t combinations = 0;           // every combination of the searched values
    uint64_t walked = 0;                 // of which step 1 looked at (all, or kMaxWalkedPoints drawn at random)
    uint64_t valid = 0;                  // of which the variant's constraints accept
    bool gpu = false;                    // measured on a GPU (else model mode: compiled only)
    int tried = 0;                       // points measured
    bool budget_hit = false, cancelled = false;
    double elapsed_s = 0;
    std::string measured_at;             // UTC, "2026-11-23T19:40:00Z"
    std::string reference_name;          // "cuBLAS SGEMM"
    double reference_ms = 0;
    std::vector<TuneCandidate> candidates;   // ranked (rank_candidates)
};

// Step 1: calls visit(values) for every valid point (all parameters set) in odometer order, or,
// where the space is larger than kMaxWalkedPoints, for the valid ones of that many distinct
// points drawn at random, always the same (in the order drawn); a false return stops the walk.
// Returns the number of combinations walked.
uint64_t for_each_valid_point(const Engine& engine, const Variant& v, const TuneConfig& cfg,
                              const std::function<bool(const ParamValues&)>& visit);
// Every combination of the searched parameters' values (saturating at UINT64_MAX).
uint64_t tune_space_size(const Variant& v, const TuneConfig& cfg);
// "space: N combinations, V valid; ..." as the CLI and the Compare tab show it, saying when the
// space was sampled.
std::string tune_space_text(const TuneReport& r);

// Step 2's score: the model's time in ms for `values` on the engine's target (no compile).
double model_score_ms(const Engine& engine, const Variant& v, const ParamValues& values, const Problem& problem);

// The report's identity before anything is searched: target, variant, size, search settings (the cache key).
TuneReport tune_key(const Engine& engine, const Variant& v, const TuneConfig& cfg);
// The same from the target and whether it is a GPU (the GUI's thread asks without the engine).
TuneReport tune_key(const Target& target, bool gpu, const Variant& v, const TuneConfig& cfg);

// Steps 1 and 2: the report with its space counted and its candidates chosen, not compiled.
TuneReport plan_tune(const Engine& engine, const Variant& v, const TuneConfig& cfg);

// Step 3's rule for one compiled point: "" when it may run, else why not.
std::string prune_reason(const TuneCandidate& c, int smem_limit);

struct TuneProgress {
    std::string stage;                   // "compile" or "measure"
    int done = 0, total = 0;
    const TuneCandidate* best = nullptr; // the best measured so far
};

struct TuneCallbacks {
    std::function<void(const TuneProgress&)> progress;
    const CancelFlag* cancel = nullptr;
    // Several GPUs of one model (tilelab/gpu_pool.h): step 4's first timing of the candidates is
    // spread over them, each GPU taking the next candidate (all are compiled and pruned first);
    // the refinement and the full runs stay on the engine given to run_tune.
    GpuPool* pool = nullptr;
};

// Steps 1 to 4 (4 only on a GPU). Never throws for a failed point: it is kept with its reason.
TuneReport run_tune(Engine& engine, const Variant& v, const TuneConfig& cfg, const TuneCallbacks& cb = {});

// Measured and valid by median time — those with a full run first: the full runs are of the best
// few by the quick protocol, whose medians can read a few per cent lower than the full one's, so a
// full run never drops below a point it beat on equal terms — then the unmeasured by score, then
// failures, then pruned.
void rank_candidates(std::vector<TuneCandidate>& candidates);

// One sentence: how the space was searched, for the output.
std::string tune_strategy_text(const TuneReport& r, const TuneConfig& cfg);

// ---- cache: $XDG_CACHE_HOME/tilelab/tune/ --------------------------------------------------
// The file that holds the report for this GPU, variant, size, searched parameters and fixed values.
std::string tune_cache_path(const std::string& cache_root, const TuneReport& key);
std::string tune_report_to_json(const TuneReport& r);
// false with a one-line `error` when `text` is not a tune report this version wrote.
bool tune_report_from_json(const std::string& text, TuneReport& out, std::string& error);
// Written atomically (safe_file.h). false with `error` naming the path.
bool save_tune_cache(const std::string& path, const TuneReport& r, std::string& error);
enum class CacheLoad { hit, missing, refused };
// refused: something is there but it is not a report for `key` (corrupt, another version, another
// key); `error` says what, and the caller measures again.
CacheLoad load_tune_cache(const std::string& path, const TuneReport& key, TuneReport& out, std::string& error);

}  // namespace tilelab
