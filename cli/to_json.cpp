// JSON serialisation of engine results (see to_json.h for the key list).
#include "to_json.h"

namespace tilelab {

using json = nlohmann::ordered_json;

void to_json(json& j, const AccessCounts& c) {
    j = json{{"global_loads", c.global_loads},
             {"global_stores", c.global_stores},
             {"shared_loads", c.shared_loads},
             {"shared_stores", c.shared_stores}};
}

void to_json(json& j, const Formula& f) {
    j = json{{"quantity", f.quantity}, {"expression", f.expression}, {"value", f.value}};
}

void to_json(json& j, const CostModel& m) {
    j = json{{"flops", m.flops},
             {"per_thread", m.per_thread},
             {"per_block", m.per_block},
             {"total", m.total},
             {"global_bytes", m.global_bytes},
             {"intensity", m.intensity},
             {"compulsory_bytes", m.compulsory_bytes},
             {"formulas", m.formulas},
             {"extras", m.extras}};
}

void to_json(json& j, const LaunchShape& l) {
    j = json{{"grid", l.grid},
             {"block", l.block},
             {"dynamic_smem", l.dynamic_smem},
             {"threads_per_block", l.threads_per_block()},
             {"blocks", l.blocks()}};
}

void to_json(json& j, const PtxasInfo& p) {
    j = json{{"parsed", p.parsed},
             {"registers", p.registers},
             {"spill_stores", p.spill_stores},
             {"spill_loads", p.spill_loads},
             {"stack_bytes", p.stack_bytes},
             {"smem_bytes", p.smem_bytes},
             {"cmem_bytes", p.cmem_bytes}};
}

void to_json(json& j, const Occupancy& o) {
    j = json{{"blocks_per_sm", o.blocks_per_sm},
             {"active_warps", o.active_warps},
             {"max_warps", o.max_warps},
             {"occupancy", o.occupancy},
             {"limiter", o.limiter},
             {"limit_warps", o.limit_warps},
             {"limit_registers", o.limit_registers},
             {"limit_smem", o.limit_smem},
             {"limit_blocks", o.limit_blocks},
             {"steps", o.steps},
             {"error", o.error}};
}

void to_json(json& j, const Timing& t) {
    j = json{{"median_ms", t.median_ms},
             {"min_ms", t.min_ms},
             {"max_ms", t.max_ms},
             {"samples_ms", t.samples_ms}};
}

void to_json(json& j, const Validation& v) {
    j = json{{"checked", v.checked},
             {"passed", v.passed},
             {"max_abs_error", v.max_abs_error},
             {"max_rel_error", v.max_rel_error},
             {"tolerance", v.tolerance},
             {"reference", v.reference},
             {"message", v.message}};
}

void to_json(json& j, const Target& t) {
    j = json{{"name", t.name},
             {"preset", t.preset},
             {"arch", t.arch_name()},
             {"source", t.source},
             {"sm_count", t.sm_count},
             {"warp_size", t.warp_size},
             {"max_threads_per_block", t.max_threads_per_block},
             {"max_threads_per_sm", t.max_threads_per_sm},
             {"max_blocks_per_sm", t.max_blocks_per_sm},
             {"regs_per_sm", t.regs_per_sm},
             {"regs_per_block", t.regs_per_block},
             {"max_regs_per_thread", t.max_regs_per_thread},
             {"smem_per_sm", t.smem_per_sm},
             {"smem_per_block", t.smem_per_block},
             {"smem_per_block_optin", t.smem_per_block_optin},
             {"reserved_smem_per_block", t.reserved_smem_per_block},
             {"clock_ghz", t.clock_ghz},
             {"peak_fp32_gflops", t.peak_fp32_gflops},
             {"dram_gbps", t.dram_gbps}};
}

const char* param_kind_name(ParamKind k) {
    switch (k) {
        case ParamKind::Int: return "int";
        case ParamKind::Pow2: return "pow2";
        case ParamKind::Bool: return "bool";
    }
    return "int";
}

void to_json(json& j, const ParamSpec& p) {
    j = json{{"name", p.name},   {"label", p.label}, {"kind", param_kind_name(p.kind)},
             {"min", p.min},     {"max", p.max},     {"step", p.step},
             {"default", p.def}, {"help", p.help},   {"values", p.values()}};
}

void to_json(json& j, const Variant& v) {
    j = json{{"id", v.id},
             {"family", v.family},
             {"title", v.title},
             {"summary", v.summary},
             {"params", v.params}};
}

void to_json(json& j, const Lesson& l) {
    json steps = json::array();
    for (const auto& s : l.steps) steps.push_back(s.title);
    j = json{{"id", l.id}, {"title", l.title}, {"variant", l.variant}, {"steps", steps}};
}

void to_json(json& j, const DeviceStatus& d) {
    j = json{{"gpu", d.gpu},
             {"reason", d.reason},
             {"name", d.name},
             {"free_bytes", d.free_bytes},
             {"total_bytes", d.total_bytes}};
}

void to_json(json& j, const Ceilings& c) {
    j = json{{"measured", c.measured},
             {"copy_gbps", c.copy_gbps},
             {"sgemm_gflops", c.sgemm_gflops},
             {"note", c.note}};
}

void to_json(json& j, const HardwareCounters& h) {
    j = json{{"status", h.status}, {"reason", h.reason}, {"passes", h.passes}, {"pass_ms", h.pass_ms}};
    for (const HardwareMetric& m : hardware_metrics()) {
        const auto value = h.get(m.name);
        j[m.name] = h.ok() && value ? json(*value) : json(nullptr);
    }
    const auto ld = h.shared_ways(true), st = h.shared_ways(false);
    j["shared_load_ways"] = h.ok() && ld ? json(*ld) : json(nullptr);
    j["shared_store_ways"] = h.ok() && st ? json(*st) : json(nullptr);
}

json problem_to_json(const Problem& p) {
    return json{{"dim", p.dim}, {"text", format_problem(p)}};
}

// A measured figure, or null when nothing was measured: 0 would read as a measurement.
static json measured_or_null(bool measured, double value) {
    return measured ? json(value) : json(nullptr);
}

json result_to_json(const RunResult& r, const ResultJsonOptions& opt) {
    json j;
    j["variant"] = r.request.variant;
    j["params"] = r.request.params;
    j["problem"] = problem_to_json(r.request.problem);
    j["target"] = r.target;
    j["arch"] = r.arch;
    j["ok"] = r.ok;
    j["stage"] = r.stage;
    j["error"] = r.error;
    j["kernel"] = r.name_expression;

    // Compiler facts and occupancy: null until the kernel compiled.
    const CompileResult* c = r.compiled.get();
    const bool compiled = c != nullptr && c->ok;
    j["registers"] = compiled ? json(c->ptxas.registers) : json(nullptr);
    j["spill_stores"] = compiled ? json(c->ptxas.spill_stores) : json(nullptr);
    j["spill_loads"] = compiled ? json(c->ptxas.spill_loads) : json(nullptr);
    // What occupancy sees: static shared memory from ptxas plus the launch's dynamic bytes.
    j["smem_bytes"] = compiled ? json(int64_t(c->ptxas.smem_bytes) + r.launch.dynamic_smem) : json(nullptr);
    j["threads_per_block"] = r.launch.threads_per_block();
    j["blocks_per_sm"] = compiled ? json(r.occupancy.blocks_per_sm) : json(nullptr);
    j["occupancy"] = compiled ? json(r.occupancy.occupancy) : json(nullptr);
    j["limiter"] = compiled ? json(r.occupancy.limiter) : json(nullptr);

    // The model's totals for the whole launch.
    j["flops"] = r.model.flops;
    j["global_loads"] = r.model.total.global_loads;
    j["global_stores"] = r.model.total.global_stores;
    j["shared_loads"] = r.model.total.shared_loads;
    j["shared_stores"] = r.model.total.shared_stores;
    j["global_bytes"] = r.model.global_bytes;
    j["intensity"] = r.model.intensity;
    j["compulsory_bytes"] = r.model.compulsory_bytes;

    if (opt.measurement) {
        const bool m = r.measured;
        j["measured"] = m;
        j["no_gpu_reason"] = r.no_gpu_reason;
        j["median_ms"] = measured_or_null(m, r.timing.median_ms);
        j["min_ms"] = measured_or_null(m, r.timing.min_ms);
        j["max_ms"] = measured_or_null(m, r.timing.max_ms);
        j["gflops"] = measured_or_null(m, r.gflops);
        j["gbps_model"] = measured_or_null(m, r.gbps_model);
        j["gbps_effective"] = measured_or_null(m, r.gbps_effective);
        j["reference_name"] = r.reference_name;
        j["reference_ms"] = measured_or_null(m && r.reference_ms > 0, r.reference_ms);
        j["pct_of_reference"] = measured_or_null(m && r.reference_ms > 0, r.pct_of_reference);
        j["validation"] = m && r.validation.checked ? json(r.validation) : json(nullptr);
        j["counted"] = m && r.counted ? json(*r.counted) : json(nullptr);
        j["gbps_dram"] = measured_or_null(m && r.hardware.ok(), r.gbps_dram);
        j["hardware"] = r.hardware;
        j["timing"] = m ? json(r.timing) : json(nullptr);
    }

    json compile = json::object();
    if (c != nullptr) {
        compile = json{{"ok", c->ok},
                       {"error", c->error},
                       {"lowered_name", c->lowered_name},
                       {"options", c->options},
                       {"compile_ms", c->compile_ms},
                       {"cache_hit", c->cache_hit},
                       {"cache_level", c->cache_level},
                       {"ptxas", c->ptxas},
                       {"cubin_bytes", c->cubin.size()}};
        if (opt.compile_log) {
            std::string log = c->log;
            std::erase(log, '\0');   // a C terminator some cache entries kept
            compile["log"] = log;
        }
    }
    compile["name_expression"] = r.name_expression;
    if (opt.kernel_source) compile["source"] = r.kernel_source;
    j["compile"] = compile;
    // Where the request's time went, wall ms per stage (0: the stage did not run).
    const StageTimes& st = r.stages;
    j["stages"] = json{{"compile_ms", st.compile_ms},
                       {"count_compile_ms", st.count_compile_ms},
                       {"worker_ms", st.worker_ms},
                       {"setup_ms", st.setup_ms},
                       {"validate_ms", st.validate_ms},
                       {"timing_ms", st.timing_ms},
                       {"count_ms", st.count_ms},
                       {"reference_ms", st.reference_ms},
                       {"compile_cached", st.compile_cached},
                       {"prefetch_hit", st.prefetch_hit},
                       {"count_compile_cached", st.count_compile_cached},
                       {"count_prefetch_hit", st.count_prefetch_hit}};
    j["launch"] = r.launch;
    j["occupancy_detail"] = r.occupancy;
    j["model"] = r.model;
    return j;
}

}  // namespace tilelab
