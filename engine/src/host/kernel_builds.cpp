// The builds the engine compiles (tilelab/kernel_build.h, host/kernel_builds.h).
#include "host/kernel_builds.h"
#include <fmt/format.h>
#include "tilelab/compile.h"

namespace tilelab {

CompileRequest kernel_build(const KernelInstance& k, int arch, bool instrumented) {
    CompileRequest c;
    c.source_file = k.source_file;
    c.name_expression = k.name_expression;
    c.arch = arch;
    c.max_registers = k.max_registers;
    c.arch_specific = k.arch_specific != 0;
    if (instrumented) c.defines.push_back("TILELAB_COUNT=1");
    return c;
}

OccupancyInput occupancy_input(const CompileResult& c, const LaunchShape& launch) {
    return {int(launch.threads_per_block()), c.ptxas.registers, c.ptxas.smem_bytes + int(launch.dynamic_smem)};
}

std::string compile_passes(CompileService& compiler, const std::vector<KernelPass>& passes, const RunResult& r, bool counted,
                           worker::MeasureJob& job) {
    for (const KernelPass& pass : passes) {
        for (bool instrumented : {false, true}) {
            if (instrumented && !counted) continue;
            CompileRequest build = kernel_build(pass.kernel, r.target.arch(), instrumented);
            if (!r.user_kernel.empty()) build.source_text = r.kernel_source, build.source_name = r.user_kernel;
            const auto compiled = compiler.compile(build);
            if (!compiled->ok)
                return fmt::format("{} ({}{}): {}", pass.label, pass.kernel.name_expression,
                                   instrumented ? ", TILELAB_COUNT=1" : "", compiled->error);
            if (!instrumented) job.passes.push_back({compiled, nullptr, pass.launch, pass.repeat});
            else if (compute_occupancy(r.target, occupancy_input(*compiled, pass.launch)).blocks_per_sm == 0) counted = false;
            else job.passes.back().counting = compiled;
        }
    }
    if (!counted)
        for (worker::JobPass& pass : job.passes) pass.counting = nullptr;
    return "";
}

}  // namespace tilelab
