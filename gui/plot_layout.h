// The layout gui/plot.cpp's figures and gui/plot_grid.cpp's bars and heat maps share: the widget's
// rectangle, the plotting frame and its data-to-screen mapping, ticks, axes, legend, point labels
// and tooltips. Internal to the plot module (gui/plot.h is its interface).
#pragma once
#include "plot.h"
#include "plot_math.h"
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tilelab::gui::plot::layout {

float UiScale();
ImVec2 ResolveSize(ImVec2 size);
// Reserves the widget as one item and reports hover/click on it.
struct Widget {
    ImVec2 min, max;
    bool hovered = false, clicked = false;
    ImDrawList* dl = nullptr;
};

Widget BeginWidget(const char* id, ImVec2 size);
// A plot's start: its widget, draw list, result (rectangle and hover) and the font size and UI
// scale it lays out with.
struct Plot {
    Widget w;
    ImDrawList* dl;
    PlotResult result;
    float font, ui;
};
Plot BeginPlot(const char* id, ImVec2 size);
std::string AxisText(const Axis& axis, double v, const std::string& tick_label);
std::string ValueText(const std::function<std::string(double)>& format, double v);
float TextWidth(const std::string& s);
// A plot's title broken into lines no wider than `width` (a narrow panel at large text wraps it
// rather than cutting it), and the margin above the plotting rectangle that leaves room for them.
struct Title {
    std::string lines;
    float top = 0;
};
Title FitTitle(const std::string& title, float width, float font);
void DrawTitle(ImDrawList* dl, ImVec2 at, const Title& title);
void DrawEmpty(ImDrawList* dl, ImVec2 min, ImVec2 max, const std::string& text);
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

AxisTicks MakeTicks(const Axis& axis, Range r, int target_count);
Range ResolveRange(const Axis& axis, const std::vector<double>& values);
// Grid, ticks and tick labels for the x axis and one vertical axis (left or right).
void DrawXAxis(ImDrawList* dl, const Frame& f, const AxisTicks& t);
void DrawYAxis(ImDrawList* dl, const Frame& f, const AxisTicks& t, bool right);
void DrawYLabel(ImDrawList* dl, float x_left, float y_top, float y_bottom, const std::string& label);
struct LegendEntry {
    std::string name;
    ImU32 color;
    MarkerShape marker;
    bool line, dashed;
};

void DrawLegend(ImDrawList* dl, ImVec2 area_min, ImVec2 area_max, const std::vector<LegendEntry>& entries, bool left);
// A box of text already on the plot (an annotation, another point's label): min and max corners.
using TextBox = std::pair<ImVec2, ImVec2>;
// A label placed up-right of a point, else up-left, down-right or down-left: the first place
// inside the plot that covers none of `taken` (when every one would, the first inside the plot).
// Its box is added to `taken`, so later labels keep off it too.
void PlacePointLabel(ImDrawList* dl, const Frame& f, ImVec2 p, float r, ImU32 color, const std::string& text,
                     std::vector<TextBox>* taken = nullptr);
void Tooltip(const std::vector<std::pair<ImU32, std::string>>& lines);
bool Ascending(const std::vector<double>& v);

}  // namespace tilelab::gui::plot::layout
