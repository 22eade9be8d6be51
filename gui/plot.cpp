// Drawing for gui/plot.h. Each Draw* call reserves its rectangle as one ImGui item, lays out
// margins from the font size and the tick labels, draws, then answers hover. The arithmetic
// (ticks, mapping, colours) is in plot_math.cpp.
#include "plot.h"
#include "tilelab/i18n.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tilelab::gui::plot {

// ==== [SECTION] colours and small drawing helpers ============================================

ImU32 Palette(int i) {
    // Okabe–Ito hues, lifted where the original is too dark for a dark background.
    static constexpr std::array<ImU32, 7> colors = {
        IM_COL32(86, 180, 233, 255),   // sky blue
        IM_COL32(230, 159, 0, 255),    // orange
        IM_COL32(0, 190, 140, 255),    // bluish green
        IM_COL32(240, 228, 66, 255),   // yellow
        IM_COL32(204, 121, 167, 255),  // reddish purple
        IM_COL32(235, 110, 40, 255),   // vermillion
        IM_COL32(100, 150, 255, 255),  // blue
    };
    return colors[size_t(((i % 7) + 7) % 7)];
}

ImU32 WithAlpha(ImU32 color, float alpha) {
    unsigned a = unsigned(std::clamp(alpha, 0.0f, 1.0f) * 255.0f + 0.5f);
    return (color & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

void AddRotatedText(ImDrawList* dl, ImVec2 pivot, ImU32 color, const char* text, float angle_deg) {
    // AddText drops glyphs outside the current clip rectangle, judged before we turn them. So the
    // text is laid out where it surely fits (the clip rectangle's top-left corner), then each
    // vertex is moved to the pivot and turned about it.
    const ImVec2 laid_out = dl->GetClipRectMin();
    int first = dl->VtxBuffer.Size;
    dl->AddText(laid_out, color, text);
    float c = std::cos(angle_deg * 3.14159265f / 180.0f), s = std::sin(angle_deg * 3.14159265f / 180.0f);
    // Screen y points down, so a counter-clockwise turn maps (dx, dy) to (dx·c + dy·s, −dx·s + dy·c).
    for (int i = first; i < dl->VtxBuffer.Size; ++i) {
        ImVec2& p = dl->VtxBuffer[i].pos;
        float dx = p.x - laid_out.x, dy = p.y - laid_out.y;
        p = ImVec2(pivot.x + dx * c + dy * s, pivot.y - dx * s + dy * c);
    }
}

void AddDashedLine(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color, float thickness, float dash) {
    float dx = b.x - a.x, dy = b.y - a.y;
    float length = std::sqrt(dx * dx + dy * dy);
    if (length < 1e-3f || dash <= 0) return;
    float ux = dx / length, uy = dy / length;
    for (float t = 0; t < length; t += 2 * dash) {
        float e = std::min(t + dash, length);
        dl->AddLine(ImVec2(a.x + ux * t, a.y + uy * t), ImVec2(a.x + ux * e, a.y + uy * e), color, thickness);
    }
}

void AddMarker(ImDrawList* dl, ImVec2 c, float r, MarkerShape shape, ImU32 color, bool filled, float thickness) {
    switch (shape) {
    case MarkerShape::None: return;
    case MarkerShape::Circle:
        if (filled) dl->AddCircleFilled(c, r, color, 20);
        else dl->AddCircle(c, r, color, 20, thickness);
        return;
    case MarkerShape::Square: {
        ImVec2 a(c.x - r * 0.85f, c.y - r * 0.85f), b(c.x + r * 0.85f, c.y + r * 0.85f);
        if (filled) dl->AddRectFilled(a, b, color);
        else dl->AddRect(a, b, color, 0, 0, thickness);
        return;
    }
    case MarkerShape::Diamond: {
        ImVec2 p[4] = {{c.x, c.y - r * 1.2f}, {c.x + r * 1.2f, c.y}, {c.x, c.y + r * 1.2f}, {c.x - r * 1.2f, c.y}};
        if (filled) dl->AddConvexPolyFilled(p, 4, color);
        else dl->AddPolyline(p, 4, color, ImDrawFlags_Closed, thickness);
        return;
    }
    case MarkerShape::Triangle: {
        ImVec2 p[3] = {{c.x, c.y - r * 1.2f}, {c.x + r * 1.1f, c.y + r * 0.8f}, {c.x - r * 1.1f, c.y + r * 0.8f}};
        if (filled) dl->AddTriangleFilled(p[0], p[1], p[2], color);
        else dl->AddTriangle(p[0], p[1], p[2], color, thickness);
        return;
    }
    }
}

void AddLabel(ImDrawList* dl, ImVec2 pos, ImU32 color, const char* text) {
    ImVec2 size = ImGui::CalcTextSize(text);
    float pad = ImGui::GetFontSize() * 0.2f;
    dl->AddRectFilled(ImVec2(pos.x - pad, pos.y - pad * 0.5f), ImVec2(pos.x + size.x + pad, pos.y + size.y + pad * 0.5f),
                      IM_COL32(16, 17, 22, 210), pad);
    dl->AddText(pos, color, text);
}

namespace {

// ==== [SECTION] layout shared by the three kinds of plot ======================================

float UiScale() { return ImGui::GetFontSize() / 13.0f; }

ImVec2 ResolveSize(ImVec2 size) {
    ImVec2 avail = ImGui::GetContentRegionAvail();
    float min_side = ImGui::GetFontSize() * 6;
    if (size.x <= 0) size.x = std::max(avail.x + size.x, min_side);
    if (size.y <= 0) size.y = std::max(avail.y + size.y, min_side);
    return size;
}

// Reserves the widget as one item and reports hover/click on it.
struct Widget {
    ImVec2 min, max;
    bool hovered = false, clicked = false;
    ImDrawList* dl = nullptr;
};

Widget BeginWidget(const char* id, ImVec2 size) {
    Widget w;
    size = ResolveSize(size);
    w.min = ImGui::GetCursorScreenPos();
    w.max = ImVec2(w.min.x + size.x, w.min.y + size.y);
    ImGui::PushID(id);
    ImGui::InvisibleButton("##plot", size);
    w.hovered = ImGui::IsItemHovered();
    w.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    ImGui::PopID();
    w.dl = ImGui::GetWindowDrawList();
    return w;
}

std::string AxisText(const Axis& axis, double v, const std::string& tick_label) {
    return axis.format ? axis.format(v) : tick_label;
}

std::string ValueText(const std::function<std::string(double)>& format, double v) {
    return format ? format(v) : FormatValue(v);
}

float TextWidth(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }

void DrawTitle(ImDrawList* dl, ImVec2 at, const std::string& title) {
    if (!title.empty()) dl->AddText(at, kTextColor, title.c_str());
}

void DrawEmpty(ImDrawList* dl, ImVec2 min, ImVec2 max, const std::string& text) {
    const std::string& s = text.empty() ? std::string("nothing to plot yet") : text;
    ImVec2 size = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2((min.x + max.x - size.x) * 0.5f, (min.y + max.y - size.y) * 0.5f), kDimTextColor, s.c_str());
}

// The plotting rectangle of a Figure and its data-to-screen mapping.
struct Frame {
    ImVec2 min, max;
    Range xr, yr, y2r;
    Scale xs = Scale::Linear, ys = Scale::Linear, y2s = Scale::Linear;

    bool Valid(double x, double y, bool right) const {
        Scale vs = right ? y2s : ys;
        return std::isfinite(x) && std::isfinite(y) && !(xs == Scale::Log10 && x <= 0) &&
               !(vs == Scale::Log10 && y <= 0);
    }
    float X(double x) const { return min.x + float(Normalize(x, xr, xs)) * (max.x - min.x); }
    float Y(double y, bool right = false) const {
        return max.y - float(Normalize(y, right ? y2r : yr, right ? y2s : ys)) * (max.y - min.y);
    }
    ImVec2 At(double x, double y, bool right = false) const { return ImVec2(X(x), Y(y, right)); }
};

struct AxisTicks {
    std::vector<Tick> ticks;
    std::vector<std::string> labels;   // formatted, "" for unlabelled
    float widest = 0;
};

AxisTicks MakeTicks(const Axis& axis, Range r, int target_count) {
    AxisTicks t;
    if (axis.tick_values.empty()) {
        t.ticks = Ticks(r, axis.scale, target_count);
    } else {
        for (double v : axis.tick_values) t.ticks.push_back({v, FormatTick(v), true});
    }
    for (const Tick& tick : t.ticks) {
        std::string label = tick.label.empty() ? "" : AxisText(axis, tick.value, tick.label);
        t.widest = std::max(t.widest, TextWidth(label));
        t.labels.push_back(std::move(label));
    }
    return t;
}

Range ResolveRange(const Axis& axis, const std::vector<double>& values) {
    if (axis.range) return *axis.range;
    return FitRange(values, axis.scale, axis.include_zero);
}

// Grid, ticks and tick labels for the x axis and one vertical axis (left or right).
void DrawXAxis(ImDrawList* dl, const Frame& f, const AxisTicks& t) {
    float font = ImGui::GetFontSize();
    float last_right = -1e9f;
    for (size_t i = 0; i < t.ticks.size(); ++i) {
        float x = f.X(t.ticks[i].value);
        if (x < f.min.x - 0.5f || x > f.max.x + 0.5f) continue;
        dl->AddLine(ImVec2(x, f.min.y), ImVec2(x, f.max.y), t.ticks[i].major ? kGridColor : kMinorGridColor);
        dl->AddLine(ImVec2(x, f.max.y), ImVec2(x, f.max.y + font * 0.3f), kAxisColor);
        if (t.labels[i].empty()) continue;
        float w = TextWidth(t.labels[i]);
        float left = x - w * 0.5f;
        if (left < last_right + font * 0.5f) continue;   // would overlap its neighbour
        dl->AddText(ImVec2(left, f.max.y + font * 0.35f), kDimTextColor, t.labels[i].c_str());
        last_right = left + w;
    }
}

void DrawYAxis(ImDrawList* dl, const Frame& f, const AxisTicks& t, bool right) {
    float font = ImGui::GetFontSize();
    float last_top = 1e9f;
    for (size_t i = 0; i < t.ticks.size(); ++i) {
        float y = f.Y(t.ticks[i].value, right);
        if (y < f.min.y - 0.5f || y > f.max.y + 0.5f) continue;
        if (!right) dl->AddLine(ImVec2(f.min.x, y), ImVec2(f.max.x, y), t.ticks[i].major ? kGridColor : kMinorGridColor);
        float edge = right ? f.max.x : f.min.x;
        dl->AddLine(ImVec2(edge, y), ImVec2(right ? edge + font * 0.3f : edge - font * 0.3f, y), kAxisColor);
        if (t.labels[i].empty()) continue;
        if (y + font * 0.5f > last_top) continue;
        float w = TextWidth(t.labels[i]);
        float x = right ? edge + font * 0.45f : edge - font * 0.45f - w;
        dl->AddText(ImVec2(x, y - font * 0.5f), kDimTextColor, t.labels[i].c_str());
        last_top = y - font * 0.5f;
    }
}

void DrawYLabel(ImDrawList* dl, float x_left, float y_top, float y_bottom, const std::string& label) {
    if (label.empty()) return;
    float w = TextWidth(label);
    // Turned 90° the text runs bottom to top; the pivot (its top-left before turning) ends up
    // at the bottom-left of the run.
    float y = (y_top + y_bottom + w) * 0.5f;
    AddRotatedText(dl, ImVec2(x_left, y), kTextColor, label.c_str(), 90.0f);
}

struct LegendEntry {
    std::string name;
    ImU32 color;
    MarkerShape marker;
    bool line, dashed;
};

void DrawLegend(ImDrawList* dl, ImVec2 area_min, ImVec2 area_max, const std::vector<LegendEntry>& entries, bool left) {
    if (entries.empty()) return;
    float font = ImGui::GetFontSize();
    float swatch = font * 1.6f, pad = font * 0.4f;
    float width = 0;
    for (const auto& e : entries) width = std::max(width, TextWidth(e.name));
    width += swatch + pad * 3;
    float height = entries.size() * (font + pad * 0.5f) + pad * 1.5f;
    ImVec2 a(left ? area_min.x + pad : area_max.x - width - pad, area_min.y + pad);
    dl->AddRectFilled(a, ImVec2(a.x + width, a.y + height), IM_COL32(16, 17, 22, 215), pad);
    dl->AddRect(a, ImVec2(a.x + width, a.y + height), kGridColor, pad);
    float y = a.y + pad;
    for (const auto& e : entries) {
        float cy = y + font * 0.5f;
        ImVec2 s0(a.x + pad, cy), s1(a.x + pad + swatch, cy);
        if (e.line) {
            if (e.dashed) AddDashedLine(dl, s0, s1, e.color, 2.5f * UiScale(), font * 0.3f);
            else dl->AddLine(s0, s1, e.color, 2.5f * UiScale());
        }
        if (e.marker != MarkerShape::None || !e.line)
            AddMarker(dl, ImVec2((s0.x + s1.x) * 0.5f, cy), font * 0.32f,
                      e.marker == MarkerShape::None ? MarkerShape::Square : e.marker, e.color, true, 1.5f);
        dl->AddText(ImVec2(s1.x + pad, y), kTextColor, e.name.c_str());
        y += font + pad * 0.5f;
    }
}

// A label placed up-right of a point, flipped left/down when it would leave the plot.
void PlacePointLabel(ImDrawList* dl, const Frame& f, ImVec2 p, float r, ImU32 color, const std::string& text) {
    if (text.empty()) return;
    ImVec2 size = ImGui::CalcTextSize(text.c_str());
    ImVec2 at(p.x + r + 4, p.y - r - size.y);
    if (at.x + size.x > f.max.x) at.x = p.x - r - 4 - size.x;
    if (at.y < f.min.y) at.y = p.y + r + 2;
    AddLabel(dl, at, color, text.c_str());
}

void Tooltip(const std::vector<std::pair<ImU32, std::string>>& lines) {
    ImGui::BeginTooltip();
    for (const auto& [color, text] : lines) {
        ImGui::PushStyleColor(ImGuiCol_Text, color);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::EndTooltip();
}

bool Ascending(const std::vector<double>& v) {
    for (size_t i = 1; i < v.size(); ++i)
        if (!(v[i] >= v[i - 1])) return false;
    return !v.empty();
}

}  // namespace

// ==== [SECTION] figures =======================================================================

PlotResult DrawFigure(const char* id, ImVec2 size, const Figure& fig) {
    Widget w = BeginWidget(id, size);
    ImDrawList* dl = w.dl;
    PlotResult result{w.min, w.max, w.hovered};
    float font = ImGui::GetFontSize(), ui = UiScale();

    // Ranges from the data unless the axis fixes them.
    std::vector<double> xs, ys, y2s;
    size_t points = 0;
    for (const Series& s : fig.series) {
        size_t n = std::min(s.x.size(), s.y.size());
        points += n;
        xs.insert(xs.end(), s.x.begin(), s.x.begin() + long(n));
        (s.right_axis ? y2s : ys).insert((s.right_axis ? y2s : ys).end(), s.y.begin(), s.y.begin() + long(n));
    }
    for (const Marker& m : fig.markers) {
        xs.push_back(m.x);
        ys.push_back(m.y);
    }
    Frame f;
    f.xs = fig.x.scale;
    f.ys = fig.y.scale;
    f.xr = ResolveRange(fig.x, xs);
    f.yr = ResolveRange(fig.y, ys);
    if (fig.y2) {
        f.y2s = fig.y2->scale;
        f.y2r = ResolveRange(*fig.y2, y2s);
    }

    // Margins: title above; y tick labels and the rotated y label on the left; x ticks and label below.
    AxisTicks yt = MakeTicks(fig.y, f.yr, 5);
    AxisTicks y2t = fig.y2 ? MakeTicks(*fig.y2, f.y2r, 5) : AxisTicks{};
    float top = fig.title.empty() ? font * 0.7f : font * 1.7f;
    float left = yt.widest + font * 0.7f + (fig.y.label.empty() ? 0 : font * 1.5f);
    float right = fig.y2 ? y2t.widest + font * 0.7f + (fig.y2->label.empty() ? 0 : font * 1.5f) : font * 1.2f;
    float bottom = font * 1.6f + (fig.x.label.empty() ? 0 : font * 1.3f);
    f.min = ImVec2(w.min.x + left, w.min.y + top);
    f.max = ImVec2(w.max.x - right, w.max.y - bottom);
    if (f.max.x - f.min.x < font * 3 || f.max.y - f.min.y < font * 2) return result;   // too small to draw
    int x_tick_target = std::max(2, int((f.max.x - f.min.x) / (font * 6)));
    AxisTicks xt = MakeTicks(fig.x, f.xr, x_tick_target);

    DrawTitle(dl, ImVec2(w.min.x + left, w.min.y + font * 0.1f), fig.title);
    dl->AddRectFilled(f.min, f.max, kBackground);
    DrawXAxis(dl, f, xt);
    DrawYAxis(dl, f, yt, false);
    if (fig.y2) DrawYAxis(dl, f, y2t, true);
    dl->AddRect(f.min, f.max, kAxisColor);
    if (!fig.x.label.empty()) {
        float lw = TextWidth(fig.x.label);
        dl->AddText(ImVec2((f.min.x + f.max.x - lw) * 0.5f, f.max.y + font * 1.55f), kTextColor, fig.x.label.c_str());
    }
    DrawYLabel(dl, w.min.x + font * 0.1f, f.min.y, f.max.y, fig.y.label);
    if (fig.y2) DrawYLabel(dl, w.max.x - font * 1.2f, f.min.y, f.max.y, fig.y2->label);

    if (points == 0 && fig.markers.empty()) {
        DrawEmpty(dl, f.min, f.max, fig.empty_text);
        return result;
    }

    // Everything inside the frame is clipped to it, with room for markers on its edges.
    float edge_room = 8 * ui;
    dl->PushClipRect(ImVec2(f.min.x - edge_room, f.min.y - edge_room), ImVec2(f.max.x + edge_room, f.max.y + edge_room), true);

    for (const Guide& g : fig.guides) {
        Scale scale = g.vertical ? f.xs : f.ys;
        if (!std::isfinite(g.value) || (scale == Scale::Log10 && g.value <= 0)) continue;
        ImVec2 a = g.vertical ? ImVec2(f.X(g.value), f.min.y) : ImVec2(f.min.x, f.Y(g.value));
        ImVec2 b = g.vertical ? ImVec2(f.X(g.value), f.max.y) : ImVec2(f.max.x, f.Y(g.value));
        if (g.dashed) AddDashedLine(dl, a, b, g.color, 1.5f * ui, font * 0.35f);
        else dl->AddLine(a, b, g.color, 1.5f * ui);
        if (!g.label.empty()) {
            if (g.vertical) AddRotatedText(dl, ImVec2(a.x + font * 0.3f, f.max.y - font * 0.3f), g.color, g.label.c_str(), 90.0f);
            else dl->AddText(ImVec2(f.min.x + font * 0.3f, a.y - font * 1.1f), g.color, g.label.c_str());
        }
    }

    // Series: lines broken wherever a point cannot be shown, then markers and labels.
    std::vector<std::vector<ImVec2>> screen(fig.series.size());
    for (size_t si = 0; si < fig.series.size(); ++si) {
        const Series& s = fig.series[si];
        size_t n = std::min(s.x.size(), s.y.size());
        std::vector<ImVec2>& pts = screen[si];
        pts.resize(n, ImVec2(-1e9f, -1e9f));
        std::vector<ImVec2> run;
        float thickness = s.thickness * ui;
        auto flush = [&] {
            if (run.size() >= 2) {
                if (s.dashed)
                    for (size_t i = 1; i < run.size(); ++i) AddDashedLine(dl, run[i - 1], run[i], s.color, thickness, font * 0.4f);
                else
                    dl->AddPolyline(run.data(), int(run.size()), s.color, 0, thickness);
            }
            run.clear();
        };
        for (size_t i = 0; i < n; ++i) {
            if (!f.Valid(s.x[i], s.y[i], s.right_axis)) {
                flush();
                continue;
            }
            pts[i] = f.At(s.x[i], s.y[i], s.right_axis);
            if (s.line) run.push_back(pts[i]);
        }
        flush();
        for (size_t i = 0; i < n; ++i) {
            if (pts[i].x < -1e8f) continue;
            AddMarker(dl, pts[i], s.marker_radius * ui, s.marker, s.color, s.filled_markers, 2.0f * ui);
            if (i < s.point_labels.size()) PlacePointLabel(dl, f, pts[i], s.marker_radius * ui, s.color, s.point_labels[i]);
        }
    }

    for (const Annotation& a : fig.annotations) {
        if (!f.Valid(a.x, a.y, false)) continue;
        ImVec2 anchor = f.At(a.x, a.y);
        ImVec2 size = ImGui::CalcTextSize(a.text.c_str());
        float angle = 0;
        if (a.follow && f.Valid(a.toward_x, a.toward_y, false)) {
            ImVec2 to = f.At(a.toward_x, a.toward_y);
            angle = std::atan2(-(to.y - anchor.y), to.x - anchor.x) * 180.0f / 3.14159265f;
        }
        // Offset of the text's top-left from the anchor before turning, then turned with it.
        float ox = -a.align.x * size.x, oy = -a.align.y * size.y;
        float c = std::cos(angle * 3.14159265f / 180.0f), s = std::sin(angle * 3.14159265f / 180.0f);
        ImVec2 pivot(anchor.x + ox * c + oy * s, anchor.y - ox * s + oy * c);
        AddRotatedText(dl, pivot, a.color, a.text.c_str(), angle);
    }

    std::vector<ImVec2> marker_pts;
    for (const Marker& m : fig.markers) {
        if (!f.Valid(m.x, m.y, false)) {
            marker_pts.push_back(ImVec2(-1e9f, -1e9f));
            continue;
        }
        ImVec2 p = f.At(m.x, m.y);
        marker_pts.push_back(p);
        if (m.drop_lines) {
            AddDashedLine(dl, p, ImVec2(p.x, f.max.y), WithAlpha(m.color, 0.6f), 1.5f * ui, font * 0.3f);
            AddDashedLine(dl, p, ImVec2(f.min.x, p.y), WithAlpha(m.color, 0.6f), 1.5f * ui, font * 0.3f);
        }
        float r = 6.0f * ui;
        dl->AddCircle(p, r * 1.9f, WithAlpha(m.color, 0.55f), 24, 2.0f * ui);
        AddMarker(dl, p, r, m.shape, m.color, m.filled, 2.5f * ui);
        PlacePointLabel(dl, f, p, r * 1.9f, m.color, m.label);
    }
    dl->PopClipRect();

    if (fig.legend) {
        std::vector<LegendEntry> entries;
        for (const Series& s : fig.series)
            if (!s.name.empty()) entries.push_back({s.name, s.color, s.marker, s.line, s.dashed});
        DrawLegend(dl, f.min, f.max, entries, fig.legend_left);
    }

    // Hover: the nearest point within reach, else a read-out of every line at the mouse's x.
    if (!w.hovered) return result;
    ImVec2 mouse = ImGui::GetIO().MousePos;
    float reach = font * 0.9f, best = reach * reach;
    int best_series = -1, best_point = -1, best_marker = -1;
    for (size_t si = 0; si < screen.size(); ++si)
        for (size_t i = 0; i < screen[si].size(); ++i) {
            float dx = screen[si][i].x - mouse.x, dy = screen[si][i].y - mouse.y;
            if (dx * dx + dy * dy < best) {
                best = dx * dx + dy * dy;
                best_series = int(si);
                best_point = int(i);
            }
        }
    for (size_t mi = 0; mi < marker_pts.size(); ++mi) {
        float dx = marker_pts[mi].x - mouse.x, dy = marker_pts[mi].y - mouse.y;
        if (dx * dx + dy * dy < best) {
            best = dx * dx + dy * dy;
            best_marker = int(mi);
            best_series = -1;
        }
    }
    auto x_text = [&](double v) { return (fig.x.label.empty() ? "x" : fig.x.label) + ": " + ValueText(fig.x.format, v); };
    auto y_text = [&](double v, bool right) {
        const Axis& axis = right && fig.y2 ? *fig.y2 : fig.y;
        return (axis.label.empty() ? "y" : axis.label) + ": " + ValueText(axis.format, v);
    };
    if (best_marker >= 0) {
        const Marker& m = fig.markers[size_t(best_marker)];
        std::vector<std::pair<ImU32, std::string>> lines;
        if (!m.label.empty()) lines.push_back({m.color, m.label});
        lines.push_back({kTextColor, x_text(m.x)});
        lines.push_back({kTextColor, y_text(m.y, false)});
        if (!m.note.empty()) lines.push_back({kDimTextColor, m.note});
        Tooltip(lines);
        return result;
    }
    if (best_series >= 0) {
        const Series& s = fig.series[size_t(best_series)];
        size_t i = size_t(best_point);
        dl->AddCircle(screen[size_t(best_series)][i], s.marker_radius * ui * 2.0f, kTextColor, 20, 2.0f * ui);
        std::vector<std::pair<ImU32, std::string>> lines;
        std::string head = !s.name.empty() ? s.name : i < s.point_labels.size() ? s.point_labels[i] : "";
        if (!head.empty()) lines.push_back({s.color, head});
        lines.push_back({kTextColor, x_text(s.x[i])});
        lines.push_back({kTextColor, y_text(s.y[i], s.right_axis)});
        if (i < s.point_notes.size() && !s.point_notes[i].empty()) lines.push_back({kDimTextColor, s.point_notes[i]});
        Tooltip(lines);
        result.hovered_series = best_series;
        result.hovered_point = best_point;
        result.clicked = w.clicked;
        return result;
    }
    if (mouse.x < f.min.x || mouse.x > f.max.x) return result;
    double mx = Denormalize((mouse.x - f.min.x) / (f.max.x - f.min.x), f.xr, f.xs);
    std::vector<std::pair<ImU32, std::string>> lines{{kTextColor, x_text(mx)}};
    for (const Series& s : fig.series) {
        if (!s.line || s.name.empty() || !Ascending(s.x) || mx < s.x.front() || mx > s.x.back()) continue;
        size_t hi = size_t(std::lower_bound(s.x.begin(), s.x.end(), mx) - s.x.begin());
        size_t lo = hi == 0 ? 0 : hi - 1;
        hi = std::min(hi, s.y.size() - 1);
        double t = s.x[hi] == s.x[lo] ? 0 : (mx - s.x[lo]) / (s.x[hi] - s.x[lo]);
        double y = s.y[lo] + t * (s.y[hi] - s.y[lo]);
        lines.push_back({s.color, s.name + "  " + ValueText((s.right_axis && fig.y2 ? *fig.y2 : fig.y).format, y)});
    }
    if (lines.size() > 1) {
        dl->AddLine(ImVec2(mouse.x, f.min.y), ImVec2(mouse.x, f.max.y), WithAlpha(kTextColor, 0.35f), 1.0f);
        Tooltip(lines);
    }
    return result;
}

// ==== [SECTION] bars ==========================================================================

PlotResult DrawBars(const char* id, ImVec2 size, const BarChart& chart) {
    Widget w = BeginWidget(id, size);
    ImDrawList* dl = w.dl;
    PlotResult result{w.min, w.max, w.hovered};
    float font = ImGui::GetFontSize(), ui = UiScale();
    size_t n_cat = chart.categories.size(), n_ser = chart.series.size();

    std::vector<double> values{0};
    for (const BarSeries& s : chart.series) values.insert(values.end(), s.values.begin(), s.values.end());
    Axis axis = chart.value_axis;
    axis.scale = Scale::Linear;   // bars measure length from zero; a log bar would mislead
    Range r = axis.range ? *axis.range : FitRange(values, Scale::Linear, true);

    bool named = std::any_of(chart.series.begin(), chart.series.end(), [](const BarSeries& s) { return !s.name.empty(); });
    bool legend = chart.legend && named && n_ser > 1;
    float top = chart.title.empty() ? font * 0.7f : font * 1.7f;
    if (legend) top += font * 1.4f;
    float cat_width = 0;
    for (const auto& c : chart.categories) cat_width = std::max(cat_width, TextWidth(c));
    AxisTicks vt = MakeTicks(axis, r, chart.horizontal ? 4 : 5);

    Frame f;
    float left, bottom, right = font * 1.5f;
    if (chart.horizontal) {
        left = cat_width + font * 0.8f;
        bottom = font * 1.6f + (axis.label.empty() ? 0 : font * 1.3f);
        right = font * 3.5f;   // room for the value label past the longest bar
    } else {
        left = vt.widest + font * 0.7f + (axis.label.empty() ? 0 : font * 1.5f);
        bottom = font * 1.7f;
    }
    f.min = ImVec2(w.min.x + left, w.min.y + top);
    f.max = ImVec2(w.max.x - right, w.max.y - bottom);
    DrawTitle(dl, ImVec2(w.min.x + (chart.horizontal ? font * 0.2f : left), w.min.y + font * 0.1f), chart.title);
    if (f.max.x - f.min.x < font * 3 || f.max.y - f.min.y < font * 2) return result;
    if (legend) {
        float x = f.min.x;
        for (const BarSeries& s : chart.series) {
            float y = w.min.y + top - font * 1.4f;
            dl->AddRectFilled(ImVec2(x, y + font * 0.15f), ImVec2(x + font * 0.8f, y + font * 0.95f), s.color);
            dl->AddText(ImVec2(x + font * 1.1f, y), kTextColor, s.name.c_str());
            x += font * 2.0f + TextWidth(s.name);
        }
    }
    if (n_cat == 0 || n_ser == 0) {
        DrawEmpty(dl, f.min, f.max, chart.empty_text);
        return result;
    }
    f.xr = r;   // horizontal: values along x
    f.yr = r;   // vertical: values along y
    dl->AddRectFilled(f.min, f.max, kBackground);
    if (chart.horizontal) {
        DrawXAxis(dl, f, vt);
        if (!axis.label.empty()) {
            float lw = TextWidth(axis.label);
            dl->AddText(ImVec2((f.min.x + f.max.x - lw) * 0.5f, f.max.y + font * 1.55f), kTextColor, axis.label.c_str());
        }
    } else {
        DrawYAxis(dl, f, vt, false);
        DrawYLabel(dl, w.min.x + font * 0.1f, f.min.y, f.max.y, axis.label);
    }
    dl->AddRect(f.min, f.max, kAxisColor);

    ImVec2 mouse = ImGui::GetIO().MousePos;
    int hover_cat = -1, hover_ser = -1;
    float slot = (chart.horizontal ? f.max.y - f.min.y : f.max.x - f.min.x) / float(n_cat);
    float inner = slot * 0.72f, bar = inner / float(n_ser);
    for (size_t c = 0; c < n_cat; ++c) {
        float slot_start = (chart.horizontal ? f.min.y : f.min.x) + slot * float(c);
        // Category label: left of the row (horizontal) or under the group (vertical).
        const std::string& cat = chart.categories[c];
        float cw = TextWidth(cat);
        if (chart.horizontal)
            dl->AddText(ImVec2(f.min.x - font * 0.5f - cw, slot_start + slot * 0.5f - font * 0.5f), kTextColor, cat.c_str());
        else
            dl->AddText(ImVec2(slot_start + slot * 0.5f - cw * 0.5f, f.max.y + font * 0.35f), kTextColor, cat.c_str());
        for (size_t s = 0; s < n_ser; ++s) {
            const BarSeries& bs = chart.series[s];
            if (c >= bs.values.size() || !std::isfinite(bs.values[c])) continue;
            double v = std::clamp(bs.values[c], r.min, r.max);
            ImU32 color = c < bs.bar_colors.size() && bs.bar_colors[c] ? bs.bar_colors[c] : bs.color;
            float b0 = slot_start + (slot - inner) * 0.5f + bar * float(s);
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
                if (bar >= font * 0.9f) dl->AddText(ImVec2(tx, ty), kTextColor, text.c_str());
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
        const BarSeries& bs = chart.series[size_t(hover_ser)];
        std::vector<std::pair<ImU32, std::string>> lines{{kTextColor, chart.categories[size_t(hover_cat)]}};
        std::string value = ValueText(axis.format, bs.values[size_t(hover_cat)]);
        if (size_t(hover_cat) < bs.value_labels.size()) value = bs.value_labels[size_t(hover_cat)];
        lines.push_back({bs.color, (bs.name.empty() ? "" : bs.name + ": ") + value});
        Tooltip(lines);
        result.hovered_series = hover_ser;
        result.hovered_point = hover_cat;
        result.clicked = w.clicked;
    }
    return result;
}

// ==== [SECTION] heatmap =======================================================================

PlotResult DrawHeatmap(const char* id, ImVec2 size, const Heatmap& map) {
    Widget w = BeginWidget(id, size);
    ImDrawList* dl = w.dl;
    PlotResult result{w.min, w.max, w.hovered};
    float font = ImGui::GetFontSize(), ui = UiScale();
    size_t nx = map.x_categories.size(), ny = map.y_categories.size();

    Range r = FitRange(map.values, map.scale, false);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;   // the data's own extent
    for (double v : map.values)
        if (std::isfinite(v) && !(map.scale == Scale::Log10 && v <= 0)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
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
    float top = map.title.empty() ? font * 0.7f : font * 1.7f;
    float left = y_cat_width + font * 0.7f + (map.y_label.empty() ? 0 : font * 1.5f);
    float bottom = font * 1.6f + (map.x_label.empty() ? 0 : font * 1.3f);
    float legend_bar = font * 1.1f;
    float right = font * 1.0f + legend_bar + font * 0.5f + lt.widest + (map.value_label.empty() ? 0 : font * 1.6f);
    ImVec2 a(w.min.x + left, w.min.y + top), b(w.max.x - right, w.max.y - bottom);
    DrawTitle(dl, ImVec2(a.x, w.min.y + font * 0.1f), map.title);
    if (b.x - a.x < font * 3 || b.y - a.y < font * 2) return result;
    if (nx == 0 || ny == 0 || map.values.size() < nx * ny) {
        DrawEmpty(dl, a, b, "no sweep yet");
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
        size_t ix = size_t(hover) % nx, iy = size_t(hover) / nx;
        double v = map.values[size_t(hover)];
        std::vector<std::pair<ImU32, std::string>> lines{
            {kTextColor, (map.x_label.empty() ? "x" : map.x_label) + " = " + map.x_categories[ix]},
            {kTextColor, (map.y_label.empty() ? "y" : map.y_label) + " = " + map.y_categories[iy]},
        };
        if (std::isfinite(v)) lines.push_back({kHighlight, (map.value_label.empty() ? "value" : map.value_label) + ": " + text_of(v)});
        if (size_t(hover) < map.cell_notes.size() && !map.cell_notes[size_t(hover)].empty())
            lines.push_back({kDimTextColor, map.cell_notes[size_t(hover)]});
        Tooltip(lines);
        result.hovered_point = hover;
        result.clicked = w.clicked;
    }
    return result;
}

// ==== [SECTION] roofline ======================================================================

Figure RooflineFigure(const Roofline& roof) {
    Figure fig;
    fig.title = roof.title;
    fig.legend = false;
    fig.x.label = tr("plot.intensity_axis");
    fig.x.scale = Scale::Log10;
    fig.y.label = "GFLOP/s";
    fig.y.scale = Scale::Log10;
    fig.empty_text = tr("plot.no_ceilings");
    if (!(roof.peak_gflops > 0) || !(roof.bandwidth_gbps > 0)) return fig;

    double ridge = RooflineRidge(roof.peak_gflops, roof.bandwidth_gbps);
    std::vector<double> intensities{ridge}, gflops{roof.peak_gflops};
    for (const auto& p : roof.points) {
        if (p.intensity > 0) intensities.push_back(p.intensity);
        if (p.gflops > 0) gflops.push_back(p.gflops);
    }
    auto [imin, imax] = std::minmax_element(intensities.begin(), intensities.end());
    Range xr = FitRange({*imin / 3, *imax * 3}, Scale::Log10);
    double low_roof = RooflineAttainable(roof.peak_gflops, roof.bandwidth_gbps, xr.min);
    double gmin = *std::min_element(gflops.begin(), gflops.end());
    // From a whole decade below the lowest point or roof to a little above the compute roof.
    Range yr = FitRange({std::min(low_roof, gmin / 2)}, Scale::Log10);
    yr.max = roof.peak_gflops * 2.5;
    fig.x.range = xr;
    fig.y.range = yr;

    Series roofs;
    roofs.x = {xr.min, ridge, xr.max};
    roofs.y = {low_roof, roof.peak_gflops, roof.peak_gflops};
    roofs.color = IM_COL32(235, 235, 240, 255);
    roofs.thickness = 3.0f;
    fig.series.push_back(roofs);
    Guide ridge_guide;
    ridge_guide.value = ridge;
    ridge_guide.label = trf("plot.ridge", FormatValue(ridge));
    fig.guides.push_back(ridge_guide);

    // The memory-roof label runs along the slope, starting near its low end; the compute-roof
    // label sits right-aligned on top of the flat part.
    double label_x = std::pow(10.0, std::log10(xr.min) + (std::log10(ridge) - std::log10(xr.min)) * 0.04);
    if (!roof.bandwidth_label.empty()) {
        Annotation a;
        a.x = label_x;
        a.y = RooflineAttainable(roof.peak_gflops, roof.bandwidth_gbps, label_x) * 1.15;
        a.text = roof.bandwidth_label;
        a.follow = true;
        a.toward_x = ridge;
        a.toward_y = roof.peak_gflops * 1.15;
        fig.annotations.push_back(a);
    }
    if (!roof.peak_label.empty()) {
        Annotation a;
        a.x = xr.max / 1.15;
        a.y = roof.peak_gflops * 1.12;
        a.text = roof.peak_label;
        a.align = ImVec2(1, 1);
        fig.annotations.push_back(a);
    }

    for (const auto& p : roof.points) {
        if (p.current) {
            Marker m;
            m.x = p.intensity;
            m.y = p.gflops;
            m.label = p.label;
            m.color = p.color;
            m.filled = !p.hollow;
            m.note = p.note;
            fig.markers.push_back(m);
            continue;
        }
        Series s;
        s.x = {p.intensity};
        s.y = {p.gflops};
        s.line = false;
        s.marker = MarkerShape::Circle;
        s.marker_radius = 5.0f;
        s.color = p.color;
        s.filled_markers = !p.hollow;
        s.point_labels = {p.label};
        s.point_notes = {p.note};
        fig.series.push_back(s);
    }
    return fig;
}

}  // namespace tilelab::gui::plot
