// Test only: a naive matmul that writes only whole 16×16 tiles of C, as a kernel that forgets
// the bounds of the last, partial tiles would. At sizes that are multiples of 16 it is correct;
// at odd sizes its last rows and columns stay poisoned, and validation must say so.
#pragma once
#include "common.cuh"

__global__ void tail_matmul(const float* A, const float* B, float* C, int M, int N, int K,
                            unsigned long long* counters) {
    (void)counters;
    const int col = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int row = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (row >= M / 16 * 16 || col >= N / 16 * 16) return;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[size_t(row) * K + k] * B[size_t(k) * N + col];
    C[size_t(row) * N + col] = sum;
}
