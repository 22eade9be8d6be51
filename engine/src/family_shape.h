// Internal to the engine, no CUDA: a problem family's shape — the names of its sizes, which sizes
// it accepts (with the reason when not) and the device memory they need. The client checks a
// request with it before anything is compiled; the GPU worker sizes its buffers with it. The
// family's GPU half (buffers, reference, validation) is family.h. Looked up by name.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include "tilelab/precision.h"
#include "tilelab/result.h"

namespace tilelab {

class FamilyShape {
public:
    virtual ~FamilyShape() = default;
    virtual std::array<std::string, 3> dim_names() const = 0;   // {"M","N","K"}
    // Empty if the sizes are acceptable (positive, within int range, ...), else a sentence.
    virtual std::string problem_invalid_reason(const Problem& p) const = 0;
    // Empty if the family runs kernels of these element types; else a sentence. Default: FP32 only.
    virtual std::string precision_invalid_reason(const Precision& p) const;
    // Device memory all buffers need, in bytes (checked against free memory up front).
    virtual size_t device_bytes(const Problem& p, const Precision& precision) const = 0;
};

// nullptr for a name no family registered (TILELAB_REGISTER_FAMILY).
std::unique_ptr<FamilyShape> make_family_shape(const std::string& name);

// Matmul: whether the reference at this size is the plain double-precision kernel (else cuBLAS
// FP32); it needs a buffer of doubles. family_matmul.cpp.
bool matmul_uses_double_reference(const Problem& p);
// Stencil: the bytes of the coefficients the kernels read from __constant__ memory.
inline constexpr size_t kStencilCoefficientBytes = 13 * sizeof(float);

}  // namespace tilelab
