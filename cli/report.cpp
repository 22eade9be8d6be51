// The readable report of one configuration, its CSV row, and its exit code.
#include "report.h"
#include "tilelab/grid_fill.h"
#include "tilelab/i18n.h"
#include "tilelab/variant_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>

#include "format_table.h"
#include "options.h"

namespace tilelab::cli {

using json = nlohmann::ordered_json;

// [SECTION] Outcome ---------------------------------------------------------------------------

Outcome classify(const RunResult& r, bool run_requested) {
    if (!r.ok && r.stage == "input") return {kExitUsage, "invalid", r.error};
    if (!r.ok && r.stage == "compile") return {kExitCompile, "compile error", trf("outcome.compile_failed", r.error)};
    if (run_requested && !r.measured && !r.no_gpu_reason.empty()) {
        // The CPU run's verdict: a wrong result or a fault fails like a wrong result on a GPU; a
        // pass still measured nothing.
        if (r.cpu && r.cpu->verdict() && !r.cpu->passed())
            return {kExitValidation, "FAIL", cpu_verdict(*r.cpu)};
        const std::string cpu = r.cpu ? " — " + cpu_verdict(*r.cpu) : "";
        return {kExitNoGpu, "no GPU", trf("ceilings.no_gpu", r.no_gpu_reason) + cpu};
    }
    const bool failed_validation =
        (!r.ok && r.stage == "validate") || (r.measured && r.validation.checked && !r.validation.passed);
    if (failed_validation) {
        std::string why = trf("outcome.validation_failed", r.validation.reference, fmt_sci(r.validation.max_abs_error),
                              fmt_sci(r.validation.max_rel_error));
        if (!r.validation.message.empty()) why += " (" + r.validation.message + ")";
        if (!r.ok && !r.error.empty()) why += ": " + r.error;
        if (!r.may_be_wrong.empty()) why += " — " + trf("outcome.by_design", r.may_be_wrong);
        return {kExitValidation, "FAIL", why};
    }
    if (!r.ok) return {kExitRuntime, "error", trf("outcome.stage_failed", r.stage, r.error)};
    return {kExitOk, "ok", ""};
}

// [SECTION] Helpers ----------------------------------------------------------------------------

std::string params_text(const Variant& v, const ParamValues& values) {
    std::vector<std::string> parts;
    for (const auto& spec : v.params) {
        auto it = values.find(spec.name);
        if (it != values.end()) parts.push_back(fmt::format("{}={}", spec.name, spec.value_text(it->second)));
    }
    // Values the declaration does not know (should not happen) still show.
    for (const auto& [name, value] : values)
        if (!v.param(name))
            parts.push_back(fmt::format("{}={}", name, value));
    return parts.empty() ? tr("report.no_parameters") : fmt::format("{}", fmt::join(parts, " "));
}

static std::string dims(const std::array<unsigned, 3>& d) { return fmt::format("{}x{}x{}", d[0], d[1], d[2]); }

static std::string badge(bool passed, bool color) {
    if (!color) return passed ? "[PASS]" : "[FAIL]";
    return passed ? "\x1b[1;32m[PASS]\x1b[0m" : "\x1b[1;31m[FAIL]\x1b[0m";
}

// cuda_occupancy.h reports "this resource sets no limit" as INT_MAX.
static std::string limit_text(int blocks) { return blocks == INT_MAX ? tr("report.no_limit") : std::to_string(blocks); }

static void section(std::string& out, const std::string& title) { out += "\n" + title + "\n"; }

// [SECTION] Report -----------------------------------------------------------------------------

static void render_compile(std::string& out, const RunResult& r, const ReportOptions& opt) {
    Table kv({{"", Align::Left}, {"", Align::Left}}, false);
    kv.add_row({tr("report.kernel"), r.name_expression.empty() ? "-" : r.name_expression});
    const CompileResult* c = r.compiled.get();
    if (c == nullptr) {
        kv.add_row({tr("report.compile"), tr("report.not_compiled")});
    } else if (!c->ok && c->compiler_unavailable) {   // nothing to compile with: the sentence says why
        kv.add_row({tr("report.compile"), c->error});
    } else if (!c->ok) {
        kv.add_row({tr("report.compile"), trf("report.compile_failed", c->error)});
    } else {
        const std::string cache = c->cache_hit ? trf("report.cache", tr("cache." + c->cache_level)) : "";
        kv.add_row({tr("report.compile"), fmt::format("NVRTC {} ms{}", fmt_fixed(c->compile_ms, 1), cache)});
        kv.add_row({tr("report.options"), c->options});
        const PtxasInfo& p = c->ptxas;
        kv.add_row({"ptxas", trf("report.ptxas_line", p.registers, format_bytes(p.spill_stores), format_bytes(p.spill_loads),
                                         format_bytes(p.stack_bytes), format_bytes(p.smem_bytes),
                                         format_bytes(p.cmem_bytes))});
    }
    const LaunchShape& l = r.launch;
    std::string launch_line = trf("report.launch_line", dims(l.grid), format_count(double(l.blocks())), dims(l.block),
                                  l.threads_per_block(), format_bytes(l.dynamic_smem));
    if (l.cluster > 1) launch_line += trf("report.launch_cluster", l.cluster);
    kv.add_row({tr("report.launch"), launch_line});
    if (c != nullptr && c->ok) {
        const Occupancy& o = r.occupancy;
        if (!o.error.empty()) {
            kv.add_row({tr("report.occupancy"), o.error});
        } else {
            kv.add_row({tr("report.occupancy"), trf("report.occupancy_line", fmt_pct(o.occupancy), o.active_warps,
                                                        o.max_warps, o.blocks_per_sm, limiter_label(o.limiter))});
            kv.add_row({tr("report.limits"), trf("report.limits_line", limit_text(o.limit_warps), limit_text(o.limit_registers),
                                              limit_text(o.limit_smem), limit_text(o.limit_blocks))});
            if (const GridFill g = grid_fill(r.target, o, l.blocks(), l.threads_per_block()); g.limits)
                kv.add_row({tr("report.grid_fill"), trf("report.grid_fill_line", l.blocks(), r.target.sm_count, g.blocks_per_sm,
                                                        g.warps_per_sm, fmt_pct(g.occupancy))});
        }
    }
    out += kv.render();
    if (c != nullptr && c->ok && !r.occupancy.steps.empty()) {
        section(out, tr("report.occupancy_steps"));
        for (const auto& step : r.occupancy.steps) out += "  " + step + "\n";
    }
    if (opt.compile_log && c != nullptr) {
        section(out, tr("report.compile_log"));
        // NUL bytes (a C terminator kept by an older cache entry) would cut the output short.
        std::string log = c->log;
        std::erase(log, '\0');
        out += log.empty() ? "  " + tr("report.empty") + "\n" : log;
        if (!log.empty() && log.back() != '\n') out += '\n';
    }
}

static void render_accesses(std::string& out, const RunResult& r, const ReportOptions& opt) {
    const CostModel& m = r.model;
    section(out, trf("report.accesses_section", format_element_sizes(r.precision)));
    std::vector<Column> cols = {{"", Align::Left},
                                {tr("memory.per_thread"), Align::Right},
                                {tr("memory.per_block"), Align::Right},
                                {tr("memory.total_model"), Align::Right}};
    if (opt.measurement) {
        cols.push_back({tr("memory.total_counted"), Align::Right});
        cols.push_back({tr("memory.col_match"), Align::Left});
    }
    Table t(cols);
    auto row = [&](const char* name, double AccessCounts::*field) {
        std::vector<std::string> cells = {name, format_count(m.per_thread.*field), format_count(m.per_block.*field),
                                          format_count(m.total.*field)};
        if (opt.measurement) {
            if (r.counted) {
                const double counted = (*r.counted).*field;
                cells.push_back(format_count(counted));
                cells.push_back(counted == m.total.*field ? tr("report.yes") : tr("report.no"));
            } else {
                cells.push_back(r.measured ? tr("report.not_counted") : tr("banner.no_gpu"));
                cells.push_back("");
            }
        }
        t.add_row(cells);
    };
    row(tr("memory.global_loads").c_str(), &AccessCounts::global_loads);
    row(tr("memory.global_stores").c_str(), &AccessCounts::global_stores);
    row(tr("memory.shared_loads").c_str(), &AccessCounts::shared_loads);
    row(tr("memory.shared_stores").c_str(), &AccessCounts::shared_stores);
    out += t.render(2);
    out += "  " + trf("report.totals_line", format_count(m.flops), format_bytes(m.global_bytes), format_count(m.global_bytes) + " B",
                       fmt_fixed(m.intensity, 3), format_bytes(m.compulsory_bytes)) + "\n";

    auto formula_table = [&](const char* title, const std::vector<Formula>& fs) {
        if (fs.empty()) return;
        section(out, title);
        Table ft({{tr("memory.col_quantity"), Align::Left}, {tr("memory.col_formula"), Align::Left}, {tr("memory.col_value"), Align::Right}});
        for (const auto& f : fs) ft.add_row({quantity_label(f.quantity), formula_expression(f.expression), format_count(f.value)});
        out += ft.render(2);
    };
    formula_table(tr("report.formulas").c_str(), m.formulas);
    formula_table(tr("report.extras").c_str(), m.extras);
}

static void render_measurement(std::string& out, const RunResult& r, const ReportOptions& opt) {
    section(out, tr("report.measured"));
    Table kv({{"", Align::Left}, {"", Align::Left}}, false);
    if (!r.measured) {
        kv.add_row({tr("report.time"), trf("report.no_gpu_reason", r.no_gpu_reason)});
        out += kv.render(2);
        render_hardware(out, r);
        render_stalls(out, r);
        return;
    }
    kv.add_row({tr("report.time"), trf("report.time_line", fmt_ms(r.timing.median_ms), fmt_ms(r.timing.min_ms), fmt_ms(r.timing.max_ms),
                                    r.timing.samples_ms.size(), opt.run.warmup,
                                    tr(opt.run.flush_l2 ? "report.l2_flushed" : "report.l2_not_flushed"))});
    kv.add_row({tr("report.throughput"), trf("report.throughput_line", fmt_fixed(r.gflops, 1), fmt_fixed(r.gbps_model, 1),
                                          fmt_fixed(r.gbps_effective, 1))});
    for (size_t i = 0; i < r.passes.size(); ++i) {   // a variant of several kernels: each one alone
        const PassTime& p = r.passes[i];
        kv.add_row({trf("report.pass", i + 1, r.passes.size()),
                    p.median_ms > 0 ? trf("report.pass_line", p.label, p.kernel, fmt_ms(p.median_ms))
                                    : trf("report.pass_line_untimed", p.label, p.kernel)});
    }
    if (r.reference_ms > 0)
        kv.add_row({tr("report.reference"), trf("report.reference_line", r.reference_name,
                                             fmt_ms(r.reference_ms), fmt_pct(r.pct_of_reference / 100.0),
                                             r.reference_name)});
    else
        kv.add_row({tr("report.reference"), tr("report.not_timed")});
    const Validation& v = r.validation;
    if (v.checked)
        kv.add_row({tr("report.validation"), trf("report.validation_line",
                                              badge(v.passed, opt.color), fmt_sci(v.max_abs_error),
                                              fmt_sci(v.max_rel_error), fmt_sci(v.tolerance), v.reference,
                                              v.message.empty() ? "" : " — " + v.message)});
    else
        kv.add_row({tr("report.validation"), tr("report.not_checked")});
    out += kv.render(2);
    render_hardware(out, r);
    render_stalls(out, r);
}

std::string render_result(const RunResult& r, const Variant& v, const ReportOptions& opt) {
    std::string out = fmt::format("{}  {}\n", v.id, variant_title(v));
    out += trf("report.header_line", params_text(v, r.request.params),
                       format_problem(r.request.problem), r.target.name, r.target.arch_name()) + "\n\n";
    render_compile(out, r, opt);
    render_accesses(out, r, opt);
    if (opt.measurement) render_measurement(out, r, opt);
    if (opt.measurement && r.cpu) render_cpu(out, *r.cpu);
    return out;
}

// [SECTION] CSV --------------------------------------------------------------------------------

std::vector<CsvColumn> csv_columns(const Variant& v, bool measurement) {
    std::vector<CsvColumn> cols = {{"variant", "/variant"}};
    for (const auto& p : v.params) cols.push_back({p.name, "/params/" + p.name});
    for (const char* key : {"problem/text", "target", "arch", "status", "reason", "registers", "spill_stores",
                            "spill_loads", "smem_bytes", "threads_per_block", "blocks_per_sm", "occupancy",
                            "limiter", "flops", "global_loads", "global_stores", "shared_loads",
                            "shared_stores", "global_bytes", "intensity"}) {
        std::string k = key;
        cols.push_back({k == "problem/text" ? "problem" : k, "/" + k});
    }
    if (measurement) {
        for (const char* key : {"measured", "median_ms", "min_ms", "max_ms", "gflops", "gbps_model",
                                "gbps_effective", "reference_name", "reference_ms", "pct_of_reference"})
            cols.push_back({key, std::string("/") + key});
        cols.push_back({"valid", "/validation/passed"});
        cols.push_back({"max_abs_error", "/validation/max_abs_error"});
        cols.push_back({"max_rel_error", "/validation/max_rel_error"});
        for (const char* key : {"global_loads", "global_stores", "shared_loads", "shared_stores"})
            cols.push_back({std::string("counted_") + key, std::string("/counted/") + key});
        cols.push_back({"gbps_dram", "/gbps_dram"});
        for (const char* key : {"status", "reason", "passes", "pass_ms"})
            cols.push_back({std::string("hardware_") + key, std::string("/hardware/") + key});
        for (const HardwareMetric& hm : hardware_metrics())
            cols.push_back({hm.name, std::string("/hardware/") + hm.name});
        // Stall samples (--stalls): the status, the total and the samples of each group.
        for (const char* key : {"status", "total"}) cols.push_back({std::string("stalls_") + key, std::string("/stalls/") + key});
        for (int g = 0; g < kStallGroups; ++g) {
            const std::string key = stall_group_key(StallGroup(g));
            cols.push_back({"stalls_" + key, "/stalls/counts/" + key});
        }
    }
    return cols;
}

}  // namespace tilelab::cli
