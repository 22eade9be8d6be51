// The engine: checks a request, compiles and analyses it (no GPU needed), and in GPU mode hands
// it to the GPU worker process to be measured (worker_client.h: a kernel fault then costs only
// that process). Model mode when there is no driver or device, or when asked.
#include "tilelab/engine.h"
#include "tilelab/i18n.h"
#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include "host/compile_ahead.h"
#include "host/host_compilers.h"
#include "host/launch_limits.h"
#include "host/kernel_builds.h"
#include "cpu/cpu_run.h"
#include "model/family_shape.h"
#include "device/probe.h"
#include "host/worker_client.h"
#include "host/user_signature.h"
#include "host/optional_stages.h"
#include "host/worker_replies.h"

namespace tilelab {
namespace {

// Empty if the variant has a definition (placeholders have none).
std::string not_implemented_reason(const Variant& v) {
    if (!v.defined()) return fmt::format("variant {} is not implemented yet", v.id);
    return "";
}

}  // namespace

struct Engine::Impl {
    explicit Impl(const EngineConfig& cfg)
        : compiler(cfg.cache_dir.empty() ? default_cache_dir() : cfg.cache_dir), where(cfg.gpu), force_model_mode(cfg.force_model_mode),
          prepare_counters(cfg.prepare_hardware_counters), prepare_stalls(cfg.prepare_stall_samples),
          own_client(cfg.own_worker ? std::make_unique<WorkerClient>() : nullptr),
          client(own_client ? *own_client : WorkerClient::instance()) {
        locate(cfg.force_model_mode);
    }

    // Finds the GPU where `where` says: this machine's (probed here), or the remote worker's.
    void locate(bool force_model_mode) {
        // A worker elsewhere is configured even in model mode: a client-only build compiles there.
        if (!force_model_mode || where.remote()) client.configure(where);
        if (where.remote() && !force_model_mode) {
            connect_remote();
            return;
        }
        DeviceProbe probe = probe_device(force_model_mode, std::max(where.device, 0));
        {
            std::lock_guard lock(status_mutex);
            status = probe.status;
            status.device_index = probe.device, status.device_count = probe.device_count;
        }
        if (probe.status.gpu) {
            {
                std::lock_guard lock(target_mutex);
                target = probe.target;
            }
            // Starts the worker now (it would be started by the first run anyway); if it cannot
            // start, free_bytes stays 0 and the first run says why.
            size_t free_bytes = 0, total_bytes = 0;
            int clusters[9] = {};   // read by the worker only (its support kernels)
            if (device_memory_in_worker(client, free_bytes, total_bytes, prepare_counters, prepare_stalls, &clusters)) {
                std::scoped_lock lock(status_mutex, target_mutex);
                status.free_bytes = free_bytes, status.total_bytes = total_bytes;
                std::copy(std::begin(clusters), std::end(clusters), target.resident_clusters);
            }
        } else {
            use_preset();
        }
    }

    void use_preset() {
        std::lock_guard lock(target_mutex);
        const Target* preset = find_target("h100");
        if (!preset && !target_presets().empty()) preset = &target_presets().front();
        if (preset) target = *preset;
    }

    // The remote worker's greeting says what it runs on: NVRTC here compiles for that target.
    void connect_remote() {
        DeviceStatus s;
        s.where = where.describe();
        worker::json hello;
        std::string failure;
        Target remote_target;
        bool have_target = false;
        if (!client.connect(hello, failure)) {
            s.reason = failure;
            s.unreachable = true;
        } else {
            try {
                const worker::json& d = hello.at("device");
                s.gpu = d.value("gpu", false);
                s.name = worker_text(d.value("name", std::string()), 120);
                s.total_bytes = d.value("total_bytes", size_t(0));
                s.device_index = d.value("index", 0);
                s.device_count = d.value("count", s.gpu ? 1 : 0);
                const std::string host = worker_text(hello.value("host", where.host), 120);
                s.host = host;
                if (!where.host.empty() && host != where.host) s.where = say("{} ({}) via ssh", "{}（{}，经 ssh）", host, where.host);
                else if (where.host.empty()) s.where = fmt::format("{} {}", host, where.describe());   // "gpu01 via `srun ...`"
                if (!s.gpu) {   // the worker's words, or these where it gave none
                    std::string why = worker_text(d.value("reason", std::string()));
                    if (why.find_first_not_of(' ') == std::string::npos) why = say("no GPU", "没有 GPU");
                    s.reason = fmt::format("{}: {}", s.where, why);
                }
                if (s.gpu) {   // checked field by field when the link opened (greeting_fields_problem)
                    remote_target = greeting_target(hello);
                    have_target = true;
                }
            } catch (const std::exception&) {   // not reached: every field read here was checked
                s = {};
                s.where = where.describe();
                s.unreachable = true;
                s.reason = say("The GPU worker {} sent a greeting that could not be read.", "GPU 工作进程 {} 发来的问候无法读取。", s.where);
            }
        }
        {
            std::lock_guard lock(status_mutex);
            status = s;
        }
        if (have_target) {
            std::lock_guard lock(target_mutex);
            target = remote_target;
        } else {
            use_preset();
        }
        if (s.gpu) {   // as locally: free memory, and the counters set up while the host compiles
            size_t free_bytes = 0, total_bytes = 0;
            if (device_memory_in_worker(client, free_bytes, total_bytes, prepare_counters, prepare_stalls)) {
                std::lock_guard lock(status_mutex);
                status.free_bytes = free_bytes;
            }
        }
    }

    // A remote link that was lost turns the engine to model mode, saying why.
    void note_link_lost() {
        if (!where.remote()) return;
        const std::string lost = client.lost();
        if (lost.empty()) return;
        std::lock_guard lock(status_mutex);
        if (!status.gpu) return;
        status.gpu = false;
        status.unreachable = true;
        status.reason = lost;
    }

    DeviceStatus current_status() const {
        std::lock_guard lock(status_mutex);
        return status;
    }

    Target current_target() const {
        std::lock_guard lock(target_mutex);
        return target;
    }

    // A family instance for checking sizes (no device memory); one per name, kept.
    const FamilyShape* checker(const std::string& name) {
        std::lock_guard lock(checker_mutex);
        auto it = checkers.find(name);
        if (it == checkers.end()) it = checkers.emplace(name, make_family_shape(name)).first;
        return it->second.get();
    }

    // A request checked once, on target `t`: its variant, its parameters with defaults filled in
    // (as soon as the variant is known), its launch shape, or (`invalid`) the one sentence saying
    // why it cannot run there.
    struct Checked {
        const Variant* variant = nullptr;
        ParamValues params;
        std::shared_ptr<const VariantInstance> instance;   // the variant at params, bound once
        LaunchShape launch;
        Target limits;   // the target whose limits the launch was checked against (and cut to)
        std::string invalid;
    };
    Checked check(const RunRequest& req, const Target& t);
    std::string invalid_reason(const RunRequest& req) { return check(req, current_target()).invalid; }
    // Engine::analyze(), with the user's kernel when `user` is not null.
    RunResult analyze(const RunRequest& req, const UserKernel* user);
    // Engine::measure() but for the phase.
    void measure(RunResult& r, const RunOptions& opt, const CancelFlag* cancel);

    // The builds `req` needs — its kernel's, then those of the other passes of a variant of
    // several kernels — or none when the request is invalid here.
    std::vector<CompileRequest> builds_for(const RunRequest& req, bool instrumented) {
        const Target t = current_target();
        const Checked c = check(req, t);
        if (!c.invalid.empty()) return {};
        const KernelInstance own = c.instance->kernel_at(req.problem);
        std::vector<CompileRequest> builds{kernel_build(own, t.arch(), instrumented)};
        for (const KernelPass& pass : c.instance->passes(req.problem))
            if (pass.kernel.name_expression != own.name_expression) builds.push_back(kernel_build(pass.kernel, t.arch(), instrumented));
        return builds;
    }

    // One compile-ahead item, on the queue's thread.
    AheadOutcome compile_ahead_item(const AheadItem& item) {
        const std::vector<CompileRequest> builds = builds_for(item.request, item.instrumented);
        if (builds.empty()) return AheadOutcome::Invalid;
        AheadOutcome outcome = AheadOutcome::Already;
        for (const CompileRequest& build : builds) {
            if (compiler.in_memory_or_in_flight(build)) continue;
            compiler.compile(build, CompileOrigin::Ahead);
            outcome = AheadOutcome::Compiled;
        }
        return outcome;
    }

    mutable std::mutex status_mutex;
    DeviceStatus status;
    CompileService compiler;
    GpuLocation where;
    bool force_model_mode = false;   // EngineConfig's: a reworded status is probed as the first was
    bool prepare_counters = false, prepare_stalls = false;
    OptionalStages optional;   // the counter pass and sampling, turned off where they lost the context
    std::unique_ptr<WorkerClient> own_client;   // EngineConfig::own_worker
    WorkerClient& client;                       // own_client, else the process's shared one
    mutable std::mutex target_mutex;
    Target target;
    std::mutex checker_mutex;
    std::map<std::string, std::unique_ptr<FamilyShape>> checkers;
    std::mutex ceilings_mutex;
    std::optional<Ceilings> ceilings;     // measured once
    // Last: their threads use everything above, so they stop first. `counting` holds at most the
    // instrumented build of the request in hand (Engine::compile_counting_now), beside `ahead`'s guesses.
    CompileAheadQueue ahead{[this](const AheadItem& item) { return compile_ahead_item(item); }};
    CompileAheadQueue counting{[this](const AheadItem& item) { return compile_ahead_item(item); }};
};

// The compilers in other processes first: the engine's first compile may come from its constructor.
Engine::Engine(const EngineConfig& cfg) : impl_((install_host_compilers(), std::make_unique<Impl>(cfg))) {}
Engine::~Engine() = default;

DeviceStatus Engine::device() const { return impl_->current_status(); }

bool Engine::reconnect() { return reconnect(impl_->where); }

void Engine::reword_status() {
    if (impl_->where.remote() || impl_->current_status().gpu) return;
    const DeviceProbe probe = probe_device(impl_->force_model_mode, std::max(impl_->where.device, 0));
    if (probe.status.gpu) return;   // a GPU now: the next reconnect takes it; the words stay
    std::lock_guard lock(impl_->status_mutex);
    impl_->status.reason = probe.status.reason;
}

bool Engine::reconnect(const GpuLocation& where) {
    if (!impl_->where.remote() && !where.remote()) return impl_->current_status().gpu;
    impl_->where = where;
    impl_->locate(false);
    {
        std::lock_guard lock(impl_->ceilings_mutex);
        impl_->ceilings.reset();   // another GPU, perhaps
    }
    return impl_->current_status().gpu;
}

std::string Engine::gpu_note() const { return impl_->client.note(); }
uint64_t Engine::worker_deaths() const { return impl_->client.deaths(); }
Target Engine::target() const { return impl_->current_target(); }
CompileService& Engine::compiler() { return impl_->compiler; }

bool Engine::set_target(const Target& t) {
    if (impl_->current_status().gpu) return false;
    std::lock_guard lock(impl_->target_mutex);
    impl_->target = t;
    return true;
}

std::string Engine::invalid_reason(const RunRequest& req) const {
    try {
        return impl_->invalid_reason(req);
    } catch (const std::exception& e) {
        return say("The request could not be checked: {}.", "无法检查该请求：{}。", e.what());
    }
}

Engine::Impl::Checked Engine::Impl::check(const RunRequest& req, const Target& t) {
    Checked c;
    const Variant* v = c.variant = find_variant(req.variant);
    auto invalid = [&](std::string why) {
        c.invalid = std::move(why);
        return c;
    };
    if (!v) return invalid(fmt::format("There is no variant called \"{}\".", req.variant));
    c.params = with_defaults(v->params, req.params);   // unknown names kept: reported just below
    if (std::string why = not_implemented_reason(*v); !why.empty()) return invalid("The " + why + ".");
    for (const auto& [name, value] : req.params) {
        const ParamSpec* spec = v->param(name);
        if (!spec) return invalid(fmt::format("{} has no parameter called {}.", v->id, name));
        if (std::string why = spec->range_reason(value); !why.empty()) return invalid(why);
    }
    const FamilyShape* family = checker(v->family);
    if (!family) return invalid(fmt::format("The {} family is not implemented yet.", v->family));
    if (std::string why = family->problem_invalid_reason(req.problem); !why.empty()) return invalid(why);
    c.instance = v->bind(c.params);
    if (std::string why = family->precision_invalid_reason(c.instance->precision()); !why.empty()) return invalid(why);
    if (std::string why = family->options_invalid_reason(c.instance->family_options()); !why.empty()) return invalid(why);
    // A kernel built for one architecture's sm_XXa is never launched elsewhere (analyze() says
    // why): its limits are those of that architecture's preset, not of the target shown.
    const Target* limits = &t;
    if (const int arch = c.instance->kernel_at(req.problem).arch_specific; arch != 0 && arch != t.arch())
        if (const Target* own = find_target(fmt::format("sm_{}", arch))) limits = own;
    if (std::string why = c.instance->invalid_reason(req.problem, *limits); !why.empty()) return invalid(why);
    c.limits = *limits;
    c.launch = resident_on(c.instance->launch(req.problem), *limits);
    return invalid(launch_limits_problem(*c.instance, c.launch, *limits));
}

RunResult Engine::analyze(const RunRequest& req) { return impl_->analyze(req, nullptr); }

RunResult Engine::analyze(const RunRequest& req, const UserKernel& user) { return impl_->analyze(req, &user); }

RunResult Engine::run(const RunRequest& req, const UserKernel& user, const RunOptions& opt, const CancelFlag* cancel) {
    return measure(analyze(req, user), opt, cancel);
}

RunResult Engine::Impl::analyze(const RunRequest& req, const UserKernel* user) {
    RunResult r;
    r.request = req;
    const Target t = current_target();
    r.target = t;
    r.stage = "input";
    try {
        const Checked checked = check(req, t);
        const Variant* v = checked.variant;
        if (v) r.request.params = checked.params;
        if (!checked.invalid.empty()) {
            r.error = checked.invalid;
            return r;
        }
        r.launch = checked.launch;
        r.model = full_cost_model(*checked.instance, req.problem, checked.limits);
        r.precision = checked.instance->precision();
        r.options = checked.instance->family_options();
        r.may_be_wrong = checked.instance->may_be_wrong(req.problem);
        for (const KernelPass& pass : checked.instance->passes(req.problem))
            r.passes.push_back({pass.label, pass.kernel.name_expression, 0.0});
        const KernelInstance k = checked.instance->kernel_at(req.problem);
        r.name_expression = k.name_expression;
        if (const std::string* source = embedded_source(k.source_file)) r.kernel_source = *source;
        r.kernel_file = k.source_file;
        CompileRequest build = kernel_build(k, t.arch(), false);
        if (user) {
            if (user->text.empty()) {
                r.error = say("{} is empty: there is no kernel to compile.", "{} 是空的：没有可编译的内核。", user->name);
                return r;
            }
            r.user_kernel = user->name.empty() ? "exercise.cu" : user->name;
            r.error = missing_kernel_problem(user->text, r.user_kernel, k.name_expression, k.source_file);
            if (!r.error.empty()) return r;
            r.kernel_source = build.source_text = user->text;
            r.kernel_file = r.user_kernel;
            build.source_name = r.user_kernel;
        }

        r.stage = "compile";
        if (k.arch_specific != 0 && k.arch_specific != t.arch()) {
            // Built for one architecture's sm_XXa only: the models stand, the compile row says why
            // (as where nothing can compile), and nothing is measured.
            auto refused = std::make_shared<CompileResult>();
            refused->compiler_unavailable = true;
            refused->error = say("This kernel is built for sm_{0}a (TMA, wgmma): it runs on sm_{0} GPUs only (H100, H200), and "
                                 "this target is {1}. Its model is still shown.",
                                 "这个内核为 sm_{0}a 构建（TMA、wgmma）：只能在 sm_{0} GPU（H100、H200）上运行，当前目标是 {1}。"
                                 "仍然显示它的模型。",
                                 k.arch_specific, t.arch_name());
            r.compiled = refused;
            r.ok = true;
            r.stage.clear();
            return r;
        }
        r.compiled = compiler.compile(build);
        r.stages.compile_ms = r.compiled->compile_ms;
        r.stages.compile_cached = r.compiled->cache_level == "memory";
        r.stages.prefetch_hit = r.stages.compile_cached && r.compiled->compiled_ahead;
        if (!r.compiled->ok && r.compiled->compiler_unavailable) {
            // Nothing could compile it (a client-only build without a GPU worker): the models
            // stand, the compile row says why, and nothing is measured.
            r.ok = true;
            r.stage.clear();
            return r;
        }
        if (!r.compiled->ok) {
            r.error = r.compiled->error;
            return r;
        }
        if (user) {   // launched with the lesson's arguments: it must take the lesson's parameters
            const auto lesson = compiler.compile(kernel_build(k, t.arch(), false));
            if (lesson->ok) r.error = signature_problem(r.compiled->lowered_name, lesson->lowered_name, k.name_expression);
            if (!r.error.empty()) return r;
        }
        r.occupancy_input = occupancy_input(*r.compiled, r.launch);
        r.occupancy = compute_occupancy(t, r.occupancy_input);
        // Registers are known only now: a block whose threads need more registers than an SM has
        // (or any other resource over its limit) cannot launch, so it is refused here, not run.
        if (r.occupancy.blocks_per_sm == 0) {
            r.stage = "launch";
            r.error = !r.occupancy.error.empty()
                          ? r.occupancy.error
                          : say("Not one block of {} threads fits on an SM ({} registers per thread, {} B of shared memory per block).",
                                "一个 SM 连一个 {} 线程的线程块都放不下（每线程 {} 个寄存器，每线程块 {} B 共享内存）。",
                                r.launch.threads_per_block(), r.compiled->ptxas.registers, r.smem_bytes());
            return r;
        }
        r.ok = true;
        r.stage.clear();
    } catch (const std::exception& e) {
        r.ok = false;
        r.error = e.what();
    }
    return r;
}

RunResult Engine::run(const RunRequest& req, const RunOptions& opt, const CancelFlag* cancel) {
    if (opt.count_accesses) compile_counting_now(req);
    return measure(analyze(req), opt, cancel);
}

void Engine::compile_counting_now(const RunRequest& req) {
    if (!impl_->current_status().gpu) return;   // model mode never counts
    impl_->counting.replace({{req, true}});
}

RunResult Engine::measure(RunResult r, const RunOptions& opt, const CancelFlag* cancel) {
    impl_->measure(r, opt, cancel);
    r.phase = r.measured && opt.quick ? Phase::quick : Phase::full;
    return r;
}

void Engine::Impl::measure(RunResult& r, const RunOptions& opt, const CancelFlag* cancel) {
    if (!r.ok) return;
    if (!r.compiled || !r.compiled->ok) {   // the models only (analyze): no kernel to run
        r.no_gpu_reason = r.compiled ? r.compiled->error : std::string();
        return;
    }
    const DeviceStatus status = current_status();
    if (!status.gpu) {
        r.no_gpu_reason = status.reason;
        if (opt.cpu_check) r.cpu = run_on_cpu(r, compiler, opt.seed, kCpuRunTimeLimitS, opt.cpu_problem);
        if (opt.hardware_counters) {
            r.hardware.status = hardware_status::no_gpu;
            r.hardware.reason = hardware_reason(hardware_status::no_gpu);
        }
        if (opt.stall_samples) {
            r.stalls.status = stall_status::no_gpu;
            r.stalls.reason = stall_reason(stall_status::no_gpu);
        }
        return;
    }
    try {
        const Variant* v = find_variant(r.request.variant);
        if (!v) throw std::runtime_error("there is no variant called \"" + r.request.variant + "\"");
        worker::MeasureJob job{v->family, r.precision, r.options, r.request.problem, r.launch, r.compiled, nullptr, {}};
        // A user's kernel is not counted (UserKernel): counted stays empty.
        if (opt.count_accesses && r.user_kernel.empty()) {   // the same instance built with TILELAB_COUNT=1
            const KernelInstance k = kernel_for(*v, r.request.params, r.request.problem);
            job.counting = compiler.compile(kernel_build(k, r.target.arch(), true));
            r.stages.count_compile_ms = job.counting->compile_ms;
            r.stages.count_compile_cached = job.counting->cache_level == "memory";
            r.stages.count_prefetch_hit = job.counting->compiled_ahead;   // done ahead, or in flight and waited for
            if (!job.counting->ok) {
                r.ok = false;
                r.stage = "compile";
                r.error = "instrumented build (TILELAB_COUNT=1): " + job.counting->error;
                return;
            }
            // The counters cost a few registers; where that tips the block over the SM's limit the
            // instrumented build cannot launch, so the run goes on uncounted (counted stays empty).
            if (compute_occupancy(r.target, occupancy_input(*job.counting, r.launch)).blocks_per_sm == 0)
                job.counting = nullptr;
        }
        if (const std::vector<KernelPass> passes = v->bind(r.request.params)->passes(r.request.problem); !passes.empty()) {
            const bool counted = opt.count_accesses && r.user_kernel.empty() && job.counting;
            if (std::string why = compile_passes(compiler, passes, r, counted, job); !why.empty()) {
                r.ok = false;
                r.stage = "compile";
                r.error = why;
                return;
            }
        }
        // One request at a time: the worker client serializes them.
        const Measurement m = measure_in_worker(client, job, optional.ask(opt), cancel, r.stages.worker_ms);
        r.apply(m);
        optional.learn(opt, m, r);
        note_link_lost();
    } catch (const std::exception& e) {
        r.ok = false;
        r.stage = "run";
        r.error = e.what();
    }
}

void Engine::compile_ahead(std::vector<RunRequest> reqs, bool instrumented_too) {
    std::vector<AheadItem> items;
    items.reserve(reqs.size() * 2);
    // Each request's plain build (what a quick run needs) right before its instrumented one (what
    // the full run after it needs), so the nearest guesses are complete first.
    for (RunRequest& req : reqs) {
        items.push_back({req, false});
        if (instrumented_too) items.push_back({std::move(req), true});
    }
    impl_->ahead.replace(std::move(items));
}

CompileAheadStats Engine::compile_ahead_stats() const { return impl_->ahead.stats(); }

bool Engine::wait_compile_ahead_idle(std::chrono::milliseconds timeout) const {
    return impl_->ahead.wait_idle(timeout);
}

std::vector<CompileRequest> Engine::builds(const RunRequest& req, bool instrumented) const {
    try {
        return impl_->builds_for(req, instrumented);
    } catch (const std::exception&) {
        return {};
    }
}

bool Engine::kernel_in_memory(const RunRequest& req) const {
    const std::vector<CompileRequest> plain = builds(req, false);
    return !plain.empty() &&
           std::all_of(plain.begin(), plain.end(), [&](const CompileRequest& b) { return impl_->compiler.in_memory(b); });
}

std::vector<RunRequest> Engine::neighbours(const RunRequest& req, const std::string& first, int direction) const {
    std::vector<RunRequest> out;
    const Variant* v = find_variant(req.variant);
    if (!v) return out;
    const ParamValues params = with_defaults(v->params, req.params);
    std::vector<const ParamSpec*> order;
    for (const ParamSpec& p : v->params)
        if (p.name == first) order.insert(order.begin(), &p);
        else order.push_back(&p);
    for (const ParamSpec* spec : order) {
        const std::vector<int> values = spec->values();
        const int current = param_or(params, spec->name, spec->def);
        // The nearest value on one side that can run here: an invalid one is skipped, as the
        // slider greys it and the next drag step lands beyond it.
        auto nearest = [&](bool up) -> std::optional<RunRequest> {
            const auto try_value = [&](int value) -> std::optional<RunRequest> {
                RunRequest candidate{req.variant, params, req.problem};
                candidate.params[spec->name] = value;
                if (!invalid_reason(candidate).empty()) return std::nullopt;
                return candidate;
            };
            if (up) {
                for (auto it = values.begin(); it != values.end(); ++it)
                    if (*it > current)
                        if (auto r = try_value(*it)) return r;
            } else {
                for (auto it = values.rbegin(); it != values.rend(); ++it)
                    if (*it < current)
                        if (auto r = try_value(*it)) return r;
            }
            return std::nullopt;
        };
        const bool up_first = spec->name == first && direction > 0;
        for (bool up : {up_first, !up_first})
            if (auto r = nearest(up)) out.push_back(std::move(*r));
    }
    return out;
}

Ceilings Engine::ceilings() {
    if (const DeviceStatus status = impl_->current_status(); !status.gpu) {
        Ceilings c;
        c.note = "not measured in model mode: " + status.reason;
        return c;
    }
    std::lock_guard lock(impl_->ceilings_mutex);
    if (!impl_->ceilings) {
        Ceilings c = ceilings_in_worker(impl_->client);
        impl_->note_link_lost();
        if (!c.measured) return c;   // try again next time
        impl_->ceilings = c;
    }
    return *impl_->ceilings;
}

}  // namespace tilelab
