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
    // Columns on a terminal: one per character, two for the wide East Asian ones (CJK ideographs,
    // their punctuation and full-width forms), so Chinese cells line up.
    size_t width = 0;
    for (size_t i = 0; i < s.size();) {
        const unsigned char b = static_cast<unsigned char>(s[i]);
        const int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 1;
        char32_t cp = len == 1 ? b : char32_t(b & (0x7F >> len));
        for (int k = 1; k < len && i + size_t(k) < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + size_t(k)]) & 0x3F);
        const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
                          (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                          (cp >= 0xFFE0 && cp <= 0xFFE6);
        width += wide ? 2 : 1;
        i += size_t(len);
    }
    return width;
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
