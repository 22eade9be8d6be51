// The GPU worker's inbox, outbox and notes (worker_stream.h).
#include "gpu_worker/worker_stream.h"
#include <unistd.h>
#include <cstdio>
#include <fmt/format.h>

namespace tilelab::worker {
namespace {
using Clock = std::chrono::steady_clock;
constexpr auto kTick = std::chrono::milliseconds(100);
constexpr int kClientSilenceMs = 60000;

// A cancel note on the stream: {"cancel": id} and nothing else.
bool is_cancel_note(const json& m, uint32_t& id) {
    if (!m.is_object() || m.size() != 1 || !m.contains("cancel")) return false;
    const json& v = m.at("cancel");
    if (!v.is_number_unsigned() || v.get<uint64_t>() > UINT32_MAX) return false;
    id = v.get<uint32_t>();
    return true;
}
}  // namespace

bool Outbox::send(const json& message, std::string& error) {
    std::lock_guard lock(mutex_);
    return write_frame(fd_, message, error);
}

bool Outbox::send_greeting(const json& hello, std::string& error) {
    std::lock_guard lock(mutex_);
    return write_bytes(fd_, kGreetingMagic, sizeof kGreetingMagic, error) && write_frame(fd_, hello, error);
}

Inbox::Inbox(int fd, uint32_t max_bytes, void (*on_cancel)(uint32_t))
    : fd_(fd), max_bytes_(max_bytes), on_cancel_(on_cancel), reader_([this] { read_loop(); }) {}

Inbox::~Inbox() {
    // The reader may be blocked in read(): it is left to end with the process.
    if (reader_.joinable()) reader_.detach();
}

void Inbox::read_loop() {
    for (;;) {
        json message;
        std::string error;
        // A client that stops in the middle of a frame for a minute is gone; waiting for the
        // next frame to begin is idling, not silence.
        const ReadStatus got = read_frame(fd_, message, error, FrameReading{max_bytes_, kClientSilenceMs, Peer::client});
        uint32_t id = 0;
        if (got == ReadStatus::message && is_cancel_note(message, id)) {
            on_cancel_(id);
            continue;
        }
        std::lock_guard lock(mutex_);
        if (got != ReadStatus::message) {
            ended_ = true;
            end_reason_ = got == ReadStatus::error ? error : "";
            ready_.notify_all();
            return;
        }
        queue_.push_back(std::move(message));
        ready_.notify_all();
    }
}

bool Inbox::next(json& request, std::string& why) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || ended_; });
    if (queue_.empty()) {
        why = end_reason_;
        return false;
    }
    request = std::move(queue_.front());
    queue_.pop_front();
    return true;
}

Notes::Notes(Outbox& out, double hold_limit_s, CancelFlag& cancel)
    : out_(out), hold_limit_s_(hold_limit_s), cancel_(cancel), thread_([this] { loop(); }) {}

Notes::~Notes() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void Notes::begin(uint32_t id) {
    std::lock_guard lock(mutex_);
    busy_ = true;
    held_ = overran_ = false;
    id_ = id;
    note_ = "working";
    last_note_ = Clock::now();
}

void Notes::say(const std::string& note) {
    std::lock_guard lock(mutex_);
    const bool changed = note != note_;
    note_ = note;
    if (changed) last_note_ = Clock::now() - std::chrono::milliseconds(kNoteIntervalMs);   // say it now
    wake_.notify_all();
}

void Notes::holding(bool now) {
    std::lock_guard lock(mutex_);
    held_ = now;
    if (now) {
        held_since_ = Clock::now();
        note_ = "running on the GPU";
    }
}

bool Notes::overran() const {
    std::lock_guard lock(mutex_);
    return overran_;
}

void Notes::end() {
    std::lock_guard lock(mutex_);
    busy_ = held_ = false;
}

void Notes::loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, kTick);
        if (!busy_) continue;
        const auto now = Clock::now();
        if (held_ && hold_limit_s_ > 0) {
            const double held_s = std::chrono::duration<double>(now - held_since_).count();
            if (held_s > hold_limit_s_ && !overran_) {
                overran_ = true;
                cancel_ = true;   // the runner stops at its next repetition
            }
            if (held_s > hold_limit_s_ + kHungGraceS) {
                std::fprintf(stderr, "tilelab-gpu-worker: a run held the GPU %.0f s and did not stop when asked; exiting so that the GPU is free\n", held_s);
                std::fflush(stderr);
                _exit(kHungKernelExitStatus);   // the driver ends the kernel with the context, and the flock goes with the process
            }
        }
        if (now - last_note_ >= std::chrono::milliseconds(kNoteIntervalMs)) {
            last_note_ = now;
            const json note = {{"note", note_}, {"id", id_}};
            std::string error;
            lock.unlock();
            (void)out_.send(note, error);   // a broken stream shows on the inbox
            lock.lock();
        }
    }
}

}  // namespace tilelab::worker
