// The GPU worker's request loop (gpu_worker.h). One request at a time; the inbox's thread reads
// cancel notes (from the second socket, or in-band on a stdio stream) so that a run can be
// stopped between repetitions. Every measurement holds the GPU's lock (gpu_lock.h).
#include "gpu_worker/gpu_worker.h"
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <memory>
#include <thread>
#include "gpu_worker/gpu_lock.h"
#include "compile/compiler.h"
#include "device/probe.h"
#include "gpu_worker/runner_gpu.h"
#include "gpu_worker/support_kernels.h"
#include "tilelab/result_json.h"
#include "tilelab/i18n.h"
#include "protocol/worker_protocol.h"
#include "gpu_worker/worker_stream.h"

namespace tilelab {
namespace {

using worker::json;

// Cancellation: the engine sends the id of the request to cancel. The note may arrive before
// the request is read or after its reply went; the ids keep it from cancelling another request.
std::atomic<uint32_t> current_request{0};
std::atomic<uint32_t> cancelled_request{0};
CancelFlag cancel_flag{false};

void note_cancel(uint32_t id) {
    cancelled_request = id;
    if (current_request == id) cancel_flag = true;
}

void read_cancel_notes(int fd) {
    for (;;) {
        uint8_t note[4];
        size_t got = 0;
        while (got < sizeof note) {
            const ssize_t n = ::read(fd, note + got, sizeof note - got);
            if (n <= 0) return;   // the engine closed it (or is gone): the channel ends the loop
            got += size_t(n);
        }
        note_cancel(uint32_t(note[0]) | uint32_t(note[1]) << 8 | uint32_t(note[2]) << 16 | uint32_t(note[3]) << 24);
    }
}

// Sets up the cancel flag for request `id` (seq_cst atomics: whichever of this and the cancel
// thread comes second sees the other's write).
void begin_request(uint32_t id, bool cancelled_already) {
    cancel_flag = cancelled_already;
    current_request = id;
    if (cancelled_request == id) cancel_flag = true;
}

std::string host_name() {
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? name : "this host";
}

// The most a measurement may hold the GPU: TILELAB_GPU_HOLD_S (0 = no limit), default 10 s.
double hold_limit_s() {
    const char* env = std::getenv("TILELAB_GPU_HOLD_S");
    if (!env || !*env) return 10;
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end == env || *end || v < 0) {
        std::fprintf(stderr, "tilelab-gpu-worker: TILELAB_GPU_HOLD_S=%s is not a number of seconds; using 10\n", env);
        return 10;
    }
    return v;
}

// The key of the GPU's lock: its UUID, which CUDA_VISIBLE_DEVICES does not renumber.
std::string device_key(int device) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return std::to_string(device);
    std::string key;
    for (int i = 0; i < 16; ++i) key += fmt::format("{:02x}", uint8_t(prop.uuid.bytes[i]));
    return key;
}

// Target::resident_clusters, read once on sm_90 and later; left 0 (the engine then assumes
// sm_count / c), with a line on stderr, where the helpers cannot be built.
void read_resident_clusters(Target& t) {
    if (t.arch() < 90) return;
    try {
        for (unsigned c = 2; c <= 8; ++c) t.resident_clusters[c] = support_kernels().resident_clusters(c);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tilelab-gpu-worker: the clusters that fit at once were not read: %s\n", e.what());
    }
}

class Worker {
public:
    Worker(int device, bool compile_only) {
        if (compile_only) {
            unusable_ = say("this GPU worker only compiles", "这个 GPU worker 只负责编译");
            return;
        }
        probe_ = probe_device(false, device);
        const DeviceProbe& probe = probe_;
        if (!probe.status.gpu) {
            unusable_ = say("the GPU worker found no usable device: {}", "GPU worker 没有找到可用的设备：{}", probe.status.reason);
            return;
        }
        if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
            unusable_ = say("the GPU worker could not use the device: cudaSetDevice: {}", "GPU worker 无法使用该设备：cudaSetDevice：{}",
                            std::string(cudaGetErrorString(e)));
            return;
        }
        runner_ = std::make_unique<GpuRunner>(size_t(probe.target.l2_bytes));
        read_resident_clusters(probe_.target);
        lock_path_ = gpu_lock_path(device_key(device));
    }

    // The stdio greeting (worker_protocol.h): who we are, and the device the host compiles for.
    json greeting() const {
        json device = {{"gpu", runner_ != nullptr}, {"reason", runner_ ? "" : unusable_},
                       {"name", probe_.status.name}, {"total_bytes", probe_.status.total_bytes},
                       {"index", probe_.device}, {"count", probe_.device_count}};
        json hello = {{"hello", "tilelab-gpu-worker"}, {"protocol", worker::kProtocolVersion},
                      {"host", host_name()}, {"device", device}, {"hold_limit_s", hold_limit_s_},
                      {"nvrtc", compiler_version()}};
        if (runner_) hello["target"] = json::parse(nlohmann::ordered_json(probe_.target).dump());
        return hello;
    }
    double hold_limit() const { return hold_limit_s_; }

    // A client-only build's compile (worker_protocol.h), with this process's NVRTC.
    static json compile(const json& request) {
        if (request.at("sources").get_ref<const std::string&>() != sources_fingerprint())
            return {{"failure", say("the GPU worker was built from other kernel sources than this TileLab, so it cannot compile "
                                    "for it; install the same version on both machines",
                                    "GPU worker 的内核源码与本 TileLab 的不同，无法为它编译；请在两台机器上安装同一版本")}};
        const CompileRequest req = worker::compile_request_from_json(request.at("compile"));
        std::shared_ptr<CompileResult> r;
        if (req.arch < 10) {
            r = std::make_shared<CompileResult>();
            r->error = fmt::format("'sm_{}' is not a GPU architecture.", req.arch);
        } else {
            try {
                r = compile_kernel(req, compiler_options(req));
            } catch (const std::exception& e) {   // NVRTC's API failed; compile errors are results
                r = std::make_shared<CompileResult>();
                r->error = e.what();
            }
        }
        return {{"compiled", worker::compile_result_to_json(*r)}};
    }

    // The reply to one request; sets context_lost() when the worker must exit after sending it.
    json handle(const json& request, worker::Notes& notes) {
        json reply;
        // Compiling needs NVRTC only, no GPU: a client-only build asks for it even where none is.
        if (request.at("op").get_ref<const std::string&>() == "compile") return compile(request);
        if (!runner_) {
            reply["failure"] = unusable_;
            reply["context_lost"] = true;   // nothing cached is lost; a fresh worker may fare better
            return reply;
        }
        const std::string op = request.at("op").get<std::string>();
        if (op == "run") {
            Measurement m;
            m.stage = "run";
            if (take_turn(notes, m.error)) {
                m = runner_->measure(worker::job_from_json(request.at("job")), request.at("options").get<RunOptions>(),
                                     &cancel_flag);
                give_turn_back(notes, m.ok, m.error);
                m.stages.gpu_wait_ms = turn_.waited_ms();
            }
            reply["result"] = m;
        } else if (op == "ceilings") {
            Ceilings c;
            if (take_turn(notes, c.note)) {
                c = runner_->measure_ceilings();
                give_turn_back(notes, c.measured, c.note);
            }
            reply["ceilings"] = c;
        } else if (op == "memory") {
            size_t free_bytes = 0, total_bytes = 0;
            device_memory(free_bytes, total_bytes);
            reply = {{"free_bytes", free_bytes}, {"total_bytes", total_bytes},
                     {"resident_clusters", probe_.target.resident_clusters}};   // a local engine's target has no greeting's
            // TILELAB_HW_PREPARE=0 leaves the set-up to the first pass (to measure what this saves).
            const char* env = std::getenv("TILELAB_HW_PREPARE");
            prepare_counters_ = request.value("prepare_counters", false) && !(env && std::string(env) == "0");
            prepare_stalls_ = request.value("prepare_stalls", false) && !(env && std::string(env) == "0");
        } else if (op == "blocks_per_sm") {
            std::string error;
            const auto kernel = worker::cubin_from_json(request.at("kernel"));
            LaunchShape launch;
            launch.block = request.at("block").get<std::array<unsigned, 3>>();
            launch.dynamic_smem = request.at("dynamic_smem").get<unsigned>();
            reply["blocks"] = runner_->runtime_blocks_per_sm(*kernel, launch, error);
            reply["error"] = error;
        } else if (op == "occupy") {
            std::string error;
            reply["handle"] = runner_->occupy_memory(request.at("leave_free_bytes").get<size_t>(), error);
            reply["error"] = error;
        } else if (op == "support_sample") {
            reply = runner_->support_sample(request);
        } else if (op == "release") {
            runner_->release_memory(request.at("handle").get<int>());
        } else {
            reply["failure"] = say("the GPU worker does not know the request \"{}\"", "GPU worker 不认识请求 \"{}\"", op);
        }
        if (runner_->context_lost()) reply["context_lost"] = true;
        return reply;
    }

    // Before leaving with the context lost: nothing of this worker's left enabled on the GPU. (A
    // GPU test's worker that left with sampling enabled is one suspect for the failures of the
    // processes after it, 2026-12-05; with the context truly lost the call fails at once.)
    void release_profilers() {
        if (runner_) runner_->release_profilers();
    }

    // After the reply went: CUPTI's one-time set-up when the engine asked for it, while the host
    // compiles the first kernel. Never during a request, so never inside a timed run.
    void after_reply() {
        if (!runner_) return;
        if (prepare_counters_) runner_->prepare_hardware_counters();
        if (prepare_stalls_) runner_->prepare_stall_samples();
        prepare_counters_ = prepare_stalls_ = false;
    }

private:
    // Waits for the GPU's lock, saying so; false with `error` when cancelled or unusable.
    bool take_turn(worker::Notes& notes, std::string& error) {
        error = turn_.acquire(lock_path_, &cancel_flag, [&](int others) {
            notes.say(others == 0 ? std::string("waiting for the GPU: another run holds it")
                                  : fmt::format("waiting for the GPU: another run holds it and {} more {} waiting", others,
                                                others == 1 ? "is" : "are"));
        });
        if (!error.empty()) return false;
        notes.holding(true);
        return true;
    }
    void give_turn_back(worker::Notes& notes, bool& ok, std::string& error) {
        notes.holding(false);
        turn_.release();
        if (!notes.overran()) return;
        ok = false;
        error = fmt::format("stopped: a run may hold this shared GPU for at most {:g} s (TILELAB_GPU_HOLD_S on {}); "
                            "try a smaller size or fewer repetitions", hold_limit_s_, host_name());
    }

    DeviceProbe probe_;
    double hold_limit_s_ = hold_limit_s();
    std::string lock_path_;
    GpuTurn turn_;
    bool prepare_counters_ = false, prepare_stalls_ = false;
    std::string unusable_;
    std::unique_ptr<GpuRunner> runner_;
};

}  // namespace

int serve_gpu_worker(int in_fd, int out_fd, int cancel_fd, int device, bool compile_only) {
    const bool stdio = cancel_fd < 0;
    if (!stdio) std::thread(read_cancel_notes, cancel_fd).detach();
    worker::Outbox out(out_fd);
    Worker worker(device, compile_only);
    std::string error;
    if (stdio && !out.send_greeting(worker.greeting(), error)) {
        std::fprintf(stderr, "tilelab-gpu-worker: %s\n", error.c_str());
        return 1;
    }
    // A peer over a byte stream may be anyone the launcher lets in: its frames are held to a
    // request's size. The engine's own socket pair carries what the engine sends.
    worker::Inbox inbox(in_fd, stdio ? worker::kMaxStdioRequestBytes : worker::kMaxFrameBytes, note_cancel);
    worker::Notes notes(out, worker.hold_limit(), cancel_flag);
    for (;;) {
        json request;
        if (!inbox.next(request, error)) {
            if (error.empty()) return 0;   // the engine is done with us
            std::fprintf(stderr, "tilelab-gpu-worker: ending the connection: %s\n", error.c_str());
            return 1;
        }
        // Every message is checked before it is read: a malformed one gets an error reply (with
        // id 0 when its own id is unusable) and the worker waits for the next.
        json reply;
        const uint32_t id = worker::request_id_or_zero(request);
        if (const std::string problem = worker::request_problem(request); !problem.empty()) {
            std::fprintf(stderr, "tilelab-gpu-worker: refused a malformed request: %s\n", problem.c_str());
            reply = {{"failure", say("the GPU worker refused a malformed request: {}", "GPU worker 拒绝了一个格式错误的请求：{}", problem)}};
        } else {
            try {
                begin_request(id, request.value("cancelled", false));
                Language lang = Language::English;   // checked by request_problem
                if (request.contains("lang")) parse_language(request.at("lang").get_ref<const std::string&>(), lang);
                set_language(lang);
                notes.begin(id);
                reply = worker.handle(request, notes);
            } catch (const std::exception& e) {   // validated, so only the runtime can get here
                reply = {{"failure", say("the GPU worker could not carry out the request: {}", "GPU worker 无法执行该请求：{}",
                                         std::string(e.what()))}};
            }
            notes.end();
        }
        reply["id"] = id;
        if (!out.send(reply, error)) {
            std::fprintf(stderr, "tilelab-gpu-worker: %s\n", error.c_str());
            return 1;
        }
        // A lost context cannot be recovered in this process: leave without running destructors
        // that would only call into it, and let the engine start a new worker.
        if (reply.value("context_lost", false)) {
            worker.release_profilers();
            _exit(0);
        }
        worker.after_reply();
    }
}

}  // namespace tilelab
