// tilelab-gpu-worker: the child process in which the engine runs every kernel, so that a kernel
// fault loses only this process's CUDA context. Started by the engine (worker_client.cpp) with
//   tilelab-gpu-worker --channel-fd 3 --cancel-fd 4
// Not meant to be run by hand. Logs go to stderr; stdout is not used.
#include <sys/prctl.h>
#include <signal.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "gpu_worker/gpu_worker.h"

int main(int argc, char** argv) {
    int channel_fd = -1, cancel_fd = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--channel-fd") == 0) channel_fd = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--cancel-fd") == 0) cancel_fd = std::atoi(argv[i + 1]);
    }
    if (channel_fd < 0 || cancel_fd < 0) {
        std::fprintf(stderr, "usage: %s --channel-fd N --cancel-fd N (started by the TileLab engine, not by hand)\n", argv[0]);
        return 2;
    }
    // Go when the engine's process goes, even in the middle of a long measurement. (Had it gone
    // before this line, the closed channel ends the loop.)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    return tilelab::serve_gpu_worker(channel_fd, cancel_fd);
}
