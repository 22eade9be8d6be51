// Aligned text tables, CSV lines and number formats.
#include "format_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tilelab::cli {

Table::Table(std::vector<Column> columns, bool show_header)
    : columns_(std::move(columns)), show_header_(show_header) {}

void Table::add_row(std::vector<std::string> cells) {
    cells.resize(columns_.size());
    rows_.push_back(std::move(cells));
}

size_t display_width(const std::string& s) {
    // Count every byte that does not continue a multi-byte UTF-8 sequence.
    return size_t(std::count_if(s.begin(), s.end(),
                                [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

static void append_cell(std::string& out, const std::string& text, size_t width, Align align,
                        bool last) {
    const size_t pad = width - std::min(width, display_width(text));
    if (align == Align::Right) out.append(pad, ' ');
    out += text;
    if (align == Align::Left && !last) out.append(pad, ' ');
}

std::string Table::render(int indent) const {
    std::vector<size_t> width(columns_.size(), 0);
    for (size_t c = 0; c < columns_.size(); ++c) {
        if (show_header_) width[c] = display_width(columns_[c].header);
        for (const auto& row : rows_) width[c] = std::max(width[c], display_width(row[c]));
    }
    const std::string margin(size_t(std::max(indent, 0)), ' ');
    std::string out;
    auto emit_row = [&](auto cell_text) {
        std::string line = margin;
        for (size_t c = 0; c < columns_.size(); ++c) {
            if (c > 0) line += "  ";
            append_cell(line, cell_text(c), width[c], columns_[c].align, c + 1 == columns_.size());
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + '\n';
    };
    if (show_header_) {
        emit_row([&](size_t c) { return columns_[c].header; });
        emit_row([&](size_t c) { return std::string(width[c], '-'); });
    }
    for (const auto& row : rows_) emit_row([&](size_t c) { return row[c]; });
    return out;
}

std::string fmt_fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string fmt_ms(double ms) { return fmt::format("{:.4g}", ms); }

std::string fmt_pct(double fraction) {
    const double pct = fraction * 100.0;
    // Whole percentages stay whole ("100%", "50%"); others keep one decimal.
    if (pct == std::floor(pct)) return fmt::format("{:.0f}%", pct);
    return fmt::format("{:.1f}%", pct);
}

std::string fmt_sci(double v) { return fmt::format("{:.2g}", v); }

}  // namespace tilelab::cli
