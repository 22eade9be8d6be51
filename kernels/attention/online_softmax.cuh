// Lesson 15, attention with the online softmax (FlashAttention-1 style, on CUDA cores):
// O = softmax(Q·K^T/√d)·V for BH heads of N rows, in one kernel, without the N×N score matrix.
// A block owns BR query rows of one head; TPR threads share a row, each holding d/TPR of its q
// and of its output accumulator o in registers (in chunks of 4: columns 4·(c + TPR·i) .. +3 for
// lane c of the row). The block streams K and V through shared memory BC rows at a time; for
// each key tile every row
//   1. computes its BC scores s_j = q·k_j (each thread a partial dot product over its columns,
//      added across the row's TPR lanes with shuffles), the tile's maximum, and
//   2. folds the tile into its running state: m' = max(m, tile max), α = 2^(m − m'),
//      l = α·l + Σ 2^(s_j − m'), o = α·o + Σ 2^(s_j − m')·v_j, m = m'.
// After the last tile O = o / l is written once. q is pre-scaled by log2(e)/√d, so every
// exponential is one exp2f (2^(s·log2 e) = e^s). Keys past N score −∞ and weigh 0.
// CAUSAL 1: row i sees keys 0..i only. The block stops after the tile holding its last row's key
// (about half the tiles on average), and keys past a row score −∞ like keys past N. Key 0 is in
// the first tile, so every row's maximum is finite from the first tile on.
// KIND: 0 = FP32, 1 = BF16, 2 = FP16 inputs, converted to floats as they are read; sums and O
// are FP32. Preconditions (the variant checks them): D = d, D a multiple of 4·TPR, TPR a power
// of two ≤ 32, BR·TPR a multiple of 32 and ≤ 1024. Dynamic shared memory: 2·BC·D floats.
#pragma once
#include "common.cuh"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// Four consecutive inputs of type KIND as a float4 (16 bytes of FP32, 8 of BF16 or FP16). The
// 16-bit ones are widened by hand — a BF16 is a float's top half, an FP16 one cvt — exact either way.
__device__ __forceinline__ float attention_half_to_float(unsigned bits) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)bits));
    return f;
}

template <int KIND> struct AttentionInput;
template <> struct AttentionInput<0> {
    using T = float;
    static __device__ __forceinline__ float4 load4(const T* p) { return *reinterpret_cast<const float4*>(p); }
};
template <> struct AttentionInput<1> {
    using T = __nv_bfloat16;
    static __device__ __forceinline__ float4 load4(const T* p) {
        const uint2 raw = *reinterpret_cast<const uint2*>(p);
        return make_float4(__uint_as_float(raw.x << 16), __uint_as_float(raw.x & 0xFFFF0000u),
                           __uint_as_float(raw.y << 16), __uint_as_float(raw.y & 0xFFFF0000u));
    }
};
template <> struct AttentionInput<2> {
    using T = __half;
    static __device__ __forceinline__ float4 load4(const T* p) {
        const uint2 raw = *reinterpret_cast<const uint2*>(p);
        return make_float4(attention_half_to_float(raw.x & 0xFFFFu), attention_half_to_float(raw.x >> 16),
                           attention_half_to_float(raw.y & 0xFFFFu), attention_half_to_float(raw.y >> 16));
    }
};

template <int D, int BR, int BC, int TPR, int KIND, int CAUSAL = 0>
__global__ void __launch_bounds__(BR * TPR)
online_softmax_attention(const typename AttentionInput<KIND>::T* __restrict__ Q,
                         const typename AttentionInput<KIND>::T* __restrict__ K,
                         const typename AttentionInput<KIND>::T* __restrict__ V, float* __restrict__ O, int N,
                         int d, int BH, unsigned long long* counters) {
    static_assert(TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR is a power of two up to 32");
    static_assert(D % (4 * TPR) == 0, "a row splits into whole chunks of 4 per thread");
    static_assert((BR * TPR) % 32 == 0, "whole warps: the row's lanes add their parts with shuffles");
    using In = AttentionInput<KIND>;
    constexpr int kThreads = BR * TPR;
    constexpr int kChunks = D / (4 * TPR);   // float4 chunks of a row per thread
    constexpr int kRowChunks = D / 4;        // float4 chunks of a row
    TL_COUNTER(counters);
    (void)d;
    (void)BH;
    extern __shared__ float4 attention_smem[];
    float4* Ks = attention_smem;                 // [BC][D/4]
    float4* Vs = attention_smem + BC * kRowChunks;  // [BC][D/4]

    const int tid = int(threadIdx.x);
    const int r = tid / TPR, c = tid % TPR;   // this thread's row in the block, its lane in the row
    const int row = int(blockIdx.x) * BR + r;
    const size_t head = size_t(blockIdx.y) * size_t(N) * D;
    const bool live = row < N;                // rows past N compute on zeros and store nothing

    // q, pre-scaled by log2(e)/√d so that 2^(q·k) = e^(q·k/√d).
    const float scale = 1.4426950408889634f * rsqrtf(float(D));
    float4 q[kChunks], o[kChunks];
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (live) {
            v = In::load4(Q + head + size_t(row) * D + 4 * (c + TPR * i));
            TL_GLOAD(4);
        }
        q[i] = make_float4(v.x * scale, v.y * scale, v.z * scale, v.w * scale);
        o[i] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    float m = __int_as_float(0xff800000);   // running maximum of the scores (log2 units): −∞
    float l = 0.f;                          // running sum of 2^(s − m)

    const int keys = CAUSAL ? min(N, int(blockIdx.x) * BR + BR) : N;   // the block's last key + 1
    for (int n0 = 0; n0 < keys; n0 += BC) {
        __syncthreads();   // the previous tile's K and V are no longer read
        // K and V rows n0 .. n0+BC−1 into shared memory as floats, zeros past N: consecutive
        // threads take consecutive chunks of 4, so every warp reads whole rows (coalesced).
        for (int e = tid; e < BC * kRowChunks; e += kThreads) {
            const int j = e / kRowChunks, ch = e % kRowChunks;
            float4 kv = make_float4(0.f, 0.f, 0.f, 0.f), vv = kv;
            if (n0 + j < N) {
                const size_t at = head + size_t(n0 + j) * D + 4 * ch;
                kv = In::load4(K + at);
                vv = In::load4(V + at);
                TL_GLOAD(8);
            }
            Ks[e] = kv;
            Vs[e] = vv;
            TL_SSTORE(8);
        }
        __syncthreads();

        // 1. The tile's scores: a partial dot product over this thread's columns, added across
        // the row's TPR lanes (a butterfly: every lane ends with the whole sum).
        float s[BC];
        float tile_max = __int_as_float(0xff800000);
#pragma unroll
        for (int j = 0; j < BC; ++j) {
            float part = 0.f;
#pragma unroll
            for (int i = 0; i < kChunks; ++i) {
                const float4 k4 = Ks[j * kRowChunks + c + TPR * i];
                part = fmaf(q[i].x, k4.x, part);
                part = fmaf(q[i].y, k4.y, part);
                part = fmaf(q[i].z, k4.z, part);
                part = fmaf(q[i].w, k4.w, part);
            }
            TL_SLOAD(4 * kChunks);
#pragma unroll
            for (int offset = TPR / 2; offset > 0; offset /= 2) part += __shfl_xor_sync(0xffffffffu, part, offset);
            const bool seen = n0 + j < N && (CAUSAL == 0 || n0 + j <= row);
            s[j] = seen ? part : __int_as_float(0xff800000);
            tile_max = fmaxf(tile_max, s[j]);
        }

        // 2. Fold the tile into the running state. The first tile holds key 0, which every row
        // sees, so m_new is finite from then on; on the first tile m = −∞ and α = 0.
        // EXERCISE-BEGIN: the new maximum, and the running sum l and output o rescaled to it (α = 2^(m − m_new))
        const float m_new = fmaxf(m, tile_max);
        const float alpha = exp2f(m - m_new);
        l *= alpha;
#pragma unroll
        for (int i = 0; i < kChunks; ++i) o[i] = make_float4(o[i].x * alpha, o[i].y * alpha, o[i].z * alpha, o[i].w * alpha);
        // EXERCISE-END
        // EXERCISE-BEGIN: add each key's weight p = 2^(s_j − m_new) to l, and p·v_j to o
#pragma unroll
        for (int j = 0; j < BC; ++j) {
            const float p = exp2f(s[j] - m_new);   // 0 for a key past N (or past the row)
            l += p;
#pragma unroll
            for (int i = 0; i < kChunks; ++i) {
                const float4 v4 = Vs[j * kRowChunks + c + TPR * i];
                o[i].x = fmaf(p, v4.x, o[i].x);
                o[i].y = fmaf(p, v4.y, o[i].y);
                o[i].z = fmaf(p, v4.z, o[i].z);
                o[i].w = fmaf(p, v4.w, o[i].w);
            }
            TL_SLOAD(4 * kChunks);
        }
        m = m_new;
        // EXERCISE-END
    }

    // O = o / l, written once.
    if (live) {
        const float inv = 1.f / l;
#pragma unroll
        for (int i = 0; i < kChunks; ++i) {
            *reinterpret_cast<float4*>(O + head + size_t(row) * D + 4 * (c + TPR * i)) =
                make_float4(o[i].x * inv, o[i].y * inv, o[i].z * inv, o[i].w * inv);
            TL_GSTORE(4);
        }
    }
}
