// The GPU worker process's request loop (the tilelab-gpu-worker executable calls it). It owns
// the only CUDA context of a TileLab process tree: it probes the device, measures jobs, measures
// the ceilings and serves the testing hooks, one request at a time, until its channel closes or
// a fault loses the context (then it replies and exits; the engine starts a new worker).
#pragma once

namespace tilelab {

// Requests come in on `in_fd` and replies go out on `out_fd` (framed CBOR, worker_protocol.h).
// `cancel_fd` >= 0: the engine's socket pair, cancel notes as 4-byte ids on their own socket.
// `cancel_fd` < 0: one byte stream (--stdio): the worker greets first, cancel notes come in-band.
// `device`: the CUDA device index it uses (cudaSetDevice; its UUID keys the GPU's lock); one past
// the last makes an unusable worker that says so in its greeting and to every request.
// `compile_only`: never touches CUDA (no device probe, no context); answers "compile" requests
// only: the engine compiles users' kernels in such a worker, under a deadline (compiler.h).
// Returns the process exit status.
int serve_gpu_worker(int in_fd, int out_fd, int cancel_fd, int device = 0, bool compile_only = false);

}  // namespace tilelab
