// The JSON form of what the engine returns: results, occupancy, cost models, targets, variants.
// Free of CLI11 so the GUI (export, "copy as JSON") can reuse it. The to_json overloads live
// in namespace tilelab so nlohmann finds them by ADL: `nlohmann::ordered_json j = occupancy;` works.
// ordered_json keeps keys in the order written here, so the output reads top-down: what was
// asked (variant, params, problem, target), then what the compiler and the model say.
#pragma once
#include <nlohmann/json.hpp>
#include "tilelab/engine.h"
#include "tilelab/lesson.h"
#include "tilelab/result.h"

namespace tilelab {

void to_json(nlohmann::ordered_json& j, const AccessCounts& c);
void to_json(nlohmann::ordered_json& j, const Formula& f);
void to_json(nlohmann::ordered_json& j, const CostModel& m);
void to_json(nlohmann::ordered_json& j, const LaunchShape& l);
void to_json(nlohmann::ordered_json& j, const PtxasInfo& p);
void to_json(nlohmann::ordered_json& j, const Occupancy& o);
void to_json(nlohmann::ordered_json& j, const Timing& t);
void to_json(nlohmann::ordered_json& j, const Validation& v);
void to_json(nlohmann::ordered_json& j, const Target& t);
void to_json(nlohmann::ordered_json& j, const ParamSpec& p);
void to_json(nlohmann::ordered_json& j, const Variant& v);   // id, family, title, summary, params
void to_json(nlohmann::ordered_json& j, const Lesson& l);    // id, title, variant, step titles
void to_json(nlohmann::ordered_json& j, const DeviceStatus& d);
void to_json(nlohmann::ordered_json& j, const Ceilings& c);
// {"status", "reason", "passes", "pass_ms", then every metric of hardware_metrics() by its ncu
// name (null unless status is "ok"), "shared_load_ways", "shared_store_ways"}.
void to_json(nlohmann::ordered_json& j, const HardwareCounters& h);

const char* param_kind_name(ParamKind k);   // "int", "pow2", "bool"

// {"dim": [M, N, K], "text": "1024"}
nlohmann::ordered_json problem_to_json(const Problem& p);

struct ResultJsonOptions {
    bool measurement = true;      // add the run's fields (timing, validation, counted ...)
    bool compile_log = false;     // add the NVRTC/ptxas log
    bool kernel_source = false;   // add the .cuh text as compiled
};

// One configuration. Top level (stable names, flat, for scripts):
//   variant params problem target arch ok stage error kernel
//   registers spill_stores spill_loads smem_bytes threads_per_block blocks_per_sm occupancy limiter
//   flops global_loads global_stores shared_loads shared_stores global_bytes intensity compulsory_bytes
// and with `measurement`:
//   measured no_gpu_reason median_ms min_ms max_ms gflops gbps_model gbps_effective
//   reference_name reference_ms pct_of_reference validation counted gbps_dram hardware timing
// Nested detail: compile{...}, launch{...}, occupancy_detail{...}, model{per_thread, per_block,
// total, formulas, extras, ...}. Measured figures are null when nothing was measured.
nlohmann::ordered_json result_to_json(const RunResult& r, const ResultJsonOptions& opt = {});

}  // namespace tilelab
