// Drawing for gui/plot.h. Each Draw* call reserves its rectangle as one ImGui item, lays out
// margins from the font size and the tick labels, draws, then answers hover. The arithmetic
// (ticks, mapping, colours) is in plot_math.cpp.
#include "plot_layout.h"
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

// `origin` + (dx, dy) turned counter-clockwise by the angle whose cosine and sine are c and s.
// Screen y points down, so the turn maps (dx, dy) to (dx·c + dy·s, −dx·s + dy·c).
static ImVec2 Turned(ImVec2 origin, float dx, float dy, float c, float s) {
    return ImVec2(origin.x + dx * c + dy * s, origin.y - dx * s + dy * c);
}

void AddRotatedText(ImDrawList* dl, ImVec2 pivot, ImU32 color, const char* text, float angle_deg) {
    // AddText drops glyphs outside the current clip rectangle, judged before we turn them. So the
    // text is laid out where it surely fits (the clip rectangle's top-left corner), then each
    // vertex is moved to the pivot and turned about it.
    const ImVec2 laid_out = dl->GetClipRectMin();
    int first = dl->VtxBuffer.Size;
    dl->AddText(laid_out, color, text);
    float c = std::cos(angle_deg * 3.14159265f / 180.0f), s = std::sin(angle_deg * 3.14159265f / 180.0f);
    for (int i = first; i < dl->VtxBuffer.Size; ++i) {
        ImVec2& p = dl->VtxBuffer[i].pos;
        p = Turned(pivot, p.x - laid_out.x, p.y - laid_out.y, c, s);
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

using namespace layout;


// ==== [SECTION] figures =======================================================================

namespace {

// Ranges from the data unless the axis fixes them, the margins around the frame, the axes and
// their labels; `points`: how many points the series hold. False when the widget is too small.
bool LayOutFigure(ImDrawList* dl, const Widget& w, const Figure& fig, Frame& f, size_t& points) {
    float font = ImGui::GetFontSize();
    std::vector<double> xs, ys, y2s;
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
    float left = yt.widest + font * 0.7f + (fig.y.label.empty() ? 0 : font * 1.5f);
    const Title title = FitTitle(fig.title, w.max.x - w.min.x - left, font);
    const float top = title.top;
    float right = fig.y2 ? y2t.widest + font * 0.7f + (fig.y2->label.empty() ? 0 : font * 1.5f) : font * 1.2f;
    float bottom = font * 1.6f + (fig.x.label.empty() ? 0 : font * 1.3f);
    f.min = ImVec2(w.min.x + left, w.min.y + top);
    f.max = ImVec2(w.max.x - right, w.max.y - bottom);
    if (f.max.x - f.min.x < font * 3 || f.max.y - f.min.y < font * 2) return false;   // too small to draw
    int x_tick_target = std::max(2, int((f.max.x - f.min.x) / (font * 6)));
    AxisTicks xt = MakeTicks(fig.x, f.xr, x_tick_target);

    DrawTitle(dl, ImVec2(w.min.x + left, w.min.y + font * 0.1f), title);
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

    return true;
}

void DrawGuides(ImDrawList* dl, const Frame& f, const Figure& fig) {
    float font = ImGui::GetFontSize(), ui = UiScale();
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
}

// Lines broken wherever a point cannot be shown, then markers and labels; returns every point's
// place on the screen (off-screen where it cannot be shown), for the hover.
std::vector<std::vector<ImVec2>> DrawSeries(ImDrawList* dl, const Frame& f, const Figure& fig) {
    float font = ImGui::GetFontSize(), ui = UiScale();
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

    return screen;
}

// The annotations; returns the box each one covers (a turned one's upright bounding box).
std::vector<layout::TextBox> DrawAnnotations(ImDrawList* dl, const Frame& f, const Figure& fig) {
    std::vector<layout::TextBox> boxes;
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
        const ImVec2 pivot = Turned(anchor, ox, oy, c, s);
        AddRotatedText(dl, pivot, a.color, a.text.c_str(), angle);
        layout::TextBox box{pivot, pivot};
        for (const ImVec2 corner : {ImVec2(size.x, 0), ImVec2(0, size.y), size}) {
            const ImVec2 q = Turned(pivot, corner.x, corner.y, c, s);
            box.first = ImVec2(std::min(box.first.x, q.x), std::min(box.first.y, q.y));
            box.second = ImVec2(std::max(box.second.x, q.x), std::max(box.second.y, q.y));
        }
        boxes.push_back(box);
    }
    return boxes;
}

// The figure's markers, each with a halo, drop lines and label; returns their places.
std::vector<ImVec2> DrawMarkers(ImDrawList* dl, const Frame& f, const Figure& fig, std::vector<layout::TextBox>& taken) {
    float font = ImGui::GetFontSize(), ui = UiScale();
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
        PlacePointLabel(dl, f, p, r * 1.9f, m.color, m.label, &taken);
    }
    return marker_pts;
}

// Hover: the nearest point within reach, else a read-out of every line at the mouse's x.
void HoverFigure(PlotResult& result, const Widget& w, const Frame& f, const Figure& fig,
                 const std::vector<std::vector<ImVec2>>& screen, const std::vector<ImVec2>& marker_pts) {
    ImDrawList* dl = w.dl;
    float font = ImGui::GetFontSize(), ui = UiScale();
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
        return;
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
        return;
    }
    if (mouse.x < f.min.x || mouse.x > f.max.x) return;
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
}

}  // namespace

PlotResult DrawFigure(const char* id, ImVec2 size, const Figure& fig) {
    auto [w, dl, result, font, ui] = BeginPlot(id, size);
    Frame f;
    size_t points = 0;
    if (!LayOutFigure(dl, w, fig, f, points)) return result;
    if (points == 0 && fig.markers.empty()) {
        DrawEmpty(dl, f.min, f.max, fig.empty_text);
        return result;
    }
    // Everything inside the frame is clipped to it, with room for markers on its edges.
    float edge_room = 8 * UiScale();
    dl->PushClipRect(ImVec2(f.min.x - edge_room, f.min.y - edge_room), ImVec2(f.max.x + edge_room, f.max.y + edge_room), true);
    DrawGuides(dl, f, fig);
    std::vector<std::vector<ImVec2>> screen = DrawSeries(dl, f, fig);
    std::vector<layout::TextBox> taken = DrawAnnotations(dl, f, fig);
    std::vector<ImVec2> marker_pts = DrawMarkers(dl, f, fig, taken);
    dl->PopClipRect();

    if (fig.legend) {
        std::vector<LegendEntry> entries;
        for (const Series& s : fig.series)
            if (!s.name.empty()) entries.push_back({s.name, s.color, s.marker, s.line, s.dashed});
        DrawLegend(dl, f.min, f.max, entries, fig.legend_left);
    }
    if (w.hovered) HoverFigure(result, w, f, fig, screen, marker_pts);
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
