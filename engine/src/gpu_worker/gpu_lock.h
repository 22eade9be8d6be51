// Taking turns on one GPU: several learners' workers on one machine each hold an exclusive OS
// file lock (flock) on the GPU's lock file for the whole of a measurement (validation, timing,
// counting, hardware counters), so that no two timed runs overlap. The lock file lives where
// every user can open it (/tmp, or $TILELAB_LOCK_DIR) and is created world-readable; flock needs
// no write access, and the kernel drops the lock when its holder exits, however it exits.
// While waiting, a worker holds a ticket (a locked file in a queue folder beside the lock), so
// that others can count the waiting runs without a counter that a killed waiter would leave
// wrong. No CUDA here: the tests take turns without a GPU.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include "tilelab/device.h"

namespace tilelab {

// The lock file of the GPU named `device_key` (its UUID, else its index): <dir>/tilelab-gpu-<key>.lock,
// <dir> being $TILELAB_LOCK_DIR when set, else /tmp. Characters other than [A-Za-z0-9-] become '_'.
std::string gpu_lock_path(const std::string& device_key);

class GpuTurn {
public:
    GpuTurn() = default;
    ~GpuTurn() { release(); }
    GpuTurn(const GpuTurn&) = delete;
    GpuTurn& operator=(const GpuTurn&) = delete;

    // Waits until this process holds the lock at `path`. While another holds it, `on_wait(others)`
    // is called at once and then about once a second; `others` counts the runs waiting besides
    // this one. Returns "" once held, else one sentence: cancelled, or the lock file unusable.
    std::string acquire(const std::string& path, const CancelFlag* cancel,
                        const std::function<void(int others_waiting)>& on_wait);
    void release();
    bool held() const { return fd_ >= 0; }
    // How long acquire() waited for another run (0 when the GPU was free).
    double waited_ms() const { return waited_ms_; }

private:
    int fd_ = -1;
    double waited_ms_ = 0;
};

// Runs waiting for the lock at `path` now (live tickets), not counting `except_ticket`.
int runs_waiting(const std::string& path, const std::string& except_ticket = "");

}  // namespace tilelab
