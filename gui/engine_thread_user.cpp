// The engine thread's third queue: the user's own kernel (an exercise). One slot, the newest text
// wins; it is compiled and analysed like a lesson's request and, on a GPU, measured with the same
// protocol under a time limit, so an endless loop in the user's code costs that limit and no more.
// The lesson's own requests go first: the user's kernel waits while one is due (gui/engine_jobs.cpp).
// On a GPU it is measured twice, as a lesson's drag is: a quick validated run first (no counter
// pass), shown at once, then the full run with the hardware counters, unless a newer text came in
// between. Without a GPU the analysis is shown first, then the CPU run's verdict (RunResult::cpu).
#include <utility>
#include "engine_thread.h"
#include "engine_thread_detail.h"

namespace tilelab::gui {

uint64_t EngineThread::submit_user(const RunRequest& req, UserKernel user, const RunOptions& opt,
                                   std::chrono::milliseconds debounce) {
    return jobs_.submit_user(req, std::move(user), opt, debounce);
}

bool EngineThread::poll_user(EngineUpdate& out) {
    std::lock_guard l(out_.mutex);
    if (!out_.user_update) return false;
    out = std::move(*out_.user_update);
    out_.user_update.reset();
    return true;
}

bool EngineThread::user_busy() const {
    // The queue first: the engine thread publishes before it ends the job, so a job that has just
    // ended left its update in the outbox.
    if (jobs_.user_busy()) return true;
    std::lock_guard l(out_.mutex);
    return out_.user_update.has_value();
}

void EngineThread::publish_user(std::shared_ptr<const RunResult> r, const UserJob& job, Clock::time_point started) {
    EngineUpdate u = EngineUpdate::now(std::move(r), job.id, job.submitted, started);
    {
        std::lock_guard l(out_.mutex);
        out_.user_update = std::move(u);
    }
    delivered();
}

void EngineThread::serve_user(const UserJob& job) {
    const auto started = Clock::now();
    set_activity(EngineActivity::Analyzing);
    const std::shared_ptr<RunResult> analysed =
        detail::guarded(engine_mutex_, job.req, [&] { return engine_->analyze(job.req, job.user); });
    if (!gpu_ && analysed->no_gpu_reason.empty()) analysed->no_gpu_reason = no_gpu_reason_;

    // Without a GPU, a kernel that compiled runs on the CPU (RunOptions::cpu_check): once.
    const bool cpu_run = !gpu_ && job.opt.cpu_check && analysed->ok && analysed->compiled && analysed->compiled->ok;
    const bool final = (!gpu_ && !cpu_run) || !analysed->ok;
    if (final) analysed->phase = Phase::full;
    // A newer text waiting makes this one's answer stale: it is not shown.
    const bool current = jobs_.publish_user([&] { publish_user(analysed, job, started); });
    if (final || !current) {
        jobs_.end_user();
        return;
    }

    set_activity(cpu_run ? EngineActivity::CheckingOnCpu : EngineActivity::RunningQuick);
    RunOptions quick_opt = job.opt;
    quick_opt.quick = true;
    quick_opt.hardware_counters = false;
    const std::shared_ptr<RunResult> quick =
        detail::guarded(engine_mutex_, job.req, [&] { return engine_->measure(*analysed, quick_opt, &jobs_.cancel_user); });
    bool full_follows = false;
    jobs_.publish_user([&] {
        full_follows = gpu_ && quick->ok && !job.opt.quick;
        quick->phase = full_follows ? Phase::quick : Phase::full;
        publish_user(quick, job, started);
    });
    if (!full_follows) {
        jobs_.end_user();
        return;
    }

    set_activity(EngineActivity::Running);
    const std::shared_ptr<RunResult> measured =
        detail::guarded(engine_mutex_, job.req, [&] { return engine_->measure(*analysed, job.opt, &jobs_.cancel_user); });
    measured->phase = Phase::full;
    jobs_.publish_user([&] { publish_user(measured, job, started); });
    jobs_.end_user();
}

}  // namespace tilelab::gui
