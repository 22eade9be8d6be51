// FrameDriver (headless_driver.h): one headless frame of the app, checked.
#include "headless_driver.h"
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <algorithm>
#include <cfloat>
#include "fonts.h"
#include "gl_util.h"
#include "text_overlap.h"
#include "ui_common.h"

namespace tilelab::gui {

bool FrameDriver::frame() {
    const auto start = Clock::now();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(width_), float(height_));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = float(std::max(1e-4, std::chrono::duration<double>(start - last_).count()));
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);   // no mouse: nothing hovered
    last_ = start;
    app_.BeforeNewFrame(float(width_), float(height_));
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    app_.Frame();
    ImGui::Render();
    missing_glyphs_ += CountMissingGlyphs(ImGui::GetDrawData());
    if (!layout_context_.empty()) {
        for (const std::string& problem : LayoutProblems())
            if (!large_text_ || problem.find(kOutOfView) == std::string::npos) layout_seen_.insert(layout_context_ + problem);
        for (const std::string& problem : FindOverlappingText(ImGui::GetDrawData())) layout_seen_.insert(layout_context_ + problem);
    }
    const auto built = Clock::now();
    app_.Render(width_, height_);
    FinishGl();
    const double ms = ms_since(start);
    build_ms_ += std::chrono::duration<double, std::milli>(built - start).count();
    render_ms_ += ms_since(built);
    app_.AfterFrame(ms);
    ++frames_;
    if (std::string gl = TakeGlErrors(); !gl.empty()) {
        error_ = "OpenGL reported " + gl + " in frame " + std::to_string(frames_);
        return false;
    }
    if (std::string broken = app_.CheckInvariants(); !broken.empty()) {
        error_ = "invariant broken in frame " + std::to_string(frames_) + ": " + broken;
        return false;
    }
    return true;
}

void FrameDriver::print_split(std::FILE* out) const {
    if (frames_ > 0)
        std::fprintf(out, "frames: mean %.1f ms building the UI, %.1f ms rendering it with GL\n", build_ms_ / frames_,
                     render_ms_ / frames_);
}

}  // namespace tilelab::gui
