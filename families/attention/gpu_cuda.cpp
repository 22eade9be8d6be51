// The attention family on the GPU (its sizes: families/attention/shape.cpp): BH heads of
// O = softmax(Q·Kᵀ/√d)·V, Q, K, V of N×d elements of the kernel's input type (FP32, BF16, FP16),
// O of N×d floats, with or without the causal mask (the family option "causal"). Owns the seeded
// inputs (rounded to the input type, so that the reference reads the same values), the
// NaN-poisoned output, the kernel arguments, the reference in double on the GPU, validation with
// the tolerance derived in shape.cpp, and the yardstick for "% of reference": TileLab's own
// unfused path — cuBLAS S = Q·Kᵀ/√d into an N×N matrix per head (FP32), a three-pass softmax over
// S (P in the input type; masked entries zero), cuBLAS O = P·V — the path whose N² traffic the
// fused kernel avoids. Like PyTorch's unfused path it multiplies the masked half too.
#include <fmt/format.h>
#include <cmath>
#include <memory>
#include "device/cuda_check.h"
#include "gpu_worker/cublas_handle.h"
#include "gpu_worker/device_buffer.h"
#include "gpu_worker/family.h"
#include "gpu_worker/support_kernels.h"
#include "gpu_worker/timing.h"
#include "shape.h"

namespace tilelab {
namespace {

// The unfused path's N×N matrices are skipped (no "% of reference") past this many bytes.
constexpr size_t kMaxUnfusedBytes = size_t(16) << 30;

class AttentionFamily final : public Family {
public:
    void setup(const Problem& p, const Precision& precision, const FamilyOptions& options, uint64_t seed) override {
        intermediate_ = precision.intermediate;   // the tolerance's only; the buffers do not depend on it
        const bool causal = attention_causal(options);
        if (p == problem_ && seed == seed_ && precision.input == input_ && causal == causal_ && o_.get()) return;
        q_ = {}, k_ = {}, v_ = {}, o_ = {}, ref_ = {}, typed_q_ = {}, typed_k_ = {}, typed_v_ = {}, s_ = {}, p_ = {};
        problem_ = p, seed_ = seed, input_ = precision.input, causal_ = causal;
        N_ = int(p.dim[0]), d_ = int(p.dim[1]), BH_ = int(p.dim[2]);
        const size_t n = elements();
        const SupportKernels& support = support_kernels();
        const auto input = [&](DeviceBuffer& floats, DeviceBuffer& typed, uint64_t s) {
            floats = DeviceBuffer(sizeof(float) * n);
            support.fill_uniform(floats.get<float>(), n, s);
            if (element_bytes(input_) < 4) {
                typed = DeviceBuffer(size_t(element_bytes(input_)) * n);
                support.round_to_16bit(floats.get<float>(), typed.get(), n, input_);
            }
        };
        input(q_, typed_q_, seed);
        input(k_, typed_k_, seed ^ kAttentionSeedK);
        input(v_, typed_v_, seed ^ kAttentionSeedV);
        o_ = DeviceBuffer(sizeof(float) * n);
        ref_ = DeviceBuffer(sizeof(double) * n);
        support.attention_reference_f64(q_.get<float>(), k_.get<float>(), v_.get<float>(), ref_.get<double>(), N_, d_, BH_,
                                         causal_);
        TL_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void poison_output(cudaStream_t s) override { TL_CUDA_CHECK(cudaMemsetAsync(o_.get(), 0xFF, o_.bytes(), s)); }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        args_ = {operand(q_, typed_q_), operand(k_, typed_k_), operand(v_, typed_v_), o_.get<float>()};
        counters_ = counters;
        return {&args_.q, &args_.k, &args_.v, &args_.o, &N_, &d_, &BH_, &counters_};
    }

    Validation validate() override {
        Validation v;
        v.checked = true;
        v.reference = "double (GPU)";
        v.tolerance = attention_tolerance(N_, d_, intermediate_);
        const size_t n = elements();
        const CompareSummary s = support_kernels().compare(o_.get<float>(), ref_.get<double>(), n, v.tolerance);
        if (record_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = attention_mismatch(at, N_, d_, device_element(o_.get<float>(), at), device_element(ref_.get<double>(), at),
                                       v.tolerance, s.bad, n);
        return v;
    }

    // The unfused path at the kernel's input type, written into O (poisoned again before the next
    // kernel run). 0 (no "% of reference") where its N×N matrices would not fit.
    double reference_ms(std::string& name) override {
        name = fmt::format("unfused cuBLAS {} path{}", element_label(input_), causal_ ? ", causal" : "");
        const size_t scores = size_t(N_) * size_t(N_) * size_t(BH_);
        const size_t p_bytes = element_bytes(input_) < 4 ? size_t(element_bytes(input_)) * scores : 0;
        size_t free_bytes = 0, total = 0;
        TL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
        if (4 * scores + p_bytes > std::min(kMaxUnfusedBytes, free_bytes / 2)) return 0;
        if (!s_.get()) s_ = DeviceBuffer(4 * scores);
        if (p_bytes && !p_.get()) p_ = DeviceBuffer(p_bytes);
        if (!cublas_) cublas_ = std::make_unique<CublasHandle>(/*pedantic=*/false);
        return time_reference([&] { unfused(); });
    }

private:
    size_t elements() const { return size_t(N_) * size_t(d_) * size_t(BH_); }
    const void* operand(const DeviceBuffer& floats, const DeviceBuffer& typed) const {
        return typed.get() ? typed.get() : floats.get();
    }

    // Row-major through column-major cuBLAS, per head: S (row-major N×N) is, in column major,
    // Kᵀ·Q with K and Q read as d×N; O (row-major N×d) is V·P with V as d×N and P as N×N.
    void unfused() {
        const float scale = 1.0f / std::sqrt(float(d_)), one = 1.0f, zero = 0.0f;
        const cudaDataType type = cuda_data_type(input_);
        const long long rows = (long long)N_ * d_, square = (long long)N_ * N_;
        const void* q = operand(q_, typed_q_);
        const void* k = operand(k_, typed_k_);
        const void* v = operand(v_, typed_v_);
        TL_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cublas_->get(), CUBLAS_OP_T, CUBLAS_OP_N, N_, N_, d_, &scale, k, type, d_, rows,
                                                   q, type, d_, rows, &zero, s_.get(), CUDA_R_32F, N_, square, BH_,
                                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        const bool narrow = p_.get() != nullptr;
        support_kernels().softmax_rows(s_.get<float>(), narrow ? p_.get() : nullptr, uint64_t(N_) * uint64_t(BH_), N_, input_,
                                       causal_);
        const void* p = narrow ? p_.get() : s_.get();
        TL_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cublas_->get(), CUBLAS_OP_N, CUBLAS_OP_N, d_, N_, N_, &one, v, type, d_, rows, p,
                                                   type, N_, square, &zero, o_.get(), CUDA_R_32F, d_, rows, BH_,
                                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }

    struct Args {
        const void* q = nullptr;
        const void* k = nullptr;
        const void* v = nullptr;
        float* o = nullptr;
    };

    Problem problem_;
    uint64_t seed_ = 0;
    ElementType input_ = ElementType::f32, intermediate_ = ElementType::f32;
    bool causal_ = false;
    int N_ = 0, d_ = 0, BH_ = 0;
    DeviceBuffer q_, k_, v_, o_, ref_;               // inputs as floats (rounded), O, the reference
    DeviceBuffer typed_q_, typed_k_, typed_v_;       // the 16-bit copies (BF16, FP16 inputs)
    DeviceBuffer s_, p_;                             // the unfused path's scores and probabilities
    std::unique_ptr<CublasHandle> cublas_;         // default math: FP32 is FP32 unless told otherwise
    Args args_;
    unsigned long long* counters_ = nullptr;
};

}  // namespace

std::unique_ptr<Family> make_attention_family() { return std::make_unique<AttentionFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("attention", make_attention_family)

}  // namespace tilelab
