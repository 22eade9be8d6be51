// The registry of variants. The lessons register theirs with TILELAB_REGISTER_VARIANT next to
// the factory (lessons/NN_slug/variant.cpp); the build generates the table that calls them, in
// the order of the lesson folders (cmake/registry_run.cmake). Tests add theirs at run time.
#include <deque>
#include <mutex>
#include "model/registry_table.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

// A lesson's words live in its folder (lessons/NN_slug/strings.json and strings.zh.json, merged
// into the string tables): its title and summary ("variant.<id>.title"), and its parameters'
// labels and help ("param.<id>.<NAME>.label"), or, for a parameter its family's kernels share,
// the family's ("param.<family>.<NAME>.label"). What the variant's code already says is kept.
void fill_words(Variant& v) {
    const auto& en = string_table(Language::English);
    const auto& zh = string_table(Language::Chinese);
    const auto text = [](const std::map<std::string, std::string>& table, std::initializer_list<std::string> keys) {
        for (const std::string& k : keys)
            if (auto it = table.find(k); it != table.end()) return it->second;
        return std::string();
    };
    if (v.title.empty()) v.title = text(en, {"variant." + v.id + ".title"});
    if (v.summary.empty()) v.summary = text(en, {"variant." + v.id + ".summary"});
    for (ParamSpec& p : v.params) {
        const std::string own = "param." + v.id + "." + p.name, shared = "param." + v.family + "." + p.name;
        if (p.label.empty()) {
            p.label = text(en, {own + ".label", shared + ".label"});
            p.label_zh = text(zh, {own + ".label", shared + ".label"});
        }
        if (p.help.empty()) {
            p.help = text(en, {own + ".help", shared + ".help"});
            p.help_zh = text(zh, {own + ".help", shared + ".help"});
        }
    }
}

struct Registry {
    std::vector<Variant> listed;   // the lessons', built once and never changed
    std::mutex mutex;
    std::deque<Variant> added;     // add_variant(): a deque, so that pointers stay valid

    Registry() {
        for (const auto factory : registered_variant_factories()) {
            listed.push_back(factory());
            fill_words(listed.back());
        }
    }
};

Registry& registry() {
    static Registry r;
    return r;
}

}  // namespace

const std::vector<Variant>& all_variants() { return registry().listed; }

std::optional<int> find_choice(const std::string& param, const std::string& word) {
    for (const Variant& v : all_variants())
        for (const ParamSpec& p : v.params) {
            if (p.name != param) continue;
            for (size_t i = 0; i < p.choices.size(); ++i)
                if (p.choices[i] == word) return p.min + int(i);
        }
    return std::nullopt;
}

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

CostModel full_cost_model(const VariantInstance& v, const Problem& problem, const Target& target) {
    CostModel m = v.cost_model(problem, target);
    if (v.has_shared_sites()) {
        m.banks = bank_model(v.shared_sites(problem));
        m.banks.modelled = true;
    }
    return m;
}

CostModel full_cost_model(const Variant& v, const ParamValues& params, const Problem& problem, const Target& target) {
    return full_cost_model(*v.bind(params), problem, target);
}

}  // namespace tilelab

namespace tilelab {

std::shared_ptr<const VariantInstance> Variant::bind(const ParamValues& values) const {
    if (!make_instance) throw std::logic_error("the variant " + id + " is not implemented yet");
    return make_instance(with_defaults(params, values));
}

int ParamReader::operator[](const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) throw std::out_of_range("the request has no value for parameter " + name);
    return it->second;
}

}  // namespace tilelab
