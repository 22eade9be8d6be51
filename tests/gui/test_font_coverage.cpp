// Every character the English interface shows from its own texts has a glyph in the font that
// draws it: the kernel sources in the Code tab (mono), the lessons, their strings and the string
// table (body). Chinese is the walk's to check (it collects what it needs from the same texts);
// a character outside the atlas's ranges would be drawn as a box (on 2026-12-05 the attention
// kernels' "Kᵀ" was, in the Code tab, in both languages).
#include <gtest/gtest.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <imgui_internal.h>   // ImTextCharFromUtf8
#include "fonts.h"
#include "imgui_test_context.h"
#include "tilelab/compile.h"

namespace tilelab::gui {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The code points of `text` (UTF-8) that `font` has no glyph for, each once; CJK and full-width
// forms left out unless `with_cjk` (the Chinese build's part).
std::set<unsigned> missing(const ImFont* font, const std::string& text, bool with_cjk = false) {
    std::set<unsigned> out;
    for (const char *s = text.c_str(), *end = s + text.size(); s < end;) {
        unsigned c = 0;
        const int n = ImTextCharFromUtf8(&c, s, end);
        s += n > 0 ? n : 1;
        const bool cjk = (c >= 0x3000 && c <= 0x9FFF) || (c >= 0xFF00 && c <= 0xFFEF);
        if (c >= 0x20 && (with_cjk || !cjk) && !font->FindGlyphNoFallback(ImWchar(c))) out.insert(c);
    }
    return out;
}

std::string listed(const std::set<unsigned>& codes) {
    std::string s;
    for (unsigned c : codes) {
        char code[16];
        std::snprintf(code, sizeof code, "%sU+%04X", s.empty() ? "" : ", ", c);
        s += code;
    }
    return s;
}

class FontCoverage : public ::testing::Test {
protected:
    void SetUp() override {
        BuildFonts(1.0f, false);
        if (!AppFonts().system_fonts) GTEST_SKIP() << "no system fonts here (fonts-dejavu-core)";
    }
    const ImGuiTestContext context_{ImVec2(1600, 900)};
};

TEST_F(FontCoverage, EveryKernelSourceTheCodeTabShows) {
    for (const std::string& path : embedded_source_paths()) {
        const std::string* text = embedded_source(path);
        ASSERT_NE(text, nullptr) << path;
        const std::set<unsigned> lacking = missing(AppFonts().mono, *text);
        EXPECT_TRUE(lacking.empty()) << "kernels/" << path << " uses characters the mono font lacks: " << listed(lacking);
    }
}

// The string table and every lesson's text, strings and drills in one language.
std::vector<fs::path> text_files(bool chinese) {
    const fs::path root = TILELAB_SOURCE_DIR;
    const std::string suffix = chinese ? ".zh" : "";
    std::vector<fs::path> files = {root / "strings" / (chinese ? "zh.json" : "en.json")};
    for (const auto& entry : fs::recursive_directory_iterator(root / "lessons")) {
        const std::string name = entry.path().filename().string();
        for (const char* stem : {"lesson", "strings", "drills"})
            if (name == stem + suffix + (std::string(stem) == "lesson" ? ".md" : ".json")) files.push_back(entry.path());
    }
    return files;
}

TEST_F(FontCoverage, EveryEnglishLessonAndString) {
    const std::vector<fs::path> files = text_files(false);
    ASSERT_GT(files.size(), 20u);
    for (const fs::path& file : files) {
        const std::set<unsigned> lacking = missing(AppFonts().body, read_file(file));
        EXPECT_TRUE(lacking.empty()) << file << " uses characters the body font lacks: " << listed(lacking);
    }
}

// In Chinese every character, CJK included: the drills and strings the walk may not draw too.
TEST_F(FontCoverage, EveryChineseLessonAndString) {
    BuildFonts(1.0f, true);
    if (!AppFonts().chinese) GTEST_SKIP() << "no Chinese font here (fonts-wqy-microhei)";
    const std::vector<fs::path> files = text_files(true);
    ASSERT_GT(files.size(), 20u);
    for (const fs::path& file : files) {
        const std::set<unsigned> lacking = missing(AppFonts().body, read_file(file), true);
        EXPECT_TRUE(lacking.empty()) << file << " uses characters the body font lacks: " << listed(lacking);
    }
    for (const std::string& path : embedded_source_paths()) {
        const std::set<unsigned> lacking = missing(AppFonts().mono, *embedded_source(path), true);
        EXPECT_TRUE(lacking.empty()) << "kernels/" << path << " uses characters the mono font lacks: " << listed(lacking);
    }
}

}  // namespace
}  // namespace tilelab::gui
