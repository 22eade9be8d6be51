// The engine thread's work in one queue (gui/engine_thread.h): everything waiting for the engine —
// an interactive request and the full run queued behind its quick one, the user's kernel, a sweep,
// a search of the autotuner, a new model-mode target, a reconnect, the card's ceilings — under one
// lock of its own, with the one rule that says what runs next (EngineJobs::choose). The engine
// thread takes a job, works on it with no lock held, and asks here whether a newer one made it
// stale; what it produces goes to the UI through the thread's outbox, not through this queue.
// No engine in here: the rule is tested on its own (tests/gui/test_engine_jobs.cpp).
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>
#include "tilelab/engine.h"
#include "tilelab/tune.h"

namespace tilelab::gui {

using Clock = std::chrono::steady_clock;

// What to compile ahead once a request has been analysed, besides its sliders' neighbours.
struct AheadHint {
    std::string changed;                  // the parameter the user just changed ("" = none): its neighbours first
    std::vector<RunRequest> also;         // e.g. the next lesson step's presets
    bool instrumented = true;             // full runs count accesses: their TILELAB_COUNT=1 build too (GPU only)
    // Start the instrumented build of this very request now, beside its plain one: a click or a
    // step change, whose full run follows at once. Not while a slider moves: most values it passes
    // are never run in full, and their instrumented builds would only slow the quick ones.
    bool count_now = true;
};

struct InteractiveJob {
    RunRequest req;
    RunOptions opt;
    uint64_t id = 0;
    Clock::time_point submitted, due;
    bool follow_up = false;   // the full run after a quick one: its analysis is already shown
    AheadHint ahead;
};

struct UserJob {
    RunRequest req;
    UserKernel user;
    RunOptions opt;
    uint64_t id = 0;
    Clock::time_point submitted, due;
};

struct TuneJob {
    std::string variant;
    TuneConfig cfg;
    std::string cache_root;
    uint64_t generation = 0;
};

// Points of a sweep to run: one, or on a pool of GPUs every one still waiting.
struct SweepJob {
    size_t first = 0;                 // index of reqs[0] in the sweep
    std::vector<RunRequest> reqs;
    RunOptions opt;
    uint64_t generation = 0;
    std::string gpu_set;              // the GPU set it runs on when pooled
};

enum class JobKind { Stop, Reconnect, Reword, Target, Interactive, User, Tune, Sweep, Ceilings };

struct Job {
    JobKind kind = JobKind::Stop;
    InteractiveJob interactive;
    UserJob user;
    TuneJob tune;
    SweepJob sweep;
    GpuLocation where;   // Reconnect
    Target target;       // Target
};

// What the rule looks at: the engine thread's side of the decision.
struct EngineSide {
    bool gpu = false;                 // the engine measures on a GPU
    bool ceilings_wanted = false;     // on a GPU and not measured (or tried) yet
};

class EngineJobs {
public:
    // The card's ceilings wait until the user has left the app alone this long, so that a first
    // change never queues behind them.
    static constexpr std::chrono::milliseconds kCeilingsAfterQuiet{1000};

    // ---- from the UI thread ---------------------------------------------------------------------
    // An interactive request (EngineThread::submit says the rule); `compiled`: its kernel is in memory.
    uint64_t submit(const RunRequest& req, const RunOptions& opt, std::chrono::milliseconds debounce, AheadHint ahead,
                    bool compiled);
    uint64_t submit_user(const RunRequest& req, UserKernel user, const RunOptions& opt, std::chrono::milliseconds debounce);
    // A new sweep replaces the waiting points of the old one and cancels its point in flight.
    void submit_sweep(std::vector<RunRequest> reqs, const RunOptions& opt, uint64_t generation);
    void cancel_sweep();
    void submit_tune(TuneJob job);
    bool cancel_tune();   // true if the search had not started (it is dropped: nothing to report)
    void reconnect(const GpuLocation& where);
    void reword();   // the device status in the language now set (Engine::reword_status)
    void set_target(const Target& t);
    void stop();
    // "" or why `gpus` is not a GPU set; sweeps use it from their next point on.
    std::string set_gpu_set(const std::string& gpus);
    std::string gpu_set() const;

    bool busy() const;          // an interactive request waits or runs
    bool user_busy() const;     // the user's kernel waits or runs
    bool sweep_waiting() const;
    bool reconnect_waiting() const;
    uint64_t last_submitted_id() const;

    // ---- on the engine thread -------------------------------------------------------------------
    // Waits for the next job that is due by the rule and takes it (Stop once stop() was called).
    // Debouncing: told through `debouncing` while it waits for a request's due time.
    template <class OnWait>
    Job next(const EngineSide& side, OnWait&& debouncing);
    // The interactive job in hand has been analysed/measured: is a newer request waiting?
    bool interactive_superseded() const;
    // Runs `publish` with the queue locked — unless `only_if_current` and a newer request (or a
    // cancel) made the result stale — and remembers a quick result's request (a full run of it then
    // does not show its analysis again).
    template <class Publish>
    bool publish_interactive(const InteractiveJob& job, Phase phase, bool only_if_current, Publish&& publish);
    void end_interactive();     // the job in hand is done
    template <class Publish>
    bool publish_user(Publish&& publish);   // unless a newer text waits or this one was cancelled
    void end_user();
    // The sweep point's result still belongs to the current sweep.
    bool sweep_current(uint64_t generation) const;

    CancelFlag cancel_run{false}, cancel_user{false}, cancel_sweep_flag{false}, cancel_tune_flag{false};

    // What the rule chooses now, or when to look again (tests call it directly).
    struct Choice {
        JobKind kind = JobKind::Stop;   // Stop here: nothing due
        std::optional<Clock::time_point> wake_at;   // nothing due before then
        bool debouncing = false;        // a request waits for its due time
    };
    Choice choose(const EngineSide& side, Clock::time_point now) const;   // lock held

private:
    Job take(JobKind kind, const EngineSide& side);   // lock held

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::optional<GpuLocation> reconnect_;
    bool reword_ = false;
    std::optional<Target> target_;
    // interactive
    std::optional<InteractiveJob> pending_;     // waiting for its debounce or for the engine thread
    std::optional<InteractiveJob> follow_up_;   // a full request queued behind the quick one of the same request
    std::optional<InteractiveJob> in_flight_;
    std::optional<RunRequest> last_quick_;      // the last result published, when its phase was quick
    Clock::time_point last_interactive_ = Clock::now();   // last submit or end of a served request
    Clock::time_point last_submit_{};                     // last submit: a slider still moving?
    uint64_t next_id_ = 1;
    // the user's kernel
    std::optional<UserJob> user_pending_;
    bool user_in_flight_ = false;
    uint64_t next_user_id_ = 1;
    // sweep
    std::vector<RunRequest> sweep_reqs_;
    RunOptions sweep_opt_;
    size_t sweep_next_ = 0;
    uint64_t sweep_generation_ = 0;
    std::string gpu_set_;                 // "" = the engine's own GPU
    // the autotuner
    std::optional<TuneJob> tune_;
};

template <class OnWait>
Job EngineJobs::next(const EngineSide& side, OnWait&& debouncing) {
    std::unique_lock lock(mutex_);
    for (;;) {
        const Choice c = choose(side, Clock::now());
        if (c.kind != JobKind::Stop || stop_) return take(stop_ ? JobKind::Stop : c.kind, side);
        debouncing(c.debouncing);
        if (c.wake_at) wake_.wait_until(lock, *c.wake_at);
        else wake_.wait(lock);
    }
}

template <class Publish>
bool EngineJobs::publish_interactive(const InteractiveJob& job, Phase phase, bool only_if_current, Publish&& publish) {
    std::lock_guard lock(mutex_);
    if (only_if_current && (pending_ || cancel_run)) return false;
    if (phase == Phase::quick) last_quick_ = job.req;
    else last_quick_.reset();
    publish();
    return true;
}

template <class Publish>
bool EngineJobs::publish_user(Publish&& publish) {
    std::lock_guard lock(mutex_);
    if (user_pending_ || cancel_user) return false;
    publish();
    return true;
}

}  // namespace tilelab::gui
