#include "fonts.h"
#include <backends/imgui_impl_opengl3.h>
#include <fontconfig/fontconfig.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <set>
#include <string>
#include <vector>
#include "font_check.h"
#include "tilelab/drills.h"
#include "tilelab/i18n.h"
#include "tilelab/input_policy.h"
#include "tilelab/lesson.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

// Generated from the sources (gui/CMakeLists.txt, cmake/say_glyphs_run.cmake): every multi-byte
// character of the files that call say().
const std::string& say_glyphs();

namespace tilelab::gui {

namespace {

Fonts g_fonts;

// Text in lessons and kernel sources uses Latin, Greek letters, arrows, maths operators (·, ×, ≈,
// ≤) and a few shapes; DejaVu covers all of them (test: FontCoverage.*).
const ImWchar kTextRanges[] = {
    0x0020, 0x00FF,  // Basic Latin + Latin-1
    0x0370, 0x03FF,  // Greek
    0x1D00, 0x1D7F,  // Phonetic extensions (the transpose's ᵀ in the attention kernels' comments)
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
    std::fprintf(stderr, "tilelab: %s\n", trf("fonts.passed_over", shortened_path(path), why).c_str());
}

// Candidates in order: TILELAB_FONT_DIR (a folder holding e.g. DejaVuSans.ttf; machines without
// the font packages can unpack them anywhere and point here), what fontconfig finds for the role,
// then the usual Debian paths. The first that passes the checks wins; the others are passed over
// with a notice.
FontFile find_font(const char* fontconfig_pattern, const char* const* paths, int needs_codepoint = 0) {
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
            // fontconfig answers every pattern with some font: a CJK role checks it has 中.
            if (needs_codepoint && !FontHasCodepoint(f.bytes, needs_codepoint)) continue;
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

// Merges the CJK font's `ranges` into the font added last (ImGui's MergeMode). CJK glyphs are
// dense and square: no horizontal oversampling, which halves their share of the atlas.
void merge_cjk(ImFontAtlas* atlas, const FontFile& font, float px, const ImWchar* ranges) {
    ImFontConfig cfg;
    cfg.MergeMode = true;
    cfg.OversampleH = cfg.OversampleV = 1;
    cfg.PixelSnapH = true;
    void* data = IM_ALLOC(font.bytes.size());
    std::memcpy(data, font.bytes.data(), font.bytes.size());
    atlas->AddFontFromMemoryTTF(data, int(font.bytes.size()), px, &cfg, ranges);
}

// The glyph ranges the Chinese interface needs (the atlas keeps pointers to them until the next
// build, so they live here).
struct CjkRanges {
    ImVector<ImWchar> used;     // every character ChineseTextInUse() holds, Latin included
    ImVector<ImWchar> common;   // used + ImGui's ~2500 common simplified characters
    ImVector<ImWchar> headline; // the big headline font: numbers and the occupancy limiters' names
    ImVector<ImWchar> heading;  // h1..h3: what ChineseHeadingText() holds
};
CjkRanges g_cjk_ranges;

void build_cjk_ranges() {
    if (!g_cjk_ranges.used.empty()) return;   // the texts are embedded: collected once per process
    const std::string text = ChineseTextInUse();
    ImFontGlyphRangesBuilder used;
    used.AddText(text.c_str(), text.c_str() + text.size());
    used.BuildRanges(&g_cjk_ranges.used);
    ImFontGlyphRangesBuilder common;
    common.AddText(text.c_str(), text.c_str() + text.size());
    common.AddRanges(ImGui::GetIO().Fonts->GetGlyphRangesChineseSimplifiedCommon());
    common.BuildRanges(&g_cjk_ranges.common);
    ImFontGlyphRangesBuilder headline;
    for (const char* limiter : {"warps", "registers", "shared memory", "blocks"})
        headline.AddText(tr(std::string("quantity.") + limiter, Language::Chinese).c_str());
    headline.AddText("和-");
    headline.BuildRanges(&g_cjk_ranges.headline);
    const std::string heading_text = ChineseHeadingText();
    ImFontGlyphRangesBuilder heading;
    heading.AddText(heading_text.c_str(), heading_text.c_str() + heading_text.size());
    heading.BuildRanges(&g_cjk_ranges.heading);
}

// ---- the box drawn for a missing character, and counting it ------------------------------------
// A custom rectangle of the atlas holds a hollow box; every font's fallback glyph draws it, so a
// character no font has shows as a box and can be counted in the draw data by its texture
// coordinates.
constexpr int kBoxW = 10, kBoxH = 14;
int g_box_rect = -1;
ImVec2 g_box_uv0, g_box_uv1;
std::deque<ImFontGlyph> g_box_glyphs;   // one per font (sized to it); stable addresses

void paint_box_and_use_it(ImFontAtlas* atlas) {
    g_box_glyphs.clear();
    if (g_box_rect < 0) return;
    const ImFontAtlasCustomRect* r = atlas->GetCustomRectByIndex(g_box_rect);
    if (!r->IsPacked() || !atlas->TexPixelsAlpha8) return;
    for (int y = 0; y < kBoxH; ++y)
        for (int x = 0; x < kBoxW; ++x) {
            const bool edge = x == 0 || y == 0 || x == kBoxW - 1 || y == kBoxH - 1;
            atlas->TexPixelsAlpha8[(r->Y + y) * atlas->TexWidth + r->X + x] = edge ? 0xFF : 0x00;
        }
    atlas->CalcCustomRectUV(r, &g_box_uv0, &g_box_uv1);
    for (ImFont* font : atlas->Fonts) {
        const float size = font->FontSize;
        ImFontGlyph g{};
        g.Visible = 1;
        g.Codepoint = 0xFFFD;
        g.AdvanceX = font->FallbackAdvanceX;
        g.X0 = size * 0.08f;
        g.X1 = std::max(g.X0 + 2, std::min(g.AdvanceX, size * 0.6f) - size * 0.08f);
        g.Y0 = size * 0.18f;
        g.Y1 = size * 0.9f;
        g.U0 = g_box_uv0.x, g.V0 = g_box_uv0.y, g.U1 = g_box_uv1.x, g.V1 = g_box_uv1.y;
        g_box_glyphs.push_back(g);
        font->FallbackGlyph = &g_box_glyphs.back();
    }
}

// Gives `to` every glyph of `from` that it lacks (the merged Chinese characters, mostly), drawn
// from the same atlas pixels: scaled by the two fonts' size ratio and placed on `to`'s baseline.
// Bold and italic share the body's size exactly; mono (0.92 of it) draws the body's bitmaps
// slightly smaller, which costs a little sharpness in the code views and nothing in the atlas.
void share_cjk_glyphs(const ImFont* from, ImFont* to) {
    if (!from || !to || from == to) return;
    const float s = to->FontSize / from->FontSize;
    const float from_base = std::floor(from->Ascent + 0.5f), to_base = std::floor(to->Ascent + 0.5f);
    for (const ImFontGlyph& g : from->Glyphs) {
        if (to->FindGlyphNoFallback(ImWchar(g.Codepoint))) continue;
        to->AddGlyph(nullptr, ImWchar(g.Codepoint), g.X0 * s, (g.Y0 - from_base) * s + to_base, g.X1 * s,
                     (g.Y1 - from_base) * s + to_base, g.U0, g.V0, g.U1, g.V1, g.AdvanceX * s);
    }
    to->BuildLookupTable();
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

std::string ChineseTextInUse() {
    std::string text = say_glyphs();   // the sentences declared in code with say()
    for (const auto& [key, value] : string_table(Language::Chinese)) text += value;
    for (const auto& [id, markdown] : chinese_lesson_texts()) text += markdown;
    for (const Variant& v : all_variants())
        for (const ParamSpec& p : v.params) text += p.label_zh + p.help_zh;
    for (const Lesson& l : all_lessons(Language::Chinese))   // the drills' questions, choices, explanations
        for (const Drill& d : lesson_drills(l.id, Language::Chinese)) {
            text += d.question + d.explanation;
            for (const DrillChoice& c : d.choices) text += c.label;
        }
    return text;
}

std::string ChineseHeadingText() {
    std::string text;
    for (const auto& [key, value] : string_table(Language::Chinese))
        if (key.size() > 6 && (key.compare(key.size() - 6, 6, ".title") == 0 || key.rfind("heading.", 0) == 0))
            text += value;
    for (const auto& [id, markdown] : chinese_lesson_texts()) {
        size_t at = 0;
        while (at < markdown.size()) {
            size_t end = markdown.find('\n', at);
            if (end == std::string::npos) end = markdown.size();
            size_t first = markdown.find_first_not_of(" \t", at);
            if (first < end && markdown[first] == '#') text.append(markdown, first, end - first);
            at = end + 1;
        }
    }
    return text;
}

ImVec2 FontAtlasSize() {
    const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    return ImVec2(float(atlas->TexWidth), float(atlas->TexHeight));
}

int CountMissingGlyphs(const ImDrawData* draw_data) {
    if (!draw_data || g_box_glyphs.empty()) return 0;
    // The box's texture rectangle, shrunk by a quarter texel so neighbours' edges do not count.
    const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    const float eu = 0.25f / float(std::max(1, atlas->TexWidth)), ev = 0.25f / float(std::max(1, atlas->TexHeight));
    int corners = 0;
    for (int i = 0; i < draw_data->CmdListsCount; ++i)
        for (const ImDrawVert& v : draw_data->CmdLists[i]->VtxBuffer)
            if (v.uv.x >= g_box_uv0.x - eu && v.uv.x <= g_box_uv1.x + eu && v.uv.y >= g_box_uv0.y - ev &&
                v.uv.y <= g_box_uv1.y + ev)
                ++corners;
    return corners / 4;   // a glyph is a quad of four vertices
}

namespace {

constexpr int kMaxAtlasPx = 4096;

struct FontFiles {
    FontFile sans, bold, italic, mono, cjk;
};

// Adds every role to `atlas` (cleared first); with a CJK font, merged at `tier` (see Fonts).
void add_roles(ImFontAtlas* atlas, Fonts& f, const FontFiles& files, float scale, int tier) {
    atlas->Clear();
    f.body = f.bold = f.italic = f.mono = f.h1 = f.h2 = f.h3 = f.big = nullptr;
    const FontFile& heading = files.bold.bytes.empty() ? files.sans : files.bold;
    const float body_px = 18.0f * scale;
    const bool cjk = !files.cjk.bytes.empty();
    atlas->TexDesiredWidth = cjk ? kMaxAtlasPx : 0;
    // The texture as tall as the glyphs need, not rounded up to a power of two: at 4096 px wide a
    // rounded height is up to twice the pixels to convert and upload (OpenGL 3.3 takes any size).
    atlas->Flags |= ImFontAtlasFlags_NoPowerOfTwoHeight;
    const ImWchar* body_cjk = tier == 0 ? g_cjk_ranges.common.Data : g_cjk_ranges.used.Data;
    // Headings are a few hundred characters of the lessons' headings and the titles; rasterised at
    // three large sizes, every character in use would be most of the atlas.
    const ImWchar* heading_cjk = tier == 0 ? g_cjk_ranges.heading.Data : g_cjk_ranges.used.Data;
    auto role = [&](const FontFile& file, float px, bool large, const ImWchar* cjk_ranges) {
        ImFont* font = load(atlas, file, px, large);
        if (font && cjk && cjk_ranges) merge_cjk(atlas, files.cjk, px, cjk_ranges);
        return font;
    };
    // The first font added is ImGui's default: body text.
    f.body = role(files.sans, body_px, false, body_cjk);
    if (!f.body) return;
    // Bold, italic and mono take the body's Chinese glyphs after the build (share_cjk_glyphs):
    // WenQuanYi has no bold or italic, so rasterising them again would draw the same bitmaps.
    f.bold = role(heading, body_px, false, nullptr);
    f.italic = role(files.italic.bytes.empty() ? files.sans : files.italic, body_px, false, nullptr);
    f.mono = role(files.mono.bytes.empty() ? files.sans : files.mono, body_px * 0.92f, false, nullptr);
    f.h1 = role(heading, body_px * 1.55f, true, heading_cjk);
    f.h2 = role(heading, body_px * 1.3f, true, heading_cjk);
    f.h3 = role(heading, body_px * 1.12f, true, heading_cjk);
    f.big = role(heading, body_px * 2.2f, true, g_cjk_ranges.headline.Data);   // numbers, limiter names
    g_box_rect = atlas->AddCustomRectRegular(kBoxW, kBoxH);
}

// Builds every role at `raster` (1 = 18 px body text) within kMaxAtlasPx: with Chinese, tier 0,
// then tier 1; where neither fits (a large text size in presenter mode: 4.2 times the body size
// passes 4096 px even in English), the glyphs are rasterised smaller — `raster` lowered by how far
// tier 0 overshot — and drawn scaled up (BuildFonts sets FontGlobalScale): a little soft, but
// still the app's fonts, in Chinese too. False if nothing fits.
bool build_within_limit(ImFontAtlas* atlas, Fonts& f, const FontFiles& files, float& raster) {
    const bool cjk = !files.cjk.bytes.empty();
    for (int round = 0; round < 4; ++round) {
        float over = 0;   // how far tier 0 ran past the limit, as a factor of the atlas's side
        for (int tier = 0; tier < (cjk ? 2 : 1); ++tier) {
            add_roles(atlas, f, files, raster, tier);
            const auto t0 = std::chrono::steady_clock::now();
            bool built = atlas->Build();
            if (built && cjk)
                for (ImFont* to : {f.bold, f.italic, f.mono}) share_cjk_glyphs(f.body, to);
            f.rasterize_ms = ms_since(t0);
            if (tier == 0) over = built ? float(std::max(atlas->TexHeight, atlas->TexWidth)) / float(kMaxAtlasPx) : 0;
            built = built && atlas->TexHeight <= kMaxAtlasPx && atlas->TexWidth <= kMaxAtlasPx;
            f.cjk_glyph_tier = tier;
            if (built) return true;
        }
        // The glyphs' area goes with the square of their size.
        raster *= over > 1.0f ? std::min(0.95f, 0.97f / std::sqrt(over)) : 0.8f;
    }
    return false;
}

}  // namespace

void BuildFonts(float scale, bool chinese) {
    static const char* const kSans[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", nullptr};
    static const char* const kBold[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                                        "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf", nullptr};
    static const char* const kItalic[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf",
                                          "/usr/share/fonts/truetype/noto/NotoSans-Italic.ttf", nullptr};
    static const char* const kMono[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
                                        "/usr/share/fonts/truetype/noto/NotoSansMono-Regular.ttf", nullptr};
    // TrueType outlines only (font_check.h): Noto Sans CJK's OpenType/CFF files cannot be used.
    static const char* const kCjk[] = {"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
                                       "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", nullptr};

    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    Fonts f;
    f.scale = scale;
    FontFiles files;
    const auto files_start = std::chrono::steady_clock::now();
    files.sans = find_font("DejaVu Sans", kSans);
    files.bold = find_font("DejaVu Sans:style=Bold", kBold);
    files.italic = find_font("DejaVu Sans:style=Oblique", kItalic);
    files.mono = find_font("DejaVu Sans Mono", kMono);
    if (chinese && !files.sans.bytes.empty())
        files.cjk = find_font("WenQuanYi Micro Hei", kCjk, 0x4E2D /* 中 */);
    f.files_ms = ms_since(files_start);
    if (chinese && !files.sans.bytes.empty()) {
        if (files.cjk.bytes.empty() && g_reported.insert("(cjk)").second)
            std::fprintf(stderr, "tilelab: %s\n", tr("notice.no_chinese_font", Language::English).c_str());
        const auto t0 = std::chrono::steady_clock::now();
        if (!files.cjk.bytes.empty()) build_cjk_ranges();
        f.collect_ms = ms_since(t0);
    }

    bool built = false;
    float raster = scale;
    if (!files.sans.bytes.empty()) {
        built = build_within_limit(atlas, f, files, raster);
        if (!built && !files.cjk.bytes.empty()) {
            if (g_reported.insert("(cjk-size)").second)
                std::fprintf(stderr, "tilelab: %s\n", tr("fonts.cjk_does_not_fit", Language::English).c_str());
            files.cjk = {};
            raster = scale;
            add_roles(atlas, f, files, scale, 0);
            built = atlas->Build();
        }
        f.system_fonts = built;
        f.chinese = built && !files.cjk.bytes.empty();
    } else if (g_reported.insert("(built-in)").second) {
        std::fprintf(stderr, "tilelab: %s\n", tr("fonts.no_usable_font").c_str());
    }
    if (!built) {
        // Checked fonts should build; if one still does not, the built-in font always does.
        if (!files.sans.bytes.empty())
            std::fprintf(stderr, "tilelab: %s\n", tr("fonts.atlas_failed").c_str());
        atlas->Clear();
        f = Fonts{};
        f.scale = scale;
        add_default_fonts(atlas, f, scale);
        g_box_rect = atlas->AddCustomRectRegular(kBoxW, kBoxH);
        atlas->Build();
    }
    paint_box_and_use_it(atlas);
    for (const ImFont* font : atlas->Fonts) f.glyphs += font->Glyphs.Size;
    f.raster_scale = built && f.system_fonts ? raster : scale;
    ImGui::GetIO().FontGlobalScale = scale / f.raster_scale;
    g_fonts = f;
}

float DrawnSize(const ImFont* font) { return font->FontSize * font->Scale * ImGui::GetIO().FontGlobalScale; }

float DrawnAscent() { return ImGui::GetFont()->Ascent * ImGui::GetFontSize() / ImGui::GetFont()->FontSize; }

void RebuildFontTexture() {
    // The renderer's first NewFrame creates its device objects, and with them the font texture
    // again (a second conversion and upload of the whole atlas at start-up). Create them here the
    // first time instead, once per renderer (its backend data changes with every Init).
    static const void* renderer_with_objects = nullptr;
    const void* renderer = ImGui::GetIO().BackendRendererUserData;
    if (renderer && renderer != renderer_with_objects) {
        renderer_with_objects = renderer;
        ImGui_ImplOpenGL3_CreateDeviceObjects();   // the shader, buffers and the font texture
        return;
    }
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
}

void PushFontOrDefault(ImFont* font) { ImGui::PushFont(font ? font : ImGui::GetFont()); }

}  // namespace tilelab::gui
