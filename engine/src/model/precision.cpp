// Element types and the tolerance a kernel is validated with at its precision (tilelab/precision.h).
#include "tilelab/precision.h"

#include <fmt/format.h>
#include <cctype>
#include <cmath>
#include <cstdint>

namespace tilelab {

const char* element_name(ElementType t) {
    switch (t) {
        case ElementType::f32: return "fp32";
        case ElementType::tf32: return "tf32";
        case ElementType::bf16: return "bf16";
        case ElementType::f16: return "fp16";
    }
    return "?";
}

std::optional<ElementType> parse_element(const std::string& name) {
    for (ElementType t : {ElementType::f32, ElementType::tf32, ElementType::bf16, ElementType::f16})
        if (name == element_name(t)) return t;
    return std::nullopt;
}

std::string element_label(ElementType t) {
    std::string label = element_name(t);
    for (char& c : label) c = char(std::toupper(static_cast<unsigned char>(c)));
    return label;
}

int element_bytes(ElementType t) {
    switch (t) {
        case ElementType::f32:
        case ElementType::tf32: return 4;
        case ElementType::bf16:
        case ElementType::f16: return 2;
    }
    return 4;
}

double unit_roundoff(ElementType t) {
    switch (t) {
        case ElementType::f32: return std::ldexp(1.0, -24);    // 23 stored mantissa bits
        case ElementType::tf32: return std::ldexp(1.0, -11);   // 10
        case ElementType::bf16: return std::ldexp(1.0, -8);    // 7
        case ElementType::f16: return std::ldexp(1.0, -11);    // 10
    }
    return 1;
}

std::string Precision::describe() const {
    std::string s = input == accumulate && accumulate == output ? element_name(input)
                    : accumulate == output
                        ? fmt::format("{} → {}", element_name(input), element_name(output))
                        : fmt::format("{} → {} → {}", element_name(input), element_name(accumulate), element_name(output));
    if (intermediate != ElementType::f32) s += fmt::format(" (P in {})", element_name(intermediate));
    return s;
}

namespace {

// The FP32-accumulation term, 1e-4·√K, relative to max(1, |expected|). With inputs uniform in
// [-1, 1) the partial sums grow like √k/3 and each FP32 addition rounds by about 2^-24 of that, so
// the accumulation error is a random walk of order 2^-24·K/3 (≈ 6e-5 at K = 4096, about 3e-4 for
// the worst of 16M outputs); 1e-4·√K (6.4e-3 at K = 4096) leaves a margin of 20 or more for any
// summation order, tensor cores' adder trees included. A kernel that drops a tile of T products
// is off by about √T/3 (0.9 for a k-step of 8) and an unwritten element is NaN: both fail.
constexpr double kAccumulateFp32 = 1e-4;

// TF32 inputs are stored as FP32 and rounded on their way into the tensor cores: to nearest by
// cvt.rna (WMMA's __float_to_tf32), or truncated when mma.sync reads raw FP32 bits, a relative
// error of at most 2^-10 per input, so at most 2·2^-10 per product. The reference sees other
// roundings (FP32 inputs in the double kernel, cuBLAS's own TF32). Over K products of random sign
// and r.m.s. size 1/3 that is a random walk of standard deviation 2·2^-10·√K/3 per side, √2 of it
// for two independent sides; six standard deviations cover the worst of 16M outputs:
// 6·√2·2·2^-10/3 ≈ 5.5e-3 per √K.
double input_rounding_term(ElementType input) {
    if (input != ElementType::tf32) return 0;
    return 6 * std::sqrt(2.0) * 2 * std::ldexp(1.0, -10) / 3;
}

}  // namespace

double matmul_tolerance(const Precision& p, int64_t K) {
    // BF16 and FP16 inputs are rounded once, when the buffers are filled, and the reference reads
    // the same rounded values; their products are exact in FP32 (8+8 and 11+11 significant bits),
    // so accumulation is the only error. A BF16/FP16 output adds its own rounding, u_out relative.
    const double output = p.output == ElementType::f32 ? 0 : unit_roundoff(p.output);
    return (kAccumulateFp32 + input_rounding_term(p.input)) * std::sqrt(double(K)) + output;
}

std::string matmul_tolerance_rule(const Precision& p) {
    std::string rule = "1e-4·√K (FP32 accumulation)";
    if (p.input == ElementType::tf32) rule = "(1e-4 + 5.5e-3)·√K (FP32 accumulation, TF32 rounding of the inputs)";
    if (p.output != ElementType::f32) rule += fmt::format(" + 2^-{} ({} output)", int(std::lround(-std::log2(unit_roundoff(p.output)))), element_name(p.output));
    return rule + ", relative to max(1, |expected|)";
}

}  // namespace tilelab
