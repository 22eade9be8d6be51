// The runner's device helpers (kernels/support/checks.cuh): seeded inputs, the double-precision
// references and the output comparison, compiled once per GPU worker by NVRTC (cached on disk like
// every kernel) and loaded from one library. GPU worker only.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "device/cuda_check.h"
#include "tilelab/result.h"

namespace tilelab {

// What tl_compare_* leaves behind (same layout as TlCompareSummary in checks.cuh).
struct CompareSummary {
    unsigned long long bad = 0;         // elements outside the tolerance
    unsigned long long first_bad = 0;   // smallest such index (~0 when none)
    double max_abs_error = 0;           // NaN when some error was NaN
    double max_rel_error = 0;
};

// Copies a comparison's errors into v and sets v.passed; returns v.passed. The caller writes
// v.message (the first mismatch, with device_element) when it returns false.
inline bool record_comparison(Validation& v, const CompareSummary& s) {
    v.max_abs_error = s.max_abs_error;
    v.max_rel_error = s.max_rel_error;
    v.passed = s.bad == 0;
    return v.passed;
}

// Element `at` of a device array, copied back: for a mismatch's message, one value, nothing more.
template <class T>
T device_element(const T* p, size_t at) {
    T value{};
    TL_CUDA_CHECK(cudaMemcpy(&value, p + at, sizeof value, cudaMemcpyDeviceToHost));
    return value;
}

class SupportKernels {
public:
    // Compiles (or finds in the cache) and loads the helpers for the current device. Throws
    // CudaError or std::runtime_error (with NVRTC's message) on failure.
    SupportKernels();
    ~SupportKernels();
    SupportKernels(const SupportKernels&) = delete;
    SupportKernels& operator=(const SupportKernels&) = delete;

    // out[i] = seeded_uniform(seed, i) for i < n (family_common.h), on the device.
    void fill_uniform(float* out, uint64_t n, uint64_t seed) const;
    // values[0..n) rounded to nearest in `type` (bf16 or fp16): the 16-bit copy to typed, the
    // rounded value back into values (so a reference over the floats sees what the kernel reads).
    void round_to_16bit(float* values, void* typed, uint64_t n, ElementType type) const;
    // C (M×N, double) = A·B, row-major, in the CPU reference's order.
    void matmul_reference_f64(const float* A, const float* B, double* C, int M, int N, int K) const;
    // The order-radius star sweep in double (radius 1: 7 points), rounded to float; boundary cells (within
    // radius of a face) copied. coef: 1 + 6·radius floats on the device.
    void stencil7_reference(const float* in, float* ref, int nx, int ny, int nz, const float* coef, int radius = 1) const;
    // ref (w×h) = in convolved, zero-padded, with filter (per_lane ? x : y) mod filters of the
    // tap-major bank of (2r+1)² taps (support/conv_reference.cuh), in double, rounded to float.
    void conv2d_reference(const float* in, const float* bank, float* ref, int w, int h, int r, int filters,
                          bool per_lane) const;
    // out (W×H) = inᵀ, in H×W row-major.
    void transpose_reference(const float* in, float* out, int W, int H) const;
    // C = alpha·A·B in double for each of `batch` operand triples (the attention reference's S = Q·Kᵀ/√d
    // and O = P·V): row-major, A M×K, B K×N or, b_transposed, stored N×K and read transposed.
    struct Product {
        int M = 0, N = 0, K = 0;
        long long lda = 0, ldb = 0, ldc = 0, stride_a = 0, stride_b = 0, stride_c = 0;
        int batch = 1;
        bool b_transposed = false;
        double alpha = 1;
    };
    void product_f64(const float* A, const float* B, double* C, const Product& shape) const;
    void product_f64(const double* A, const float* B, double* C, const Product& shape) const;
    // Each of `rows` rows of S (N doubles, scaled scores) becomes its softmax in double, in place.
    // The rows are rows_per_head consecutive queries of each head from query first_row; causal:
    // query i over keys 0..i, the rest of its row zero. One warp a row.
    void softmax_rows_f64(double* S, uint64_t rows, int N, int rows_per_head, int first_row, bool causal) const;
    // Each of `rows` rows of S (N floats) becomes its softmax: in place as floats (P null), or
    // written to P as `type` (bf16 or fp16). One warp a row, three passes over it. causal: row r
    // (r mod N within its head) over its first r mod N + 1 entries, the rest of P zero.
    void softmax_rows(float* S, void* P, uint64_t rows, int N, ElementType type, bool causal) const;
    // The FMA yardstick (support/fma_peak.cuh): fma_peak_threads() threads, in blocks of 256 that
    // fill every SM, each doing `fmas` FMAs (a multiple of 8) on eight independent chains; out
    // holds a float a thread.
    uint64_t fma_peak_threads() const;
    void fma_peak(float* out, int fmas) const;
    // got against expected, |got − expected| / max(1, |expected|) ≤ tolerance; with nx > 0 the
    // boundary cells of the nx×ny×nz grid must be exactly equal. Synchronises; returns the summary.
    CompareSummary compare(const float* got, const float* expected, uint64_t n, double tolerance, int nx = 0,
                           int ny = 0, int nz = 0) const;
    CompareSummary compare(const float* got, const double* expected, uint64_t n, double tolerance) const;
    // Invalidates the L2 lines of [p, p + bytes) (p 128-byte aligned) without writing them back;
    // asynchronous. False (nothing done) before sm_80, which has no discard instruction.
    bool discard_l2(const void* p, uint64_t bytes) const;
    // A probe (issue 30): the preferred shared-memory carveout (percent) of the FP32 compare and
    // the discard, the kernels that empty L2 before a counted launch.
    void prefer_carveout(int percent) const;
    // Clusters of `cluster` blocks (2 … 8, sm_90 and later) that fit on the GPU at once at one block
    // an SM (cudaOccupancyMaxActiveClusters on a block that asks for half an SM's shared memory,
    // so no SM takes two): Target::resident_clusters.
    int resident_clusters(unsigned cluster) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The worker's one instance, built on first use (after a fault the worker exits, so it never
// outlives its context).
const SupportKernels& support_kernels();

}  // namespace tilelab
