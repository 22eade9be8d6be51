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
    {
        std::lock_guard l(mutex_);
        if (tune_.running) return false;   // one search at a time: the button is disabled meanwhile
        tune_pending_ = TuneJob{variant, cfg, cache_root};
        tune_ = TuneStatus{};
        tune_.generation = ++tune_generation_;
        tune_.running = true;
        tune_.key = key;
        tune_.variant = variant;
        tune_.problem = cfg.problem;
        cancel_tune_ = false;
    }
    wake_.notify_all();
    return true;
}

void EngineThread::cancel_tune() {
    std::lock_guard l(mutex_);
    if (!tune_.running) return;
    cancel_tune_ = true;
    tune_.cancelling = true;
    if (tune_pending_) {   // not started yet: nothing to report
        tune_pending_.reset();
        tune_.running = false;
    }
}

TuneStatus EngineThread::tune_status() const {
    std::lock_guard l(mutex_);
    return tune_;
}

void EngineThread::serve_tune(std::unique_lock<std::mutex>& lock) {
    const TuneJob job = std::move(*tune_pending_);
    tune_pending_.reset();
    const uint64_t generation = tune_.generation;
    activity_ = EngineActivity::Tuning;
    lock.unlock();

    TuneCallbacks cb;
    cb.cancel = &cancel_tune_;
    cb.progress = [&](const TuneProgress& p) {
        std::lock_guard l(mutex_);
        tune_.stage = p.stage;
        tune_.done = p.done;
        tune_.total = p.total;
        if (p.best) tune_.best = *p.best;
        else tune_.best.reset();
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

    lock.lock();
    if (tune_.generation == generation) {
        tune_.running = tune_.cancelling = false;
        tune_.error = error;
        if (error.empty() || !report->candidates.empty()) tune_.report = std::move(report);
    }
}

}  // namespace tilelab::gui
