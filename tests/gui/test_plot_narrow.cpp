// Plots in a narrow panel at large text: a title too long for the width wraps instead of running
// past the edge, and horizontal bars whose names leave them no room put each name above its bar
// instead of drawing nothing (the Occupancy tab's chart was blank at presenter text on a projector's
// 1280x720, 2026-12-05).
#include <gtest/gtest.h>
#include <imgui_internal.h>
#include <string>
#include "imgui_test_context.h"
#include "plot.h"
#include "plot_layout.h"
#include "text_overlap.h"

namespace tilelab::gui {
namespace {

TEST(PlotNarrow, ALongTitleWrapsToTheWidthAndTheFrameMovesDown) {
    const ImGuiTestContext context(ImVec2(800, 600));
    ImGui::NewFrame();
    const float font = ImGui::GetFontSize();
    const std::string text = "Blocks per SM each resource allows on its own";
    const plot::layout::Title wide = plot::layout::FitTitle(text, 2000, font);
    EXPECT_EQ(wide.lines, text);
    EXPECT_FLOAT_EQ(wide.top, font * 1.7f);   // one line: the margin it always had
    const float width = ImGui::CalcTextSize(text.c_str()).x * 0.45f;
    const plot::layout::Title narrow = plot::layout::FitTitle(text, width, font);
    EXPECT_EQ(std::count(narrow.lines.begin(), narrow.lines.end(), '\n'), 2) << narrow.lines;
    EXPECT_LE(ImGui::CalcTextSize(narrow.lines.c_str()).x, width);
    EXPECT_FLOAT_EQ(narrow.top, font * 3.7f);
    EXPECT_FLOAT_EQ(plot::layout::FitTitle("", width, font).top, font * 0.7f);
    ImGui::EndFrame();
}

// The vertices one horizontal bar chart adds to its window, `width` px wide.
int BarChartVertices(float width, bool with_data) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(width, 400));
    ImGui::Begin("narrow", nullptr, ImGuiWindowFlags_NoSavedSettings);
    plot::BarChart chart;
    chart.title = "Blocks per SM each resource allows on its own";
    chart.horizontal = true;
    chart.legend = false;
    plot::BarSeries bars;
    if (with_data) {
        chart.categories = {"warps (2 per block)", "registers (54 per thread)", "shared memory (256 B per block)",
                            "blocks (hardware limit)"};
        bars.values = {32, 18, 182, 32};
    }
    chart.series.push_back(bars);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int before = dl->VtxBuffer.Size;
    plot::DrawBars("bars", ImVec2(-1, 300), chart);
    const int added = dl->VtxBuffer.Size - before;
    ImGui::End();
    ImGui::EndFrame();
    return added;
}

TEST(PlotNarrow, HorizontalBarsAreDrawnWhereTheirNamesLeaveNoRoomBeside) {
    const ImGuiTestContext context(ImVec2(1200, 600));
    ImGui::NewFrame();   // text is measured in a frame (its font is set there)
    const float names = ImGui::CalcTextSize("shared memory (256 B per block)").x;
    ImGui::EndFrame();
    // Wide enough for the names beside the bars, and too narrow for that.
    for (const float width : {names + 400.0f, names + 20.0f, names * 0.6f}) {
        const int empty = BarChartVertices(width, false), full = BarChartVertices(width, true);
        // Four bars (a rectangle each) and their names and values, beyond an empty chart's.
        EXPECT_GT(full - empty, 4 * 4 + 4 * 20 * 4) << width << " px wide";
    }
}

// The current point at the compute roof near the plot's right end: its label, flipped left, sat on
// the roof's own label ("now: at most 67 TFLOP/s (no GPU)" over "FP32 67 TFLOP/s"; monkey seed 493,
// lesson 15's Memory tab, 2026-12-05). It now takes the first place around the point that covers
// no other text.
TEST(PlotNarrow, APointsLabelKeepsOffTheRoofsLabel) {
    const ImGuiTestContext context(ImVec2(1000, 700));
    int drawn = 0;
    for (const float width : {380.0f, 620.0f, 900.0f})
    for (double intensity = 0.5; intensity < 3000; intensity *= 1.3) {
        plot::Roofline roof;
        roof.peak_gflops = 67000;
        roof.bandwidth_gbps = 3350;
        roof.peak_label = "FP32 67 TFLOP/s";
        roof.bandwidth_label = "DRAM 3.35 TB/s";
        plot::RooflinePoint now;
        now.intensity = intensity;
        now.gflops = std::min(67000.0, 3350 * intensity);
        now.current = true;
        now.hollow = true;
        now.label = "now: at most 67 TFLOP/s (no GPU)";
        roof.points.push_back(now);
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(width, 420));
        ImGui::Begin("memory", nullptr, ImGuiWindowFlags_NoSavedSettings);
        plot::DrawFigure("roofline", ImVec2(-1, 360), plot::RooflineFigure(roof));
        ImGui::End();
        ImGui::Render();
        const std::vector<std::string> found = FindOverlappingText(ImGui::GetDrawData());
        EXPECT_TRUE(found.empty()) << "width " << width << ", intensity " << intensity << ": " << found.front();
        ++drawn;
    }
    EXPECT_GT(drawn, 60);
}

}  // namespace
}  // namespace tilelab::gui
