#include "tune_view.h"
#include "tilelab/i18n.h"
#include "tilelab/result.h"

namespace tilelab::gui {

TuneConfig TabTuneConfig(const Variant& v, const ParamValues& current, const Problem& problem, double budget_s) {
    TuneConfig cfg;   // searched empty: what the CLI searches without --param
    for (const ParamSpec& p : v.params)
        if (const auto it = current.find(p.name); !p.searched_by_default() && it != current.end() && it->second != p.def)
            cfg.fixed[p.name] = it->second;
    cfg.problem = problem;
    cfg.budget_s = budget_s;
    cfg.seed = RunOptions{}.seed;   // the CLI's --seed default: the same key, the same cache file
    return cfg;
}

std::string TuneKeyName(const TuneReport& key) { return tune_cache_path("", key); }

CachedTune LookUpTuneCache(const std::string& cache_root, const TuneReport& key) {
    CachedTune out;
    if (cache_root.empty()) return out;
    TuneReport report;
    std::string why;
    switch (load_tune_cache(tune_cache_path(cache_root, key), key, report, why)) {
    case CacheLoad::hit: out.report = std::make_shared<const TuneReport>(std::move(report)); break;
    case CacheLoad::refused: out.note = trf("tuner.cache_refused", why); break;
    case CacheLoad::missing: break;
    }
    return out;
}

void UpdateTuneView(TuneViewState& view, const std::string& key, const TuneStatus& status,
                    const std::function<CachedTune()>& look_up) {
    if (view.key != key) {
        const double budget_s = view.budget_s;   // the user's choice outlives the key
        view = TuneViewState();
        view.budget_s = budget_s;
        view.key = key;
        CachedTune cached = look_up();
        view.report = std::move(cached.report);
        view.cached = view.report != nullptr;
        view.note = cached.note;
    }
    if (!status.running && status.key == key && status.generation != 0 && status.generation != view.taken &&
        (status.report || !status.error.empty())) {
        view.taken = status.generation;
        if (status.report) {
            view.report = status.report;
            view.cached = false;
            view.applied = -1;
        }
        view.note = status.error;
    }
}

bool CanApplyTuneRow(const TuneCandidate& row) { return row.pruned.empty() && row.error.empty(); }

ParamValues TunedParams(const Variant& v, const TuneCandidate& row, const ParamValues& current) {
    ParamValues out;
    for (const ParamSpec& p : v.params)
        out[p.name] = param_or(row.params, p.name, param_or(current, p.name, p.def));
    return out;
}

std::string TuneParamsText(const Variant& v, const ParamValues& params) {
    std::string out;
    for (const ParamSpec& p : v.params)
        if (const auto it = params.find(p.name); it != params.end())
            out += (out.empty() ? "" : " ") + p.name + "=" + p.value_text(it->second);
    return out;
}

std::string TuneTimeText(const std::string& utc) {
    // ISO 8601 as the tuner writes it: 20 characters, 'T' at 10, 'Z' last.
    if (utc.size() != 20 || utc[10] != 'T' || utc.back() != 'Z') return utc;
    return utc.substr(0, 10) + " " + utc.substr(11, 5) + " UTC";
}

std::string TuneRowNote(const TuneCandidate& row) {
    if (!row.pruned.empty()) return trf("tune.pruned", row.pruned);
    return row.error;
}

}  // namespace tilelab::gui
