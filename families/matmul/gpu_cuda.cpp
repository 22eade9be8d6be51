// The matmul family on the GPU (its sizes: families/matmul/shape.cpp): C = A·B with A (M×K), B (K×N), C (M×N), all
// row-major; A and B of the kernel's input type (FP32, TF32 in floats, BF16, FP16), C in FP32.
// Owns what every matmul variant shares: seeded random inputs, the NaN-poisoned output, the
// kernel arguments, the reference (double precision for small problems, cuBLAS at the kernel's
// precision otherwise), validation with a tolerance derived for that precision (tilelab/precision.h),
// and cuBLAS's time at the same size and precision for "% of cuBLAS". Inputs, reference and
// comparison all stay on the GPU (support_kernels.h): only a summary comes back.
#include <cublas_v2.h>
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>
#include "device/cuda_check.h"
#include "tilelab/i18n.h"
#include "gpu_worker/cublas_handle.h"
#include "gpu_worker/device_buffer.h"
#include "gpu_worker/family.h"
#include "model/family_shape.h"
#include "shape.h"
#include "gpu_worker/timing.h"
#include "gpu_worker/support_kernels.h"

namespace tilelab {
namespace {

// B's seed, derived from A's so that one seed names both inputs.
constexpr uint64_t kSeedB = 0x5DEECE66Dull;

// Row-major C = A·B through column-major cuBLAS: a row-major matrix is its transpose in column
// major, and C^T = B^T·A^T, so call the GEMM with the operands swapped and N, M exchanged. FP32:
// SGEMM; TF32: GemmEx on floats with the TF32 compute type; BF16/FP16: GemmEx on 16-bit A and B,
// accumulating and writing C in FP32.
void gemm_row_major(cublasHandle_t h, ElementType input, int M, int N, int K, const void* A, const void* B, float* C) {
    const float one = 1.0f, zero = 0.0f;
    if (input == ElementType::f32) {
        TL_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, static_cast<const float*>(B), N,
                                    static_cast<const float*>(A), K, &zero, C, N));
        return;
    }
    const cudaDataType type = cuda_data_type(input);
    const cublasComputeType_t compute = input == ElementType::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    TL_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, type, N, A, type, K, &zero, C, CUDA_R_32F,
                                 N, compute, CUBLAS_GEMM_DEFAULT));
}

// "cuBLAS SGEMM" for FP32, "cuBLAS BF16 GEMM" and so on for the others.
std::string cublas_name(ElementType input) {
    return input == ElementType::f32 ? "cuBLAS SGEMM" : "cuBLAS " + element_label(input) + " GEMM";
}

class MatmulFamily final : public Family {
public:
    void setup(const Problem& p, const Precision& precision, const FamilyOptions&, uint64_t seed) override {
        const SupportKernels& support = support_kernels();
        if (p != problem_ || seed != seed_ || !c_.get()) {
            // Free the previous problem's buffers before allocating the new ones.
            a_ = {}, b_ = {}, c_ = {}, typed_.clear();
            problem_ = p, seed_ = seed;
            M_ = int(p.dim[0]), N_ = int(p.dim[1]), K_ = int(p.dim[2]);
            a_ = DeviceBuffer(sizeof(float) * size_t(M_) * size_t(K_));
            b_ = DeviceBuffer(sizeof(float) * size_t(K_) * size_t(N_));
            c_ = DeviceBuffer(sizeof(float) * size_t(M_) * size_t(N_));
            floats_ = std::nullopt;
        }
        precision_ = precision;
        // A tensor-core lesson's first run prepares the other tensor-core types too (their 16-bit
        // copies and references, which load cuBLAS's kernels for them): a drag of the precision
        // then finds them ready instead of paying tens of milliseconds on the first visit of each.
        if (precision.input != ElementType::f32 && a_.bytes() + b_.bytes() <= kPrepareAheadBytes)
            for (const ElementType other : {ElementType::tf32, ElementType::bf16, ElementType::f16})
                if (other != precision.input && typed_.count(other) == 0 && device_supports(other)) try {
                        prepare_type(support, other);
                    } catch (const std::exception&) {
                        typed_.erase(other);   // prepared again, with its error, if the learner picks it
                    }
        prepare_type(support, precision.input);
        TL_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void poison_output(cudaStream_t s) override {
        // All bits set is a NaN: any element the kernel forgets to write fails validation.
        TL_CUDA_CHECK(cudaMemsetAsync(c_.get(), 0xFF, c_.bytes(), s));
    }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        args_ = {kernel_a(), kernel_b(), c_.get<float>()};
        counters_ = counters;
        return {&args_.a, &args_.b, &args_.c, &M_, &N_, &K_, &counters_};
    }

    Validation validate() override;

    double reference_ms(std::string& name) override {
        name = cublas_name(precision_.input);
        // Written into C, which is poisoned again before the next kernel run.
        return time_reference([&] { gemm_row_major(cublas(), precision_.input, M_, N_, K_, kernel_a(), kernel_b(), c_.get<float>()); });
    }

private:
    // Operands of at most this many bytes (A and B as floats) have every tensor-core type prepared.
    static constexpr size_t kPrepareAheadBytes = size_t(256) << 20;

    // The floats as this input type reads them: fresh for FP32 and TF32 (rounding TF32 is the
    // kernel's and the tensor cores' business), rounded to the 16-bit type's values otherwise.
    // A type met before for this problem keeps its 16-bit copies and its reference, so that
    // going back to it (a drag of the precision) redoes neither.
    void prepare_type(const SupportKernels& support, ElementType input) {
        const ElementType rounded = element_bytes(input) < int(sizeof(float)) ? input : ElementType::f32;
        const bool seen = typed_.count(input) > 0;
        if (floats_ != rounded && (!seen || rounded == ElementType::f32)) {
            support.fill_uniform(a_.get<float>(), a_.bytes() / sizeof(float), seed_);
            support.fill_uniform(b_.get<float>(), b_.bytes() / sizeof(float), seed_ ^ kSeedB);
            floats_ = ElementType::f32;
        }
        if (!seen) {
            // Large problems keep one type's copies at a time: the device memory the worker checked
            // before the set-up counts one.
            if (a_.bytes() + b_.bytes() > (size_t(512) << 20)) typed_.clear();
            make_typed(support, input);
        }
    }

    // BF16 and TF32 tensor cores (and cuBLAS's kernels for them) need sm_80; FP16 runs everywhere.
    static bool device_supports(ElementType input) {
        int device = 0, major = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
            return false;
        return input == ElementType::f16 || major >= 8;
    }

    // A 16-bit input's copies of A and B (the floats rounded to the same values first) and the
    // reference from the values this type reads: double precision for small problems, else
    // cuBLAS at this precision.
    void make_typed(const SupportKernels& support, ElementType input) {
        const size_t M = size_t(M_), N = size_t(N_), K = size_t(K_);
        Typed& t = typed_[input];
        const size_t bytes = size_t(element_bytes(input));
        if (bytes < sizeof(float)) {
            t.a = DeviceBuffer(bytes * M * K);
            t.b = DeviceBuffer(bytes * K * N);
            support.round_to_16bit(a_.get<float>(), t.a.get(), M * K, input);
            support.round_to_16bit(b_.get<float>(), t.b.get(), K * N, input);
            floats_ = input;
        }
        t.f64 = matmul_uses_double_reference(problem_);
        if (t.f64) {
            t.kind = "double (GPU)";
            t.ref = DeviceBuffer(sizeof(double) * M * N);
            support.matmul_reference_f64(a_.get<float>(), b_.get<float>(), t.ref.get<double>(), M_, N_, K_);
        } else {
            t.kind = input == ElementType::f32 ? "cuBLAS FP32" : cublas_name(input);
            t.ref = DeviceBuffer(sizeof(float) * M * N);
            gemm_row_major(cublas(), input, M_, N_, K_, operand_a(input), operand_b(input), t.ref.get<float>());
        }
    }

    cublasHandle_t cublas() {
        // FP32 needs the pedantic handle, the other types the default one: one of each, since a
        // worker serves lessons of any precision in turn.
        auto& h = cublas_[precision_.input == ElementType::f32 ? 0 : 1];
        if (!h) h = std::make_unique<CublasHandle>(precision_.input == ElementType::f32);
        return h->get();
    }
    // The operands as a kernel of this input type reads them: the 16-bit copies, or the floats.
    const void* operand_a(ElementType input) const {
        const auto t = typed_.find(input);
        return t != typed_.end() && t->second.a.get() ? t->second.a.get() : a_.get();
    }
    const void* operand_b(ElementType input) const {
        const auto t = typed_.find(input);
        return t != typed_.end() && t->second.b.get() ? t->second.b.get() : b_.get();
    }
    const void* kernel_a() const { return operand_a(precision_.input); }
    const void* kernel_b() const { return operand_b(precision_.input); }

    struct Args {
        const void* a = nullptr;
        const void* b = nullptr;
        float* c = nullptr;
    };

    // What one input type needs beyond the floats: its 16-bit copies (empty for FP32 and TF32)
    // and the reference computed from the values it reads.
    struct Typed {
        DeviceBuffer a, b, ref;
        std::string kind;    // the reference's name
        bool f64 = false;    // ref holds doubles (small problems), else cuBLAS's floats
    };

    int M_ = 0, N_ = 0, K_ = 0;
    Problem problem_;
    uint64_t seed_ = 0;
    Precision precision_;
    DeviceBuffer a_, b_, c_;                     // A and B as floats, C
    std::optional<ElementType> floats_;          // what a_ and b_ hold: fresh (f32) or rounded to a type
    std::map<ElementType, Typed> typed_;         // per input type met for this problem
    std::unique_ptr<CublasHandle> cublas_[2];    // pedantic (FP32) and default math
    Args args_;
    unsigned long long* counters_ = nullptr;
};

Validation MatmulFamily::validate() {
    Validation v;
    v.checked = true;
    const Typed& typed = typed_.at(precision_.input);
    v.reference = typed.kind;
    // Tolerance, relative to max(1, |expected|), derived for the precision in precision.cpp: 1e-4·√K
    // for FP32 accumulation (also BF16/FP16 inputs, whose products are exact in FP32), more for
    // TF32's rounding of the inputs inside the kernel.
    v.tolerance = matmul_tolerance(precision_, K_);

    const size_t N = size_t(N_), n = size_t(M_) * N;
    const SupportKernels& support = support_kernels();
    const bool f64 = typed.f64;
    const CompareSummary s = f64 ? support.compare(c_.get<float>(), typed.ref.get<double>(), n, v.tolerance)
                                 : support.compare(c_.get<float>(), typed.ref.get<float>(), n, v.tolerance);
    if (record_comparison(v, s)) return v;
    // The first mismatch, as the user will want to see it: two values copied back, nothing more.
    const size_t at = size_t(s.first_bad);
    const float got = device_element(c_.get<float>(), at);
    const double ref = f64 ? device_element(typed.ref.get<double>(), at) : double(device_element(typed.ref.get<float>(), at));
    v.message = matmul_mismatch(at, N, got, ref, v.tolerance, s.bad, n);
    return v;
}

}  // namespace

std::unique_ptr<Family> make_matmul_family() { return std::make_unique<MatmulFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("matmul", make_matmul_family)

}  // namespace tilelab
