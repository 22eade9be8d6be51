// Parameter ranges, problem sizes and NAME=VALUE assignments: parsing with one-sentence errors.
#include "tilelab/params.h"
#include "tilelab/i18n.h"
#include "tilelab/precision.h"
#include "tilelab/util.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>

namespace tilelab {
namespace {

bool is_power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

// Whole-string integer parse: "12" yes, "12x", "", "+" no.
template <typename Int>
bool parse_int(const std::string& s, Int& out) {
    if (s.empty()) return false;
    const char* first = s.data();
    if (*first == '+') ++first;  // from_chars rejects a leading '+', people type it
    auto [end, ec] = std::from_chars(first, s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

}  // namespace

std::vector<int> ParamSpec::values() const {
    std::vector<int> out;
    switch (kind) {
    case ParamKind::Bool:
        out = {0, 1};
        break;
    case ParamKind::Pow2:
        for (long long v = 1; v <= max; v *= 2)
            if (v >= min) out.push_back(int(v));
        break;
    case ParamKind::Int:
        for (long long v = min; v <= max; v += (step > 0 ? step : 1)) out.push_back(int(v));
        break;
    case ParamKind::Element:
        for (int v = std::max(min, 0); v <= max && v <= int(ElementType::f16); ++v) out.push_back(v);
        break;
    }
    return out;
}

std::string ParamSpec::value_text(int v) const {
    if (!choices.empty() && v >= min && v - min < int(choices.size())) return choices[size_t(v - min)];
    if (kind == ParamKind::Element && v >= 0 && v <= int(ElementType::f16)) return element_name(ElementType(v));
    return std::to_string(v);
}

const std::string& ParamSpec::shown_label() const {
    return language() == Language::Chinese && !label_zh.empty() ? label_zh : label;
}
const std::string& ParamSpec::shown_help() const {
    return language() == Language::Chinese && !help_zh.empty() ? help_zh : help;
}

std::string ParamSpec::range_reason(int v) const {
    switch (kind) {
    case ParamKind::Bool:
        if (v == 0 || v == 1) return {};
        return say("{}={} must be 0 or 1.", "{}={} 只能是 0 或 1。", name, v);
    case ParamKind::Pow2:
        if (is_power_of_two(v) && v >= min && v <= max) return {};
        return say("{}={} is not a power of two between {} and {}.", "{}={} 不是 {} 到 {} 之间的 2 的幂。", name, v, min, max);
    case ParamKind::Int: {
        int s = step > 0 ? step : 1;
        if (!choices.empty() && (v < min || v > max)) {
            std::string names;
            for (int c : values()) names += (names.empty() ? "" : ", ") + value_text(c);
            return say("{}={} is not one of {}.", "{}={} 不是 {} 之一。", name, v, names);
        }
        if (v < min || v > max)
            return say("{}={} is not between {} and {}.", "{}={} 不在 {} 到 {} 之间。", name, v, min, max);
        if ((v - min) % s != 0)
            return say("{}={} is not one of {}, {}, ... {} (steps of {}).", "{}={} 不是 {}, {}, ... {}（步长 {}）中的值。",
                       name, v, min, min + s, max, s);
        return {};
    }
    case ParamKind::Element: {
        const std::vector<int> legal = values();
        if (std::find(legal.begin(), legal.end(), v) != legal.end()) return {};
        std::string names;
        for (int e : legal) names += (names.empty() ? "" : ", ") + value_text(e);
        return say("{}={} is not one of {}.", "{}={} 不是 {} 之一。", name, value_text(v), names);
    }
    }
    return {};
}

bool parse_problem(const std::string& raw, Problem& out, std::string& error) {
    // Full-width digits and × as typed in Chinese ("１０２４×１０２４×６４") read as "1024x1024x64".
    std::string text = ascii_forms(raw);
    for (size_t at; (at = text.find("\u00D7")) != std::string::npos;) text.replace(at, 2, "x");
    text = trim(text);
    if (text.empty()) {
        error = say("The problem size is empty; give one number (4096) or three (1000x2000x300).",
                    "问题规模为空：请给一个数（4096）或三个数（1000x2000x300）。");
        return false;
    }
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == 'x' || text[i] == 'X') {
            parts.push_back(trim(text.substr(start, i - start)));
            start = i + 1;
        }
    }
    if (parts.size() != 1 && parts.size() != 3) {
        error = say("Size '{}' needs one number (4096) or three (1000x2000x300).", "规模“{}”需要一个数（4096）或三个数（1000x2000x300）。", text);
        return false;
    }
    std::array<int64_t, 3> dim{};
    for (size_t i = 0; i < parts.size(); ++i) {
        int64_t v = 0;
        if (!parse_int(parts[i], v)) {
            error = say("Size '{}' is not a number.", "规模“{}”不是数字。", text);
            return false;
        }
        if (v <= 0) {
            error = say("Size '{}' must be positive.", "规模“{}”必须为正数。", text);
            return false;
        }
        dim[i] = v;
    }
    if (parts.size() == 1) dim = {dim[0], dim[0], dim[0]};
    out.dim = dim;
    return true;
}

std::string format_problem(const Problem& p) {
    if (p.dim[0] == p.dim[1] && p.dim[1] == p.dim[2]) return std::to_string(p.dim[0]);
    return fmt::format("{}x{}x{}", p.dim[0], p.dim[1], p.dim[2]);
}

std::string format_options(const FamilyOptions& o) {
    std::string s;
    for (const auto& [name, value] : o) s += fmt::format("{}{}={}", s.empty() ? "" : ", ", name, value);
    return s;
}

bool parse_assignment(const std::string& raw, std::string& name, int& value, std::string& error) {
    std::string text = trim(ascii_forms(raw));   // "ＴＩＬＥ＝３２" as typed in full-width mode
    size_t eq = text.find('=');
    if (eq == std::string::npos) {
        error = fmt::format("'{}' is not of the form NAME=VALUE (e.g. TILE=32).", text);
        return false;
    }
    std::string n = trim(text.substr(0, eq));
    std::string v = trim(text.substr(eq + 1));
    if (!is_identifier(n)) {
        error = fmt::format("'{}' is not a parameter name (letters, digits and _).", n);
        return false;
    }
    std::string lower;
    for (char c : v) lower += char(std::tolower(static_cast<unsigned char>(c)));
    int parsed = 0;
    if (lower == "true" || lower == "on" || lower == "yes") {
        parsed = 1;
    } else if (lower == "false" || lower == "off" || lower == "no") {
        parsed = 0;
    } else if (const auto element = parse_element(lower)) {
        parsed = int(*element);
    } else if (const auto choice = find_choice(n, lower)) {
        parsed = *choice;
    } else if (!parse_int(v, parsed)) {
        error = fmt::format("{}={}: '{}' is not a whole number.", n, v, v);
        return false;
    }
    name = n;
    value = parsed;
    return true;
}

int param_or(const ParamValues& p, const std::string& name, int fallback) {
    const auto it = p.find(name);
    return it == p.end() ? fallback : it->second;
}

ParamValues with_defaults(const std::vector<ParamSpec>& specs, const ParamValues& overrides) {
    ParamValues out;
    for (const auto& s : specs) out[s.name] = s.def;
    // Unknown names are kept, not dropped, so that the caller can report them.
    for (const auto& [name, value] : overrides) out[name] = value;
    return out;
}

}  // namespace tilelab
