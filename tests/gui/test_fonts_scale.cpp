// Chinese at every text size the app offers: View > Larger text goes to 3.0 and presenter mode
// multiplies by 1.4, so a teacher at a projector may ask for 4.2 times the body size. The
// Chinese glyphs must stay (at worst drawn from a smaller rasterisation), never fall back to English.
#include <gtest/gtest.h>
#include <chrono>
#include <cstdio>
#include "fonts.h"
#include "imgui_test_context.h"

namespace tilelab::gui {
namespace {

TEST(FontScale, EnglishBuildsItsOwnFontsAtEveryTextSizeTheAppOffers) {
    const ImGuiTestContext context(ImVec2(1600, 900));
    for (const float scale : {0.35f, 1.0f, 2.0f, 3.0f, 4.2f}) {
        BuildFonts(scale, false);
        std::fprintf(stderr, "text size %.2f: system fonts %s, rasterised at %.2f, atlas %.0fx%.0f\n", scale,
                     AppFonts().system_fonts ? "yes" : "no", AppFonts().raster_scale, FontAtlasSize().x, FontAtlasSize().y);
        EXPECT_TRUE(AppFonts().system_fonts) << "at text size " << scale;
    }
}

TEST(FontScale, ChineseStaysAtEveryTextSizeTheAppOffers) {
    const ImGuiTestContext context(ImVec2(1600, 900));
    for (const float scale : {1.0f, 1.4f, 2.0f, 2.5f, 3.0f, 3.5f, 4.2f}) {
        const auto t0 = std::chrono::steady_clock::now();
        BuildFonts(scale, true);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "text size %.1f: Chinese %s, glyph tier %d rasterised at %.2f, atlas %.0fx%.0f, %.0f ms\n", scale,
                     AppFonts().chinese ? "yes" : "no", AppFonts().cjk_glyph_tier, AppFonts().raster_scale, FontAtlasSize().x,
                     FontAtlasSize().y, ms);
        if (!AppFonts().system_fonts) GTEST_SKIP() << "no system fonts here";
        EXPECT_TRUE(AppFonts().chinese) << "at text size " << scale;
        // Drawn at the size asked, whatever size the glyphs were rasterised at.
        ImGui::NewFrame();
        EXPECT_NEAR(ImGui::GetFontSize(), 18.0f * scale, 0.01f * scale);
        EXPECT_NEAR(DrawnSize(AppFonts().big), 18.0f * 2.2f * scale, 0.05f * scale);
        ImGui::EndFrame();
    }
}

}  // namespace
}  // namespace tilelab::gui
