// Lesson 17, latency hidden by warps or by independent instructions. Every thread advances eight
// values ("chains") by FMAS/8 fused multiply-adds each, x ← x·m + c: each FMA of a chain needs the
// previous one's result, so a chain issues one FMA per FMA latency (about four cycles). ILP sets how
// many chains a thread advances at once:
//   ILP = 1  one chain to the end, then the next: a warp has one FMA in flight, and only other
//            warps (occupancy) fill the cycles it waits;
//   ILP = 8  all eight interleaved: one warp keeps eight independent FMAs in flight.
// The FMAs, the loads and the stores are the same for every ILP: only their order changes.
// UNROLL is the unroll factor of the step loop (`#pragma unroll UNROLL`): the loop's counter,
// compare and branch are paid once per UNROLL·ILP FMAs — the Code panel shows the SASS.
// m (1.0, a kernel argument, so the compiler cannot fold it) and the integer-valued starts and
// increments keep every value an integer below 2^24: the result is exact, x0 + (FMAS/8)·c.
// Layout: chain j of thread t is element j·T + t of x0, inc and out (T threads in the grid), so
// the loads and stores of a warp are coalesced.
#pragma once
#include "common.cuh"

constexpr int kLatencyChains = 8;   // chains per thread, whatever the ILP

template <int ILP, int UNROLL>
__global__ void __launch_bounds__(1024)
fma_chains_latency(const float* __restrict__ x0, const float* __restrict__ inc, float* __restrict__ out, float m,
           int fmas, unsigned long long* counters) {
    static_assert(ILP == 1 || ILP == 2 || ILP == 4 || ILP == 8, "ILP divides the eight chains");
    TL_COUNTER(counters);
    const size_t threads = size_t(gridDim.x) * blockDim.x;
    const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int steps = fmas / kLatencyChains;   // FMAs per chain
    // One group of ILP chains after another; never unrolled, so that the compiler cannot overlap
    // one group's chains with the next group's.
#pragma unroll 1
    for (int g = 0; g < kLatencyChains; g += ILP) {
        float x[ILP], c[ILP];
        // EXERCISE-BEGIN: load the group's starts and increments (chain g + j of thread t is element (g + j)·T + t)
#pragma unroll
        for (int j = 0; j < ILP; ++j) {
            x[j] = x0[size_t(g + j) * threads + t];
            c[j] = inc[size_t(g + j) * threads + t];
        }
        // EXERCISE-END
        TL_GLOAD(2 * ILP);
        // EXERCISE-BEGIN: advance the group's ILP chains together, one FMA each per step
#pragma unroll UNROLL
        for (int s = 0; s < steps; ++s) {
#pragma unroll
            for (int j = 0; j < ILP; ++j) x[j] = fmaf(x[j], m, c[j]);
        }
        // EXERCISE-END
#pragma unroll
        for (int j = 0; j < ILP; ++j) out[size_t(g + j) * threads + t] = x[j];
        TL_GSTORE(ILP);
    }
}
