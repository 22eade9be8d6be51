// What the transpose family's two halves share (shape.cpp, gpu_cuda.cpp, cpu.cpp), besides FamilyShape.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tilelab {

// The first wrong element (index `at` of the W×H output), as every half reports it. shape.cpp.
std::string transpose_mismatch(size_t at, int H, float value, float expected, uint64_t bad, size_t n);


}  // namespace tilelab
