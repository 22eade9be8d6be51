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

// scores = 1: the kernel is handed the N×N scores S (FP32) and weights P (the input type) of
// every head in memory besides Q, K, V and O — the plain path of three kernels (lesson 14), whose
// arguments are (Q, K, V, O, S, P, N, d, BH, counters).
inline bool attention_scores_in_memory(const FamilyOptions& o) {
    const auto it = o.find("scores");
    return it != o.end() && it->second != 0;
}

// q_scale = a power of two up to 64: Q's seeded values are multiplied by it (exactly), so that
// scores reach the tens a trained model's do and an unsafe softmax's exponentials overflow.
inline int attention_q_scale(const FamilyOptions& o) {
    const auto it = o.find("q_scale");
    return it == o.end() ? 1 : it->second;
}

// The tolerance an output element is held to, relative to max(1, |expected|), against a reference
// in double from the same (already rounded) inputs, whatever the input type, plus the rounding of
// the weights P where the kernel rounds them (`intermediate`, fp32: not rounded), for the options'
// Q scale and path; the derivation is in shape.cpp.
double attention_tolerance(int64_t N, int64_t d, ElementType intermediate, const FamilyOptions& options);

// The first wrong element of O (index `at` of BH·N·d), as every half reports it.
std::string attention_mismatch(size_t at, int64_t N, int64_t d, float got, double expected, double tolerance,
                               uint64_t bad, size_t n);

}  // namespace tilelab
