// Fenced code in the lessons is laid out on a grid of character cells, as its authors aligned it:
// a CJK character takes two cells (East Asian Wide), everything else one. The app's code font has
// no CJK glyphs of its own (it borrows the body font's, which are about 1.7 cells wide, not 2),
// and its borrowed symbols (·, ≥, ⌈) need not be one cell either, so drawn as one string a
// translated comment would push everything after it out of its column. Each run of text that
// follows two or more spaces therefore starts at its own column.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tilelab::gui {

struct CodeSegment {
    std::string text;   // no leading spaces; single spaces inside
    int column = 0;     // the cell it starts at, counting from 0 at the line's start
};

// Cells `text` takes: 2 for each East Asian Wide character (CJK ideographs, kana, hangul, CJK
// punctuation, full-width forms), 1 for any other code point.
int DisplayCells(std::string_view text);

// The segments of one line: split where two or more spaces follow text (and after the indent).
std::vector<CodeSegment> CodeGridLine(std::string_view line);

}  // namespace tilelab::gui
