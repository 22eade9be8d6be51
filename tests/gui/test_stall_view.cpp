// The Code panel's stall bars find their lines: samples measured on an H200 (the test data
// tests/gui/data/stalls_smem_tiled_h200.json) land on the lines of the file the panel shows.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fstream>
#include "imgui_test_context.h"
#include "stall_view.h"
#include "tilelab/result_json.h"

namespace tilelab::gui {
namespace {

RunResult measured_result() {
    std::ifstream in(TILELAB_STALL_DATA);
    RunResult r;
    r.stalls = nlohmann::json::parse(in).at("stalls").get<StallSamples>();
    r.kernel_file = "matmul/smem_tiled.cuh";
    return r;
}

TEST(StallView, EverySampledLineOfTheKernelFileGetsItsBar) {
    const RunResult r = measured_result();
    ASSERT_TRUE(r.stalls.has_samples());
    const std::vector<const StallLine*> lines = StallLinesOf(r, 120);
    ASSERT_EQ(lines.size(), 120u);
    size_t with_bar = 0;
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i]) {
            ++with_bar;
            EXPECT_EQ(lines[i]->line, int(i) + 1);
        }
    size_t in_file = 0;
    for (const StallLine& l : r.stalls.lines) in_file += stall_file_matches(l.file, r.kernel_file) && l.line <= 120;
    EXPECT_EQ(with_bar, in_file);
    // The H200's hottest line of this kernel: the inner loop's shared-memory read of B.
    ASSERT_TRUE(lines[63]);
    EXPECT_EQ(lines[63], &r.stalls.lines.front());
}

TEST(StallView, NoBarsForAnotherFileOrWithoutSamples) {
    RunResult r = measured_result();
    r.kernel_file = "stencil/basic.cuh";
    EXPECT_TRUE(StallLinesOf(r, 120).empty());
    r.kernel_file = "matmul/smem_tiled.cuh";
    EXPECT_TRUE(StallLinesOf(r, 10).size() == 10 || StallLinesOf(r, 10).empty()) << "lines past the text are dropped";
    r.stalls = StallSamples{};
    EXPECT_TRUE(StallLinesOf(r, 120).empty());
}

// The legend above the listing (swatch, group, share; "+N" for the rest) wraps inside the panel at
// every width: on an H200 the "+N" ran up to 25 px past the Code tab's edge (2026-12-05).
TEST(StallView, TheLegendStaysInsideThePanelAtEveryWidth) {
    RunResult r = measured_result();
    for (size_t g = 0; g < kStallGroups; ++g) r.stalls.counts.n[g] += 1000 + 100 * g;   // every group present
    r.stalls.total = r.stalls.counts.total();
    const ImGuiTestContext context(ImVec2(1000, 400));
    // From 200 px: one item ("global memory 45%", swatch included) is itself about 150 px wide.
    for (float width = 200; width < 700; width += 1) {
        ImGui::NewFrame();
        LayoutProblems().clear();
        ImGui::SetNextWindowSize(ImVec2(width, 300));
        ImGui::Begin("legend");
        DrawStallHeader(r);
        ImGui::End();
        ReportOverflowingWindows({});
        ImGui::EndFrame();
        EXPECT_TRUE(LayoutProblems().empty()) << width << ": " << LayoutProblems().front();
    }
}

}  // namespace
}  // namespace tilelab::gui
