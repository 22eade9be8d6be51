// The attention family on the GPU (its sizes: families/attention/shape.cpp): BH heads of
// O = softmax(Q·Kᵀ/√d)·V, Q, K, V of N×d elements of the kernel's input type (FP32, BF16, FP16),
// O of N×d floats, with or without the causal mask (the family option "causal"), Q scaled by the
// option "q_scale", and for the plain path (option "scores") the N×N matrices S (FP32) and P (input
// type) handed to its kernels, poisoned with O before each checked launch. Owns the seeded
// inputs (rounded to the input type, so that the reference reads the same values), the
// NaN-poisoned output, the kernel arguments, the reference in double on the GPU (chunk by chunk),
// validation with the tolerance derived in shape.cpp, and the yardstick for "% of reference": TileLab's own
// unfused path — cuBLAS S = Q·Kᵀ/√d into an N×N matrix per head (FP32), a three-pass softmax over
// S (P in the input type; masked entries zero), cuBLAS O = P·V — the path whose N² traffic the
// fused kernel avoids. Like PyTorch's unfused path it multiplies the masked half too.
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include "device/cuda_check.h"
#include "tilelab/i18n.h"
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
// The reference's scores in double, at most this many bytes at a time: whole heads where one
// head's N×N fits (N ≤ 2896), blocks of one head's rows past that.
constexpr size_t kReferenceChunkBytes = size_t(64) << 20;

// The plain path's N×N matrices, one allocation for every family instance of the process (the
// runner keeps one per input type and options): runs are one at a time and each launch writes S
// and P whole before it reads them, so a drag across types or options allocates nothing. Freed
// with the last instance holding it; a larger problem gets a larger one.
std::shared_ptr<DeviceBuffer> shared_scratch(size_t bytes) {
    static std::weak_ptr<DeviceBuffer> cache;
    std::shared_ptr<DeviceBuffer> b = cache.lock();
    if (b && b->bytes() >= bytes) return b;
    b = std::make_shared<DeviceBuffer>(bytes);
    cache = b;
    return b;
}

class AttentionFamily final : public Family {
public:
    void setup(const Problem& p, const Precision& precision, const FamilyOptions& options, uint64_t seed) override {
        intermediate_ = precision.intermediate;   // the tolerance's only; the buffers do not depend on it
        if (p == problem_ && seed == seed_ && precision.input == input_ && options == options_ && o_.get()) return;
        const auto started = std::chrono::steady_clock::now();
        q_ = {}, k_ = {}, v_ = {}, o_ = {}, ref_ = {}, typed_q_ = {}, typed_k_ = {}, typed_v_ = {}, s_ = {}, p_ = {};
        scratch_ = {}, kernel_s_ = nullptr, kernel_p_ = nullptr;
        problem_ = p, seed_ = seed, input_ = precision.input, options_ = options, causal_ = attention_causal(options);
        N_ = int(p.dim[0]), d_ = int(p.dim[1]), BH_ = int(p.dim[2]);
        const size_t n = elements();
        const SupportKernels& support = support_kernels();
        const auto input = [&](DeviceBuffer& floats, DeviceBuffer& typed, uint64_t s, int scale) {
            floats = DeviceBuffer(sizeof(float) * n);
            support.fill_uniform(floats.get<float>(), n, s);
            if (scale != 1) scale_on_host(floats, n, float(scale));
            if (element_bytes(input_) < 4) {
                typed = DeviceBuffer(size_t(element_bytes(input_)) * n);
                support.round_to_16bit(floats.get<float>(), typed.get(), n, input_);
            }
        };
        input(q_, typed_q_, seed, attention_q_scale(options));
        input(k_, typed_k_, seed ^ kAttentionSeedK, 1);
        input(v_, typed_v_, seed ^ kAttentionSeedV, 1);
        o_ = DeviceBuffer(sizeof(float) * n);
        if (attention_scores_in_memory(options)) {   // the plain path's S (FP32) and P (input type)
            const size_t s_bytes = (sizeof(float) * squares() + 255) / 256 * 256;   // P 256-byte aligned
            scratch_ = shared_scratch(s_bytes + size_t(element_bytes(input_)) * squares());
            kernel_s_ = scratch_->get<float>();
            kernel_p_ = static_cast<char*>(scratch_->get()) + s_bytes;
        }
        ref_ = DeviceBuffer(sizeof(double) * n);
        const bool trace = std::getenv("TILELAB_SETUP_TRACE") != nullptr;   // where a new type's or option's set-up goes
        if (trace) TL_CUDA_CHECK(cudaDeviceSynchronize());                 // the inputs' time apart from the reference's
        const auto inputs_done = std::chrono::steady_clock::now();
        reference_f64();
        TL_CUDA_CHECK(cudaDeviceSynchronize());
        if (trace)
            std::fprintf(stderr, "setup-trace: attention %s: buffers and inputs %.1f ms, reference %.1f ms\n",
                         format_problem(p).c_str(), std::chrono::duration<double, std::milli>(inputs_done - started).count(),
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - inputs_done).count());
    }

    // O, and the plain path's S and P: a pass that leaves any of them unwritten is found.
    void poison_output(cudaStream_t s) override {
        TL_CUDA_CHECK(cudaMemsetAsync(o_.get(), 0xFF, o_.bytes(), s));
        if (kernel_s_) {
            TL_CUDA_CHECK(cudaMemsetAsync(kernel_s_, 0xFF, sizeof(float) * squares(), s));
            TL_CUDA_CHECK(cudaMemsetAsync(kernel_p_, 0xFF, size_t(element_bytes(input_)) * squares(), s));
        }
    }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        args_ = {operand(q_, typed_q_), operand(k_, typed_k_), operand(v_, typed_v_), o_.get<float>()};
        counters_ = counters;
        if (kernel_s_) {
            args_.s = kernel_s_, args_.p = kernel_p_;
            return {&args_.q, &args_.k, &args_.v, &args_.o, &args_.s, &args_.p, &N_, &d_, &BH_, &counters_};
        }
        return {&args_.q, &args_.k, &args_.v, &args_.o, &N_, &d_, &BH_, &counters_};
    }

    Validation validate() override {
        Validation v;
        v.checked = true;
        v.reference = "double (GPU)";
        v.tolerance = attention_tolerance(N_, d_, intermediate_, options_);
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
        name = trf(causal_ ? "family.attention.gpu.reference_causal" : "family.attention.gpu.reference", element_label(input_));
        const size_t scores = squares();
        const size_t p_bytes = element_bytes(input_) < 4 ? size_t(element_bytes(input_)) * scores : 0;
        size_t free_bytes = 0, total = 0;
        TL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
        // The plain path's own S and P serve it where the kernels have them (each launch rewrites them).
        const bool shared = kernel_s_ != nullptr;
        if (!shared && 4 * scores + p_bytes > std::min(kMaxUnfusedBytes, free_bytes / 2)) return 0;
        if (!shared && !s_.get()) s_ = DeviceBuffer(4 * scores);
        if (!shared && p_bytes && !p_.get()) p_ = DeviceBuffer(p_bytes);
        if (!cublas_) cublas_ = std::make_unique<CublasHandle>(/*pedantic=*/false);
        return time_reference([&] { unfused(); });
    }

private:
    size_t elements() const { return size_t(N_) * size_t(d_) * size_t(BH_); }
    size_t squares() const { return size_t(N_) * size_t(N_) * size_t(BH_); }
    // Multiplies n floats by a power of two (exact), through the host: only for a q_scale other than 1.
    static void scale_on_host(DeviceBuffer& floats, size_t n, float scale) {
        std::vector<float> host(n);
        TL_CUDA_CHECK(cudaMemcpy(host.data(), floats.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
        for (float& x : host) x *= scale;
        TL_CUDA_CHECK(cudaMemcpy(floats.get(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    }
    const void* operand(const DeviceBuffer& floats, const DeviceBuffer& typed) const {
        return typed.get() ? typed.get() : floats.get();
    }

    // O in double (ref_) from the floats the kernel reads, chunk by chunk (kReferenceChunkBytes of
    // scores): S = Q·Kᵀ/√d, each row's safe softmax in place (causal: masked weights zero), O =
    // P·V, all in double (kernels/support/attention_reference.cuh). A chunk of rows takes Q's and
    // O's rows from its first.
    void reference_f64() {
        const SupportKernels& support = support_kernels();
        size_t free_bytes = 0, total = 0;
        TL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
        const size_t row_bytes = sizeof(double) * size_t(N_);
        const size_t cap = std::max(row_bytes, std::min(kReferenceChunkBytes, free_bytes / 4));
        const int rows = int(std::min<size_t>(size_t(N_), cap / row_bytes));
        const size_t most_heads = std::min<size_t>(size_t(BH_), 65535);   // a grid's z
        const int heads = rows == N_ ? int(std::clamp<size_t>(cap / (row_bytes * size_t(N_)), 1, most_heads)) : 1;
        const long long head = (long long)N_ * d_, block = (long long)rows * N_;
        DeviceBuffer scores(row_bytes * size_t(rows) * size_t(heads));
        double* s = scores.get<double>();
        for (int h = 0; h < BH_; h += heads) {
            const int count = std::min(heads, BH_ - h);
            const long long from = h * head;
            for (int r = 0; r < N_; r += rows) {
                const int R = std::min(rows, N_ - r);
                SupportKernels::Product qk{.M = R, .N = N_, .K = d_, .lda = d_, .ldb = d_, .ldc = N_, .stride_a = head,
                                           .stride_b = head, .stride_c = block, .batch = count, .b_transposed = true,
                                           .alpha = 1.0 / std::sqrt(double(d_))};
                support.product_f64(q_.get<float>() + from + (long long)r * d_, k_.get<float>() + from, s, qk);
                support.softmax_rows_f64(s, uint64_t(R) * uint64_t(count), N_, R, r, causal_);
                SupportKernels::Product pv{.M = R, .N = d_, .K = N_, .lda = N_, .ldb = d_, .ldc = d_, .stride_a = block,
                                           .stride_b = head, .stride_c = head, .batch = count};
                support.product_f64(s, v_.get<float>() + from, ref_.get<double>() + from + (long long)r * d_, pv);
            }
        }
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
        float* scores = kernel_s_ ? kernel_s_ : s_.get<float>();
        void* weights = element_bytes(input_) == 4 ? nullptr : kernel_p_ ? kernel_p_ : p_.get();
        TL_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cublas_->get(), CUBLAS_OP_T, CUBLAS_OP_N, N_, N_, d_, &scale, k, type, d_, rows,
                                                   q, type, d_, rows, &zero, scores, CUDA_R_32F, N_, square, BH_,
                                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        support_kernels().softmax_rows(scores, weights, uint64_t(N_) * uint64_t(BH_), N_, input_, causal_);
        const void* p = weights ? weights : scores;
        TL_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cublas_->get(), CUBLAS_OP_N, CUBLAS_OP_N, d_, N_, N_, &one, v, type, d_, rows, p,
                                                   type, N_, square, &zero, o_.get(), CUDA_R_32F, d_, rows, BH_,
                                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }

    struct Args {
        const void* q = nullptr;
        const void* k = nullptr;
        const void* v = nullptr;
        float* o = nullptr;
        float* s = nullptr;   // the plain path's (scores = 1)
        void* p = nullptr;
    };

    Problem problem_;
    uint64_t seed_ = 0;
    ElementType input_ = ElementType::f32, intermediate_ = ElementType::f32;
    FamilyOptions options_;
    bool causal_ = false;
    int N_ = 0, d_ = 0, BH_ = 0;
    DeviceBuffer q_, k_, v_, o_, ref_;               // inputs as floats (rounded), O, the reference
    DeviceBuffer typed_q_, typed_k_, typed_v_;       // the 16-bit copies (BF16, FP16 inputs)
    DeviceBuffer s_, p_;                             // the unfused path's scores and probabilities
    // The plain path's S and P (scores = 1), handed to the kernels: in shared_scratch().
    std::shared_ptr<DeviceBuffer> scratch_;
    float* kernel_s_ = nullptr;
    void* kernel_p_ = nullptr;
    std::unique_ptr<CublasHandle> cublas_;         // default math: FP32 is FP32 unless told otherwise
    Args args_;
    unsigned long long* counters_ = nullptr;
};

}  // namespace

std::unique_ptr<Family> make_attention_family() { return std::make_unique<AttentionFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("attention", make_attention_family)

}  // namespace tilelab
