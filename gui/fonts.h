// The app's fonts: DejaVu (or Noto) found through TILELAB_FONT_DIR, fontconfig or the usual
// folders, each file checked before ImGui sees it (font_check.h); a bad one is passed over with a
// notice, and ImGui's built-in font is used when none is usable. One set per process, rebuilt
// whenever the font scale changes.
#pragma once
#include <imgui.h>

namespace tilelab::gui {

struct Fonts {
    ImFont* body = nullptr;     // running text and widgets
    ImFont* bold = nullptr;
    ImFont* italic = nullptr;
    ImFont* mono = nullptr;     // code, numbers in tables
    ImFont* h1 = nullptr;       // markdown headings
    ImFont* h2 = nullptr;
    ImFont* h3 = nullptr;
    ImFont* big = nullptr;      // the headline numbers of the Results panel
    float scale = 1.0f;         // the scale they were built for
    bool system_fonts = false;  // false: ImGui's default font at every role
};

// The current set (valid after BuildFonts).
const Fonts& AppFonts();

// Clears the atlas and loads every role at `scale` (1 = body text of 18 px). Call before
// NewFrame(); then the renderer's font texture must be re-created (RebuildFontTexture).
void BuildFonts(float scale);
// Re-uploads the atlas through the OpenGL3 backend (after BuildFonts on a live context).
void RebuildFontTexture();

// Pushes `font` if it is not null (the default font otherwise); always pair with PopFont().
void PushFontOrDefault(ImFont* font);

}  // namespace tilelab::gui
