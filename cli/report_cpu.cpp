// The "CPU run" section of `tilelab-cli run` without a GPU (RunResult::cpu): which file ran, at
// which size, the verdict (pass, the first mismatch, or the fault with its thread and line), and the
// elements the kernel moved beside the model at that size.
#include <fmt/format.h>
#include "format_table.h"
#include "report.h"
#include "tilelab/format.h"
#include "tilelab/i18n.h"

namespace tilelab::cli {

std::string cpu_verdict(const CpuCheck& c) {
    const std::string where = trf("cpurun.where", c.file, format_problem(c.problem));
    if (c.status == "passed") return trf("cpurun.passed", where);
    if (c.status == "failed") return trf("cpurun.failed", where, c.validation.message);
    if (c.status == "fault") return trf("cpurun.fault", where, c.message);
    if (c.status == "needs_gpu") return trf("cpurun.needs_gpu", c.file, c.message);
    return trf("cpurun.error", c.file, c.message);
}

void render_cpu(std::string& out, const CpuCheck& c) {
    out += "\n" + tr("cpurun.title") + "\n";
    out += "  " + cpu_verdict(c) + "\n";
    if (c.status == "passed" || c.status == "failed") {
        const Validation& v = c.validation;
        out += "  " + trf("cpurun.validation", fmt::format("{:.3g}", v.max_abs_error), fmt::format("{:.3g}", v.max_rel_error),
                          fmt::format("{:.3g}", v.tolerance), v.reference) + "\n";
    }
    if (c.instructions == 0) return;
    Table t({{tr("cpurun.col_access"), Align::Left}, {tr("cpurun.col_counted"), Align::Right}, {tr("cpurun.col_model"), Align::Right}});
    const auto row = [&](const char* key, double counted, double model) {
        t.add_row({tr(key), format_count(counted), format_count(model)});
    };
    row("cpurun.global_loads", c.counted.global_loads, c.model.global_loads);
    row("cpurun.global_stores", c.counted.global_stores, c.model.global_stores);
    row("cpurun.shared_loads", c.counted.shared_loads, c.model.shared_loads);
    row("cpurun.shared_stores", c.counted.shared_stores, c.model.shared_stores);
    out += t.render(2);
    out += "  " + trf("cpurun.cost", format_count(double(c.instructions)), fmt::format("{:.2f}", c.seconds), c.seed) + "\n";
}

}  // namespace tilelab::cli
