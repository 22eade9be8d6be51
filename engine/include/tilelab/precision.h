// Precision as data: which element types a kernel reads, accumulates in and writes. A variant
// declares them (VariantInstance::precision) and the engine derives the rest from them: buffer
// types, the reference at the same precision, the validation tolerance, bytes (element sizes,
// never a literal 4), the compute roof and the name of the yardstick ("cuBLAS BF16 GEMM").
#pragma once
#include <optional>
#include <string>

namespace tilelab {

enum class ElementType {
    f32,    // IEEE binary32
    tf32,   // stored as binary32; the tensor cores read 10 mantissa bits of it (round to nearest)
    bf16,   // bfloat16: 8 exponent bits, 7 mantissa bits
    f16,    // IEEE binary16: 5 exponent bits, 10 mantissa bits
};

// "fp32", "tf32", "bf16", "fp16": the names the CLI, the JSON and the UI use.
const char* element_name(ElementType t);
std::optional<ElementType> parse_element(const std::string& name);
// "FP32", "TF32", "BF16", "FP16": the name in capitals, as sentences and headings write it.
std::string element_label(ElementType t);
// Bytes one element occupies in memory (TF32 lives in a 4-byte float).
int element_bytes(ElementType t);
// Unit roundoff u = 2^-(p) where p is the significand's bits after the point plus one: the largest
// relative error of rounding one value to nearest. fp32 2^-24, tf32 2^-11, bf16 2^-8, fp16 2^-11.
double unit_roundoff(ElementType t);

struct Precision {
    ElementType input = ElementType::f32;        // what the kernel's operands are (A, B; a stencil's grid)
    ElementType accumulate = ElementType::f32;   // the type its sums are kept in
    ElementType output = ElementType::f32;       // what it writes (C; the output grid)
    // What values between two of the kernel's products are rounded to: attention's weights P on
    // their way from S = Q·Kᵀ into P·V (tensor cores take 16-bit operands). f32: kept as floats.
    ElementType intermediate = ElementType::f32;
    bool operator==(const Precision&) const = default;

    bool plain_fp32() const { return *this == Precision{}; }
    // "fp32", or "bf16 → fp32" when the input differs from the accumulator and output, or all three;
    // " (P in bf16)" after it when the intermediate values are rounded.
    std::string describe() const;
};

// The tolerance a correct matmul of reduction length K at precision p is held to, relative to
// max(1, |expected|), with the expected value computed in double from the same (already rounded)
// inputs. Derivation (precision.cpp): the only error left is the accumulation's and, for TF32,
// the rounding of the inputs on their way into the tensor cores.
double matmul_tolerance(const Precision& p, int64_t K);
// The same derivation in one sentence, for the UI and docs.
std::string matmul_tolerance_rule(const Precision& p);

}  // namespace tilelab
