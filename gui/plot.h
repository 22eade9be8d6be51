// Plots on ImDrawList, our own small module (ImPlot is not packaged here): axes with ticks and
// labels (linear or log10), line series, scatter markers, a highlighted current point, guide
// lines, grouped bars, a roofline and a heatmap with its colour legend. Hovering shows the value
// under the mouse. Sizes follow the current font, so a larger font (presenter mode) gives a
// larger plot text.
//
// Everything is a value built fresh each frame and drawn by one call; nothing is remembered
// between frames (the arithmetic lives in plot_math.h and is unit-tested):
//
//   plot::Figure fig;
//   fig.title = "Occupancy vs threads per block";
//   fig.x.label = "threads per block";
//   fig.y.label = "occupancy %";
//   fig.y.range = plot::Range{0, 100};
//   plot::Series curve;
//   curve.name = "occupancy";
//   curve.x = xs;
//   curve.y = ys;
//   fig.series.push_back(curve);
//   plot::Marker now;
//   now.x = 256;
//   now.y = 75;
//   now.label = "now: 75%";
//   fig.markers.push_back(now);
//   plot::PlotResult r = plot::DrawFigure("occ_vs_block", ImVec2(-1, 300), fig);
//
//   plot::DrawBars("limits", ImVec2(-1, 200), chart);          // grouped bars
//   plot::DrawHeatmap("sweep2d", ImVec2(-1, 400), heatmap);    // 2-D sweep with a legend
//   plot::DrawFigure("roofline", size, plot::RooflineFigure(roofline));
//
// A size component <= 0 means "the available width/height plus that amount", as in ImGui.
// The returned PlotResult gives the widget's screen rectangle (for exporting it as an image)
// and what the mouse is over (for click-to-select).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include <imgui.h>
#include "plot_math.h"

namespace tilelab::gui::plot {

// ---- colours for a dark theme ------------------------------------------------------------
inline constexpr ImU32 kTextColor = IM_COL32(228, 230, 235, 255);
inline constexpr ImU32 kDimTextColor = IM_COL32(160, 165, 175, 255);
inline constexpr ImU32 kAxisColor = IM_COL32(150, 155, 165, 255);
inline constexpr ImU32 kGridColor = IM_COL32(255, 255, 255, 26);
inline constexpr ImU32 kMinorGridColor = IM_COL32(255, 255, 255, 10);
inline constexpr ImU32 kBackground = IM_COL32(24, 26, 32, 255);
inline constexpr ImU32 kHighlight = IM_COL32(255, 196, 0, 255);      // the current point / limiter
inline constexpr ImU32 kMissingCell = IM_COL32(60, 60, 66, 255);     // heatmap: no value
// A colour-blind-safe palette, brightened for a dark background; cycles after 7.
ImU32 Palette(int i);
ImU32 WithAlpha(ImU32 color, float alpha);

// ---- figures: lines, scatter, markers, guides ---------------------------------------------
struct Axis {
    std::string label;
    Scale scale = Scale::Linear;
    std::optional<Range> range;       // empty: fitted to the data
    bool include_zero = false;        // a fitted linear range starts at 0
    std::vector<double> tick_values;  // explicit ticks (e.g. the swept values); empty: automatic
    // Tick and tooltip text for a value; empty: FormatTick / FormatValue.
    std::function<std::string(double)> format;
};

enum class MarkerShape { None, Circle, Square, Diamond, Triangle };

struct Series {
    std::string name;                 // legend and tooltip; "" keeps it out of the legend
    std::vector<double> x, y;
    ImU32 color = IM_COL32(86, 180, 233, 255);
    float thickness = 2.5f;           // in pixels at font size 13 (scaled with the font)
    bool line = true;                 // join the points
    bool dashed = false;
    MarkerShape marker = MarkerShape::None;
    float marker_radius = 4.5f;       // at font size 13
    bool filled_markers = true;       // hollow markers: a bound or an estimate, not a result
    std::vector<std::string> point_labels;   // optional text beside each point
    std::vector<std::string> point_notes;    // optional extra tooltip line per point
    bool right_axis = false;          // plot against Figure::y2
};

struct Marker {                       // one emphasised point: ring, label, drop lines to the axes
    double x = 0, y = 0;
    std::string label;
    ImU32 color = kHighlight;
    MarkerShape shape = MarkerShape::Circle;
    bool filled = true;
    bool drop_lines = true;           // dashed lines down to the x axis and across to the y axis
    std::string note;                 // extra tooltip text
};

struct Guide {                        // a horizontal or vertical reference line
    bool vertical = true;
    double value = 0;
    std::string label;
    ImU32 color = kDimTextColor;
    bool dashed = true;
};

struct Annotation {                   // text placed at a data point
    double x = 0, y = 0;
    std::string text;
    ImU32 color = kTextColor;
    ImVec2 align{0, 1};               // 0,0: text's top-left at the point; 1,1: bottom-right
    // When `follow`, the text is turned to run along the line from (x, y) to (toward_x, toward_y)
    // as it appears on screen (e.g. a label on the slanted memory roof).
    bool follow = false;
    double toward_x = 0, toward_y = 0;
};

struct Figure {
    std::string title;
    Axis x, y;
    std::optional<Axis> y2;           // a second value axis on the right
    std::vector<Series> series;
    std::vector<Marker> markers;
    std::vector<Guide> guides;
    std::vector<Annotation> annotations;
    bool legend = true;
    bool legend_left = false;         // top-left instead of top-right
    std::string empty_text;           // shown centred when there is nothing to plot
};

struct PlotResult {
    ImVec2 min, max;                  // the widget on screen
    bool hovered = false;
    int hovered_series = -1, hovered_point = -1;   // the nearest point under the mouse
    bool clicked = false;             // left click on the hovered point
};

PlotResult DrawFigure(const char* id, ImVec2 size, const Figure& fig);

// ---- bars ----------------------------------------------------------------------------------
struct BarSeries {
    std::string name;
    std::vector<double> values;               // one per category; NaN: no bar
    ImU32 color = IM_COL32(86, 180, 233, 255);
    std::vector<ImU32> bar_colors;            // optional per-category override (e.g. the limiter)
    std::vector<std::string> value_labels;    // optional text instead of the formatted value
};

struct BarChart {
    std::string title;
    std::vector<std::string> categories;
    std::vector<BarSeries> series;            // bars of one category sit side by side
    Axis value_axis;                          // linear; bars start at 0
    bool horizontal = false;                  // categories down the left, bars to the right
    bool legend = true;
    std::string empty_text;
};

PlotResult DrawBars(const char* id, ImVec2 size, const BarChart& chart);

// ---- heatmap -------------------------------------------------------------------------------
struct Heatmap {
    std::string title;
    std::string x_label, y_label, value_label;
    std::vector<std::string> x_categories, y_categories;
    std::vector<double> values;               // row-major: values[iy * nx + ix]; NaN = no value
    std::vector<std::string> cell_notes;      // optional tooltip line per cell (e.g. why no value)
    Scale scale = Scale::Linear;              // of the colour legend
    bool low_is_good = false;                 // brightest colour for the lowest value
    std::function<std::string(double)> format;
    int highlight_x = -1, highlight_y = -1;   // outlined cell (the current configuration)
};

// hovered_point is the hovered cell's index into values.
PlotResult DrawHeatmap(const char* id, ImVec2 size, const Heatmap& map);

// ---- roofline ------------------------------------------------------------------------------
struct RooflinePoint {
    double intensity = 0;                     // FLOP per byte of global traffic
    double gflops = 0;
    std::string label;
    ImU32 color = IM_COL32(86, 180, 233, 255);
    bool current = false;                     // drawn as the highlighted marker
    bool hollow = false;                      // not measured: a bound, not a result
    std::string note;
};

struct Roofline {
    std::string title;
    double peak_gflops = 0;                   // compute roof
    double bandwidth_gbps = 0;                // memory roof slope
    std::string peak_label, bandwidth_label;  // "FP32 peak 67 TFLOP/s (datasheet)"
    std::vector<RooflinePoint> points;
};

// A log-log Figure: the memory roof (bandwidth × intensity) up to the ridge, the compute roof
// (peak) after it, a guide at the ridge, and the points.
Figure RooflineFigure(const Roofline& roof);

// ---- small drawing helpers shared by the panels ---------------------------------------------
// Text rotated counter-clockwise by `angle_deg` about `pivot` (text's top-left before rotating).
void AddRotatedText(ImDrawList* dl, ImVec2 pivot, ImU32 color, const char* text, float angle_deg);
void AddDashedLine(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color, float thickness, float dash);
void AddMarker(ImDrawList* dl, ImVec2 center, float radius, MarkerShape shape, ImU32 color, bool filled,
               float thickness);
// Text with a dark translucent box behind it, so it reads over lines and cells.
void AddLabel(ImDrawList* dl, ImVec2 pos, ImU32 color, const char* text);

}  // namespace tilelab::gui::plot
