// The engine thread's fourth kind of work: the autotuner (tilelab/tune.h) for the Compare tab's
// "Find the best on this GPU". One search at a time; it is served when no interactive request is
// waiting and then holds the engine thread until it ends, so no lesson run shares the GPU with its
// timings (the status bar says "autotuning" meanwhile). Cancel stops it between two points. On a
// GPU a finished search is cached per GPU name, variant, size and settings, as `tilelab-cli tune`
// caches it, so either finds the other's ranking.
#include <exception>
#include <stdexcept>
#include <utility>
#include "engine_thread.h"
#include "tilelab/i18n.h"

namespace tilelab::gui {

bool EngineThread::submit_tune(const std::string& variant, const TuneConfig& cfg, const std::string& key,
                               const std::string& cache_root) {
    uint64_t generation;
    {
        std::lock_guard l(out_.mutex);
        if (out_.tune.running) return false;   // one search at a time: the button is disabled meanwhile
        out_.tune = TuneStatus{};
        generation = out_.tune.generation = ++out_.tune_generation;
        out_.tune.running = true;
        out_.tune.key = key;
        out_.tune.variant = variant;
        out_.tune.problem = cfg.problem;
    }
    jobs_.submit_tune(TuneJob{variant, cfg, cache_root, generation});
    return true;
}

void EngineThread::cancel_tune() {
    std::lock_guard l(out_.mutex);
    if (!out_.tune.running) return;
    out_.tune.cancelling = true;
    if (jobs_.cancel_tune()) out_.tune.running = false;   // not started yet: nothing to report
}

TuneStatus EngineThread::tune_status() const {
    std::lock_guard l(out_.mutex);
    return out_.tune;
}

void EngineThread::serve_tune(const TuneJob& job) {
    set_activity(EngineActivity::Tuning);
    TuneCallbacks cb;
    cb.cancel = &jobs_.cancel_tune_flag;
    cb.progress = [&](const TuneProgress& p) {
        std::lock_guard l(out_.mutex);
        if (out_.tune.generation != job.generation) return;
        out_.tune.stage = p.stage;
        out_.tune.done = p.done;
        out_.tune.total = p.total;
        if (p.best) out_.tune.best = *p.best;
        else out_.tune.best.reset();
    };
    auto report = std::make_shared<TuneReport>();
    std::string error;
    bool gpu = false;
    {
        std::shared_lock engine_lock(engine_mutex_);   // the target cannot change under the search
        try {
            const Variant* v = find_variant(job.variant);
            if (v == nullptr) throw std::runtime_error(trf("tuner.no_variant", job.variant));
            gpu = engine_->device().gpu;
            *report = run_tune(*engine_, *v, job.cfg, cb);
        } catch (const std::exception& e) {
            error = trf("tuner.failed", e.what());
        }
    }
    // Only a finished search on a GPU is worth keeping: a cancelled one is partial, a model-mode one
    // measured nothing (and is recomputed in seconds).
    if (error.empty() && gpu && !report->cancelled && !job.cache_root.empty()) {
        std::string why;
        if (!save_tune_cache(tune_cache_path(job.cache_root, *report), *report, why))
            error = trf("tune.cache_not_written", why);
    }
    std::lock_guard l(out_.mutex);
    if (out_.tune.generation == job.generation) {
        out_.tune.running = out_.tune.cancelling = false;
        out_.tune.error = error;
        if (error.empty() || !report->candidates.empty()) out_.tune.report = std::move(report);
    }
}

}  // namespace tilelab::gui
