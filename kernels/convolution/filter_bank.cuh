// The convolution family's filters, as the kernels, the references and the host all compute them.
// Plain C++ (no CUDA types): the host includes it too (families/convolution/), so the values a
// kernel compiles in as immediates are the ones the host puts in memory and the reference uses.
//
// A bank of F filters of (2R+1)² taps. Tap t = (dy + R)·(2R+1) + (dx + R) of filter f weighs
// (1 + (7f + 5t + t²) mod 31) / 4096: a multiple of 2^-12 below 2^-7, exact in a float, different
// for neighbouring taps and filters (a kernel that reads the wrong tap or filter is off by at
// least 2^-12 times an input), and at most 81·31/4096 ≈ 0.61 in sum, so an output stays below 1.
// In memory the bank is tap-major: tap t of filter f at [t·F + f], so lanes that read the same
// tap of consecutive filters read consecutive words.
#pragma once

#if defined(__CUDACC__)
#define TL_CONV_HD __host__ __device__
#else
#define TL_CONV_HD
#endif

#define TL_CONV_MAX_RADIUS 4
#define TL_CONV_MAX_FILTERS 32
#define TL_CONV_MAX_TAPS ((2 * TL_CONV_MAX_RADIUS + 1) * (2 * TL_CONV_MAX_RADIUS + 1))

TL_CONV_HD constexpr float conv_filter_weight(int f, int t) {
    return float(1 + (7 * f + 5 * t + t * t) % 31) * (1.0f / 4096);
}
