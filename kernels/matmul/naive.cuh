// Lesson 1, naive matrix multiply: one thread computes one element of C = A·B.
// Nothing is shared on chip: each thread reads its own row of A and column of B straight from
// global memory, 2·K loads and 1 store for 2·K FLOPs (0.25 FLOP per byte); only the caches find reuse.
// SWAP picks what threadIdx.x walks: 0 = columns of C (a warp's lanes read neighbouring B and C
// elements, coalesced), 1 = rows (lanes are K or N floats apart, uncoalesced: shown for its cost).
// Preconditions: none on M, N, K; threads that fall outside C return before loading anything.
#pragma once
#include "common.cuh"

template <int BX, int BY, int SWAP>
__global__ void __launch_bounds__(BX * BY)
naive_matmul(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
             int M, int N, int K, unsigned long long* counters) {
    TL_COUNTER(counters);

    // Lanes of a warp differ in threadIdx.x first, so the coordinate built from threadIdx.x is
    // the one that decides whether a warp's accesses land next to each other in memory.
    const int along_x = int(blockIdx.x) * BX + int(threadIdx.x);
    const int along_y = int(blockIdx.y) * BY + int(threadIdx.y);
    const int col = SWAP ? along_y : along_x;
    const int row = SWAP ? along_x : along_y;

    // The grid is rounded up to whole blocks; the extra threads have no element of C. This kernel
    // has no barrier, so they can simply leave (and count nothing).
    // EXERCISE-BEGIN: a thread whose (row, col) lies outside C has no element: it leaves here
    if (row >= M || col >= N) return;
    // EXERCISE-END

    // 64-bit offsets: M·K or K·N may exceed 2^31 elements on a large card.
    const float* a_row = A + size_t(row) * K;
    const float* b_col = B + col;

    float sum = 0.0f;
    // EXERCISE-BEGIN: sum over k of A[row][k] · B[k][col] (a_row[k] and b_col[k·N])
    for (int k = 0; k < K; ++k) {
        // A[row][k]: with SWAP=0 every lane of a warp row wants the same address (one broadcast
        // transaction); with SWAP=1 the lanes are K floats apart, one transaction each.
        const float a = a_row[k];
        TL_GLOAD(1);
        // B[k][col]: with SWAP=0 neighbouring lanes read neighbouring floats (coalesced); with
        // SWAP=1 the lanes share a column and the warp's columns come from threadIdx.y.
        const float b = b_col[size_t(k) * N];
        TL_GLOAD(1);
        sum += a * b;
    }
    // EXERCISE-END
    // One store per thread: coalesced along a row of C with SWAP=0, N floats apart with SWAP=1.
    // EXERCISE-BEGIN: store sum to C[row][col] (row-major, N columns)
    C[size_t(row) * N + col] = sum;
    // EXERCISE-END
    TL_GSTORE(1);
}
