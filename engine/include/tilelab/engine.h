// The engine: the only part of TileLab that knows CUDA. The GUI and the CLI send a RunRequest
// and get a RunResult back. With no driver or no device it works in model mode: compile,
// registers, occupancy and modelled counts still work; nothing is measured.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "tilelab/device.h"
#include "tilelab/result.h"
#include "tilelab/target.h"

namespace tilelab {

// A kernel the user wrote (an exercise) in place of the variant's own: the same entry point,
// instantiation, launch, validation and timing; compiled from `text`, which compile errors name
// `name` ("my.cu(12): error: ..."). Its accesses are not counted: the counting build is the
// lesson's own instrumented kernel, and the user's code need not use the counting macros.
struct UserKernel {
    std::string name;   // "my.cu"
    std::string text;
};

class Engine {
public:
    explicit Engine(const EngineConfig& cfg = {});
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // A copy: a GPU elsewhere (EngineConfig::gpu) that is lost turns the engine to model mode.
    DeviceStatus device() const;
    // A GPU elsewhere: connects again (after a lost link, or a fixed setting on the GPU host).
    // Returns whether a GPU is in use now; false at once for a local GPU.
    bool reconnect();
    // The same, to another place (the app's GPU setting); a local GPU is probed again. Call it
    // with no run in flight (the app's engine thread does).
    bool reconnect(const GpuLocation& where);
    // Words the device status again in the language now set (set_language), after a switch: this
    // machine without a GPU is probed again, which starts nothing (its target stays). A GPU, or a
    // worker elsewhere and what it said, is left as it is. Call it with no run in flight.
    void reword_status();
    // What the GPU worker says about the run in hand ("waiting for the GPU: another run holds
    // it"), "" when there is nothing to say. Safe from any thread.
    std::string gpu_note() const;
    // How many times this engine's GPU worker died or lost its link with a request in hand (a
    // pool hands that request to another GPU). Safe from any thread.
    uint64_t worker_deaths() const;
    // The device's own properties in GPU mode; the chosen preset in model mode.
    Target target() const;
    // Model mode only: pick a preset to compile and analyse for. Returns false in GPU mode.
    bool set_target(const Target& t);

    // Empty if the request can run on the current target, else one sentence.
    std::string invalid_reason(const RunRequest& req) const;

    // Compile, occupancy and cost model. No GPU needed. Never throws.
    RunResult analyze(const RunRequest& req);
    // analyze() then measure(). Never throws.
    RunResult run(const RunRequest& req, const RunOptions& opt = {}, const CancelFlag* cancel = nullptr);
    // In GPU mode, runs, validates, times and counts what analyze() returned (that result, as it
    // is, is where the measurements go: nothing is analysed or compiled twice). A failed analysis
    // comes back unchanged; in model mode, with no_gpu_reason set. Never throws.
    RunResult measure(RunResult analysed, const RunOptions& opt = {}, const CancelFlag* cancel = nullptr);
    // The same with the user's kernel instead of the variant's (RunResult::user_kernel says so).
    RunResult analyze(const RunRequest& req, const UserKernel& user);
    RunResult run(const RunRequest& req, const UserKernel& user, const RunOptions& opt = {},
                  const CancelFlag* cancel = nullptr);

    // ---- compile ahead ----------------------------------------------------------------------
    // Compiles the kernels of `reqs` in the background, in order, on one low-priority thread, so
    // that a request the user makes next finds its kernel compiled: the plain build and, when
    // `instrumented_too`, the TILELAB_COUNT=1 build run() uses to count accesses. Replaces the
    // list of an earlier call (the build being compiled finishes). Invalid requests are skipped.
    // A request's own compile never waits for this queue; if it needs the very build being
    // compiled ahead, it waits for that one instead of compiling it twice.
    void compile_ahead(std::vector<RunRequest> reqs, bool instrumented_too);
    CompileAheadStats compile_ahead_stats() const;
    // In GPU mode, starts compiling the instrumented build of `req` (TILELAB_COUNT=1, with its
    // other passes') now, on a thread of its own, so that it compiles beside the plain build that
    // analyze() compiles and a measure() that counts finds it done or in flight instead of starting
    // it then: a full result waits for the slower of the two compiles, not for their sum. run()
    // does this when it counts; the app does it for the request in hand. Replaces a build of an
    // earlier call not yet started; nothing in model mode.
    void compile_counting_now(const RunRequest& req);
    // Blocks until the compile-ahead queue is empty and nothing is being compiled, or `timeout`.
    // Returns whether it is idle.
    bool wait_compile_ahead_idle(std::chrono::milliseconds timeout) const;
    // The request's kernel (plain build) is in the memory cache: analyze() needs no compile. False
    // for an invalid request.
    bool kernel_in_memory(const RunRequest& req) const;
    // The builds run() compiles for `req` — its kernel's, then those of its other passes — plain
    // or instrumented (TILELAB_COUNT=1); none for an invalid request (or one that names no variant). For a caller that compiles
    // them itself, as the GPU tests do on every core before running many requests.
    std::vector<CompileRequest> builds(const RunRequest& req, bool instrumented) const;
    // For every parameter of the request's variant, the nearest value below and the nearest above
    // the current one (ParamSpec::values()) that is valid here; each a whole request. `first`'s
    // come first, the one in `direction` (+1 up, -1 down, 0 below first) before the other.
    std::vector<RunRequest> neighbours(const RunRequest& req, const std::string& first = "", int direction = 0) const;

    // Copy bandwidth and cuBLAS SGEMM peak; measured on first call, then cached. GPU mode only.
    Ceilings ceilings();

    CompileService& compiler();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tilelab
