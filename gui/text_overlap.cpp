#include "text_overlap.h"
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_internal.h>   // ImTextCharToUtf8
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace tilelab::gui {
namespace {

// Glyphs are gathered per window with its child windows (FindOverlappingText): text of one window
// drawn over another's (a tooltip, a popup) is the windows' order, not a layout fault.
struct Glyph {
    ImVec2 min, max;   // on screen, clipped
    ImVec2 uv;         // the atlas corner: the character, and a glyph drawn again (a shadow)
    int run;           // the line of text it belongs to
    int list = 0;      // the draw list it is in (its window's name, for the sentence)
};

constexpr float kCell = 32.0f;        // the spatial hash's cell, px
constexpr float kShadowPx = 2.0f;     // the same glyph this close to itself is a shadow or bold
constexpr float kCoverShare = 0.2f;   // of the smaller glyph's area
constexpr float kMinSidePx = 2.0f;    // an overlap narrower than this on a side is anti-aliasing

bool inside(ImVec2 uv, ImVec2 lo, ImVec2 hi) { return uv.x >= lo.x && uv.x <= hi.x && uv.y >= lo.y && uv.y <= hi.y; }

// The quads of the atlas that are glyphs: not the white pixel (filled shapes) and not the baked
// anti-aliased lines.
struct AtlasRegions {
    ImTextureID tex;
    ImVec2 lines_min{2, 2}, lines_max{-1, -1};   // none until the atlas has its baked lines
    explicit AtlasRegions(const ImFontAtlas* atlas) : tex(atlas->TexID) {
        if (atlas->PackIdLines >= 0 && atlas->PackIdLines < atlas->CustomRects.Size)
            atlas->CalcCustomRectUV(&atlas->CustomRects[atlas->PackIdLines], &lines_min, &lines_max);
    }
    bool glyph(ImVec2 uv0, ImVec2 uv2) const {
        if (uv0.x == uv2.x && uv0.y == uv2.y) return false;   // the white pixel at all four corners: a fill
        return !inside(uv0, lines_min, lines_max);
    }
};

// The glyph quads of one draw list, in drawing order, each with its run: a glyph starts a new run
// unless it follows the previous one on the same line (further right, overlapping its height).
std::vector<Glyph> gather(const ImDrawList* list, const AtlasRegions& atlas) {
    std::vector<Glyph> out;
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
        if (cmd.UserCallback || cmd.TextureId != atlas.tex) continue;
        const ImDrawIdx* idx = list->IdxBuffer.Data + cmd.IdxOffset;
        const ImDrawVert* vtx = list->VtxBuffer.Data + cmd.VtxOffset;
        for (unsigned p = 0; p + 6 <= cmd.ElemCount;) {
            const unsigned b = idx[p];
            const bool quad = idx[p + 1] == b + 1 && idx[p + 2] == b + 2 && idx[p + 3] == b && idx[p + 4] == b + 2 &&
                              idx[p + 5] == b + 3;
            if (!quad) {
                p += 3;   // a triangle of something else: shapes are drawn in whole triangles
                continue;
            }
            p += 6;
            const ImDrawVert& a = vtx[b];
            if (!atlas.glyph(a.uv, vtx[b + 2].uv)) continue;
            // The four corners' bounds: text turned along a plot's line has its quads turned too.
            ImVec2 lo = a.pos, hi = a.pos;
            for (unsigned k = 1; k < 4; ++k) {
                const ImVec2 q = vtx[b + k].pos;
                lo = ImVec2(std::min(lo.x, q.x), std::min(lo.y, q.y));
                hi = ImVec2(std::max(hi.x, q.x), std::max(hi.y, q.y));
            }
            Glyph g{{std::max(lo.x, cmd.ClipRect.x), std::max(lo.y, cmd.ClipRect.y)},
                    {std::min(hi.x, cmd.ClipRect.z), std::min(hi.y, cmd.ClipRect.w)},
                    a.uv,
                    0};
            const bool same_line = !out.empty() && lo.x >= out.back().min.x - 1 && lo.y < out.back().max.y &&
                                   hi.y > out.back().min.y;
            g.run = out.empty() ? 0 : same_line ? out.back().run : out.back().run + 1;
            if (g.max.x - g.min.x >= 1 && g.max.y - g.min.y >= 1) out.push_back(g);
        }
    }
    return out;
}

bool covers(const Glyph& a, const Glyph& b) {
    const float w = std::min(a.max.x, b.max.x) - std::max(a.min.x, b.min.x);
    const float h = std::min(a.max.y, b.max.y) - std::max(a.min.y, b.min.y);
    if (w < kMinSidePx || h < kMinSidePx) return false;
    if (a.uv.x == b.uv.x && a.uv.y == b.uv.y && std::fabs(a.min.x - b.min.x) <= kShadowPx &&
        std::fabs(a.min.y - b.min.y) <= kShadowPx)
        return false;
    const float area_a = (a.max.x - a.min.x) * (a.max.y - a.min.y), area_b = (b.max.x - b.min.x) * (b.max.y - b.min.y);
    return w * h >= kCoverShare * std::min(area_a, area_b);
}

// The first pair of glyphs of different runs that cover each other, as indices; {-1, -1} if none.
std::pair<int, int> first_overlap(const std::vector<Glyph>& glyphs) {
    std::unordered_map<long long, std::vector<int>> cells;
    auto key = [](int x, int y) { return (static_cast<long long>(x) << 32) ^ static_cast<unsigned>(y); };
    for (int i = 0; i < int(glyphs.size()); ++i) {
        const Glyph& g = glyphs[i];
        const int x0 = int(std::floor(g.min.x / kCell)), x1 = int(std::floor(g.max.x / kCell));
        const int y0 = int(std::floor(g.min.y / kCell)), y1 = int(std::floor(g.max.y / kCell));
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                std::vector<int>& here = cells[key(x, y)];
                for (int j : here)
                    if (glyphs[j].run != g.run && covers(glyphs[j], g)) return {j, i};
                here.push_back(i);
            }
    }
    return {-1, -1};
}

// The characters of run `run`, looked up by their atlas corners, for the sentence.
std::string run_text(const std::vector<Glyph>& glyphs, int run) {
    static std::map<std::pair<float, float>, unsigned> by_uv;   // the UI thread's only; rebuilt with the atlas
    static const void* built_for = nullptr;
    static int built_glyphs = -1;
    const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    int count = 0;
    for (const ImFont* f : atlas->Fonts) count += f->Glyphs.Size;
    if (built_for != atlas->TexPixelsAlpha8 || built_glyphs != count) {
        by_uv.clear();
        for (const ImFont* f : atlas->Fonts)
            for (const ImFontGlyph& g : f->Glyphs) by_uv.emplace(std::make_pair(g.U0, g.V0), g.Codepoint);
        built_for = atlas->TexPixelsAlpha8;
        built_glyphs = count;
    }
    std::string text;
    for (const Glyph& g : glyphs) {
        if (g.run != run || text.size() > 40) continue;
        const auto it = by_uv.find({g.uv.x, g.uv.y});
        char utf8[5] = {};
        ImTextCharToUtf8(utf8, it == by_uv.end() ? '?' : it->second);
        text += utf8;
    }
    return text;
}

}  // namespace

std::vector<std::string> FindOverlappingText(const ImDrawData* draw_data) {
    std::vector<std::string> problems;
    if (!draw_data) return problems;
    const AtlasRegions atlas(ImGui::GetIO().Fonts);
    // The glyphs of a window and of its child windows together ("TileLab##root/##tabs/Tiles"),
    // each list's lines runs of their own: a child's text over its parent's is a fault as well.
    // Tooltips, popups and menus are windows of their own, meant to cover what is under them.
    std::map<std::string, std::vector<Glyph>> by_window;
    std::vector<std::string> owners;
    for (int i = 0; i < draw_data->CmdListsCount; ++i) {
        const ImDrawList* list = draw_data->CmdLists[i];
        owners.push_back(list->_OwnerName ? list->_OwnerName : "?");
        std::vector<Glyph>& glyphs = by_window[owners.back().substr(0, owners.back().find('/'))];
        const int first_run = glyphs.empty() ? 0 : glyphs.back().run + 1;
        for (Glyph g : gather(list, atlas)) {
            g.run += first_run;
            g.list = i;
            glyphs.push_back(g);
        }
    }
    for (const auto& window : by_window) {
        const std::vector<Glyph>& glyphs = window.second;
        const auto [a, b] = first_overlap(glyphs);
        if (a < 0) continue;
        problems.push_back(fmt::format("{}: text drawn over other text at ({:.0f}, {:.0f}): \"{}\" over \"{}\"", owners[glyphs[b].list],
                                       glyphs[b].min.x, glyphs[b].min.y, run_text(glyphs, glyphs[b].run),
                                       run_text(glyphs, glyphs[a].run)));
    }
    return problems;
}

}  // namespace tilelab::gui
