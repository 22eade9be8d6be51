// Small helpers every part of TileLab uses: the engine, the lessons, the CLI and the GUI.
#pragma once
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tilelab {

// ⌈a / b⌉ for a ≥ 0 and b > 0: how many tiles of b cover a.
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

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

}  // namespace tilelab
