// Test kernel with high register pressure: a fully unrolled array of N accumulators. Compiled
// with a low -maxrregcount it must spill, which tests/cpu/test_ptxas.cpp reads from the report.
#pragma once

template <int N>
__global__ void tilelab_test_pressure(const float* in, float* out, int n) {
    float acc[N];
#pragma unroll
    for (int j = 0; j < N; ++j) acc[j] = in[(threadIdx.x + j * 97) % n];
    for (int k = 0; k < n; ++k) {
#pragma unroll
        for (int j = 0; j < N; ++j) acc[j] = acc[j] * in[k] + acc[(j + 1) % N];
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < N; ++j) sum += acc[j] * float(j + 1);
    out[threadIdx.x] = sum;
}
