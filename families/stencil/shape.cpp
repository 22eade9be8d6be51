// The stencil family's shape (family_shape.h): a 3D grid of Nx×Ny×Nz floats (x fastest). Its GPU
// half is families/stencil/gpu_cuda.cpp.
#include <fmt/format.h>
#include <cmath>
#include "cpu/cpu_family.h"
#include "family_shape.h"
#include "shape.h"
#include "tilelab/i18n.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

// The largest grid accepted: kMaxBufferElements cells (1024³).
class StencilShape final : public FamilyShape {
public:
    std::array<std::string, 3> dim_names() const override { return {"Nx", "Ny", "Nz"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        const auto names = dim_names();
        for (int i = 0; i < 3; ++i) {
            if (p.dim[i] < 3)
                return say("{} is {}, but a 7-point stencil needs at least 3 cells along each axis "
                                   "(one interior cell between two boundary cells).", "{} 为 {}，但 7 点模板在每个轴上至少需要 3 个格点（两个边界格点之间至少一个内部格点）。",
                                   names[i], p.dim[i]);
            if (const std::string why = past_int_reason(p, i); !why.empty()) return why;
        }
        const double points = double(p.dim[0]) * double(p.dim[1]) * double(p.dim[2]);
        if (points > kMaxBufferElements)
            return say("The grid has {:.0f} cells; TileLab keeps stencil grids at or below 2^30 (1024³) "
                               "so the input, output and reference fit in memory.", "网格有 {:.0f} 个格点；TileLab 把模板网格限制在 2^30（1024³）以内，使输入、输出和参考结果都能放进内存。",
                               points);
        return "";
    }

    // Input, output and the reference; a fourth buffer when an order-2 kernel asks for its reference.
    size_t device_bytes(const Problem& p, const Precision&) const override {
        return 4 * sizeof(float) * size_t(p.dim[0]) * size_t(p.dim[1]) * size_t(p.dim[2]) + kStencilCoefficientBytes;
    }
    // Larger than one block along x and y, partial blocks everywhere, a few z planes.
    Problem cpu_problem() const override { return Problem{{38, 34, 14}}; }
    std::unique_ptr<CpuFamily> make_cpu() const override { return make_stencil_cpu(); }
};

}  // namespace

std::string stencil_mismatch(size_t at, int nx, int ny, int nz, int r, float value, float expected, uint64_t bad) {
    const size_t plane = size_t(nx) * size_t(ny), n = plane * size_t(nz);
    const int x = int(at % size_t(nx)), y = int(at / size_t(nx) % size_t(ny)), z = int(at / plane);
    const bool interior = x >= r && x < nx - r && y >= r && y < ny - r && z >= r && z < nz - r;
    const double err = std::fabs(double(value) - double(expected));
    const std::string where = interior ? say("interior, tolerance {:.3g}", "内部格点，容差 {:.3g}", kStencilTolerance)
                                       : say("boundary cell: must equal the input exactly", "边界格点：必须与输入完全相等");
    return say("out({}, {}, {}) = {}, expected {:.7g} ({}; error {:.3g}); {} of {} cells wrong",
               "out({}, {}, {}) = {}，应为 {:.7g}（{}；误差 {:.3g}）；{} / {} 个格点错误", x, y, z, value, expected, where, err,
               bad, n);
}

std::unique_ptr<FamilyShape> make_stencil_shape() { return std::make_unique<StencilShape>(); }
TILELAB_REGISTER_FAMILY("stencil", make_stencil_shape)

}  // namespace tilelab
