// The latency family on the GPU (its sizes: families/latency/shape.cpp): B blocks of the variant's
// threads per block, each thread advancing eight chains x ← x·m + c, m = 1. Owns the starts and
// increments (integers held in floats, made on the host from the seed), the NaN-poisoned output,
// the kernel arguments, validation against the exact result (every value stays an integer below
// 2^24, so the output must equal start + steps·increment bit for bit) and the yardstick: the same
// number of FMAs at the rate this GPU reaches with eight chains a thread and every SM full
// (support/fma_peak.cuh), measured now — "% of reference" is then "% of the FMA peak".
#include <fmt/format.h>
#include "device/cuda_check.h"
#include "gpu_worker/device_buffer.h"
#include "gpu_worker/family.h"
#include "gpu_worker/support_kernels.h"
#include "gpu_worker/timing.h"
#include "shape.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

constexpr int kPeakFmas = 32768;   // per yardstick thread: about 0.15 ms on an H200, far above a launch's few µs

DeviceBuffer upload(const std::vector<float>& v) {
    DeviceBuffer b(sizeof(float) * v.size());
    TL_CUDA_CHECK(cudaMemcpy(b.get(), v.data(), b.bytes(), cudaMemcpyHostToDevice));
    return b;
}

class LatencyFamily final : public Family {
public:
    void setup(const Problem& p, const Precision&, const FamilyOptions& options, uint64_t seed) override {
        x0_ = {}, inc_ = {}, out_ = {}, ref_ = {}, peak_out_ = {};
        threads_ = latency_threads(p, options);
        fmas_ = int(p.dim[1]);
        const LatencyInputs in = latency_inputs(seed, threads_, fmas_);
        x0_ = upload(in.start), inc_ = upload(in.increment), ref_ = upload(in.expected);
        out_ = DeviceBuffer(sizeof(float) * in.expected.size());
        peak_out_ = DeviceBuffer(sizeof(float) * size_t(support_kernels().fma_peak_threads()));
    }

    void poison_output(cudaStream_t s) override {
        TL_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), s));   // all bits set: NaN
    }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        x0_ptr_ = x0_.get<const float>();
        inc_ptr_ = inc_.get<const float>();
        out_ptr_ = out_.get<float>();
        counters_ = counters;
        return {&x0_ptr_, &inc_ptr_, &out_ptr_, &m_, &fmas_, &counters_};
    }

    Validation validate() override {
        Validation v;
        v.checked = true;
        v.reference = "start + steps·increment (exact)";
        v.tolerance = 0;   // integers below 2^24: every FMA is exact
        const size_t n = size_t(threads_) * kLatencyChains;
        const CompareSummary s = support_kernels().compare(out_.get<float>(), ref_.get<float>(), n, 0.0);
        if (record_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = latency_mismatch(at, threads_, device_element(out_.get<float>(), at),
                                     device_element(ref_.get<float>(), at), s.bad, n);
        return v;
    }

    // The yardstick's time, scaled from its FMAs to this problem's.
    double reference_ms(std::string& name) override {
        name = tr("family.latency.gpu.reference");
        const double peak_ms = time_reference([&] { support_kernels().fma_peak(peak_out_.get<float>(), kPeakFmas); });
        const double peak_fmas = double(support_kernels().fma_peak_threads()) * kPeakFmas;
        return peak_ms * double(threads_) * double(fmas_) / peak_fmas;
    }

private:
    uint64_t threads_ = 0;
    int fmas_ = 0;
    float m_ = 1.0f;
    DeviceBuffer x0_, inc_, out_, ref_, peak_out_;
    const float* x0_ptr_ = nullptr;
    const float* inc_ptr_ = nullptr;
    float* out_ptr_ = nullptr;
    unsigned long long* counters_ = nullptr;
};

}  // namespace

std::unique_ptr<Family> make_latency_family() { return std::make_unique<LatencyFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("latency", make_latency_family)

}  // namespace tilelab
