// The transpose family on the CPU (engine/src/cpu/cpu_family.h): the input seeded as the GPU half
// seeds it, the output all NaN bytes, the reference a plain transpose, compared exactly (values are
// moved, never computed), with the GPU half's message.
#include "cpu/cpu_family.h"
#include "tilelab/registration.h"
#include "model/family_common.h"
#include "shape.h"

namespace tilelab {
namespace {

class TransposeCpu final : public CpuFamily {
public:
    std::vector<uint64_t> prepare(cpu::Machine& m, const Problem& p, const Precision&,
                                  const FamilyOptions&, uint64_t seed) override {
        w_ = int(p.dim[0]), h_ = int(p.dim[1]);
        in_.resize(size_t(w_) * size_t(h_));
        for (size_t i = 0; i < in_.size(); ++i) in_[i] = seeded_uniform(seed, i);
        const uint64_t a = m.add_buffer(float_buffer("in", in_)), b = m.add_buffer(poisoned_buffer("out", in_.size()));
        return {a, b, uint64_t(w_), uint64_t(h_), 0};
    }

    Validation validate(cpu::Machine& m) override {
        Validation v;
        v.checked = true;
        v.reference = "plain transpose (CPU), exact";
        v.tolerance = 0;
        // in is H×W (row-major); out is W×H: out[x][y] = in[y][x].
        std::vector<float> ref(in_.size());
        const size_t w = size_t(w_), h = size_t(h_);
        for (size_t y = 0; y < h; ++y)
            for (size_t x = 0; x < w; ++x) ref[x * h + y] = in_[y * w + x];
        const float* out = floats_of(m, 1);
        const HostComparison s = compare_on_host(out, ref.data(), ref.size(), 0.0, [](size_t) { return false; });
        if (record_host_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = transpose_mismatch(at, h_, out[at], ref[at], s.bad, ref.size());
        return v;
    }

private:
    int w_ = 0, h_ = 0;
    std::vector<float> in_;
};

}  // namespace

std::unique_ptr<CpuFamily> make_transpose_cpu() { return std::make_unique<TransposeCpu>(); }
TILELAB_REGISTER_CPU_FAMILY("transpose", make_transpose_cpu)

}  // namespace tilelab
