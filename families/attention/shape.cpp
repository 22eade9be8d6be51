// The attention family's shape (family_shape.h): BH heads of O = softmax(Q·Kᵀ/√d)·V, Q, K, V of
// N×d elements of the kernel's input type, O of N×d floats; with the option causal = 1, row i's
// softmax runs over keys 0..i only. Its GPU half is gpu_cuda.cpp, its
// CPU half cpu.cpp.
#include <fmt/format.h>
#include <cmath>
#include "model/family_shape.h"
#include "shape.h"
#include "tilelab/i18n.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

// d is a head's width: the kernels keep d/… values of a row in registers, instantiated per d.
constexpr int64_t kMaxHeadDim = 256;
// N up to 2^17 rows; BH up to 65535 heads (gridDim.y).
constexpr int64_t kMaxRows = int64_t(1) << 17, kMaxHeads = 65535;

class AttentionShape final : public FamilyShape {
public:
    std::array<std::string, 3> dim_names() const override { return {"N", "d", "BH"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        const int64_t N = p.dim[0], d = p.dim[1], BH = p.dim[2];
        if (N < 1 || N > kMaxRows) return trf("family.attention.shape.n_range", N, kMaxRows);
        if (d < 4 || d > kMaxHeadDim || d % 4 != 0) return trf("family.attention.shape.d_range", d, kMaxHeadDim);
        if (BH < 1 || BH > kMaxHeads) return trf("family.attention.shape.bh_range", BH, kMaxHeads);
        const double elements = double(N) * double(d) * double(BH);
        if (elements > kMaxBufferElements) return trf("family.attention.shape.too_many_elements", elements);
        return "";
    }

    // Inputs of any type the kernels read as floats (FP32, BF16, FP16), sums and output in FP32.
    std::string precision_invalid_reason(const Precision& p) const override {
        if (p.input == ElementType::tf32 || p.accumulate != ElementType::f32 || p.output != ElementType::f32 ||
            p.intermediate == ElementType::tf32)
            return trf("family.attention.shape.precision", p.describe());
        return "";
    }

    // causal = 1: query row i sees keys 0..i only (a decoder's mask); scores = 1: S and P in
    // memory (shape.h); q_scale: a power of two from 1 to 64. 0 or absent: none of them.
    std::string options_invalid_reason(const FamilyOptions& o) const override {
        for (const auto& [name, value] : o) {
            const bool flag = (name == "causal" || name == "scores") && (value == 0 || value == 1);
            const bool scale = name == "q_scale" && value >= 1 && value <= 64 && (value & (value - 1)) == 0;
            if (!flag && !scale) return trf("family.attention.shape.options", format_options(o));
        }
        return "";
    }

    // Q, K, V as floats, O and the reference (doubles), plus the 16-bit copies of Q, K and V where
    // the input is narrower, and the N×N matrices S and P the plain path is handed (scores = 1).
    // The unfused yardstick's own are not counted: it is skipped (no "% of reference") where they
    // do not fit (gpu_cuda.cpp).
    size_t device_bytes(const Problem& p, const Precision& precision, const FamilyOptions& options) const override {
        const size_t rows = size_t(p.dim[0]) * size_t(p.dim[1]) * size_t(p.dim[2]);
        const size_t narrow = element_bytes(precision.input) < 4 ? size_t(element_bytes(precision.input)) : 0;
        const size_t squares = size_t(p.dim[0]) * size_t(p.dim[0]) * size_t(p.dim[2]);
        const size_t scores = attention_scores_in_memory(options) ? (4 + size_t(element_bytes(precision.input))) * squares : 0;
        return (4 * 3 + 4 + 8 + 3 * narrow) * rows + scores;
    }
    // Rows that fill no tile exactly (several key tiles, a partial last one), two heads.
    Problem cpu_problem() const override { return Problem{{75, 32, 2}}; }
    // N of any length (BR and BC never divide it), d across the widths the kernels take (the
    // variants refuse those their threads cannot split), a few heads.
    std::array<SizeRange, 3> test_sizes(TestSizes kind) const override {
        if (kind == TestSizes::small) return {SizeRange{1, 700}, SizeRange{4, kMaxHeadDim}, SizeRange{1, 4}};
        if (kind == TestSizes::large) return {SizeRange{1025, 2048}, SizeRange{32, 128}, SizeRange{1, 8}};
        return {SizeRange{256, 1536}, SizeRange{32, 128}, SizeRange{1, 8}};
    }
    Problem test_problem() const override { return Problem{{1024, 64, 8}}; }
};

}  // namespace

// Derivation. O = Σ_j w_j·v_j with weights w_j = p_j / Σ p, Σ w = 1, and |v| ≤ 1, so |O| ≤ 1 and
// the comparison relative to max(1, |expected|) is absolute. The reference is double precision
// from the same (already rounded) inputs: BF16/FP16 become floats exactly, so only the kernel's
// FP32 arithmetic errs, u = 2^-24 per operation, to first order and in the worst case:
//  - a score is a d-term dot product of values ≤ 1 scaled by log2(e)/√d: error ≤ d·u·d·log2(e)/√d
//    = log2(e)·d^1.5·u; through exp2 a score error δ is a relative weight error ln(2)·δ, so
//    d^1.5·u (log2(e)·ln(2) = 1);
//  - exp2f (2 ulp), the rescale factor, the final division: a few u, 8u;
//  - the running sums of p and p·v over N keys, each added once and rescaled once per key tile:
//    at most 2·N·u relative to Σ p·|v| ≤ Σ p. A causal row sums i + 1 ≤ N keys: the same bound.
// Hence u·(d^1.5 + 2N + 8): 5.7e-4 at N = 4096, d = 128; 6.2e-5 at N = 256, d = 64.
// A tensor-core kernel rounds every weight p to the input type before P·V (precision.intermediate):
// p̃ = p·(1 + ε), |ε| ≤ u_p (bf16 2^-8, fp16 2^-11), while l still sums the unrounded p. The
// output moves by Σ ε·p·v / l, at most u_p·Σ p·|v| / Σ p ≤ u_p: the tolerance gains u_p (3.9e-3
// for BF16, 4.9e-4 for FP16). The products of 16-bit values are exact in FP32 on the tensor cores
// and their sums are FP32: the terms above cover them.
// Q scaled by a (option q_scale, a power of two: exact) bounds a score's error by a·d^1.5·u: the
// first term gains the factor a.
// The plain path (option scores) rounds a weight to the input type at most three times: its
// naive softmax rounds the exponential, divides the rounded values by their sum (a weight moves
// by at most 2·u_p relative) and rounds the quotient; the safe one rounds once. 3·u_p covers them.
// A wrong kernel misses by the size of O itself (about 1/√(3N) for these inputs), or more.
double attention_tolerance(int64_t N, int64_t d, ElementType intermediate, const FamilyOptions& options) {
    const double u = std::ldexp(1.0, -24);
    const double roundings = attention_scores_in_memory(options) ? 3.0 : 1.0;
    const double weights = intermediate == ElementType::f32 ? 0.0 : roundings * unit_roundoff(intermediate);
    return u * (attention_q_scale(options) * std::pow(double(d), 1.5) + 2.0 * double(N) + 8.0) + weights;
}

std::string attention_mismatch(size_t at, int64_t N, int64_t d, float got, double expected, double tolerance,
                               uint64_t bad, size_t n) {
    const size_t row = at / size_t(d), head = row / size_t(N);
    return trf("family.attention.shape.o_expected", head, row % size_t(N), at % size_t(d), got, expected,
               std::fabs(double(got) - expected), tolerance, bad, n);
}

std::unique_ptr<FamilyShape> make_attention_shape() { return std::make_unique<AttentionShape>(); }
TILELAB_REGISTER_FAMILY("attention", make_attention_shape)

}  // namespace tilelab
