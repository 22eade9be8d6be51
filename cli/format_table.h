// Plain-text output: an aligned table, CSV, and the number formats every report shares.
#pragma once
#include <string>
#include <vector>
#include "tilelab/format.h"

namespace tilelab::cli {

enum class Align { Left, Right };

struct Column {
    std::string header;
    Align align = Align::Left;
};

// Columns separated by two spaces, a dashed rule under the header. Widths count characters,
// not bytes, so "×" and "·" in formulas do not shift the columns.
class Table {
public:
    explicit Table(std::vector<Column> columns, bool show_header = true);
    void add_row(std::vector<std::string> cells);   // missing cells are blank
    std::string render(int indent = 0) const;
    bool empty() const { return rows_.empty(); }

private:
    std::vector<Column> columns_;
    std::vector<std::vector<std::string>> rows_;
    bool show_header_;
};

// Number of characters (UTF-8 code points) in `s`.
size_t display_width(const std::string& s);

// CSV lines: tilelab/result_json.h (csv_line), shared with the app's export.

// Number formats; counts and bytes are tilelab/format.h's, shared with the GUI.
using tilelab::format_bytes;
using tilelab::format_count;
std::string fmt_fixed(double v, int decimals);
std::string fmt_ms(double ms);          // 4 significant digits: "15.23", "0.5612"
std::string fmt_pct(double fraction);   // 0.6667 -> "66.7%"
std::string fmt_sci(double v);          // "1.2e-06"

}  // namespace tilelab::cli
