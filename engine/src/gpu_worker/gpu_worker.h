// The GPU worker process's request loop (the tilelab-gpu-worker executable calls it). It owns
// the only CUDA context of a TileLab process tree: it probes the device, measures jobs, measures
// the ceilings and serves the testing hooks, one request at a time, until its channel closes or
// a fault loses the context (then it replies and exits; the engine starts a new worker).
#pragma once

namespace tilelab {

// `channel_fd`: requests in, replies out (framed CBOR, worker_protocol.h). `cancel_fd`: 4-byte
// ids of requests to cancel. Returns the process exit status.
int serve_gpu_worker(int channel_fd, int cancel_fd);

}  // namespace tilelab
