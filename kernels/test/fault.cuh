// Test only: a kernel with the matmul signature that stores 4 TiB past the end of C, so its
// launch ends in cudaErrorIllegalAddress (a sticky error: the context is lost).
// tests/gpu/test_engine_gpu.cpp runs it to check that the engine resets the device and that the
// next run works again without restarting the process.
#pragma once
#include "common.cuh"

template <int UNUSED>
__global__ void faulting_matmul(const float* A, const float* B, float* C, int M, int N, int K,
                                unsigned long long* counters) {
    (void)A, (void)B, (void)M, (void)N, (void)K, (void)counters;
    // The offset depends on nothing the compiler can see through, so the store is really issued.
    C[(size_t(1) << 40) + threadIdx.x] = 1.0f;
}
