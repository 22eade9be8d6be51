// The input policy (input_policy.h) applied to CLI11 command lines: shared by tilelab-cli and the
// app, so that both parse flags the same way. Header-only; include it only where CLI11 is used.
#pragma once
#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <string_view>
#include "tilelab/i18n.h"
#include "tilelab/input_policy.h"

namespace tilelab {

// The language before the parser is built, so that --help and flag errors are in it: the
// locale's, then that of --lang LANG or --lang=LANG (the parser checks the flag again).
inline void set_language_from_command_line(int argc, char** argv) {
    set_language(language_from_locale());
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        Language lang;
        if (arg == "--lang" && i + 1 < argc && parse_language(argv[i + 1], lang)) set_language(lang);
        else if (arg.rfind("--lang=", 0) == 0 && parse_language(arg.substr(7), lang)) set_language(lang);
    }
}

// A whole number in [min, max], with a message that says which of the two is wrong (CLI11's
// Range calls "abc" "not in range"). CLI11 prefixes the flag's name.
inline CLI::Validator whole_number(int min, int max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            try {
                parse_int_flag("", text, min, max);
                return {};
            } catch (const InputError& e) {
                const std::string why = e.what();
                return why.rfind(": ", 0) == 0 ? why.substr(2) : why;
            }
        },
        "INT in [" + std::to_string(min) + " - " + std::to_string(max) + "]");
}

// Every option that was given must have a value: "--size ''" is a mistake, not "the default".
// Throws InputError naming the first option given an empty value.
inline void refuse_empty_values(const CLI::App* app) {
    for (const CLI::Option* opt : app->get_options()) {
        if (opt->count() == 0 || opt->get_type_size() == 0) continue;   // not given, or a flag
        const auto& results = opt->results();
        const bool empty = results.empty() || std::any_of(results.begin(), results.end(), [](const std::string& r) {
                               return r.find_first_not_of(" \t") == std::string::npos;
                           });
        if (empty) throw InputError((opt->get_name().empty() ? "a value" : opt->get_name()) + ": the value is empty");
    }
    for (const CLI::App* sub : app->get_subcommands()) refuse_empty_values(sub);
}

}  // namespace tilelab
