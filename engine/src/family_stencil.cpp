// The stencil family: a 3D grid of Nx×Ny×Nz floats (x fastest) swept once by a 7-point stencil.
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
#include "cuda_check.h"
#include "device_buffer.h"
#include "family.h"
#include "runner_timing.h"
#include "support_kernels.h"

namespace tilelab {
namespace {

// c0 centre, c1 x−1, c2 x+1, c3 y−1, c4 y+1, c5 z−1, c6 z+1 (kernels/stencil/stencil_common.cuh).
// All different, so a kernel that swaps two neighbours (x−1 for x+1, y for z ...) is off by
// 0.01–0.06 times a difference of two random inputs: far outside the tolerance. Their absolute
// values sum to 1, so every output stays within (−1, 1) like the inputs.
constexpr float kCoefficients[7] = {0.40f, 0.11f, 0.09f, 0.12f, 0.08f, 0.13f, 0.07f};

// The largest grid accepted: 2^30 cells (1024³) is 4 GiB per buffer on the device, three buffers
// (input, output, reference).
constexpr double kMaxPoints = double(int64_t(1) << 30);

class StencilFamily final : public Family {
public:
    std::array<std::string, 3> dim_names() const override { return {"Nx", "Ny", "Nz"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        const auto names = dim_names();
        for (int i = 0; i < 3; ++i) {
            if (p.dim[i] < 3)
                return fmt::format("{} is {}, but a 7-point stencil needs at least 3 cells along each axis "
                                   "(one interior cell between two boundary cells).",
                                   names[i], p.dim[i]);
            if (p.dim[i] > INT_MAX)
                return fmt::format("{} is {}, but the kernels take their sizes as int (at most {}).", names[i],
                                   p.dim[i], INT_MAX);
        }
        const double points = double(p.dim[0]) * double(p.dim[1]) * double(p.dim[2]);
        if (points > kMaxPoints)
            return fmt::format("The grid has {:.0f} cells; TileLab keeps stencil grids at or below 2^30 (1024³) "
                               "so the input, output and reference fit in memory.",
                               points);
        return "";
    }

    size_t device_bytes(const Problem& p) const override { return 3 * sizeof(float) * points(p) + sizeof kCoefficients; }

    void setup(const Problem& p, uint64_t seed) override {
        in_ = {}, out_ = {}, ref_ = {};   // free the previous problem's buffers before allocating new ones
        nx_ = int(p.dim[0]), ny_ = int(p.dim[1]), nz_ = int(p.dim[2]);
        const size_t n = points(p);
        const SupportKernels& support = support_kernels();
        in_ = DeviceBuffer(sizeof(float) * n);
        out_ = DeviceBuffer(sizeof(float) * n);
        ref_ = DeviceBuffer(sizeof(float) * n);
        if (!coef_) {
            coef_ = DeviceBuffer(sizeof kCoefficients);
            TL_CUDA_CHECK(cudaMemcpy(coef_.get(), kCoefficients, sizeof kCoefficients, cudaMemcpyHostToDevice));
        }
        support.fill_uniform(in_.get<float>(), n, seed);
        // The reference sweep, summed in double in the kernels' order with the coefficients as
        // the GPU sees them (rounded to float), then rounded to float once for storage.
        support.stencil7_reference(in_.get<float>(), ref_.get<float>(), nx_, ny_, nz_, coef_.get<float>());
        TL_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void on_library_loaded(cudaLibrary_t lib) override {
        void* coefficients = nullptr;
        size_t bytes = 0;
        TL_CUDA_CHECK(cudaLibraryGetGlobal(&coefficients, &bytes, lib, "stencil_coef"));
        if (bytes != sizeof kCoefficients)
            throw CudaError(fmt::format("stencil_coef in the loaded kernel has {} bytes, expected {}.", bytes,
                                        sizeof kCoefficients),
                            cudaSuccess);
        TL_CUDA_CHECK(cudaMemcpy(coefficients, kCoefficients, sizeof kCoefficients, cudaMemcpyHostToDevice));
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

    Validation validate() override;

    double reference_ms(std::string& name) override {
        name = "device copy";
        // The same bytes a perfect stencil moves: read every cell once, write every cell once.
        // Written into out, which is poisoned again before the next kernel run.
        return time_reference([&] {
            TL_CUDA_CHECK(cudaMemcpyAsync(out_.get(), in_.get(), in_.bytes(), cudaMemcpyDeviceToDevice, nullptr));
        });
    }

private:
    static size_t points(const Problem& p) { return size_t(p.dim[0]) * size_t(p.dim[1]) * size_t(p.dim[2]); }

    bool is_interior(int x, int y, int z) const {
        return x > 0 && x < nx_ - 1 && y > 0 && y < ny_ - 1 && z > 0 && z < nz_ - 1;
    }

    int nx_ = 0, ny_ = 0, nz_ = 0;
    DeviceBuffer in_, out_;
    DeviceBuffer ref_;    // the reference sweep (boundary cells: the input), once per setup
    DeviceBuffer coef_;   // kCoefficients, for the reference kernel
    const float* in_ptr_ = nullptr;
    float* out_ptr_ = nullptr;
    unsigned long long* counters_ = nullptr;
};

Validation StencilFamily::validate() {
    Validation v;
    v.checked = true;
    v.reference = "double (GPU, interior)";
    // Tolerance on |got − expected| / max(1, |expected|): 32·2^-24 ≈ 1.9e-6.
    // An interior output is a 7-term FP32 sum of c_i·v_i with |v_i| < 1 and Σ|c_i| = 1; in any
    // order, with or without fused multiply-adds, its rounding error is at most about 7·2^-24
    // (the standard bound γ_7·Σ|c_i·v_i|), and rounding the double reference to float adds
    // 2^-24 more: 8·2^-24 ≈ 4.8e-7 in the worst case, so 32·2^-24 leaves a factor of 4. A kernel
    // that uses a wrong neighbour is off by about 0.01–0.06 (the coefficient differences),
    // and an unwritten cell is NaN. Boundary cells are copies and must match the input exactly.
    v.tolerance = 32 * 0x1p-24;

    const size_t plane = size_t(nx_) * ny_, n = plane * size_t(nz_);
    const CompareSummary s =
        support_kernels().compare(out_.get<float>(), ref_.get<float>(), n, v.tolerance, nx_, ny_, nz_);
    v.max_abs_error = s.max_abs_error;
    v.max_rel_error = s.max_rel_error;
    v.passed = s.bad == 0;
    if (v.passed) return v;
    // The first wrong cell: its value and the reference's, two floats copied back.
    const size_t at = size_t(s.first_bad);
    float value = 0, expected = 0;
    TL_CUDA_CHECK(cudaMemcpy(&value, out_.get<float>() + at, sizeof value, cudaMemcpyDeviceToHost));
    TL_CUDA_CHECK(cudaMemcpy(&expected, ref_.get<float>() + at, sizeof expected, cudaMemcpyDeviceToHost));
    const int x = int(at % size_t(nx_)), y = int(at / size_t(nx_) % size_t(ny_)), z = int(at / plane);
    const double err = std::fabs(double(value) - double(expected));
    v.message = fmt::format("out({}, {}, {}) = {}, expected {:.7g} ({}; error {:.3g}); {} of {} cells wrong", x, y, z,
                            value, expected,
                            is_interior(x, y, z) ? fmt::format("interior, tolerance {:.3g}", v.tolerance)
                                                 : std::string("boundary cell: must equal the input exactly"),
                            err, s.bad, n);
    return v;
}

}  // namespace

std::unique_ptr<Family> make_stencil_family() { return std::make_unique<StencilFamily>(); }
TILELAB_REGISTER_FAMILY("stencil", make_stencil_family)

}  // namespace tilelab
