// The stencil family on the GPU (its sizes: families/stencil/shape.cpp): a 3D grid of Nx×Ny×Nz floats (x fastest) swept once by a 7-point stencil
// (or, for the basic and shared-tiled kernels at RADIUS = 2, by the 13-point order-2 stencil).
// Owns what every stencil variant shares: seeded random inputs, the coefficients in the kernels'
// __constant__ stencil_coef, the NaN-poisoned output, the kernel arguments, a reference sweep in
// double, validation (interior within a tolerance, boundary cells exactly equal to the input),
// and a device-to-device copy of the same grid as the "% of copy bandwidth" reference. Inputs,
// reference and comparison stay on the GPU (support_kernels.h); the tests check the reference
// kernel against a CPU walk.
#include <fmt/format.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>
#include "device/cuda_check.h"
#include "tilelab/i18n.h"
#include "gpu_worker/device_buffer.h"
#include "gpu_worker/family.h"
#include "model/family_shape.h"
#include "shape.h"
#include "gpu_worker/timing.h"
#include "gpu_worker/support_kernels.h"

namespace tilelab {
namespace {

class StencilFamily final : public Family {
public:
    void setup(const Problem& p, const Precision&, const FamilyOptions& options, uint64_t seed) override {
        in_ = {}, out_ = {}, ref_ = {}, ref2_ = {}, chain_[0] = {}, chain_[1] = {};   // free the previous problem's buffers first
        nx_ = int(p.dim[0]), ny_ = int(p.dim[1]), nz_ = int(p.dim[2]);
        steps_ = stencil_steps(options);
        const size_t n = points(p);
        const SupportKernels& support = support_kernels();
        in_ = DeviceBuffer(sizeof(float) * n);
        out_ = DeviceBuffer(sizeof(float) * n);
        ref_ = DeviceBuffer(sizeof(float) * n);
        if (!coef_) {
            coef_ = DeviceBuffer(sizeof kStencilCoefficients);
            TL_CUDA_CHECK(cudaMemcpy(coef_.get(), kStencilCoefficients, sizeof kStencilCoefficients, cudaMemcpyHostToDevice));
        }
        support.fill_uniform(in_.get<float>(), n, seed);
        if (steps_ > 1)
            for (DeviceBuffer& b : chain_) b = DeviceBuffer(sizeof(float) * n);
        // The reference sweep, summed in double in the kernels' order with the coefficients as
        // the GPU sees them (rounded to float), then rounded to float once for storage; after
        // several steps, each sweep reading the last (the chain's first buffer in between).
        const float* from = in_.get<float>();
        for (int s = 0; s < steps_; ++s) {
            float* to = (steps_ - 1 - s) % 2 == 0 ? ref_.get<float>() : chain_[0].get<float>();
            support.stencil7_reference(from, to, nx_, ny_, nz_, coef_.get<float>());
            from = to;
        }
        TL_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void on_library_loaded(cudaLibrary_t lib) override {
        void* coefficients = nullptr;
        size_t bytes = 0;
        TL_CUDA_CHECK(cudaLibraryGetGlobal(&coefficients, &bytes, lib, "stencil_coef"));
        if (bytes != sizeof kStencilCoefficients)
            throw CudaError(fmt::format("stencil_coef in the loaded kernel has {} bytes, expected {}.", bytes,
                                        sizeof kStencilCoefficients),
                            cudaSuccess);
        TL_CUDA_CHECK(cudaMemcpy(coefficients, kStencilCoefficients, sizeof kStencilCoefficients, cudaMemcpyHostToDevice));
        // An order-R kernel (R > 1) writes its R here during a launch; 0 (left by the others) means 1.
        // A kernel that never references the variable may not carry it: then it is order 1.
        radius_used_ = nullptr;
        if (cudaLibraryGetGlobal(&radius_used_, &bytes, lib, "stencil_radius_used") != cudaSuccess) {
            (void)cudaGetLastError();
            radius_used_ = nullptr;
            return;
        }
        TL_CUDA_CHECK(cudaMemset(radius_used_, 0, sizeof(int)));
    }

    void poison_output(cudaStream_t s) override {
        // All bits set is a NaN: a cell the kernel forgets to write fails validation.
        TL_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), s));
    }

    std::vector<void*> kernel_args(unsigned long long* counters) override {
        in_ptr_ = in_.get<const float>();
        out_ptr_ = out_.get<float>();
        counters_ = counters;
        return {&in_ptr_, &out_ptr_, &nx_, &ny_, &nz_, &counters_};
    }

    // Launches of several time steps read what the one before wrote: the first reads in, the
    // last writes out, the ones between write the two chain buffers in turn.
    void before_launch(size_t index, size_t count) override {
        if (count < 2) return;
        if (!chain_[0]) throw CudaError("a chain of stencil launches needs the option steps > 1", cudaSuccess);
        in_ptr_ = index == 0 ? in_.get<const float>() : chain_[(index - 1) % 2].get<const float>();
        out_ptr_ = index + 1 == count ? out_.get<float>() : chain_[index % 2].get<float>();
    }

    Validation validate() override;

    double reference_ms(std::string& name) override {
        // The same bytes a perfect sweep moves: read every cell once, write every cell once.
        // Written into out, which is poisoned again before the next kernel run. For S steps, S
        // such copies: the memory wall of S sweeps, which fused steps can beat.
        name = steps_ == 1 ? tr("family.stencil.gpu.reference") : trf("family.stencil.gpu.reference_steps", steps_);
        return steps_ * time_reference([&] {
            TL_CUDA_CHECK(cudaMemcpyAsync(out_.get(), in_.get(), in_.bytes(), cudaMemcpyDeviceToDevice, nullptr));
        });
    }

private:
    static size_t points(const Problem& p) { return size_t(p.dim[0]) * size_t(p.dim[1]) * size_t(p.dim[2]); }


    // The order of the stencil the last launch applied, as the kernel recorded it.
    int radius_used() const {
        int r = 0;
        if (radius_used_) TL_CUDA_CHECK(cudaMemcpy(&r, radius_used_, sizeof r, cudaMemcpyDeviceToHost));
        return r == 0 ? 1 : r;
    }

    // The reference for order r: order 1 made in setup, order 2 the first time a kernel asks for it.
    const float* reference(int r) {
        if (r == 1) return ref_.get<float>();
        if (!ref2_) {
            ref2_ = DeviceBuffer(ref_.bytes());
            support_kernels().stencil7_reference(in_.get<float>(), ref2_.get<float>(), nx_, ny_, nz_, coef_.get<float>(), 2);
            TL_CUDA_CHECK(cudaDeviceSynchronize());
        }
        return ref2_.get<float>();
    }

    int nx_ = 0, ny_ = 0, nz_ = 0;
    int steps_ = 1;                 // sweeps the run makes (the option "steps")
    DeviceBuffer chain_[2];         // written in turn by the launches between the first and the last
    void* radius_used_ = nullptr;   // the loaded kernel's stencil_radius_used
    DeviceBuffer in_, out_;
    DeviceBuffer ref2_;   // the order-2 reference sweep, made when first needed
    DeviceBuffer ref_;    // the reference sweep (boundary cells: the input), once per setup
    DeviceBuffer coef_;   // kStencilCoefficients, for the reference kernel
    const float* in_ptr_ = nullptr;
    float* out_ptr_ = nullptr;
    unsigned long long* counters_ = nullptr;
};

Validation StencilFamily::validate() {
    Validation v;
    v.checked = true;
    v.reference = "double (GPU, interior)";
    v.tolerance = stencil_tolerance(steps_);   // derived in shape.h
    const int r = radius_used();
    if (r < 1 || r > 2) throw CudaError(fmt::format("The kernel recorded a stencil of order {}; there are references for 1 and 2.", r), cudaSuccess);
    if (r == 2 && steps_ > 1) throw CudaError("There is no reference for several steps of the order-2 stencil.", cudaSuccess);
    const size_t plane = size_t(nx_) * ny_, n = plane * size_t(nz_);
    const CompareSummary s =
        support_kernels().compare(out_.get<float>(), reference(r), n, v.tolerance, nx_, ny_, nz_);
    if (record_comparison(v, s)) return v;
    // The first wrong cell: its value and the reference's, two floats copied back.
    const size_t at = size_t(s.first_bad);
    const float value = device_element(out_.get<float>(), at), expected = device_element(reference(r), at);
    v.message = stencil_mismatch(at, nx_, ny_, nz_, r, value, expected, s.bad, v.tolerance);
    return v;
}

}  // namespace

std::unique_ptr<Family> make_stencil_family() { return std::make_unique<StencilFamily>(); }
TILELAB_REGISTER_DEVICE_FAMILY("stencil", make_stencil_family)

}  // namespace tilelab
