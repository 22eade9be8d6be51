// Results and their parts <-> JSON: one definition for every reader and writer of a result —
// the CLI's --json, the app's Compare export (JSON and CSV), the GPU worker protocol (as CBOR) and
// the compile cache. The plain structs use TILELAB_JSON_FIELDS (nlohmann's
// NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT, templated as nlohmann 3.11.3 does, so the
// same definition serves nlohmann::json and nlohmann::ordered_json); the field lists below are the
// key lists. A key missing on input keeps the field's default.
//
// The CLI's key list and meaning are documented in docs/cli.md ("JSON of compile and run").
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include "tilelab/device.h"
#include "tilelab/hardware.h"
#include "tilelab/lesson.h"
#include "tilelab/result.h"
#include "tilelab/stalls.h"

// Field-by-field to_json/from_json for a struct, by member name, for any basic_json.
#define TILELAB_JSON_FIELDS(Type, ...)                                                                          \
    template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>                  \
    void to_json(J& nlohmann_json_j, const Type& nlohmann_json_t) {                                            \
        NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                                \
    }                                                                                                          \
    template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>                  \
    void from_json(const J& nlohmann_json_j, Type& nlohmann_json_t) {                                          \
        const Type nlohmann_json_default_obj{};                                                                \
        NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__))                 \
    }

namespace tilelab {

TILELAB_JSON_FIELDS(AccessCounts, global_loads, global_stores, shared_loads, shared_stores)
TILELAB_JSON_FIELDS(Formula, quantity, expression, value)
TILELAB_JSON_FIELDS(BankSiteTotals, name, formula, store, width_bytes, instructions, wavefronts, min_wavefronts,
                    broadcasts, worst_ways, caveat)
TILELAB_JSON_FIELDS(BankModel, modelled, sites, load_instructions, store_instructions, load_wavefronts, store_wavefronts,
                    load_conflicts, store_conflicts)
TILELAB_JSON_FIELDS(CostModel, flops, per_thread, per_block, total, load_element_bytes, store_element_bytes,
                    global_bytes, intensity, compulsory_bytes, formulas, extras, banks)
NLOHMANN_JSON_SERIALIZE_ENUM(ElementType, {{ElementType::f32, "fp32"}, {ElementType::tf32, "tf32"},
                                           {ElementType::bf16, "bf16"}, {ElementType::f16, "fp16"}})
TILELAB_JSON_FIELDS(Precision, input, accumulate, output)
TILELAB_JSON_FIELDS(PtxasInfo, parsed, registers, spill_stores, spill_loads, stack_bytes, smem_bytes, cmem_bytes)
TILELAB_JSON_FIELDS(OccupancyInput, threads_per_block, registers_per_thread, smem_per_block)
TILELAB_JSON_FIELDS(Occupancy, blocks_per_sm, active_warps, max_warps, occupancy, limiter, limit_warps,
                    limit_registers, limit_smem, limit_blocks, steps, error)
TILELAB_JSON_FIELDS(Timing, median_ms, min_ms, max_ms, samples_ms)
TILELAB_JSON_FIELDS(Validation, checked, passed, max_abs_error, max_rel_error, tolerance, reference, message)
TILELAB_JSON_FIELDS(StageTimes, compile_ms, count_compile_ms, worker_ms, setup_ms, validate_ms, timing_ms, count_ms,
                    hardware_ms, stalls_ms, reference_ms, gpu_wait_ms, compile_cached, prefetch_hit, count_compile_cached, count_prefetch_hit)
TILELAB_JSON_FIELDS(RunOptions, warmup, repetitions, flush_l2, count_accesses, time_reference, quick,
                    hardware_counters, stall_samples, seed)
TILELAB_JSON_FIELDS(DeviceStatus, gpu, reason, name, free_bytes, total_bytes)
TILELAB_JSON_FIELDS(Ceilings, measured, copy_gbps, sgemm_gflops, note)

NLOHMANN_JSON_SERIALIZE_ENUM(Phase, {{Phase::analysed, "analysed"}, {Phase::quick, "quick"}, {Phase::full, "full"}})

// LaunchShape: grid, block, dynamic_smem, cluster, resident_per_sm and tensor_maps where there are any, and (output only)
// threads_per_block, blocks.
template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>
void to_json(J& j, const LaunchShape& l) {
    j = J{{"grid", l.grid}, {"block", l.block}, {"dynamic_smem", l.dynamic_smem},
          {"threads_per_block", l.threads_per_block()}, {"blocks", l.blocks()}};
    if (l.cluster > 1) j["cluster"] = l.cluster;
    if (l.resident_per_sm > 0) j["resident_per_sm"] = l.resident_per_sm;
    if (!l.tensor_maps.empty()) {
        J maps = J::array();
        for (const TensorMapSpec& m : l.tensor_maps)
            maps.push_back(J{{"arg", m.arg}, {"element_bytes", m.element_bytes}, {"rank", m.rank}, {"dims", m.dims},
                             {"strides", m.strides}, {"box", m.box}, {"swizzle", m.swizzle}});
        j["tensor_maps"] = std::move(maps);
    }
}
template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>
void from_json(const J& j, LaunchShape& l) {
    l.grid = j.at("grid").template get<std::array<unsigned, 3>>();
    l.block = j.at("block").template get<std::array<unsigned, 3>>();
    l.dynamic_smem = j.at("dynamic_smem").template get<unsigned>();
    l.cluster = j.contains("cluster") ? j.at("cluster").template get<unsigned>() : 1u;
    l.resident_per_sm = j.contains("resident_per_sm") ? j.at("resident_per_sm").template get<int>() : 0;
    l.tensor_maps.clear();
    if (j.contains("tensor_maps"))
        for (const J& m : j.at("tensor_maps"))
            l.tensor_maps.push_back({m.at("arg").template get<int>(), m.at("element_bytes").template get<int>(),
                                     m.at("rank").template get<int>(), m.at("dims").template get<std::array<uint64_t, 5>>(),
                                     m.at("strides").template get<std::array<uint64_t, 4>>(),
                                     m.at("box").template get<std::array<uint32_t, 5>>(), m.at("swizzle").template get<int>()});
}

// HardwareCounters, one form for the worker protocol and the CLI (docs/cli.md): status, reason,
// passes, pass_ms, then every metric of hardware_metrics() by its ncu name (null unless the status
// is ok), and shared_load_ways / shared_store_ways (derived: output only). On input, a key that is
// not a known metric, or not a number, is dropped.
template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>
void to_json(J& j, const HardwareCounters& h) {
    j = J{{"status", h.status}, {"reason", h.reason}, {"passes", h.passes}, {"pass_ms", h.pass_ms}};
    const auto if_ok = [&](std::optional<double> v) { return h.ok() && v ? J(*v) : J(nullptr); };
    for (const HardwareMetric& m : hardware_metrics()) j[m.name] = if_ok(h.get(m.name));
    j["shared_load_ways"] = if_ok(h.shared_ways(true));
    j["shared_store_ways"] = if_ok(h.shared_ways(false));
}
template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>
void from_json(const J& j, HardwareCounters& h) {
    h = HardwareCounters{};
    h.status = j.at("status").template get<std::string>();
    h.reason = j.at("reason").template get<std::string>();
    h.passes = j.at("passes").template get<int>();
    h.pass_ms = j.at("pass_ms").template get<double>();
    for (const HardwareMetric& m : hardware_metrics())
        if (j.contains(m.name) && j.at(m.name).is_number()) h.metrics[m.name] = j.at(m.name).template get<double>();
}

// StallCounts: {"issuing": n, "global_memory": n, ...} (every group of tilelab/stalls.h); on
// input a missing group reads 0.
template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>
void to_json(J& j, const StallCounts& c) {
    j = J::object();
    for (int g = 0; g < kStallGroups; ++g) j[stall_group_key(StallGroup(g))] = c.n[size_t(g)];
}
template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>
void from_json(const J& j, StallCounts& c) {
    c = StallCounts{};
    for (int g = 0; g < kStallGroups; ++g)
        if (const char* key = stall_group_key(StallGroup(g)); j.contains(key)) c.n[size_t(g)] = j.at(key).template get<uint64_t>();
}
TILELAB_JSON_FIELDS(StallLine, file, line, counts)
TILELAB_JSON_FIELDS(StallPc, offset, line, counts, sass, calls)
TILELAB_JSON_FIELDS(StallSamples, status, reason, period_log2, last_period_log2, left_out_period_log2, period_spread, launches, total, dropped, collect_ms, counts, lines, pcs)

// Measurement: what the GPU worker returns; `counted` is null when nothing was counted.
template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>
void to_json(J& j, const Measurement& m) {
    j = J{{"ok", m.ok}, {"stage", m.stage}, {"error", m.error}, {"timing", m.timing}, {"validation", m.validation},
          {"counted", m.counted ? J(*m.counted) : J(nullptr)}, {"reference_ms", m.reference_ms},
          {"reference_name", m.reference_name}, {"hardware", m.hardware}, {"stalls", m.stalls}, {"stages", m.stages}};
    if (!m.pass_ms.empty()) j["pass_ms"] = m.pass_ms;
    if (m.launched_blocks > 0) j["launched_blocks"] = m.launched_blocks;
}
template <typename J, std::enable_if_t<nlohmann::detail::is_basic_json<J>::value, int> = 0>
void from_json(const J& j, Measurement& m) {
    m = Measurement{};
    m.ok = j.at("ok").template get<bool>();
    m.stage = j.at("stage").template get<std::string>();
    m.error = j.at("error").template get<std::string>();
    m.timing = j.at("timing").template get<Timing>();
    m.validation = j.at("validation").template get<Validation>();
    if (!j.at("counted").is_null()) m.counted = j.at("counted").template get<AccessCounts>();
    m.reference_ms = j.at("reference_ms").template get<double>();
    m.reference_name = j.at("reference_name").template get<std::string>();
    if (j.contains("hardware")) m.hardware = j.at("hardware").template get<HardwareCounters>();
    if (j.contains("stalls")) m.stalls = j.at("stalls").template get<StallSamples>();
    m.stages = j.at("stages").template get<StageTimes>();
    if (j.contains("pass_ms")) m.pass_ms = j.at("pass_ms").template get<std::vector<double>>();
    if (j.contains("launched_blocks")) m.launched_blocks = j.at("launched_blocks").template get<unsigned>();
}

// Targets (both ways), and for output only the CLI's `list` and `info`.
void to_json(nlohmann::ordered_json& j, const Target& t);
void from_json(const nlohmann::ordered_json& j, Target& t);
void to_json(nlohmann::ordered_json& j, const ParamSpec& p);
void to_json(nlohmann::ordered_json& j, const Variant& v);   // id, family, title, summary, params
void to_json(nlohmann::ordered_json& j, const Lesson& l);    // id, title, variant, step titles
const char* param_kind_name(ParamKind k);                     // "int", "pow2", "bool", "element"

// {"dim": [M, N, K], "text": "4096"}
nlohmann::ordered_json problem_to_json(const Problem& p);

struct ResultJsonOptions {
    bool measurement = true;      // add the run's fields (timing, validation, counted ...)
    bool compile_log = false;     // add the NVRTC/ptxas log
    bool kernel_source = false;   // add the .cuh text as compiled
};

// One configuration, keys in this order (docs/cli.md). Top level (stable names, flat, for scripts):
//   variant params problem target arch phase ok stage error kernel
//   registers spill_stores spill_loads smem_bytes threads_per_block blocks_per_sm occupancy limiter
//   flops global_loads global_stores shared_loads shared_stores global_bytes intensity compulsory_bytes
// and with `measurement`:
//   measured no_gpu_reason median_ms min_ms max_ms gflops gbps_model gbps_effective
//   reference_name reference_ms pct_of_reference validation counted gbps_dram hardware timing
// Nested detail: compile{...}, stages{...}, launch{...}, occupancy_input{...}, occupancy_detail{...},
// target_detail{...}, model{per_thread, per_block, total, formulas, extras, ...}. Measured figures are
// null when nothing was measured.
nlohmann::ordered_json result_to_json(const RunResult& r, const ResultJsonOptions& opt = {});
// The inverse, for everything result_to_json wrote (the compiled cubin is not part of it; the
// compile's facts come back as a CompileResult without one). Throws nlohmann::json::exception on a
// malformed document.
RunResult result_from_json(const nlohmann::ordered_json& j);

// ---- CSV, built from that JSON (the CLI's --csv and the app's Compare export) ---------------
struct CsvColumn {
    std::string header;
    std::string pointer;   // JSON pointer into result_to_json's object, e.g. "/validation/passed"
};
// The value at `pointer` as a CSV cell: "" when it or a parent is missing or null, a string as it
// is, anything else as JSON writes it (true, 12, 0.5).
std::string csv_cell(const nlohmann::ordered_json& row, const std::string& pointer);
std::vector<std::string> csv_headers(const std::vector<CsvColumn>& columns);
std::vector<std::string> csv_row(const nlohmann::ordered_json& row, const std::vector<CsvColumn>& columns);
// One line: fields joined by commas, quoted where they hold a comma, a quote or a line break.
std::string csv_line(const std::vector<std::string>& fields);

}  // namespace tilelab
