// Problem families by name. A variant names its family ("matmul", "stencil"); the engine asks
// here for its shape (family_shape.h). Each family registers its shape next to the factory with
// TILELAB_REGISTER_FAMILY (families/<family>/shape.cpp); the build generates the table. The GPU
// halves are looked up in gpu_worker/family_registry.cpp, the CPU halves in cpu/cpu_run.cpp.
#include <climits>
#include <map>
#include "model/family_shape.h"
#include "model/registry_table.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

const std::map<std::string, std::unique_ptr<FamilyShape> (*)()>& factories() {
    static const auto table = factories_by_name(registered_family_factories());
    return table;
}

}  // namespace

std::string FamilyShape::precision_invalid_reason(const Precision& p) const {
    if (p.plain_fp32()) return "";
    return say("This family's buffers and reference are FP32 only; the kernel asks for {}.",
               "该问题族的缓冲区和参考结果只支持 FP32；这个内核要求 {}。", p.describe());
}

std::string FamilyShape::options_invalid_reason(const FamilyOptions& o) const {
    if (o.empty()) return "";
    return say("This family computes one thing only; the kernel asks for {}.", "该问题族只计算一种结果；这个内核要求 {}。",
               format_options(o));
}

// Matrices: any size up to 700 (no tile divides them all), 1025-2048, and 256-1536 for counters.
std::array<FamilyShape::SizeRange, 3> FamilyShape::test_sizes(TestSizes kind) const {
    const SizeRange r = kind == TestSizes::small ? SizeRange{1, 700} : kind == TestSizes::large ? SizeRange{1025, 2048}
                                                                                                : SizeRange{256, 1536};
    return {r, r, r};
}

std::string FamilyShape::past_int_reason(const Problem& p, int i) const {
    if (p.dim[size_t(i)] <= INT_MAX) return "";
    return say("{} is {}, but the kernels take their sizes as int (at most {}).", "{} 为 {}，但内核以 int 接收规模（最大 {}）。",
               dim_names()[size_t(i)], p.dim[size_t(i)], INT_MAX);
}

std::unique_ptr<FamilyShape> make_family_shape(const std::string& name) {
    const auto it = factories().find(name);
    return it == factories().end() ? nullptr : it->second();
}

std::array<std::string, 3> family_dim_names(const std::string& family) {
    static const auto names = [] {
        std::map<std::string, std::array<std::string, 3>> t;
        for (const auto& [name, make] : factories()) t[name] = make()->dim_names();
        return t;
    }();
    const auto it = names.find(family);
    return it == names.end() ? std::array<std::string, 3>{} : it->second;
}

}  // namespace tilelab
