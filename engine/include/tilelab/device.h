// What the engine says about the machine it runs on, and how it is configured: small types that
// the engine's internals share with its public interface (tilelab/engine.h).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tilelab {

struct DeviceStatus {
    bool gpu = false;
    std::string reason;     // why model mode ("no CUDA driver: ...", "no CUDA device")
    std::string name;       // device name when gpu
    size_t free_bytes = 0, total_bytes = 0;
    std::string where;      // "" for this machine, else where runs go: "gpu01 via ssh"
    std::string host;       // a remote worker's host name, as its greeting gave it ("" when local)
    // A GPU elsewhere (GpuLocation) could not be reached or was lost: a failure (CLI exit 1),
    // not the absence of a GPU (exit 3).
    bool unreachable = false;
    int device_index = 0;   // the CUDA device the worker uses (GpuLocation::device)
    int device_count = 0;   // how many GPUs that host has (0 when unknown or none)
};

// Where the GPU worker runs (EngineConfig::gpu): on this machine (both empty), on `host` through
// `ssh -T -o BatchMode=yes ... host tilelab-gpu-worker --stdio`, or through `command` (run by
// `sh -c`: srun, docker exec -i, ssh with options of its own), which must end in
// `tilelab-gpu-worker --stdio`. Authentication is the launcher's: nothing of ours listens.
struct GpuLocation {
    std::string host;             // [user@]host
    std::string command;
    int connect_timeout_s = 15;   // bounds the wait for the worker's greeting and any silence after
    // Which GPU of that machine: passed as `tilelab-gpu-worker --gpu-device N` (appended to
    // `command`); -1 passes nothing, and the worker takes device 0.
    int device = -1;
    bool remote() const { return !host.empty() || !command.empty(); }
    bool same_place(const GpuLocation& o) const {
        return host == o.host && command == o.command && connect_timeout_s == o.connect_timeout_s && device == o.device;
    }
    // "gpu01 via ssh", "via srun --gres=gpu:1 ..." (shortened), "" when local.
    std::string describe() const;
    // "" or why the setting cannot be used (a host that looks like an option, control characters).
    std::string problem() const;
};

// For a command-line program: SIGINT, SIGTERM and SIGHUP end the process group of every launcher
// it has running (each leads its own) before the program ends by that signal, so that a launcher
// that does not `exec` (a compound command, srun inside a script) is not left behind. The app
// ends its loop on those signals instead and closes its links normally.
void end_launchers_with_this_process();

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
    // The hardware counters will be asked for (RunOptions::hardware_counters): the GPU worker sets
    // CUPTI up as soon as it starts, while the host compiles, so that the first full run pays only
    // the counter passes. Off for engines that only analyse, and for runs under another profiler.
    bool prepare_hardware_counters = false;
    // Stall samples will be asked for (RunOptions::stall_samples): the worker enables PC sampling
    // as soon as it starts (CUPTI's set-up takes a second or two) instead of in the first full run.
    bool prepare_stall_samples = false;
    GpuLocation gpu{};         // where the GPU is (default: this machine)
    // A GPU worker of the engine's own instead of the process's shared one: each engine of a
    // pool (tilelab/gpu_pool.h) talks to its GPU while the others talk to theirs.
    bool own_worker = false;
};

// Set by the caller to stop a run between repetitions.
using CancelFlag = std::atomic<bool>;

// What compile-ahead has done since the engine started (Engine::compile_ahead).
struct CompileAheadStats {
    uint64_t lists = 0;        // compile_ahead() calls
    uint64_t compiled = 0;     // builds it compiled (NVRTC or the disk cache)
    uint64_t already = 0;      // builds it found in memory or being compiled: nothing to do
    uint64_t invalid = 0;      // builds it skipped: their request is invalid on the current target
    uint64_t dropped = 0;      // builds a newer list replaced before their turn
    size_t queued = 0;         // builds waiting now
    bool compiling = false;    // one is being compiled now
    bool idle() const { return queued == 0 && !compiling; }
};

}  // namespace tilelab
