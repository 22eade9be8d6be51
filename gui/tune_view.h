// The Compare tab's autotuner (gui/panel_tune.cpp) without ImGui, so the tests can reach it: the
// search the tab asks for (the CLI's defaults, so the tab and `tilelab-cli tune` share cached
// rankings), what shows at once on entering a variant and size (this GPU's cached ranking), and
// the parameter values a clicked row sets.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include "app_state.h"
#include "engine_thread.h"
#include "tilelab/params.h"
#include "tilelab/tune.h"
#include "tilelab/variant.h"

namespace tilelab::gui {

// The tab's budget: 60 s unless the user changes it (as `tilelab-cli tune` without --budget).
constexpr double kDefaultTuneBudget = 60;

// The search for what the learner looks at: every parameter the tuner searches by default, with
// the CLI's candidates, sample and seed; the others (STEPS, CAUSAL, PREC: what is computed) at the
// values the learner set, given only where they differ from the defaults, so that at the defaults
// the tab and `tilelab-cli tune` without --set share a cached ranking.
TuneConfig TabTuneConfig(const Variant& v, const ParamValues& current, const Problem& problem, double budget_s);

// A search's identity (target, variant, size and settings) as one string, to tell whether the
// report or the search in flight belongs to what the tab shows now.
std::string TuneKeyName(const TuneReport& key);

// What shows at once on entering a key: the ranking cached for it under `cache_root` (on any
// machine: the key holds the GPU's name, so a model-mode target sees what was measured on a card of
// that name). `note`: why a file that is there was not used.
struct CachedTune {
    std::shared_ptr<const TuneReport> report;   // null: nothing cached (or refused)
    std::string note;
};
CachedTune LookUpTuneCache(const std::string& cache_root, const TuneReport& key);

// One frame's choice of what the section shows for `key`, the variant, size and settings on
// screen now. Entering a key (it differs from `view.key`) forgets the report shown and looks the
// key up in the cache (`look_up`, called only then: a hit shows at once). The engine thread's
// search of this key, once ended and not yet taken, replaces it (with its error, if any).
void UpdateTuneView(TuneViewState& view, const std::string& key, const TuneStatus& status,
                    const std::function<CachedTune()>& look_up);

// A row can be applied when it compiled and nothing failed: it was not pruned and has no error.
bool CanApplyTuneRow(const TuneCandidate& row);
// The values a clicked row sets, as the parameter panel sets them: every parameter of `v` from
// the row; one the row lacks (a report of an older declaration) keeps its value in `current`, else
// its default; a name the variant does not declare is dropped.
ParamValues TunedParams(const Variant& v, const TuneCandidate& row, const ParamValues& current);

// "TILE=32 PAD=1": the row's parameters in the variant's order (the parameter panel's).
std::string TuneParamsText(const Variant& v, const ParamValues& params);
// "2026-11-23T19:40:00Z" -> "2026-11-23 19:40 UTC" (anything else as it is).
std::string TuneTimeText(const std::string& utc);

// The row's note: why it was pruned or failed ("" = none).
std::string TuneRowNote(const TuneCandidate& row);

}  // namespace tilelab::gui
