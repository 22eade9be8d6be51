// What the problem families share: seeded random inputs and the running error maxima of a
// validation. Internal to the engine.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include "tilelab/result.h"

namespace tilelab {

// Uniform in [-1, 1) on a 2^-23 grid (exactly representable, never all zeros): splitmix64
// evaluated at the element's index, so the same seed gives the same inputs everywhere and the
// elements can be generated in any order, or in parallel.
inline float seeded_uniform(uint64_t seed, uint64_t index) {
    uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return float(int64_t(z >> 40) - (int64_t(1) << 23)) * 0x1p-23f;
}

// Folds one element's absolute and relative error into the validation's maxima. A NaN error
// (a poisoned or never-written output) makes both maxima NaN for good.
inline void record_error(Validation& v, double abs_error, double rel_error) {
    if (std::isnan(abs_error)) {
        v.max_abs_error = v.max_rel_error = NAN;
    } else if (!std::isnan(v.max_abs_error)) {
        v.max_abs_error = std::max(v.max_abs_error, abs_error);
        v.max_rel_error = std::max(v.max_rel_error, rel_error);
    }
}

}  // namespace tilelab
