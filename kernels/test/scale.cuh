// Test kernel for the compile service (tests/cpu/test_compile.cpp, bench/compile_bench.cpp):
// small, fast to compile, a template (so instantiation by name expression is exercised), with a
// known amount of static shared memory (TILE floats) so the ptxas report can be checked.
#pragma once
#include "common.cuh"

template <int TILE>
__global__ void tilelab_test_scale(const float* in, float* out, int n, float factor) {
    __shared__ float staged[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    staged[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    // Read a neighbour's value so the shared array cannot be optimised away.
    if (i < n) out[i] = factor * staged[(threadIdx.x + 1) % TILE];
}
