// The engine's side of the GPU worker: one tilelab-gpu-worker child process per client (the
// process-wide instance() that engines share, or one an engine owns: a GPU of a pool), started
// on first use and kept between runs (its buffers and loaded cubins stay cached), and
// started afresh after a fault lost its CUDA context or after it died. The parent process never
// creates a CUDA context itself. No CUDA types here.
#pragma once
#include <sys/types.h>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include "tilelab/device.h"
#include "protocol/worker_protocol.h"

namespace tilelab {

// Appended to the error of the request whose fault lost the worker's context.
inline constexpr const char* kWorkerRestartedNote = "the GPU worker process was restarted, so the next run starts afresh";

class RemoteLink;

class WorkerClient {
public:
    // The default client of this process (engines share it unless they own one: EngineConfig).
    static WorkerClient& instance();
    WorkerClient();
    // `compile_only`: its worker (on this machine) never touches CUDA and answers "compile"
    // requests only: users' kernels are compiled there, under a deadline (compiler.h).
    explicit WorkerClient(bool compile_only);
    ~WorkerClient();
    WorkerClient(const WorkerClient&) = delete;
    WorkerClient& operator=(const WorkerClient&) = delete;

    // Sends `request` (its "op" set; the "id" is added here) and waits for the reply. While
    // waiting, a set `cancel` is passed on to the worker. Returns false with `failure` (one line)
    // when there is no reply to give: no worker found, the worker died, the channel broke, or it
    // replied {"failure": ...}. A reply with "context_lost" has already had its worker stopped.
    // time_limit_ms > 0: a worker that has not replied by then is stopped (an endless loop in a
    // user's kernel) and `failure` says so; a fresh worker starts with the next call.
    // `timed_out`, when given, says whether it was the time limit that stopped it; the failure of
    // a "compile" request says "the compile took longer than N s".
    bool call(worker::json request, const CancelFlag* cancel, worker::json& reply, std::string& failure,
              int time_limit_ms = 0, bool* timed_out = nullptr);

    // Increases each time a worker starts; handles from an earlier worker are void.
    uint64_t generation();
    // Increases each time a worker died or its link broke with a request in hand (not a fault in
    // the kernel, a time limit or a cancel): a pool gives that request to another GPU.
    uint64_t deaths();

    // ---- a worker elsewhere (GpuLocation) ------------------------------------------------------
    // Where the next worker starts; stops the current one if the place changed.
    void configure(const GpuLocation& where);
    // Remote only: (re)connects now and returns the worker's greeting (worker_protocol.h); false
    // with one sentence in `failure`. A link that failed stays failed (calls answer with the
    // reason at once) until connect() is called again: the app's Reconnect.
    bool connect(worker::json& hello, std::string& failure);
    // Why the remote link was lost ("" while it is up, or when local).
    std::string lost();
    // Whether the worker runs elsewhere (configure()). Safe from any thread, never waits.
    bool remote() const { return remote_configured_; }
    // The NVRTC version the remote worker's greeting named ("" before one arrived): a client-only
    // build compiles with it. Safe from any thread, never waits for a request in hand.
    std::string compiler_version();
    // What the worker says about the request in hand ("waiting for the GPU: another run holds
    // it"); "" when nothing is in hand. Safe from any thread.
    std::string note();

private:
    bool start(std::string& failure);
    // Closes the channel and reaps the child, killing it if it does not exit within `grace_ms`.
    // Returns how it ended ("exited with status 0", "killed by signal 11 (Segmentation fault)");
    // `hung_kernel`, where given, says whether it exited with worker::kHungKernelExitStatus.
    std::string stop(int grace_ms, bool* hung_kernel = nullptr);
    bool wait_for_reply(uint32_t id, const CancelFlag* cancel, worker::json& reply, std::string& failure,
                        int time_limit_ms, bool compile, bool& timed_out);
    bool connect_locked(worker::json& hello, std::string& failure);
    void set_note(const std::string& note);

    std::mutex mutex_;
    pid_t pid_ = -1;
    int channel_ = -1;   // requests and replies (a socket)
    int cancel_ = -1;    // cancel notes: the 4-byte id of the request to stop (a socket)
    uint32_t next_id_ = 1;
    uint64_t generation_ = 0;
    uint64_t deaths_ = 0;
    GpuLocation where_;
    std::unique_ptr<RemoteLink> remote_;   // the launcher, when where_.remote()
    std::string lost_;
    std::mutex note_mutex_;
    std::string note_;
    std::atomic<bool> remote_configured_{false};
    std::string compiler_version_;   // guarded by note_mutex_
    bool compile_only_ = false;
};

// Where the worker binary is: $TILELAB_GPU_WORKER, else next to this executable, else in its
// parent folder (tests in build/tests, the GUI in build/gui), else on PATH. Empty, with `failure`
// saying so, if none.
std::string find_gpu_worker(std::string& failure);

// Measures `job` in the worker; `worker_ms` gets the round trip. A failure to ask or to read the
// reply comes back as a failed Measurement (stage "run").
Measurement measure_in_worker(WorkerClient& client, const worker::MeasureJob& job, const RunOptions& opt,
                              const CancelFlag* cancel, double& worker_ms);
Ceilings ceilings_in_worker(WorkerClient& client);
// Free and total device memory as the worker sees it; false if the worker could not say. Where
// the reply has them (nine integers from 0 to 100,000), the clusters that fit at once go to
// `resident_clusters` (Target::resident_clusters), else it is left as it was.
bool device_memory_in_worker(WorkerClient& client, size_t& free_bytes, size_t& total_bytes, bool prepare_counters = false,
                             bool prepare_stalls = false, int (*resident_clusters)[9] = nullptr);

}  // namespace tilelab
