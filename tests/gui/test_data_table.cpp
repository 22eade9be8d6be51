// Data tables at every width: too narrow for their columns, they scroll sideways with the first
// column frozen instead of squeezing it to a letter a line (on a projector's 1280x720 at presenter
// text the access names stood one letter a line, 2026-12-05), keep every header whole, are exactly
// as tall as their rows (the mouse wheel still scrolls the panel), and do not flip between the two.
#include <gtest/gtest.h>
#include <imgui_internal.h>
#include <string>
#include "imgui_test_context.h"

namespace tilelab::gui {
namespace {

struct Frame {
    bool scrolls = false;
    float first_column = 0;   // its width, px
    float scroll_room = 0;    // how far the rows could scroll down inside the table (none wanted)
};

// One frame of a window `width` px wide holding a table like the Memory panel's accesses.
Frame DrawAccesses(float width) {
    ImGui::NewFrame();
    LayoutProblems().clear();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(width, 600));
    ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoSavedSettings);
    Frame f;
    if (BeginDataTable("##accesses", {{"access", 1.4f}, {"per thread"}, {"per block"}, {"total (model)"},
                                     {"total (counted)"}, {"match", 0, 3.5f}})) {
        const char* names[] = {"global loads", "global stores", "shared loads", "shared stores"};
        for (const char* name : names) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextUnformatted(name);
            ImGui::PopTextWrapPos();
            for (const char* cell : {"2.56 k", "164 k", "671 M", "671 M", "yes"}) {
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(cell);
            }
        }
        const ImGuiTable* table = ImGui::GetCurrentTable();
        f.scrolls = table->Flags & ImGuiTableFlags_ScrollX;
        f.first_column = table->Columns[0].WidthGiven;
        const ImGuiWindow* inner = table->InnerWindow;
        EndDataTable();
        f.scroll_room = f.scrolls ? inner->ScrollMax.y : 0;
    }
    ImGui::End();
    ReportOverflowingWindows({});
    ImGui::EndFrame();
    return f;
}

TEST(DataTable, TooNarrowItScrollsSidewaysAndKeepsEveryColumnReadable) {
    const ImGuiTestContext context(ImVec2(1200, 700));
    const float em = ImGui::GetFontSize();
    bool scrolled_somewhere = false, fitted_somewhere = false;
    for (float width = 900; width >= 150; width -= 7) {
        Frame f;
        for (int settle = 0; settle < 4; ++settle) f = DrawAccesses(width);
        scrolled_somewhere |= f.scrolls;
        fitted_somewhere |= !f.scrolls;
        EXPECT_TRUE(LayoutProblems().empty()) << width << " px: " << LayoutProblems().front();
        // The names' column keeps room for a word a line: 1.4 of weight is 4.2 em.
        EXPECT_GE(f.first_column, 4.2f * em) << width << " px";
        EXPECT_LE(f.scroll_room, 0.5f) << width << " px: the table is shorter than its rows";
        // Settled: one more frame changes nothing.
        const Frame again = DrawAccesses(width);
        EXPECT_EQ(again.scrolls, f.scrolls) << width << " px";
        EXPECT_FLOAT_EQ(again.first_column, f.first_column) << width << " px";
    }
    EXPECT_TRUE(scrolled_somewhere);
    EXPECT_TRUE(fitted_somewhere);
}

// At a width on the edge, a scroll bar coming and going beside the table must not flip it.
TEST(DataTable, AtTheEdgeItDoesNotFlipBackAndForth) {
    const ImGuiTestContext context(ImVec2(1200, 700));
    float edge = 0;
    for (float width = 900; width >= 150 && edge == 0; width -= 1) {
        for (int settle = 0; settle < 3; ++settle) DrawAccesses(width);
        if (DrawAccesses(width).scrolls) edge = width;
    }
    ASSERT_GT(edge, 0);
    // Wider by less than an em, back and forth: it stays scrolling.
    for (int i = 0; i < 20; ++i) EXPECT_TRUE(DrawAccesses(edge + float(i % 2) * 8).scrolls) << i;
    // Wider by more: it fits again.
    for (int settle = 0; settle < 3; ++settle) DrawAccesses(edge + 3 * ImGui::GetFontSize());
    EXPECT_FALSE(DrawAccesses(edge + 3 * ImGui::GetFontSize()).scrolls);
}

}  // namespace
}  // namespace tilelab::gui
