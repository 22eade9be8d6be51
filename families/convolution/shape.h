// What the convolution family's halves share (shape.cpp, cpu.cpp, gpu_cuda.cpp), besides FamilyShape.
// The family: a W×H image of floats (x fastest) convolved, zero-padded, with a bank of F filters of
// (2R+1)² taps (kernels/convolution/filter_bank.cuh); output (x, y) uses filter y mod F, or x mod F
// when the lanes of a warp each take their own. R, F and that choice are family options the variant
// sets from its parameters: "radius", "filters", "per_lane".
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "tilelab/params.h"

namespace tilelab {

struct ConvOptions {
    int radius = 1, filters = 1;
    bool per_lane = false;
    int taps() const { return (2 * radius + 1) * (2 * radius + 1); }
};
// The options as the variant declared them (the shape has refused any others).
ConvOptions conv_options(const FamilyOptions& o);

// The bank, tap-major (tap t of filter f at [t·F + f]), as the kernels read it.
std::vector<float> conv_bank(const ConvOptions& o);

// Tolerance on |got − expected| / max(1, |expected|): 128·2^-24 ≈ 7.6e-6.
// An output is a sum of at most 81 products w·v with |v| ≤ 1 and Σ|w| ≤ 81·31/4096 ≈ 0.61
// (filter_bank.cuh). In FP32, in any order, with or without fused multiply-adds, its rounding
// error is at most about γ_81·Σ|w·v| ≈ 81·0.61·2^-24 ≈ 50·2^-24, and rounding the double reference
// to float adds at most 2^-24 (every output is below 1): 51·2^-24 at worst, so 128·2^-24 leaves a
// factor of 2.5. A kernel that reads a wrong tap, filter or input cell is off by at least 2^-12
// times an input (about 1e-4 for a typical input of 0.5), and an unwritten output is NaN.
inline constexpr double kConvTolerance = 128 * 0x1p-24;

// The first wrong output, as both halves report it.
std::string conv_mismatch(size_t at, int w, float value, float expected, uint64_t bad, size_t n);

}  // namespace tilelab
