// The bandwidth family on the GPU (its sizes: families/bandwidth/shape.cpp): B blocks read N
// floats and add their bit patterns into one 64-bit sum. Owns the seeded input (made on the device),
// the sum (zeroed before each run: the kernel adds to it; a kernel that adds nothing leaves 0, which
// is never the expected sum of N ≥ 1 nonzero patterns), the kernel arguments, validation (the sum
// must equal the host's exactly) and the yardstick: a device-to-device copy moving the same bytes
// (N/2 floats read and N/2 written), so "% of reference" is the share of copy bandwidth.
#include <algorithm>
#include "device/cuda_check.h"
#include "gpu_worker/device_buffer.h"
#include "gpu_worker/family.h"
#include "gpu_worker/support_kernels.h"
#include "gpu_worker/timing.h"
#include "shape.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

class BandwidthFamily final : public Family {
public:
    void setup(const Problem& p, const Precision&, const FamilyOptions&, uint64_t seed) override {
        in_ = {}, sum_ = {}, copy_ = {};
        n_ = p.dim[1];
        in_ = DeviceBuffer(sizeof(float) * size_t(n_));
        sum_ = DeviceBuffer(sizeof(uint64_t));
        copy_ = DeviceBuffer(sizeof(float) * size_t(std::max<int64_t>(1, n_ / 2)));
        support_kernels().fill_uniform(in_.get<float>(), uint64_t(n_), seed);
        expected_ = bandwidth_expected_sum(seed, n_);
        TL_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void poison_output(cudaStream_t s) override { TL_CUDA_CHECK(cudaMemsetAsync(sum_.get(), 0, sum_.bytes(), s)); }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        in_ptr_ = in_.get<const float>();
        sum_ptr_ = sum_.get<unsigned long long>();
        n_arg_ = n_;
        counters_ = counters;
        return {&in_ptr_, &sum_ptr_, &n_arg_, &counters_};
    }

    Validation validate() override {
        Validation v;
        v.checked = true;
        v.reference = "sum of the inputs' bit patterns (exact)";
        v.tolerance = 0;
        const uint64_t got = device_element(sum_.get<unsigned long long>(), 0);
        v.passed = got == expected_;
        if (!v.passed) v.message = bandwidth_mismatch(got, expected_, n_);
        return v;
    }

    double reference_ms(std::string& name) override {
        name = tr("family.bandwidth.gpu.reference");
        const size_t half = sizeof(float) * size_t(n_ / 2);
        return time_reference([&] {
            TL_CUDA_CHECK(cudaMemcpyAsync(copy_.get(), in_.get(), half, cudaMemcpyDeviceToDevice, nullptr));
        });
    }

private:
    int64_t n_ = 0;
    uint64_t expected_ = 0;
    DeviceBuffer in_, sum_, copy_;
    const float* in_ptr_ = nullptr;
    unsigned long long* sum_ptr_ = nullptr;
    long long n_arg_ = 0;
    unsigned long long* counters_ = nullptr;
};

}  // namespace

std::unique_ptr<Family> make_bandwidth_family() { return std::make_unique<BandwidthFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("bandwidth", make_bandwidth_family)

}  // namespace tilelab
