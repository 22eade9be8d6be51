// The engine thread's third queue: the user's own kernel (an exercise). One slot, the newest text
// wins; it is compiled and analysed like a lesson's request and, on a GPU, measured with the same
// protocol under a time limit, so an endless loop in the user's code costs that limit and no more.
// The lesson's own requests go first: the user's kernel waits while one is due. On a GPU it is
// measured twice, as a lesson's drag is: a quick validated run first (no counter pass), shown at
// once, then the full run with the hardware counters, unless a newer text came in between.
// Without a GPU the analysis is shown first, then the CPU run's verdict (RunResult::cpu).
#include <utility>
#include "engine_thread.h"
#include "engine_thread_detail.h"

namespace tilelab::gui {

uint64_t EngineThread::submit_user(const RunRequest& req, UserKernel user, const RunOptions& opt,
                                   std::chrono::milliseconds debounce) {
    uint64_t id;
    {
        std::lock_guard l(mutex_);
        id = next_user_id_++;   // its own numbers: last_submitted_id() stays the lesson's
        UserJob job{req, std::move(user), opt, id, Clock::now(), {}};
        job.due = job.submitted + debounce;
        user_pending_ = std::move(job);
        if (user_in_flight_) cancel_user_ = true;   // newest wins: its text replaces the one running
    }
    wake_.notify_all();
    return id;
}

bool EngineThread::poll_user(EngineUpdate& out) {
    std::lock_guard l(mutex_);
    if (!has_user_update_) return false;
    out = std::move(user_update_);
    has_user_update_ = false;
    return true;
}

bool EngineThread::user_busy() const {
    std::lock_guard l(mutex_);
    return user_pending_ || user_in_flight_ || has_user_update_;
}

void EngineThread::publish_user(std::shared_ptr<const RunResult> r, const UserJob& job, Clock::time_point started) {
    // Called with mutex_ held.
    user_update_.result = std::move(r);
    user_update_.request_id = job.id;
    user_update_.submitted = job.submitted;
    user_update_.started = started;
    user_update_.published = Clock::now();
    user_update_.after_release = false;
    has_user_update_ = true;
}

void EngineThread::serve_user(std::unique_lock<std::mutex>& lock) {
    const UserJob job = std::move(*user_pending_);
    user_pending_.reset();
    user_in_flight_ = true;
    cancel_user_ = false;
    const bool gpu = device_.gpu;
    const std::string no_gpu = device_.reason;
    const auto started = Clock::now();
    activity_ = EngineActivity::Analyzing;
    lock.unlock();

    const std::shared_ptr<RunResult> analysed =
        detail::guarded(engine_mutex_, job.req, [&] { return engine_->analyze(job.req, job.user); });
    if (!gpu && analysed->no_gpu_reason.empty()) analysed->no_gpu_reason = no_gpu;

    lock.lock();
    // Without a GPU, a kernel that compiled runs on the CPU (RunOptions::cpu_check): once.
    const bool cpu_run = !gpu && job.opt.cpu_check && analysed->ok && analysed->compiled && analysed->compiled->ok;
    const bool final = (!gpu && !cpu_run) || !analysed->ok;
    if (final) analysed->phase = Phase::full;
    // A newer text waiting makes this one's answer stale: it is not shown.
    if (!user_pending_) publish_user(analysed, job, started);
    if (final || user_pending_) {
        user_in_flight_ = false;
        return;
    }
    activity_ = EngineActivity::RunningQuick;
    lock.unlock();

    RunOptions quick_opt = job.opt;
    quick_opt.quick = true;
    quick_opt.hardware_counters = false;
    const std::shared_ptr<RunResult> quick =
        detail::guarded(engine_mutex_, job.req, [&] { return engine_->measure(*analysed, quick_opt, &cancel_user_); });

    lock.lock();
    const bool full_follows = gpu && quick->ok && !cancel_user_ && !user_pending_ && !job.opt.quick;
    quick->phase = full_follows ? Phase::quick : Phase::full;
    if (!cancel_user_ && !user_pending_) publish_user(quick, job, started);
    if (!full_follows) {
        user_in_flight_ = false;
        return;
    }
    activity_ = EngineActivity::Running;
    lock.unlock();

    const std::shared_ptr<RunResult> measured =
        detail::guarded(engine_mutex_, job.req, [&] { return engine_->measure(*analysed, job.opt, &cancel_user_); });

    lock.lock();
    measured->phase = Phase::full;
    if (!cancel_user_ && !user_pending_) publish_user(measured, job, started);
    user_in_flight_ = false;
}

}  // namespace tilelab::gui
