#include "engine_thread.h"
#include "tilelab/i18n.h"
#include "engine_thread_detail.h"
#include <algorithm>
#include <exception>
#include <utility>

namespace tilelab::gui {

namespace {

// The card's ceilings (a few hundred ms of GPU work in one worker call) wait until the user has
// left the app alone this long, so a first change never queues behind them.
constexpr std::chrono::milliseconds kCeilingsAfterQuiet(1000);

}  // namespace

const char* to_string(EngineActivity a) {
    switch (a) {
    case EngineActivity::Starting: return tr("activity.starting").c_str();
    case EngineActivity::Idle: return tr("activity.idle").c_str();
    case EngineActivity::Debouncing: return tr("activity.debouncing").c_str();
    case EngineActivity::Analyzing: return tr("activity.analyzing").c_str();
    case EngineActivity::RunningQuick: return tr("activity.running_quick").c_str();
    case EngineActivity::Running: return tr("activity.running").c_str();
    case EngineActivity::Sweeping: return tr("activity.sweeping").c_str();
    case EngineActivity::Tuning: return tr("activity.tuning").c_str();
    case EngineActivity::MeasuringCeilings: return tr("activity.measuring_ceilings").c_str();
    }
    return "?";
}

EngineThread::EngineThread(EngineConfig cfg) : where_(cfg.gpu), thread_([this, cfg] { loop(cfg); }) {}

EngineThread::~EngineThread() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cancel_run_ = true;
    cancel_sweep_ = true;
    cancel_user_ = true;
    cancel_tune_ = true;
    wake_.notify_all();
    thread_.join();
}

bool EngineThread::ready() const { std::lock_guard l(mutex_); return ready_; }
Engine* EngineThread::engine_if_ready() { std::lock_guard l(mutex_); return ready_ ? engine_.get() : nullptr; }
// Live: a GPU elsewhere whose link is lost turns the engine to model mode between updates.
DeviceStatus EngineThread::device() const {
    std::lock_guard l(mutex_);
    return ready_ && !reconnecting_ ? engine_->device() : device_;
}
GpuLocation EngineThread::location() const { std::lock_guard l(mutex_); return where_; }
bool EngineThread::reconnecting() const { std::lock_guard l(mutex_); return reconnect_pending_ || reconnecting_; }
std::string EngineThread::gpu_note() const {
    std::lock_guard l(mutex_);
    return ready_ ? engine_->gpu_note() : "";
}

void EngineThread::reconnect(const GpuLocation& where) {
    {
        std::lock_guard l(mutex_);
        reconnect_pending_ = true;
        pending_where_ = where_ = where;
    }
    wake_.notify_all();
}
Target EngineThread::target() const { std::lock_guard l(mutex_); return target_; }
Ceilings EngineThread::ceilings() const { std::lock_guard l(mutex_); return ceilings_; }
EngineActivity EngineThread::activity() const { std::lock_guard l(mutex_); return activity_; }

std::string EngineThread::invalid_reason(const RunRequest& req) const {
    {
        std::lock_guard l(mutex_);
        if (!ready_) return "";
    }
    std::shared_lock engine_lock(engine_mutex_);
    try {
        return engine_->invalid_reason(req);
    } catch (const std::exception& e) {
        return std::string("The engine could not check this configuration: ") + e.what() + ".";
    }
}

void EngineThread::set_model_target(const Target& t) {
    {
        std::lock_guard l(mutex_);
        target_pending_ = true;
        pending_target_ = t;
    }
    wake_.notify_all();
}

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
    uint64_t id;
    {
        std::lock_guard l(mutex_);
        id = next_id_++;
        Interactive job{req, opt, id, Clock::now(), {}, false, std::move(ahead)};
        last_interactive_ = job.submitted;
        const bool moving = job.submitted - last_submit_ < debounce;
        last_submit_ = job.submitted;
        job.due = job.submitted + ((compiled || !moving) && !in_flight_ ? std::chrono::milliseconds(0) : debounce);
        // The newest request, waiting or in flight: if it is a quick run of these very values (the
        // drag ended on them), its result is the fastest validated answer, so it goes on and the
        // full protocol follows it.
        const Interactive* newest = pending_ ? &*pending_ : in_flight_ ? &*in_flight_ : nullptr;
        if (!opt.quick && newest && newest->opt.quick && newest->req == req) {
            if (pending_) pending_->due = std::min(pending_->due, job.submitted);   // the slider has settled
            job.follow_up = true;
            follow_up_ = std::move(job);
        } else {
            // Its quick result already out: the analysis is on screen with it.
            job.follow_up = !opt.quick && last_quick_ && *last_quick_ == req;
            pending_ = std::move(job);
            follow_up_.reset();
            if (in_flight_) cancel_run_ = true;   // newest wins
        }
    }
    wake_.notify_all();
    return id;
}

bool EngineThread::poll(EngineUpdate& out) {
    std::lock_guard l(mutex_);
    if (!has_update_) return false;
    out = std::move(update_);
    has_update_ = false;
    return true;
}

bool EngineThread::busy() const {
    std::lock_guard l(mutex_);
    return pending_ || follow_up_ || in_flight_;
}

uint64_t EngineThread::last_submitted_id() const {
    std::lock_guard l(mutex_);
    return next_id_ - 1;
}

InteractiveCompileStats EngineThread::compile_stats() const {
    std::lock_guard l(mutex_);
    return compile_stats_;
}

CompileAheadStats EngineThread::compile_ahead_stats() const {
    const Engine* engine = nullptr;
    {
        std::lock_guard l(mutex_);
        if (ready_) engine = engine_.get();
    }
    return engine ? engine->compile_ahead_stats() : CompileAheadStats{};
}

bool EngineThread::background_idle() const {
    {
        std::lock_guard l(mutex_);
        if (!ready_ || (device_.gpu && !ceilings_tried_) || activity_ == EngineActivity::MeasuringCeilings) return false;
    }
    return compile_ahead_stats().idle();
}

void EngineThread::submit_sweep(std::vector<RunRequest> reqs, const RunOptions& opt) {
    {
        std::lock_guard l(mutex_);
        cancel_sweep_ = true;   // stop the item in flight of the previous sweep
        sweep_reqs_ = std::move(reqs);
        sweep_opt_ = opt;
        sweep_results_.assign(sweep_reqs_.size(), nullptr);
        sweep_gpus_.clear();
        sweep_per_gpu_.clear();
        sweep_note_.clear();
        sweep_next_ = sweep_done_ = 0;
        ++sweep_generation_;
    }
    wake_.notify_all();
}

void EngineThread::cancel_sweep() {
    std::lock_guard l(mutex_);
    cancel_sweep_ = true;
    sweep_next_ = sweep_reqs_.size();
}

SweepProgress EngineThread::sweep_progress() const {
    std::lock_guard l(mutex_);
    SweepProgress p;
    p.generation = sweep_generation_;
    p.done = sweep_done_;
    p.total = sweep_reqs_.size();
    p.running = sweep_next_ < sweep_reqs_.size() || (activity_ == EngineActivity::Sweeping);
    p.per_gpu = sweep_per_gpu_;
    p.note = sweep_note_;
    return p;
}

std::vector<std::shared_ptr<const RunResult>> EngineThread::sweep_results() const {
    std::lock_guard l(mutex_);
    return sweep_results_;
}

void EngineThread::publish(std::shared_ptr<const RunResult> r, const Interactive& job, Clock::time_point started) {
    // Called with mutex_ held.
    if (r->phase == Phase::quick) last_quick_ = job.req;
    else last_quick_.reset();
    update_.after_release = r->phase == Phase::full && !job.opt.quick && job.follow_up;
    update_.result = std::move(r);
    update_.request_id = job.id;
    update_.submitted = job.submitted;
    update_.started = started;
    update_.published = Clock::now();
    has_update_ = true;
}


void EngineThread::queue_compile_ahead(const Interactive& job) {
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
    engine_->compile_ahead(std::move(list), device_.gpu && job.ahead.instrumented);
}

void EngineThread::serve_interactive(std::unique_lock<std::mutex>& lock) {
    in_flight_ = std::exchange(pending_, std::nullopt);
    const Interactive job = *in_flight_;
    const RunRequest& req = job.req;
    const auto started = Clock::now();
    const bool gpu = device_.gpu;
    cancel_run_ = false;
    activity_ = EngineActivity::Analyzing;
    lock.unlock();

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
    if (!gpu && analysed->no_gpu_reason.empty()) analysed->no_gpu_reason = device_.reason;

    lock.lock();
    last_analysed_ = req;
    if (!job.follow_up && analysed->compiled) {
        ++compile_stats_.asked;
        compile_stats_.cached += analysed->stages.compile_cached;
        compile_stats_.ahead += analysed->stages.prefetch_hit;
    }
    const bool superseded = pending_.has_value();
    // Without a GPU (or when analysis failed) there is nothing more to do: this is final.
    const bool final = !gpu || !analysed->ok;
    if (final) analysed->phase = Phase::full;
    // A follow-up's analysis is already on screen, with the quick run's measurements.
    if (final || (!superseded && !job.follow_up)) publish(analysed, job, started);
    if (final || superseded) {
        in_flight_.reset();
        last_interactive_ = Clock::now();
        return;
    }
    activity_ = job.opt.quick ? EngineActivity::RunningQuick : EngineActivity::Running;
    lock.unlock();

    // The analysis on screen is measured as it is: nothing is analysed or compiled twice.
    const std::shared_ptr<RunResult> measured =
        detail::guarded(engine_mutex_, req, [&] { return engine_->measure(*analysed, job.opt, &cancel_run_); });

    lock.lock();
    last_interactive_ = Clock::now();
    if (job.opt.count_accesses && measured->stages.count_compile_ms > 0) {
        ++compile_stats_.counted_asked;
        compile_stats_.counted_cached += measured->stages.count_compile_cached;
        compile_stats_.counted_ahead += measured->stages.count_prefetch_hit;
    }
    // A cancelled run was replaced by a newer request; its partial result is not shown.
    if (!cancel_run_ && !pending_) publish(measured, job, started);
    in_flight_.reset();
}

void EngineThread::serve_sweep_item(std::unique_lock<std::mutex>& lock) {
    const size_t index = sweep_next_++;
    const RunRequest req = sweep_reqs_[index];
    const RunOptions opt = sweep_opt_;
    const uint64_t generation = sweep_generation_;
    cancel_sweep_ = false;
    activity_ = EngineActivity::Sweeping;
    lock.unlock();

    std::shared_ptr<RunResult> r = detail::guarded(engine_mutex_, req, [&] { return engine_->run(req, opt, &cancel_sweep_); });

    lock.lock();
    if (generation == sweep_generation_ && !cancel_sweep_) {
        sweep_results_[index] = std::move(r);
        ++sweep_done_;
    }
}

// Without an engine nothing can be shown but the reason: every request is answered with it until
// the thread is stopped.
void EngineThread::answer_without_engine(const std::string& why) {
    std::unique_lock lock(mutex_);
    device_.reason = "The engine could not start: " + why;
    while (!stop_) {
        if (follow_up_) pending_ = std::exchange(follow_up_, std::nullopt);   // only the newest needs an answer
        if (pending_) {
            publish(detail::failed_result(pending_->req, why.c_str()), *pending_, Clock::now());
            pending_.reset();
        }
        if (user_pending_) {
            publish_user(detail::failed_result(user_pending_->req, why.c_str()), *user_pending_, Clock::now());
            user_pending_.reset();
        }
        if (tune_pending_) {
            tune_.running = false;
            tune_.error = device_.reason;
            tune_pending_.reset();
        }
        wake_.wait(lock);
    }
}

void EngineThread::loop(EngineConfig cfg) {
    std::unique_ptr<Engine> engine;
    try {
        engine = std::make_unique<Engine>(cfg);
    } catch (const std::exception& e) {
        answer_without_engine(e.what());
        return;
    }

    std::unique_lock lock(mutex_);
    engine_ = std::move(engine);
    pool_base_ = cfg;
    device_ = engine_->device();
    target_ = engine_->target();
    ready_ = true;
    activity_ = EngineActivity::Idle;

    while (!stop_) {
        const auto now = Clock::now();
        if (reconnect_pending_) {
            reconnect_pending_ = false;
            reconnecting_ = true;
            const GpuLocation where = pending_where_;
            lock.unlock();
            {
                std::unique_lock engine_lock(engine_mutex_);
                engine_->reconnect(where);
            }
            lock.lock();
            reconnecting_ = false;
            device_ = engine_->device();
            target_ = engine_->target();
            ceilings_tried_ = false;
            ceilings_ = {};
            continue;
        }
        if (target_pending_) {
            target_pending_ = false;
            const Target t = pending_target_;
            lock.unlock();
            {
                std::unique_lock engine_lock(engine_mutex_);
                engine_->set_target(t);
            }
            lock.lock();
            target_ = engine_->target();
            continue;
        }
        if (pending_ && now >= pending_->due) {
            serve_interactive(lock);
            activity_ = EngineActivity::Idle;
            continue;
        }
        if (user_pending_ && now >= user_pending_->due) {   // the lesson's own request still debouncing
            serve_user(lock);
            activity_ = EngineActivity::Idle;
            continue;
        }
        if (pending_ || user_pending_) {
            activity_ = EngineActivity::Debouncing;
            wake_.wait_until(lock, pending_ && user_pending_ ? std::min(pending_->due, user_pending_->due)
                                   : pending_             ? pending_->due
                                                          : user_pending_->due);
            continue;
        }
        if (follow_up_) {   // its quick run is done
            pending_ = std::exchange(follow_up_, std::nullopt);
            continue;
        }
        if (tune_pending_) {
            serve_tune(lock);
            activity_ = EngineActivity::Idle;
            continue;
        }
        if (sweep_next_ < sweep_reqs_.size()) {
            if (sweep_wants_pool()) serve_sweep_on_pool(lock);
            else serve_sweep_item(lock);
            activity_ = EngineActivity::Idle;
            continue;
        }
        if (device_.gpu && !ceilings_tried_) {
            if (const auto quiet_from = last_interactive_ + kCeilingsAfterQuiet; now < quiet_from) {
                activity_ = EngineActivity::Idle;
                wake_.wait_until(lock, quiet_from);
                continue;
            }
            ceilings_tried_ = true;
            activity_ = EngineActivity::MeasuringCeilings;
            lock.unlock();
            Ceilings c;
            {
                std::shared_lock engine_lock(engine_mutex_);
                try {
                    c = engine_->ceilings();
                } catch (const std::exception& e) {
                    c.note = e.what();
                }
            }
            lock.lock();
            ceilings_ = c;
            activity_ = EngineActivity::Idle;
            continue;
        }
        activity_ = EngineActivity::Idle;
        wake_.wait(lock);
    }
    lock.unlock();
    pool_.reset();
    engine_.reset();
}

}  // namespace tilelab::gui
