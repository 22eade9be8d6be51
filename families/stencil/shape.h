// What the stencil family's two halves share (shape.cpp, gpu_cuda.cpp), besides FamilyShape.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include "tilelab/params.h"

namespace tilelab {

// c0 centre, c1 x−1, c2 x+1, c3 y−1, c4 y+1, c5 z−1, c6 z+1, then x−2, x+2, y−2, y+2, z−2, z+2
// for the order-2 stencil (kernels/stencil/stencil_common.cuh). All different, so a kernel that
// swaps two neighbours (x−1 for x+1, y for z, distance 1 for 2 ...) is off by at least 0.01 times
// a difference of two random inputs: far outside the tolerance. The first seven sum to 1 in
// absolute value (every 7-point output stays within (−1, 1) like the inputs), all thirteen to 1.21.
inline constexpr float kStencilCoefficients[13] = {0.40f, 0.11f, 0.09f, 0.12f, 0.08f, 0.13f, 0.07f,
                                                   0.06f, 0.04f, 0.05f, 0.03f, 0.02f, 0.01f};
// The bytes of the coefficients the kernels read from __constant__ memory.
inline constexpr size_t kStencilCoefficientBytes = sizeof kStencilCoefficients;

// Tolerance on |got − expected| / max(1, |expected|): 32·2^-24 ≈ 1.9e-6.
// An interior output is a 7-term FP32 sum of c_i·v_i with |v_i| < 1 and Σ|c_i| = 1; in any
// order, with or without fused multiply-adds, its rounding error is at most about 7·2^-24
// (the standard bound γ_7·Σ|c_i·v_i|), and rounding the double reference to float adds
// 2^-24 more: 8·2^-24 ≈ 4.8e-7 in the worst case, so 32·2^-24 leaves a factor of 4. A kernel
// that uses a wrong neighbour is off by about 0.01–0.06 (the coefficient differences),
// and an unwritten cell is NaN. Boundary cells are copies and must match the input exactly.
// (Order 2: 13 terms, Σ|c_i| = 1.21, so about (13·1.21 + 1)·2^-24 ≈ 17·2^-24 at worst: still inside.)
inline constexpr double kStencilTolerance = 32 * 0x1p-24;

// Time steps: the family option "steps" (absent: 1) asks for the grid after that many sweeps, each
// reading the one before (boundary cells stay the input's). The reference sweeps as many times,
// each in double and rounded to float once, as one sweep's reference does.
// Tolerance after S steps: S·kStencilTolerance. Let e_s be the largest difference between the
// kernel's grid and the reference's after s steps. One step maps both through the same stencil,
// whose coefficients sum to 1 in absolute value, so a difference of e_{s−1} in the inputs is at
// most e_{s−1} in the outputs; each side then adds its own rounding, at most 8·2^-24 together
// (above). So e_S ≤ 8·S·2^-24, and S·32·2^-24 keeps the factor of 4. (Values stay within (−1, 1)
// at every step, so the relative and absolute errors are the same bound.)
inline constexpr int kMaxStencilSteps = 1024;
int stencil_steps(const FamilyOptions& options);   // shape.cpp: 1 when absent
inline double stencil_tolerance(int steps) { return steps * kStencilTolerance; }

// The first wrong cell (index `at` of an nx×ny×nz grid, order-r boundary), as both halves report it. shape.cpp.
std::string stencil_mismatch(size_t at, int nx, int ny, int nz, int r, float value, float expected, uint64_t bad,
                             double tolerance);


}  // namespace tilelab
