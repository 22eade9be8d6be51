// The latency family on the CPU (engine/src/cpu/cpu_family.h): the starts and increments as the
// GPU half makes them, the output all NaN bytes, the expected values exact, compared bit for bit.
#include "cpu/cpu_family.h"
#include "shape.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

class LatencyCpu final : public CpuFamily {
public:
    std::vector<uint64_t> prepare(cpu::Machine& m, const Problem& p, const Precision&, const FamilyOptions& options,
                                  uint64_t seed) override {
        threads_ = latency_threads(p, options);
        in_ = latency_inputs(seed, threads_, p.dim[1]);
        const uint64_t a = m.add_buffer(float_buffer("x0", in_.start)), b = m.add_buffer(float_buffer("inc", in_.increment));
        const uint64_t c = m.add_buffer(poisoned_buffer("out", in_.expected.size()));
        uint64_t one = 0;
        const float m1 = 1.0f;
        std::memcpy(&one, &m1, sizeof m1);
        return {a, b, c, one, uint64_t(p.dim[1]), 0};
    }

    Validation validate(cpu::Machine& m) override {
        Validation v;
        v.checked = true;
        v.reference = "start + steps·increment (exact)";
        v.tolerance = 0;
        const float* out = floats_of(m, 2);
        const HostComparison s = compare_on_host(out, in_.expected.data(), in_.expected.size(), 0.0, [](size_t) { return true; });
        if (record_host_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = latency_mismatch(at, threads_, out[at], in_.expected[at], s.bad, in_.expected.size());
        return v;
    }

private:
    uint64_t threads_ = 0;
    LatencyInputs in_;
};

}  // namespace

std::unique_ptr<CpuFamily> make_latency_cpu() { return std::make_unique<LatencyCpu>(); }
TILELAB_REGISTER_CPU_FAMILY("latency", make_latency_cpu)

}  // namespace tilelab
