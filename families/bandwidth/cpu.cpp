// The bandwidth family on the CPU (engine/src/cpu/cpu_family.h): the input seeded as the GPU half
// seeds it, the sum starting at 0 (the kernel adds to it), checked exactly against the host's sum.
// The sum counts as two 4-byte elements, as the model counts every access.
#include "cpu/cpu_family.h"
#include "model/family_common.h"
#include "shape.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

class BandwidthCpu final : public CpuFamily {
public:
    std::vector<uint64_t> prepare(cpu::Machine& m, const Problem& p, const Precision&, const FamilyOptions&,
                                  uint64_t seed) override {
        n_ = p.dim[1];
        std::vector<float> in(static_cast<size_t>(n_));
        for (size_t i = 0; i < in.size(); ++i) in[i] = seeded_uniform(seed, i);
        expected_ = bandwidth_expected_sum(seed, n_);
        const uint64_t a = m.add_buffer(float_buffer("in", in));
        const uint64_t b = m.add_buffer(cpu::Buffer{"sum", std::vector<uint8_t>(sizeof(uint64_t), 0), int(sizeof(float))});
        return {a, b, uint64_t(n_), 0};
    }

    Validation validate(cpu::Machine& m) override {
        Validation v;
        v.checked = true;
        v.reference = "sum of the inputs' bit patterns (exact)";
        v.tolerance = 0;
        uint64_t got = 0;
        std::memcpy(&got, m.buffer(1).bytes.data(), sizeof got);
        v.passed = got == expected_;
        if (!v.passed) v.message = bandwidth_mismatch(got, expected_, n_);
        return v;
    }

private:
    int64_t n_ = 0;
    uint64_t expected_ = 0;
};

}  // namespace

std::unique_ptr<CpuFamily> make_bandwidth_cpu() { return std::make_unique<BandwidthCpu>(); }
TILELAB_REGISTER_CPU_FAMILY("bandwidth", make_bandwidth_cpu)

}  // namespace tilelab
