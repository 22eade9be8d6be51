// What the stencil family's two halves share (shape.cpp, gpu_cuda.cpp), besides FamilyShape.
#pragma once
#include <cstddef>

namespace tilelab {

// The bytes of the coefficients the kernels read from __constant__ memory.
inline constexpr size_t kStencilCoefficientBytes = 13 * sizeof(float);

}  // namespace tilelab
