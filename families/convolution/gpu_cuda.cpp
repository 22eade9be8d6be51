// The convolution family on the GPU (its sizes and options: families/convolution/shape.cpp): a W×H
// image convolved with a bank of F filters (shape.h). Owns the seeded image, the bank (in global
// memory for the kernels that read it there or copy it to shared memory, and in the loaded
// kernel's __constant__ conv_filter), the NaN-poisoned output, the kernel arguments, a reference in
// double on the GPU (support/conv_reference.cuh), validation, and a device copy of the image as
// the "% of copy" yardstick: the bytes a convolution that read every pixel once would move.
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

class ConvolutionFamily final : public Family {
public:
    void setup(const Problem& p, const Precision&, const FamilyOptions& options, uint64_t seed) override {
        in_ = {}, out_ = {}, ref_ = {}, bank_ = {};
        w_ = int(p.dim[0]), h_ = int(p.dim[1]);
        opt_ = conv_options(options);
        const size_t n = size_t(w_) * size_t(h_);
        in_ = DeviceBuffer(sizeof(float) * n);
        out_ = DeviceBuffer(sizeof(float) * n);
        ref_ = DeviceBuffer(sizeof(float) * n);
        bank_host_ = conv_bank(opt_);
        bank_ = DeviceBuffer(sizeof(float) * bank_host_.size());
        TL_CUDA_CHECK(cudaMemcpy(bank_.get(), bank_host_.data(), bank_.bytes(), cudaMemcpyHostToDevice));
        support_kernels().fill_uniform(in_.get<float>(), n, seed);
        support_kernels().conv2d_reference(in_.get<float>(), bank_.get<float>(), ref_.get<float>(), w_, h_, opt_.radius,
                                           opt_.filters, opt_.per_lane);
        TL_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void on_library_loaded(cudaLibrary_t lib) override {
        void* filter = nullptr;
        size_t bytes = 0;
        TL_CUDA_CHECK(cudaLibraryGetGlobal(&filter, &bytes, lib, "conv_filter"));
        if (bytes < bank_.bytes())
            throw CudaError(fmt::format("conv_filter in the loaded kernel has {} bytes, the bank {}.", bytes, bank_.bytes()),
                            cudaSuccess);
        TL_CUDA_CHECK(cudaMemcpy(filter, bank_.get(), bank_.bytes(), cudaMemcpyDeviceToDevice));
    }

    void poison_output(cudaStream_t s) override {
        TL_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), s));   // all bits set: NaN
    }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        in_ptr_ = in_.get<const float>();
        bank_ptr_ = bank_.get<const float>();
        out_ptr_ = out_.get<float>();
        counters_ = counters;
        return {&in_ptr_, &bank_ptr_, &out_ptr_, &w_, &h_, &counters_};
    }

    Validation validate() override {
        Validation v;
        v.checked = true;
        v.reference = "double (GPU)";
        v.tolerance = kConvTolerance;   // derived in shape.h
        const size_t n = size_t(w_) * size_t(h_);
        const CompareSummary s = support_kernels().compare(out_.get<float>(), ref_.get<float>(), n, v.tolerance);
        if (record_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = conv_mismatch(at, w_, device_element(out_.get<float>(), at), device_element(ref_.get<float>(), at),
                                  s.bad, n);
        return v;
    }

    double reference_ms(std::string& name) override {
        name = tr("family.convolution.gpu.reference");
        return time_reference([&] {
            TL_CUDA_CHECK(cudaMemcpyAsync(out_.get(), in_.get(), in_.bytes(), cudaMemcpyDeviceToDevice, nullptr));
        });
    }

private:
    int w_ = 0, h_ = 0;
    ConvOptions opt_;
    std::vector<float> bank_host_;
    DeviceBuffer in_, out_, ref_, bank_;
    const float* in_ptr_ = nullptr;
    const float* bank_ptr_ = nullptr;
    float* out_ptr_ = nullptr;
    unsigned long long* counters_ = nullptr;
};

}  // namespace

std::unique_ptr<Family> make_convolution_family() { return std::make_unique<ConvolutionFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("convolution", make_convolution_family)

}  // namespace tilelab
