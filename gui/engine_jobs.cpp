// The engine thread's queue and its rule (gui/engine_jobs.h).
#include "engine_jobs.h"
#include <algorithm>
#include <utility>
#include "tilelab/gpu_pool.h"

namespace tilelab::gui {

uint64_t EngineJobs::submit(const RunRequest& req, const RunOptions& opt, std::chrono::milliseconds debounce,
                            AheadHint ahead, bool compiled) {
    uint64_t id;
    {
        std::lock_guard l(mutex_);
        id = next_id_++;
        InteractiveJob job{req, opt, id, Clock::now(), {}, false, std::move(ahead)};
        last_interactive_ = job.submitted;
        const bool moving = job.submitted - last_submit_ < debounce;
        last_submit_ = job.submitted;
        job.due = job.submitted + ((compiled || !moving) && !in_flight_ ? std::chrono::milliseconds(0) : debounce);
        // The newest request, waiting or in flight: if it is a quick run of these very values (the
        // drag ended on them), its result is the fastest validated answer, so it goes on and the
        // full protocol follows it.
        const InteractiveJob* newest = pending_ ? &*pending_ : in_flight_ ? &*in_flight_ : nullptr;
        if (!opt.quick && newest && newest->opt.quick && newest->req == req) {
            if (pending_) pending_->due = std::min(pending_->due, job.submitted);   // the slider has settled
            job.follow_up = true;
            follow_up_ = std::move(job);
        } else {
            // Its quick result already out: the analysis is on screen with it.
            job.follow_up = !opt.quick && last_quick_ && *last_quick_ == req;
            pending_ = std::move(job);
            follow_up_.reset();
            if (in_flight_) cancel_run = true;   // newest wins
        }
    }
    wake_.notify_all();
    return id;
}

uint64_t EngineJobs::submit_user(const RunRequest& req, UserKernel user, const RunOptions& opt,
                                 std::chrono::milliseconds debounce) {
    uint64_t id;
    {
        std::lock_guard l(mutex_);
        id = next_user_id_++;   // its own numbers: last_submitted_id() stays the lesson's
        UserJob job{req, std::move(user), opt, id, Clock::now(), {}};
        job.due = job.submitted + debounce;
        user_pending_ = std::move(job);
        if (user_in_flight_) cancel_user = true;   // newest wins: its text replaces the one running
    }
    wake_.notify_all();
    return id;
}

void EngineJobs::submit_sweep(std::vector<RunRequest> reqs, const RunOptions& opt, uint64_t generation) {
    {
        std::lock_guard l(mutex_);
        cancel_sweep_flag = true;   // stop the point in flight of the previous sweep
        sweep_reqs_ = std::move(reqs);
        sweep_opt_ = opt;
        sweep_next_ = 0;
        sweep_generation_ = generation;
    }
    wake_.notify_all();
}

void EngineJobs::cancel_sweep() {
    std::lock_guard l(mutex_);
    cancel_sweep_flag = true;
    sweep_next_ = sweep_reqs_.size();
}

void EngineJobs::submit_tune(TuneJob job) {
    {
        std::lock_guard l(mutex_);
        cancel_tune_flag = false;
        tune_ = std::move(job);
    }
    wake_.notify_all();
}

bool EngineJobs::cancel_tune() {
    std::lock_guard l(mutex_);
    cancel_tune_flag = true;
    return std::exchange(tune_, std::nullopt).has_value();
}

void EngineJobs::reconnect(const GpuLocation& where) {
    {
        std::lock_guard l(mutex_);
        reconnect_ = where;
    }
    wake_.notify_all();
}

void EngineJobs::reword() {
    {
        std::lock_guard l(mutex_);
        reword_ = true;
    }
    wake_.notify_all();
}

void EngineJobs::set_target(const Target& t) {
    {
        std::lock_guard l(mutex_);
        target_ = t;
    }
    wake_.notify_all();
}

void EngineJobs::stop() {
    {
        std::lock_guard l(mutex_);
        stop_ = true;
    }
    cancel_run = cancel_user = cancel_sweep_flag = cancel_tune_flag = true;
    wake_.notify_all();
}

std::string EngineJobs::set_gpu_set(const std::string& gpus) {
    GpuSet set;
    if (!gpus.empty())
        if (std::string problem = parse_gpu_set(gpus, set); !problem.empty()) return problem;
    std::lock_guard l(mutex_);
    gpu_set_ = gpus;
    return "";
}

std::string EngineJobs::gpu_set() const { std::lock_guard l(mutex_); return gpu_set_; }
bool EngineJobs::busy() const { std::lock_guard l(mutex_); return pending_ || follow_up_ || in_flight_; }
bool EngineJobs::user_busy() const { std::lock_guard l(mutex_); return user_pending_ || user_in_flight_; }
bool EngineJobs::sweep_waiting() const { std::lock_guard l(mutex_); return sweep_next_ < sweep_reqs_.size(); }
bool EngineJobs::reconnect_waiting() const { std::lock_guard l(mutex_); return reconnect_.has_value(); }
uint64_t EngineJobs::last_submitted_id() const { std::lock_guard l(mutex_); return next_id_ - 1; }
bool EngineJobs::interactive_superseded() const { std::lock_guard l(mutex_); return pending_.has_value(); }
bool EngineJobs::sweep_current(uint64_t generation) const {
    std::lock_guard l(mutex_);
    return generation == sweep_generation_ && !cancel_sweep_flag;
}

void EngineJobs::end_interactive() {
    std::lock_guard l(mutex_);
    in_flight_.reset();
    last_interactive_ = Clock::now();
}

void EngineJobs::end_user() {
    std::lock_guard l(mutex_);
    user_in_flight_ = false;
}

// The rule, first match wins: a reconnect, a new target; the lesson's request once due; the user's
// kernel once due (never before a lesson request that is due); while either debounces, nothing
// else starts; the full run queued behind a finished quick one, once due; a search of the
// autotuner; the sweep's next point; on a GPU the ceilings, once the user has been quiet for a second.
EngineJobs::Choice EngineJobs::choose(const EngineSide& side, Clock::time_point now) const {
    const auto run = [](JobKind kind) { return Choice{kind, std::nullopt, false}; };
    if (stop_) return {};
    if (reconnect_) return run(JobKind::Reconnect);
    if (reword_) return run(JobKind::Reword);   // before the request asked again in the new language
    if (target_) return run(JobKind::Target);
    if (pending_ && now >= pending_->due) return run(JobKind::Interactive);
    if (user_pending_ && now >= user_pending_->due) return run(JobKind::User);
    if (pending_ || user_pending_) {
        const auto due = pending_ && user_pending_ ? std::min(pending_->due, user_pending_->due)
                         : pending_            ? pending_->due
                                               : user_pending_->due;
        return {JobKind::Stop, due, true};
    }
    if (follow_up_) {   // its quick run is done; it keeps the due time it was given
        if (now >= follow_up_->due) return run(JobKind::Interactive);
        return {JobKind::Stop, follow_up_->due, true};
    }
    if (tune_) return run(JobKind::Tune);
    if (sweep_next_ < sweep_reqs_.size()) return run(JobKind::Sweep);
    if (side.gpu && side.ceilings_wanted) {
        if (const auto quiet_from = last_interactive_ + kCeilingsAfterQuiet; now < quiet_from)
            return {JobKind::Stop, quiet_from, false};
        return run(JobKind::Ceilings);
    }
    return {};
}

Job EngineJobs::take(JobKind kind, const EngineSide& side) {
    Job job;
    job.kind = kind;
    switch (kind) {
    case JobKind::Stop: break;
    case JobKind::Reconnect: job.where = *std::exchange(reconnect_, std::nullopt); break;
    case JobKind::Reword: reword_ = false; break;
    case JobKind::Target: job.target = *std::exchange(target_, std::nullopt); break;
    case JobKind::Interactive:
        // A follow-up is taken once its quick run is done and nothing newer waits.
        if (!pending_) pending_ = std::exchange(follow_up_, std::nullopt);
        in_flight_ = std::exchange(pending_, std::nullopt);
        job.interactive = *in_flight_;
        cancel_run = false;
        break;
    case JobKind::User:
        job.user = std::move(*user_pending_);
        user_pending_.reset();
        user_in_flight_ = true;
        cancel_user = false;
        break;
    case JobKind::Tune: job.tune = std::move(*std::exchange(tune_, std::nullopt)); break;
    case JobKind::Sweep: {
        GpuSet set;
        const bool pooled = side.gpu && !gpu_set_.empty() && parse_gpu_set(gpu_set_, set).empty() && set.many();
        job.sweep.first = sweep_next_;
        const size_t end = pooled ? sweep_reqs_.size() : sweep_next_ + 1;   // the pool takes every point still to run
        job.sweep.reqs.assign(sweep_reqs_.begin() + long(sweep_next_), sweep_reqs_.begin() + long(end));
        sweep_next_ = end;
        job.sweep.opt = sweep_opt_;
        job.sweep.generation = sweep_generation_;
        job.sweep.gpu_set = pooled ? gpu_set_ : "";
        cancel_sweep_flag = false;
        break;
    }
    case JobKind::Ceilings: break;
    }
    return job;
}

}  // namespace tilelab::gui
