#include "code_grid.h"

namespace tilelab::gui {

namespace {

bool wide(unsigned c) {
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
           (c >= 0xFFE0 && c <= 0xFFE6);
}

// The code point starting at text[i] and the bytes it takes (a malformed byte counts as one).
unsigned decode(std::string_view text, size_t i, size_t& bytes) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned lead = byte(i);
    bytes = lead < 0x80 ? 1 : lead >> 5 == 0x6 ? 2 : lead >> 4 == 0xE ? 3 : lead >> 3 == 0x1E ? 4 : 1;
    if (i + bytes > text.size()) bytes = 1;
    if (bytes == 1) return lead;
    unsigned c = lead & (0x7Fu >> bytes);
    for (size_t k = 1; k < bytes; ++k) c = c << 6 | (byte(i + k) & 0x3Fu);
    return c;
}

}  // namespace

int DisplayCells(std::string_view text) {
    int cells = 0;
    for (size_t i = 0, bytes = 0; i < text.size(); i += bytes) cells += wide(decode(text, i, bytes)) ? 2 : 1;
    return cells;
}

std::vector<CodeSegment> CodeGridLine(std::string_view line) {
    std::vector<CodeSegment> segments;
    int column = 0;
    size_t i = 0;
    while (i < line.size()) {
        size_t spaces = 0;
        while (i + spaces < line.size() && line[i + spaces] == ' ') ++spaces;
        column += int(spaces);
        i += spaces;
        if (i >= line.size()) break;
        // The segment runs to the next run of two spaces (or the end); single spaces stay in it.
        size_t end = i;
        while (end < line.size() && !(line[end] == ' ' && end + 1 < line.size() && line[end + 1] == ' ')) ++end;
        std::string_view text = line.substr(i, end - i);
        while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
        segments.push_back({std::string(text), column});
        column += DisplayCells(line.substr(i, end - i));
        i = end;
    }
    return segments;
}

}  // namespace tilelab::gui
