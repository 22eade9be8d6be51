// The seeded inputs every family uses, on the CPU: the GPU generates them (kernels/support/
// checks.cuh, tl_seeded_uniform) and the tests recompute them here, bit for bit. Internal.
#pragma once
#include <cstdint>

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

}  // namespace tilelab
