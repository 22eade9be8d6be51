// `sweep`: one or two parameters across their values. Each valid point is run (GPU mode) or
// analysed (model mode, --compile-only); each invalid point is skipped with its reason, never
// launched. Output: a table, a JSON array or CSV; with two parameters also a compact grid.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

#include "commands.h"
#include "tilelab/i18n.h"
#include "tilelab/variant_text.h"
#include "format_table.h"
#include "report.h"
#include "request.h"
#include "tilelab/result_json.h"

namespace tilelab::cli {

using json = nlohmann::ordered_json;

namespace {

struct SweepPoint {
    int x = 0, y = 0;                 // the swept values (y unused with one parameter)
    RunRequest request;
    std::string skipped_reason;       // non-empty: invalid, not analysed
    std::optional<RunResult> result;
    Outcome outcome;
    std::string gpu;                  // the GPU that measured it, when spread over a pool
    double pct_of_best = -1;          // of the best point on the same GPU model (pool only)
};

// --values as typed: each a whole number (an empty one is an error, never 0) in the range.
std::vector<int> swept_values(const ParamSpec& spec, const std::vector<std::string>& requested, const char* flag) {
    if (requested.empty()) return spec.values();
    std::vector<int> values;
    for (const std::string& text : requested) {
        // A choice word (FILTER_IN's shared) or a number.
        const auto word = std::find(spec.choices.begin(), spec.choices.end(), text);
        const int v = word != spec.choices.end()
                          ? spec.min + int(word - spec.choices.begin())
                          : parse_int_flag(flag, text, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
        check_param_value(spec, v);
        values.push_back(v);
    }
    return values;
}

// The worst outcome decides: a compile error outranks a failed validation outranks a runtime
// error. A sweep in which every point was invalid is a usage error.
int sweep_exit_code(const std::vector<SweepPoint>& points) {
    auto rank = [](int code) {
        return code == kExitCompile ? 3 : code == kExitValidation ? 2 : code == kExitRuntime ? 1 : 0;
    };
    bool any_valid = false;
    int code = kExitOk;
    for (const auto& p : points) {
        if (!p.skipped_reason.empty()) continue;
        any_valid = true;
        if (rank(p.outcome.exit_code) > rank(code)) code = p.outcome.exit_code;
    }
    return any_valid ? code : kExitUsage;
}

json point_json(const SweepPoint& p, const Target& target, bool run) {
    json j;
    if (p.result) {
        ResultJsonOptions jo;
        jo.measurement = run;
        j = result_to_json(*p.result, jo);
    } else {
        j = json{{"variant", p.request.variant},
                 {"params", p.request.params},
                 {"problem", problem_to_json(p.request.problem)},
                 {"target", target.name},
                 {"arch", target.arch_name()}};
    }
    j["status"] = p.skipped_reason.empty() ? p.outcome.status : "skipped";
    j["reason"] = p.skipped_reason.empty() ? p.outcome.message : p.skipped_reason;
    if (!p.gpu.empty()) j["gpu"] = p.gpu;
    if (p.pct_of_best >= 0) j["pct_of_best"] = p.pct_of_best;
    return j;
}

std::string table_text(const std::vector<SweepPoint>& points, const ParamSpec& px, const ParamSpec* py,
                       bool run, bool pooled) {
    std::vector<Column> cols = {{px.name, Align::Right}};
    if (py) cols.push_back({py->name, Align::Right});
    if (pooled) cols.push_back({"GPU", Align::Left});
    for (const char* h : {"status", "regs", "spill st/ld", "smem", "threads", "blocks/SM", "occupancy",
                          "limiter", "FLOP/B"})
        cols.push_back({h, std::string(h) == "status" || std::string(h) == "limiter" ? Align::Left : Align::Right});
    if (run)
        for (const char* h : {"median ms", "GFLOP/s", "GB/s", "% ref", "valid"})
            cols.push_back({h, std::string(h) == "valid" ? Align::Left : Align::Right});
    if (run && pooled) cols.push_back({"% best", Align::Right});
    cols.push_back({"note", Align::Left});
    Table t(cols);
    for (const auto& p : points) {
        std::vector<std::string> row = {px.value_text(p.x)};
        if (py) row.push_back(py->value_text(p.y));
        if (pooled) row.push_back(p.gpu.empty() ? "-" : p.gpu);
        if (!p.skipped_reason.empty()) {
            row.push_back("skipped");
            row.resize(cols.size() - 1);
            row.push_back(p.skipped_reason);
            t.add_row(row);
            continue;
        }
        const RunResult& r = *p.result;
        const CompileResult* c = r.compiled.get();
        const bool compiled = c != nullptr && c->ok;
        row.push_back(p.outcome.status);
        if (compiled) {
            row.push_back(std::to_string(c->ptxas.registers));
            row.push_back(fmt::format("{}/{}", c->ptxas.spill_stores, c->ptxas.spill_loads));
            row.push_back(format_bytes(r.smem_bytes()));
            row.push_back(std::to_string(r.launch.threads_per_block()));
            row.push_back(std::to_string(r.occupancy.blocks_per_sm));
            row.push_back(fmt_pct(r.occupancy.occupancy));
            row.push_back(r.occupancy.limiter);
        } else {
            row.resize(row.size() + 7, "-");
        }
        row.push_back(fmt_fixed(r.model.intensity, 2));
        if (run) {
            if (r.measured) {
                row.push_back(fmt_ms(r.timing.median_ms));
                row.push_back(fmt_fixed(r.gflops, 0));
                row.push_back(fmt_fixed(r.gbps_model, 0));
                row.push_back(r.reference_ms > 0 ? fmt_fixed(r.pct_of_reference, 1) : "-");
                row.push_back(r.validation.checked ? (r.validation.passed ? "PASS" : "FAIL") : "-");
            } else {
                row.resize(row.size() + 5, "-");
            }
            if (pooled) row.push_back(p.pct_of_best >= 0 ? fmt_fixed(p.pct_of_best, 1) : "-");
        }
        row.push_back(p.outcome.message);
        t.add_row(row);
    }
    return t.render();
}

// Rows: the first parameter; columns: the second. Time in GPU mode, occupancy otherwise.
std::string grid_text(const std::vector<SweepPoint>& points, const std::vector<int>& xs,
                      const std::vector<int>& ys, const ParamSpec& px, const ParamSpec& py, bool run) {
    std::vector<Column> cols = {{px.name + " \\ " + py.name, Align::Right}};
    for (int y : ys) cols.push_back({std::to_string(y), Align::Right});
    Table t(cols);
    size_t i = 0;
    for (int x : xs) {
        std::vector<std::string> row = {std::to_string(x)};
        for (size_t k = 0; k < ys.size(); ++k, ++i) {
            const SweepPoint& p = points[i];
            std::string cell;
            if (!p.skipped_reason.empty()) cell = "-";
            else if (p.outcome.exit_code == kExitCompile) cell = "ERR";
            else if (p.outcome.exit_code == kExitValidation) cell = "FAIL";
            else if (p.outcome.exit_code == kExitRuntime) cell = "ERR";
            else if (run && p.result->measured) cell = fmt_ms(p.result->timing.median_ms);
            else cell = fmt_pct(p.result->occupancy.occupancy);
            row.push_back(cell);
        }
        t.add_row(row);
    }
    const char* what = run ? "median time (ms)" : "occupancy";
    return fmt::format("\n{}: rows {}, columns {}; - = invalid, ERR = error, FAIL = wrong result\n\n{}", what,
                       px.name, py.name, t.render());
}

// "NVIDIA H200 #0 61, NVIDIA H200 #1 60": how many points each GPU of the pool measured.
std::string per_gpu_text(const GpuPool& pool, const std::vector<SweepPoint>& points) {
    std::string out;
    for (const PoolGpu& g : pool.gpus()) {
        const auto n = std::count_if(points.begin(), points.end(), [&](const SweepPoint& p) { return p.gpu == g.label; });
        out += fmt::format("{}{} {}", out.empty() ? "" : ", ", g.label, n);
    }
    return out;
}

// The valid points, each run once on one GPU of the pool (a shared queue: GpuPool::run_all), then
// labelled with that GPU and compared only with the points of the same GPU model.
void run_on_pool(GpuPool& pool, std::vector<SweepPoint>& points, const RunOptions& run_options, bool progress) {
    std::vector<RunRequest> requests;
    std::vector<size_t> where;   // requests[k] is points[where[k]]
    for (size_t i = 0; i < points.size(); ++i)
        if (points[i].skipped_reason.empty()) {
            requests.push_back(points[i].request);
            where.push_back(i);
        }
    const auto shown = [&](const PoolProgress& state) {
        if (!state.event.empty()) std::fprintf(stderr, "\r\x1b[K%s\n", trf("sweep.pool_event", state.event).c_str());
        if (!progress) return;
        std::string counts;
        for (size_t g = 0; g < state.per_gpu.size(); ++g)
            counts += fmt::format("{}#{} {}", counts.empty() ? "" : ", ", g, state.per_gpu[g]);
        std::fprintf(stderr, "\r%s ", trf("sweep.progress_pool", state.done, state.total, counts).c_str());
    };
    std::vector<PoolResult> results = pool.run_all(requests, run_options, nullptr, shown);
    const std::vector<double> pct = pct_of_best_per_model(results, pool.gpus());
    for (size_t k = 0; k < results.size(); ++k) {
        SweepPoint& p = points[where[k]];
        if (results[k].gpu >= 0) p.gpu = pool.gpus()[size_t(results[k].gpu)].label;
        p.pct_of_best = pct[k];
        p.result = std::move(results[k].result);
        p.outcome = classify(*p.result, true);
        p.request = p.result->request;
    }
}

}  // namespace

int cmd_sweep(const CliOptions& o) {
    // --gpus or several --gpu-host: the points go to a pool of GPUs, checked on its first one.
    const bool pooled = pool_requested(o) && !o.compile_only;
    std::unique_ptr<GpuPool> pool = pooled ? make_pool(o, o.hardware) : nullptr;
    std::unique_ptr<Engine> own_engine = pooled ? nullptr : make_engine(o, o.hardware && !o.compile_only);
    Engine* const engine = pooled ? &pool->engine(0) : own_engine.get();
    const Variant& v = resolve_variant(o.variant);
    const ParamSpec& px = require_param(v, o.param);
    const ParamSpec* py = o.param2.empty() ? nullptr : &require_param(v, o.param2);
    if (py != nullptr && py->name == px.name)
        throw usage_error(trf("cli.sweep_same_param", px.name));
    if (py == nullptr && !o.values2.empty()) throw usage_error(tr("cli.values2_needs_param2"));
    const ParamValues fixed = parse_sets(v, o.sets);
    for (const ParamSpec* swept : {&px, py})
        if (swept != nullptr && fixed.count(swept->name))
            throw usage_error(trf("cli.swept_and_set", swept->name));
    const std::vector<int> xs = swept_values(px, o.values, "--values");
    const std::vector<int> ys = py ? swept_values(*py, o.values2, "--values2") : std::vector<int>{0};
    const Problem problem = resolve_problem(v, o.size);
    apply_target(*engine, o.target);

    const bool run = engine->device().gpu && !o.compile_only;
    GpuWaitEcho echo(*engine);
    RunOptions run_options = o.run_options();
    run_options.hardware_counters = o.hardware;   // off unless --hardware: each point replays several times
    run_options.stall_samples = o.stalls;
    const Target target = engine->target();
    const bool progress = isatty(STDERR_FILENO);

    std::vector<SweepPoint> points;
    for (int x : xs) {
        for (int y : ys) {
            SweepPoint p;
            p.x = x;
            p.y = y;
            ParamValues values = fixed;
            values[px.name] = x;
            if (py) values[py->name] = y;
            p.request.variant = v.id;
            p.request.params = with_defaults(v.params, values);
            p.request.problem = problem;
            p.skipped_reason = engine->invalid_reason(p.request);
            if (p.skipped_reason.empty() && !pooled) {
                if (progress)
                    std::fprintf(stderr, "\r%s ", trf("sweep.progress", points.size() + 1, xs.size() * ys.size(),
                                                      params_text(v, values)).c_str());
                p.result = run ? engine->run(p.request, run_options) : engine->analyze(p.request);
                p.outcome = classify(*p.result, run);
                p.request = p.result->request;
            }
            points.push_back(std::move(p));
        }
    }
    if (pooled) run_on_pool(*pool, points, run_options, progress);
    if (progress) std::fputs("\r\x1b[K", stderr);

    switch (o.format) {
    case OutputFormat::Json: {
        json arr = json::array();
        for (const auto& p : points) arr.push_back(point_json(p, target, run));
        std::fputs((arr.dump(2) + "\n").c_str(), stdout);
        break;
    }
    case OutputFormat::Csv: {
        auto columns = csv_columns(v, run);
        if (pooled) columns.insert(columns.end(), {{"gpu", "/gpu"}, {"pct_of_best", "/pct_of_best"}});
        std::fputs(csv_line(csv_headers(columns)).c_str(), stdout);
        for (const auto& p : points) std::fputs(csv_line(csv_row(point_json(p, target, run), columns)).c_str(), stdout);
        break;
    }
    case OutputFormat::Table: {
        std::string out = fmt::format("{}  {}: sweep of {}{}, problem {}, target {} ({})\n", v.id, variant_title(v), px.name,
                                      py ? " and " + py->name : "", format_problem(problem), target.name,
                                      target.arch_name());
        if (!fixed.empty()) out += trf("sweep.fixed", params_text(v, fixed)) + "\n";
        if (pooled) {
            out += pool->describe() + "\n";
            if (pool->mixed_models()) out += tr("sweep.mixed_models") + "\n";
        }
        if (!run)
            out += engine->device().gpu ? tr("sweep.compile_only") + "\n"
                                        : fmt::format("Model mode: {}; each point is analysed, none is run\n",
                                                      engine->device().reason);
        out += "\n" + table_text(points, px, py, run, pooled);
        if (py) out += grid_text(points, xs, ys, px, *py, run);
        if (pooled) out += "\n" + trf("sweep.per_gpu", per_gpu_text(*pool, points)) + "\n";
        std::fputs(out.c_str(), stdout);
        break;
    }
    }
    std::fflush(stdout);

    const int code = sweep_exit_code(points);
    if (code == kExitUsage) throw usage_error(tr("cli.every_point_invalid"));
    if (code != kExitOk) {
        const auto bad = std::find_if(points.begin(), points.end(), [&](const SweepPoint& p) {
            return p.skipped_reason.empty() && p.outcome.exit_code == code;
        });
        throw CliError(code, trf("sweep.and_others", bad->outcome.message, params_text(v, bad->request.params)));
    }
    return kExitOk;
}

}  // namespace tilelab::cli
