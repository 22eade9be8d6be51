// One input policy for every front end (tilelab-cli, the app, the app's --headless runs): the
// same checks, the same one-line reasons and the same exit codes for the same bad input.
// Whatever a user types is invalid rather than silently replaced: an empty value is an error,
// never "the default"; a target name matches exactly (ignoring case) or not at all; a value
// quoted back in a message is shortened so a 100 kB argument costs one line, not three screens.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>
#include "tilelab/params.h"
#include "tilelab/target.h"
#include "tilelab/variant.h"

namespace tilelab {

// Exit codes shared by every executable; scripts and tests rely on them.
enum ExitCode : int {
    kExitOk = 0,
    kExitFailed = 1,        // something failed at run time: a launch, a CUDA call, an output file
    kExitInvalidInput = 2,  // the input is wrong: an unknown name, a value out of range, an empty value
    kExitNoGpu = 3,         // the command needs a GPU and there is none (model mode)
    kExitValidation = 4,    // the kernel ran but its output did not match the reference
    kExitCompile = 5,       // NVRTC/ptxas rejected the kernel
};

// Bad input: what() is one sentence naming the input and what is wrong with it.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Longer values are cut to this many characters in messages, followed by their length.
constexpr size_t kQuotedValueMax = 60;
// File paths are names the user needs whole to act on: only absurd ones are cut (to the above).
constexpr size_t kQuotedPathMax = 300;

// `value` as it may appear in a one-line message: control bytes and bytes that are not UTF-8
// shown as '?', and cut to kQuotedValueMax characters plus "… (N bytes)" when longer than
// `longest` characters.
std::string shortened(const std::string& value, size_t longest = kQuotedValueMax);
// A path in a message: whole unless longer than kQuotedPathMax.
inline std::string shortened_path(const std::string& path) { return shortened(path, kQuotedPathMax); }
// A whole message made fit for one line: newlines become spaces and every run of more than
// kQuotedPathMax non-space characters is shortened (messages of libraries such as CLI11 quote
// arguments whole; our own messages quote values through shortened()).
std::string one_line(const std::string& message);

// Throws InputError("<flag>: the value is empty; ...") when `value` is empty or only spaces.
void require_nonempty(const std::string& flag, const std::string& value, const std::string& expected);

// A whole number written in full ("12", "-3"), nothing before or after it, within [min, max].
// Throws InputError naming `flag` otherwise ("--reps: 'abc' is not a whole number").
int parse_int_flag(const std::string& flag, const std::string& text, int min, int max);

// Like find_target (exact, ignoring case), but an unknown or empty key throws InputError that names the
// presets and, where one is close, asks "did you mean ...?".
const Target& require_target(const std::string& key);

// The names in `candidates` close to `wanted` (case-insensitive edit distance ≤ 2, or one
// contains the other), best first.
std::vector<std::string> close_names(const std::string& wanted, const std::vector<std::string>& candidates);

// Parameter input checked against a variant's declaration.
const ParamSpec& require_param(const Variant& v, const std::string& name);
void check_param_value(const ParamSpec& spec, int value);
// "--set NAME=VALUE" texts (each non-empty, a declared parameter, a value in its range).
ParamValues parse_sets(const Variant& v, const std::vector<std::string>& sets);
// "--size": non-empty, one number or three, each positive.
Problem parse_size_flag(const std::string& text);

}  // namespace tilelab
