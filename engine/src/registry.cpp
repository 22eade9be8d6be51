// The registry of variants. The lessons register theirs with TILELAB_REGISTER_VARIANT next to
// the factory (lessons/NN_slug/variant.cpp); the build generates the table that calls them, in
// the order of the lesson folders (cmake/registry_run.cmake). Tests add theirs at run time.
#include <deque>
#include <mutex>
#include "registry_table.h"

namespace tilelab {
namespace {

struct Registry {
    std::vector<Variant> listed;   // the lessons', built once and never changed
    std::mutex mutex;
    std::deque<Variant> added;     // add_variant(): a deque, so that pointers stay valid

    Registry() {
        for (const auto factory : registered_variant_factories()) listed.push_back(factory());
    }
};

Registry& registry() {
    static Registry r;
    return r;
}

}  // namespace

const std::vector<Variant>& all_variants() { return registry().listed; }

const Variant* find_variant(const std::string& id) {
    Registry& r = registry();
    for (const auto& v : r.listed)
        if (v.id == id) return &v;
    std::lock_guard lock(r.mutex);
    for (const auto& v : r.added)
        if (v.id == id) return &v;
    return nullptr;
}

void add_variant(Variant v) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    for (auto& existing : r.added)
        if (existing.id == v.id) {
            existing = std::move(v);
            return;
        }
    r.added.push_back(std::move(v));
}

}  // namespace tilelab

namespace tilelab {

CostModel full_cost_model(const Variant& v, const ParamValues& params, const Problem& problem) {
    CostModel m = v.cost_model(params, problem);
    if (v.shared_sites) {
        m.banks = bank_model(v.shared_sites(params, problem));
        m.banks.modelled = true;
    }
    return m;
}

}  // namespace tilelab
