// Shared by every kernel. Compiled by NVRTC only (never by the host compiler).
//
// Counting accesses: built with -DTILELAB_COUNT=1 a kernel tallies, per thread, the global and
// shared accesses it issues (in 4-byte elements) and adds them to counters[0..3] when the thread
// ends: 0 global loads, 1 global stores, 2 shared loads, 3 shared stores. Built without it, the
// macros vanish and the kernel is exactly the one that is timed.
#pragma once

#ifndef TILELAB_COUNT
#define TILELAB_COUNT 0
#endif

#if TILELAB_COUNT
struct TileLabAccessCounter {
    unsigned long long* sink;
    unsigned gl = 0, gs = 0, sl = 0, ss = 0;
    __device__ explicit TileLabAccessCounter(unsigned long long* s) : sink(s) {}
    __device__ ~TileLabAccessCounter() {
        if (!sink) return;
#if __CUDA_ARCH__ >= 800
        // Warp-aggregated: one atomic per warp and counter instead of one per thread.
        unsigned mask = __activemask();
        unsigned tgl = __reduce_add_sync(mask, gl), tgs = __reduce_add_sync(mask, gs);
        unsigned tsl = __reduce_add_sync(mask, sl), tss = __reduce_add_sync(mask, ss);
        if ((threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) % 32 ==
            unsigned(__ffs(mask) - 1)) {
            atomicAdd(sink + 0, (unsigned long long)tgl);
            atomicAdd(sink + 1, (unsigned long long)tgs);
            atomicAdd(sink + 2, (unsigned long long)tsl);
            atomicAdd(sink + 3, (unsigned long long)tss);
        }
#else
        atomicAdd(sink + 0, (unsigned long long)gl);
        atomicAdd(sink + 1, (unsigned long long)gs);
        atomicAdd(sink + 2, (unsigned long long)sl);
        atomicAdd(sink + 3, (unsigned long long)ss);
#endif
    }
};
#define TL_COUNTER(ptr) TileLabAccessCounter tl_counter_(ptr)
#define TL_GLOAD(n) (tl_counter_.gl += (unsigned)(n))
#define TL_GSTORE(n) (tl_counter_.gs += (unsigned)(n))
#define TL_SLOAD(n) (tl_counter_.sl += (unsigned)(n))
#define TL_SSTORE(n) (tl_counter_.ss += (unsigned)(n))
#else
#define TL_COUNTER(ptr) ((void)(ptr))
#define TL_GLOAD(n) ((void)0)
#define TL_GSTORE(n) ((void)0)
#define TL_SLOAD(n) ((void)0)
#define TL_SSTORE(n) ((void)0)
#endif
