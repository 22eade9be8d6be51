// The plot module's shared layout (gui/plot_layout.h): sizes, axes, legend, labels, tooltips.
#include "plot_layout.h"
#include "text_wrap.h"
#include "tilelab/i18n.h"
#include <algorithm>

namespace tilelab::gui::plot::layout {

float UiScale() { return ImGui::GetFontSize() / 13.0f; }

ImVec2 ResolveSize(ImVec2 size) {
    ImVec2 avail = ImGui::GetContentRegionAvail();
    float min_side = ImGui::GetFontSize() * 6;
    if (size.x <= 0) size.x = std::max(avail.x + size.x, min_side);
    if (size.y <= 0) size.y = std::max(avail.y + size.y, min_side);
    return size;
}


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

Plot BeginPlot(const char* id, ImVec2 size) {
    Widget w = BeginWidget(id, size);
    return {w, w.dl, PlotResult{w.min, w.max, w.hovered}, ImGui::GetFontSize(), UiScale()};
}

std::string AxisText(const Axis& axis, double v, const std::string& tick_label) {
    return axis.format ? axis.format(v) : tick_label;
}

std::string ValueText(const std::function<std::string(double)>& format, double v) {
    return format ? format(v) : FormatValue(v);
}

float TextWidth(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }

Title FitTitle(const std::string& title, float width, float font) {
    if (title.empty()) return {"", font * 0.7f};
    Title t{BreakLines(title, std::max(width, font), CurrentAdvance()), 0};
    t.top = font * (0.7f + float(1 + std::count(t.lines.begin(), t.lines.end(), '\n')));
    return t;
}

void DrawTitle(ImDrawList* dl, ImVec2 at, const Title& title) {
    if (!title.lines.empty()) dl->AddText(at, kTextColor, title.lines.c_str());
}

void DrawEmpty(ImDrawList* dl, ImVec2 min, ImVec2 max, const std::string& text) {
    const std::string& s = text.empty() ? tr("plot.nothing_yet") : text;
    ImVec2 size = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2((min.x + max.x - size.x) * 0.5f, (min.y + max.y - size.y) * 0.5f), kDimTextColor, s.c_str());
}



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

// The first of the places around the point that is inside the frame and clear of `taken` (plot_layout.h).
void PlacePointLabel(ImDrawList* dl, const Frame& f, ImVec2 p, float r, ImU32 color, const std::string& text,
                     std::vector<TextBox>* taken) {
    if (text.empty()) return;
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const float right = p.x + r + 4, left = p.x - r - 4 - size.x, up = p.y - r - size.y, down = p.y + r + 2;
    // Centred on the point, kept inside the frame where it is narrower than the label's width allows.
    const float centred = std::max(f.min.x, std::min(p.x - size.x * 0.5f, f.max.x - size.x));
    const float line = size.y * 1.15f;
    const ImVec2 places[] = {{right, up},           {left, up},           {right, down},         {left, down},
                             {centred, up},         {centred, down},      {centred, down + line}, {centred, up - line},
                             {centred, down + 2 * line}};
    auto inside = [&](ImVec2 at) {
        const bool across = at.x >= f.min.x && (at.x + size.x <= f.max.x || at.x == f.min.x);
        return across && at.y >= f.min.y && at.y + size.y <= f.max.y;
    };
    auto clear_of_text = [&](ImVec2 at) {
        if (!taken) return true;
        return std::none_of(taken->begin(), taken->end(), [&](const TextBox& b) {
            return at.x < b.second.x && b.first.x < at.x + size.x && at.y < b.second.y && b.first.y < at.y + size.y;
        });
    };
    // Where no place is both inside and free: the first inside, else up-right flipped as it must.
    ImVec2 at(right, up);
    if (at.x + size.x > f.max.x) at.x = left;
    if (at.y < f.min.y) at.y = down;
    if (const auto in = std::find_if(std::begin(places), std::end(places), inside); in != std::end(places)) at = *in;
    if (const auto best = std::find_if(std::begin(places), std::end(places), [&](ImVec2 q) { return inside(q) && clear_of_text(q); });
        best != std::end(places))
        at = *best;
    AddLabel(dl, at, color, text.c_str());
    if (taken) taken->push_back({at, ImVec2(at.x + size.x, at.y + size.y)});
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

}  // namespace tilelab::gui::plot::layout
