#include "worker.h"
#include <exception>

namespace tilelab::gui {

const char* to_string(WorkerPhase p) {
    switch (p) {
    case WorkerPhase::Starting: return "starting the engine";
    case WorkerPhase::Idle: return "idle";
    case WorkerPhase::Debouncing: return "waiting for the slider to settle";
    case WorkerPhase::Analyzing: return "compiling and analysing";
    case WorkerPhase::Running: return "running on the GPU";
    case WorkerPhase::Sweeping: return "running the sweep";
    case WorkerPhase::MeasuringCeilings: return "measuring the card's ceilings";
    }
    return "?";
}

Worker::Worker(EngineConfig cfg) : thread_([this, cfg] { loop(cfg); }) {}

Worker::~Worker() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cancel_run_ = true;
    cancel_sweep_ = true;
    wake_.notify_all();
    thread_.join();
}

bool Worker::ready() const { std::lock_guard l(mutex_); return ready_; }
Engine* Worker::engine_if_ready() { std::lock_guard l(mutex_); return ready_ ? engine_.get() : nullptr; }
DeviceStatus Worker::device() const { std::lock_guard l(mutex_); return device_; }
Target Worker::target() const { std::lock_guard l(mutex_); return target_; }
Ceilings Worker::ceilings() const { std::lock_guard l(mutex_); return ceilings_; }
WorkerPhase Worker::phase() const { std::lock_guard l(mutex_); return phase_; }

std::string Worker::invalid_reason(const RunRequest& req) const {
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

void Worker::set_model_target(const Target& t) {
    {
        std::lock_guard l(mutex_);
        target_pending_ = true;
        pending_target_ = t;
    }
    wake_.notify_all();
}

uint64_t Worker::submit(const RunRequest& req, const RunOptions& opt, std::chrono::milliseconds debounce) {
    uint64_t id;
    {
        std::lock_guard l(mutex_);
        id = next_id_++;
        has_pending_ = true;
        pending_req_ = req;
        pending_opt_ = opt;
        pending_id_ = id;
        pending_submitted_ = Clock::now();
        pending_due_ = pending_submitted_ + debounce;
        if (in_flight_id_ != 0) cancel_run_ = true;   // newest wins
    }
    wake_.notify_all();
    return id;
}

bool Worker::poll(WorkerUpdate& out) {
    std::lock_guard l(mutex_);
    if (!has_update_) return false;
    out = std::move(update_);
    has_update_ = false;
    return true;
}

bool Worker::busy() const {
    std::lock_guard l(mutex_);
    return has_pending_ || in_flight_id_ != 0;
}

uint64_t Worker::last_submitted_id() const {
    std::lock_guard l(mutex_);
    return next_id_ - 1;
}

void Worker::submit_sweep(std::vector<RunRequest> reqs, const RunOptions& opt) {
    {
        std::lock_guard l(mutex_);
        cancel_sweep_ = true;   // stop the item in flight of the previous sweep
        sweep_reqs_ = std::move(reqs);
        sweep_opt_ = opt;
        sweep_results_.assign(sweep_reqs_.size(), nullptr);
        sweep_next_ = sweep_done_ = 0;
        ++sweep_generation_;
    }
    wake_.notify_all();
}

void Worker::cancel_sweep() {
    std::lock_guard l(mutex_);
    cancel_sweep_ = true;
    sweep_next_ = sweep_reqs_.size();
}

SweepProgress Worker::sweep_progress() const {
    std::lock_guard l(mutex_);
    SweepProgress p;
    p.generation = sweep_generation_;
    p.done = sweep_done_;
    p.total = sweep_reqs_.size();
    p.running = sweep_next_ < sweep_reqs_.size() || (phase_ == WorkerPhase::Sweeping);
    return p;
}

std::vector<std::shared_ptr<const RunResult>> Worker::sweep_results() const {
    std::lock_guard l(mutex_);
    return sweep_results_;
}

void Worker::publish(std::shared_ptr<const RunResult> r, bool final, uint64_t id, Clock::time_point submitted) {
    // Called with mutex_ held.
    update_.result = std::move(r);
    update_.final = final;
    update_.request_id = id;
    update_.submitted = submitted;
    update_.published = Clock::now();
    has_update_ = true;
}

namespace {

std::shared_ptr<RunResult> failed_result(const RunRequest& req, const char* what) {
    auto r = std::make_shared<RunResult>();
    r->request = req;
    r->ok = false;
    r->stage = "engine";
    r->error = std::string("The engine stopped with an error: ") + what + ".";
    return r;
}

}  // namespace

void Worker::serve_interactive(std::unique_lock<std::mutex>& lock) {
    const RunRequest req = pending_req_;
    const RunOptions opt = pending_opt_;
    const uint64_t id = pending_id_;
    const auto submitted = pending_submitted_;
    const bool gpu = device_.gpu;
    has_pending_ = false;
    in_flight_id_ = id;
    cancel_run_ = false;
    phase_ = WorkerPhase::Analyzing;
    lock.unlock();

    std::shared_ptr<RunResult> analysed;
    {
        std::shared_lock engine_lock(engine_mutex_);
        try {
            analysed = std::make_shared<RunResult>(engine_->analyze(req));
        } catch (const std::exception& e) {
            analysed = failed_result(req, e.what());
        }
    }
    if (!gpu && analysed->no_gpu_reason.empty()) analysed->no_gpu_reason = device_.reason;

    lock.lock();
    const bool superseded = has_pending_;
    // Without a GPU (or when analysis failed) there is nothing more to do: this is final.
    const bool final = !gpu || !analysed->ok;
    if (!superseded || final) publish(analysed, final, id, submitted);
    if (final || superseded) {
        in_flight_id_ = 0;
        return;
    }
    phase_ = WorkerPhase::Running;
    lock.unlock();

    std::shared_ptr<RunResult> measured;
    {
        std::shared_lock engine_lock(engine_mutex_);
        try {
            measured = std::make_shared<RunResult>(engine_->run(req, opt, &cancel_run_));
        } catch (const std::exception& e) {
            measured = failed_result(req, e.what());
        }
    }

    lock.lock();
    // A cancelled run was replaced by a newer request; its partial result is not shown.
    if (!cancel_run_ && !has_pending_) publish(measured, true, id, submitted);
    in_flight_id_ = 0;
}

void Worker::serve_sweep_item(std::unique_lock<std::mutex>& lock) {
    const size_t index = sweep_next_++;
    const RunRequest req = sweep_reqs_[index];
    const RunOptions opt = sweep_opt_;
    const uint64_t generation = sweep_generation_;
    cancel_sweep_ = false;
    phase_ = WorkerPhase::Sweeping;
    lock.unlock();

    std::shared_ptr<RunResult> r;
    {
        std::shared_lock engine_lock(engine_mutex_);
        try {
            r = std::make_shared<RunResult>(engine_->run(req, opt, &cancel_sweep_));
        } catch (const std::exception& e) {
            r = failed_result(req, e.what());
        }
    }

    lock.lock();
    if (generation == sweep_generation_ && !cancel_sweep_) {
        sweep_results_[index] = std::move(r);
        ++sweep_done_;
    }
}

void Worker::loop(EngineConfig cfg) {
    std::unique_ptr<Engine> engine;
    try {
        engine = std::make_unique<Engine>(cfg);
    } catch (const std::exception& e) {
        // Without an engine nothing can be shown but the reason; keep answering with it.
        std::unique_lock lock(mutex_);
        device_.reason = std::string("The engine could not start: ") + e.what();
        while (!stop_) {
            if (has_pending_) {
                has_pending_ = false;
                publish(failed_result(pending_req_, e.what()), true, pending_id_, pending_submitted_);
            }
            wake_.wait(lock);
        }
        return;
    }

    std::unique_lock lock(mutex_);
    engine_ = std::move(engine);
    device_ = engine_->device();
    target_ = engine_->target();
    ready_ = true;
    phase_ = WorkerPhase::Idle;

    while (!stop_) {
        const auto now = Clock::now();
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
        if (has_pending_ && now >= pending_due_) {
            serve_interactive(lock);
            phase_ = WorkerPhase::Idle;
            continue;
        }
        if (has_pending_) {
            phase_ = WorkerPhase::Debouncing;
            wake_.wait_until(lock, pending_due_);
            continue;
        }
        if (sweep_next_ < sweep_reqs_.size()) {
            serve_sweep_item(lock);
            phase_ = WorkerPhase::Idle;
            continue;
        }
        if (device_.gpu && !ceilings_tried_) {
            ceilings_tried_ = true;
            phase_ = WorkerPhase::MeasuringCeilings;
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
            phase_ = WorkerPhase::Idle;
            continue;
        }
        phase_ = WorkerPhase::Idle;
        wake_.wait(lock);
    }
    lock.unlock();
    engine_.reset();
}

}  // namespace tilelab::gui
