// `tune`: the best parameters of a variant at one size on this GPU (tilelab/tune.h does the
// search). On a GPU: measured, ranked, cached per GPU name, variant and size. In model mode: the
// space is counted and pruned, the candidates listed with the model's numbers, exit 3.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "commands.h"
#include "format_table.h"
#include "report.h"
#include "request.h"
#include "tilelab/compile.h"
#include "tilelab/i18n.h"
#include "tilelab/tune.h"
#include "tilelab/variant_text.h"

namespace tilelab::cli {

using json = nlohmann::ordered_json;

namespace {

CancelFlag g_cancel{false};
void on_interrupt(int) { g_cancel.store(true); }

// --budget: seconds, more than 0 (a day at most).
double parse_budget(const std::string& text) {
    if (text.empty()) return 60;
    char* end = nullptr;
    const double s = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !std::isfinite(s) || s <= 0 || s > 86400)
        throw usage_error(trf("tune.bad_budget", shortened(text)));
    return s;
}

TuneConfig tune_config(const CliOptions& o, const Variant& v) {
    TuneConfig cfg;
    for (const std::string& name : o.tune_params) {
        require_param(v, name);   // an unknown name: InputError, exit 2
        if (std::count(cfg.searched.begin(), cfg.searched.end(), name) == 0) cfg.searched.push_back(name);
    }
    cfg.fixed = parse_sets(v, o.sets);
    for (const auto& [name, value] : cfg.fixed)
        if (cfg.searched.empty() || std::count(cfg.searched.begin(), cfg.searched.end(), name))
            throw usage_error(trf("cli.swept_and_set", name));
    cfg.problem = resolve_problem(v, o.size);
    cfg.budget_s = parse_budget(o.budget);
    cfg.seed = o.seed;
    cfg.shortlist = o.tune_candidates;
    cfg.sample = o.tune_sample;
    return cfg;
}

const std::string& stage_text(const std::string& stage) {
    return stage == "compile" ? tr("tune.stage.compile") : stage == "full" ? tr("tune.stage.full") : tr("tune.stage.measure");
}

std::string candidate_note(const TuneCandidate& c) {
    if (!c.pruned.empty()) return trf("tune.pruned", c.pruned);
    if (!c.error.empty()) return c.error;
    return "";
}

std::string table_text(const TuneReport& r, const Variant& v, bool cached) {
    std::string out = fmt::format("{}  {}\n", v.id, variant_title(v));
    out += trf("tune.header", format_problem(r.problem), r.target, r.arch) + "\n";
    out += tune_space_text(r) + "\n";
    if (cached) out += trf("tune.cached", r.measured_at, fmt_fixed(r.elapsed_s, 1)) + "\n";
    if (r.budget_hit) out += tr("tune.budget_hit") + "\n";
    if (r.cancelled) out += tr("tune.cancelled_note") + "\n";
    if (r.gpu && r.reference_ms > 0) out += trf("tune.reference", r.reference_name, fmt_ms(r.reference_ms)) + "\n";
    std::vector<Column> cols = {{"#", Align::Right},
                                {tr("tune.col_params"), Align::Left},
                                {tr("tune.col_origin"), Align::Left},
                                {tr("tune.col_model_ms"), Align::Right},
                                {tr("tune.col_regs"), Align::Right},
                                {tr("tune.col_smem"), Align::Right},
                                {tr("tune.col_threads"), Align::Right},
                                {tr("tune.col_blocks"), Align::Right},
                                {tr("tune.col_occupancy"), Align::Right},
                                {"FLOP/B", Align::Right}};
    if (r.gpu)
        for (const char* key : {"tune.col_median", "tune.col_pct_ref", "tune.col_phase"})
            cols.push_back({tr(key), Align::Right});
    cols.push_back({tr("tune.col_note"), Align::Left});
    Table t(cols);
    int rank = 0;
    for (const TuneCandidate& c : r.candidates) {
        std::vector<std::string> row = {std::to_string(++rank), params_text(v, c.params), c.origin,
                                        fmt_ms(c.score_ms)};
        if (c.analysed && c.registers > 0) {
            row.push_back(std::to_string(c.registers));
            row.push_back(format_bytes(c.smem_bytes));
            row.push_back(std::to_string(c.threads));
            row.push_back(std::to_string(c.blocks_per_sm));
            row.push_back(fmt_pct(c.occupancy));
        } else {
            row.resize(row.size() + 5, "-");
        }
        row.push_back(fmt_fixed(c.intensity, 2));
        if (r.gpu) {
            const bool timed = c.measured && c.valid;
            row.push_back(timed ? fmt_ms(c.median_ms) : "-");
            row.push_back(timed && c.pct_of_reference > 0 ? fmt_fixed(c.pct_of_reference, 1) : "-");
            row.push_back(c.measured ? c.phase : "-");
        }
        row.push_back(candidate_note(c));
        t.add_row(row);
    }
    return out + "\n" + t.render();
}

void print_csv(const TuneReport& r, const Variant& v) {
    std::vector<std::string> headers = {"rank", "variant"};
    for (const auto& p : v.params) headers.push_back(p.name);
    for (const char* h : {"origin", "score_ms", "registers", "spill_bytes", "smem_bytes", "threads", "blocks_per_sm",
                          "occupancy", "intensity", "pruned", "measured", "phase", "valid", "median_ms",
                          "pct_of_reference", "error"})
        headers.push_back(h);
    std::fputs(csv_line(headers).c_str(), stdout);
    int rank = 0;
    for (const TuneCandidate& c : r.candidates) {
        std::vector<std::string> row = {std::to_string(++rank), r.variant};
        for (const auto& p : v.params) row.push_back(std::to_string(param_or(c.params, p.name, p.def)));
        for (const std::string& cell :
             {c.origin, fmt::format("{}", c.score_ms), std::to_string(c.registers), std::to_string(c.spill_bytes),
              std::to_string(c.smem_bytes), std::to_string(c.threads), std::to_string(c.blocks_per_sm),
              fmt::format("{}", c.occupancy), fmt::format("{}", c.intensity), c.pruned, std::string(c.measured ? "true" : "false"),
              c.phase, std::string(c.valid ? "true" : "false"), fmt::format("{}", c.median_ms),
              fmt::format("{}", c.pct_of_reference), c.error})
            row.push_back(cell);
        std::fputs(csv_line(row).c_str(), stdout);
    }
}

void print_report(const CliOptions& o, const TuneReport& r, const TuneConfig& cfg, const Variant& v, bool cached) {
    switch (o.format) {
    case OutputFormat::Json: {
        json j = json::parse(tune_report_to_json(r));
        j["cached"] = cached;
        j["strategy"] = tune_strategy_text(r, cfg);
        std::fputs((j.dump(2) + "\n").c_str(), stdout);
        break;
    }
    case OutputFormat::Csv: print_csv(r, v); break;
    case OutputFormat::Table: {
        std::string out = table_text(r, v, cached);
        out += "\n" + trf("tune.strategy", tune_strategy_text(r, cfg)) + "\n";
        std::fputs(out.c_str(), stdout);
        break;
    }
    }
    std::fflush(stdout);
}

}  // namespace

int cmd_tune(const CliOptions& o) {
    // --gpus: the candidates' first timing is spread over a pool of one GPU model (TuneCallbacks).
    std::unique_ptr<GpuPool> pool = pool_requested(o) ? make_pool(o) : nullptr;
    if (pool && pool->mixed_models()) throw usage_error(tr("cli.tune_mixed_models"));
    std::unique_ptr<Engine> own_engine = pool ? nullptr : make_engine(o);
    Engine* const engine = pool ? &pool->engine(0) : own_engine.get();
    const Variant& v = resolve_variant(o.variant);
    const TuneConfig cfg = tune_config(o, v);
    apply_target(*engine, o.target);
    const bool gpu = engine->device().gpu;

    const std::string root = default_cache_dir();
    const std::string cache_path = root.empty() ? "" : tune_cache_path(root, tune_key(*engine, v, cfg));
    if (gpu && !o.fresh && !cache_path.empty()) {
        TuneReport cached;
        std::string why;
        switch (load_tune_cache(cache_path, tune_key(*engine, v, cfg), cached, why)) {
        case CacheLoad::hit: print_report(o, cached, cfg, v, true); return kExitOk;
        case CacheLoad::refused: std::fprintf(stderr, "tilelab-cli: %s\n", trf("tune.cache_refused", why).c_str()); break;
        case CacheLoad::missing: break;
        }
    }

    g_cancel.store(false);
    std::signal(SIGINT, on_interrupt);
    const bool tty = isatty(STDERR_FILENO);
    TuneCallbacks cb;
    cb.cancel = &g_cancel;
    cb.progress = [&](const TuneProgress& p) {
        if (!tty && !gpu) return;   // model mode in a pipe: the report says it all
        const std::string best = p.best ? trf("tune.progress_best", fmt_ms(p.best->median_ms), params_text(v, p.best->params))
                                        : std::string();
        const std::string line = trf("tune.progress", stage_text(p.stage), p.done, p.total, best);
        if (tty) std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
        else std::fprintf(stderr, "%s\n", line.c_str());
    };
    TuneReport report;
    {
        GpuWaitEcho echo(*engine);
        cb.pool = pool.get();
        report = run_tune(*engine, v, cfg, cb);
    }
    std::signal(SIGINT, SIG_DFL);
    if (tty) std::fputs("\r\x1b[K", stderr);
    if (report.valid == 0) throw usage_error(tr("tune.no_valid_point"));

    print_report(o, report, cfg, v, false);
    if (!gpu) throw CliError(kExitNoGpu, trf("ceilings.no_gpu", engine->device().reason));
    if (report.cancelled) throw CliError(kExitRuntime, trf("tune.cancelled", report.tried));
    if (std::string why; !cache_path.empty() && !save_tune_cache(cache_path, report, why))
        std::fprintf(stderr, "tilelab-cli: %s\n", trf("tune.cache_not_written", why).c_str());
    if (report.candidates.empty() || !report.candidates.front().measured || !report.candidates.front().valid)
        throw CliError(kExitValidation, tr("tune.nothing_valid"));
    return kExitOk;
}

}  // namespace tilelab::cli
