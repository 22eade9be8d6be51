// The matmul family's shape (family_shape.h): C = A·B with A (M×K), B (K×N), C (M×N), all
// row-major floats. Its GPU half is families/matmul/gpu_cuda.cpp.
#include <fmt/format.h>
#include <cmath>
#include "model/family_shape.h"
#include "shape.h"
#include "tilelab/i18n.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

// Largest M, N or K accepted: the kernels take int sizes, and 65536³ already needs 64 GiB.
constexpr int64_t kMaxDim = 65536;
// Below this many multiply-adds (and output elements) the reference is a plain double-precision
// kernel, independent of any GPU library and bit-identical to a CPU walk (tests check it); above
// it, cuBLAS in pedantic FP32.
constexpr double kDoubleReferenceMaxMacs = double(1 << 27);
constexpr double kDoubleReferenceMaxOutputs = double(1 << 24);

class MatmulShape final : public FamilyShape {
public:
    std::array<std::string, 3> dim_names() const override { return {"M", "N", "K"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        const auto names = dim_names();
        for (int i = 0; i < 3; ++i)
            if (p.dim[i] < 1 || p.dim[i] > kMaxDim)
                return trf("family.matmul.shape.must_be_between_1", names[i], kMaxDim, p.dim[i]);
        return "";
    }

    // Any input type, accumulated in FP32 and written as FP32: the output is compared as floats.
    std::string precision_invalid_reason(const Precision& p) const override {
        if (p.accumulate != ElementType::f32 || p.output != ElementType::f32)
            return trf("family.matmul.shape.matmul_family_accumulates_writes", p.describe());
        return "";
    }

    // A and B as floats (the reference's copy, rounded to the input type), C and the reference;
    // A and B once more in the input type where it is narrower than a float.
    size_t device_bytes(const Problem& p, const Precision& precision, const FamilyOptions&) const override {
        const size_t M = size_t(p.dim[0]), N = size_t(p.dim[1]), K = size_t(p.dim[2]);
        const size_t reference = matmul_uses_double_reference(p) ? 2 * M * N : M * N;   // double or float
        const int narrow = element_bytes(precision.input) < int(sizeof(float)) ? element_bytes(precision.input) : 0;
        return sizeof(float) * (M * K + K * N + M * N + reference) + size_t(narrow) * (M * K + K * N);
    }
    // Multiples of 4 (float4 rows), of no tile edge: two to nine blocks, partial ones at both edges.
    Problem cpu_problem() const override { return Problem{{132, 136, 44}}; }
};

}  // namespace

bool matmul_uses_double_reference(const Problem& p) {
    const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
    return M * N * K <= kDoubleReferenceMaxMacs && M * N <= kDoubleReferenceMaxOutputs;
}

std::string matmul_mismatch(size_t at, size_t N, float got, double expected, double tolerance, uint64_t bad, size_t n) {
    return trf("family.matmul.shape.c_expected_error_tolerance",
        at / N, at % N, got, expected, std::fabs(double(got) - expected), tolerance, bad, n);
}

std::unique_ptr<FamilyShape> make_matmul_shape() { return std::make_unique<MatmulShape>(); }
TILELAB_REGISTER_FAMILY("matmul", make_matmul_shape)

}  // namespace tilelab
