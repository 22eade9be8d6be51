// `compile` and `run`: one configuration, analysed (no GPU needed) or also run and measured.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "commands.h"
#include "format_table.h"
#include "report.h"
#include "request.h"
#include "tilelab/quantities.h"
#include "tilelab/result_json.h"

namespace tilelab::cli {

bool stdout_wants_color() {
    const char* no_color = std::getenv("NO_COLOR");
    return isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
}

// --quantity NAME: one named quantity of the result, as drills and lesson checks read it, in place
// of the report. A result without it: the run's own failure (no GPU, a wrong output ...) if it
// failed, else a usage error that lists the names.
static void print_quantity(const CliOptions& o, const RunResult& r, const Outcome& outcome) {
    double value = 0;
    if (!quantity_value(r, o.quantity, value)) {
        if (outcome.exit_code != kExitOk) throw CliError(outcome.exit_code, outcome.message);
        throw usage_error(trf("cli.no_quantity", o.quantity, fmt::format("{}", fmt::join(quantity_names(), ", "))));
    }
    const Quantity* q = find_quantity(o.quantity);
    const std::string unit = q ? q->unit : "";
    if (o.format == OutputFormat::Json) {
        const nlohmann::ordered_json j = {{"quantity", o.quantity}, {"value", value}, {"unit", unit},
                                          {"needs_gpu", q && q->needs_gpu}};
        std::fputs((j.dump(2) + "\n").c_str(), stdout);
    } else {
        std::fputs(fmt::format("{} = {:.6g}{}\n", o.quantity, value, unit.empty() || unit == "%" ? unit : " " + unit).c_str(),
                   stdout);
    }
}

static int analyse_or_run(const CliOptions& o, bool run) {
    auto engine = make_engine(o, run && !o.no_hardware);
    const RunRequest req = build_request(o, *engine);
    const Variant& v = resolve_variant(req.variant);
    RunOptions run_options = o.run_options();
    run_options.cpu_check = run;   // without a GPU, run it on the CPU for a verdict
    RunResult r;
    {
        GpuWaitEcho echo(*engine);
        if (o.source.empty()) {
            r = run ? engine->run(req, run_options) : engine->analyze(req);
        } else {
            const UserKernel user = read_source_flag(o.source);
            r = run ? engine->run(req, user, run_options) : engine->analyze(req, user);
        }
    }
    Outcome outcome = classify(r, run);
    if (!o.source.empty() && outcome.exit_code == kExitCompile) outcome.message = report_user_compile_errors(r);

    if (!o.quantity.empty()) {
        print_quantity(o, r, outcome);
    } else switch (o.format) {
    case OutputFormat::Json: {
        ResultJsonOptions jo;
        jo.measurement = run;
        jo.compile_log = o.with_log;
        nlohmann::ordered_json j = result_to_json(r, jo);
        j["status"] = outcome.status;
        j["reason"] = outcome.message;
        std::fputs((j.dump(2) + "\n").c_str(), stdout);
        break;
    }
    case OutputFormat::Csv: {
        ResultJsonOptions jo;
        jo.measurement = run;
        nlohmann::ordered_json j = result_to_json(r, jo);
        j["status"] = outcome.status;
        j["reason"] = outcome.message;
        const auto columns = csv_columns(v, run);
        std::fputs(csv_line(csv_headers(columns)).c_str(), stdout);
        std::fputs(csv_line(csv_row(j, columns)).c_str(), stdout);
        break;
    }
    case OutputFormat::Table: {
        ReportOptions ro;
        ro.measurement = run;
        // A failed compile is only understood with its log: show it even without --log.
        ro.compile_log = o.with_log || outcome.exit_code == kExitCompile;
        ro.color = stdout_wants_color();
        ro.run = run_options;
        std::fputs(render_result(r, v, ro).c_str(), stdout);
        break;
    }
    }
    std::fflush(stdout);
    if (outcome.exit_code != kExitOk) throw CliError(outcome.exit_code, outcome.message);
    return kExitOk;
}

int cmd_compile(const CliOptions& o) { return analyse_or_run(o, false); }
int cmd_run(const CliOptions& o) { return analyse_or_run(o, true); }

}  // namespace tilelab::cli
