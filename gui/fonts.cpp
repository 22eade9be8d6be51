#include "fonts.h"
#include <backends/imgui_impl_opengl3.h>
#include <fontconfig/fontconfig.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>
#include "font_check.h"
#include "tilelab/input_policy.h"

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

// One font file for a role: its path and its checked bytes (font_check.h).
struct FontFile {
    std::string path;
    std::string bytes;   // empty: no usable file for this role
};

// What fontconfig would give for `pattern` ("DejaVu Sans:style=Bold"), or "" without a match.
std::string fontconfig_match(const char* pattern) {
    if (!FcInit()) return "";
    FcPattern* pat = FcNameParse(reinterpret_cast<const FcChar8*>(pattern));
    if (!pat) return "";
    FcConfigSubstitute(nullptr, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcResult result = FcResultNoMatch;
    FcPattern* match = FcFontMatch(nullptr, pat, &result);
    std::string path;
    FcChar8* file = nullptr;
    if (match && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch && file)
        path = reinterpret_cast<const char*>(file);
    if (match) FcPatternDestroy(match);
    FcPatternDestroy(pat);
    return path;
}

// A bad font is reported once per process, not at every rebuild of the atlas (Ctrl +/-).
std::set<std::string> g_reported;

void report_once(const std::string& path, const std::string& why) {
    if (!g_reported.insert(path).second) return;
    std::fprintf(stderr, "tilelab: font %s passed over: %s\n", shortened_path(path).c_str(), why.c_str());
}

// Candidates in order: TILELAB_FONT_DIR (a folder holding e.g. DejaVuSans.ttf; machines without
// the font packages can unpack them anywhere and point here), what fontconfig finds for the role,
// then the usual Debian paths. The first that passes the checks wins; the others are passed over
// with a notice.
FontFile find_font(const char* fontconfig_pattern, const char* const* paths) {
    std::vector<std::string> candidates;
    const char* dir = std::getenv("TILELAB_FONT_DIR");
    if (dir && *dir)
        for (const char* const* p = paths; *p; ++p)
            candidates.push_back((std::filesystem::path(dir) / std::filesystem::path(*p).filename()).string());
    if (std::string fc = fontconfig_match(fontconfig_pattern); !fc.empty()) candidates.push_back(fc);
    for (const char* const* p = paths; *p; ++p) candidates.push_back(*p);

    for (const std::string& path : candidates) {
        std::error_code ec;
        if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) continue;   // absent: no notice
        FontFile f;
        std::string why;
        if (LoadCheckedFont(path, f.bytes, why)) {
            f.path = path;
            return f;
        }
        report_once(path, why);
    }
    return {};
}

// Running text is oversampled horizontally for smooth sub-pixel placement; large text does not
// need it (and rasterising it twice as wide is most of the atlas's build time).
ImFont* load(ImFontAtlas* atlas, const FontFile& font, float px, bool large = false) {
    if (font.bytes.empty()) return nullptr;
    ImFontConfig cfg;
    cfg.OversampleH = large ? 1 : 2;
    cfg.OversampleV = 1;
    cfg.PixelSnapH = large;
    // The atlas owns (and frees) its copy of the bytes.
    void* data = IM_ALLOC(font.bytes.size());
    std::memcpy(data, font.bytes.data(), font.bytes.size());
    return atlas->AddFontFromMemoryTTF(data, int(font.bytes.size()), px, &cfg, large ? kHeadingRanges : kTextRanges);
}

void add_default_fonts(ImFontAtlas* atlas, Fonts& f, float scale) {
    // ImGui's built-in font is a 13 px bitmap; scale it as a whole instead.
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f * scale;
    f.body = atlas->AddFontDefault(&cfg);
    f.bold = f.italic = f.mono = f.h1 = f.h2 = f.h3 = f.body;
    cfg.SizePixels = 26.0f * scale;
    f.big = atlas->AddFontDefault(&cfg);
    f.system_fonts = false;
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
    const FontFile sans = find_font("DejaVu Sans", kSans), bold = find_font("DejaVu Sans:style=Bold", kBold);
    const FontFile italic = find_font("DejaVu Sans:style=Oblique", kItalic), mono = find_font("DejaVu Sans Mono", kMono);
    const FontFile& heading = bold.bytes.empty() ? sans : bold;
    const float body_px = 18.0f * scale;

    // The first font added is ImGui's default: body text.
    f.body = load(atlas, sans, body_px);
    if (f.body) {
        f.system_fonts = true;
        f.bold = load(atlas, heading, body_px);
        f.italic = load(atlas, italic.bytes.empty() ? sans : italic, body_px);
        f.mono = load(atlas, mono.bytes.empty() ? sans : mono, body_px * 0.92f);
        f.h1 = load(atlas, heading, body_px * 1.55f, true);
        f.h2 = load(atlas, heading, body_px * 1.3f, true);
        f.h3 = load(atlas, heading, body_px * 1.12f, true);
        f.big = load(atlas, heading, body_px * 2.2f, true);
    } else {
        if (g_reported.insert("(built-in)").second)
            std::fprintf(stderr, "tilelab: no usable DejaVu or Noto font found; using ImGui's built-in font\n");
        add_default_fonts(atlas, f, scale);
    }
    if (!atlas->Build() && f.system_fonts) {
        // Checked fonts should build; if one still does not, the built-in font always does.
        std::fprintf(stderr, "tilelab: the font atlas could not be built; using ImGui's built-in font\n");
        atlas->Clear();
        f = Fonts{};
        f.scale = scale;
        add_default_fonts(atlas, f, scale);
        atlas->Build();
    }
    g_fonts = f;
}

void RebuildFontTexture() {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
}

void PushFontOrDefault(ImFont* font) { ImGui::PushFont(font ? font : ImGui::GetFont()); }

}  // namespace tilelab::gui
