// Several GPUs at once: one Engine, with a GPU worker of its own, per GPU of this machine or of
// each --gpu-host, and a shared queue of requests that every GPU takes the next one from, so a
// slow GPU never holds the others up. Each result is measured on exactly one GPU and says which.
// A worker that dies with a request in hand gives it back to the queue (said once) and leaves
// the pool; a cancel stops every GPU. No CUDA here.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include "tilelab/engine.h"

namespace tilelab {

// Which GPUs of each place: every one the place has, or these device numbers.
struct GpuSet {
    bool all = false;
    // When !all; empty = the place's default GPU only. A number given twice starts two workers
    // on that GPU, which take turns through its lock (a check of the pool on a one-GPU machine).
    std::vector<int> devices;
    bool many() const { return all || devices.size() > 1; }
};

// "all" or "0,1,3" into `set`; "" or why the text is not a GPU set (one sentence).
std::string parse_gpu_set(const std::string& text, GpuSet& set);

// One GPU of a pool.
struct PoolGpu {
    std::string label;   // "NVIDIA H200 #1", "NVIDIA H200 #0 on gpu01": what results carry
    std::string model;   // the device's name: only results of one model are compared
};

// One request's outcome: its result and the GPU (index into GpuPool::gpus()) that measured it;
// gpu < 0 when no GPU did (cancelled before its turn, or every worker was lost).
struct PoolResult {
    RunResult result;
    int gpu = -1;
};

struct PoolProgress {
    size_t done = 0, total = 0;
    std::vector<size_t> per_gpu;   // results measured by each GPU so far
    std::string event;             // "" or one line that just happened ("NVIDIA H200 #1 stopped: ...")
    // The result that just came in (null with an event): requests[index], measured on result->gpu.
    const PoolResult* result = nullptr;
    size_t index = 0;
};

class GpuPool {
public:
    // One engine per GPU: `places` (one local GpuLocation when empty) times `set`. With `all`,
    // a place's first worker says how many GPUs it has. False with one sentence in `failure`
    // when a GPU cannot be used (out of range, unreachable, model mode).
    bool open(const std::vector<GpuLocation>& places, const GpuSet& set, const EngineConfig& base, std::string& failure);
    ~GpuPool();

    size_t size() const { return engines_.size(); }
    Engine& engine(size_t i) { return *engines_[i]; }
    const std::vector<PoolGpu>& gpus() const { return gpus_; }
    // More than one GPU model in the pool: results are compared only within a model.
    bool mixed_models() const;
    // Lines of what the pool says in `--gpus` help and status ("2 GPUs: NVIDIA H200 #0, ...").
    std::string describe() const;

    // Runs every request on exactly one GPU of the pool (Engine::run), each GPU taking the next
    // from a shared queue. `progress` (may be empty) is called after each result, from the
    // pool's threads one at a time. A set `cancel` stops every GPU; requests not started then
    // come back with gpu -1 and "cancelled". Returns results in the order of `requests`.
    std::vector<PoolResult> run_all(const std::vector<RunRequest>& requests, const RunOptions& opt, const CancelFlag* cancel,
                                    const std::function<void(const PoolProgress&)>& progress = {});

private:
    std::vector<std::unique_ptr<Engine>> engines_;
    std::vector<PoolGpu> gpus_;
};

// Per GPU model, each measured result's median time as a percentage of the best (fastest valid)
// of that model: 100 for the best, 50 for one twice as slow; -1 where not measured or invalid.
std::vector<double> pct_of_best_per_model(const std::vector<PoolResult>& results, const std::vector<PoolGpu>& gpus);

}  // namespace tilelab
