// The transpose family on the GPU (its sizes: families/transpose/shape.cpp): out (W×H) = the transpose of in, in an H×W matrix of floats (row-major). The problem is
// {W, H, ·}: the third number is not used (a square "8192" means 8192×8192). Owns the seeded
// random input, the NaN-poisoned output, the kernel arguments, the reference (a plain strided
// transpose on the GPU, support_kernels.h), validation — a transpose moves values, so the output
// must equal the reference bit for bit — and a device-to-device copy of the same W·H floats as
// the "% of copy" reference: a transpose reads and writes every element once, as a copy does.
#include <fmt/format.h>
#include <climits>
#include "device/cuda_check.h"
#include "gpu_worker/device_buffer.h"
#include "gpu_worker/family.h"
#include "gpu_worker/timing.h"
#include "shape.h"
#include "gpu_worker/support_kernels.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

class TransposeFamily final : public Family {
public:
    void setup(const Problem& p, const Precision&, const FamilyOptions&, uint64_t seed) override {
        in_ = {}, out_ = {}, ref_ = {};
        w_ = int(p.dim[0]), h_ = int(p.dim[1]);
        const size_t n = elements(p);
        in_ = DeviceBuffer(sizeof(float) * n);
        out_ = DeviceBuffer(sizeof(float) * n);
        ref_ = DeviceBuffer(sizeof(float) * n);
        support_kernels().fill_uniform(in_.get<float>(), n, seed);
        support_kernels().transpose_reference(in_.get<float>(), ref_.get<float>(), w_, h_);
        TL_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void poison_output(cudaStream_t s) override {
        TL_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), s));   // all bits set: NaN
    }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        in_ptr_ = in_.get<const float>();
        out_ptr_ = out_.get<float>();
        counters_ = counters;
        return {&in_ptr_, &out_ptr_, &w_, &h_, &counters_};
    }

    Validation validate() override {
        Validation v;
        v.checked = true;
        v.reference = "plain transpose (GPU), exact";
        v.tolerance = 0;   // values are moved, never computed
        const size_t n = size_t(w_) * size_t(h_);
        const CompareSummary s = support_kernels().compare(out_.get<float>(), ref_.get<float>(), n, 0.0);
        if (record_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        const float value = device_element(out_.get<float>(), at), expected = device_element(ref_.get<float>(), at);
        v.message = transpose_mismatch(at, h_, value, expected, s.bad, n);
        return v;
    }

    double reference_ms(std::string& name) override {
        name = tr("family.transpose.gpu.reference");
        return time_reference([&] {
            TL_CUDA_CHECK(cudaMemcpyAsync(out_.get(), in_.get(), in_.bytes(), cudaMemcpyDeviceToDevice, nullptr));
        });
    }

private:
    static size_t elements(const Problem& p) { return size_t(p.dim[0]) * size_t(p.dim[1]); }

    int w_ = 0, h_ = 0;
    DeviceBuffer in_, out_, ref_;
    const float* in_ptr_ = nullptr;
    float* out_ptr_ = nullptr;
    unsigned long long* counters_ = nullptr;
};

}  // namespace

std::unique_ptr<Family> make_transpose_family() { return std::make_unique<TransposeFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("transpose", make_transpose_family)

}  // namespace tilelab
