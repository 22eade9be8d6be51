// FP16 and BF16 by hand, as cvt.rn does them (round to nearest even): the CPU run's arithmetic
// (cpu/cpu_alu.cpp), the families' CPU halves rounding their 16-bit inputs as the GPU's fill
// does, and the host models that recompute a kernel's values (attention's row trace). Internal.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include "tilelab/precision.h"

namespace tilelab {

inline float half_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    if (exp == 0) return std::bit_cast<float>(sign) + (sign ? -1.f : 1.f) * std::ldexp(float(man), -24);
    if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));
    return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}
inline uint16_t float_to_half(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f), sign = (x >> 16) & 0x8000;
    if (std::isnan(f)) return uint16_t(sign | 0x7E00);
    const float a = std::fabs(f);
    if (a >= 65520.f) return uint16_t(sign | 0x7C00);
    if (a < 6.103515625e-05f) return uint16_t(sign | uint32_t(std::nearbyint(a * 16777216.f)));   // subnormal: units of 2^-24
    uint32_t e = ((x >> 23) & 0xFF) - 112, m = x & 0x7FFFFF;
    uint32_t h = (e << 10) | (m >> 13);
    const uint32_t rest = m & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
    return uint16_t(sign | h);
}
inline float bf16_to_float(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }
inline uint16_t float_to_bf16(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    if (std::isnan(f)) return uint16_t((x >> 16) | 0x40);
    x += 0x7FFF + ((x >> 16) & 1);
    return uint16_t(x >> 16);
}

// `f` as the nearest value of type `t` holds (BF16, FP16), back as a float; FP32 and TF32 as given.
inline float round_to_element(float f, ElementType t) {
    if (t == ElementType::bf16) return bf16_to_float(float_to_bf16(f));
    if (t == ElementType::f16) return half_to_float(float_to_half(f));
    return f;
}

}  // namespace tilelab
