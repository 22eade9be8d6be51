// The convolution family on the CPU (engine/src/cpu/cpu_family.h): the image seeded as the GPU half
// seeds it, the bank in global memory and in the kernel's __constant__ conv_filter, the output all
// NaN bytes, the reference in double in the kernels' tap order, and the GPU half's tolerance.
#include <cstring>
#include "cpu/cpu_family.h"
#include "model/family_common.h"
#include "shape.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

class ConvolutionCpu final : public CpuFamily {
public:
    std::vector<uint64_t> prepare(cpu::Machine& m, const Problem& p, const Precision&, const FamilyOptions& options,
                                  uint64_t seed) override {
        w_ = int(p.dim[0]), h_ = int(p.dim[1]);
        opt_ = conv_options(options);
        in_.resize(size_t(w_) * size_t(h_));
        for (size_t i = 0; i < in_.size(); ++i) in_[i] = seeded_uniform(seed, i);
        bank_ = conv_bank(opt_);
        const uint64_t a = m.add_buffer(float_buffer("in", in_)), b = m.add_buffer(float_buffer("bank", bank_));
        const uint64_t c = m.add_buffer(poisoned_buffer("out", in_.size()));
        size_t bytes = 0;
        if (uint8_t* filter = m.module_variable("conv_filter", bytes); filter && bytes >= bank_.size() * sizeof(float))
            std::memcpy(filter, bank_.data(), bank_.size() * sizeof(float));
        return {a, b, c, uint64_t(w_), uint64_t(h_), 0};
    }

    Validation validate(cpu::Machine& m) override {
        Validation v;
        v.checked = true;
        v.reference = "double (CPU)";
        v.tolerance = kConvTolerance;
        const std::vector<double> ref = reference();
        const float* out = floats_of(m, 2);
        const HostComparison s = compare_on_host(out, ref.data(), ref.size(), v.tolerance, [](size_t) { return false; });
        if (record_host_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = conv_mismatch(at, w_, out[at], float(ref[at]), s.bad, ref.size());
        return v;
    }

private:
    // As kernels/support/conv_reference.cuh computes it, rounded to float like the GPU's.
    std::vector<double> reference() const {
        std::vector<double> ref(in_.size());
        const int d = 2 * opt_.radius + 1, r = opt_.radius;
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                const int f = (opt_.per_lane ? x : y) % opt_.filters;
                double sum = 0;
                for (int k = 0; k < d * d; ++k) {
                    const int gx = x + k % d - r, gy = y + k / d - r;
                    if (gx < 0 || gx >= w_ || gy < 0 || gy >= h_) continue;
                    sum += double(bank_[size_t(k) * size_t(opt_.filters) + size_t(f)]) * double(in_[size_t(gy) * size_t(w_) + size_t(gx)]);
                }
                ref[size_t(y) * size_t(w_) + size_t(x)] = double(float(sum));
            }
        return ref;
    }

    int w_ = 0, h_ = 0;
    ConvOptions opt_;
    std::vector<float> in_, bank_;
};

}  // namespace

std::unique_ptr<CpuFamily> make_convolution_cpu() { return std::make_unique<ConvolutionCpu>(); }
TILELAB_REGISTER_CPU_FAMILY("convolution", make_convolution_cpu)

}  // namespace tilelab
