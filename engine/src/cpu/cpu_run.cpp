// The CPU run (cpu_run.h): compile to PTX, parse, prepare the family's buffers, launch on the CPU
// machine, validate, count.
#include "cpu/cpu_run.h"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstring>

#include "cpu/cpu_family.h"
#include "cpu/cpu_machine.h"
#include "model/family_shape.h"
#include "model/registry_table.h"
#include "cpu/ptx.h"
#include "tilelab/compile.h"
#include "tilelab/i18n.h"
#include "tilelab/lesson.h"
#include "tilelab/params.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

// The kernel's parameter block: each argument in the bytes its parameter declares (pointers and
// sizes: 8 or 4), little-endian as on the GPU.
bool pack_params(const cpu::Kernel& k, const std::vector<uint64_t>& args, std::vector<uint8_t>& out) {
    if (k.params.size() != args.size()) return false;
    out.assign(k.param_bytes, 0);
    for (size_t i = 0; i < args.size(); ++i) {
        if (k.params[i].bytes != 4 && k.params[i].bytes != 8) return false;
        std::memcpy(out.data() + k.params[i].offset, &args[i], k.params[i].bytes);
    }
    return true;
}

// What moved, in elements: global ones of the buffers' types, shared ones of the model's shared type.
AccessCounts counted_elements(const cpu::MovedBytes& m, const CostModel& model) {
    const double shared = model.shared_element_bytes();
    return {m.global_load_elements, m.global_store_elements, double(m.shared_loads) / shared, double(m.shared_stores) / shared};
}

// A family's CPU half by name (TILELAB_REGISTER_CPU_FAMILY in families/<family>/cpu.cpp); nullptr
// if it has none.
std::unique_ptr<CpuFamily> make_cpu_family(const std::string& name) {
    static const auto table = factories_by_name(registered_cpu_family_factories());
    const auto it = table.find(name);
    return it == table.end() ? nullptr : it->second();
}

// One kernel compiled to PTX for the CPU run and parsed.
struct CpuKernel {
    KernelPass pass;
    std::unique_ptr<cpu::Module> module;
    const cpu::Kernel* kernel = nullptr;
};

void add_moved(cpu::MovedBytes& sum, const cpu::MovedBytes& m) {
    sum.global_loads += m.global_loads, sum.global_stores += m.global_stores;
    sum.shared_loads += m.shared_loads, sum.shared_stores += m.shared_stores;
    sum.global_load_elements += m.global_load_elements, sum.global_store_elements += m.global_store_elements;
}

// `pass`'s kernel as PTX for the CPU run (from the user's text where the run is of the user's
// file); where it cannot run there, c's status and message say why.
CpuKernel compile_for_cpu(const RunResult& r, CompileService& compiler, const KernelPass& pass, CpuCheck& c) {
    CpuKernel k{pass, nullptr, nullptr};
    if (pass.kernel.arch_specific != 0) {   // wgmma, TMA: PTX for one architecture, which the CPU run does not model
        c.status = "needs_gpu";
        c.message = say("This kernel is built for sm_{0}a only (TMA, wgmma), which the CPU run does not model: it needs an sm_{0} GPU.",
                        "这个内核只为 sm_{0}a 构建（TMA、wgmma），CPU 运行不模拟它：需要 sm_{0} GPU。", pass.kernel.arch_specific);
        return k;
    }
    CompileRequest build;
    build.source_file = pass.kernel.source_file;
    build.name_expression = pass.kernel.name_expression;
    build.arch = kCpuRunArch;
    build.ptx = true;
    if (!r.user_kernel.empty()) build.source_text = r.kernel_source, build.source_name = r.user_kernel;
    const auto compiled = compiler.compile(build);
    if (!compiled->ok) {
        c.status = "error";
        c.message = say("Compiling to PTX for the CPU run failed: {}", "为 CPU 运行编译 PTX 失败：{}", compiled->error);
        return k;
    }
    k.module = std::make_unique<cpu::Module>(cpu::parse_ptx(std::string(compiled->cubin.begin(), compiled->cubin.end())));
    k.kernel = k.module->kernel(compiled->lowered_name);
    if (!k.kernel) throw cpu::PtxError("the PTX has no kernel " + compiled->lowered_name);
    if (!k.kernel->needs_gpu.empty()) {
        c.status = "needs_gpu";
        c.message = say("This kernel uses {}, which the CPU run does not model: it needs a GPU.",
                        "这个内核用到了 {}，CPU 运行不模拟它：需要 GPU。", k.kernel->needs_gpu);
    }
    return k;
}

struct Prepared {
    const Variant* variant = nullptr;
    std::shared_ptr<const VariantInstance> instance;
    std::unique_ptr<CpuFamily> family;
    KernelInstance kernel;
};

// The variant at the request's parameters and the CPU size, or the sentence why it cannot run there.
std::string prepare(const RunResult& r, const std::optional<Problem>& problem, CpuCheck& c, Prepared& p) {
    p.variant = find_variant(r.request.variant);
    if (!p.variant) return say("There is no variant called \"{}\".", "没有名为 \"{}\" 的变体。", r.request.variant);
    const auto shape = make_family_shape(p.variant->family);
    p.family = shape ? make_cpu_family(p.variant->family) : nullptr;
    if (!p.family)
        return say("The {} family has no CPU run yet.", "{} 问题族还没有 CPU 运行。", p.variant->family);
    // The size asked for, else the one the variant's lesson declares ("<!-- cpu size: -->"), else the family's.
    c.problem = problem.value_or(shape->cpu_problem());
    if (!problem)
        for (const Lesson& lesson : all_lessons()) {
            std::string error;
            if (lesson.variant != r.request.variant || lesson.cpu_size.empty()) continue;
            if (!parse_problem(lesson.cpu_size, c.problem, error))
                return say("Lesson {}'s CPU size \"{}\" is not a size: {}", "第 {} 课的 CPU 规模 \"{}\" 不是合法的规模：{}",
                           lesson.id, lesson.cpu_size, error);
            break;
        }
    p.instance = p.variant->bind(r.request.params);
    std::string why = shape->problem_invalid_reason(c.problem);
    if (why.empty()) why = p.instance->invalid_reason(c.problem, r.target);
    if (!why.empty())
        return say("At the CPU run's size {} these parameters cannot run: {}", "在 CPU 运行的规模 {} 下，这组参数无法运行：{}",
                   format_problem(c.problem), why);
    p.kernel = p.instance->kernel_at(c.problem);
    return "";
}

void execute(const RunResult& r, CompileService& compiler, uint64_t seed, double limit, const std::optional<Problem>& problem,
             CpuCheck& c) {
    Prepared p;
    const std::string why = prepare(r, problem, c, p);
    if (c.file.empty() && p.kernel.source_file.size()) c.file = "kernels/" + p.kernel.source_file;
    if (!why.empty()) {
        c.status = "error", c.message = why;
        return;
    }
    const Precision precision = p.instance->precision();
    if (!p.family->takes(precision)) {   // input types the family's CPU half does not lay out
        c.status = "needs_gpu";
        c.message = say("The CPU run of this family takes FP32 inputs only; this kernel reads {}: it needs a GPU.",
                        "这个族的 CPU 运行只支持 FP32 输入；这个内核读取 {}：需要 GPU。", precision.describe());
        return;
    }
    // The kernels to run in order: the variant's one, or each of its passes.
    std::vector<KernelPass> passes = p.instance->passes(c.problem);
    if (passes.empty()) passes.push_back({"", p.kernel, p.instance->launch(c.problem)});
    std::vector<CpuKernel> kernels;
    for (const KernelPass& pass : passes) {
        kernels.push_back(compile_for_cpu(r, compiler, pass, c));
        if (!c.status.empty()) return;
    }
    CostModel model = p.instance->cost_model(c.problem);
    model.set_element_types(precision);
    c.model = model.total;
    cpu::MovedBytes moved;
    const auto start = std::chrono::steady_clock::now();   // the time limit is for all passes together
    std::unique_ptr<cpu::Machine> machine;
    std::vector<uint64_t> args;
    size_t count = 0, index = 0;   // launches of the run, and the next one
    for (const CpuKernel& k : kernels) count += size_t(std::max(1, k.pass.repeat));
    for (const CpuKernel& k : kernels) {
        std::vector<cpu::Buffer> buffers = machine ? machine->take_buffers() : std::vector<cpu::Buffer>{};
        machine = std::make_unique<cpu::Machine>(*k.module, *k.kernel);
        if (args.empty()) args = p.family->prepare(*machine, c.problem, precision, p.instance->family_options(), seed);
        else {
            machine->give_buffers(std::move(buffers));
            p.family->set_module_variables(*machine);
        }
        for (int n = 0; n < std::max(1, k.pass.repeat); ++n) {
            cpu::Launch launch;
            if (!pack_params(*k.kernel, p.family->args_for_launch(args, index++, count), launch.params))
                throw cpu::PtxError(fmt::format("the kernel takes {} parameters, not the family's arguments", k.kernel->params.size()));
            launch.grid = k.pass.launch.grid, launch.block = k.pass.launch.block, launch.dynamic_shared = k.pass.launch.dynamic_smem;
            launch.seed = seed;
            launch.time_limit_s = std::max(0.0, limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            launch.run_limit_s = limit;
            const cpu::LaunchReport report = machine->launch(launch);
            c.instructions += report.instructions;
            add_moved(moved, report.moved);
            c.counted = counted_elements(moved, model);
            if (!report.completed) {
                c.status = "fault";
                c.message = k.pass.label.empty() ? report.fault : k.pass.label + ": " + report.fault;
                return;
            }
        }
    }
    c.validation = p.family->validate(*machine);
    c.status = c.validation.passed ? "passed" : "failed";
}

}  // namespace

CpuCheck run_on_cpu(const RunResult& r, CompileService& compiler, uint64_t seed, double time_limit_s,
                    const std::optional<Problem>& problem) {
    const auto start = std::chrono::steady_clock::now();
    CpuCheck c;
    c.seed = seed;
    c.file = r.user_kernel;   // else the lesson's kernel file, once the variant is bound
    try {
        execute(r, compiler, seed, time_limit_s, problem, c);
    } catch (const std::exception& e) {
        c.status = "error";
        c.message = say("The CPU run could not run this kernel: {}", "CPU 运行无法运行这个内核：{}", e.what());
    }
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
}

}  // namespace tilelab
