// The engine: the only part of TileLab that knows CUDA. The GUI and the CLI send a RunRequest
// and get a RunResult back. With no driver or no device it works in model mode: compile,
// registers, occupancy and modelled counts still work; nothing is measured.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include "tilelab/result.h"
#include "tilelab/target.h"

namespace tilelab {

struct DeviceStatus {
    bool gpu = false;
    std::string reason;     // why model mode ("no CUDA driver: ...", "no CUDA device")
    std::string name;       // device name when gpu
    size_t free_bytes = 0, total_bytes = 0;
};

// Best the card can do, measured once per size and cached.
struct Ceilings {
    bool measured = false;
    double copy_gbps = 0;      // device-to-device copy, read + write bytes
    double sgemm_gflops = 0;   // cuBLAS SGEMM FP32 (pedantic) at 4096^3
    std::string note;
};

struct EngineConfig {
    std::string cache_dir;     // "" = default_cache_dir()
    bool force_model_mode = false;
};

// Set by the caller to stop a run between repetitions.
using CancelFlag = std::atomic<bool>;

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
