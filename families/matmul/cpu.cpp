// The matmul family on the CPU (engine/src/cpu/cpu_family.h): A and B seeded exactly as the GPU
// half seeds them (BF16 and FP16 inputs rounded to the type as its fill rounds them; TF32 reads
// the same floats as FP32, the kernel rounds them), C all NaN bytes, the reference in double from
// the values the kernel reads (the GPU's small-problem reference, summed in the same k order) and
// the GPU half's tolerance and message.
#include "cpu/cpu_family.h"
#include "tilelab/registration.h"
#include "model/family_common.h"
#include "shape.h"
#include "tilelab/precision.h"

namespace tilelab {
namespace {

// B's seed, derived from A's as on the GPU (gpu_cuda.cpp).
constexpr uint64_t kSeedB = 0x5DEECE66Dull;

class MatmulCpu final : public CpuFamily {
public:
    std::vector<uint64_t> prepare(cpu::Machine& m, const Problem& p, const Precision& precision,
                                  const FamilyOptions&, uint64_t seed) override {
        M_ = p.dim[0], N_ = p.dim[1], K_ = p.dim[2];
        precision_ = precision;
        SeededInput a_in = seeded_input("A", seed, size_t(M_ * K_), precision.input),
                    b_in = seeded_input("B", seed ^ kSeedB, size_t(K_ * N_), precision.input);
        a_ = std::move(a_in.values), b_ = std::move(b_in.values);
        const uint64_t a = m.add_buffer(std::move(a_in.buffer)), b = m.add_buffer(std::move(b_in.buffer));
        const uint64_t c = m.add_buffer(poisoned_buffer("C", size_t(M_ * N_)));
        return {a, b, c, uint64_t(M_), uint64_t(N_), uint64_t(K_), 0};
    }

    // FP32, TF32 (FP32 in memory), BF16 and FP16 inputs with FP32 results: what the tensor-core
    // lessons run (the CPU run models ldmatrix and mma.sync, engine/src/cpu/cpu_tensor.cpp).
    bool takes(const Precision& precision) const override {
        return precision.output == ElementType::f32 && precision.accumulate == ElementType::f32;
    }

    Validation validate(cpu::Machine& m) override {
        Validation v;
        v.checked = true;
        v.reference = "double (CPU)";
        v.tolerance = matmul_tolerance(precision_, K_);   // as on the GPU (precision.cpp derives it)
        std::vector<double> ref(size_t(M_ * N_));
        for (int64_t i = 0; i < M_; ++i)
            for (int64_t j = 0; j < N_; ++j) {
                double sum = 0;
                for (int64_t k = 0; k < K_; ++k) sum += double(a_[size_t(i * K_ + k)]) * double(b_[size_t(k * N_ + j)]);
                ref[size_t(i * N_ + j)] = sum;
            }
        const float* c = floats_of(m, 2);
        const HostComparison s = compare_on_host(c, ref.data(), ref.size(), v.tolerance, [](size_t) { return false; });
        if (record_host_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = matmul_mismatch(at, size_t(N_), c[at], ref[at], v.tolerance, s.bad, ref.size());
        return v;
    }

private:
    int64_t M_ = 0, N_ = 0, K_ = 0;
    Precision precision_;
    std::vector<float> a_, b_;
};

}  // namespace

std::unique_ptr<CpuFamily> make_matmul_cpu() { return std::make_unique<MatmulCpu>(); }
TILELAB_REGISTER_CPU_FAMILY("matmul", make_matmul_cpu)

}  // namespace tilelab
