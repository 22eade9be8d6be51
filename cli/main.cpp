// tilelab-cli: the headless face of TileLab. This file only wires the command line (CLI11) to
// the subcommands in cmd_*.cpp; every error leaves as one line on stderr and an exit code.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <exception>

#include "commands.h"
#include "tilelab/i18n.h"
#include "tilelab/cli_flags.h"
#include "options.h"

using namespace tilelab::cli;

namespace {

constexpr const char* kProgram = "tilelab-cli";

constexpr const char* kFooter =
    "Exit codes: 0 ok, 1 a launch or CUDA call failed, 2 invalid input, 3 no GPU (model mode),\n"
    "4 validation failed, 5 compile failed. Model mode: no GPU, --model-mode, or TILELAB_MODEL_MODE=1.\n"
    "A GPU host or command that cannot be reached, or is lost in a run, exits 1 with the reason.";

// One line, whatever the message: stderr of this tool is meant to be read by scripts too, and a
// 100 kB argument quoted back by CLI11 must not fill the terminal (tilelab::one_line).
void print_error(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", kProgram, tilelab::one_line(message).c_str());
}

struct FormatFlags {
    bool json = false, csv = false;
};

void add_common_flags(CLI::App* app, CliOptions& o, FormatFlags& f) {
    auto* json = app->add_flag("--json", f.json, "Print JSON instead of a table");
    app->add_flag("--csv", f.csv, "Print CSV instead of a table")->excludes(json);
    app->add_flag("--model-mode", o.model_mode, "Never use a GPU: compile and analyse only (also TILELAB_MODEL_MODE=1)");
    auto* host = app->add_option("--gpu-host", o.gpu_host,
                                 "Run on the GPU of [user@]host through ssh (your keys and ~/.ssh/config; no password "
                                 "prompt): ssh HOST tilelab-gpu-worker --stdio (docs/teaching_server.md)");
    app->add_option("--gpu-command", o.gpu_command,
                    "Run through any launcher, by sh -c, that starts `tilelab-gpu-worker --stdio`: e.g. "
                    "\"srun --gres=gpu:1 --time=10 tilelab-gpu-worker --stdio\" or \"docker exec -i NAME tilelab-gpu-worker --stdio\"")
        ->excludes(host);
    app->add_option("--connect-timeout", o.connect_timeout_s,
                    "Seconds to wait for a GPU host or command to answer (and the most silence in a run); default 15")
        ->check(tilelab::whole_number(1, 600));
    app->add_option("--lang", o.lang, "Language of messages and tables: en or zh (default: LC_ALL / LC_MESSAGES / LANG)")
        ->check(CLI::IsMember({"en", "zh"}));
}

void add_request_flags(CLI::App* app, CliOptions& o) {
    app->add_option("variant", o.variant, "Variant id (see `list`) or lesson number, e.g. matmul.smem_tiled or 02")
        ->required();
    app->add_option("--set", o.sets, "Parameter value NAME=VALUE, repeatable: --set TILE=16 --set PAD=1")
        ->allow_extra_args(false);   // one NAME=VALUE per --set, so a following variant id stays positional
    app->add_option("--size", o.size, "Problem size: 4096 or 1000x2000x300 (default: the lesson's, else 1024)");
    app->add_option("--step", o.step,
                    "A lesson's step, from 0 as the app's --step: its parameters and size, as the app opens it "
                    "(--set and --size apply on top)")
        ->check(tilelab::whole_number(0, 1000));
    app->add_option("--target", o.target,
                    "Model mode: a preset key, name or arch (t4, a100, rtx4090, h100, h200, sm_90); see `targets`");
    app->add_flag("--log", o.with_log, "Include the NVRTC/ptxas log");
}

void add_run_flags(CLI::App* app, CliOptions& o) {
    app->add_option("--reps", o.repetitions, "Timed repetitions")->check(tilelab::whole_number(1, 100000));
    app->add_option("--warmup", o.warmup, "Untimed warm-up runs")->check(tilelab::whole_number(0, 100000));
    app->add_flag("--no-flush", o.no_flush, "Do not flush L2 between repetitions (warm-cache timing)");
    app->add_flag("--no-count", o.no_count, "Skip the instrumented run that counts memory accesses");
    app->add_flag("--no-reference", o.no_reference, "Skip timing the reference (cuBLAS or device copy)");
    app->add_option("--seed", o.seed, "Seed of the random inputs");
}

}  // namespace

int main(int argc, char** argv) {
    // The locale's language until --lang says otherwise (JSON and CSV keys stay English).
    tilelab::set_language(tilelab::language_from_locale());
    CliOptions o;
    FormatFlags f;
    CLI::App app("Compile, analyse, run and sweep TileLab's tiled GPU kernels.", kProgram);
    app.require_subcommand(1);
    app.footer(kFooter);
    add_common_flags(&app, o, f);

    auto* list = app.add_subcommand("list", "Variants with their parameters (ranges, defaults, help), and lessons");
    add_common_flags(list, o, f);

    auto* targets = app.add_subcommand("targets", "Target presets for model mode and, in GPU mode, the device");
    add_common_flags(targets, o, f);
    targets->add_option("--target", o.target, "Mark this preset as the one in use (model mode)");

    auto* ceilings = app.add_subcommand("ceilings", "Measured copy bandwidth and cuBLAS SGEMM peak (needs a GPU)");
    add_common_flags(ceilings, o, f);

    auto* compile = app.add_subcommand(
        "compile", "Compile one configuration: ptxas report, occupancy with its limiter, cost model (no GPU needed)");
    add_common_flags(compile, o, f);
    add_request_flags(compile, o);

    auto* run = app.add_subcommand(
        "run", "Run one configuration: time, GFLOP/s, GB/s, % of the reference, validation, counted accesses");
    add_common_flags(run, o, f);
    add_request_flags(run, o);
    add_run_flags(run, o);
    run->add_flag("--no-hardware", o.no_hardware,
                  "Skip the hardware-counter pass (DRAM/L2/L1 bytes, bank conflicts, achieved occupancy; CUPTI)");

    for (CLI::App* sub : {compile, run})
        sub->add_option("--source", o.source,
                        "Your kernel file (an exercise, see `exercise`) instead of the lesson's: same entry, launch, "
                        "validation");
    run->add_option("--time-limit", o.time_limit_s,
                    "With --source: stop a run that takes longer than this many seconds (an endless loop)")
        ->check(tilelab::whole_number(1, 3600));

    auto* exercise = app.add_subcommand(
        "exercise", "Write it yourself: `exercise list`, `exercise NN` (its TODOs), `exercise NN --skeleton > my.cu`");
    add_common_flags(exercise, o, f);
    exercise->add_option("lesson", o.exercise, "`list`, or a lesson number or id")->required();
    exercise->add_flag("--skeleton", o.skeleton, "Print the starting file (the lesson's kernel with TODOs)");

    auto* sweep = app.add_subcommand(
        "sweep", "Sweep one or two parameters across their valid values (run on a GPU, else analysed)");
    add_common_flags(sweep, o, f);
    add_request_flags(sweep, o);
    add_run_flags(sweep, o);
    sweep->add_flag("--hardware", o.hardware,
                    "Read the hardware counters of every point (DRAM/L2/L1 bytes ...; several replays each)");
    sweep->add_option("--param", o.param, "The parameter to sweep, e.g. TILE")->required();
    sweep->add_option("--param2", o.param2, "A second parameter: sweep the grid of both");
    sweep->add_option("--values", o.values, "Only these values of --param, e.g. 8,16,32")->delimiter(',')->allow_extra_args(false);
    sweep->add_option("--values2", o.values2, "Only these values of --param2")->delimiter(',')->allow_extra_args(false);
    sweep->add_flag("--compile-only", o.compile_only, "Analyse every point; run none");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help
        const auto subcommands = app.get_subcommands([](CLI::App*) { return true; });
        const bool known = argc > 1 && std::any_of(subcommands.begin(), subcommands.end(),
                                                   [&](CLI::App* s) { return s->get_name() == argv[1]; });
        if (argc > 1 && argv[1][0] != '-' && !known) {
            std::vector<std::string> names;
            for (CLI::App* s : subcommands) names.push_back(s->get_name());
            print_error(tilelab::trf("cli.unknown_subcommand", tilelab::shortened(argv[1]),
                                    fmt::join(names, ", ")));
            return kExitUsage;
        }
        print_error(std::string(e.what()) + " (run with --help for usage)");
        return kExitUsage;
    }
    o.format = f.json ? OutputFormat::Json : f.csv ? OutputFormat::Csv : OutputFormat::Table;
    if (tilelab::Language lang; !o.lang.empty() && tilelab::parse_language(o.lang, lang)) tilelab::set_language(lang);

    try {
        tilelab::refuse_empty_values(&app);
        if (*list) return cmd_list(o);
        if (*targets) return cmd_targets(o);
        if (*ceilings) return cmd_ceilings(o);
        if (*compile) return cmd_compile(o);
        if (*run) return cmd_run(o);
        if (*sweep) return cmd_sweep(o);
        if (*exercise) return cmd_exercise(o);
    } catch (const CliError& e) {
        print_error(e.what());
        return e.code();
    } catch (const tilelab::InputError& e) {
        print_error(e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        print_error(tilelab::trf("cli.unexpected_error", e.what()));
        return kExitRuntime;
    }
    return kExitUsage;
}
