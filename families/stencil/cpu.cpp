// The stencil family on the CPU (engine/src/cpu/cpu_family.h): the input seeded as the GPU half
// seeds it, the coefficients in the kernel's __constant__ stencil_coef, the output all NaN bytes,
// the reference sweep in double in the kernels' order (the GPU's reference kernel, on the host),
// and the GPU half's tolerance, exact boundary and message.
#include <cstring>
#include <stdexcept>
#include "cpu/cpu_family.h"
#include "tilelab/registration.h"
#include "model/family_common.h"
#include "shape.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

class StencilCpu final : public CpuFamily {
public:
    std::vector<uint64_t> prepare(cpu::Machine& m, const Problem& p, const Precision&,
                                  const FamilyOptions& options, uint64_t seed) override {
        nx_ = int(p.dim[0]), ny_ = int(p.dim[1]), nz_ = int(p.dim[2]);
        in_.resize(size_t(nx_) * size_t(ny_) * size_t(nz_));
        for (size_t i = 0; i < in_.size(); ++i) in_[i] = seeded_uniform(seed, i);
        const uint64_t a = m.add_buffer(float_buffer("in", in_)), b = m.add_buffer(poisoned_buffer("out", in_.size()));
        steps_ = stencil_steps(options);
        if (steps_ > 1)   // written in turn by the launches between the first and the last (gpu_cuda.cpp)
            for (uint64_t& c : chain_) c = m.add_buffer(poisoned_buffer("chain", in_.size()));
        set_module_variables(m);
        return {a, b, uint64_t(nx_), uint64_t(ny_), uint64_t(nz_), 0};
    }

    void set_module_variables(cpu::Machine& m) override {
        size_t bytes = 0;
        if (uint8_t* coef = m.module_variable("stencil_coef", bytes); coef && bytes == sizeof kStencilCoefficients)
            std::memcpy(coef, kStencilCoefficients, bytes);
        if (uint8_t* radius = m.module_variable("stencil_radius_used", bytes); radius) std::memset(radius, 0, bytes);
    }

    // As the GPU half's before_launch: the first launch reads in (args[0]), the last writes out
    // (args[1]), the ones between write the chain buffers in turn.
    std::vector<uint64_t> args_for_launch(const std::vector<uint64_t>& args, size_t index, size_t count) override {
        std::vector<uint64_t> a = args;
        if (count < 2) return a;
        if (steps_ < 2) throw std::logic_error("a chain of stencil launches needs the option steps > 1");
        if (index > 0) a[0] = chain_[(index - 1) % 2];
        if (index + 1 < count) a[1] = chain_[index % 2];
        return a;
    }

    Validation validate(cpu::Machine& m) override {
        Validation v;
        v.checked = true;
        v.reference = "double (CPU, interior)";
        v.tolerance = stencil_tolerance(steps_);
        int r = 0;
        size_t bytes = 0;
        if (const uint8_t* radius = m.module_variable("stencil_radius_used", bytes); radius && bytes == sizeof r)
            std::memcpy(&r, radius, sizeof r);
        r = r == 0 ? 1 : r;   // the 7-point kernels leave 0
        if (r > 2 || (r == 2 && steps_ > 1)) {
            v.message = trf("family.stencil.cpu.kernel_recorded_stencil_order", r);
            return v;
        }
        std::vector<float> ref = in_;
        for (int step = 0; step < steps_; ++step) ref = sweep(ref, r);
        const size_t nx = size_t(nx_), plane = nx * size_t(ny_);
        const auto face = [&](size_t i) {
            const size_t x = i % nx, y = i / nx % size_t(ny_), z = i / plane;
            return x == 0 || y == 0 || z == 0 || x == nx - 1 || y == size_t(ny_) - 1 || z == size_t(nz_) - 1;
        };
        const float* out = floats_of(m, 1);
        const HostComparison s = compare_on_host(out, ref.data(), ref.size(), v.tolerance, face);
        if (record_host_comparison(v, s)) return v;
        const size_t at = size_t(s.first_bad);
        v.message = stencil_mismatch(at, nx_, ny_, nz_, r, out[at], ref[at], s.bad, v.tolerance);
        return v;
    }

private:
    // One order-r star sweep of `grid`, as kernels/support/checks.cuh's tl_stencil7_reference computes it.
    std::vector<float> sweep(const std::vector<float>& grid, int r) const {
        std::vector<float> ref(grid.size());
        const size_t nx = size_t(nx_), plane = nx * size_t(ny_);
        for (size_t at = 0; at < grid.size(); ++at) {
            const int x = int(at % nx), y = int(at / nx % size_t(ny_)), z = int(at / plane);
            if (x < r || y < r || z < r || x >= nx_ - r || y >= ny_ - r || z >= nz_ - r) {
                ref[at] = grid[at];
                continue;
            }
            double sum = double(kStencilCoefficients[0]) * double(grid[at]);
            for (int d = 1; d <= r; ++d) {
                const float* k = kStencilCoefficients + 6 * (d - 1) + 1;
                const size_t dx = size_t(d), dy = size_t(d) * nx, dz = size_t(d) * plane;
                sum += double(k[0]) * double(grid[at - dx]);
                sum += double(k[1]) * double(grid[at + dx]);
                sum += double(k[2]) * double(grid[at - dy]);
                sum += double(k[3]) * double(grid[at + dy]);
                sum += double(k[4]) * double(grid[at - dz]);
                sum += double(k[5]) * double(grid[at + dz]);
            }
            ref[at] = float(sum);
        }
        return ref;
    }

    int nx_ = 0, ny_ = 0, nz_ = 0;
    int steps_ = 1;   // sweeps (the option "steps")
    uint64_t chain_[2] = {};   // the chain buffers' addresses (steps > 1)
    std::vector<float> in_;
};

}  // namespace

std::unique_ptr<CpuFamily> make_stencil_cpu() { return std::make_unique<StencilCpu>(); }
TILELAB_REGISTER_CPU_FAMILY("stencil", make_stencil_cpu)

}  // namespace tilelab
