// The matmul family: C = A·B with A (M×K), B (K×N), C (M×N), all row-major floats.
// Owns what every matmul variant shares: seeded random inputs, the NaN-poisoned output, the
// kernel arguments, the reference (CPU in double for small problems, cuBLAS FP32 otherwise),
// validation with a tolerance, and cuBLAS's time at the same size for "% of cuBLAS".
#include <cublas_v2.h>
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>
#include "cuda_check.h"
#include "device_buffer.h"
#include "family.h"
#include "family_common.h"
#include "runner_timing.h"

namespace tilelab {
namespace {

// Largest M, N or K accepted: the kernels take int sizes, and 65536³ already needs 64 GiB.
constexpr int64_t kMaxDim = 65536;
// Below this many multiply-adds (and output elements) the reference is computed on the CPU in
// double, which is independent of any GPU library; above it, cuBLAS in pedantic FP32.
constexpr double kCpuReferenceMaxMacs = double(1 << 27);
constexpr double kCpuReferenceMaxOutputs = double(1 << 24);
// Output rows compared per host copy, so validation never needs all of C on the host at once.
constexpr size_t kCompareChunkElements = size_t(1) << 24;

std::vector<float> random_matrix(size_t elements, uint64_t seed) {
    std::vector<float> values(elements);
    for (size_t i = 0; i < elements; ++i) values[i] = seeded_uniform(seed, i);
    return values;
}

class CublasHandle {
public:
    CublasHandle() {
        TL_CUBLAS_CHECK(cublasCreate(&handle_));
        // Pedantic: true FP32 throughout, no TF32 or other reduced-precision shortcuts, so the
        // reference and the "% of cuBLAS" compare like with like.
        TL_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH));
    }
    ~CublasHandle() { (void)cublasDestroy(handle_); }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_ = nullptr;
};

// Row-major C = A·B through column-major cuBLAS: a row-major matrix is its transpose in column
// major, and C^T = B^T·A^T, so call SGEMM with the operands swapped and N, M exchanged.
void sgemm_row_major(cublasHandle_t h, int M, int N, int K, const float* A, const float* B, float* C) {
    const float one = 1.0f, zero = 0.0f;
    TL_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
}

class MatmulFamily final : public Family {
public:
    std::array<std::string, 3> dim_names() const override { return {"M", "N", "K"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        const auto names = dim_names();
        for (int i = 0; i < 3; ++i)
            if (p.dim[i] < 1 || p.dim[i] > kMaxDim)
                return fmt::format("{} must be between 1 and {} (got {}).", names[i], kMaxDim, p.dim[i]);
        return "";
    }

    size_t device_bytes(const Problem& p) const override {
        const size_t M = size_t(p.dim[0]), N = size_t(p.dim[1]), K = size_t(p.dim[2]);
        const size_t reference = uses_cpu_reference(p) ? 0 : M * N;
        return sizeof(float) * (M * K + K * N + M * N + reference);
    }

    void setup(const Problem& p, uint64_t seed) override {
        // Free the previous problem's buffers before allocating the new ones.
        a_ = {}, b_ = {}, c_ = {}, c_ref_ = {};
        host_ref_.clear();
        M_ = int(p.dim[0]), N_ = int(p.dim[1]), K_ = int(p.dim[2]);
        const size_t M = size_t(M_), N = size_t(N_), K = size_t(K_);

        const std::vector<float> a = random_matrix(M * K, seed);
        const std::vector<float> b = random_matrix(K * N, seed ^ 0x5DEECE66Dull);
        a_ = DeviceBuffer(sizeof(float) * M * K);
        b_ = DeviceBuffer(sizeof(float) * K * N);
        c_ = DeviceBuffer(sizeof(float) * M * N);
        TL_CUDA_CHECK(cudaMemcpy(a_.get(), a.data(), a_.bytes(), cudaMemcpyHostToDevice));
        TL_CUDA_CHECK(cudaMemcpy(b_.get(), b.data(), b_.bytes(), cudaMemcpyHostToDevice));

        if (uses_cpu_reference(p)) {
            reference_kind_ = "CPU double";
            host_ref_.assign(M * N, 0.0);
            for (size_t i = 0; i < M; ++i)
                for (size_t k = 0; k < K; ++k) {
                    const double aik = a[i * K + k];
                    const float* b_row = &b[k * N];
                    double* c_row = &host_ref_[i * N];
                    for (size_t j = 0; j < N; ++j) c_row[j] += aik * b_row[j];
                }
        } else {
            reference_kind_ = "cuBLAS FP32";
            c_ref_ = DeviceBuffer(sizeof(float) * M * N);
            sgemm_row_major(cublas(), M_, N_, K_, a_.get<float>(), b_.get<float>(), c_ref_.get<float>());
            TL_CUDA_CHECK(cudaDeviceSynchronize());
        }
    }

    void poison_output(cudaStream_t s) override {
        // All bits set is a NaN: any element the kernel forgets to write fails validation.
        TL_CUDA_CHECK(cudaMemsetAsync(c_.get(), 0xFF, c_.bytes(), s));
    }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        args_ = {a_.get<const float>(), b_.get<const float>(), c_.get<float>()};
        counters_ = counters;
        return {&args_.a, &args_.b, &args_.c, &M_, &N_, &K_, &counters_};
    }

    Validation validate() override;

    double reference_ms(std::string& name) override {
        name = "cuBLAS SGEMM";
        // Written into C, which is poisoned again before the next kernel run.
        return time_reference([&] { sgemm_row_major(cublas(), M_, N_, K_, a_.get<float>(), b_.get<float>(), c_.get<float>()); });
    }

    double compulsory_bytes(const Problem& p) const override {
        const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
        return 4 * (M * K + K * N + M * N);
    }

private:
    static bool uses_cpu_reference(const Problem& p) {
        const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
        return M * N * K <= kCpuReferenceMaxMacs && M * N <= kCpuReferenceMaxOutputs;
    }

    cublasHandle_t cublas() {
        if (!cublas_) cublas_ = std::make_unique<CublasHandle>();
        return cublas_->get();
    }

    struct Args {
        const float* a = nullptr;
        const float* b = nullptr;
        float* c = nullptr;
    };

    int M_ = 0, N_ = 0, K_ = 0;
    DeviceBuffer a_, b_, c_, c_ref_;
    std::vector<double> host_ref_;   // CPU reference, when used
    std::string reference_kind_;
    std::unique_ptr<CublasHandle> cublas_;
    Args args_;
    unsigned long long* counters_ = nullptr;
};

Validation MatmulFamily::validate() {
    Validation v;
    v.checked = true;
    v.reference = reference_kind_;
    // Tolerance, relative to max(1, |expected|): 1e-4·√K.
    // A correct FP32 kernel differs from the reference only by rounding in its K-term sum. With
    // inputs uniform in [-1, 1) the partial sums grow like √k/3 and each addition rounds by about
    // 2^-24 of that, so the error is a random walk of order 2^-24·K/3 (≈ 6e-5 at K = 4096, about
    // 3e-4 for the worst of 16M outputs); 1e-4·√K (6.4e-3 at K = 4096) leaves a margin of 20 or
    // more, for any summation order. A kernel that drops one tile of TILE products is off by
    // about √TILE/3 (≈ 1.9 for TILE = 32), and an unwritten element is NaN: both fail.
    v.tolerance = 1e-4 * std::sqrt(double(K_));

    const size_t M = size_t(M_), N = size_t(N_);
    const size_t rows_per_chunk = std::max<size_t>(1, kCompareChunkElements / N);
    std::vector<float> got, expected;
    size_t bad = 0;
    for (size_t row0 = 0; row0 < M; row0 += rows_per_chunk) {
        const size_t rows = std::min(rows_per_chunk, M - row0);
        got.resize(rows * N);
        TL_CUDA_CHECK(cudaMemcpy(got.data(), c_.get<float>() + row0 * N, sizeof(float) * rows * N,
                                 cudaMemcpyDeviceToHost));
        if (c_ref_) {
            expected.resize(rows * N);
            TL_CUDA_CHECK(cudaMemcpy(expected.data(), c_ref_.get<float>() + row0 * N, sizeof(float) * rows * N,
                                     cudaMemcpyDeviceToHost));
        }
        for (size_t i = 0; i < rows * N; ++i) {
            const double ref = c_ref_ ? double(expected[i]) : host_ref_[row0 * N + i];
            const double err = std::fabs(double(got[i]) - ref);
            const double scaled = err / std::max(1.0, std::fabs(ref));
            // Written so that NaN fails: !(x <= tol) is true for NaN.
            if (!(scaled <= v.tolerance)) {
                if (bad++ == 0)
                    v.message = fmt::format("C[{}][{}] = {}, expected {:.6g} (error {:.3g}, tolerance {:.3g} × max(1, |expected|))",
                                            row0 + i / N, i % N, got[i], ref, err, v.tolerance);
            }
            record_error(v, err, scaled);
        }
    }
    v.passed = bad == 0;
    if (bad) v.message += fmt::format("; {} of {} elements outside tolerance", bad, M * N);
    return v;
}

}  // namespace

std::unique_ptr<Family> make_matmul_family() { return std::make_unique<MatmulFamily>(); }
TILELAB_REGISTER_FAMILY("matmul", make_matmul_family)

}  // namespace tilelab
