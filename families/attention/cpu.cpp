// The attention family on the CPU (engine/src/cpu/cpu_family.h): Q, K and V seeded and rounded to
// the input type exactly as the GPU half does, O all NaN bytes, the reference in double from the
// same rounded values (a two-pass safe softmax per row, over keys 0..i for row i when the options
// ask for the causal mask), the GPU half's tolerance and message.
#include <cmath>
#include <cstring>
#include "cpu/cpu_family.h"
#include "model/family_common.h"
#include "shape.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

class AttentionCpu final : public CpuFamily {
public:
    std::vector<uint64_t> prepare(cpu::Machine& m, const Problem& p, const Precision& precision, const FamilyOptions& options,
                                  uint64_t seed) override {
        N_ = p.dim[0], d_ = p.dim[1], BH_ = p.dim[2];
        causal_ = attention_causal(options);
        options_ = options;
        intermediate_ = precision.intermediate;
        const size_t n = size_t(N_ * d_ * BH_);
        SeededInput q = seeded_input("Q", seed, n, precision.input, float(attention_q_scale(options))),
              k = seeded_input("K", seed ^ kAttentionSeedK, n, precision.input),
              v = seeded_input("V", seed ^ kAttentionSeedV, n, precision.input);
        q_ = std::move(q.values), k_ = std::move(k.values), v_ = std::move(v.values);
        const uint64_t bq = m.add_buffer(std::move(q.buffer)), bk = m.add_buffer(std::move(k.buffer)),
                       bv = m.add_buffer(std::move(v.buffer)), bo = m.add_buffer(poisoned_buffer("O", n));
        if (attention_scores_in_memory(options)) {   // the plain path's S (FP32) and P (input type), poisoned
            const size_t squares = size_t(N_ * N_ * BH_);
            const int p_bytes = element_bytes(precision.input);
            const uint64_t bs = m.add_buffer(poisoned_buffer("S", squares));
            const uint64_t bp = m.add_buffer(cpu::Buffer{"P", std::vector<uint8_t>(squares * size_t(p_bytes), 0xFF), p_bytes});
            return {bq, bk, bv, bo, bs, bp, uint64_t(N_), uint64_t(d_), uint64_t(BH_), 0};
        }
        return {bq, bk, bv, bo, uint64_t(N_), uint64_t(d_), uint64_t(BH_), 0};
    }

    // Every type the shape accepts (AttentionShape::precision_invalid_reason, checked before the
    // CPU run): FP32, BF16 and FP16 inputs, rounded as the GPU's fill rounds them.
    bool takes(const Precision&) const override { return true; }

    Validation validate(cpu::Machine& m) override {
        Validation v;
        v.checked = true;
        v.reference = "double (CPU)";
        v.tolerance = attention_tolerance(N_, d_, intermediate_, options_);
        const std::vector<double> ref = reference();
        const float* o = floats_of(m, 3);
        const HostComparison s = compare_on_host(o, ref.data(), ref.size(), v.tolerance, [](size_t) { return false; });
        if (record_host_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = attention_mismatch(at, N_, d_, o[at], ref[at], v.tolerance, s.bad, ref.size());
        return v;
    }

private:
    // softmax(q·Kᵀ/√d)·V per row, in double: scores, their maximum, then the weighted sum; a
    // causal row i over keys 0..i.
    std::vector<double> reference() const {
        const size_t N = size_t(N_), d = size_t(d_);
        const double scale = 1.0 / std::sqrt(double(d_));
        std::vector<double> out(q_.size()), s(N);
        for (size_t h = 0; h < size_t(BH_); ++h)
            for (size_t i = 0; i < N; ++i) {
                const float* q = &q_[(h * N + i) * d];
                const size_t keys = causal_ ? i + 1 : N;
                double top = -INFINITY, sum = 0;
                for (size_t j = 0; j < keys; ++j) {
                    const float* k = &k_[(h * N + j) * d];
                    double dot = 0;
                    for (size_t c = 0; c < d; ++c) dot += double(q[c]) * double(k[c]);
                    s[j] = dot * scale;
                    top = std::fmax(top, s[j]);
                }
                double* o = &out[(h * N + i) * d];
                for (size_t j = 0; j < keys; ++j) {
                    const double w = std::exp(s[j] - top);
                    sum += w;
                    for (size_t c = 0; c < d; ++c) o[c] += w * double(v_[(h * N + j) * d + c]);
                }
                for (size_t c = 0; c < d; ++c) o[c] /= sum;
            }
        return out;
    }

    int64_t N_ = 0, d_ = 0, BH_ = 0;
    ElementType intermediate_ = ElementType::f32;
    FamilyOptions options_;
    bool causal_ = false;
    std::vector<float> q_, k_, v_;
};

}  // namespace

std::unique_ptr<CpuFamily> make_attention_cpu() { return std::make_unique<AttentionCpu>(); }
TILELAB_REGISTER_CPU_FAMILY("attention", make_attention_cpu)

}  // namespace tilelab
