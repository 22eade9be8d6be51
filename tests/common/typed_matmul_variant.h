// A test variant at another precision (kernels/test/typed_matmul.cuh): a naive matmul over TF32,
// BF16 or FP16 operands with FP32 accumulation, declared like a lesson's variant with its element
// types as data. Shared by the CPU tests (model, bytes, compile) and the GPU tests (validation,
// % of cuBLAS at the same precision, the roof).
#pragma once
#include <string>
#include "fixed_variant.h"
#include "../../families/matmul/model.h"
#include "tilelab/variant.h"

namespace tilelab::testing {

struct TypedMatmul {
    ElementType input = ElementType::bf16;
    int skip = 0;   // products left out of every dot product (a wrong kernel)

    int kind() const { return input == ElementType::tf32 ? 0 : input == ElementType::bf16 ? 1 : 2; }
    std::string invalid_reason(const Problem&, const Target& t) const {
        return input == ElementType::tf32 && t.arch() < 80 ? "cvt.rna.tf32.f32 needs sm_80 or later." : "";
    }
    KernelInstance kernel() const {
        return {"test/typed_matmul.cuh", "typed_matmul<" + std::to_string(kind()) + ", " + std::to_string(skip) + ">"};
    }
    LaunchShape launch(const Problem& p) const { return blocks_of_16x16("matmul", p); }
    // One thread per element of C: 2·K loads of the input type and one FP32 store.
    CostModel cost_model(const Problem& p) const {
        const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
        CostModel m;
        m.per_thread = {2 * K, 1, 0, 0};
        m.per_block = {256 * 2 * K, 256, 0, 0};
        m.total = {2 * M * N * K, M * N, 0, 0};
        matmul::finish_cost_model(m, p, precision());
        return m;
    }
    Precision precision() const { return {input, ElementType::f32, ElementType::f32}; }
};

// "test.typed_matmul.bf16" (or .tf32, .fp16; ".skip1" when it drops a product), added to the registry.
inline const Variant& typed_matmul_variant(ElementType input, int skip = 0) {
    const std::string id = std::string("test.typed_matmul.") + element_name(input) + (skip ? ".skip" + std::to_string(skip) : "");
    if (const Variant* v = find_variant(id)) return *v;
    add_variant(define_variant<TypedMatmul>({.id = id, .family = "matmul", .title = "typed matmul (test)"},
                                            [input, skip](const ParamReader&) { return TypedMatmul{input, skip}; }));
    return *find_variant(id);
}

}  // namespace tilelab::testing
