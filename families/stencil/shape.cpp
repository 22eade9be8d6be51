// The stencil family's shape (family_shape.h): a 3D grid of Nx×Ny×Nz floats (x fastest). Its GPU
// half is families/stencil/gpu_cuda.cpp.
#include <fmt/format.h>
#include <cmath>
#include "model/family_shape.h"
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
                return trf("family.stencil.shape.but_7_point_stencil", names[i], p.dim[i]);
            if (const std::string why = past_int_reason(p, i); !why.empty()) return why;
        }
        const double points = double(p.dim[0]) * double(p.dim[1]) * double(p.dim[2]);
        if (points > kMaxBufferElements)
            return trf("family.stencil.shape.grid_has_cells_tilelab", points);
        return "";
    }

    // steps: 1 … kMaxStencilSteps sweeps (shape.h).
    std::string options_invalid_reason(const FamilyOptions& o) const override {
        for (const auto& [name, value] : o)
            if (name != "steps" || value < 1 || value > kMaxStencilSteps)
                return trf("family.stencil.shape.options", format_options(o), kMaxStencilSteps);
        return "";
    }

    // Input, output and the reference; a fourth buffer when an order-2 kernel asks for its
    // reference; two more that launches of several time steps write in turn.
    size_t device_bytes(const Problem& p, const Precision&, const FamilyOptions& o) const override {
        const size_t grids = stencil_steps(o) > 1 ? 6 : 4;
        return grids * sizeof(float) * size_t(p.dim[0]) * size_t(p.dim[1]) * size_t(p.dim[2]) + kStencilCoefficientBytes;
    }
    // Larger than one block along x and y, partial blocks everywhere, a few z planes.
    Problem cpu_problem() const override { return Problem{{38, 34, 14}}; }
    // Grids: up to 128 on a side, 129-320, and 64-256 for counters; 128³ fixed.
    std::array<SizeRange, 3> test_sizes(TestSizes kind) const override {
        const SizeRange r = kind == TestSizes::small ? SizeRange{1, 128} : kind == TestSizes::large ? SizeRange{129, 320}
                                                                                                    : SizeRange{64, 256};
        return {r, r, r};
    }
    Problem test_problem() const override { return Problem{{128, 128, 128}}; }
};

}  // namespace

int stencil_steps(const FamilyOptions& options) {
    const auto it = options.find("steps");
    return it == options.end() ? 1 : it->second;
}

std::string stencil_mismatch(size_t at, int nx, int ny, int nz, int r, float value, float expected, uint64_t bad,
                             double tolerance) {
    const size_t plane = size_t(nx) * size_t(ny), n = plane * size_t(nz);
    const int x = int(at % size_t(nx)), y = int(at / size_t(nx) % size_t(ny)), z = int(at / plane);
    const bool interior = x >= r && x < nx - r && y >= r && y < ny - r && z >= r && z < nz - r;
    const double err = std::fabs(double(value) - double(expected));
    const std::string where = interior ? trf("family.stencil.shape.interior_tolerance", tolerance)
                                       : tr("family.stencil.shape.boundary_cell_must_equal");
    return trf("family.stencil.shape.out_expected_error_cells", x, y, z, value, expected, where, err, bad, n);
}

std::unique_ptr<FamilyShape> make_stencil_shape() { return std::make_unique<StencilShape>(); }
TILELAB_REGISTER_FAMILY("stencil", make_stencil_shape)

}  // namespace tilelab
