// An ImGui context for a test that draws real frames without a window: the display size given,
// the built-in font's atlas built (ImGui asserts without one), no imgui.ini written (ImGui's
// default would leave one in the working directory), and the layout problems the frames reported
// cleared when it goes.
#pragma once
#include <imgui.h>
#include "ui_common.h"

namespace tilelab::gui {

struct ImGuiTestContext {
    explicit ImGuiTestContext(ImVec2 display) {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = display;
        io.IniFilename = nullptr;
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    }
    ~ImGuiTestContext() {
        ImGui::DestroyContext();
        LayoutProblems().clear();
    }
    ImGuiTestContext(const ImGuiTestContext&) = delete;
    ImGuiTestContext& operator=(const ImGuiTestContext&) = delete;
};

}  // namespace tilelab::gui
