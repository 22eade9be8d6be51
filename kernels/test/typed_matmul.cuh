// Test only: a naive matmul over operands of another precision, accumulating and writing C in
// FP32, so the tests can prove that precision is data (tests/cpu/test_precision.cpp and
// tests/gpu/test_precision_gpu.cpp): buffers, reference, tolerance, bytes and roof all follow
// from the variant's declared element types. One thread per output, counted like the lessons.
//   KIND 0: TF32, the float operands rounded to nearest with cvt.rna (sm_80 and later);
//   KIND 1: BF16 and KIND 2: FP16, 16-bit operands converted exactly to float.
// SKIP > 0 leaves out the first SKIP products of every dot product (validation must catch it).
#pragma once
#include "common.cuh"

template <int KIND>
__device__ __forceinline__ float typed_operand(const void* p, size_t i) {
    if constexpr (KIND == 0) {
        unsigned t;
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(static_cast<const float*>(p)[i]));
        return __uint_as_float(t);
    } else if constexpr (KIND == 1) {
        return __uint_as_float(unsigned(static_cast<const unsigned short*>(p)[i]) << 16);
    } else {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<const unsigned short*>(p)[i]));
        return f;
    }
}

template <int KIND, int SKIP>
__global__ void typed_matmul(const void* A, const void* B, float* C, int M, int N, int K, unsigned long long* counters) {
    TL_COUNTER(counters);
    const int col = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int row = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (row >= M || col >= N) return;
    float sum = 0.0f;
    for (int k = SKIP; k < K; ++k) {
        sum += typed_operand<KIND>(A, size_t(row) * K + k) * typed_operand<KIND>(B, size_t(k) * N + col);
        TL_GLOAD(2);
    }
    C[size_t(row) * N + col] = sum;
    TL_GSTORE(1);
}
