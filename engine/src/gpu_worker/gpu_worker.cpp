// The GPU worker's request loop (gpu_worker.h). One request at a time on the channel; a thread
// reads cancel notes from the second socket, so that a run can be stopped between repetitions.
#include "gpu_worker.h"
#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <memory>
#include <thread>
#include "runner_device.h"
#include "runner_gpu.h"
#include "worker_protocol.h"

namespace tilelab {
namespace {

using worker::json;

// Cancellation: the engine sends the id of the request to cancel. The note may arrive before
// the request is read or after its reply went; the ids keep it from cancelling another request.
std::atomic<uint32_t> current_request{0};
std::atomic<uint32_t> cancelled_request{0};
CancelFlag cancel_flag{false};

void read_cancel_notes(int fd) {
    for (;;) {
        uint8_t note[4];
        size_t got = 0;
        while (got < sizeof note) {
            const ssize_t n = ::read(fd, note + got, sizeof note - got);
            if (n <= 0) return;   // the engine closed it (or is gone): the channel ends the loop
            got += size_t(n);
        }
        const uint32_t id = uint32_t(note[0]) | uint32_t(note[1]) << 8 | uint32_t(note[2]) << 16 | uint32_t(note[3]) << 24;
        cancelled_request = id;
        if (current_request == id) cancel_flag = true;
    }
}

// Sets up the cancel flag for request `id` (seq_cst atomics: whichever of this and the cancel
// thread comes second sees the other's write).
void begin_request(uint32_t id, bool cancelled_already) {
    cancel_flag = cancelled_already;
    current_request = id;
    if (cancelled_request == id) cancel_flag = true;
}

class Worker {
public:
    Worker() {
        const DeviceProbe probe = probe_device(false);
        if (!probe.status.gpu) {
            unusable_ = "the GPU worker found no usable device: " + probe.status.reason;
            return;
        }
        if (const cudaError_t e = cudaSetDevice(0); e != cudaSuccess) {
            unusable_ = std::string("the GPU worker could not use the device: cudaSetDevice: ") + cudaGetErrorString(e);
            return;
        }
        runner_ = std::make_unique<GpuRunner>(probe.l2_bytes);
    }

    // The reply to one request; sets context_lost() when the worker must exit after sending it.
    json handle(const json& request) {
        json reply;
        if (!runner_) {
            reply["failure"] = unusable_;
            reply["context_lost"] = true;   // nothing cached is lost; a fresh worker may fare better
            return reply;
        }
        const std::string op = request.at("op").get<std::string>();
        if (op == "run") {
            reply["result"] = runner_->measure(worker::job_from_json(request.at("job")),
                                               request.at("options").get<RunOptions>(), &cancel_flag);
        } else if (op == "ceilings") {
            reply["ceilings"] = runner_->measure_ceilings();
        } else if (op == "memory") {
            size_t free_bytes = 0, total_bytes = 0;
            device_memory(free_bytes, total_bytes);
            reply = {{"free_bytes", free_bytes}, {"total_bytes", total_bytes}};
            // TILELAB_HW_PREPARE=0 leaves the set-up to the first pass (to measure what this saves).
            const char* env = std::getenv("TILELAB_HW_PREPARE");
            prepare_counters_ = request.value("prepare_counters", false) && !(env && std::string(env) == "0");
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
            reply["failure"] = "the GPU worker does not know the request \"" + op + "\"";
        }
        if (runner_->context_lost()) reply["context_lost"] = true;
        return reply;
    }

    // After the reply went: CUPTI's one-time set-up when the engine asked for it, while the host
    // compiles the first kernel. Never during a request, so never inside a timed run.
    void after_reply() {
        if (!prepare_counters_ || !runner_) return;
        prepare_counters_ = false;
        runner_->prepare_hardware_counters();
    }

private:
    bool prepare_counters_ = false;
    std::string unusable_;
    std::unique_ptr<GpuRunner> runner_;
};

}  // namespace

int serve_gpu_worker(int channel_fd, int cancel_fd) {
    std::thread(read_cancel_notes, cancel_fd).detach();
    Worker worker;
    for (;;) {
        json request;
        std::string error;
        const worker::ReadStatus got = worker::read_frame(channel_fd, request, error);
        if (got == worker::ReadStatus::closed) return 0;   // the engine is done with us
        if (got == worker::ReadStatus::error) {
            std::fprintf(stderr, "tilelab-gpu-worker: %s\n", error.c_str());
            return 1;
        }
        // Every message is checked before it is read: a malformed one gets an error reply (with
        // id 0 when its own id is unusable) and the worker waits for the next.
        json reply;
        const uint32_t id = worker::request_id_or_zero(request);
        if (const std::string problem = worker::request_problem(request); !problem.empty()) {
            std::fprintf(stderr, "tilelab-gpu-worker: refused a malformed request: %s\n", problem.c_str());
            reply = {{"failure", "the GPU worker refused a malformed request: " + problem}};
        } else {
            try {
                begin_request(id, request.value("cancelled", false));
                reply = worker.handle(request);
            } catch (const std::exception& e) {   // validated, so only the runtime can get here
                reply = {{"failure", std::string("the GPU worker could not carry out the request: ") + e.what()}};
            }
        }
        reply["id"] = id;
        if (!worker::write_frame(channel_fd, reply, error)) {
            std::fprintf(stderr, "tilelab-gpu-worker: %s\n", error.c_str());
            return 1;
        }
        // A lost context cannot be recovered in this process: leave without running destructors
        // that would only call into it, and let the engine start a new worker.
        if (reply.value("context_lost", false)) _exit(0);
        worker.after_reply();
    }
}

}  // namespace tilelab
