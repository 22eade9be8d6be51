// The transpose family's shape (family_shape.h): out (W×H) = the transpose of in, an H×W matrix
// of floats; the third number of the problem is not used. Its GPU half is families/transpose/gpu_cuda.cpp.
#include <fmt/format.h>
#include "model/family_shape.h"
#include "shape.h"
#include "tilelab/i18n.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

// The largest matrix accepted: kMaxBufferElements elements (32768²).
class TransposeShape final : public FamilyShape {
public:
    std::array<std::string, 3> dim_names() const override { return {"W", "H", "(unused)"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        for (int i = 0; i < 2; ++i)
            if (const std::string why = past_int_reason(p, i); !why.empty()) return why;
        const double n = double(p.dim[0]) * double(p.dim[1]);
        if (n > kMaxBufferElements)
            return trf("family.transpose.shape.too_many_elements", n);
        return "";
    }

    size_t device_bytes(const Problem& p, const Precision&, const FamilyOptions&) const override { return 3 * sizeof(float) * size_t(p.dim[0]) * size_t(p.dim[1]); }
    // Several tiles each way, partial ones at the right and bottom edges.
    Problem cpu_problem() const override { return Problem{{100, 68, 1}}; }
};

}  // namespace

std::string transpose_mismatch(size_t at, int H, float value, float expected, uint64_t bad, size_t n) {
    const size_t h = size_t(H);
    return trf("family.transpose.shape.out_expected_elements_wrong",
        at / h, at % h, value, at % h, at / h, expected, bad, n);
}

std::unique_ptr<FamilyShape> make_transpose_shape() { return std::make_unique<TransposeShape>(); }
TILELAB_REGISTER_FAMILY("transpose", make_transpose_shape)

}  // namespace tilelab
