#include "code_grid.h"
#include <algorithm>
#include <imgui.h>
#include <imgui_internal.h>   // ImTextCharFromUtf8, as the markdown renderer uses it

namespace tilelab::gui {

namespace {

bool wide(unsigned c) {
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
           (c >= 0xFFE0 && c <= 0xFFE6);
}

}  // namespace

int DisplayCells(std::string_view text) {
    int cells = 0;
    const char* end = text.data() + text.size();
    for (const char* s = text.data(); s < end;) {
        unsigned c = 0;
        s += std::max(1, ImTextCharFromUtf8(&c, s, end));   // ImGui reads a malformed byte as 0 bytes: step one
        cells += wide(c) ? 2 : 1;
    }
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
