// What the model tests look up by name: a registered variant, a target preset, a problem size.
// Each throws, naming what is missing, rather than handing a test a null pointer.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include "tilelab/target.h"
#include "tilelab/variant.h"

namespace tilelab::test {

inline const Variant& registered_variant(const std::string& id) {
    const Variant* v = find_variant(id);
    if (!v) throw std::runtime_error("variant not registered: " + id);
    return *v;
}

inline const Target& h100() {
    const Target* t = find_target("h100");
    if (!t) throw std::runtime_error("no h100 preset");
    return *t;
}

inline Problem size(int64_t m, int64_t n, int64_t k) { return Problem{{m, n, k}}; }

// `v`'s values at its defaults with `sets` ("NAME=VALUE") applied; throws on a malformed one.
inline ParamValues values_with(const Variant& v, const std::vector<std::string>& sets) {
    ParamValues given;
    for (const std::string& s : sets) {
        std::string name, error;
        int value = 0;
        if (!parse_assignment(s, name, value, error)) throw std::runtime_error(error);
        given[name] = value;
    }
    return with_defaults(v.params, given);
}

// A variant-specific quantity of a cost model (CostModel::extras), by its name.
inline double extra_value(const CostModel& m, const std::string& quantity) {
    for (const Formula& f : m.extras)
        if (f.quantity == quantity) return f.value;
    throw std::runtime_error("the model has no quantity '" + quantity + "'");
}

}  // namespace tilelab::test
