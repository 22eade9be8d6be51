#include "fonts.h"
#include <backends/imgui_impl_opengl3.h>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace tilelab::gui {

namespace {

Fonts g_fonts;

// Text in lessons uses Latin, Greek letters, arrows, maths operators (·, ×, ≈, ≤) and a few
// shapes; DejaVu covers all of them.
const ImWchar kTextRanges[] = {
    0x0020, 0x00FF,  // Basic Latin + Latin-1
    0x0370, 0x03FF,  // Greek
    0x2000, 0x206F,  // General punctuation (–, —, …)
    0x2070, 0x209F,  // Superscripts and subscripts
    0x2190, 0x21FF,  // Arrows
    0x2200, 0x22FF,  // Mathematical operators
    0x2300, 0x23FF,  // Miscellaneous technical (the ceiling and floor brackets)
    0x2500, 0x25FF,  // Box drawing, blocks, geometric shapes
    0,
};
// Headings and headline numbers: what titles and numbers use, no box drawing or shapes.
const ImWchar kHeadingRanges[] = {
    0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0,
};

// TILELAB_FONT_DIR (a folder holding e.g. DejaVuSans.ttf) is searched first: machines without
// the font packages installed can unpack them anywhere and point here.
std::string find_font(const char* const* candidates) {
    const char* dir = std::getenv("TILELAB_FONT_DIR");
    for (const char* const* p = candidates; *p; ++p) {
        std::error_code ec;
        if (dir && *dir) {
            const std::filesystem::path local = std::filesystem::path(dir) / std::filesystem::path(*p).filename();
            if (std::filesystem::exists(local, ec)) return local.string();
        }
        if (std::filesystem::exists(*p, ec)) return *p;
    }
    return "";
}

// Running text is oversampled horizontally for smooth sub-pixel placement; large text does not
// need it (and rasterising it twice as wide is most of the atlas's build time).
ImFont* load(ImFontAtlas* atlas, const std::string& path, float px, bool large = false) {
    if (path.empty()) return nullptr;
    ImFontConfig cfg;
    cfg.OversampleH = large ? 1 : 2;
    cfg.OversampleV = 1;
    cfg.PixelSnapH = large;
    return atlas->AddFontFromFileTTF(path.c_str(), px, &cfg, large ? kHeadingRanges : kTextRanges);
}

}  // namespace

const Fonts& AppFonts() { return g_fonts; }

void BuildFonts(float scale) {
    static const char* const kSans[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", nullptr};
    static const char* const kBold[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                                        "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf", nullptr};
    static const char* const kItalic[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf",
                                          "/usr/share/fonts/truetype/noto/NotoSans-Italic.ttf", nullptr};
    static const char* const kMono[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
                                        "/usr/share/fonts/truetype/noto/NotoSansMono-Regular.ttf", nullptr};

    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    atlas->Clear();
    Fonts f;
    f.scale = scale;
    const std::string sans = find_font(kSans), bold = find_font(kBold);
    const std::string italic = find_font(kItalic), mono = find_font(kMono);
    const float body_px = 18.0f * scale;

    // The first font added is ImGui's default: body text.
    f.body = load(atlas, sans, body_px);
    if (f.body) {
        f.system_fonts = true;
        f.bold = load(atlas, bold.empty() ? sans : bold, body_px);
        f.italic = load(atlas, italic.empty() ? sans : italic, body_px);
        f.mono = load(atlas, mono.empty() ? sans : mono, body_px * 0.92f);
        f.h1 = load(atlas, bold.empty() ? sans : bold, body_px * 1.55f, true);
        f.h2 = load(atlas, bold.empty() ? sans : bold, body_px * 1.3f, true);
        f.h3 = load(atlas, bold.empty() ? sans : bold, body_px * 1.12f, true);
        f.big = load(atlas, bold.empty() ? sans : bold, body_px * 2.2f, true);
    } else {
        // ImGui's built-in font is a 13 px bitmap; scale it as a whole instead.
        ImFontConfig cfg;
        cfg.SizePixels = 13.0f * scale;
        f.body = atlas->AddFontDefault(&cfg);
        f.bold = f.italic = f.mono = f.h1 = f.h2 = f.h3 = f.body;
        cfg.SizePixels = 26.0f * scale;
        f.big = atlas->AddFontDefault(&cfg);
    }
    atlas->Build();
    g_fonts = f;
}

void RebuildFontTexture() {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
}

void PushFontOrDefault(ImFont* font) { ImGui::PushFont(font ? font : ImGui::GetFont()); }

}  // namespace tilelab::gui
