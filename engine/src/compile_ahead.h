// Compile ahead: a queue of builds compiled in the background on one low-priority thread, so the
// value a user drags to next finds its kernel compiled. The Engine decides what a build is (a
// request, plain or instrumented) and how to compile it; this class only orders, replaces and
// counts. A new list replaces the queue; the build being compiled finishes (NVRTC cannot stop).
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include "tilelab/device.h"
#include "tilelab/result.h"

namespace tilelab {

struct AheadItem {
    RunRequest request;
    bool instrumented = false;   // the TILELAB_COUNT=1 build
};

enum class AheadOutcome { Compiled, Already, Invalid };

class CompileAheadQueue {
public:
    using Compile = std::function<AheadOutcome(const AheadItem&)>;
    // `compile` runs on the queue's thread, one item at a time; it must not throw.
    explicit CompileAheadQueue(Compile compile);
    ~CompileAheadQueue();   // waits for the build in progress, drops the rest
    CompileAheadQueue(const CompileAheadQueue&) = delete;
    CompileAheadQueue& operator=(const CompileAheadQueue&) = delete;

    void replace(std::vector<AheadItem> items);
    CompileAheadStats stats() const;
    bool wait_idle(std::chrono::milliseconds timeout) const;

private:
    void loop();

    Compile compile_;
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;   // new items, stop, or an item done
    std::deque<AheadItem> queue_;
    CompileAheadStats stats_;
    bool stop_ = false;
    std::thread thread_;   // started on the first replace(): a CLI run that never asks has none
};

}  // namespace tilelab
