#include "engine_thread.h"
#include "tilelab/i18n.h"
#include "engine_thread_detail.h"
#include <algorithm>
#include <exception>
#include <utility>

namespace tilelab::gui {

const char* to_string(EngineActivity a) {
    switch (a) {
    case EngineActivity::Starting: return tr("activity.starting").c_str();
    case EngineActivity::Idle: return tr("activity.idle").c_str();
    case EngineActivity::Debouncing: return tr("activity.debouncing").c_str();
    case EngineActivity::Analyzing: return tr("activity.analyzing").c_str();
    case EngineActivity::CheckingOnCpu: return tr("activity.checking_on_cpu").c_str();
    case EngineActivity::RunningQuick: return tr("activity.running_quick").c_str();
    case EngineActivity::Running: return tr("activity.running").c_str();
    case EngineActivity::Sweeping: return tr("activity.sweeping").c_str();
    case EngineActivity::Tuning: return tr("activity.tuning").c_str();
    case EngineActivity::MeasuringCeilings: return tr("activity.measuring_ceilings").c_str();
    }
    return "?";
}

EngineThread::EngineThread(EngineConfig cfg) {
    out_.where = cfg.gpu;
    thread_ = std::thread([this, cfg] { loop(cfg); });
}

EngineThread::~EngineThread() {
    jobs_.stop();
    thread_.join();
}

// ---- what the UI reads ------------------------------------------------------------------------

bool EngineThread::ready() const { std::lock_guard l(out_.mutex); return out_.ready; }
Engine* EngineThread::engine_if_ready() { std::lock_guard l(out_.mutex); return out_.engine; }
// Live: a GPU elsewhere whose link is lost turns the engine to model mode between updates.
DeviceStatus EngineThread::device() const {
    std::lock_guard l(out_.mutex);
    return out_.engine && !out_.reconnecting ? out_.engine->device() : out_.device;
}
GpuLocation EngineThread::location() const { std::lock_guard l(out_.mutex); return out_.where; }
bool EngineThread::reconnecting() const {
    if (jobs_.reconnect_waiting()) return true;
    std::lock_guard l(out_.mutex);
    return out_.reconnecting;
}
std::string EngineThread::gpu_note() const {
    std::lock_guard l(out_.mutex);
    return out_.engine ? out_.engine->gpu_note() : "";
}
Target EngineThread::target() const { std::lock_guard l(out_.mutex); return out_.target; }
Ceilings EngineThread::ceilings() const { std::lock_guard l(out_.mutex); return out_.ceilings; }
EngineActivity EngineThread::activity() const { std::lock_guard l(out_.mutex); return out_.activity; }
double EngineThread::activity_seconds() const {
    std::lock_guard l(out_.mutex);
    return std::chrono::duration<double>(Clock::now() - out_.activity_since).count();
}

void EngineThread::reconnect(const GpuLocation& where) {
    {   // "connecting" from now on: device() stops asking the engine until it is done
        std::lock_guard l(out_.mutex);
        out_.where = where;
        out_.reconnecting = true;
    }
    jobs_.reconnect(where);
}

std::string EngineThread::invalid_reason(const RunRequest& req) const {
    const Engine* engine;
    {
        std::lock_guard l(out_.mutex);
        engine = out_.engine;
    }
    if (!engine) return "";
    std::shared_lock engine_lock(engine_mutex_);
    try {
        return engine->invalid_reason(req);
    } catch (const std::exception& e) {
        return trf("engine.could_not_check", e.what());
    }
}

void EngineThread::set_model_target(const Target& t) { jobs_.set_target(t); }
void EngineThread::reword_status() { jobs_.reword(); }

uint64_t EngineThread::submit(const RunRequest& req, const RunOptions& opt, std::chrono::milliseconds debounce,
                              AheadHint ahead) {
    // The debounce is there so a moving slider does not start NVRTC compiles for every value it
    // passes. A kernel already compiled (ahead, or earlier) costs nothing to start: no wait. Nor
    // does the first change after a pause (a click, a jump, the first step of a drag): only a
    // change that follows another within the debounce is a slider still moving.
    bool compiled = false;
    if (debounce.count() > 0)
        if (Engine* engine = engine_if_ready()) {
            std::shared_lock engine_lock(engine_mutex_);
            compiled = engine->kernel_in_memory(req);
        }
    return jobs_.submit(req, opt, debounce, std::move(ahead), compiled);
}

bool EngineThread::poll(EngineUpdate& out) {
    std::lock_guard l(out_.mutex);
    if (!out_.update) return false;
    out = std::move(*out_.update);
    out_.update.reset();
    return true;
}

void EngineThread::set_on_delivery(std::function<void()> wake) {
    std::lock_guard l(out_.mutex);
    out_.on_delivery = std::move(wake);
}

uint64_t EngineThread::deliveries() const {
    std::lock_guard l(out_.mutex);
    return out_.deliveries;
}

bool EngineThread::wait_for_delivery(uint64_t seen, double ms) const {
    std::unique_lock l(out_.mutex);
    return out_.delivery.wait_for(l, std::chrono::duration<double, std::milli>(ms),
                                  [&] { return out_.deliveries > seen; });
}

void EngineThread::delivered() {
    std::function<void()> wake;
    {
        std::lock_guard l(out_.mutex);
        ++out_.deliveries;
        wake = out_.on_delivery;
    }
    out_.delivery.notify_all();
    if (wake) wake();
}

bool EngineThread::busy() const { return jobs_.busy(); }
uint64_t EngineThread::last_submitted_id() const { return jobs_.last_submitted_id(); }

InteractiveCompileStats EngineThread::compile_stats() const {
    std::lock_guard l(out_.mutex);
    return out_.compile_stats;
}

CompileAheadStats EngineThread::compile_ahead_stats() const {
    const Engine* engine;
    {
        std::lock_guard l(out_.mutex);
        engine = out_.engine;
    }
    return engine ? engine->compile_ahead_stats() : CompileAheadStats{};
}

bool EngineThread::background_idle() const {
    {
        std::lock_guard l(out_.mutex);
        if (!out_.ready || (out_.device.gpu && !out_.ceilings_tried) || out_.activity == EngineActivity::MeasuringCeilings)
            return false;
    }
    return compile_ahead_stats().idle();
}

// ---- sweeps -----------------------------------------------------------------------------------

void EngineThread::submit_sweep(std::vector<RunRequest> reqs, const RunOptions& opt) {
    uint64_t generation;
    {   // the outbox first: a point taken from the new sweep finds its slot waiting
        std::lock_guard l(out_.mutex);
        generation = ++out_.sweep_generation;
        out_.sweep_results.assign(reqs.size(), nullptr);
        out_.sweep_gpus.clear();
        out_.sweep_per_gpu.clear();
        out_.sweep_note.clear();
        out_.sweep_done = 0;
    }
    jobs_.submit_sweep(std::move(reqs), opt, generation);
}

void EngineThread::cancel_sweep() { jobs_.cancel_sweep(); }

SweepProgress EngineThread::sweep_progress() const {
    const bool waiting = jobs_.sweep_waiting();
    std::lock_guard l(out_.mutex);
    SweepProgress p;
    p.generation = out_.sweep_generation;
    p.done = out_.sweep_done;
    p.total = out_.sweep_results.size();
    p.running = waiting || out_.activity == EngineActivity::Sweeping;
    p.per_gpu = out_.sweep_per_gpu;
    p.note = out_.sweep_note;
    return p;
}

std::vector<std::shared_ptr<const RunResult>> EngineThread::sweep_results() const {
    std::lock_guard l(out_.mutex);
    return out_.sweep_results;
}

std::vector<std::string> EngineThread::sweep_gpus() const {
    std::lock_guard l(out_.mutex);
    return out_.sweep_gpus;
}

std::string EngineThread::set_gpu_set(const std::string& gpus) { return jobs_.set_gpu_set(gpus); }
std::string EngineThread::gpu_set() const { return jobs_.gpu_set(); }

// ---- on the engine thread ---------------------------------------------------------------------

EngineSide EngineThread::engine_side() const {
    std::lock_guard l(out_.mutex);
    return {gpu_, gpu_ && !out_.ceilings_tried};
}

void EngineThread::set_activity(EngineActivity a) {
    std::lock_guard l(out_.mutex);
    out_.set_activity(a);
}

void EngineThread::publish(std::shared_ptr<const RunResult> r, const InteractiveJob& job, Clock::time_point started,
                           bool only_if_current) {
    const Phase phase = r->phase;
    const bool handed = jobs_.publish_interactive(job, phase, only_if_current, [&] {
        EngineUpdate u = EngineUpdate::now(std::move(r), job.id, job.submitted, started);
        u.after_release = phase == Phase::full && !job.opt.quick && job.follow_up;
        std::lock_guard l(out_.mutex);
        out_.update = std::move(u);
    });
    if (handed) delivered();
}

void EngineThread::queue_compile_ahead(const InteractiveJob& job) {
    const RunRequest& req = job.req;
    // Which way the slider moved, from the last request analysed: its next value that way first.
    int direction = 0;
    if (!job.ahead.changed.empty() && last_analysed_ && last_analysed_->variant == req.variant) {
        const int before = param_or(last_analysed_->params, job.ahead.changed, 0);
        const int now = param_or(req.params, job.ahead.changed, 0);
        direction = now > before ? +1 : now < before ? -1 : 0;
    }
    std::vector<RunRequest> list = engine_->neighbours(req, job.ahead.changed, direction);
    for (const RunRequest& r : job.ahead.also)
        if (!(r == req)) list.push_back(r);
    engine_->compile_ahead(std::move(list), gpu_ && job.ahead.instrumented);
}

void EngineThread::serve_interactive(const InteractiveJob& job) {
    const RunRequest& req = job.req;
    const auto started = Clock::now();
    set_activity(EngineActivity::Analyzing);
    // The full run will count: its instrumented build compiles beside the plain one from now on.
    if (gpu_ && job.ahead.instrumented && job.ahead.count_now && !job.follow_up) {
        std::shared_lock engine_lock(engine_mutex_);
        engine_->compile_counting_now(req);
    }

    const std::shared_ptr<RunResult> analysed = detail::guarded(engine_mutex_, req, [&] { return engine_->analyze(req); });
    {
        std::shared_lock engine_lock(engine_mutex_);
        // The user will look at this for a while: guess what comes next and compile it in the
        // background while the GPU measures this one. A follow-up's guesses are already queued.
        if (analysed->ok && !job.follow_up) {
            try {
                queue_compile_ahead(job);
            } catch (const std::exception&) {
                // Only a guess: without it the next change compiles as it always did.
            }
        }
    }
    if (!gpu_ && analysed->no_gpu_reason.empty()) analysed->no_gpu_reason = no_gpu_reason_;
    last_analysed_ = req;
    if (!job.follow_up && analysed->compiled) {
        std::lock_guard l(out_.mutex);
        ++out_.compile_stats.asked;
        out_.compile_stats.cached += analysed->stages.compile_cached;
        out_.compile_stats.ahead += analysed->stages.prefetch_hit;
    }
    // Without a GPU (or when analysis failed) there is nothing more to do: this is final, and shown
    // even if a newer request waits. A follow-up's analysis is already on screen, with the quick
    // run's measurements.
    const bool final = !gpu_ || !analysed->ok;
    if (final) analysed->phase = Phase::full;
    if (final || !job.follow_up) publish(analysed, job, started, !final);
    if (final || jobs_.interactive_superseded()) {
        jobs_.end_interactive();
        return;
    }
    set_activity(job.opt.quick ? EngineActivity::RunningQuick : EngineActivity::Running);

    // The analysis on screen is measured as it is: nothing is analysed or compiled twice.
    const std::shared_ptr<RunResult> measured =
        detail::guarded(engine_mutex_, req, [&] { return engine_->measure(*analysed, job.opt, &jobs_.cancel_run); });

    if (job.opt.count_accesses && measured->stages.count_compile_ms > 0) {
        std::lock_guard l(out_.mutex);
        ++out_.compile_stats.counted_asked;
        out_.compile_stats.counted_cached += measured->stages.count_compile_cached;
        out_.compile_stats.counted_ahead += measured->stages.count_prefetch_hit;
    }
    // A cancelled run was replaced by a newer request; its partial result is not shown.
    publish(measured, job, started, true);
    jobs_.end_interactive();
}

void EngineThread::serve_sweep_item(const SweepJob& job) {
    set_activity(EngineActivity::Sweeping);
    const RunRequest& req = job.reqs.front();
    std::shared_ptr<RunResult> r =
        detail::guarded(engine_mutex_, req, [&] { return engine_->run(req, job.opt, &jobs_.cancel_sweep_flag); });
    if (!jobs_.sweep_current(job.generation)) return;
    {
        std::lock_guard l(out_.mutex);
        if (job.generation != out_.sweep_generation) return;
        out_.sweep_results[job.first] = std::move(r);
        ++out_.sweep_done;
    }
    delivered();
}

void EngineThread::serve_ceilings() {
    {   // tried from now on: background_idle() waits for the activity to end
        std::lock_guard l(out_.mutex);
        out_.ceilings_tried = true;
        out_.set_activity(EngineActivity::MeasuringCeilings);
    }
    Ceilings c;
    {
        std::shared_lock engine_lock(engine_mutex_);
        try {
            c = engine_->ceilings();
        } catch (const std::exception& e) {
            c.note = e.what();
        }
    }
    std::lock_guard l(out_.mutex);
    out_.ceilings = c;
}

void EngineThread::serve(Job& job) {
    switch (job.kind) {
    case JobKind::Stop: return;
    case JobKind::Reconnect: {
        {   // set by reconnect() already; again for a second reconnect queued behind a first
            std::lock_guard l(out_.mutex);
            out_.reconnecting = true;
        }
        {
            std::unique_lock engine_lock(engine_mutex_);
            engine_->reconnect(job.where);
        }
        gpu_ = engine_->device().gpu;
        no_gpu_reason_ = engine_->device().reason;
        std::lock_guard l(out_.mutex);
        out_.reconnecting = false;
        out_.device = engine_->device();
        out_.target = engine_->target();
        out_.ceilings_tried = false;
        out_.ceilings = {};
        return;
    }
    case JobKind::Reword: {
        {
            std::unique_lock engine_lock(engine_mutex_);
            engine_->reword_status();
        }
        no_gpu_reason_ = engine_->device().reason;
        std::lock_guard l(out_.mutex);
        out_.device = engine_->device();
        return;
    }
    case JobKind::Target: {
        {
            std::unique_lock engine_lock(engine_mutex_);
            engine_->set_target(job.target);
        }
        std::lock_guard l(out_.mutex);
        out_.target = engine_->target();
        return;
    }
    case JobKind::Interactive: serve_interactive(job.interactive); return;
    case JobKind::User: serve_user(job.user); return;
    case JobKind::Tune: serve_tune(job.tune); return;
    case JobKind::Sweep:
        if (job.sweep.gpu_set.empty()) serve_sweep_item(job.sweep);
        else serve_sweep_on_pool(job.sweep);
        return;
    case JobKind::Ceilings: serve_ceilings(); return;
    }
}

// Without an engine nothing can be shown but the reason: every request is answered with it until
// the thread is stopped.
void EngineThread::answer_without_engine(const std::string& why) {
    const std::string reason = trf("engine.could_not_start", why);
    {
        std::lock_guard l(out_.mutex);
        out_.device.reason = reason;
    }
    for (;;) {
        Job job = jobs_.next(EngineSide{}, [](bool) {});
        switch (job.kind) {
        case JobKind::Stop: return;
        case JobKind::Interactive:
            publish(detail::failed_result(job.interactive.req, why.c_str()), job.interactive, Clock::now(), false);
            jobs_.end_interactive();
            break;
        case JobKind::User:
            publish_user(detail::failed_result(job.user.req, why.c_str()), job.user, Clock::now());
            jobs_.end_user();
            break;
        case JobKind::Tune: {
            std::lock_guard l(out_.mutex);
            out_.tune.running = false;
            out_.tune.error = reason;
            break;
        }
        case JobKind::Sweep: {
            std::lock_guard l(out_.mutex);
            if (job.sweep.generation != out_.sweep_generation) break;
            out_.sweep_results[job.sweep.first] = detail::failed_result(job.sweep.reqs.front(), why.c_str());
            ++out_.sweep_done;
            break;
        }
        default: break;
        }
    }
}

void EngineThread::loop(EngineConfig cfg) {
    try {
        engine_ = std::make_unique<Engine>(cfg);
    } catch (const std::exception& e) {
        answer_without_engine(e.what());
        return;
    }
    pool_base_ = cfg;
    gpu_ = engine_->device().gpu;
    no_gpu_reason_ = engine_->device().reason;
    {
        std::lock_guard l(out_.mutex);
        out_.engine = engine_.get();
        out_.device = engine_->device();
        out_.target = engine_->target();
        out_.ready = true;
        out_.set_activity(EngineActivity::Idle);
    }
    for (;;) {
        Job job = jobs_.next(engine_side(), [this](bool debouncing) {
            set_activity(debouncing ? EngineActivity::Debouncing : EngineActivity::Idle);
        });
        if (job.kind == JobKind::Stop) break;
        serve(job);
        set_activity(EngineActivity::Idle);
    }
    {
        std::lock_guard l(out_.mutex);
        out_.engine = nullptr;
        out_.ready = false;
    }
    pool_.reset();
    engine_.reset();
}

}  // namespace tilelab::gui
