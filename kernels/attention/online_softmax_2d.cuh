// Lesson 15, SPLIT = 1: the online softmax with the scores and the output both tiled in two
// dimensions, as lesson 05 tiles a matrix product. online_softmax.cuh splits a row's d columns
// among its TPR threads, so every score is a partial dot product added across the row with
// shuffles, and each float4 of K read from shared memory serves RPT multiply-adds per value. Here
// the TPR threads of a row split the keys instead: for each key tile
//   1. S = Q·K^T: a thread computes whole dot products for RPT rows × BC/TPR keys (rows BR/RPT
//      apart, keys TPR apart), reading q and k from shared memory a float4 at a time — an outer
//      product, RPT·BC/TPR·4 multiply-adds per RPT + BC/TPR float4 loads;
//   2. the row's tile maximum: each thread's maximum over its keys, then a butterfly over the
//      row's TPR lanes (log2(TPR) shuffles per row and tile, not per score); m' = max(m, tile max),
//      α = 2^(m − m'), p = 2^(s − m'), and p is written to shared memory (P, BR × BC);
//   3. O = α·O + P·V: a thread owns RPT rows × d/TPR columns of O (columns 4·(c + TPR·i) .. +3)
//      and reads p a float4 of keys at a time for each row, and v a float4 of columns.
// l, the running sum, stays a per-thread partial sum over the thread's own keys (rescaled by the
// same α as every lane of the row has the same m) and is added across the row once, at the end.
// Scores are scaled by log2(e)/√d after the dot product, so every exponential is one exp2f.
// Keys past N (and past the row with CAUSAL = 1) score −∞ and weigh 0; rows past N compute on
// zeros and store nothing; the causal block stops after the tile holding its last row's key.
// Copies: Q once, then per tile V while the scores are computed and the next tile's K while P·V
// is, each into its own buffer (for FP32 inputs with cp.async on sm_80+, nothing through
// registers; 16-bit inputs are widened on the way and stored as floats). Three barriers a tile.
// Shared memory (floats): Q BR×(D+4), K BC×(D+4), V BC×D, P BR×PS; the padding of 4 spreads the
// rows a warp reads at once over the banks (rows 4 banks apart), and PS ≡ TPR mod 32 puts the
// 32/TPR rows of P a warp writes at once on separate banks.
// Preconditions (the variant checks them): D = d, D a multiple of 4·TPR, BC a multiple of TPR
// and of 4, TPR a power of two ≤ 32, BR a multiple of RPT, BR/RPT·TPR a multiple of 32, ≤ 1024.
#pragma once
#include "online_softmax.cuh"
#include "matmul/async_copy.cuh"

// P's row stride in floats: at least BC, a multiple of 4 (float4 reads), ≡ max(TPR, 4) mod 32.
template <int BC, int TPR>
struct OnlineSoftmax2dLayout {
    static constexpr int kBank = TPR >= 4 ? TPR : 4;
    static constexpr int kPs = BC + ((kBank - BC % 32) % 32 + 32) % 32;
};

// Rows n0 .. n0+ROWS−1 of a head's D-column matrix into shared memory as floats, STRIDE floats a
// row, zeros past N; consecutive threads take consecutive chunks of 4 (coalesced). FP32 inputs go
// by 16-byte copies (cp.async where ASYNC), 16-bit ones are widened through registers.
template <int KIND, int D, int ROWS, int STRIDE, int THREADS, bool ASYNC>
__device__ __forceinline__ void online_softmax_2d_stage(const typename AttentionInput<KIND>::T* __restrict__ src,
                                                        float* dst, int n0, int N, unsigned& gl, unsigned& ss) {
    constexpr int kRowChunks = D / 4;
    for (int e = int(threadIdx.x); e < ROWS * kRowChunks; e += THREADS) {
        const int j = e / kRowChunks, ch = e % kRowChunks;
        const bool inside = n0 + j < N;
        const auto* from = src + (inside ? size_t(n0 + j) * D + 4 * ch : 0);
        float* to = dst + j * STRIDE + 4 * ch;
        if constexpr (KIND == 0) {
            tl_copy16<ASYNC>(to, from, inside);
        } else {
            *reinterpret_cast<float4*>(to) = inside ? AttentionInput<KIND>::load4(from) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
        gl += inside ? 4u : 0u;
        ss += 4u;
    }
}

template <int D, int BR, int BC, int TPR, int KIND, int CAUSAL = 0, int RPT = 1>
__global__ void __launch_bounds__(BR / RPT * TPR)
online_softmax_attention_2d(const typename AttentionInput<KIND>::T* __restrict__ Q,
                            const typename AttentionInput<KIND>::T* __restrict__ K,
                            const typename AttentionInput<KIND>::T* __restrict__ V, float* __restrict__ O, int N,
                            int d, int BH, unsigned long long* counters) {
    static_assert(TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR is a power of two up to 32");
    static_assert(D % (4 * TPR) == 0 && BC % TPR == 0 && BC % 4 == 0, "whole float4 chunks and keys per thread");
    static_assert(RPT >= 1 && BR % RPT == 0, "a thread's RPT rows split the block's BR rows evenly");
    static_assert((BR / RPT * TPR) % 32 == 0, "whole warps: the row's lanes share its maximum with shuffles");
    constexpr int kThreads = BR / RPT * TPR;
    constexpr int kGroups = BR / RPT;       // row groups: a thread's rows are kGroups apart
    constexpr int kKeys = BC / TPR;         // keys per thread, TPR apart
    constexpr int kChunks = D / (4 * TPR);  // float4 chunks of O's row per thread
    constexpr int kLog2Tpr = TPR >= 32 ? 5 : TPR >= 16 ? 4 : TPR >= 8 ? 3 : TPR >= 4 ? 2 : TPR >= 2 ? 1 : 0;
    constexpr int kQs = D + 4;              // Q and K row stride (floats)
    constexpr int kPs = OnlineSoftmax2dLayout<BC, TPR>::kPs;
    constexpr bool kAsync = KIND == 0;
    TL_COUNTER(counters);
    (void)d;
    (void)BH;
    extern __shared__ float4 attention_smem[];
    float* Qs = reinterpret_cast<float*>(attention_smem);   // [BR][D+4]
    float* Ks = Qs + BR * kQs;                              // [BC][D+4]
    float* Vs = Ks + BC * kQs;                              // [BC][D]
    float* Ps = Vs + BC * D;                                // [BR][PS]

    // A warp holds 32/TPR row groups of TPR lanes. Lane bit 0 picks the row group (where there are
    // two or more), the next log2(TPR) bits the lane in the row, the rest the other row groups:
    // lanes n and n^1 then read the same K and V (same keys and columns) and lanes n and n^2 the same
    // Q and P (same rows): the pairing under which, as NVIDIA's engineers describe the hardware, a
    // float4 shared load returns in two wavefronts instead of four (the return path carries 128
    // bytes a cycle; Nsight Compute's shared wavefronts per request tell).
    const int tid = int(threadIdx.x), lane = tid % 32;
    constexpr int kShift = TPR < 32 ? 1 : 0;   // where the lane-in-row bits start
    const int c = (lane >> kShift) & (TPR - 1);
    const int g = tid / 32 * (32 / TPR) + ((lane & kShift) | (lane >> (kShift + kLog2Tpr) << 1));
    const size_t head = size_t(blockIdx.y) * size_t(N) * D;
    const int row0 = int(blockIdx.x) * BR;
    unsigned gl = 0, ss = 0;   // copies, counted where they are issued

    online_softmax_2d_stage<KIND, D, BR, kQs, kThreads, kAsync>(Q + head, Qs, row0, N, gl, ss);
    online_softmax_2d_stage<KIND, D, BC, kQs, kThreads, kAsync>(K + head, Ks, 0, N, gl, ss);
    tl_commit<kAsync>();

    const float scale = 1.4426950408889634f * rsqrtf(float(D));   // log2(e)/√d
    float4 o[RPT][kChunks];
    float m[RPT], l[RPT];   // running maximum (log2 units, the same in every lane of the row); this lane's part of the sum
#pragma unroll
    for (int k = 0; k < RPT; ++k) {
#pragma unroll
        for (int i = 0; i < kChunks; ++i) o[k][i] = make_float4(0.f, 0.f, 0.f, 0.f);
        m[k] = __int_as_float(0xff800000);   // −∞
        l[k] = 0.f;
    }

    const int keys = CAUSAL ? min(N, row0 + BR) : N;   // the block's last key + 1
    for (int n0 = 0; n0 < keys; n0 += BC) {
        // V of this tile (its buffer is free: the previous tile's P·V ended with a barrier).
        online_softmax_2d_stage<KIND, D, BC, D, kThreads, kAsync>(V + head, Vs, n0, N, gl, ss);
        tl_commit<kAsync>();
        tl_wait<1, kAsync>();   // Q and this tile's K are in
        __syncthreads();

        // 1. S = Q·K^T for RPT rows × kKeys keys, an outer product a float4 of d at a time.
        float s[RPT][kKeys];
#pragma unroll
        for (int k = 0; k < RPT; ++k)
#pragma unroll
            for (int q = 0; q < kKeys; ++q) s[k][q] = 0.f;
#pragma unroll 2
        for (int x = 0; x < D; x += 4) {
            float4 kf[kKeys];
#pragma unroll
            for (int q = 0; q < kKeys; ++q) kf[q] = *reinterpret_cast<const float4*>(Ks + (c + TPR * q) * kQs + x);
#pragma unroll
            for (int k = 0; k < RPT; ++k) {
                const float4 qf = *reinterpret_cast<const float4*>(Qs + (g + kGroups * k) * kQs + x);
#pragma unroll
                for (int q = 0; q < kKeys; ++q) {
                    s[k][q] = fmaf(qf.x, kf[q].x, s[k][q]);
                    s[k][q] = fmaf(qf.y, kf[q].y, s[k][q]);
                    s[k][q] = fmaf(qf.z, kf[q].z, s[k][q]);
                    s[k][q] = fmaf(qf.w, kf[q].w, s[k][q]);
                }
            }
            TL_SLOAD(4 * (kKeys + RPT));
        }

        // 2. Each row's new maximum over the tile (this lane's keys, then across the row's lanes),
        // its weights p = 2^(s − m') into P, α = 2^(m − m') applied to the sum and the output.
#pragma unroll
        for (int k = 0; k < RPT; ++k) {
            const int row = row0 + g + kGroups * k;
            float top = __int_as_float(0xff800000);
#pragma unroll
            for (int q = 0; q < kKeys; ++q) {
                const int key = n0 + c + TPR * q;
                const bool seen = key < N && (CAUSAL == 0 || key <= row);
                s[k][q] = s[k][q] * scale + (seen ? 0.f : __int_as_float(0xff800000));
                top = fmaxf(top, s[k][q]);
            }
#pragma unroll
            for (int offset = TPR / 2; offset > 0; offset /= 2)
                top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, offset << kShift));
            const float m_new = fmaxf(m[k], top);   // finite: the first tile holds key 0, which every row sees
            const float alpha = exp2f(m[k] - m_new);
            l[k] *= alpha;
#pragma unroll
            for (int q = 0; q < kKeys; ++q) {
                const float p = exp2f(s[k][q] - m_new);
                l[k] += p;
                Ps[(g + kGroups * k) * kPs + c + TPR * q] = p;
            }
            TL_SSTORE(kKeys);
#pragma unroll
            for (int i = 0; i < kChunks; ++i)
                o[k][i] = make_float4(o[k][i].x * alpha, o[k][i].y * alpha, o[k][i].z * alpha, o[k][i].w * alpha);
            m[k] = m_new;
        }
        tl_wait<0, kAsync>();   // this tile's V is in
        __syncthreads();        // P and V are complete; nobody reads this tile's K any more
        if (n0 + BC < keys) {   // the next tile's K, while P·V runs
            online_softmax_2d_stage<KIND, D, BC, kQs, kThreads, kAsync>(K + head, Ks, n0 + BC, N, gl, ss);
            tl_commit<kAsync>();
        }

        // 3. O += P·V: four keys at a time, a float4 of p per row and a float4 of v per chunk.
#pragma unroll 2
        for (int j = 0; j < BC; j += 4) {
            float4 pf[RPT];
#pragma unroll
            for (int k = 0; k < RPT; ++k) pf[k] = *reinterpret_cast<const float4*>(Ps + (g + kGroups * k) * kPs + j);
#pragma unroll
            for (int jj = 0; jj < 4; ++jj) {
#pragma unroll
                for (int i = 0; i < kChunks; ++i) {
                    const float4 v4 = *reinterpret_cast<const float4*>(Vs + (j + jj) * D + 4 * (c + TPR * i));
#pragma unroll
                    for (int k = 0; k < RPT; ++k) {
                        const float p = jj == 0 ? pf[k].x : jj == 1 ? pf[k].y : jj == 2 ? pf[k].z : pf[k].w;
                        o[k][i].x = fmaf(p, v4.x, o[k][i].x);
                        o[k][i].y = fmaf(p, v4.y, o[k][i].y);
                        o[k][i].z = fmaf(p, v4.z, o[k][i].z);
                        o[k][i].w = fmaf(p, v4.w, o[k][i].w);
                    }
                }
            }
            TL_SLOAD(4 * RPT + 16 * kChunks);
        }
        __syncthreads();   // P and V are free for the next tile
    }
    tl_wait<0, kAsync>();
    TL_GLOAD(gl);
    TL_SSTORE(ss);
    (void)gl;
    (void)ss;

    // O = o / l, l added across the row's lanes first; written once.
#pragma unroll
    for (int k = 0; k < RPT; ++k) {
        float sum = l[k];
#pragma unroll
        for (int offset = TPR / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset << kShift);
        const int row = row0 + g + kGroups * k;
        if (row >= N) continue;
        const float inv = 1.f / sum;
#pragma unroll
        for (int i = 0; i < kChunks; ++i) {
            *reinterpret_cast<float4*>(O + head + size_t(row) * D + 4 * (c + TPR * i)) =
                make_float4(o[k][i].x * inv, o[k][i].y * inv, o[k][i].z * inv, o[k][i].w * inv);
            TL_GSTORE(4);
        }
    }
}
