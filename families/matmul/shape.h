// What the matmul family's two halves share (shape.cpp, gpu_cuda.cpp), besides FamilyShape.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include "tilelab/params.h"

namespace tilelab {

// Whether the reference at this size is the plain double-precision kernel (else cuBLAS at the
// kernel's precision); it needs a buffer of doubles. shape.cpp.
bool matmul_uses_double_reference(const Problem& p);

// The first wrong element of C (index `at`, N columns), as both halves report it. shape.cpp.
std::string matmul_mismatch(size_t at, size_t N, float got, double expected, double tolerance, uint64_t bad, size_t n);


}  // namespace tilelab
