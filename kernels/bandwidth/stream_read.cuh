// Lesson 18, bytes in flight: a read of n floats, as fast as DRAM gives them. A load's data arrives
// hundreds of cycles after it issues; to keep the memory system busy, an SM must have enough BYTES
// in flight, and it gets them from warps (occupancy), from independent loads per thread (ILP) or
// from wider loads (VEC floats each):
//   bytes in flight per SM = threads per SM · ILP · VEC · 4
// Each pass of the loop issues ILP independent loads of VEC floats (load j of thread t reads vector
// base + j·T, T threads in the grid: a warp's loads are coalesced), then uses them. The pass loop is
// never unrolled, so the next pass's loads cannot start before this pass's data arrives.
// What it computes: the sum of the inputs' bit patterns as 64-bit integers, exact in any order, one
// atomic add per warp into *sum (which starts at 0). Precondition: n ≥ 0; any n (a tail of
// n mod VEC floats is read by thread 0).
#pragma once
#include "common.cuh"

template <int VEC> struct StreamVector;
template <> struct StreamVector<1> { using type = float; };
template <> struct StreamVector<2> { using type = float2; };
template <> struct StreamVector<4> { using type = float4; };

// The bit patterns of a vector's floats, added as integers.
__device__ __forceinline__ unsigned long long stream_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned long long stream_bits(float2 v) { return stream_bits(v.x) + stream_bits(v.y); }
__device__ __forceinline__ unsigned long long stream_bits(float4 v) {
    return stream_bits(v.x) + stream_bits(v.y) + stream_bits(v.z) + stream_bits(v.w);
}

template <int VEC, int ILP>
__global__ void __launch_bounds__(1024)
stream_read_bandwidth(const float* __restrict__ in, unsigned long long* __restrict__ sum, long long n,
            unsigned long long* counters) {
    static_assert(VEC == 1 || VEC == 2 || VEC == 4, "VEC is 1, 2 or 4 floats");
    using Vec = typename StreamVector<VEC>::type;
    TL_COUNTER(counters);
    const long long threads = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long vectors = n / VEC;
    const Vec* v = reinterpret_cast<const Vec*>(in);
    unsigned long long acc = 0;
#pragma unroll 1
    for (long long base = t; base < vectors; base += threads * ILP) {
        Vec got[ILP];
        // EXERCISE-BEGIN: issue the pass's ILP loads before using any of them
#pragma unroll
        for (int j = 0; j < ILP; ++j) {
            const long long i = base + j * threads;
            if (i < vectors) {
                got[j] = v[i];
                TL_GLOAD(VEC);
            } else {
                got[j] = Vec{};
            }
        }
        // EXERCISE-END
#pragma unroll
        for (int j = 0; j < ILP; ++j) acc += stream_bits(got[j]);
    }
    if (t == 0) {   // the tail: n mod VEC floats
        for (long long i = vectors * VEC; i < n; ++i) {
            acc += stream_bits(in[i]);
            TL_GLOAD(1);
        }
    }
    // EXERCISE-BEGIN: add the lanes' sums down to lane 0, which adds the warp's to *sum with one atomic
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(sum, acc);
        TL_GSTORE(2);
    }
    // EXERCISE-END
}
