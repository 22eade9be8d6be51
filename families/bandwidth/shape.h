// What the bandwidth family's two halves share (shape.cpp, gpu_cuda.cpp, cpu.cpp), besides
// FamilyShape. The family: B blocks (the first size) read N floats (the second) and add their bit
// patterns as 64-bit integers into one sum (kernels/bandwidth/stream_read.cuh): exact in any order,
// so the check does not depend on which thread read what.
#pragma once
#include <cstdint>
#include <string>

namespace tilelab {

inline constexpr int64_t kBandwidthMaxFloats = int64_t(1) << 28;   // 1 GiB of input

// The sum the kernel must write for the inputs seeded_uniform(seed, 0 .. n−1): their bit patterns
// added modulo 2^64 (computed on the host, in parallel for large n).
uint64_t bandwidth_expected_sum(uint64_t seed, int64_t n);

// A wrong sum, as both halves report it.
std::string bandwidth_mismatch(uint64_t got, uint64_t expected, int64_t n);

}  // namespace tilelab
