// How one result reads on a terminal and in a CSV row, and what it means for the exit code.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>
#include "tilelab/result.h"
#include "tilelab/result_json.h"
#include "tilelab/variant.h"

namespace tilelab::cli {

// What happened to one configuration: the exit code it implies, a short status for tables
// ("ok", "no GPU", "FAIL", "compile error", "error", "invalid", "skipped") and one line why.
struct Outcome {
    int exit_code = 0;
    std::string status;
    std::string message;
};
Outcome classify(const RunResult& r, bool run_requested);

struct ReportOptions {
    bool measurement = false;   // the run's sections (timing, validation, counted)
    bool compile_log = false;
    bool color = false;         // ANSI colour on the PASS/FAIL badge
    RunOptions run;             // to say how the time was taken
};

// The readable report of `compile` and `run`: header, compile, launch, occupancy with its
// arithmetic, model (and counted) accesses side by side, formulas; for run: time, throughput,
// reference and validation.
std::string render_result(const RunResult& r, const Variant& v, const ReportOptions& opt);

// The "Hardware counters" section of a run: the counters beside the model, or why there are none.
void render_hardware(std::string& out, const RunResult& r);

// The "Where the warps wait" section of a run with --stalls: the samples by reason and the top
// lines with their text, or why there are none.
void render_stalls(std::string& out, const RunResult& r);

// The "CPU run" section (a verdict without a GPU, RunResult::cpu) and its one-line verdict.
void render_cpu(std::string& out, const CpuCheck& c);
std::string cpu_verdict(const CpuCheck& c);

// CSV: the result JSON's flat fields, one column each; the variant's parameters by name.
std::vector<CsvColumn> csv_columns(const Variant& v, bool measurement);

// "TILE=32 PAD=0" in declaration order.
std::string params_text(const Variant& v, const ParamValues& values);

}  // namespace tilelab::cli
