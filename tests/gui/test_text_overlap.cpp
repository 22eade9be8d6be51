// The layout check that sees text drawn over text (gui/text_overlap.h): a caption placed by hand on
// another must be found, named by both texts; text beside text, on separate lines, clipped away, or
// drawn again 1 px off as a shadow must not be.
#include <gtest/gtest.h>
#include <functional>
#include <string>
#include <vector>
#include "imgui_test_context.h"
#include "text_overlap.h"

namespace tilelab::gui {
namespace {

// One frame of a window `name`, `size` px, whose content `body` draws; the problems found in it.
std::vector<std::string> Found(const char* name, ImVec2 size, const std::function<void()>& body) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(size);
    ImGui::Begin(name, nullptr, ImGuiWindowFlags_NoSavedSettings);
    body();
    ImGui::End();
    ImGui::Render();
    return FindOverlappingText(ImGui::GetDrawData());
}

// The same with `draw` drawing into the window's draw list, as the pictures do.
std::vector<std::string> Problems(const std::function<void(ImDrawList*)>& draw) {
    return Found("panel", ImVec2(600, 400), [&] { draw(ImGui::GetWindowDrawList()); });
}

TEST(TextOverlap, ACaptionOnAnotherIsFoundAndNamed) {
    ImGuiTestContext context(ImVec2(800, 600));
    const ImU32 white = IM_COL32_WHITE;
    const std::vector<std::string> found = Problems([&](ImDrawList* d) {
        d->AddText(ImVec2(100, 100), white, "rows 0-63");
        d->AddText(ImVec2(110, 103), white, "S = QK");
    });
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].find("panel"), std::string::npos) << found[0];
    EXPECT_NE(found[0].find("\"S=QK\""), std::string::npos) << found[0];      // spaces draw no glyph
    EXPECT_NE(found[0].find("\"rows0-63\""), std::string::npos) << found[0];
}

TEST(TextOverlap, TheSameTextTwiceAtTheSamePlaceIsFound) {
    ImGuiTestContext context(ImVec2(800, 600));
    EXPECT_EQ(Problems([](ImDrawList* d) {
                  d->AddText(ImVec2(100, 100), IM_COL32_WHITE, "128");
                  d->AddText(ImVec2(104, 100), IM_COL32_WHITE, "256");
              }).size(),
              1u);
}

TEST(TextOverlap, TextBesideTextOnLinesOrClippedAwayIsNot) {
    ImGuiTestContext context(ImVec2(800, 600));
    const float line = ImGui::GetIO().Fonts->Fonts[0]->FontSize;   // ImGui::GetFontSize() is 0 before a frame
    const std::vector<std::string> found = Problems([&](ImDrawList* d) {
                    // Beside each other, as ImGui::SameLine puts them.
                    d->AddText(ImVec2(100, 100), IM_COL32_WHITE, "left");
                    d->AddText(ImVec2(100 + ImGui::CalcTextSize("left ").x, 100), IM_COL32_WHITE, "right");
                    // One line under the other.
                    d->AddText(ImVec2(100, 200), IM_COL32_WHITE, "first line");
                    d->AddText(ImVec2(100, 200 + line), IM_COL32_WHITE, "second line");
                    // A shadow: the same text 1 px off, under it.
                    d->AddText(ImVec2(301, 301), IM_COL32_BLACK, "shadow");
                    d->AddText(ImVec2(300, 300), IM_COL32_WHITE, "shadow");
                    // Two texts at one place, each shown only in its own half (clip rectangles).
                    d->PushClipRect(ImVec2(100, 250), ImVec2(130, 280));
                    d->AddText(ImVec2(100, 250), IM_COL32_WHITE, "aaaaaaaa");
                    d->PopClipRect();
                    d->PushClipRect(ImVec2(130, 250), ImVec2(200, 280));
                    d->AddText(ImVec2(100, 250), IM_COL32_WHITE, "bbbbbbbb");
                    d->PopClipRect();
                    // Text over filled shapes and lines is what labels are.
                    d->AddRectFilled(ImVec2(400, 100), ImVec2(500, 140), IM_COL32(40, 90, 160, 255));
                    d->AddLine(ImVec2(400, 120), ImVec2(500, 120), IM_COL32_WHITE, 2.0f);
                    d->AddText(ImVec2(410, 110), IM_COL32_WHITE, "label");
                });
    EXPECT_TRUE(found.empty()) << found.front();
}

TEST(TextOverlap, WidgetsLaidOutByImGuiAreNot) {
    ImGuiTestContext context(ImVec2(800, 600));
    EXPECT_TRUE(Found("widgets", ImVec2(400, 400), [] {
                    ImGui::TextWrapped("A paragraph long enough to wrap over several lines of this narrow window, as lesson text does.");
                    bool on = true;
                    ImGui::Checkbox("a checkbox", &on);
                    ImGui::SameLine();
                    ImGui::Button("a button");
                    int value = 3;
                    ImGui::SliderInt("a slider", &value, 0, 10);
                }).empty());
}

TEST(TextOverlap, AChildWindowsTextOverItsParentsIsFound) {
    ImGuiTestContext context(ImVec2(800, 600));
    const std::vector<std::string> found = Found("parent", ImVec2(400, 400), [] {
        ImGui::TextUnformatted("a line of the parent's text");
        ImGui::SetCursorPos(ImVec2(ImGui::GetCursorPosX() + 20, ImGui::GetCursorPosY() - ImGui::GetTextLineHeightWithSpacing()));
        ImGui::BeginChild("child", ImVec2(200, 60));
        ImGui::TextUnformatted("the child's text");
        ImGui::EndChild();
    });
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].find("parent/child"), std::string::npos) << found[0];
}

}  // namespace
}  // namespace tilelab::gui
