// Internal to the CPU run's PTX reader (ptx_parse.cpp): the text-level helpers it shares with
// nothing else, kept apart so that the reader itself stays one readable file.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tilelab::cpu {

std::string trim(std::string s);
// `s` split at `sep`, outside brackets and braces; each piece trimmed, an empty last one dropped.
std::vector<std::string> split(const std::string& s, char sep);
// Removes // comments and /* */ comments (which NVRTC writes on lines of their own).
std::string strip_comment(const std::string& line, bool& in_block);
// A PTX immediate: decimal, hex (0x), 0f/0d float bits, a trailing U; `ok` false otherwise.
uint64_t parse_immediate(const std::string& t, bool& ok);

}  // namespace tilelab::cpu
