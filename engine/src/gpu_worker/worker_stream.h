// The GPU worker's two ends of its channel, apart from what it does with a request: the inbox
// (a thread that reads frames, passes cancel notes on at once and queues requests), the outbox
// (replies and notes, one writer at a time) and the notes thread (says, at least once a second,
// what the request in hand is doing, and stops a run that holds the shared GPU too long). No CUDA
// here, so that the stream's behaviour is tested without a GPU.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include "tilelab/device.h"
#include "protocol/worker_protocol.h"

namespace tilelab::worker {

class Outbox {
public:
    explicit Outbox(int fd) : fd_(fd) {}
    bool send(const json& message, std::string& error);
    // The stdio greeting: the magic bytes, then `hello` as one frame.
    bool send_greeting(const json& hello, std::string& error);

private:
    std::mutex mutex_;
    int fd_;
};

class Inbox {
public:
    // `on_cancel(id)` is called on the reader thread for every cancel note; `max_bytes` bounds a
    // frame. The reader starts at once.
    Inbox(int fd, uint32_t max_bytes, void (*on_cancel)(uint32_t));
    ~Inbox();
    // Blocks for the next request. False when the stream ended: `why` is "" for a clean close,
    // else the reason (a framing error, an oversized frame, a read error).
    bool next(json& request, std::string& why);

private:
    void read_loop();
    int fd_;
    uint32_t max_bytes_;
    void (*on_cancel_)(uint32_t);
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<json> queue_;
    bool ended_ = false;
    std::string end_reason_;
    std::thread reader_;
};

// The request in hand, as the notes thread reports it, and the shared GPU's time limit.
class Notes {
public:
    // `hold_limit_s` <= 0: no limit. `cancel` is set when a run overstays it; the worker exits
    // (code 3) if the run still holds the GPU `kHungGraceS` later (a kernel that never returns).
    Notes(Outbox& out, double hold_limit_s, CancelFlag& cancel);
    ~Notes();
    void begin(uint32_t id);
    void say(const std::string& note);     // e.g. "waiting for the GPU: another run holds it"
    void holding(bool now);                // the GPU's lock taken (true) or given back (false)
    bool overran() const;                  // the run in hand was stopped for holding the GPU too long
    void end();
    static constexpr double kHungGraceS = 20;

private:
    void loop();
    Outbox& out_;
    double hold_limit_s_;
    CancelFlag& cancel_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false, busy_ = false, held_ = false, overran_ = false;
    uint32_t id_ = 0;
    std::string note_;
    std::chrono::steady_clock::time_point held_since_, last_note_;
    std::thread thread_;
};

}  // namespace tilelab::worker
