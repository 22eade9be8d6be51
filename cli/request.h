// From command-line text to a RunRequest the engine accepts. Every function here either
// succeeds or throws a usage error (exit 2) whose message is one sentence naming the bad input.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include "options.h"
#include "tilelab/engine.h"
#include "tilelab/gpu_pool.h"
#include "tilelab/variant.h"

namespace tilelab::cli {

// --model-mode, or TILELAB_MODEL_MODE set to anything but "" or "0".
bool model_mode_requested(const CliOptions& o);

// counters_wanted: the command will read hardware counters, so the GPU worker sets CUPTI up while
// the kernel compiles (EngineConfig::prepare_hardware_counters).
// A GPU host or command (--gpu-host, --gpu-command) that cannot be reached throws CliError(1).
std::unique_ptr<Engine> make_engine(const CliOptions& o, bool counters_wanted = false);

// --gpus, or --gpu-host given more than once: the command spreads its runs over a pool.
bool pool_requested(const CliOptions& o);
// One engine per GPU of --gpus on this machine or on each --gpu-host (or the --gpu-command);
// says on stderr which GPUs it has. A GPU that cannot be used throws CliError(1) saying why.
std::unique_ptr<GpuPool> make_pool(const CliOptions& o, bool counters_wanted = false);

// While it lives, says on stderr when a run waits for a shared GPU ("waiting for the GPU:
// another run holds it"), once per change.
class GpuWaitEcho {
public:
    explicit GpuWaitEcho(const Engine& engine);
    ~GpuWaitEcho();

private:
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;
};

// A variant id ("matmul.smem_tiled"), or a lesson id or number ("02") naming one.
const Variant& resolve_variant(const std::string& name);

// require_param, parse_sets and check_param_value are the shared input policy's
// (tilelab/input_policy.h): their InputError is a usage error (exit 2).

// --size, or when empty the size the variant's lesson presets (else 1024).
Problem resolve_problem(const Variant& v, const std::string& size_text);

// --target: a preset (model mode), or the device itself (GPU mode: anything else is an error).
void apply_target(Engine& engine, const std::string& key);

// All of the above plus the engine's own check of the combination on the current target.
RunRequest build_request(const CliOptions& o, Engine& engine);

}  // namespace tilelab::cli
