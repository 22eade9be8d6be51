#include "font_check.h"
#include <cstdint>
#include <filesystem>
#include "tilelab/safe_file.h"

// A private copy of stb_truetype (static functions) for the trial load, the same code ImGui
// rasterises with, so that what passes here is what ImGui can read.
#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <imstb_truetype.h>
#pragma GCC diagnostic pop

namespace tilelab::gui {

namespace {

// The smallest real font is some kB; the largest we would load (a CJK collection) tens of MB.
constexpr size_t kMinFontBytes = 1024;
constexpr size_t kMaxFontBytes = size_t(64) << 20;

uint32_t be32(const std::string& b, size_t at) {
    return uint32_t(uint8_t(b[at])) << 24 | uint32_t(uint8_t(b[at + 1])) << 16 | uint32_t(uint8_t(b[at + 2])) << 8 |
           uint32_t(uint8_t(b[at + 3]));
}
uint16_t be16(const std::string& b, size_t at) { return uint16_t(uint8_t(b[at]) << 8 | uint8_t(b[at + 1])); }

struct Table {
    size_t offset = 0, length = 0;
    bool found = false;
};

}  // namespace

bool CheckFontBytes(const std::string& b, std::string& why) {
    if (b.size() < kMinFontBytes) {
        why = "too small to be a font (" + std::to_string(b.size()) + " bytes)";
        return false;
    }
    // A collection (ttcf) holds several fonts; ImGui loads the first.
    size_t font_at = 0;
    if (b.compare(0, 4, "ttcf") == 0) {
        if (be32(b, 8) == 0) {
            why = "a font collection with no fonts";
            return false;
        }
        font_at = be32(b, 12);
        if (font_at > b.size() - 12) {
            why = "a font collection whose first font lies outside the file";
            return false;
        }
    }
    const uint32_t magic = be32(b, font_at);
    if (magic == 0x4F54544F) {   // "OTTO"
        why = "an OpenType font with CFF outlines, which ImGui cannot rasterise";
        return false;
    }
    if (magic != 0x00010000 && magic != 0x74727565) {   // TrueType 1.0, or "true"
        why = "not a TrueType font (wrong magic number)";
        return false;
    }
    const size_t tables = be16(b, font_at + 4);
    if (tables == 0 || font_at + 12 + tables * 16 > b.size()) {
        why = "its table directory is cut off";
        return false;
    }
    Table head, maxp, loca, glyf;
    bool has_cmap = false, has_hhea = false, has_hmtx = false;
    for (size_t i = 0; i < tables; ++i) {
        const size_t entry = font_at + 12 + i * 16;
        const std::string tag = b.substr(entry, 4);
        const size_t offset = be32(b, entry + 8), length = be32(b, entry + 12);
        if (offset > b.size() || length > b.size() - offset) {
            why = "table '" + tag + "' lies outside the file (truncated?)";
            return false;
        }
        const Table t{offset, length, true};
        if (tag == "head") head = t;
        else if (tag == "maxp") maxp = t;
        else if (tag == "loca") loca = t;
        else if (tag == "glyf") glyf = t;
        has_cmap |= tag == "cmap";
        has_hhea |= tag == "hhea";
        has_hmtx |= tag == "hmtx";
    }
    if (!head.found || !maxp.found || !loca.found || !glyf.found || !has_cmap || !has_hhea || !has_hmtx) {
        why = "a table it needs is missing (cmap, head, hhea, hmtx, loca, glyf, maxp)";
        return false;
    }
    if (head.length < 54 || be32(b, head.offset + 12) != 0x5F0F3CF5 || maxp.length < 6) {
        why = "its 'head' or 'maxp' table is damaged";
        return false;
    }
    // Every glyph's place in 'glyf' must lie inside it: stb_truetype follows these blindly.
    const size_t glyphs = be16(b, maxp.offset + 4);
    const bool long_offsets = be16(b, head.offset + 50) != 0;
    const size_t entry_size = long_offsets ? 4 : 2;
    if (loca.length < (glyphs + 1) * entry_size) {
        why = "its glyph index ('loca') is cut off";
        return false;
    }
    for (size_t g = 0; g <= glyphs; ++g) {
        const size_t at = loca.offset + g * entry_size;
        const size_t offset = long_offsets ? be32(b, at) : size_t(be16(b, at)) * 2;
        if (offset > glyf.length) {
            why = "its glyph index points outside the glyph data";
            return false;
        }
    }
    // The trial load: stb_truetype reads the font and finds the letter A.
    stbtt_fontinfo info;
    const auto* data = reinterpret_cast<const unsigned char*>(b.data());
    const int offset = stbtt_GetFontOffsetForIndex(data, 0);
    if (offset < 0 || !stbtt_InitFont(&info, data, offset) || stbtt_FindGlyphIndex(&info, 'A') == 0) {
        why = "stb_truetype cannot read it or finds no letter A";
        return false;
    }
    return true;
}

bool FontHasCodepoint(const std::string& bytes, int codepoint) {
    stbtt_fontinfo info;
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    const int offset = stbtt_GetFontOffsetForIndex(data, 0);
    return offset >= 0 && stbtt_InitFont(&info, data, offset) && stbtt_FindGlyphIndex(&info, codepoint) != 0;
}

bool LoadCheckedFont(const std::string& path, std::string& bytes, std::string& why) {
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::canonical(path, ec);
    if (ec) {
        why = ec.message();
        return false;
    }
    switch (read_regular_file(real.string(), kMaxFontBytes, bytes, why)) {
    case ReadOutcome::ok: break;
    case ReadOutcome::missing: why = "it does not exist"; return false;
    default: return false;
    }
    return CheckFontBytes(bytes, why);
}

}  // namespace tilelab::gui
