// Turning command-line text into a checked RunRequest.
#include "request.h"
#include "tilelab/i18n.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>

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

std::unique_ptr<Engine> make_engine(const CliOptions& o, bool counters_wanted) {
    // Several hosts make a pool, which only sweep uses (make_pool); elsewhere one would be ignored.
    if (o.gpu_hosts.size() > 1) throw usage_error(tr("cli.gpu_hosts_sweep_only"));
    EngineConfig cfg;
    cfg.force_model_mode = model_mode_requested(o);
    cfg.prepare_hardware_counters = counters_wanted;
    cfg.prepare_stall_samples = o.stalls;
    cfg.gpu.host = o.gpu_hosts.empty() ? std::string() : o.gpu_hosts.front();
    cfg.gpu.command = o.gpu_command;
    cfg.gpu.connect_timeout_s = o.connect_timeout_s;
    if (const std::string problem = cfg.gpu.problem(); !problem.empty()) throw usage_error(problem);
    auto engine = std::make_unique<Engine>(cfg);
    const DeviceStatus d = engine->device();
    // Asked for a GPU elsewhere and not reached: a failure with its reason, not model mode.
    if (d.unreachable) throw CliError(kExitRuntime, d.reason);
    if (d.gpu && !d.where.empty()) std::fprintf(stderr, "%s\n", trf("cli.gpu_where", d.name, d.where).c_str());
    return engine;
}

bool pool_requested(const CliOptions& o) { return !o.gpus.empty() || o.gpu_hosts.size() > 1; }

std::unique_ptr<GpuPool> make_pool(const CliOptions& o, bool counters_wanted) {
    if (model_mode_requested(o)) throw usage_error(tr("cli.gpus_model_mode"));
    GpuSet set;
    if (!o.gpus.empty())
        if (const std::string problem = parse_gpu_set(o.gpus, set); !problem.empty()) throw usage_error(problem);
    std::vector<GpuLocation> places;
    for (const std::string& host : o.gpu_hosts) places.push_back({host, "", o.connect_timeout_s});
    if (!o.gpu_command.empty()) places.push_back({"", o.gpu_command, o.connect_timeout_s});
    for (const GpuLocation& place : places)
        if (const std::string problem = place.problem(); !problem.empty()) throw usage_error(problem);
    EngineConfig base;
    base.prepare_hardware_counters = counters_wanted;
    base.prepare_stall_samples = o.stalls;
    auto pool = std::make_unique<GpuPool>();
    std::string failure;
    if (!pool->open(places, set, base, failure)) throw CliError(kExitRuntime, failure);
    std::fprintf(stderr, "tilelab-cli: %s\n", pool->describe().c_str());
    return pool;
}

GpuWaitEcho::GpuWaitEcho(const Engine& engine) : thread_([this, &engine] {
    std::string said;
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::milliseconds(200));
        const std::string note = engine.gpu_note();
        if (note.rfind("waiting", 0) == 0 && note != said) std::fprintf(stderr, "tilelab-cli: %s\n", note.c_str());
        said = note;
    }
}) {}

GpuWaitEcho::~GpuWaitEcho() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
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
    std::vector<std::string> ids;
    for (const auto& v : all_variants()) ids.push_back(v.id);
    std::string message = trf("cli.unknown_variant", shortened(name),
                                      variant_ids());
    if (const auto close = close_names(name, ids); !close.empty()) message += "; did you mean " + fmt::format("{}", fmt::join(close, " or ")) + "?";
    throw usage_error(message);
}

static std::string lesson_size(const Variant& v) {
    for (const auto& lesson : all_lessons())
        if (lesson.variant == v.id) return lesson.state_at(0).size;
    return "";
}

// --step N: the lesson named by the positional argument, at its step N (from 1, as the app shows
// steps and the drills name them; 0, the first step in the old numbering from 0, is step 1).
static StepState step_state(const CliOptions& o) {
    const Lesson* lesson = find_lesson(o.variant);
    if (!lesson)
        throw usage_error(trf("cli.step_needs_lesson", shortened(o.variant)));
    if (o.step > int(lesson->steps.size()))
        throw usage_error(trf("cli.no_such_step", lesson->id, lesson->steps.size(), lesson->steps.size(), o.step));
    return lesson->state_at(std::max(o.step, 1) - 1);
}

Problem resolve_problem(const Variant& v, const std::string& size_text) {
    // main.cpp has already refused an empty --size: "" here means the flag was not given.
    if (!size_text.empty()) return parse_size_flag(size_text);
    std::string text = lesson_size(v);
    if (text.empty()) text = kFallbackSize;
    return parse_size_flag(text);
}

void apply_target(Engine& engine, const std::string& key) {
    if (key.empty()) return;   // not given (main.cpp refuses an empty value)
    const Target current = engine.target();
    if (engine.device().gpu) {
        // Kernels run on the device, so only the device itself can be the target.
        const Target* wanted = find_target(key);
        const bool is_device = key == "device" || key == current.name || key == current.arch_name() ||
                               (wanted != nullptr && wanted->arch() == current.arch());
        if (is_device) return;
        throw usage_error(trf("cli.target_model_mode_only",
            shortened(key), current.name, current.arch_name(), shortened(key)));
    }
    const Target& preset = require_target(key);
    if (!engine.set_target(preset))
        throw usage_error(trf("cli.target_refused", shortened(key)));
}

RunRequest build_request(const CliOptions& o, Engine& engine) {
    const Variant& v = resolve_variant(o.variant);
    RunRequest req;
    req.variant = v.id;
    if (o.step >= 0) {
        const StepState state = step_state(o);
        req.params = state.params;
        for (const auto& [name, value] : parse_sets(v, o.sets)) req.params[name] = value;
        req.problem = resolve_problem(v, o.size.empty() ? state.size : o.size);
    } else {
        req.params = with_defaults(v.params, parse_sets(v, o.sets));
        req.problem = resolve_problem(v, o.size);
    }
    apply_target(engine, o.target);
    const std::string reason = engine.invalid_reason(req);
    if (!reason.empty()) throw usage_error(reason);
    return req;
}

}  // namespace tilelab::cli
