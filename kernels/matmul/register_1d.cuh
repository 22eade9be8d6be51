// 1D register tiling. A block of T threads computes a T×U tile of C: thread t owns row
// blockIdx.y·T + t and the U consecutive columns from blockIdx.x·U, accumulating them in U
// registers. K is walked in slices of S: the block stages the S×U slice of B in shared memory,
// transposed (Bt[u][s]), and each thread keeps its own S values of A in registers — A needs no
// shared memory because no other thread of the block reads that row. Per slice a thread does
// S·U multiply-adds from S global loads of A, S·U/T global loads of B and S·U shared reads.
// Preconditions: S·U a multiple of T (every thread loads the same number of B elements). Any
// M, N, K: out-of-range elements are neither loaded nor stored; Bt and the A registers get
// zeros there so the multiply-add loop needs no checks.
#pragma once
#include "common.cuh"

template <int T, int U, int S>
__global__ void register_1d_matmul(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K,
                                   unsigned long long* counters) {
    static_assert((S * U) % T == 0, "S*U must be a multiple of T: each thread loads S*U/T of B");
    constexpr int kLoadsB = S * U / T;   // B elements each thread stages per slice
    TL_COUNTER(counters);
    __shared__ float Bt[U][S];           // Bt[u][s] = B[k0 + s][col0 + u]

    const int tid = threadIdx.x;
    const int row = blockIdx.y * T + tid;
    const int col0 = blockIdx.x * U;
    const bool row_in = row < M;

    float a_reg[S];
    float c_reg[U];
#pragma unroll
    for (int u = 0; u < U; ++u) c_reg[u] = 0.f;

    for (int k0 = 0; k0 < K; k0 += S) {
        // Stage the S×U slice of B, transposed. Consecutive threads take consecutive columns
        // of one row of B, so the global reads are coalesced.
#pragma unroll
        for (int r = 0; r < kLoadsB; ++r) {
            const int e = tid + r * T;
            const int s = e / U, u = e % U;
            const int k = k0 + s, col = col0 + u;
            // EXERCISE-BEGIN: stage B[k][col] (0 outside B) transposed into Bt[u][s]
            float v = 0.f;
            if (k < K && col < N) { v = B[size_t(k) * N + col]; TL_GLOAD(1); }
            Bt[u][s] = v;
            TL_SSTORE(1);
            // EXERCISE-END
        }
        // This thread's S values of A go straight to registers: nobody else needs them.
        // Issued before the barrier so their latency overlaps the wait.
#pragma unroll
        for (int s = 0; s < S; ++s) {
            // EXERCISE-BEGIN: this thread's A[row][k0 + s] (0 outside A) into a_reg[s]
            float v = 0.f;
            if (row_in && k0 + s < K) { v = A[size_t(row) * K + k0 + s]; TL_GLOAD(1); }
            a_reg[s] = v;
            // EXERCISE-END
        }
        // EXERCISE-BEGIN: barrier: the slice of B is complete before anyone reads it
        __syncthreads();   // the slice of B is complete before anyone reads it
        // EXERCISE-END
        // Every thread of the block reads the same Bt[u][s] at once: a broadcast, no conflict.
        // EXERCISE-BEGIN: the S·U multiply-adds: c_reg[u] += a_reg[s] · Bt[u][s]
#pragma unroll
        for (int u = 0; u < U; ++u) {
#pragma unroll
            for (int s = 0; s < S; ++s) c_reg[u] += a_reg[s] * Bt[u][s];
        }
        // EXERCISE-END
        TL_SLOAD(S * U);
        // EXERCISE-BEGIN: barrier: everyone is done reading before the next slice overwrites it
        __syncthreads();   // everyone is done reading before the next slice overwrites it
        // EXERCISE-END
    }

#pragma unroll
    for (int u = 0; u < U; ++u) {
        // EXERCISE-BEGIN: store c_reg[u] to C[row][col0 + u] where inside C
        if (row_in && col0 + u < N) { C[size_t(row) * N + col0 + u] = c_reg[u]; TL_GSTORE(1); }
        // EXERCISE-END
    }
}
