// What the matmul family's two halves share (shape.cpp, gpu_cuda.cpp), besides FamilyShape.
#pragma once
#include "tilelab/params.h"

namespace tilelab {

// Whether the reference at this size is the plain double-precision kernel (else cuBLAS at the
// kernel's precision); it needs a buffer of doubles. shape.cpp.
bool matmul_uses_double_reference(const Problem& p);

}  // namespace tilelab
