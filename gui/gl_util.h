// The few OpenGL calls the app makes itself (clear, read back, error check), behind functions so
// that glad's header stays in gl_util.cpp and never meets ImGui's OpenGL3 backend.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tilelab::gui {

using GlProcLoader = void (*(*)(const char*))();

// Loads the GL 3.3 core entry points through `loader` (glfwGetProcAddress, eglGetProcAddress).
// Returns false if the context does not provide GL 3.3.
bool LoadGl(GlProcLoader loader);
std::string GlVersionString();   // "4.5 (Core Profile) Mesa 22.3.6 / llvmpipe ..."

void ClearFramebuffer(int width, int height, float r, float g, float b);
void FinishGl();
// Every pending GL error as "GL_INVALID_ENUM, ..."; "" when there is none.
std::string TakeGlErrors();
// The framebuffer's RGBA pixels, top row first.
std::vector<uint8_t> ReadPixelsRgba(int width, int height);

}  // namespace tilelab::gui
