// The autotuner's search and ranking (tilelab/tune.h). The steps are numbered as in the header.
#include "tilelab/tune.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include "tilelab/engine.h"
#include "tilelab/gpu_pool.h"
#include "tilelab/i18n.h"
#include "tilelab/lesson.h"
#include "tilelab/occupancy.h"
#include "tilelab/time_text.h"

namespace tilelab {

namespace {

using Clock = std::chrono::steady_clock;

// The share of the budget the search may use; the full runs of the best few have the rest.
constexpr double kSearchShare = 0.8;

// The searched parameters' specs, in declaration order.
std::vector<const ParamSpec*> searched_specs(const Variant& v, const TuneConfig& cfg) {
    std::vector<const ParamSpec*> specs;
    for (const auto& p : v.params)
        if (cfg.searched.empty() ? p.searched_by_default() : std::count(cfg.searched.begin(), cfg.searched.end(), p.name) > 0)
            specs.push_back(&p);
    return specs;
}

RunRequest request_for(const Variant& v, const ParamValues& values, const Problem& problem) {
    return RunRequest{v.id, values, problem};
}

bool better(const TuneCandidate& a, const TuneCandidate& b) {
    return a.measured && a.valid && (!b.measured || !b.valid || a.median_ms < b.median_ms);
}

}  // namespace

// [SECTION] Steps 1 and 2: the space and the model's shortlist ---------------------------------

uint64_t tune_space_size(const Variant& v, const TuneConfig& cfg) {
    uint64_t n = 1;
    for (const ParamSpec* s : searched_specs(v, cfg)) {
        const uint64_t k = s->values().size();
        n = k > 0 && n > UINT64_MAX / k ? UINT64_MAX : n * k;
    }
    return n;
}

uint64_t for_each_valid_point(const Engine& engine, const Variant& v, const TuneConfig& cfg,
                              const std::function<bool(const ParamValues&)>& visit) {
    const auto specs = searched_specs(v, cfg);
    std::vector<std::vector<int>> values;
    for (const ParamSpec* s : specs) values.push_back(s->values());
    ParamValues point = with_defaults(v.params, cfg.fixed);
    // Point `index` of the space: its digits in the mixed radix of the values, the last parameter
    // the lowest digit (the odometer's order).
    const auto set_point = [&](uint64_t index) {
        for (size_t i = specs.size(); i-- > 0;) {
            point[specs[i]->name] = values[i][index % values[i].size()];
            index /= values[i].size();
        }
    };
    const auto valid = [&] { return engine.invalid_reason(request_for(v, point, cfg.problem)).empty(); };
    const uint64_t space = tune_space_size(v, cfg);
    if (space > kMaxWalkedPoints) {
        // Too many to walk: distinct points drawn at random (mt19937_64, whose output the standard
        // fixes; the modulo's bias is below 2^-30 for any space under 2^34, and harmless above),
        // with a seed of their own: cfg.seed moves the candidates' sample, not the model's view.
        std::mt19937_64 rng(0x9E3779B97F4A7C15ull);
        std::set<uint64_t> seen;
        for (uint64_t draws = 0; seen.size() < kMaxWalkedPoints && draws < 4 * kMaxWalkedPoints; ++draws) {
            const uint64_t index = rng() % space;
            if (!seen.insert(index).second) continue;
            set_point(index);
            if (valid() && !visit(point)) break;
        }
        return seen.size();
    }
    for (uint64_t index = 0; index < space; ++index) {
        set_point(index);
        if (valid() && !visit(point)) return index + 1;
    }
    return space;
}

// Whether step 1 saw a sample of the space rather than all of it (a report cached before
// sampling existed says walked = combinations).
static bool space_sampled(const TuneReport& r) { return r.walked > 0 && r.walked < r.combinations; }

std::string tune_space_text(const TuneReport& r) {
    if (space_sampled(r))
        return trf("tune.space_sampled", r.combinations, r.walked, r.valid, r.candidates.size(), r.tried);
    return trf("tune.space", r.combinations, r.valid, r.candidates.size(), r.tried);
}

namespace {

// What the model sees of a point: points with equal signatures are the same to it (lesson 06's
// TM×TN split, MINBLOCKS), so the shortlist takes one of each and measuring tells the rest apart.
using Signature = std::tuple<int64_t, int, double, double, double>;   // threads, smem, flops, global B, shared

struct ModelView {
    double score_ms = 0;
    Signature signature;
};

ModelView model_view(const Target& t, const Variant& v, const ParamValues& values, const Problem& problem) {
    const auto instance = v.bind(values);
    const CostModel m = instance->cost_model(problem, t);
    const LaunchShape asked = instance->launch(problem), l = resident_on(asked, t);
    const double peak_gflops = t.peak_gflops(instance->precision().input);
    // Roofline: FMAs at the peak of the input type (FP32 pipes or tensor cores), global traffic at DRAM bandwidth (caches make it less; the
    // ranking only needs it to grow with the traffic), shared traffic at 128 B per clock per SM.
    // A block of 16 threads still issues whole warps: idle lanes lower the reachable FLOP rate.
    const double threads = double(l.threads_per_block()), warp = std::max(1, t.warp_size);
    const double lane_fill = threads / (std::ceil(threads / warp) * warp);
    // A model that evaluates more than its useful FLOPs says so ("FLOPs executed": lesson 20's
    // recompute); the time is that of the FLOPs executed.
    double flops = m.flops;
    for (const Formula& f : m.extras)
        if (f.quantity == "FLOPs executed") flops = f.value;
    const double compute_s = flops / std::max(1.0, peak_gflops * 1e9 * lane_fill);
    const double global_s = m.global_bytes / std::max(1.0, t.dram_gbps * 1e9);
    const double shared_bytes = m.shared_element_bytes() * (m.total.shared_loads + m.total.shared_stores);
    const double shared_s = shared_bytes / std::max(1.0, t.sm_count * 128.0 * t.clock_ghz * 1e9);
    // Registers are unknown before the compile. A model may say what it expects (the wgmma
    // lessons: one register a sum, or setmaxnreg's share); where it declares only its accumulators
    // per thread, guess 2 registers each plus 32 (fragments, addresses: lesson 06 at 64
    // accumulators compiles to about 160); else leave registers out of the occupancy.
    int registers = 0, expected = 0;
    for (const Formula& f : m.extras) {
        if (f.quantity == "accumulator registers / thread") registers = int(2 * f.value + 32);
        if (f.quantity == "registers / thread, expected") expected = int(f.value);
    }
    if (expected > 0) registers = expected;
    const bool likely_spills = registers > t.max_regs_per_thread;
    registers = std::min(registers, t.max_regs_per_thread);
    const int smem = instance->smem_bytes() + int(l.dynamic_smem);
    const Occupancy occ = compute_occupancy(t, OccupancyInput{int(l.threads_per_block()), registers, smem});
    double wave_fill = 1;
    if (occ.blocks_per_sm > 0 && t.sm_count > 0) {
        const double slots = double(occ.blocks_per_sm) * t.sm_count;
        wave_fill = double(l.blocks()) / (std::ceil(double(l.blocks()) / slots) * slots);
    }
    // A persistent kernel's blocks walk the tiles (the grid it asked for) in rounds: the last
    // round's tiles leave the other blocks idle (512 tiles on 132 blocks: 4 rounds, 97% full) —
    // unless its blocks share the last rounds out by K (TileGeometry::shared_by_k, lesson 22's stream-K).
    if (l.resident_per_sm > 0 && asked.blocks() > l.blocks() && l.blocks() > 0 && !instance->tiles(problem).shared_by_k) {
        const double tiles = double(asked.blocks()), walkers = double(l.blocks());
        wave_fill *= tiles / (std::ceil(tiles / walkers) * walkers);
    }
    // Fewer than 8 warps per SM hide latency poorly: scale by how far below that it is.
    const double latency = occ.active_warps >= 8 ? 1.0 : 8.0 / std::max(1, occ.active_warps);
    // The bound, plus a quarter of the other two: the roofline alone ties every compute-bound
    // point, and of those the one that moves less data overlaps better.
    const double bound = std::max({compute_s, global_s, shared_s});
    const double others = compute_s + global_s + shared_s - bound;
    // A likely spill is not pruned (only the compile knows), but goes behind the others.
    const double spill_penalty = likely_spills ? 4.0 : 1.0;
    return {(bound + 0.25 * others) / wave_fill * latency * spill_penalty * 1e3,
            Signature{l.threads_per_block(), smem, m.flops, m.global_bytes, shared_bytes}};
}

}  // namespace

double model_score_ms(const Engine& engine, const Variant& v, const ParamValues& values, const Problem& problem) {
    return model_view(engine.target(), v, values, problem).score_ms;
}

TuneReport tune_key(const Engine& engine, const Variant& v, const TuneConfig& cfg) {
    return tune_key(engine.target(), engine.device().gpu, v, cfg);
}

TuneReport tune_key(const Target& t, bool gpu, const Variant& v, const TuneConfig& cfg) {
    TuneReport r;
    r.variant = v.id;
    r.target = t.name;
    r.arch = t.arch_name();
    r.problem = cfg.problem;
    for (const ParamSpec* s : searched_specs(v, cfg)) r.searched.push_back(s->name);
    r.fixed = cfg.fixed;
    r.seed = cfg.seed;
    r.shortlist = cfg.shortlist;
    r.sample = cfg.sample;
    r.budget_s = cfg.budget_s;
    r.gpu = gpu;
    return r;
}

// The lessons' own steps as points of this search: each step's values of the searched parameters,
// the fixed values (or defaults) for the rest. A step is a configuration a teacher chose and
// measured, and may be one the model ranks low: lesson 20's two columns at three steps a launch,
// the fastest measured, while the roofline prefers six steps a launch.
static std::vector<ParamValues> lesson_step_points(const Variant& v, const TuneConfig& cfg) {
    std::vector<ParamValues> points;
    const ParamValues base = with_defaults(v.params, cfg.fixed);
    const auto specs = searched_specs(v, cfg);
    for (const Lesson& lesson : all_lessons()) {
        if (lesson.variant != v.id) continue;
        for (int step = 0; step < int(lesson.steps.size()); ++step) {
            const ParamValues state = lesson.state_at(step).params;
            ParamValues point = base;
            for (const ParamSpec* s : specs)
                if (const auto it = state.find(s->name); it != state.end()) point[s->name] = it->second;
            if (std::find(points.begin(), points.end(), point) == points.end()) points.push_back(point);
        }
    }
    return points;
}

// Steps 1 and 2. `reserve`, when given, receives the next best points by score (not in the plan,
// at most 3 × shortlist): step 3 takes one from there for each model pick it prunes.
static TuneReport plan(const Engine& engine, const Variant& v, const TuneConfig& cfg,
                       std::vector<TuneCandidate>* reserve) {
    TuneReport r = tune_key(engine, v, cfg);
    struct Scored {
        ParamValues values;
        double score;
        Signature signature;
        bool twin = false;   // a better point has the same signature
    };
    std::vector<Scored> points;
    const Target target = engine.target();
    r.combinations = tune_space_size(v, cfg);
    r.walked = for_each_valid_point(engine, v, cfg, [&](const ParamValues& p) {
        const ModelView view = model_view(target, v, p, cfg.problem);
        points.push_back({p, view.score_ms, view.signature});
        return true;
    });
    r.valid = points.size();
    // Best score first, one point per signature before its twins; equal scores keep the walk's
    // order, so the plan is the same every time.
    std::stable_sort(points.begin(), points.end(), [](const Scored& a, const Scored& b) { return a.score < b.score; });
    std::set<Signature> seen;
    for (auto& p : points) p.twin = !seen.insert(p.signature).second;
    std::stable_partition(points.begin(), points.end(), [](const Scored& p) { return !p.twin; });
    const size_t top = std::min(points.size(), size_t(std::max(0, cfg.shortlist)));
    auto candidate = [&](const Scored& s, const char* origin) {
        TuneCandidate c;
        c.params = s.values;
        c.origin = origin;
        c.score_ms = s.score;
        c.intensity = v.cost_model(s.values, cfg.problem, target).intensity;
        return c;
    };
    auto add = [&](const Scored& s, const char* origin) { r.candidates.push_back(candidate(s, origin)); };
    for (size_t i = 0; i < top; ++i) add(points[i], "model");
    // The sample: a partial Fisher-Yates shuffle of the rest with mt19937_64, whose output the C++
    // standard fixes (std::shuffle's and the distributions' are not), so a seed means one plan.
    std::mt19937_64 rng(cfg.seed);
    std::vector<size_t> rest(points.size() - top);
    std::iota(rest.begin(), rest.end(), top);
    const size_t sample = std::min(rest.size(), size_t(std::max(0, cfg.sample)));
    for (size_t i = 0; i < sample; ++i) {
        std::swap(rest[i], rest[i + rng() % (rest.size() - i)]);
        add(points[rest[i]], "sample");
    }
    // The variant's defaults (with the fixed values) are always measured too: the tuner's answer
    // is then never worse than what the lesson opens with; and so are the lesson's steps.
    const auto add_unless_listed = [&](const ParamValues& values, const char* origin) {
        const bool listed = std::any_of(r.candidates.begin(), r.candidates.end(),
                                        [&](const TuneCandidate& c) { return c.params == values; });
        if (!listed && engine.invalid_reason(request_for(v, values, cfg.problem)).empty())
            add(Scored{values, model_score_ms(engine, v, values, cfg.problem), {}}, origin);
    };
    add_unless_listed(with_defaults(v.params, cfg.fixed), "default");
    for (const ParamValues& step : lesson_step_points(v, cfg)) add_unless_listed(step, "step");
    if (reserve != nullptr) {
        std::vector<bool> taken(points.size() - top, false);
        for (size_t i = 0; i < sample; ++i) taken[rest[i] - top] = true;
        for (size_t i = top; i < points.size() && reserve->size() < 3 * top; ++i)
            if (!taken[i - top]) reserve->push_back(candidate(points[i], "model"));
    }
    return r;
}

TuneReport plan_tune(const Engine& engine, const Variant& v, const TuneConfig& cfg) { return plan(engine, v, cfg, nullptr); }

// [SECTION] Step 3: compile and prune ----------------------------------------------------------

std::string prune_reason(const TuneCandidate& c, int smem_limit) {
    if (c.spill_bytes > 0)
        return say("spills {} bytes to local memory", "向本地内存溢出 {} 字节", c.spill_bytes);
    if (c.blocks_per_sm <= 0) return say("no block fits on an SM (occupancy 0)", "一个 SM 连一个线程块也放不下（占用率为 0）");
    if (smem_limit > 0 && c.smem_bytes > smem_limit)
        return say("{} bytes of shared memory, more than the {} a block may have", "共享内存 {} 字节，超过了线程块可用的 {} 字节",
                   c.smem_bytes, smem_limit);
    return {};
}

static void analyse_candidate(Engine& engine, const Variant& v, const Problem& problem, TuneCandidate& c) {
    const RunResult r = engine.analyze(request_for(v, c.params, problem));
    c.analysed = true;
    if (!r.ok || !r.compiled || !r.compiled->ok) {
        c.pruned = say("{} failed: {}", "{} 失败：{}", r.stage, r.error);
        return;
    }
    c.registers = r.compiled->ptxas.registers;
    c.spill_bytes = r.compiled->ptxas.spill_bytes();
    c.smem_bytes = r.smem_bytes();
    c.threads = int(r.launch.threads_per_block());
    c.blocks_per_sm = r.occupancy.blocks_per_sm;
    c.occupancy = r.occupancy.occupancy;
    const Target& t = r.target;
    c.pruned = prune_reason(c, t.smem_per_block_optin > 0 ? t.smem_per_block_optin : t.smem_per_block);
}

// [SECTION] Step 4: measure ---------------------------------------------------------------------

static RunOptions measure_options(const TuneConfig& cfg, bool full) {
    RunOptions o;
    o.count_accesses = false;      // the tuner ranks times; model == counted is the tests' business
    o.hardware_counters = false;
    o.seed = cfg.seed;
    if (!full) o = quick_protocol(o);   // L2 flushed in both, so quick and full medians compare
    return o;
}

// What one run says about a candidate.
static void take_measurement(const RunResult& r, bool full, TuneReport& report, TuneCandidate& c) {
    c.measured = r.measured;
    c.phase = full ? "full" : "quick";
    c.valid = r.ok && r.measured && r.validation.checked && r.validation.passed;
    c.median_ms = r.timing.median_ms;
    c.pct_of_reference = r.pct_of_reference;
    if (!c.valid) c.error = r.ok ? r.validation.message : r.stage + ": " + r.error;
    if (r.reference_ms > 0) {
        report.reference_ms = r.reference_ms;
        report.reference_name = r.reference_name;
    }
}

static void measure_candidate(Engine& engine, const Variant& v, const TuneConfig& cfg, bool full, TuneReport& report,
                              TuneCandidate& c, const CancelFlag* cancel) {
    take_measurement(engine.run(request_for(v, c.params, cfg.problem), measure_options(cfg, full), cancel), full, report, c);
}

// A searched parameter's spec (run_tune searches only the variant's own parameters).
static const ParamSpec& spec_of(const Variant& v, const std::string& name) {
    return *v.param(name);
}

// A neighbour of the best so far, scored by the model and analysed (compiled), not yet measured.
static TuneCandidate refinement(Engine& engine, const Variant& v, const ParamValues& params, const Problem& problem) {
    TuneCandidate c;
    c.params = params;
    c.origin = "refine";
    c.score_ms = model_score_ms(engine, v, params, problem);
    c.intensity = v.cost_model(params, problem, engine.target()).intensity;
    analyse_candidate(engine, v, problem, c);
    return c;
}

// The best measured and valid candidate, or nullptr.
static const TuneCandidate* best_measured(const std::vector<TuneCandidate>& candidates) {
    const TuneCandidate* b = nullptr;
    for (const auto& c : candidates)
        if (c.measured && c.valid && (b == nullptr || better(c, *b))) b = &c;
    return b;
}

// Step 4, refinement: one parameter one value away from the best, while that improves.
static void refine(Engine& engine, const Variant& v, const TuneConfig& cfg, const TuneCallbacks& cb, TuneReport& r,
                   const std::function<bool()>& stop, const std::function<void(const char*, int, int)>& report) {
    if (!r.gpu || best_measured(r.candidates) == nullptr) return;
    const int planned = int(r.candidates.size());
    std::set<ParamValues> seen;
    for (const auto& c : r.candidates) seen.insert(c.params);
    ParamValues current = best_measured(r.candidates)->params;
    bool improved = true;
    while (improved && !stop()) {
        improved = false;
        for (const std::string& name : r.searched) {
            const std::vector<int> values = spec_of(v, name).values();
            const auto at = std::find(values.begin(), values.end(), current.at(name)) - values.begin();
            for (const long step : {-1L, 1L}) {
                const long k = long(at) + step;
                if (k < 0 || k >= long(values.size()) || stop()) continue;
                ParamValues next = current;
                next[name] = values[size_t(k)];
                if (!seen.insert(next).second) continue;
                if (!engine.invalid_reason(request_for(v, next, cfg.problem)).empty()) continue;
                TuneCandidate c = refinement(engine, v, next, cfg.problem);
                if (c.pruned.empty()) {
                    report("measure", r.tried, planned);
                    measure_candidate(engine, v, cfg, false, r, c, cb.cancel);
                    ++r.tried;
                }
                const bool wins = better(c, *best_measured(r.candidates));
                r.candidates.push_back(std::move(c));
                if (wins) {
                    current = next;
                    improved = true;
                }
            }
        }
    }
}

TuneReport run_tune(Engine& engine, const Variant& v, const TuneConfig& cfg, const TuneCallbacks& cb) {
    const auto start = Clock::now();
    const auto after = [&](double share) {
        return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(share * cfg.budget_s));
    };
    // The search (steps 3 and 4) stops at kSearchShare of the budget, so that the full runs of the
    // best have the rest: on lesson 20 at 512³ the search used the whole minute and its winner was
    // never run with the full protocol (docs/benchmarks.md, 2026-12-02).
    const auto search_deadline = after(kSearchShare), deadline = after(1.0);
    std::vector<TuneCandidate> reserve;
    TuneReport r = plan(engine, v, cfg, &reserve);
    // Whether to stop before `until`; reaching it is recorded as the budget running out.
    auto stop_at = [&](Clock::time_point until) {
        if (cb.cancel && cb.cancel->load()) r.cancelled = true;
        const bool late = r.gpu && Clock::now() >= until;
        r.budget_hit = r.budget_hit || late;
        return r.cancelled || late;
    };
    auto stop = [&] { return stop_at(search_deadline); };
    auto report = [&](const char* stage, int done, int total) {
        if (cb.progress) cb.progress(TuneProgress{stage, done, total, best_measured(r.candidates)});
    };

    // Step 3. On a GPU each candidate is compiled just before it is measured (the budget counts both);
    // compile-ahead's thread compiles the next ones meanwhile.
    // A pruned model pick is replaced by the next best score from the reserve, so that spilling
    // corners of the space (the roofline does not know registers) do not empty the shortlist.
    if (r.gpu) {
        std::vector<RunRequest> ahead;
        for (const auto& c : r.candidates) ahead.push_back(request_for(v, c.params, cfg.problem));
        engine.compile_ahead(std::move(ahead), false);
    }
    size_t next_reserve = 0;
    const bool spread = r.gpu && cb.pool != nullptr && cb.pool->size() > 1;
    for (size_t i = 0; spread && i < r.candidates.size() && !stop(); ++i) {   // all compiled first
        report("compile", int(i), int(r.candidates.size()));
        analyse_candidate(engine, v, cfg.problem, r.candidates[i]);
        if (!r.candidates[i].pruned.empty() && r.candidates[i].origin == "model" && next_reserve < reserve.size())
            r.candidates.push_back(reserve[next_reserve++]);
    }
    if (spread) {   // then timed on every GPU at once; the budget or a cancel stops them all
        std::vector<size_t> which;
        std::vector<RunRequest> requests;
        for (size_t i = 0; i < r.candidates.size(); ++i)
            if (r.candidates[i].analysed && r.candidates[i].pruned.empty()) {
                which.push_back(i);
                requests.push_back(request_for(v, r.candidates[i].params, cfg.problem));
            }
        CancelFlag stop_all{stop()};
        const std::vector<PoolResult> results =
            cb.pool->run_all(requests, measure_options(cfg, false), &stop_all, [&](const PoolProgress& p) {
                if (stop()) stop_all = true;
                report("measure", int(p.done), int(p.total));
            });
        for (size_t k = 0; k < results.size(); ++k) {
            if (results[k].gpu < 0) continue;   // not reached before the budget or the cancel
            take_measurement(results[k].result, false, r, r.candidates[which[k]]);
            ++r.tried;
        }
    }
    for (size_t i = 0; !spread && i < r.candidates.size() && !stop(); ++i) {
        report(r.gpu ? "measure" : "compile", int(i), int(r.candidates.size()));
        analyse_candidate(engine, v, cfg.problem, r.candidates[i]);
        if (r.gpu && r.candidates[i].pruned.empty()) {
            measure_candidate(engine, v, cfg, false, r, r.candidates[i], cb.cancel);
            ++r.tried;
        }
        if (!r.candidates[i].pruned.empty() && r.candidates[i].origin == "model" && next_reserve < reserve.size())
            r.candidates.push_back(reserve[next_reserve++]);
    }
    refine(engine, v, cfg, cb, r, stop, report);

    // The best few again with the full protocol: the ranking at the top rests on full runs. The
    // search's deadline does not stop them, the budget's end does.
    rank_candidates(r.candidates);
    for (int i = 0; r.gpu && i < cfg.full_runs && i < int(r.candidates.size()) && !stop_at(deadline); ++i) {
        TuneCandidate& c = r.candidates[size_t(i)];
        if (!c.measured || !c.valid) break;
        report("full", i, cfg.full_runs);
        measure_candidate(engine, v, cfg, true, r, c, cb.cancel);
    }
    rank_candidates(r.candidates);
    r.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
    r.measured_at = time_text("%Y-%m-%dT%H:%M:%SZ", TimeZone::Utc);
    return r;
}

void rank_candidates(std::vector<TuneCandidate>& candidates) {
    auto group = [](const TuneCandidate& c) {
        if (!c.pruned.empty()) return 4;
        if (c.measured && c.valid) return c.phase == "full" ? 0 : 1;
        if (c.measured || !c.error.empty()) return 3;
        return 2;
    };
    std::stable_sort(candidates.begin(), candidates.end(), [&](const TuneCandidate& a, const TuneCandidate& b) {
        const int ga = group(a), gb = group(b);
        if (ga != gb) return ga < gb;
        if (ga <= 1) return a.median_ms < b.median_ms;
        return a.score_ms < b.score_ms;
    });
}

std::string tune_strategy_text(const TuneReport& r, const TuneConfig& cfg) {
    const std::string space = space_sampled(r)
                                  ? say("{} combinations, {} of them drawn at random (too many to walk whole)",
                                        "{} 种组合，随机抽取其中 {} 种（太多，无法全部遍历）", r.combinations, r.walked)
                                  : say("{} combinations", "{} 种组合", r.combinations);
    return say("{}, {} valid; candidates: the {} best by the model's roofline score, {} drawn at random "
               "(seed {}), the defaults and the lesson's steps, compiled and pruned (spills, occupancy 0, shared memory; a pruned model pick is replaced by "
               "the next best score){}",
               "{}，{} 种合法；候选：按模型屋顶线估分最好的 {} 个、随机抽取的 {} 个（种子 {}）、默认参数以及课程各步骤的参数，"
               "编译后剪枝（溢出、占用率为 0、共享内存；被剪掉的模型候选由估分次好的点替补）{}",
               space, r.valid, std::min<uint64_t>(r.valid, uint64_t(std::max(0, cfg.shortlist))),
               std::min<uint64_t>(r.valid - std::min<uint64_t>(r.valid, uint64_t(std::max(0, cfg.shortlist))),
                                  uint64_t(std::max(0, cfg.sample))),
               cfg.seed,
               r.gpu ? say("; each timed (quick protocol), then coordinate descent from the best, then full runs of "
                           "the best {}",
                           "；逐个计时（快速协议），再从最好的点做坐标下降，最后对最好的 {} 个做完整运行",
                           cfg.full_runs)
                     : std::string());
}

}  // namespace tilelab
