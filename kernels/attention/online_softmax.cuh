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
// RPT rows per thread (register tiling): a thread keeps q, o, m, l and the scores of RPT rows,
// BR/RPT apart, and every float4 it reads from shared memory (a piece of a K or V row) serves all
// RPT of them: RPT times the multiply-adds per shared load. Each float4 load here takes four
// shared-memory wavefronts (one per quarter of the warp; measured on an H200), so at RPT = 1 the
// wavefronts, not the FP32 pipe, bound the kernel. Threads per block: BR/RPT·TPR.
// KIND: 0 = FP32, 1 = BF16, 2 = FP16 inputs, converted to floats as they are read; sums and O
// are FP32. Preconditions (the variant checks them): D = d, D a multiple of 4·TPR, TPR a power
// of two ≤ 32, BR a multiple of RPT, BR/RPT·TPR a multiple of 32 and ≤ 1024. Dynamic shared
// memory: 2·BC·D floats.
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

template <int D, int BR, int BC, int TPR, int KIND, int CAUSAL = 0, int RPT = 1>
__global__ void __launch_bounds__(BR / RPT * TPR)
online_softmax_attention(const typename AttentionInput<KIND>::T* __restrict__ Q,
                         const typename AttentionInput<KIND>::T* __restrict__ K,
                         const typename AttentionInput<KIND>::T* __restrict__ V, float* __restrict__ O, int N,
                         int d, int BH, unsigned long long* counters) {
    static_assert(TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR is a power of two up to 32");
    static_assert(D % (4 * TPR) == 0, "a row splits into whole chunks of 4 per thread");
    static_assert(RPT >= 1 && BR % RPT == 0, "a thread's RPT rows split the block's BR rows evenly");
    static_assert((BR / RPT * TPR) % 32 == 0, "whole warps: the row's lanes add their parts with shuffles");
    using In = AttentionInput<KIND>;
    constexpr int kThreads = BR / RPT * TPR;
    constexpr int kGroups = BR / RPT;        // row groups: a thread's rows are kGroups apart
    constexpr int kChunks = D / (4 * TPR);   // float4 chunks of a row per thread
    constexpr int kRowChunks = D / 4;        // float4 chunks of a row
    TL_COUNTER(counters);
    (void)d;
    (void)BH;
    extern __shared__ float4 attention_smem[];
    float4* Ks = attention_smem;                 // [BC][D/4]
    float4* Vs = attention_smem + BC * kRowChunks;  // [BC][D/4]

    const int tid = int(threadIdx.x);
    const int r = tid / TPR, c = tid % TPR;   // this thread's first row in the block, its lane in the row
    const size_t head = size_t(blockIdx.y) * size_t(N) * D;
    int row[RPT];                             // rows r, r + BR/RPT, ...: each k a warp's rows are consecutive
#pragma unroll
    for (int k = 0; k < RPT; ++k) row[k] = int(blockIdx.x) * BR + r + k * kGroups;   // past N: zeros, no store

    // q, pre-scaled by log2(e)/√d so that 2^(q·k) = e^(q·k/√d).
    const float scale = 1.4426950408889634f * rsqrtf(float(D));
    float4 q[RPT][kChunks], o[RPT][kChunks];
    float m[RPT], l[RPT];   // running maximum of the scores (log2 units), running sum of 2^(s − m)
#pragma unroll
    for (int k = 0; k < RPT; ++k) {
#pragma unroll
        for (int i = 0; i < kChunks; ++i) {
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (row[k] < N) {
                v = In::load4(Q + head + size_t(row[k]) * D + 4 * (c + TPR * i));
                TL_GLOAD(4);
            }
            q[k][i] = make_float4(v.x * scale, v.y * scale, v.z * scale, v.w * scale);
            o[k][i] = make_float4(0.f, 0.f, 0.f, 0.f);
        }
        m[k] = __int_as_float(0xff800000);   // −∞
        l[k] = 0.f;
    }

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
        // the row's TPR lanes (a butterfly: every lane ends with the whole sum). Each piece of K
        // read from shared memory serves all RPT rows of the thread.
        float s[RPT][BC], tile_max[RPT];
#pragma unroll
        for (int k = 0; k < RPT; ++k) tile_max[k] = __int_as_float(0xff800000);
#pragma unroll
        for (int j = 0; j < BC; ++j) {
            float part[RPT];
#pragma unroll
            for (int k = 0; k < RPT; ++k) part[k] = 0.f;
#pragma unroll
            for (int i = 0; i < kChunks; ++i) {
                const float4 k4 = Ks[j * kRowChunks + c + TPR * i];
#pragma unroll
                for (int k = 0; k < RPT; ++k) {
                    part[k] = fmaf(q[k][i].x, k4.x, part[k]);
                    part[k] = fmaf(q[k][i].y, k4.y, part[k]);
                    part[k] = fmaf(q[k][i].z, k4.z, part[k]);
                    part[k] = fmaf(q[k][i].w, k4.w, part[k]);
                }
            }
            TL_SLOAD(4 * kChunks);
#pragma unroll
            for (int k = 0; k < RPT; ++k) {
#pragma unroll
                for (int offset = TPR / 2; offset > 0; offset /= 2) part[k] += __shfl_xor_sync(0xffffffffu, part[k], offset);
                // A key past N or past the row scores −∞: added, not selected, so that the dot product
                // (and its shared loads) is always computed and the counts do not depend on the data.
                const bool seen = n0 + j < N && (CAUSAL == 0 || n0 + j <= row[k]);
                s[k][j] = part[k] + (seen ? 0.f : __int_as_float(0xff800000));
                tile_max[k] = fmaxf(tile_max[k], s[k][j]);
            }
        }

        // 2. Fold the tile into the running state. The first tile holds key 0, which every row
        // sees, so m_new is finite from then on; on the first tile m = −∞ and α = 0.
        float m_new[RPT];
        // EXERCISE-BEGIN: each row's new maximum, and its running sum l and output o rescaled to it (α = 2^(m − m_new))
#pragma unroll
        for (int k = 0; k < RPT; ++k) {
            m_new[k] = fmaxf(m[k], tile_max[k]);
            const float alpha = exp2f(m[k] - m_new[k]);
            l[k] *= alpha;
#pragma unroll
            for (int i = 0; i < kChunks; ++i)
                o[k][i] = make_float4(o[k][i].x * alpha, o[k][i].y * alpha, o[k][i].z * alpha, o[k][i].w * alpha);
        }
        // EXERCISE-END
        // EXERCISE-BEGIN: add each key's weight p = 2^(s_j − m_new) to l, and p·v_j to o (each piece of V serves every row)
#pragma unroll
        for (int j = 0; j < BC; ++j) {
            float p[RPT];
#pragma unroll
            for (int k = 0; k < RPT; ++k) {
                p[k] = exp2f(s[k][j] - m_new[k]);   // 0 for a key past N (or past the row)
                l[k] += p[k];
            }
#pragma unroll
            for (int i = 0; i < kChunks; ++i) {
                const float4 v4 = Vs[j * kRowChunks + c + TPR * i];
#pragma unroll
                for (int k = 0; k < RPT; ++k) {
                    o[k][i].x = fmaf(p[k], v4.x, o[k][i].x);
                    o[k][i].y = fmaf(p[k], v4.y, o[k][i].y);
                    o[k][i].z = fmaf(p[k], v4.z, o[k][i].z);
                    o[k][i].w = fmaf(p[k], v4.w, o[k][i].w);
                }
            }
            TL_SLOAD(4 * kChunks);
        }
#pragma unroll
        for (int k = 0; k < RPT; ++k) m[k] = m_new[k];
        // EXERCISE-END
    }

    // O = o / l, written once.
#pragma unroll
    for (int k = 0; k < RPT; ++k) {
        if (row[k] >= N) continue;
        const float inv = 1.f / l[k];
#pragma unroll
        for (int i = 0; i < kChunks; ++i) {
            *reinterpret_cast<float4*>(O + head + size_t(row[k]) * D + 4 * (c + TPR * i)) =
                make_float4(o[k][i].x * inv, o[k][i].y * inv, o[k][i].z * inv, o[k][i].w * inv);
            TL_GSTORE(4);
        }
    }
}
