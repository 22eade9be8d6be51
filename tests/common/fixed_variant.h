// Variants of the tests' own (added to the registry at run time, unlisted): a fixed kernel with a
// launch of its own, declared through the same define_variant() the lessons use.
#pragma once
#include <functional>
#include <string>
#include "tilelab/variant.h"

namespace tilelab::testing {

// A variant's config whose functions are given as data.
struct FixedKernel {
    KernelInstance k{};
    std::function<LaunchShape(const Problem&)> shape{};
    std::function<std::string(const Problem&, const Target&)> refuse{};   // none: every problem runs
    Precision element_types{};                                           // FP32 by default

    std::string invalid_reason(const Problem& p, const Target& t) const { return refuse ? refuse(p, t) : ""; }
    KernelInstance kernel() const { return k; }
    LaunchShape launch(const Problem& p) const { return shape(p); }
    CostModel cost_model(const Problem&) const { return {}; }
    Precision precision() const { return element_types; }
};

// `info` with `make` building the config from the request's values.
inline Variant fixed_variant(VariantInfo info, std::function<FixedKernel(const ParamReader&)> make) {
    return define_variant<FixedKernel>(std::move(info), std::move(make));
}

// `info` with one kernel and one launch shape whatever the values.
inline Variant fixed_variant(VariantInfo info, KernelInstance k, LaunchShape shape) {
    return fixed_variant(std::move(info), [k, shape](const ParamReader&) {
        return FixedKernel{k, [shape](const Problem&) { return shape; }, {}, {}};
    });
}

// 16×16 blocks over the family's output: C (N columns × M rows), or a grid's x–y planes, one block deep per z.
inline LaunchShape blocks_of_16x16(const std::string& family, const Problem& p) {
    LaunchShape s;
    s.block = {16, 16, 1};
    if (family == "matmul") s.grid = {unsigned((p.dim[1] + 15) / 16), unsigned((p.dim[0] + 15) / 16), 1};
    else s.grid = {unsigned((p.dim[0] + 15) / 16), unsigned((p.dim[1] + 15) / 16), unsigned(p.dim[2])};
    return s;
}

}  // namespace tilelab::testing
