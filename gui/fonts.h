// The app's fonts: DejaVu (or Noto) found through TILELAB_FONT_DIR, fontconfig or the usual
// folders, each file checked before ImGui sees it (font_check.h); a bad one is passed over with a
// notice, and ImGui's built-in font is used when none is usable. One set per process, rebuilt
// whenever the font scale changes.
#pragma once
#include <imgui.h>
#include <string>

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
    float raster_scale = 1.0f;  // the scale the glyphs were rasterised at: below `scale` where the
                                // Chinese glyphs would not fit the atlas, drawn scaled up by
                                // FontGlobalScale = scale / raster_scale (DrawnSize)
    bool system_fonts = false;  // false: ImGui's default font at every role
    bool chinese = false;       // a CJK font is merged into every role (see BuildFonts)
    // Where the last build's time went (--log-latency): finding and checking the font files,
    // collecting the Chinese characters in use, laying out and rasterising the atlas.
    double files_ms = 0, collect_ms = 0, rasterize_ms = 0;
    int glyphs = 0;             // glyphs rasterised into the atlas, every role together
    int cjk_glyph_tier = 0;     // 0: body with ImGui's common Chinese set + every character used; 1: every
                                // role with only the characters used (a larger scale would pass 4096 px)
};

// Every character the Chinese interface can show that is known before it is drawn: the zh string
// table, every lesson.zh.md, the parameters' Chinese labels and help.
std::string ChineseTextInUse();

// What the heading fonts (h1..h3) need in Chinese: every heading line of every lesson.zh.md and the
// string table's titles (keys ending in ".title" or starting with "heading."); a text drawn in a
// heading font must be one of these (the walk counts any character that is not).
std::string ChineseHeadingText();

// The current set (valid after BuildFonts).
const Fonts& AppFonts();

// Clears the atlas and loads every role at `scale` (1 = body text of 18 px). With `chinese`, a
// CJK font (WenQuanYi Micro Hei or Noto Sans CJK, through fontconfig) is merged into every role
// with the glyphs ChineseTextInUse() needs (and, for body text, ImGui's common Chinese set) while
// the atlas stays within 4096×4096 — rasterised smaller and drawn scaled up where the size asked
// would not fit (Fonts::raster_scale); without one, Fonts::chinese stays false and a one-line notice
// goes to stderr. Call before NewFrame(); then re-create the renderer's texture (RebuildFontTexture).
void BuildFonts(float scale, bool chinese = false);
// The atlas's size after the last BuildFonts.
ImVec2 FontAtlasSize();
// The size `font` is drawn at (what ImGui::GetFontSize() says while it is pushed, before a
// window's own font scale): its rasterised size times FontGlobalScale. Use it, not FontSize, to
// measure text drawn in a font that is not the current one.
float DrawnSize(const ImFont* font);
// The current font's ascent as drawn: the window's font scale and FontGlobalScale included.
float DrawnAscent();

// A character no font has is drawn as a box (not '?', which is a real character): glyphs drawn
// from that box in `draw_data`, i.e. characters missing from the atlas (the headless walk counts them).
int CountMissingGlyphs(const ImDrawData* draw_data);
// Re-uploads the atlas through the OpenGL3 backend (after BuildFonts on a live context).
void RebuildFontTexture();

// Pushes `font` if it is not null (the default font otherwise); always pair with PopFont().
void PushFontOrDefault(ImFont* font);

}  // namespace tilelab::gui
