// The engine: the only part of TileLab that knows CUDA. The GUI and the CLI send a RunRequest
// and get a RunResult back. With no driver or no device it works in model mode: compile,
// registers, occupancy and modelled counts still work; nothing is measured.
#pragma once
#include <memory>
#include <string>
#include "tilelab/device.h"
#include "tilelab/result.h"
#include "tilelab/target.h"

namespace tilelab {

class Engine {
public:
    explicit Engine(const EngineConfig& cfg = {});
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    const DeviceStatus& device() const;
    // The device's own properties in GPU mode; the chosen preset in model mode.
    Target target() const;
    // Model mode only: pick a preset to compile and analyse for. Returns false in GPU mode.
    bool set_target(const Target& t);

    // Empty if the request can run on the current target, else one sentence.
    std::string invalid_reason(const RunRequest& req) const;

    // Compile, occupancy and cost model. No GPU needed. Never throws.
    RunResult analyze(const RunRequest& req);
    // analyze() then, in GPU mode, run, validate, time and count. Never throws.
    RunResult run(const RunRequest& req, const RunOptions& opt = {}, const CancelFlag* cancel = nullptr);

    // Copy bandwidth and cuBLAS SGEMM peak; measured on first call, then cached. GPU mode only.
    Ceilings ceilings();

    CompileService& compiler();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tilelab
