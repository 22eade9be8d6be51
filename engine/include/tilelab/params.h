// Parameters of a variant: declared once, read by the GUI's sliders, the CLI's flags,
// the tests' sweeps and the docs' tables.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilelab {

// Parameter values by name. Booleans are 0/1.
using ParamValues = std::map<std::string, int>;

enum class ParamKind {
    Int,   // min..max in steps of `step`
    Pow2,  // powers of two from min to max
    Bool,  // 0 or 1
    // An element type (tilelab/precision.h's ElementType, min..max in its order: fp32, tf32,
    // bf16, fp16): precision as a parameter. Shown and typed by name (PREC=bf16).
    Element,
};

// Declared with designated initialisers ({.name = "TILE", .kind = ParamKind::Int, .min = 4, ...}),
// so that no two numbers can swap places. The words (label, help, and their translations) come
// from the lesson's strings files (the registry fills them) unless the declaration gives them.
struct ParamSpec {
    std::string name{};   // as used on the command line: TILE, BM, FLOAT4 ...
    std::string label{};  // as shown in the GUI: "Tile size"
    ParamKind kind = ParamKind::Int;
    int min = 0;
    int max = 0;
    int step = 1;
    int def = 0;
    std::string help{};  // one line: what this parameter trades
    // Words for the values min..max of an Int parameter that picks one of several things
    // (lesson 19's FILTER_IN: immediate, constant, global, shared): shown and typed by name
    // (FILTER_IN=shared; the number works too). Lowercase identifiers; a parameter name that
    // several variants use has the same words in all of them (tests/cpu/test_registry.cpp).
    std::vector<std::string> choices{};
    std::string label_zh{}, help_zh{};   // the same in Simplified Chinese ("" = shown in English)
    // false: the parameter sets what the kernel computes (lesson 20's STEPS, attention's CAUSAL),
    // not how; the autotuner keeps it fixed unless it is asked for by name (tilelab/tune.h).
    bool tuned = true;
    // Whether the autotuner searches it when not told which to search: `tuned`, and not an element
    // type (PREC), which sets what is computed too — and what it is compared with (cuBLAS at that
    // precision).
    bool searched_by_default() const { return tuned && kind != ParamKind::Element; }

    // label / help in the current language (tilelab/i18n.h), English where no translation exists.
    const std::string& shown_label() const;
    const std::string& shown_help() const;

    // Every value the parameter may take, in increasing order.
    std::vector<int> values() const;
    // A value as the UI and the CLI show it: "128", or "bf16" for an element type.
    std::string value_text(int v) const;
    // Empty if `v` is one of values(); otherwise a sentence saying why not.
    std::string range_reason(int v) const;
};

// The problem a variant runs on. Its meaning belongs to the family:
// matmul: dim = {M, N, K}; stencil: dim = {Nx, Ny, Nz}.
struct Problem {
    std::array<int64_t, 3> dim{0, 0, 0};
    bool operator==(const Problem&) const = default;
};

// "4096" -> {4096,4096,4096}; "1000x2000x300" -> {1000,2000,300}.
// Returns false and sets `error` on bad input.
bool parse_problem(const std::string& text, Problem& out, std::string& error);
std::string format_problem(const Problem& p);  // "1000x2000x300" or "4096"

// What a kernel computes beyond its sizes and element types, as its family reads it: named
// values a variant declares from its parameters (attention's "causal" mask: 1 = each query sees
// only the keys up to its own row). Empty for most kernels. The family's shape says which names
// it takes (FamilyShape::options_invalid_reason); its halves build the reference to match.
using FamilyOptions = std::map<std::string, int>;
// "" or "causal=1, …" in name order, as keys and messages show them.
std::string format_options(const FamilyOptions& o);

// "TILE=32" -> ("TILE", 32); "PREC=bf16" -> ("PREC", the element type's value); on/off, yes/no
// and true/false -> 1/0. Returns false and sets `error` on bad input.
// A value may be a number, on/off, an element type (bf16) or one of the choice words that some
// registered variant's parameter of that name declares (FILTER_IN=shared).
bool parse_assignment(const std::string& text, std::string& name, int& value, std::string& error);
// The value the choice word `word` stands for in the registered variants' parameter `param`
// (ParamSpec::choices); nullopt when none declares it. Defined with the registry.
std::optional<int> find_choice(const std::string& param, const std::string& word);

// The value of `name` in `p`, or `fallback` where `p` does not set it.
int param_or(const ParamValues& p, const std::string& name, int fallback);

// Defaults of every parameter, overridden by `overrides`.
ParamValues with_defaults(const std::vector<ParamSpec>& specs, const ParamValues& overrides);

}  // namespace tilelab
