// Test only: a naive matmul that leaves out the first SKIP products of every dot product, the
// smallest mistake a tiling bug can make. tests/gpu/test_engine_gpu.cpp checks that validation
// catches it (and so, a fortiori, a missing tile).
#pragma once
#include "common.cuh"

template <int SKIP>
__global__ void skip_product_matmul(const float* A, const float* B, float* C, int M, int N, int K,
                                    unsigned long long* counters) {
    (void)counters;
    const int col = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int row = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (row >= M || col >= N) return;
    float sum = 0.0f;
    for (int k = SKIP; k < K; ++k) sum += A[size_t(row) * K + k] * B[size_t(k) * N + col];
    C[size_t(row) * N + col] = sum;
}
