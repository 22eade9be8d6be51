// The engine thread: the one thread that talks to the engine, so the UI never waits on CUDA or NVRTC.
//
// Interactive requests: the newest wins. A request waits out a short debounce only while a slider
// is still moving (it follows another change within the debounce) and its kernel would need a
// fresh compile, or while another request is in flight; then the engine thread publishes
// engine.analyze() at once (registers, occupancy and the model update while the kernel runs)
// and, on a GPU, engine.measure() of that analysis when it finishes. A newer
// request cancels the run in flight between repetitions. A change can be measured with the quick
// protocol first (validated, fewer repetitions, nothing counted: gui/actions.cpp); the full
// protocol for the same request, submitted after it, waits for the quick run instead of
// cancelling it.
// Compile ahead: once a request is analysed, the engine thread hands the engine the requests the user is
// likely to make next (Engine::compile_ahead: every slider's neighbours, the one just moved first
// in the direction it moved, then the next lesson step), compiled on the engine's low-priority
// thread while this one measures. A user's request never waits for that queue.
// Sweeps (Compare panel): a queue of requests run one by one whenever no interactive request is
// waiting; results are kept in submission order. When the GPU set (GPU menu) names more than one
// GPU, a sweep goes to a pool of its own workers (tilelab/gpu_pool.h), each GPU taking the next
// point; the engine thread waits for that sweep, and a cancel stops every GPU.
// The autotuner (Compare panel, gui/engine_thread_tune.cpp): one search at a time, started when no
// interactive request is waiting; it holds the engine thread until it ends (requests made meanwhile
// wait, so nothing disturbs its timings) and stops between points when cancelled.
// All of this waits in one queue with one rule for what runs next (gui/engine_jobs.h); what the
// engine thread produces goes to the UI through its outbox (EngineThread::Outbox), under a lock of
// its own, and the engine and what only this thread touches are under no lock at all.
// The Engine itself is constructed on this thread (finding the GPU and loading the driver can
// take a while). Its ceilings are measured here once the app has been quiet for a second, so that
// a user's first change waits at most for that one worker call.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>
#include "engine_jobs.h"
#include "tilelab/engine.h"
#include "tilelab/tune.h"
#include "tilelab/gpu_pool.h"

namespace tilelab::gui {

// One result handed to the UI.
struct EngineUpdate {
    std::shared_ptr<const RunResult> result;   // its phase says whether more follows for the request
    uint64_t request_id = 0;     // as returned by submit()
    Clock::time_point submitted; // when the UI asked (for latency logs)
    Clock::time_point started;   // when the engine thread took it up (after the debounce and any run before)
    Clock::time_point published; // when the engine thread handed it over
    bool after_release = false;  // the full protocol after a quick run of the same request (slider let go)

    // `r` for request `id`, published now.
    static EngineUpdate now(std::shared_ptr<const RunResult> r, uint64_t id, Clock::time_point submitted,
                            Clock::time_point started) {
        return {std::move(r), id, submitted, started, Clock::now(), false};
    }
};

// How the user's requests found their kernels: the measure of compile-ahead. A build "asked"
// is one a request of the user needed (the plain build of every new request; the instrumented one
// of every full run on a GPU); "cached": it was in the memory cache; "ahead": compiled ahead.
struct InteractiveCompileStats {
    uint64_t asked = 0, cached = 0, ahead = 0;                     // plain builds
    uint64_t counted_asked = 0, counted_cached = 0, counted_ahead = 0;   // instrumented builds
};

// CheckingOnCpu: a user's kernel run once on the CPU, without a GPU (RunOptions::cpu_check).
enum class EngineActivity { Starting, Idle, Debouncing, Analyzing, CheckingOnCpu, RunningQuick, Running, Sweeping, Tuning, MeasuringCeilings };
const char* to_string(EngineActivity p);

struct SweepProgress {
    uint64_t generation = 0;     // increments with every submit_sweep()
    size_t done = 0, total = 0;
    bool running = false;
    std::string per_gpu;         // on a pool: "NVIDIA H200 #0: 12, NVIDIA H200 #1: 11"; else ""
    std::string note;            // on a pool: a lost GPU, a pool that could not open, mixed models
};

// The autotuner's search as the UI sees it (copies).
struct TuneStatus {
    uint64_t generation = 0;     // increments with every submit_tune() accepted
    bool running = false;        // waiting or searching
    bool cancelling = false;     // Cancel pressed: the point in hand (a compile or a run) ends first
    std::string key;             // TuneKeyName() of the search (gui/tune_view.h)
    std::string variant;         // what it searches
    Problem problem;
    std::string stage;           // "compile", "measure" or "full" ("" before the first point)
    int done = 0, total = 0;
    std::optional<TuneCandidate> best;              // the best measured so far
    std::shared_ptr<const TuneReport> report;       // once it has ended (cancelled: partial)
    std::string error;           // the search could not run, or its report not be cached; one sentence
};

class EngineThread {
public:
    explicit EngineThread(EngineConfig cfg);
    ~EngineThread();
    EngineThread(const EngineThread&) = delete;
    EngineThread& operator=(const EngineThread&) = delete;

    // ---- engine state (copies; safe from the UI thread) -------------------------------------
    bool ready() const;                 // the Engine has been constructed
    // The engine once ready (null before), for const queries from the UI thread only.
    Engine* engine_if_ready();
    DeviceStatus device() const;        // empty until ready()
    Target target() const;              // the device, or the chosen model-mode preset
    Ceilings ceilings() const;          // measured = false until measured (GPU mode only)
    EngineActivity activity() const;
    double activity_seconds() const;    // how long the engine has been at activity()
    // Engine::invalid_reason(); "" while the engine is starting.
    std::string invalid_reason(const RunRequest& req) const;
    // Model mode: analyse for this preset from the next request on (applied on this thread).
    void set_model_target(const Target& t);
    // Finds the GPU again at `where` (the GPU setting, or Reconnect after a lost link), on this
    // thread between requests; device() says "connecting" until it is done.
    void reconnect(const GpuLocation& where);
    // After a language switch: the device status worded again (Engine::reword_status), before the
    // next request is served, so its "no GPU" reason reads in the new language too.
    void reword_status();
    bool reconnecting() const;
    GpuLocation location() const;       // where the GPU is looked for now
    // What the GPU worker says about the run in hand ("waiting for the GPU: another run holds it").
    std::string gpu_note() const;

    // ---- waking the UI -----------------------------------------------------------------------
    // `wake` runs on the engine thread after each result it hands over (poll(), poll_user(), a
    // sweep's point), so that a UI asleep until its next frame draws the result at once (the
    // window: glfwPostEmptyEvent). Set it before the first submit.
    void set_on_delivery(std::function<void()> wake);
    // Results handed over so far; and a wait of up to `ms` for more than `seen` (false: none came).
    uint64_t deliveries() const;
    bool wait_for_delivery(uint64_t seen, double ms) const;

    // ---- interactive requests ---------------------------------------------------------------
    // Replaces any request still waiting and cancels a run in flight. Returns the request's id.
    // Except: a full request for the same RunRequest as the quick one (RunOptions::quick) waiting or in flight is
    // queued behind it (the quick result is still worth drawing), and ends its debounce. Nor does
    // a full request publish its analysis again when the quick result of the same one is out.
    // `debounce` is waited only when another request is in flight, or when the kernel is not
    // compiled yet and the previous change came less than `debounce` ago (the slider is moving):
    // a cached kernel, or the first change after a pause, starts at once with the engine thread free.
    uint64_t submit(const RunRequest& req, const RunOptions& opt,
                    std::chrono::milliseconds debounce = std::chrono::milliseconds(0), AheadHint ahead = {});
    // The newest update not yet taken, if any (older ones are dropped).
    bool poll(EngineUpdate& out);
    // A submitted request has not yet produced its final update.
    bool busy() const;
    uint64_t last_submitted_id() const;

    // ---- the user's kernel (an exercise, gui/panel_exercise.cpp) ------------------------------
    // Compiles and analyses `user` in place of the variant's kernel and, on a GPU, measures it
    // with `opt` (its time_limit_ms stops an endless loop). The newest replaces one still waiting
    // and cancels one in flight; it starts once `debounce` has passed since this call. Served
    // after the lesson's own requests, never instead of them; results come through poll_user().
    uint64_t submit_user(const RunRequest& req, UserKernel user, const RunOptions& opt,
                         std::chrono::milliseconds debounce = std::chrono::milliseconds(0));
    bool poll_user(EngineUpdate& out);
    // A user's kernel is waiting or being compiled or run.
    bool user_busy() const;

    // ---- background work --------------------------------------------------------------------
    InteractiveCompileStats compile_stats() const;
    CompileAheadStats compile_ahead_stats() const;   // zeros while the engine is starting
    // Nothing left to do in the background: compile-ahead's queue is empty and, on a GPU, the
    // ceilings have been measured (or tried).
    bool background_idle() const;

    // ---- sweeps (Compare panel) -------------------------------------------------------------
    // Replaces the current sweep. Requests are run in order, after any interactive request.
    void submit_sweep(std::vector<RunRequest> reqs, const RunOptions& opt);
    void cancel_sweep();
    SweepProgress sweep_progress() const;
    // One entry per request of the current sweep, null while not yet run.
    std::vector<std::shared_ptr<const RunResult>> sweep_results() const;
    // The GPU that measured each (its label) when the sweep ran on a pool; empty otherwise.
    std::vector<std::string> sweep_gpus() const;
    // Which GPUs sweeps use: "" (the engine's one), "all" or "0,1" (tilelab/gpu_pool.h), on this
    // machine or where the GPU setting points. "" or why the text is not a GPU set.
    std::string set_gpu_set(const std::string& gpus);
    std::string gpu_set() const;

    // ---- the autotuner (Compare panel) --------------------------------------------------------
    // Starts a search of `variant` with `cfg` (run_tune); on a GPU its finished, uncancelled report is
    // saved in the tune cache under `cache_root` ("" = not saved). False, starting nothing, while
    // another search is waiting or running.
    bool submit_tune(const std::string& variant, const TuneConfig& cfg, const std::string& key,
                     const std::string& cache_root);
    void cancel_tune();   // the search stops between two points; its partial report follows
    TuneStatus tune_status() const;

private:
    void loop(EngineConfig cfg);
    void answer_without_engine(const std::string& why);
    void serve(Job& job);
    void serve_interactive(const InteractiveJob& job);
    void queue_compile_ahead(const InteractiveJob& job);   // engine lock held shared
    void publish(std::shared_ptr<const RunResult> r, const InteractiveJob& job, Clock::time_point started,
                 bool only_if_current);
    void serve_user(const UserJob& job);                    // gui/engine_thread_user.cpp
    void publish_user(std::shared_ptr<const RunResult> r, const UserJob& job, Clock::time_point started);
    void serve_tune(const TuneJob& job);                    // gui/engine_thread_tune.cpp
    void serve_sweep_item(const SweepJob& job);
    void serve_sweep_on_pool(const SweepJob& job);          // gui/engine_thread_pool.cpp
    void serve_ceilings();
    void set_activity(EngineActivity a);
    void delivered();                 // after a result is handed over: count it, wake the UI
    EngineSide engine_side() const;   // what the queue's rule needs of this thread

    // Everything that waits for the engine, and the rule for what runs next.
    EngineJobs jobs_;

    // What the UI reads: written by the engine thread (and reset by the UI's own submits), copied out.
    struct Outbox {
        mutable std::mutex mutex;
        bool ready = false, reconnecting = false, ceilings_tried = false;
        Engine* engine = nullptr;   // for const queries from the UI thread, once ready
        DeviceStatus device;
        Target target;
        Ceilings ceilings;
        GpuLocation where;          // where the GPU is looked for now
        EngineActivity activity = EngineActivity::Starting;
        Clock::time_point activity_since = Clock::now();
        void set_activity(EngineActivity a) {   // with the mutex held
            if (a != activity) activity = a, activity_since = Clock::now();
        }
        std::optional<EngineUpdate> update, user_update;   // the newest not yet polled
        InteractiveCompileStats compile_stats;
        // the current sweep
        uint64_t sweep_generation = 0;
        std::vector<std::shared_ptr<const RunResult>> sweep_results;
        std::vector<std::string> sweep_gpus;
        size_t sweep_done = 0;
        std::string sweep_per_gpu, sweep_note;
        // the autotuner
        TuneStatus tune;
        uint64_t tune_generation = 0;
        // results handed over, for a UI that waits for them
        uint64_t deliveries = 0;
        mutable std::condition_variable delivery;
        std::function<void()> on_delivery;
    };
    Outbox out_;

    // Held shared while the engine works (and by the UI's const queries), exclusively while its
    // target or its GPU changes.
    mutable std::shared_mutex engine_mutex_;

    // The engine thread's own: no lock.
    std::unique_ptr<Engine> engine_;
    bool gpu_ = false;                          // engine_->device().gpu as last read here
    std::string no_gpu_reason_;
    std::optional<RunRequest> last_analysed_;   // for the direction a slider moves (compile-ahead order)
    EngineConfig pool_base_;                    // the engine's configuration, for the pool's engines
    std::unique_ptr<GpuPool> pool_;             // opened on the first pooled sweep
    std::string pool_key_;                      // the GPU set and place it was opened for

    std::thread thread_;   // last: started after everything above is initialised
};

}  // namespace tilelab::gui
