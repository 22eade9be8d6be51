// Results <-> JSON (tilelab/result_json.h): the parts written by hand — a result's flat layout
// for scripts, targets, variants and lessons. The plain structs' fields are listed in the header.
#include "tilelab/result_json.h"
#include "tilelab/format.h"

namespace tilelab {

using json = nlohmann::ordered_json;

void to_json(json& j, const Target& t) {
    j = json{{"name", t.name},
             {"preset", t.preset},
             {"arch", t.arch_name()},
             {"source", t.source},
             {"sm_major", t.sm_major},
             {"sm_minor", t.sm_minor},
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
             {"peak_tf32_gflops", t.peak_tf32_gflops},
             {"peak_bf16_gflops", t.peak_bf16_gflops},
             {"peak_fp16_gflops", t.peak_fp16_gflops},
             {"dram_gbps", t.dram_gbps},
             {"l2_bytes", t.l2_bytes},
             {"peaks_note", t.peaks_note},
             {"max_block_dim", t.max_block_dim},
             {"max_grid_dim", t.max_grid_dim},
             {"resident_clusters", t.resident_clusters}};
}

void from_json(const json& j, Target& t) {
    const Target d;
    t.name = j.value("name", d.name);
    t.preset = j.value("preset", d.preset);
    t.source = j.value("source", d.source);
    t.sm_major = j.value("sm_major", d.sm_major);
    t.sm_minor = j.value("sm_minor", d.sm_minor);
    t.sm_count = j.value("sm_count", d.sm_count);
    t.warp_size = j.value("warp_size", d.warp_size);
    t.max_threads_per_block = j.value("max_threads_per_block", d.max_threads_per_block);
    t.max_threads_per_sm = j.value("max_threads_per_sm", d.max_threads_per_sm);
    t.max_blocks_per_sm = j.value("max_blocks_per_sm", d.max_blocks_per_sm);
    t.regs_per_sm = j.value("regs_per_sm", d.regs_per_sm);
    t.regs_per_block = j.value("regs_per_block", d.regs_per_block);
    t.max_regs_per_thread = j.value("max_regs_per_thread", d.max_regs_per_thread);
    t.smem_per_sm = j.value("smem_per_sm", d.smem_per_sm);
    t.smem_per_block = j.value("smem_per_block", d.smem_per_block);
    t.smem_per_block_optin = j.value("smem_per_block_optin", d.smem_per_block_optin);
    t.reserved_smem_per_block = j.value("reserved_smem_per_block", d.reserved_smem_per_block);
    t.clock_ghz = j.value("clock_ghz", d.clock_ghz);
    t.peak_fp32_gflops = j.value("peak_fp32_gflops", d.peak_fp32_gflops);
    t.peak_tf32_gflops = j.value("peak_tf32_gflops", d.peak_tf32_gflops);
    t.peak_bf16_gflops = j.value("peak_bf16_gflops", d.peak_bf16_gflops);
    t.peak_fp16_gflops = j.value("peak_fp16_gflops", d.peak_fp16_gflops);
    t.dram_gbps = j.value("dram_gbps", d.dram_gbps);
    t.l2_bytes = j.value("l2_bytes", d.l2_bytes);
    t.peaks_note = j.value("peaks_note", d.peaks_note);
    for (int i = 0; i < 3; ++i) {
        if (j.contains("max_block_dim")) t.max_block_dim[i] = j.at("max_block_dim").at(i).get<int>();
        if (j.contains("max_grid_dim")) t.max_grid_dim[i] = j.at("max_grid_dim").at(i).get<long long>();
    }
    for (int c = 0; c < 9; ++c)
        if (j.contains("resident_clusters")) t.resident_clusters[c] = j.at("resident_clusters").at(c).get<int>();
}

const char* param_kind_name(ParamKind k) {
    switch (k) {
        case ParamKind::Int: return "int";
        case ParamKind::Pow2: return "pow2";
        case ParamKind::Bool: return "bool";
        case ParamKind::Element: return "element";
    }
    return "int";
}

void to_json(json& j, const ParamSpec& p) {
    j = json{{"name", p.name},   {"label", p.label}, {"kind", param_kind_name(p.kind)},
             {"min", p.min},     {"max", p.max},     {"step", p.step},
             {"default", p.def}, {"help", p.help},   {"values", p.values()}};
    if (!p.choices.empty()) j["choices"] = p.choices;
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

json problem_to_json(const Problem& p) {
    return json{{"dim", p.dim}, {"text", format_problem(p)}};
}

json result_to_json(const RunResult& r, const ResultJsonOptions& opt) {
    json j;
    j["variant"] = r.request.variant;
    j["params"] = r.request.params;
    j["problem"] = problem_to_json(r.request.problem);
    j["target"] = r.target.name;
    j["arch"] = r.target.arch_name();
    j["phase"] = r.phase;
    j["ok"] = r.ok;
    j["stage"] = r.stage;
    j["error"] = r.error;
    j["kernel"] = r.name_expression;

    // Compiler facts and occupancy: null until the kernel compiled.
    const CompileResult* c = r.compiled.get();
    const bool compiled = c != nullptr && c->ok;
    const auto if_compiled = [&](const json& v) { return compiled ? v : json(nullptr); };
    j["registers"] = if_compiled(c ? c->ptxas.registers : 0);
    j["spill_stores"] = if_compiled(c ? c->ptxas.spill_stores : 0);
    j["spill_loads"] = if_compiled(c ? c->ptxas.spill_loads : 0);
    j["smem_bytes"] = if_compiled(r.smem_bytes());   // static + dynamic: what occupancy sees
    j["threads_per_block"] = r.launch.threads_per_block();
    j["blocks_per_sm"] = if_compiled(r.occupancy.blocks_per_sm);
    j["occupancy"] = if_compiled(r.occupancy.occupancy);
    j["limiter"] = if_compiled(r.occupancy.limiter);

    // The model's totals for the whole launch.
    j["flops"] = r.model.flops;
    j["global_loads"] = r.model.total.global_loads;
    j["global_stores"] = r.model.total.global_stores;
    j["shared_loads"] = r.model.total.shared_loads;
    j["shared_stores"] = r.model.total.shared_stores;
    // Null where the compiled kernel uses shared memory the bank model does not cover (yet): 0
    // would read as "conflict-free".
    const bool banks_known = r.model.banks.modelled || r.smem_bytes() == 0;
    j["shared_wavefronts"] = banks_known ? json(r.model.banks.wavefronts()) : json(nullptr);
    j["bank_conflicts"] = banks_known ? json(r.model.banks.conflicts()) : json(nullptr);
    j["precision"] = r.precision;
    if (!r.options.empty()) j["options"] = r.options;
    if (!r.may_be_wrong.empty()) j["may_be_wrong"] = r.may_be_wrong;
    if (!r.passes.empty()) {   // the kernels of a variant of several, each one's time alone once measured
        json passes = json::array();
        for (const PassTime& p : r.passes)
            passes.push_back({{"label", p.label}, {"kernel", p.kernel},
                              {"median_ms", r.measured && p.median_ms > 0 ? json(p.median_ms) : json(nullptr)}});
        j["passes"] = passes;
    }
    j["global_bytes"] = r.model.global_bytes;
    j["intensity"] = r.model.intensity;
    j["compulsory_bytes"] = r.model.compulsory_bytes;
    j["constant_requests"] = r.model.constant_requests;

    if (opt.measurement) {
        // A measured figure, or null when nothing was measured: 0 would read as a measurement.
        const bool m = r.measured;
        const auto if_measured = [&](bool also, const json& v) { return m && also ? v : json(nullptr); };
        j["measured"] = m;
        j["no_gpu_reason"] = r.no_gpu_reason;
        j["median_ms"] = if_measured(true, r.timing.median_ms);
        j["min_ms"] = if_measured(true, r.timing.min_ms);
        j["max_ms"] = if_measured(true, r.timing.max_ms);
        j["gflops"] = if_measured(true, r.gflops);
        j["gbps_model"] = if_measured(true, r.gbps_model);
        j["gbps_effective"] = if_measured(true, r.gbps_effective);
        j["reference_name"] = r.reference_name;
        j["reference_ms"] = if_measured(r.reference_ms > 0, r.reference_ms);
        j["pct_of_reference"] = if_measured(r.reference_ms > 0, r.pct_of_reference);
        j["validation"] = if_measured(r.validation.checked, r.validation);
        j["counted"] = if_measured(r.counted.has_value(), r.counted ? json(*r.counted) : json());
        j["gbps_dram"] = if_measured(r.hardware.ok(), r.gbps_dram);
        j["hardware"] = r.hardware;
        j["stalls"] = r.stalls;
        j["timing"] = if_measured(true, r.timing);

        if (r.cpu) {   // the CPU run (model mode): a verdict at its own size, never a time
            const CpuCheck& c = *r.cpu;
            j["cpu"] = {{"status", c.status},        {"file", c.file},
                        {"problem", problem_to_json(c.problem)}, {"message", c.message},
                        {"validation", c.status == "passed" || c.status == "failed" ? json(c.validation) : json(nullptr)},
                        {"counted", c.instructions ? json(c.counted) : json(nullptr)},
                        {"model", c.instructions ? json(c.model) : json(nullptr)},
                        {"instructions", c.instructions}, {"seconds", c.seconds}, {"seed", c.seed}};
        }
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
    compile["kernel_file"] = r.kernel_file;   // the file stall lines name (tilelab/stalls.h)
    if (!r.user_kernel.empty()) compile["user_kernel"] = r.user_kernel;   // the user's file, not the lesson's
    if (opt.kernel_source) compile["source"] = r.kernel_source;
    j["compile"] = compile;
    j["stages"] = r.stages;   // where the request's time went, wall ms per stage (0: did not run)
    j["launch"] = r.launch;
    j["occupancy_input"] = r.occupancy_input;
    j["occupancy_detail"] = r.occupancy;
    j["target_detail"] = r.target;
    j["model"] = r.model;
    return j;
}

RunResult result_from_json(const json& j) {
    RunResult r;
    r.request.variant = j.at("variant").get<std::string>();
    r.request.params = j.at("params").get<ParamValues>();
    r.request.problem.dim = j.at("problem").at("dim").get<std::array<int64_t, 3>>();
    if (j.contains("target_detail")) r.target = j.at("target_detail").get<Target>();
    else r.target.name = j.at("target").get<std::string>();
    r.phase = j.value("phase", Phase::full);
    r.ok = j.at("ok").get<bool>();
    r.stage = j.at("stage").get<std::string>();
    r.error = j.at("error").get<std::string>();
    r.name_expression = j.at("kernel").get<std::string>();

    const json& compile = j.at("compile");
    if (compile.contains("ok")) {
        auto c = std::make_shared<CompileResult>();
        c->ok = compile.at("ok").get<bool>();
        c->error = compile.value("error", "");
        c->log = compile.value("log", "");
        c->lowered_name = compile.value("lowered_name", "");
        c->options = compile.value("options", "");
        c->compile_ms = compile.value("compile_ms", 0.0);
        c->cache_hit = compile.value("cache_hit", false);
        c->cache_level = compile.value("cache_level", "");
        c->ptxas = compile.value("ptxas", PtxasInfo{});
        r.compiled = std::move(c);
    }
    r.kernel_source = compile.value("source", "");
    r.user_kernel = compile.value("user_kernel", "");
    r.kernel_file = compile.value("kernel_file", "");
    r.stages = j.value("stages", StageTimes{});
    r.launch = j.at("launch").get<LaunchShape>();
    r.occupancy_input = j.value("occupancy_input", OccupancyInput{});
    r.occupancy = j.at("occupancy_detail").get<Occupancy>();
    r.model = j.at("model").get<CostModel>();
    r.precision = j.value("precision", Precision{});
    r.options = j.value("options", FamilyOptions{});
    r.may_be_wrong = j.value("may_be_wrong", std::string());
    if (j.contains("passes"))
        for (const json& p : j.at("passes"))
            r.passes.push_back({p.at("label").get<std::string>(), p.at("kernel").get<std::string>(),
                                p.at("median_ms").is_null() ? 0.0 : p.at("median_ms").get<double>()});

    if (j.contains("measured")) {
        const auto number = [&](const char* key) { return j.at(key).is_null() ? 0.0 : j.at(key).get<double>(); };
        r.measured = j.at("measured").get<bool>();
        r.no_gpu_reason = j.at("no_gpu_reason").get<std::string>();
        if (!j.at("timing").is_null()) r.timing = j.at("timing").get<Timing>();
        if (!j.at("validation").is_null()) r.validation = j.at("validation").get<Validation>();
        if (!j.at("counted").is_null()) r.counted = j.at("counted").get<AccessCounts>();
        r.gflops = number("gflops");
        r.gbps_model = number("gbps_model");
        r.gbps_effective = number("gbps_effective");
        r.reference_name = j.at("reference_name").get<std::string>();
        r.reference_ms = number("reference_ms");
        r.pct_of_reference = number("pct_of_reference");
        r.gbps_dram = j.contains("gbps_dram") ? number("gbps_dram") : 0.0;
        if (j.contains("hardware")) r.hardware = j.at("hardware").get<HardwareCounters>();
        if (j.contains("stalls")) r.stalls = j.at("stalls").get<StallSamples>();
    }
    return r;
}

std::string csv_cell(const json& row, const std::string& pointer) {
    // Walked by hand: a null parent ("validation": null) makes the cell empty, not an error.
    const json* node = &row;
    size_t pos = 1;
    while (pos <= pointer.size()) {
        const size_t next = pointer.find('/', pos);
        const std::string key = pointer.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        if (!node->is_object() || !node->contains(key)) return "";
        node = &(*node)[key];
        if (next == std::string::npos) break;
        pos = next + 1;
    }
    if (node->is_null()) return "";
    if (node->is_string()) return node->get<std::string>();
    return node->dump();
}

std::vector<std::string> csv_headers(const std::vector<CsvColumn>& columns) {
    std::vector<std::string> h;
    for (const auto& c : columns) h.push_back(c.header);
    return h;
}

std::vector<std::string> csv_row(const json& row, const std::vector<CsvColumn>& columns) {
    std::vector<std::string> cells;
    for (const auto& c : columns) cells.push_back(csv_cell(row, c.pointer));
    return cells;
}

std::string csv_line(const std::vector<std::string>& fields) {
    std::string out;
    for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out += ',';
        const std::string& s = fields[i];
        if (s.find_first_of(",\"\n\r") == std::string::npos) {
            out += s;
            continue;
        }
        out += '"';
        for (char c : s) {
            if (c == '"') out += '"';
            out += c;
        }
        out += '"';
    }
    return out + '\n';
}

}  // namespace tilelab
