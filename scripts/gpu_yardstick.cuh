// What the standalone yardstick tools (scripts/mma_peak.cu, scripts/cublaslt_kernels.cu) share:
// the CUDA check, random operands as a real product has them, and the median of timed launches.
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

enum Kind { kBf16 = 0, kFp16 = 1, kTf32 = 2 };

// Operands as in a real product: random signs and mantissas, exponents near 1 so that the sums
// stay finite (the tensor cores draw less power, and clock higher, on constant or zero data).
__device__ __forceinline__ unsigned mix(unsigned x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

template <int KIND>
__device__ __forceinline__ unsigned random_operand(unsigned seed) {
    const unsigned r = mix(seed);
    if constexpr (KIND == kBf16) return (r & 0x807f807fu) | 0x3f003f00u;   // two BF16 in [0.5, 1), signs random
    if constexpr (KIND == kFp16) return (r & 0x83ff83ffu) | 0x38003800u;   // two FP16 in [0.5, 1)
    return (r & 0x807fe000u) | 0x3f000000u;                                // one TF32 in [0.5, 1)
}

__global__ void fill_random_words(unsigned* p, size_t words, int kind) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x) {
        const unsigned seed = unsigned(i) * 2654435761u + 12345u;
        p[i] = kind == kBf16 ? random_operand<kBf16>(seed) : kind == kFp16 ? random_operand<kFp16>(seed) : random_operand<kTf32>(seed);
    }
}

// `elems` operands of `kind` (4 bytes each in TF32, 2 otherwise) at p.
inline void fill_random(void* p, size_t elems, int kind) {
    const size_t words = kind == kTf32 ? elems : elems / 2;
    fill_random_words<<<1024, 256>>>(static_cast<unsigned*>(p), words, kind);
    CHECK(cudaGetLastError());
}

// The median of `reps` timings of `launch` (the upper one of an even count), each bracketed by
// CUDA events; with `flush`, `flush_bytes` of it written before each, so no launch finds the
// previous one's data in L2.
inline float median_ms(int reps, const std::function<void()>& launch, void* flush = nullptr, size_t flush_bytes = 0) {
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0)); CHECK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int r = 0; r < reps; ++r) {
        if (flush) CHECK(cudaMemsetAsync(flush, r, flush_bytes));
        CHECK(cudaEventRecord(e0));
        launch();
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float t = 0; CHECK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
    }
    CHECK(cudaEventDestroy(e0)); CHECK(cudaEventDestroy(e1));
    std::sort(ms.begin(), ms.end());
    return ms[reps / 2];
}
