// Bar charts and heat maps for gui/plot.h: categories on one axis, values as lengths or colours,
// the same widget, axes and tooltips as the figures (gui/plot_layout.h).
#include "plot_layout.h"
#include "ui_common.h"   // Ellipsized
#include "tilelab/i18n.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tilelab::gui::plot {

using namespace layout;

namespace {

// The category, the series and its value under the mouse.
void BarTooltip(const BarChart& chart, const Axis& axis, size_t cat, size_t series) {
    const BarSeries& bs = chart.series[series];
    std::vector<std::pair<ImU32, std::string>> lines{{kTextColor, chart.categories[cat]}};
    std::string value = cat < bs.value_labels.size() ? bs.value_labels[cat] : ValueText(axis.format, bs.values[cat]);
    lines.push_back({bs.color, (bs.name.empty() ? "" : bs.name + ": ") + value});
    Tooltip(lines);
}

// The cell under the mouse: its two categories, its value and its note.
void HeatmapTooltip(const Heatmap& map, size_t cell) {
    const size_t nx = map.x_categories.size(), ix = cell % nx, iy = cell / nx;
    const double v = map.values[cell];
    std::vector<std::pair<ImU32, std::string>> lines{
        {kTextColor, (map.x_label.empty() ? "x" : map.x_label) + " = " + map.x_categories[ix]},
        {kTextColor, (map.y_label.empty() ? "y" : map.y_label) + " = " + map.y_categories[iy]},
    };
    if (std::isfinite(v))
        lines.push_back({kHighlight, (map.value_label.empty() ? "value" : map.value_label) + ": " + ValueText(map.format, v)});
    if (cell < map.cell_notes.size() && !map.cell_notes[cell].empty()) lines.push_back({kDimTextColor, map.cell_notes[cell]});
    Tooltip(lines);
}

// The smallest and largest values a scale can show (lo > hi where there are none).
std::pair<double, double> DataExtent(const std::vector<double>& values, Scale scale) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values)
        if (std::isfinite(v) && !(scale == Scale::Log10 && v <= 0)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    return {lo, hi};
}

}  // namespace

// ==== [SECTION] bars ==========================================================================

namespace {

// The series' swatches and names in a row from `at`.
void DrawBarLegend(ImDrawList* dl, const BarChart& chart, ImVec2 at, float font) {
    for (const BarSeries& s : chart.series) {
        dl->AddRectFilled(ImVec2(at.x, at.y + font * 0.15f), ImVec2(at.x + font * 0.8f, at.y + font * 0.95f), s.color);
        dl->AddText(ImVec2(at.x + font * 1.1f, at.y), kTextColor, s.name.c_str());
        at.x += font * 2.0f + TextWidth(s.name);
    }
}

// The frame's background and border and the axis the bars are measured on: along the bottom for
// horizontal bars, up the left (its label at `left_x`) for vertical ones.
void DrawValueAxis(ImDrawList* dl, const Frame& f, const AxisTicks& ticks, const Axis& axis, bool horizontal, float left_x, float font) {
    dl->AddRectFilled(f.min, f.max, kBackground);
    if (horizontal) {
        DrawXAxis(dl, f, ticks);
        if (!axis.label.empty()) {
            float lw = TextWidth(axis.label);
            dl->AddText(ImVec2((f.min.x + f.max.x - lw) * 0.5f, f.max.y + font * 1.55f), kTextColor, axis.label.c_str());
        }
    } else {
        DrawYAxis(dl, f, ticks, false);
        DrawYLabel(dl, left_x + font * 0.1f, f.min.y, f.max.y, axis.label);
    }
    dl->AddRect(f.min, f.max, kAxisColor);
}

}  // namespace

PlotResult DrawBars(const char* id, ImVec2 size, const BarChart& chart) {
    auto [w, dl, result, font, ui] = BeginPlot(id, size);
    size_t n_cat = chart.categories.size(), n_ser = chart.series.size();

    std::vector<double> values{0};
    for (const BarSeries& s : chart.series) values.insert(values.end(), s.values.begin(), s.values.end());
    Axis axis = chart.value_axis;
    axis.scale = Scale::Linear;   // bars measure length from zero; a log bar would mislead
    Range r = axis.range ? *axis.range : FitRange(values, Scale::Linear, true);

    bool named = std::any_of(chart.series.begin(), chart.series.end(), [](const BarSeries& s) { return !s.name.empty(); });
    bool legend = chart.legend && named && n_ser > 1;
    const float title_x = chart.horizontal ? font * 0.2f : 0.0f;
    const Title title = FitTitle(chart.title, w.max.x - w.min.x - title_x, font);
    float top = title.top;
    if (legend) top += font * 1.4f;
    float cat_width = 0;
    for (const auto& c : chart.categories) cat_width = std::max(cat_width, TextWidth(c));
    AxisTicks vt = MakeTicks(axis, r, chart.horizontal ? 4 : 5);

    Frame f;
    float left, bottom, right = font * 1.5f;
    // Horizontal bars whose names leave them less than three ems (large text in a narrow panel):
    // each name goes above its bar instead of beside it.
    bool names_above = false;
    if (chart.horizontal) {
        right = font * 3.5f;   // room for the value label past the longest bar
        left = cat_width + font * 0.8f;
        names_above = w.max.x - w.min.x - left - right < font * 3;
        if (names_above) left = font * 0.2f;
        bottom = font * 1.6f + (axis.label.empty() ? 0 : font * 1.3f);
    } else {
        left = vt.widest + font * 0.7f + (axis.label.empty() ? 0 : font * 1.5f);
        bottom = font * 1.7f;
    }
    f.min = ImVec2(w.min.x + left, w.min.y + top);
    f.max = ImVec2(w.max.x - right, w.max.y - bottom);
    DrawTitle(dl, ImVec2(w.min.x + (chart.horizontal ? title_x : left), w.min.y + font * 0.1f), title);
    if (f.max.x - f.min.x < font * 3 || f.max.y - f.min.y < font * 2) return result;
    if (legend) DrawBarLegend(dl, chart, ImVec2(f.min.x, w.min.y + top - font * 1.4f), font);
    if (n_cat == 0 || n_ser == 0) {
        DrawEmpty(dl, f.min, f.max, chart.empty_text);
        return result;
    }
    f.xr = r;   // horizontal: values along x
    f.yr = r;   // vertical: values along y
    DrawValueAxis(dl, f, vt, axis, chart.horizontal, w.min.x, font);

    ImVec2 mouse = ImGui::GetIO().MousePos;
    int hover_cat = -1, hover_ser = -1;
    float slot = (chart.horizontal ? f.max.y - f.min.y : f.max.x - f.min.x) / float(n_cat);
    const float name_height = names_above ? font * 1.05f : 0.0f;   // of each slot, above its bars
    float inner = (slot - name_height) * 0.72f, bar = inner / float(n_ser);
    for (size_t c = 0; c < n_cat; ++c) {
        float slot_start = (chart.horizontal ? f.min.y : f.min.x) + slot * float(c);
        // Category label: left of the row or above it (horizontal), or under the group (vertical).
        const std::string& cat = chart.categories[c];
        float cw = TextWidth(cat);
        if (names_above)
            dl->AddText(ImVec2(f.min.x + font * 0.2f, slot_start + font * 0.05f), kTextColor,
                        Ellipsized(cat, f.max.x - f.min.x + right - font * 0.2f).c_str());
        else if (chart.horizontal)
            dl->AddText(ImVec2(f.min.x - font * 0.5f - cw, slot_start + slot * 0.5f - font * 0.5f), kTextColor, cat.c_str());
        else
            dl->AddText(ImVec2(slot_start + slot * 0.5f - cw * 0.5f, f.max.y + font * 0.35f), kTextColor, cat.c_str());
        for (size_t s = 0; s < n_ser; ++s) {
            const BarSeries& bs = chart.series[s];
            if (c >= bs.values.size() || !std::isfinite(bs.values[c])) continue;
            double v = std::clamp(bs.values[c], r.min, r.max);
            ImU32 color = c < bs.bar_colors.size() && bs.bar_colors[c] ? bs.bar_colors[c] : bs.color;
            float b0 = slot_start + name_height + (slot - name_height - inner) * 0.5f + bar * float(s);
            float b1 = b0 + bar - 2 * ui;
            ImVec2 a, b;
            if (chart.horizontal) {
                a = ImVec2(f.X(std::max(0.0, r.min)), b0);
                b = ImVec2(f.X(v), b1);
            } else {
                a = ImVec2(b0, f.Y(v));
                b = ImVec2(b1, f.Y(std::max(0.0, r.min)));
            }
            dl->AddRectFilled(ImVec2(std::min(a.x, b.x), std::min(a.y, b.y)), ImVec2(std::max(a.x, b.x), std::max(a.y, b.y)),
                              color, 2 * ui);
            std::string text = c < bs.value_labels.size() ? bs.value_labels[c] : ValueText(axis.format, bs.values[c]);
            ImVec2 ts = ImGui::CalcTextSize(text.c_str());
            if (chart.horizontal) {
                float tx = b.x + font * 0.3f;
                float ty = (b0 + b1 - ts.y) * 0.5f;
                if (bar >= font * 0.9f || (names_above && n_ser == 1)) dl->AddText(ImVec2(tx, ty), kTextColor, text.c_str());
            } else if (bar >= ts.x * 0.8f || n_ser == 1) {
                dl->AddText(ImVec2((b0 + b1 - ts.x) * 0.5f, a.y - ts.y - 2 * ui), kTextColor, text.c_str());
            }
            bool inside = chart.horizontal ? mouse.y >= b0 && mouse.y <= b1 && mouse.x >= f.min.x && mouse.x <= f.max.x
                                           : mouse.x >= b0 && mouse.x <= b1 && mouse.y >= f.min.y && mouse.y <= f.max.y;
            if (w.hovered && inside) {
                hover_cat = int(c);
                hover_ser = int(s);
            }
        }
    }
    if (hover_cat >= 0) {
        BarTooltip(chart, axis, size_t(hover_cat), size_t(hover_ser));
        result.hovered_series = hover_ser;
        result.hovered_point = hover_cat;
        result.clicked = w.clicked;
    }
    return result;
}

// ==== [SECTION] heatmap =======================================================================

PlotResult DrawHeatmap(const char* id, ImVec2 size, const Heatmap& map) {
    auto [w, dl, result, font, ui] = BeginPlot(id, size);
    size_t nx = map.x_categories.size(), ny = map.y_categories.size();

    Range r = FitRange(map.values, map.scale, false);
    const auto [lo, hi] = DataExtent(map.values, map.scale);
    if (lo <= hi) r = lo < hi ? Range{lo, hi} : Range{lo * 0.9, hi * 1.1 + (hi == 0)};
    auto color_of = [&](double v) {
        double t = Normalize(v, r, map.scale);
        if (map.low_is_good) t = 1 - t;
        Rgb c = ColorMap(t);
        return ImGui::ColorConvertFloat4ToU32(ImVec4(c.r, c.g, c.b, 1));
    };
    auto text_of = [&](double v) { return ValueText(map.format, v); };

    float y_cat_width = 0;
    for (const auto& c : map.y_categories) y_cat_width = std::max(y_cat_width, TextWidth(c));
    Axis legend_axis;
    legend_axis.scale = map.scale;
    legend_axis.format = map.format;
    AxisTicks lt = MakeTicks(legend_axis, r, 5);
    float left = y_cat_width + font * 0.7f + (map.y_label.empty() ? 0 : font * 1.5f);
    const Title title = FitTitle(map.title, w.max.x - w.min.x - left, font);
    const float top = title.top;
    float bottom = font * 1.6f + (map.x_label.empty() ? 0 : font * 1.3f);
    float legend_bar = font * 1.1f;
    float right = font * 1.0f + legend_bar + font * 0.5f + lt.widest + (map.value_label.empty() ? 0 : font * 1.6f);
    ImVec2 a(w.min.x + left, w.min.y + top), b(w.max.x - right, w.max.y - bottom);
    DrawTitle(dl, ImVec2(a.x, w.min.y + font * 0.1f), title);
    if (b.x - a.x < font * 3 || b.y - a.y < font * 2) return result;
    if (nx == 0 || ny == 0 || map.values.size() < nx * ny) {
        DrawEmpty(dl, a, b, tr("plot.no_sweep_yet"));
        return result;
    }
    float cw = (b.x - a.x) / float(nx), ch = (b.y - a.y) / float(ny);
    ImVec2 mouse = ImGui::GetIO().MousePos;
    int hover = -1;
    for (size_t iy = 0; iy < ny; ++iy)
        for (size_t ix = 0; ix < nx; ++ix) {
            // Row 0 at the bottom, so y grows upward like the other plots.
            ImVec2 c0(a.x + cw * float(ix), b.y - ch * float(iy + 1)), c1(c0.x + cw, c0.y + ch);
            double v = map.values[iy * nx + ix];
            bool has = std::isfinite(v) && !(map.scale == Scale::Log10 && v <= 0);
            dl->AddRectFilled(c0, ImVec2(c1.x - 1, c1.y - 1), has ? color_of(v) : kMissingCell);
            if (!has) {
                dl->AddLine(ImVec2(c0.x + cw * 0.3f, c0.y + ch * 0.3f), ImVec2(c1.x - cw * 0.3f, c1.y - ch * 0.3f), kDimTextColor);
                dl->AddLine(ImVec2(c1.x - cw * 0.3f, c0.y + ch * 0.3f), ImVec2(c0.x + cw * 0.3f, c1.y - ch * 0.3f), kDimTextColor);
            } else {
                std::string t = text_of(v);
                ImVec2 ts = ImGui::CalcTextSize(t.c_str());
                if (ts.x < cw - 4 && ts.y < ch - 2) {
                    ImVec4 col = ImGui::ColorConvertU32ToFloat4(color_of(v));
                    float luminance = 0.2126f * col.x + 0.7152f * col.y + 0.0722f * col.z;
                    dl->AddText(ImVec2((c0.x + c1.x - ts.x) * 0.5f, (c0.y + c1.y - ts.y) * 0.5f),
                                luminance > 0.45f ? IM_COL32(10, 10, 10, 255) : IM_COL32(245, 245, 245, 255), t.c_str());
                }
            }
            if (int(ix) == map.highlight_x && int(iy) == map.highlight_y)
                dl->AddRect(ImVec2(c0.x + 1, c0.y + 1), ImVec2(c1.x - 2, c1.y - 2), IM_COL32_WHITE, 0, 0, 3.0f * ui);
            if (w.hovered && mouse.x >= c0.x && mouse.x < c1.x && mouse.y >= c0.y && mouse.y < c1.y) hover = int(iy * nx + ix);
        }
    // Category labels, thinned when they would overlap.
    float last_right = -1e9f;
    for (size_t ix = 0; ix < nx; ++ix) {
        const std::string& t = map.x_categories[ix];
        float tw = TextWidth(t), x = a.x + cw * (float(ix) + 0.5f) - tw * 0.5f;
        if (x < last_right + font * 0.4f) continue;
        dl->AddText(ImVec2(x, b.y + font * 0.35f), kDimTextColor, t.c_str());
        last_right = x + tw;
    }
    float last_top = 1e9f;
    for (size_t iy = 0; iy < ny; ++iy) {
        const std::string& t = map.y_categories[iy];
        float y = b.y - ch * (float(iy) + 0.5f) - font * 0.5f;
        if (y + font > last_top) continue;
        dl->AddText(ImVec2(a.x - font * 0.45f - TextWidth(t), y), kDimTextColor, t.c_str());
        last_top = y;
    }
    if (!map.x_label.empty())
        dl->AddText(ImVec2((a.x + b.x - TextWidth(map.x_label)) * 0.5f, b.y + font * 1.55f), kTextColor, map.x_label.c_str());
    DrawYLabel(dl, w.min.x + font * 0.1f, a.y, b.y, map.y_label);

    // The colour legend: a vertical gradient with the value ticks beside it (none without values).
    if (lo <= hi) {
        ImVec2 l0(b.x + font * 1.0f, a.y), l1(l0.x + legend_bar, b.y);
        const int steps = 48;
        for (int i = 0; i < steps; ++i) {
            double t0 = double(i) / steps, t1 = double(i + 1) / steps;
            double v = Denormalize((t0 + t1) * 0.5, r, map.scale);
            float y0 = l1.y - float(t1) * (l1.y - l0.y), y1 = l1.y - float(t0) * (l1.y - l0.y);
            dl->AddRectFilled(ImVec2(l0.x, y0), ImVec2(l1.x, y1 + 0.5f), color_of(v));
        }
        dl->AddRect(l0, l1, kAxisColor);
        Frame lf;
        lf.min = l0;
        lf.max = l1;
        lf.yr = lf.y2r = r;
        lf.ys = lf.y2s = map.scale;
        // Ticks on the legend's right edge, like a right-hand axis.
        for (size_t i = 0; i < lt.ticks.size(); ++i) {
            float y = lf.Y(lt.ticks[i].value);
            if (y < l0.y - 0.5f || y > l1.y + 0.5f || lt.labels[i].empty()) continue;
            dl->AddLine(ImVec2(l1.x, y), ImVec2(l1.x + font * 0.3f, y), kAxisColor);
            dl->AddText(ImVec2(l1.x + font * 0.45f, y - font * 0.5f), kDimTextColor, lt.labels[i].c_str());
        }
        DrawYLabel(dl, w.max.x - font * 1.2f, a.y, b.y, map.value_label);
    }

    if (hover >= 0) {
        HeatmapTooltip(map, size_t(hover));
        result.hovered_point = hover;
        result.clicked = w.clicked;
    }
    return result;
}

}  // namespace tilelab::gui::plot
