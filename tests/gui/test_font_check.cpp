// Fonts are checked before ImGui sees them: a real TrueType file passes; truncated, empty, random
// and folder "fonts" are refused with a reason instead of crashing ImGui's rasteriser.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "font_check.h"

namespace {

namespace fs = std::filesystem;
using tilelab::gui::CheckFontBytes;
using tilelab::gui::LoadCheckedFont;

constexpr const char* kDejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr uint32_t kSeed = 0xf0a7'12;

std::string dejavu() {
    std::ifstream in(kDejaVu, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(FontCheck, ARealFontPasses) {
    const std::string bytes = dejavu();
    if (bytes.empty()) GTEST_SKIP() << kDejaVu << " is not installed (fonts-dejavu-core)";
    std::string why;
    EXPECT_TRUE(CheckFontBytes(bytes, why)) << why;
    std::string loaded;
    EXPECT_TRUE(LoadCheckedFont(kDejaVu, loaded, why)) << why;
    EXPECT_EQ(loaded, bytes);
}

TEST(FontCheck, TruncatedFontsAreRefused) {
    const std::string bytes = dejavu();
    if (bytes.empty()) GTEST_SKIP() << kDejaVu << " is not installed (fonts-dejavu-core)";
    std::mt19937 rng(kSeed);
    for (int i = 0; i < 60; ++i) {
        const size_t keep = i < 10 ? size_t(i) * 100 : rng() % bytes.size();
        std::string why;
        EXPECT_FALSE(CheckFontBytes(bytes.substr(0, keep), why)) << "cut at " << keep;
        EXPECT_FALSE(why.empty());
    }
}

TEST(FontCheck, RandomEmptyAndFolderFontsAreRefused) {
    std::mt19937 rng(kSeed + 1);
    for (int i = 0; i < 100; ++i) {
        std::string bytes(rng() % 20000, '\0');
        for (char& c : bytes) c = char(rng());
        if (i % 2 && bytes.size() >= 4) bytes.replace(0, 4, std::string("\0\1\0\0", 4));   // past the magic number
        std::string why;
        EXPECT_FALSE(CheckFontBytes(bytes, why)) << "case " << i;
    }
    const fs::path dir = fs::temp_directory_path() / ("tilelab_font_check_" + std::to_string(::getpid()));
    fs::create_directories(dir / "DejaVuSans.ttf");
    { std::ofstream(dir / "empty.ttf"); }
    std::string bytes, why;
    EXPECT_FALSE(LoadCheckedFont((dir / "DejaVuSans.ttf").string(), bytes, why));
    EXPECT_NE(why.find("directory"), std::string::npos) << why;
    EXPECT_FALSE(LoadCheckedFont((dir / "empty.ttf").string(), bytes, why));
    EXPECT_FALSE(LoadCheckedFont((dir / "absent.ttf").string(), bytes, why));
    fs::remove_all(dir);
}

}  // namespace
