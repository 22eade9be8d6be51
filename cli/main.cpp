// tilelab-cli: the headless face of TileLab. This file only wires the command line (CLI11) to
// the subcommands in cmd_*.cpp; every error leaves as one line on stderr and an exit code.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <exception>

#include "commands.h"
#include "tilelab/device.h"
#include "tilelab/i18n.h"
#include "tilelab/cli_flags.h"
#include "tilelab/version.h"
#include "options.h"

using namespace tilelab::cli;

namespace {

constexpr const char* kProgram = "tilelab-cli";

// One line, whatever the message: stderr of this tool is meant to be read by scripts too, and a
// 100 kB argument quoted back by CLI11 must not fill the terminal (tilelab::one_line).
void print_error(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", kProgram, tilelab::one_line(message).c_str());
}

struct FormatFlags {
    bool json = false, csv = false;
};

void add_common_flags(CLI::App* app, CliOptions& o, FormatFlags& f) {
    auto* json = app->add_flag("--json", f.json, tilelab::tr("clihelp.json"));
    app->add_flag("--csv", f.csv, tilelab::tr("clihelp.csv"))->excludes(json);
    app->add_flag("--model-mode", o.model_mode, tilelab::tr("clihelp.model_mode"));
    auto* host = app->add_option("--gpu-host", o.gpu_hosts,
                                 tilelab::tr("clihelp.gpu_host"))
                     ->allow_extra_args(false);   // one host per --gpu-host; give it again for more
    app->add_option("--gpu-command", o.gpu_command,
                    tilelab::tr("clihelp.gpu_command"))
        ->excludes(host);
    app->add_option("--connect-timeout", o.connect_timeout_s,
                    tilelab::tr("clihelp.connect_timeout"))
        ->check(tilelab::whole_number(1, 600));
    app->add_option("--lang", o.lang, tilelab::tr("clihelp.lang"))
        ->check(CLI::IsMember({"en", "zh"}));
}

void add_request_flags(CLI::App* app, CliOptions& o) {
    app->add_option("variant", o.variant, tilelab::tr("clihelp.variant"))
        ->required();
    app->add_option("--set", o.sets, tilelab::tr("clihelp.set"))
        ->allow_extra_args(false);   // one NAME=VALUE per --set, so a following variant id stays positional
    app->add_option("--size", o.size, tilelab::tr("clihelp.size"));
    app->add_option("--step", o.step,
                    tilelab::tr("clihelp.step"))
        ->check(tilelab::whole_number(0, 1000));
    app->add_option("--target", o.target,
                    tilelab::tr("clihelp.target"));
    app->add_flag("--log", o.with_log, tilelab::tr("clihelp.log"));
}

void add_run_flags(CLI::App* app, CliOptions& o) {
    app->add_option("--reps", o.repetitions, tilelab::tr("clihelp.reps"))->check(tilelab::whole_number(1, 100000));
    app->add_option("--warmup", o.warmup, tilelab::tr("clihelp.warmup"))->check(tilelab::whole_number(0, 100000));
    app->add_flag("--no-flush", o.no_flush, tilelab::tr("clihelp.no_flush"));
    app->add_flag("--no-count", o.no_count, tilelab::tr("clihelp.no_count"));
    app->add_flag("--no-reference", o.no_reference, tilelab::tr("clihelp.no_reference"));
    app->add_option("--seed", o.seed, tilelab::tr("clihelp.seed"));
}

// What a subcommand takes besides the common flags.
enum SubcommandFlags { kCommonOnly = 0, kRequest = 1, kRun = 2, kRequestAndRun = kRequest | kRun };

// A subcommand with the common flags, then a request's (variant, --set, --size ...) and a run's
// (--reps, --warmup ...) where `flags` asks for them.
CLI::App* add_subcommand(const char* name, const std::string& help, CLI::App& app, CliOptions& o, FormatFlags& f,
                         int flags = kCommonOnly) {
    CLI::App* sub = app.add_subcommand(name, help);
    add_common_flags(sub, o, f);
    if (flags & kRequest) add_request_flags(sub, o);
    if (flags & kRun) add_run_flags(sub, o);
    return sub;
}

}  // namespace

int main(int argc, char** argv) {
    tilelab::end_launchers_with_this_process();   // a launcher left running would hold its GPU (issue #30)
    // The locale's language until --lang says otherwise, --help included (JSON and CSV keys stay English).
    tilelab::set_language_from_command_line(argc, argv);
    CliOptions o;
    FormatFlags f;
    CLI::App app(tilelab::tr("clihelp.app"), kProgram);
    app.require_subcommand(1);
    app.footer(tilelab::tr("clihelp.footer"));
    app.set_version_flag("--version", tilelab::version_text(), tilelab::tr("clihelp.version"));
    add_common_flags(&app, o, f);

    auto* list = add_subcommand("list", tilelab::tr("clihelp.list"), app, o, f);

    auto* targets = add_subcommand("targets", tilelab::tr("clihelp.targets"), app, o, f);
    targets->add_option("--target", o.target, tilelab::tr("clihelp.target_2"));

    auto* ceilings = add_subcommand("ceilings", tilelab::tr("clihelp.ceilings"), app, o, f);

    auto* compile = add_subcommand("compile", tilelab::tr("clihelp.compile"), app, o, f, kRequest);

    auto* run = add_subcommand("run", tilelab::tr("clihelp.run"), app, o, f, kRequestAndRun);
    run->add_flag("--no-hardware", o.no_hardware,
                  tilelab::tr("clihelp.no_hardware"));
    run->add_flag("--stalls", o.stalls, tilelab::tr("clihelp.stalls"));

    for (CLI::App* sub : {compile, run}) {
        sub->add_option("--source", o.source,
                        tilelab::tr("clihelp.source"));
        sub->add_option("--quantity", o.quantity, tilelab::tr("clihelp.quantity"));
    }
    run->add_option("--time-limit", o.time_limit_s,
                    tilelab::tr("clihelp.time_limit"))
        ->check(tilelab::whole_number(1, 3600));

    auto* exercise = add_subcommand("exercise", tilelab::tr("clihelp.exercise"), app, o, f);
    exercise->add_option("lesson", o.exercise, tilelab::tr("clihelp.lesson"))->required();
    exercise->add_flag("--skeleton", o.skeleton, tilelab::tr("clihelp.skeleton"));

    auto* drill = add_subcommand("drill", tilelab::tr("clihelp.drill"), app, o, f);
    drill->add_option("lesson", o.variant, tilelab::tr("clihelp.drill_lesson"))->required();
    auto* answer = drill->add_option("--answer", o.drill_answer,
                                     tilelab::tr("clihelp.drill_answer"));
    drill->add_flag("--reveal", o.drill_reveal, tilelab::tr("clihelp.drill_reveal"))
        ->excludes(answer);
    drill->add_option("--target", o.target, tilelab::tr("clihelp.drill_target"));

    auto* sweep = add_subcommand("sweep", tilelab::tr("clihelp.sweep"), app, o, f, kRequestAndRun);
    sweep->add_flag("--hardware", o.hardware,
                    tilelab::tr("clihelp.hardware"));
    sweep->add_flag("--stalls", o.stalls, tilelab::tr("clihelp.stalls"));
    sweep->add_option("--param", o.param, tilelab::tr("clihelp.param"))->required();
    sweep->add_option("--param2", o.param2, tilelab::tr("clihelp.param2"));
    sweep->add_option("--values", o.values, tilelab::tr("clihelp.values"))->delimiter(',')->allow_extra_args(false);
    sweep->add_option("--values2", o.values2, tilelab::tr("clihelp.values2"))->delimiter(',')->allow_extra_args(false);
    sweep->add_flag("--compile-only", o.compile_only, tilelab::tr("clihelp.compile_only"));
    sweep->add_option("--gpus", o.gpus, tilelab::tr("clihelp.gpus"));

    auto* tune = add_subcommand("tune", tilelab::tr("clihelp.tune"), app, o, f);
    tune->add_option("variant", o.variant, tilelab::tr("clihelp.variant"))->required();
    tune->add_option("--set", o.sets, tilelab::tr("clihelp.tune_set"))->allow_extra_args(false);
    tune->add_option("--size", o.size, tilelab::tr("clihelp.size"));
    tune->add_option("--target", o.target, tilelab::tr("clihelp.target"));
    tune->add_option("--param", o.tune_params, tilelab::tr("clihelp.tune_param"))->allow_extra_args(false);
    tune->add_option("--budget", o.budget, tilelab::tr("clihelp.budget"));
    tune->add_flag("--fresh", o.fresh, tilelab::tr("clihelp.fresh"));
    tune->add_option("--candidates", o.tune_candidates, tilelab::tr("clihelp.candidates"))
        ->check(tilelab::whole_number(1, 10000));
    tune->add_option("--sample", o.tune_sample, tilelab::tr("clihelp.sample"))->check(tilelab::whole_number(0, 10000));
    tune->add_option("--seed", o.seed, tilelab::tr("clihelp.tune_seed"));
    tune->add_option("--gpus", o.gpus, tilelab::tr("clihelp.tune_gpus"));

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
        print_error(tilelab::trf("cli.parse_error", e.what()));
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
        if (*tune) return cmd_tune(o);
        if (*exercise) return cmd_exercise(o);
        if (*drill) return cmd_drill(o);
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
