// A GPU worker elsewhere (GpuLocation): the launcher process (ssh, or `sh -c COMMAND`) with one
// socket as its stdin and stdout, the last lines of its stderr kept for messages, the worker's
// greeting read within the connect time-out, and every way this can fail said in one sentence.
// No CUDA here.
#pragma once
#include <sys/types.h>
#include <memory>
#include <string>
#include <vector>
#include "tilelab/device.h"
#include "protocol/worker_protocol.h"

namespace tilelab {

struct StderrTail;   // the launcher's stderr, read by a thread of its own

// The command line that reaches the worker: ssh's argv for a host, else sh -c COMMAND.
std::vector<std::string> launcher_argv(const GpuLocation& where);

class RemoteLink {
public:
    explicit RemoteLink(GpuLocation where) : where_(std::move(where)) {}
    ~RemoteLink();
    RemoteLink(const RemoteLink&) = delete;
    RemoteLink& operator=(const RemoteLink&) = delete;

    // Starts the launcher and reads the worker's greeting (within the connect time-out), checking
    // its protocol version. False with one sentence in `failure` (the launcher is stopped then).
    bool open(worker::json& hello, std::string& failure);
    int channel() const { return channel_; }
    // Closes the channel and reaps the launcher (killed after `grace_ms`); how it ended.
    std::string close(int grace_ms);
    // The launcher's exit status, when it has exited (non-blocking); -1 while it runs.
    int exit_status();
    // One sentence for a link that failed `what` ("closed before greeting", "lost in the middle
    // of a run"): the launcher's exit and the last lines of its stderr, read as ssh's, Slurm's or
    // a shell's messages.
    std::string explain(const std::string& what);

private:
    GpuLocation where_;
    pid_t pid_ = -1;
    int channel_ = -1;
    int status_ = -1;   // waitpid status once reaped
    bool reaped_ = false;
    std::shared_ptr<StderrTail> tail_;
};

// Reads a greeting (magic + frame) from `fd` within `timeout_ms`. "" or what went wrong.
std::string read_greeting(int fd, int timeout_ms, worker::json& hello);
// "" if `hello` is a greeting this engine can talk to, else why not.
std::string greeting_problem(const worker::json& hello, const std::string& where);
// What the client says when the worker exited with worker::kHungKernelExitStatus: a kernel held
// the GPU past the worker's limit and never returned. Both languages.
std::string never_returned_text();

}  // namespace tilelab
