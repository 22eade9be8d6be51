// What the attention family's halves share (shape.cpp, gpu_cuda.cpp, cpu.cpp), besides FamilyShape.
// The problem is {N, d, BH}: BH independent heads (batch · heads), each with Q, K and V of N rows
// of d values (row-major, the kernel's input type) and an output O of N×d floats,
// O = softmax(Q·Kᵀ / √d)·V row by row; with the family option causal = 1 (tilelab/params.h) row i
// weighs keys 0..i only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include "tilelab/params.h"
#include "tilelab/precision.h"

namespace tilelab {

// The seeds of K and V, derived from Q's so that one seed names all three inputs.
inline constexpr uint64_t kAttentionSeedK = 0x5DEECE66Dull, kAttentionSeedV = 0x2545F4914F6CDD1Dull;

// Whether the options ask for the causal mask (the shape has accepted them: causal is 0 or 1).
inline bool attention_causal(const FamilyOptions& o) {
    const auto it = o.find("causal");
    return it != o.end() && it->second != 0;
}

// The tolerance an output element is held to, relative to max(1, |expected|), against a reference
// in double from the same (already rounded) inputs, whatever the input type, plus the rounding of
// the weights P where the kernel rounds them (`intermediate`, fp32: not rounded); the derivation is
// in shape.cpp.
double attention_tolerance(int64_t N, int64_t d, ElementType intermediate);

// The first wrong element of O (index `at` of BH·N·d), as every half reports it.
std::string attention_mismatch(size_t at, int64_t N, int64_t d, float got, double expected, double tolerance,
                               uint64_t bad, size_t n);

}  // namespace tilelab
