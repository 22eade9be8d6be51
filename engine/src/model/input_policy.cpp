// The shared input policy (input_policy.h): checks and messages every front end uses.
#include "tilelab/input_policy.h"
#include "tilelab/util.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace tilelab {
namespace {

std::string lower(const std::string& s) {
    std::string out = s;
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string trimmed(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if there is none (strict: no
// overlong forms, no encoded surrogates).
size_t utf8_length(const std::string& s, size_t i) { return utf8_sequence_length(s, i); }

// Printable text: a terminal shows it on one line, and a JSON encoder accepts it.
std::string printable(const std::string& s, size_t max_chars, bool& cut) {
    std::string out;
    size_t chars = 0, i = 0;
    cut = false;
    while (i < s.size()) {
        if (chars == max_chars) {
            cut = true;
            break;
        }
        const size_t n = utf8_length(s, i);
        const auto c = static_cast<unsigned char>(s[i]);
        if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
            out += '?';
            ++i;
        } else {
            out.append(s, i, n);
            i += n;
        }
        ++chars;
    }
    return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::string join(const std::vector<std::string>& parts, const char* sep) { return fmt::format("{}", fmt::join(parts, sep)); }

}  // namespace

std::string shortened(const std::string& value, size_t longest) {
    bool cut = false;
    std::string out = printable(value, longest, cut);
    if (!cut) return out;
    out = printable(value, kQuotedValueMax, cut);
    return out + fmt::format("… ({} bytes)", value.size());
}

std::string one_line(const std::string& message) {
    // Bytes are made printable first (no cut), then long words are shortened one by one.
    bool cut = false;
    std::string text = printable(message, std::string::npos, cut);
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] == ' ') {
            out += ' ';
            ++i;
            continue;
        }
        const size_t end = std::min(text.find(' ', i), text.size());
        out += shortened(text.substr(i, end - i), kQuotedPathMax);
        i = end;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

void require_nonempty(const std::string& flag, const std::string& value, const std::string& expected) {
    if (trimmed(value).empty()) throw InputError(fmt::format("{}: the value is empty; give {}", flag, expected));
}

int parse_int_flag(const std::string& flag, const std::string& text, int min, int max) {
    require_nonempty(flag, text, fmt::format("a whole number from {} to {}", min, max));
    const std::string t = trimmed(text);
    long long v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && end == t.data() + t.size() && (v < min || v > max)))
        throw InputError(fmt::format("{}: {} is not between {} and {}", flag, shortened(t), min, max));
    if (ec != std::errc() || end != t.data() + t.size())
        throw InputError(fmt::format("{}: '{}' is not a whole number", flag, shortened(t)));
    return int(v);
}

std::vector<std::string> close_names(const std::string& wanted, const std::vector<std::string>& candidates) {
    const std::string w = lower(trimmed(wanted));
    std::vector<std::pair<size_t, std::string>> scored;
    if (w.empty()) return {};
    for (const auto& c : candidates) {
        const std::string l = lower(c);
        const size_t d = edit_distance(w, l);
        const bool contains = w.size() >= 2 && (l.find(w) != std::string::npos || w.find(l) != std::string::npos);
        if (d <= 2 || contains) scored.emplace_back(contains ? std::min<size_t>(d, 1) : d, c);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto& [score, name] : scored)
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    return out;
}

const Target& require_target(const std::string& key) {
    std::vector<std::string> keys, names;
    for (const auto& t : target_presets()) {
        keys.push_back(t.preset);
        names.push_back(t.preset);
        names.push_back(t.name);
        names.push_back(t.arch_name());
    }
    require_nonempty("--target", key, "a preset (" + join(keys, ", ") + ") or an arch such as sm_90");
    if (const Target* t = find_target(key)) return *t;
    std::string message = fmt::format("unknown target '{}'; the presets are {} (or an arch such as sm_90)", shortened(key),
                                      join(keys, ", "));
    if (const auto close = close_names(key, names); !close.empty())
        message += "; did you mean " + join(close, " or ") + "?";
    throw InputError(message);
}

const ParamSpec& require_param(const Variant& v, const std::string& name) {
    if (const ParamSpec* p = v.param(name)) return *p;
    if (v.params.empty())
        throw InputError(fmt::format("{} has no parameter {} (it has no parameters)", v.id, shortened(name)));
    std::vector<std::string> names;
    for (const auto& p : v.params) names.push_back(p.name);
    const auto close = close_names(name, names);
    if (!close.empty())
        throw InputError(fmt::format("{} has no parameter {}; did you mean {}?", v.id, shortened(name), join(close, " or ")));
    throw InputError(fmt::format("{} has no parameter {}; its parameters are {}", v.id, shortened(name), join(names, ", ")));
}

void check_param_value(const ParamSpec& spec, int value) {
    std::string reason = spec.range_reason(value);
    if (reason.empty()) return;
    // The sentence comes from the declaration; make sure it names the parameter and value.
    if (reason.find(spec.name) == std::string::npos) reason = fmt::format("{}={}: {}", spec.name, value, reason);
    throw InputError(reason);
}

ParamValues parse_sets(const Variant& v, const std::vector<std::string>& sets) {
    ParamValues values;
    for (const auto& text : sets) {
        require_nonempty("--set", text, "NAME=VALUE, e.g. TILE=16");
        std::string name, error;
        int value = 0;
        if (!parse_assignment(text, name, value, error))
            throw InputError(one_line(fmt::format("--set {}: {}", shortened(text), error)));
        check_param_value(require_param(v, name), value);
        values[name] = value;
    }
    return values;
}

Problem parse_size_flag(const std::string& text) {
    require_nonempty("--size", text, "one number (4096) or three (1000x2000x300)");
    Problem p;
    std::string error;
    if (!parse_problem(text, p, error)) throw InputError(one_line(fmt::format("--size {}: {}", shortened(text), error)));
    return p;
}

}  // namespace tilelab
