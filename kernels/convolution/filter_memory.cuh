// A 2-D convolution with zero padding, out(x, y) = Σ w_f(dy, dx) · in(x + dx, y + dy) over the
// (2R+1)² taps, where output (x, y) uses filter f of a bank of F (filter_bank.cuh): f = y mod F
// (INDEX uniform: every lane of a warp on one row reads the same tap at the same time) or
// f = x mod F (per lane: neighbouring lanes read different filters). What the lesson varies is
// where the filter lives (WHERE):
//   0 immediates: F = 1, its values compiled into the FMAs (no load at all);
//   1 __constant__ conv_filter: one address for the whole warp is one request to the constant
//     cache; k different addresses are k requests, one after the other;
//   2 global memory through the read-only path: any addresses, one coalesced request per line;
//   3 shared memory: the block copies the bank in first; different words in different banks
//     are served together.
// The input goes through a shared tile of (BX + 2R) × (BY + 2R) cells (the block's outputs and
// their halo, zeros outside the image), so every variant reads the image the same way and the
// filter's reads are what differs. Every thread of a BX × BY block writes one output.
#pragma once
#include "common.cuh"
#include "convolution/filter_bank.cuh"

// The bank in constant memory, tap-major ([t·F + f]); the host fills its first F·(2R+1)² words
// through cudaLibraryGetGlobal(..., "conv_filter").
__constant__ float conv_filter[TL_CONV_MAX_FILTERS * TL_CONV_MAX_TAPS];

// Tap k of filter f, from wherever WHERE says the filter lives.
template <int WHERE, int F, int T>
__device__ __forceinline__ float conv_weight(const float* __restrict__ bank, const float* shared_bank, int f, int k) {
    if constexpr (WHERE == 0) return conv_filter_weight(0, k);   // k is a constant after unrolling
    else if constexpr (WHERE == 1) return conv_filter[k * F + f];
    else if constexpr (WHERE == 2) return __ldg(bank + k * F + f);
    else return shared_bank[k * F + f];
}

template <int WHERE, int R, int F, bool PER_LANE, int BX, int BY>
__global__ void __launch_bounds__(BX * BY)
filter_memory_convolution(const float* __restrict__ in, const float* __restrict__ bank, float* __restrict__ out,
                          int w, int h, unsigned long long* counters) {
    constexpr int D = 2 * R + 1, T = D * D, TW = BX + 2 * R, TH = BY + 2 * R;
    static_assert(WHERE >= 0 && WHERE <= 3, "the filter lives in immediates, constant, global or shared memory");
    static_assert(WHERE != 0 || F == 1, "compiled-in values are one filter");
    static_assert(R >= 1 && R <= TL_CONV_MAX_RADIUS && F >= 1 && F <= TL_CONV_MAX_FILTERS, "the bank's limits");
    // The tile, row-major (TH rows of TW), then, when the filter lives there, the bank.
    __shared__ float smem[TH * TW + (WHERE == 3 ? F * T : 0)];
    float* tile = smem;
    float* shared_bank = smem + TH * TW;
    TL_COUNTER(counters);
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * BX + tx;
    const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;

    // The input tile and its halo; cells outside the image are the zero padding.
    for (int i = t; i < TW * TH; i += BX * BY) {
        const int sx = i % TW, sy = i / TW, gx = x0 - R + sx, gy = y0 - R + sy;
        float v = 0.0f;
        if (gx >= 0 && gx < w && gy >= 0 && gy < h) {
            v = in[size_t(gy) * w + gx];
            TL_GLOAD(1);
        }
        tile[i] = v;
        TL_SSTORE(1);
    }
    if constexpr (WHERE == 3) {
        // EXERCISE-BEGIN: the block copies the bank's F·T words from global into shared_bank
        for (int i = t; i < F * T; i += BX * BY) {
            shared_bank[i] = bank[i];
            TL_GLOAD(1);
            TL_SSTORE(1);
        }
        // EXERCISE-END
    }
    __syncthreads();

    const int x = x0 + tx, y = y0 + ty;
    if (x >= w || y >= h) return;
    const int f = (PER_LANE ? x : y) % F;   // 0 at compile time when F = 1
    float sum = 0.0f;
    // EXERCISE-BEGIN: sum over the T taps k (row k / D, column k % D of the window) of tile · conv_weight
#pragma unroll
    for (int k = 0; k < T; ++k)
        sum += tile[(ty + k / D) * TW + tx + k % D] * conv_weight<WHERE, F, T>(bank, shared_bank, f, k);
    TL_SLOAD(T);
    if (WHERE == 2) TL_GLOAD(T);
    if (WHERE == 3) TL_SLOAD(T);
    // EXERCISE-END
    out[size_t(y) * w + x] = sum;
    TL_GSTORE(1);
}
