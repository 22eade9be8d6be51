// How long NVRTC takes for the configurations a learner can pick (issue 38, item 3): every valid
// configuration of every lesson at the lesson's default size — or, where a variant has more than
// --cap of them, a covering sample (every value of every parameter at least once, then random
// draws) — each compiled twice, the timed build and the instrumented one (TILELAB_COUNT=1), with
// the other kernels of a variant that launches several. Compiles from scratch (no cache), several
// at a time on --threads threads (one compile is one thread of NVRTC and ptxas). Needs no GPU.
// Prints one line per build to --out (TSV), then a table per variant and the slowest builds.
//
//   compile_sweep [--target sm_90] [--threads N] [--cap N] [--seed S] [--only id,id] [--out FILE] [--count]
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tilelab/compile.h"
#include "tilelab/engine.h"
#include "tilelab/kernel_build.h"
#include "tilelab/lesson.h"
#include "tilelab/target.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

using namespace tilelab;

namespace {

struct Options {
    std::string target = "sm_90", out, only;
    int threads = 8, cap = 150;
    uint64_t seed = 1;
    bool count = false;
};

struct Build {
    std::string variant, config, label;   // label: the kernel and whether it is instrumented
    CompileRequest req;
    double ms = 0;
    bool ok = false;
    int registers = 0;
};

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

std::string describe(const ParamValues& params, const Variant& v) {
    std::string s;
    for (const ParamSpec& p : v.params)
        if (auto it = params.find(p.name); it != params.end()) s += (s.empty() ? "" : " ") + p.name + "=" + p.value_text(it->second);
    return s;
}

// The valid configurations of `v` at `problem`: all of them where there are at most `cap`, else
// every value of every parameter once (with the rest drawn at random until valid) and random draws.
std::vector<ParamValues> configurations(const Variant& v, const Problem& problem, Engine& engine, const Options& o,
                                        std::mt19937_64& rng) {
    const auto valid = [&](const ParamValues& p) { return engine.invalid_reason({v.id, p, problem}).empty(); };
    double space = 1;
    for (const ParamSpec& p : v.params) space *= double(p.values().size());
    std::set<ParamValues> out;
    if (space <= 20000) {   // walk the whole product, keep the valid ones
        std::vector<ParamValues> all{{}};
        for (const ParamSpec& p : v.params) {
            std::vector<ParamValues> next;
            for (const ParamValues& partial : all)
                for (int value : p.values()) {
                    ParamValues q = partial;
                    q[p.name] = value;
                    next.push_back(q);
                }
            all.swap(next);
        }
        std::vector<ParamValues> ok;
        for (const ParamValues& p : all)
            if (valid(p)) ok.push_back(p);
        if (int(ok.size()) <= o.cap) return ok;
        std::shuffle(ok.begin(), ok.end(), rng);
        // Covering first: the first valid configuration found for each value of each parameter.
        for (const ParamSpec& spec : v.params)
            for (int value : spec.values())
                for (const ParamValues& p : ok)
                    if (p.at(spec.name) == value) {
                        out.insert(p);
                        break;
                    }
        for (const ParamValues& p : ok) {
            if (int(out.size()) >= o.cap) break;
            out.insert(p);
        }
        return {out.begin(), out.end()};
    }
    const auto draw = [&](const std::string& fixed, int fixed_value) {
        for (int attempt = 0; attempt < 2000; ++attempt) {
            ParamValues p;
            for (const ParamSpec& spec : v.params) {
                const std::vector<int> values = spec.values();
                p[spec.name] = spec.name == fixed ? fixed_value : values[rng() % values.size()];
            }
            if (valid(p)) return out.insert(p), true;
        }
        return false;
    };
    for (const ParamSpec& spec : v.params)
        for (int value : spec.values()) draw(spec.name, value);
    for (int attempt = 0; attempt < 20 * o.cap && int(out.size()) < o.cap; ++attempt) draw("", 0);
    return {out.begin(), out.end()};
}

// The builds of one configuration: each kernel it launches, plain and instrumented (as the engine
// compiles them: tilelab/kernel_build.h).
void add_builds(const Variant& v, const ParamValues& params, const Problem& problem, int arch, std::vector<Build>& out) {
    const auto instance = v.bind(params);
    std::vector<std::pair<std::string, KernelInstance>> kernels;
    const std::vector<KernelPass> passes = instance->passes(problem);
    if (passes.empty()) kernels.push_back({"", instance->kernel_at(problem)});
    for (const KernelPass& p : passes) kernels.push_back({p.label, p.kernel});
    for (const auto& [label, k] : kernels)
        for (const bool counted : {false, true}) {
            Build b;
            b.variant = v.id;
            b.config = describe(params, v);
            b.label = k.name_expression + (counted ? " +count" : "");
            b.req = kernel_build(k, arch, counted);
            out.push_back(b);
        }
}

constexpr const char* kUsage =
    "usage: compile_sweep [--target sm_90] [--threads N] [--cap N] [--seed S] [--only id,id] [--out FILE] [--count]\n";

// A sweep runs for minutes: a mistyped option or a missing value stops it before it starts.
[[noreturn]] void refuse(const std::string& why) {
    fmt::print(stderr, "compile_sweep: {}\n{}", why, kUsage);
    std::exit(2);
}

int positive(const std::string& option, const std::string& text) {
    char* end = nullptr;
    const long n = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || n < 1 || n > 100000)
        refuse(fmt::format("{} wants a positive whole number, not '{}'", option, text));
    return int(n);
}

uint64_t seed_from(const std::string& text) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || *end != '\0') refuse(fmt::format("--seed wants a whole number, not '{}'", text));
    return uint64_t(n);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) refuse(fmt::format("{} wants a value", a));
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            fmt::print("{}", kUsage);
            std::exit(0);
        }
        if (a == "--count") o.count = true;
        else if (a == "--target") o.target = value();
        else if (a == "--threads") o.threads = positive(a, value());
        else if (a == "--cap") o.cap = positive(a, value());
        else if (a == "--seed") o.seed = seed_from(value());
        else if (a == "--only") o.only = "," + value() + ",";
        else if (a == "--out") o.out = value();
        else refuse(fmt::format("unknown option '{}'", a));
    }
    if (!o.only.empty() && o.only.find_first_not_of(',') == std::string::npos) refuse("--only wants variant ids");
    return o;
}

// The ids --only names that are no lesson's variant ("" when every one is).
std::string unknown_ids(const std::string& only) {
    std::string unknown;
    size_t at = 1;
    while (at < only.size()) {
        const size_t comma = only.find(',', at);
        const std::string id = only.substr(at, comma - at);
        bool known = false;
        for (const Lesson& lesson : all_lessons()) known = known || lesson.variant == id;
        if (!id.empty() && !known) unknown += (unknown.empty() ? "" : ", ") + id;
        at = comma + 1;
    }
    return unknown;
}

void compile_all(std::vector<Build>& builds, int threads) {
    {
        CompileService warmup("");   // NVRTC's first call loads its builtins: not any one kernel's cost
        warmup.compile({"test/scale.cuh", "tilelab_test_scale<32>", builds.empty() ? 90 : builds[0].req.arch, 0, {}});
    }
    std::atomic<size_t> next{0}, done{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (size_t i; (i = next++) < builds.size();) {
                CompileService service("");   // memory only, and new: every build from scratch
                const auto r = service.compile(builds[i].req);
                builds[i].ms = r->compile_ms, builds[i].ok = r->ok, builds[i].registers = r->ptxas.registers;
                if (const size_t d = ++done; d % 200 == 0) fmt::print(stderr, "compile_sweep: {} of {}\n", d, builds.size());
            }
        });
    for (std::thread& t : pool) t.join();
}

void report(const std::vector<Build>& builds, const Options& o) {
    if (!o.out.empty()) {
        std::ofstream f(o.out);
        f << "variant\tconfig\tkernel\tms\tregisters\tok\n";
        for (const Build& b : builds) f << b.variant << '\t' << b.config << '\t' << b.label << '\t' << b.ms << '\t' << b.registers << '\t' << b.ok << '\n';
    }
    std::map<std::string, std::vector<const Build*>> by_variant;
    std::vector<double> all;
    int failed = 0;
    for (const Build& b : builds) {
        by_variant[b.variant].push_back(&b);
        all.push_back(b.ms);
        failed += b.ok ? 0 : 1;
    }
    fmt::print("| variant | configurations | builds | median s | 99th percentile s | max s | over 3 s | over 10 s | slowest |\n");
    fmt::print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (const Variant& v : all_variants()) {
        const auto it = by_variant.find(v.id);
        if (it == by_variant.end()) continue;
        std::vector<double> ms;
        std::set<std::string> configs;
        const Build* slowest = it->second.front();
        for (const Build* b : it->second) {
            ms.push_back(b->ms), configs.insert(b->config);
            if (b->ms > slowest->ms) slowest = b;
        }
        const auto over = [&](double s) { return std::count_if(ms.begin(), ms.end(), [&](double m) { return m > 1000 * s; }); };
        fmt::print("| {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {} | {} | {} ({}) |\n", v.id, configs.size(), ms.size(),
                   percentile(ms, 0.5) / 1000, percentile(ms, 0.99) / 1000, percentile(ms, 1.0) / 1000, over(3), over(10),
                   slowest->config, slowest->label);
    }
    const auto within = [&](double s) { return std::count_if(all.begin(), all.end(), [&](double m) { return m <= 1000 * s; }); };
    fmt::print("\n{} builds on {} threads: {:.2f}% within 3 s (goal 99%), {:.2f}% within 10 s (goal 100%); 99th percentile "
               "{:.2f} s, slowest {:.2f} s; {} failed to compile\n",
               all.size(), o.threads, 100.0 * double(within(3)) / double(std::max<size_t>(1, all.size())),
               100.0 * double(within(10)) / double(std::max<size_t>(1, all.size())), percentile(all, 0.99) / 1000,
               percentile(all, 1.0) / 1000, failed);
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    if (const std::string unknown = unknown_ids(o.only); !unknown.empty())
        refuse(fmt::format("--only names no lesson's variant: {} (tilelab-cli list names them)", unknown));
    const Target* target = find_target(o.target);
    if (!target) {
        fmt::print(stderr, "compile_sweep: unknown target '{}'\n", o.target);
        return 2;
    }
    EngineConfig cfg;
    cfg.force_model_mode = true;
    Engine engine(cfg);
    engine.set_target(*target);
    std::mt19937_64 rng(o.seed);
    std::vector<Build> builds;
    for (const Lesson& lesson : all_lessons()) {
        const Variant* v = find_variant(lesson.variant);
        if (!v || !v->defined() || (!o.only.empty() && o.only.find("," + v->id + ",") == std::string::npos)) continue;
        Problem problem;
        std::string error;
        if (!parse_problem(lesson.default_size, problem, error)) continue;
        const std::vector<ParamValues> configs = configurations(*v, problem, engine, o, rng);
        const size_t before = builds.size();
        for (const ParamValues& p : configs) add_builds(*v, p, problem, target->arch(), builds);
        fmt::print(stderr, "compile_sweep: {} at {}: {} configurations, {} builds\n", v->id, lesson.default_size,
                   configs.size(), builds.size() - before);
    }
    // Identical builds (two lessons of one kernel, a parameter the kernel ignores) compile once.
    std::set<std::string> seen;
    std::vector<Build> unique;
    for (const Build& b : builds) {
        const std::string key = fmt::format("{}|{}|{}|{}", b.req.source_file, b.req.name_expression, b.req.max_registers,
                                            b.req.defines.empty() ? "" : b.req.defines[0]);
        if (seen.insert(key).second) unique.push_back(b);
    }
    fmt::print(stderr, "compile_sweep: {} builds ({} distinct)\n", builds.size(), unique.size());
    if (o.count) return 0;
    compile_all(unique, o.threads);
    report(unique, o);
    return std::all_of(unique.begin(), unique.end(), [](const Build& b) { return b.ok; }) ? 0 : 1;
}
