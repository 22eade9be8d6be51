// What the engine says about the machine it runs on, and how it is configured: small types that
// the engine's internals share with its public interface (tilelab/engine.h).
#pragma once
#include <atomic>
#include <cstddef>
#include <string>

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

}  // namespace tilelab
