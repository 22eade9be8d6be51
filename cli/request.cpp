// Turning command-line text into a checked RunRequest.
#include "request.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <strings.h>

#include "format_table.h"
#include "tilelab/lesson.h"

namespace tilelab::cli {

// Size used when neither --size nor the variant's lesson gives one.
static constexpr const char* kFallbackSize = "1024";

bool model_mode_requested(const CliOptions& o) {
    if (o.model_mode) return true;
    const char* env = std::getenv("TILELAB_MODEL_MODE");
    return env != nullptr && *env != '\0' && std::string(env) != "0";
}

std::unique_ptr<Engine> make_engine(const CliOptions& o) {
    EngineConfig cfg;
    cfg.force_model_mode = model_mode_requested(o);
    return std::make_unique<Engine>(cfg);
}

static std::string variant_ids() {
    std::vector<std::string> ids;
    for (const auto& v : all_variants()) ids.push_back(v.id);
    return fmt::format("{}", fmt::join(ids, ", "));
}

const Variant& resolve_variant(const std::string& name) {
    if (const Variant* v = find_variant(name)) return *v;
    if (const Lesson* lesson = find_lesson(name)) {
        if (const Variant* v = find_variant(lesson->variant)) return *v;
    }
    throw usage_error(fmt::format("unknown variant '{}'; the variants are {} (or give a lesson number)",
                                  name, variant_ids()));
}

const ParamSpec* find_param(const Variant& v, const std::string& name) {
    for (const auto& p : v.params)
        if (p.name == name) return &p;
    return nullptr;
}

const ParamSpec& require_param(const Variant& v, const std::string& name) {
    if (const ParamSpec* p = find_param(v, name)) return *p;
    if (v.params.empty())
        throw usage_error(fmt::format("{} has no parameter {} (it has no parameters)", v.id, name));
    std::vector<std::string> names;
    std::string same_but_case;
    for (const auto& p : v.params) {
        names.push_back(p.name);
        if (strcasecmp(p.name.c_str(), name.c_str()) == 0) same_but_case = p.name;
    }
    if (!same_but_case.empty())
        throw usage_error(fmt::format("{} has no parameter {}; did you mean {}?", v.id, name, same_but_case));
    throw usage_error(fmt::format("{} has no parameter {}; its parameters are {}", v.id, name, fmt::join(names, ", ")));
}

void check_param_value(const ParamSpec& spec, int value) {
    std::string reason = spec.range_reason(value);
    if (reason.empty()) return;
    // The sentence comes from the declaration; make sure it names the parameter and value.
    const std::string assignment = fmt::format("{}={}", spec.name, value);
    if (reason.find(spec.name) == std::string::npos) reason = assignment + ": " + reason;
    throw usage_error(reason);
}

ParamValues parse_sets(const Variant& v, const std::vector<std::string>& sets) {
    ParamValues values;
    for (const auto& text : sets) {
        std::string name, error;
        int value = 0;
        if (!parse_assignment(text, name, value, error))
            throw usage_error(fmt::format("--set {}: {}", text, error));
        check_param_value(require_param(v, name), value);
        values[name] = value;
    }
    return values;
}

static std::string lesson_size(const Variant& v) {
    for (const auto& lesson : all_lessons()) {
        if (lesson.variant != v.id) continue;
        for (const auto& step : lesson.steps)
            if (!step.size.empty()) return step.size;
    }
    return "";
}

Problem resolve_problem(const Variant& v, const std::string& size_text) {
    std::string text = size_text;
    if (text.empty()) text = lesson_size(v);
    if (text.empty()) text = kFallbackSize;
    Problem p;
    std::string error;
    if (!parse_problem(text, p, error)) throw usage_error(fmt::format("--size {}: {}", text, error));
    return p;
}

static std::string preset_keys() {
    std::vector<std::string> keys;
    for (const auto& t : target_presets()) keys.push_back(t.preset);
    return fmt::format("{}", fmt::join(keys, ", "));
}

void apply_target(Engine& engine, const std::string& key) {
    if (key.empty()) return;
    const Target current = engine.target();
    if (engine.device().gpu) {
        // Kernels run on the device, so only the device itself can be the target.
        const Target* wanted = find_target(key);
        const bool is_device = key == "device" || key == current.name || key == current.arch_name() ||
                               (wanted != nullptr && wanted->arch() == current.arch());
        if (is_device) return;
        throw usage_error(fmt::format(
            "--target {} applies to model mode only: kernels run on the {} ({}) here; "
            "add --model-mode to analyse for {} instead",
            key, current.name, current.arch_name(), key));
    }
    const Target* preset = find_target(key);
    if (preset == nullptr)
        throw usage_error(fmt::format("unknown target '{}'; the presets are {} (or an arch such as sm_90)",
                                      key, preset_keys()));
    if (!engine.set_target(*preset))
        throw usage_error(fmt::format("the engine refused target '{}'", key));
}

RunRequest build_request(const CliOptions& o, Engine& engine) {
    const Variant& v = resolve_variant(o.variant);
    RunRequest req;
    req.variant = v.id;
    req.params = with_defaults(v.params, parse_sets(v, o.sets));
    req.problem = resolve_problem(v, o.size);
    apply_target(engine, o.target);
    const std::string reason = engine.invalid_reason(req);
    if (!reason.empty()) throw usage_error(reason);
    return req;
}

}  // namespace tilelab::cli
