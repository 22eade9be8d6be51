#include "host/compile_ahead.h"
#include <sys/resource.h>
#include <unistd.h>

namespace tilelab {
namespace {

// Compile-ahead is a guess, so it yields the CPU to everything else: nice +10 for this thread
// only (Linux applies setpriority(PRIO_PROCESS, tid) per thread). Not SCHED_IDLE: a user's
// request may wait for the very build this thread is compiling (CompileService shares in-flight
// compiles), and an idle-class thread could then starve behind the UI's rendering; at nice 10 it
// still gets about a tenth of a busy core. Best effort: where it fails, the thread runs at normal
// priority.
void lower_this_threads_priority() {
#ifdef __linux__
    setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10);
#endif
}

}  // namespace

CompileAheadQueue::CompileAheadQueue(Compile compile) : compile_(std::move(compile)) {}

CompileAheadQueue::~CompileAheadQueue() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        queue_.clear();
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void CompileAheadQueue::replace(std::vector<AheadItem> items) {
    {
        std::lock_guard lock(mutex_);
        ++stats_.lists;
        stats_.dropped += queue_.size();
        queue_.assign(std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
        if (!thread_.joinable() && !queue_.empty()) thread_ = std::thread([this] { loop(); });
    }
    changed_.notify_all();
}

CompileAheadStats CompileAheadQueue::stats() const {
    std::lock_guard lock(mutex_);
    CompileAheadStats s = stats_;
    s.queued = queue_.size();
    return s;
}

bool CompileAheadQueue::wait_idle(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return queue_.empty() && !stats_.compiling; });
}

void CompileAheadQueue::loop() {
    lower_this_threads_priority();
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        const AheadItem item = std::move(queue_.front());
        queue_.pop_front();
        stats_.compiling = true;
        lock.unlock();
        AheadOutcome outcome = AheadOutcome::Invalid;
        try {
            outcome = compile_(item);
        } catch (...) {
            // A guess that fails costs nothing: the user's own request will say why.
        }
        lock.lock();
        stats_.compiling = false;
        switch (outcome) {
            case AheadOutcome::Compiled: ++stats_.compiled; break;
            case AheadOutcome::Already: ++stats_.already; break;
            case AheadOutcome::Invalid: ++stats_.invalid; break;
        }
        changed_.notify_all();
    }
}

}  // namespace tilelab
