// Small helpers every part of TileLab uses: the engine, the lessons, the CLI and the GUI.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tilelab {

// ⌈a / b⌉ for a ≥ 0 and b > 0: how many tiles of b cover a.
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Wall milliseconds since `start` (a steady_clock time point).
inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The environment variable `name` is set to exactly `value`.
inline bool env_equals(const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v != nullptr && std::string_view(v) == value;
}

// Line `n` (1-based) of `text`, without its newline; "" past the end.
inline std::string text_line(const std::string& text, int n) {
    size_t start = 0;
    for (int i = 1; i < n; ++i) {
        start = text.find('\n', start);
        if (start == std::string::npos) return "";
        ++start;
    }
    if (n < 1 || start > text.size()) return "";
    return text.substr(start, text.find('\n', start) - start);
}

// `s` without leading and trailing whitespace (as std::isspace counts it).
inline std::string trim(std::string_view s) {
    constexpr std::string_view space = " \t\n\v\f\r";  // what std::isspace calls space
    const size_t first = s.find_first_not_of(space);
    if (first == std::string_view::npos) return {};
    return std::string(s.substr(first, s.find_last_not_of(space) - first + 1));
}

// The pieces of `s` between `sep`s, as std::getline cuts them (a trailing separator adds no empty
// piece), untrimmed.
inline std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::istringstream in(s);
    std::string piece;
    while (std::getline(in, piece, sep)) out.push_back(piece);
    return out;
}

// Length of the well-formed UTF-8 sequence starting at s[i] (1 to 4), or 0 where none starts:
// a stray continuation byte, a cut sequence, an overlong form (C0 80, E0 80 80, F0 80 80 80), an
// encoded surrogate (ED A0 80 to ED BF BF) or a code point past U+10FFFF (Unicode's table 3-7).
inline size_t utf8_sequence_length(std::string_view s, size_t i) {
    const auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = at(0);
    if (c < 0x80) return 1;
    const size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    // The second byte's range depends on the first; every later byte is 80..BF.
    const unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (at(1) < lo || at(1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if ((at(k) & 0xC0) != 0x80) return 0;
    return n;
}

// `s` with what a Chinese or Japanese input method types in its full-width mode written as the
// ASCII it stands for: U+FF01–U+FF5E ('１０２４', 'ｘ', '＝') as '!'–'~', the ideographic space
// U+3000 as ' '. Everything else, malformed bytes included, is kept as it is.
inline std::string ascii_forms(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        const auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
        if (i + 3 <= s.size() && at(0) == 0xEF && (at(1) == 0xBC || at(1) == 0xBD) && (at(2) & 0xC0) == 0x80) {
            const unsigned code = 0xF000u + ((at(1) & 0x3Fu) << 6) + (at(2) & 0x3Fu);   // EF BC 81 = U+FF01
            if (code >= 0xFF01 && code <= 0xFF5E) {
                out += char(code - 0xFF01 + 0x21);
                i += 3;
                continue;
            }
        }
        if (s.substr(i, 3) == "\xE3\x80\x80") {
            out += ' ';
            i += 3;
            continue;
        }
        out += s[i++];
    }
    return out;
}

// Whether every byte of `s` belongs to a well-formed UTF-8 sequence (utf8_sequence_length).
inline bool valid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8_sequence_length(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

}  // namespace tilelab
