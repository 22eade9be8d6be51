// Lesson 14, attention the plain way: O = softmax(Q·K^T/√d)·V for BH heads of N rows in three
// kernels, each launched over the whole problem before the next starts, with the N×N matrices in
// global memory between them:
//   1. plain_attention_scores   S = Q·K^T/√d        (an N×N matrix of floats per head)
//   2. plain_attention          P = softmax(S) by rows (N×N in the input type), the lesson's kernel
//   3. plain_attention_weigh    O = P·V              (N×d floats)
// Kernels 1 and 3 are one tiled matrix product (64×64 outputs a block of 256 threads, 4×4 a
// thread, 16-deep slices of both operands staged in shared memory as floats, padded against bank
// conflicts). Kernel 2 gives a row to a warp and walks it SOFTMAX's way:
//   0 naive: the sum of e^s, then e^s / sum — the exponentials in the input type, as a kernel that
//     computes in FP16 would: e^s overflows FP16 for s > 11.09 and the row becomes inf / inf = NaN;
//   1 safe, three passes over S: the maximum m, the sum l of e^(s−m), then e^(s−m) / l;
//   2 online, two passes: m and l together in one (l rescaled by e^(m_old − m_new) whenever the
//     maximum grows; lesson 15 does this per key tile), then e^(s−m) / l.
// CAUSAL 1: row i weighs keys 0..i; its other weights are written as 0 (the products of kernels 1
// and 3 still cover the whole matrix, as an unfused library path does).
// KIND: 0 = FP32, 1 = BF16, 2 = FP16 inputs Q, K, V and weights P; sums, S and O are FP32. Every
// kernel takes the family's plain-path arguments (Q, K, V, O, S, P, N, d, BH, counters).
#pragma once
#include "common.cuh"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// The input type's conversions, by hand so that the CPU run's PTX parser reads them too: a BF16
// is a float's top half (widening is a shift), FP16 one cvt; narrowing rounds to nearest even
// (cvt.rn), so FP16 overflows to infinity past 65504.
template <int KIND> struct PlainType;
template <> struct PlainType<0> {
    using T = float;
    static __device__ __forceinline__ float load(const T* p) { return *p; }
    static __device__ __forceinline__ T from(float x) { return x; }
};
template <> struct PlainType<1> {
    using T = __nv_bfloat16;
    static __device__ __forceinline__ float load(const T* p) {
        return __uint_as_float(unsigned(*reinterpret_cast<const unsigned short*>(p)) << 16);
    }
    static __device__ __forceinline__ T from(float x) {
        unsigned short h;
        asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
        return *reinterpret_cast<T*>(&h);
    }
};
template <> struct PlainType<2> {
    using T = __half;
    static __device__ __forceinline__ float load(const T* p) {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(*reinterpret_cast<const unsigned short*>(p)));
        return f;
    }
    static __device__ __forceinline__ T from(float x) {
        unsigned short h;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
        return *reinterpret_cast<T*>(&h);
    }
};

// The tiled product of kernels 1 and 3: C (rows × cols) = A (rows × depth) · B, where B is read
// as cols × depth rows (B_T = 1, C = A·Bᵀ: the scores) or depth × cols (B_T = 0: the weights
// times V). Elements past an edge are staged as zeros and not loaded.
constexpr int kPlainTile = 64, kPlainDepth = 16, kPlainThreads = 256;

template <int KIND, int B_T>
__device__ __forceinline__ void plain_tile_product(float (&acc)[4][4], const typename PlainType<KIND>::T* A,
                                                   const typename PlainType<KIND>::T* B, int rows, int cols, int depth, int lda,
                                                   int ldb, unsigned long long* counters) {
    using In = PlainType<KIND>;
    TL_COUNTER(counters);
    // One float of padding a row: A's slice is stored transposed (16 consecutive k of a row go to
    // 16 rows of As), and with 64 floats a row those 16 stores would share two banks.
    __shared__ float As[kPlainDepth][kPlainTile + 1];
    __shared__ float Bs[kPlainDepth][kPlainTile + 1];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * kPlainTile, col0 = blockIdx.x * kPlainTile;
    for (int k0 = 0; k0 < depth; k0 += kPlainDepth) {
        for (int e = threadIdx.x; e < kPlainTile * kPlainDepth; e += kPlainThreads) {
            const int r = e / kPlainDepth, k = e % kPlainDepth;   // A: 16 consecutive k of a row
            const bool in = row0 + r < rows && k0 + k < depth;
            As[k][r] = in ? In::load(A + size_t(row0 + r) * lda + k0 + k) : 0.0f;
            if (in) TL_GLOAD(1);
            TL_SSTORE(1);
            if (B_T) {   // B's rows are C's columns: 16 consecutive k of a row
                const bool in_b = col0 + r < cols && k0 + k < depth;
                Bs[k][r] = in_b ? In::load(B + size_t(col0 + r) * ldb + k0 + k) : 0.0f;
                if (in_b) TL_GLOAD(1);
            } else {     // B's rows are the depth: 64 consecutive columns of a row
                const int kb = e / kPlainTile, c = e % kPlainTile;
                const bool in_b = k0 + kb < depth && col0 + c < cols;
                Bs[kb][c] = in_b ? In::load(B + size_t(k0 + kb) * ldb + col0 + c) : 0.0f;
                if (in_b) TL_GLOAD(1);
            }
            TL_SSTORE(1);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kPlainDepth; ++k) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[k][ty + 16 * i], b[i] = Bs[k][tx + 16 * i];
            TL_SLOAD(8);
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
}

// The block's 64×64 tile of C (rows × cols, row pitch ldc) from its threads' 4×4 sums times
// `scale`: thread (tx, ty) holds rows ty + 16·i and columns tx + 16·j; those past an edge are not stored.
__device__ __forceinline__ void plain_store_tile(const float (&acc)[4][4], float* C, int rows, int cols, int ldc, float scale,
                                                 unsigned long long* counters) {
    TL_COUNTER(counters);
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            const int r = blockIdx.y * kPlainTile + ty + 16 * i, c = blockIdx.x * kPlainTile + tx + 16 * j;
            if (r < rows && c < cols) {
                C[size_t(r) * ldc + c] = acc[i][j] * scale;
                TL_GSTORE(1);
            }
        }
}

// 1. S = Q·K^T/√d, a 64×64 tile of one head's N×N scores per block (grid ⌈N/64⌉ × ⌈N/64⌉ × BH).
template <int KIND>
__global__ void __launch_bounds__(kPlainThreads)
plain_attention_scores(const typename PlainType<KIND>::T* __restrict__ Q, const typename PlainType<KIND>::T* __restrict__ K,
                       const typename PlainType<KIND>::T* __restrict__ V, float* __restrict__ O, float* __restrict__ S,
                       typename PlainType<KIND>::T* __restrict__ P, int N, int d, int BH, unsigned long long* counters) {
    (void)V, (void)O, (void)P, (void)BH;
    const size_t head = blockIdx.z;
    float acc[4][4] = {};
    plain_tile_product<KIND, 1>(acc, Q + head * N * d, K + head * N * d, N, N, d, d, d, counters);
    plain_store_tile(acc, S + head * N * N, N, N, N, 1.0f / sqrtf(float(d)), counters);
}

// 3. O = P·V, a 64×64 tile of one head's N×d output per block (grid ⌈d/64⌉ × ⌈N/64⌉ × BH).
template <int KIND>
__global__ void __launch_bounds__(kPlainThreads)
plain_attention_weigh(const typename PlainType<KIND>::T* __restrict__ Q, const typename PlainType<KIND>::T* __restrict__ K,
                      const typename PlainType<KIND>::T* __restrict__ V, float* __restrict__ O, float* __restrict__ S,
                      typename PlainType<KIND>::T* __restrict__ P, int N, int d, int BH, unsigned long long* counters) {
    (void)Q, (void)K, (void)S, (void)BH;
    const size_t head = blockIdx.z;
    float acc[4][4] = {};
    plain_tile_product<KIND, 0>(acc, P + head * N * N, V + head * N * d, N, d, N, N, d, counters);
    plain_store_tile(acc, O + head * N * d, N, d, d, 1.0f, counters);
}

// A warp's maximum and sum, every lane getting them.
__device__ __forceinline__ float plain_warp_max(float x) {
    for (int o = 16; o > 0; o /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}
__device__ __forceinline__ float plain_warp_sum(float x) {
    for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

constexpr int kPlainRowsPerBlock = 4;   // a warp a row

// x rounded to the input type and back: what a value computed in that type holds.
template <int KIND>
__device__ __forceinline__ float plain_rounded(float x) {
    const typename PlainType<KIND>::T t = PlainType<KIND>::from(x);
    return PlainType<KIND>::load(&t);
}

// 2. P = softmax(S) row by row, SOFTMAX's way (the file's header); grid ⌈N/4⌉ × BH blocks of 4 warps.
template <int KIND, int SOFTMAX, int CAUSAL = 0>
__global__ void __launch_bounds__(32 * kPlainRowsPerBlock)
plain_attention(const typename PlainType<KIND>::T* __restrict__ Q, const typename PlainType<KIND>::T* __restrict__ K,
                const typename PlainType<KIND>::T* __restrict__ V, float* __restrict__ O, float* __restrict__ S,
                typename PlainType<KIND>::T* __restrict__ P, int N, int d, int BH, unsigned long long* counters) {
    static_assert(SOFTMAX >= 0 && SOFTMAX <= 2, "0 naive, 1 safe, 2 online");
    using In = PlainType<KIND>;
    (void)Q, (void)K, (void)V, (void)O, (void)d, (void)BH;
    TL_COUNTER(counters);
    const int i = blockIdx.x * kPlainRowsPerBlock + threadIdx.x / 32;   // the row within its head
    if (i >= N) return;
    const size_t row = size_t(blockIdx.y) * N + i;
    const int lane = threadIdx.x % 32;
    const int keys = CAUSAL ? i + 1 : N;
    const float* s = S + row * N;
    typename In::T* p = P + row * N;
    float m = 0.0f, l = 0.0f;
    if (SOFTMAX == 0) {   // e^s in the input type: FP16 holds at most 65504 = e^11.09
        for (int j = lane; j < keys; j += 32) l += plain_rounded<KIND>(__expf(s[j]));
        TL_GLOAD((keys - lane + 31) / 32);
        l = plain_warp_sum(l);
    } else if (SOFTMAX == 1) {   // three passes: the maximum, the sum, the weights
        m = __int_as_float(0xff800000u);   // −∞
        // EXERCISE-BEGIN: pass 1, the row's maximum m: each lane over its scores s[j] (j = lane, lane + 32, ... < keys), then plain_warp_max
        for (int j = lane; j < keys; j += 32) m = fmaxf(m, s[j]);
        m = plain_warp_max(m);
        // EXERCISE-END
        // EXERCISE-BEGIN: pass 2, the sum l of e^(s[j] − m) over the same scores, then plain_warp_sum
        for (int j = lane; j < keys; j += 32) l += __expf(s[j] - m);
        l = plain_warp_sum(l);
        // EXERCISE-END
        TL_GLOAD(2 * ((keys - lane + 31) / 32));
    } else {   // online: the maximum and the sum in one pass, the sum rescaled as the maximum grows
        m = __int_as_float(0xff800000u);   // −∞
        for (int j = lane; j < keys; j += 32) {
            const float x = s[j], m_new = fmaxf(m, x);
            l = l * __expf(m - m_new) + __expf(x - m_new);
            m = m_new;
        }
        TL_GLOAD((keys - lane + 31) / 32);
        const float top = plain_warp_max(m);
        l = plain_warp_sum(isinf(m) ? 0.0f : l * __expf(m - top));   // a lane with no key holds nothing
        m = top;
    }
    for (int j = lane; j < N; j += 32) {
        float w = 0.0f;
        if (j < keys) {
            w = SOFTMAX == 0 ? plain_rounded<KIND>(__expf(s[j])) / l : __expf(s[j] - m) / l;
            TL_GLOAD(1);
        }
        p[j] = In::from(w);
        TL_GSTORE(1);
    }
}
