// The matmul family on the GPU (its sizes: family_matmul.cpp): C = A·B with A (M×K), B (K×N), C (M×N), all row-major floats.
// Owns what every matmul variant shares: seeded random inputs, the NaN-poisoned output, the
// kernel arguments, the reference (double precision for small problems, cuBLAS FP32 otherwise),
// validation with a tolerance, and cuBLAS's time at the same size for "% of cuBLAS". Inputs,
// reference and comparison all stay on the GPU (support_kernels.h): only a summary comes back.
#include <cublas_v2.h>
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>
#include "cuda_check.h"
#include "tilelab/i18n.h"
#include "device_buffer.h"
#include "family.h"
#include "family_shape.h"
#include "runner_timing.h"
#include "support_kernels.h"

namespace tilelab {
namespace {

// B's seed, derived from A's so that one seed names both inputs.
constexpr uint64_t kSeedB = 0x5DEECE66Dull;

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
    void setup(const Problem& p, uint64_t seed) override {
        // Free the previous problem's buffers before allocating the new ones.
        a_ = {}, b_ = {}, c_ = {}, c_ref_ = {};
        M_ = int(p.dim[0]), N_ = int(p.dim[1]), K_ = int(p.dim[2]);
        const size_t M = size_t(M_), N = size_t(N_), K = size_t(K_);
        const SupportKernels& support = support_kernels();

        a_ = DeviceBuffer(sizeof(float) * M * K);
        b_ = DeviceBuffer(sizeof(float) * K * N);
        c_ = DeviceBuffer(sizeof(float) * M * N);
        support.fill_uniform(a_.get<float>(), M * K, seed);
        support.fill_uniform(b_.get<float>(), K * N, seed ^ kSeedB);

        double_reference_ = matmul_uses_double_reference(p);
        if (double_reference_) {
            reference_kind_ = "double (GPU)";
            c_ref_ = DeviceBuffer(sizeof(double) * M * N);
            support.matmul_reference_f64(a_.get<float>(), b_.get<float>(), c_ref_.get<double>(), M_, N_, K_);
        } else {
            reference_kind_ = "cuBLAS FP32";
            c_ref_ = DeviceBuffer(sizeof(float) * M * N);
            sgemm_row_major(cublas(), M_, N_, K_, a_.get<float>(), b_.get<float>(), c_ref_.get<float>());
        }
        TL_CUDA_CHECK(cudaDeviceSynchronize());
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

private:
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
    std::string reference_kind_;
    bool double_reference_ = false;   // c_ref_ holds doubles (small problems), else cuBLAS's floats
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

    const size_t N = size_t(N_), n = size_t(M_) * N;
    const SupportKernels& support = support_kernels();
    const bool f64 = double_reference_;
    const CompareSummary s = f64 ? support.compare(c_.get<float>(), c_ref_.get<double>(), n, v.tolerance)
                                 : support.compare(c_.get<float>(), c_ref_.get<float>(), n, v.tolerance);
    if (record_comparison(v, s)) return v;
    // The first mismatch, as the user will want to see it: two values copied back, nothing more.
    const size_t at = size_t(s.first_bad);
    const float got = device_element(c_.get<float>(), at);
    const double ref = f64 ? device_element(c_ref_.get<double>(), at) : double(device_element(c_ref_.get<float>(), at));
    const double err = std::fabs(double(got) - ref);
    v.message = say("C[{}][{}] = {}, expected {:.6g} (error {:.3g}, tolerance {:.3g} × max(1, |expected|))"
                    "; {} of {} elements outside tolerance",
                    "C[{}][{}] = {}，应为 {:.6g}（误差 {:.3g}，容差 {:.3g} × max(1, |应为值|)）"
                    "；{} / {} 个元素超出容差",
                    at / N, at % N, got, ref, err, v.tolerance, s.bad, n);
    return v;
}

}  // namespace

std::unique_ptr<Family> make_matmul_family() { return std::make_unique<MatmulFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("matmul", make_matmul_family)

}  // namespace tilelab
