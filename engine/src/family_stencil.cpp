// The stencil family: a 3D grid of Nx×Ny×Nz floats (x fastest) swept once by a 7-point stencil.
// Owns what every stencil variant shares: seeded random inputs, the coefficients in the kernels'
// __constant__ stencil_coef, the NaN-poisoned output, the kernel arguments, a CPU reference in
// double, validation (interior within a tolerance, boundary cells exactly equal to the input),
// and a device-to-device copy of the same grid as the "% of copy bandwidth" reference.
#include <fmt/format.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <thread>
#include <vector>
#include "cuda_check.h"
#include "device_buffer.h"
#include "family.h"
#include "family_common.h"
#include "runner_timing.h"

namespace tilelab {
namespace {

// c0 centre, c1 x−1, c2 x+1, c3 y−1, c4 y+1, c5 z−1, c6 z+1 (kernels/stencil/stencil_common.cuh).
// All different, so a kernel that swaps two neighbours (x−1 for x+1, y for z ...) is off by
// 0.01–0.06 times a difference of two random inputs: far outside the tolerance. Their absolute
// values sum to 1, so every output stays within (−1, 1) like the inputs.
constexpr float kCoefficients[7] = {0.40f, 0.11f, 0.09f, 0.12f, 0.08f, 0.13f, 0.07f};

// The largest grid accepted: 2^30 cells (1024³) is 4 GiB per buffer on the device, and on the
// host the input and the reference (8 GiB) plus a CPU sweep of a few seconds.
constexpr double kMaxPoints = double(int64_t(1) << 30);
// Output cells copied back and compared per step, so validation never holds all of it twice.
constexpr size_t kCompareChunkCells = size_t(1) << 24;

// Runs body(z_begin, z_end) over [0, nz) split into one slab per hardware thread.
template <class Body>
void for_each_slab(int nz, const Body& body) {
    const int workers = std::max(1, std::min<int>(nz, int(std::thread::hardware_concurrency())));
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
        const int z0 = int(int64_t(nz) * w / workers), z1 = int(int64_t(nz) * (w + 1) / workers);
        threads.emplace_back([&body, z0, z1] { body(z0, z1); });
    }
    for (auto& t : threads) t.join();
}

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
                               "so the input, output and CPU reference fit in memory.",
                               points);
        return "";
    }

    size_t device_bytes(const Problem& p) const override { return 2 * sizeof(float) * points(p); }

    void setup(const Problem& p, uint64_t seed) override {
        in_ = {}, out_ = {};   // free the previous problem's buffers before allocating new ones
        nx_ = int(p.dim[0]), ny_ = int(p.dim[1]), nz_ = int(p.dim[2]);
        const size_t n = points(p), plane = size_t(nx_) * ny_;

        input_.resize(n);
        for_each_slab(nz_, [&](int z0, int z1) {
            for (size_t i = size_t(z0) * plane; i < size_t(z1) * plane; ++i) input_[i] = seeded_uniform(seed, i);
        });
        in_ = DeviceBuffer(sizeof(float) * n);
        out_ = DeviceBuffer(sizeof(float) * n);
        TL_CUDA_CHECK(cudaMemcpy(in_.get(), input_.data(), in_.bytes(), cudaMemcpyHostToDevice));

        // The reference sweep, summed in double in the kernels' order with the coefficients as
        // the GPU sees them (rounded to float), then rounded to float once for storage.
        reference_.assign(n, 0.0f);
        double c[7];
        for (int i = 0; i < 7; ++i) c[i] = kCoefficients[i];
        for_each_slab(nz_, [&](int z0, int z1) {
            for (int z = z0; z < z1; ++z)
                for (int y = 0; y < ny_; ++y)
                    for (int x = 0; x < nx_; ++x) {
                        const size_t at = size_t(z) * plane + size_t(y) * nx_ + x;
                        if (!is_interior(x, y, z)) {
                            reference_[at] = input_[at];
                            continue;
                        }
                        const double sum = c[0] * input_[at] + c[1] * input_[at - 1] + c[2] * input_[at + 1] +
                                           c[3] * input_[at - nx_] + c[4] * input_[at + nx_] +
                                           c[5] * input_[at - plane] + c[6] * input_[at + plane];
                        reference_[at] = float(sum);
                    }
        });
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

    double compulsory_bytes(const Problem& p) const override { return 8.0 * double(points(p)); }

private:
    static size_t points(const Problem& p) { return size_t(p.dim[0]) * size_t(p.dim[1]) * size_t(p.dim[2]); }

    bool is_interior(int x, int y, int z) const {
        return x > 0 && x < nx_ - 1 && y > 0 && y < ny_ - 1 && z > 0 && z < nz_ - 1;
    }

    int nx_ = 0, ny_ = 0, nz_ = 0;
    DeviceBuffer in_, out_;
    std::vector<float> input_;       // host copy: the boundary cells must come back unchanged
    std::vector<float> reference_;   // CPU sweep, computed once per setup
    const float* in_ptr_ = nullptr;
    float* out_ptr_ = nullptr;
    unsigned long long* counters_ = nullptr;
};

Validation StencilFamily::validate() {
    Validation v;
    v.checked = true;
    v.reference = "CPU double (interior)";
    // Tolerance on |got − expected| / max(1, |expected|): 32·2^-24 ≈ 1.9e-6.
    // An interior output is a 7-term FP32 sum of c_i·v_i with |v_i| < 1 and Σ|c_i| = 1; in any
    // order, with or without fused multiply-adds, its rounding error is at most about 7·2^-24
    // (the standard bound γ_7·Σ|c_i·v_i|), and rounding the double reference to float adds
    // 2^-24 more: 8·2^-24 ≈ 4.8e-7 in the worst case, so 32·2^-24 leaves a factor of 4. A kernel
    // that uses a wrong neighbour is off by about 0.01–0.06 (the coefficient differences),
    // and an unwritten cell is NaN. Boundary cells are copies and must match the input exactly.
    v.tolerance = 32 * 0x1p-24;

    const size_t n = input_.size(), plane = size_t(nx_) * ny_;
    const size_t planes_per_chunk = std::max<size_t>(1, kCompareChunkCells / plane);
    std::vector<float> got;
    size_t bad = 0;
    for (size_t z0 = 0; z0 < size_t(nz_); z0 += planes_per_chunk) {
        const size_t z1 = std::min(size_t(nz_), z0 + planes_per_chunk);
        const size_t first = z0 * plane, count = (z1 - z0) * plane;
        got.resize(count);
        TL_CUDA_CHECK(cudaMemcpy(got.data(), out_.get<float>() + first, sizeof(float) * count,
                                 cudaMemcpyDeviceToHost));
        for (size_t z = z0; z < z1; ++z)
            for (int y = 0; y < ny_; ++y)
                for (int x = 0; x < nx_; ++x) {
                    const size_t at = z * plane + size_t(y) * nx_ + x;
                    const float value = got[at - first];
                    const bool interior = is_interior(x, y, int(z));
                    const double expected = reference_[at];
                    const double err = std::fabs(double(value) - expected);
                    const double scaled = err / std::max(1.0, std::fabs(expected));
                    // Written so that NaN fails: !(x <= tol) and NaN == x are both false.
                    const bool ok = interior ? scaled <= v.tolerance : value == input_[at];
                    if (!ok && bad++ == 0)
                        v.message = fmt::format(
                            "out({}, {}, {}) = {}, expected {:.7g} ({}; error {:.3g})", x, y, z, value, expected,
                            interior ? fmt::format("interior, tolerance {:.3g}", v.tolerance)
                                     : std::string("boundary cell: must equal the input exactly"),
                            err);
                    record_error(v, err, scaled);
                }
    }
    v.passed = bad == 0;
    if (bad) v.message += fmt::format("; {} of {} cells wrong", bad, n);
    return v;
}

}  // namespace

std::unique_ptr<Family> make_stencil_family() { return std::make_unique<StencilFamily>(); }
TILELAB_REGISTER_FAMILY("stencil", make_stencil_family)

}  // namespace tilelab
