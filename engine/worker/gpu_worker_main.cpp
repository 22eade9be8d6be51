// tilelab-gpu-worker: the child process in which the engine runs every kernel, so that a kernel
// fault loses only this process's CUDA context. Started by the engine (worker_client.cpp) with
//   tilelab-gpu-worker --channel-fd 3 --cancel-fd 4
// or, on a shared GPU machine, through a launcher (ssh, srun, docker exec -i) with
//   tilelab-gpu-worker --stdio
// which speaks the same protocol over stdin and stdout (worker_protocol.h). Logs go to stderr;
// in --stdio mode stdout is taken for the protocol before anything can print to it.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include "gpu_worker/gpu_worker.h"
#include "protocol/worker_protocol.h"

namespace {

constexpr const char* kUsage =
    "usage: %s --stdio [--gpu-device N]         (the worker protocol on stdin/stdout, for ssh/srun/docker)\n"
    "       %s --channel-fd N --cancel-fd N [--compile-only]   (started by the TileLab engine, not by hand)\n"
    "       %s --version\n"
    "--gpu-device N: use CUDA device N of this host (default 0)\n";

// A device index as typed: digits only, small. -1 if it is not one.
int parse_device(const char* text) {
    if (!*text || std::strlen(text) > 4) return -1;
    for (const char* c = text; *c; ++c)
        if (*c < '0' || *c > '9') return -1;
    return std::atoi(text);
}

// Keeps the protocol's two ends for the worker and points fds 0 and 1 elsewhere: nothing the
// CUDA libraries (or anything else) print to stdout can land inside a frame.
bool take_stdio(int& in_fd, int& out_fd) {
    in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
    out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in_fd < 0 || out_fd < 0 || null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(2, 1) < 0) {
        std::perror("tilelab-gpu-worker: setting up stdin/stdout");
        return false;
    }
    ::close(null_fd);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    int channel_fd = -1, cancel_fd = -1, device = 0;
    bool stdio = false, compile_only = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--stdio") == 0) stdio = true;
        else if (std::strcmp(argv[i], "--compile-only") == 0) compile_only = true;
        else if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("tilelab-gpu-worker protocol %d\n", tilelab::worker::kProtocolVersion);
            return 0;
        } else if (i + 1 < argc && std::strcmp(argv[i], "--channel-fd") == 0) channel_fd = std::atoi(argv[++i]);
        else if (i + 1 < argc && std::strcmp(argv[i], "--cancel-fd") == 0) cancel_fd = std::atoi(argv[++i]);
        else if (i + 1 < argc && std::strcmp(argv[i], "--gpu-device") == 0) {
            device = parse_device(argv[++i]);
            if (device < 0) {
                std::fprintf(stderr, "tilelab-gpu-worker: --gpu-device wants a device number (0, 1, ...), not '%s'\n", argv[i]);
                return 2;
            }
        }
        else {
            std::fprintf(stderr, "tilelab-gpu-worker: unknown argument '%s'\n", argv[i]);
            std::fprintf(stderr, kUsage, argv[0], argv[0], argv[0]);
            return 2;
        }
    }
    if (stdio) {
        // A closed stream, not SIGPIPE, tells the worker that its peer has gone.
        signal(SIGPIPE, SIG_IGN);
        int in_fd = -1, out_fd = -1;
        if (!take_stdio(in_fd, out_fd)) return 1;
        return tilelab::serve_gpu_worker(in_fd, out_fd, -1, device);
    }
    if (channel_fd < 0 || cancel_fd < 0) {
        std::fprintf(stderr, kUsage, argv[0], argv[0], argv[0]);
        return 2;
    }
    // Go when the engine's process goes, even in the middle of a long measurement. Not with
    // PR_SET_PDEATHSIG: that fires when the *thread* that started us ends, and a GPU pool starts
    // its workers from short-lived threads (tilelab/gpu_pool.h). A dead parent shows as a new
    // one (we are re-parented). (Had it gone before this line, the closed channel ends the loop.)
    const pid_t parent = getppid();
    std::thread([parent] {
        for (;;) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (getppid() != parent) _exit(1);
        }
    }).detach();
    return tilelab::serve_gpu_worker(channel_fd, channel_fd, cancel_fd, device, compile_only);
}
