// Line breaks in both languages (gui/text_wrap.h): Chinese fills its lines instead of breaking at
// the last space, punctuation stays with its word, English breaks at spaces as ImGui does, and no
// text is lost or reordered.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <random>
#include <string>
#include <vector>
#include "imgui_test_context.h"
#include "text_wrap.h"
#include "ui_common.h"

namespace tilelab::gui {
namespace {

// A grid font: ASCII one unit, CJK two (as a terminal shows them).
float grid_advance(unsigned c) { return IsCjk(c) ? 2.0f : 1.0f; }
const Advance kGrid(grid_advance);

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) lines.push_back(text.substr(start, nl - start));
    lines.push_back(text.substr(start));
    return lines;
}

float width_of(const std::string& line) {
    float w = 0;
    const char* e = line.data() + line.size();
    for (const char* s = line.data(); s < e;) {
        unsigned c = 0;
        const int n = ImTextCharFromUtf8(&c, s, e);
        w += grid_advance(c);
        s += n > 0 ? n : 1;
    }
    return w;
}

std::vector<unsigned> chars_of(const std::string& text) {
    std::vector<unsigned> out;
    const char* e = text.data() + text.size();
    for (const char* s = text.data(); s < e;) {
        unsigned c = 0;
        const int n = ImTextCharFromUtf8(&c, s, e);
        out.push_back(c);
        s += n > 0 ? n : 1;
    }
    return out;
}

std::string without(const std::string& text, const std::string& drop) {
    std::string out;
    for (char c : text)
        if (drop.find(c) == std::string::npos) out += c;
    return out;
}

TEST(TextWrap, ChineseFillsItsLinesInsteadOfBreakingAtTheLastSpace) {
    // ImGui 1.86 would break this after "另外 128" (the last space) and leave half a line empty.
    const std::string text = "它的 384 个线程中 256 个持有分块，每个 128 个输出，另外 128 个只负责加载。";
    const std::string broken = BreakLines(text, 24, kGrid);
    const std::vector<std::string> lines = lines_of(broken);
    ASSERT_GE(lines.size(), 2u);
    for (size_t i = 0; i < lines.size(); ++i) {
        EXPECT_LE(width_of(lines[i]), 24.0f) << lines[i];
        if (i + 1 < lines.size()) {
            EXPECT_GE(width_of(lines[i]), 21.0f) << "line " << i << " ends early: " << lines[i];
        }
    }
    EXPECT_EQ(without(broken, "\n "), without(text, " "));
}

TEST(TextWrap, PunctuationStaysWithItsWord) {
    // Width 10 would end the first line at "类型（" and start the next with "）" without the rules.
    const std::string text = "操作数类型（PREC）和分块。";
    for (float width = 6; width <= 14; width += 1) {
        const std::vector<std::string> lines = lines_of(BreakLines(text, width, kGrid));
        for (const std::string& line : lines) {
            ASSERT_FALSE(line.empty());
            const std::vector<unsigned> cs = chars_of(line);
            EXPECT_FALSE(ClosesCjk(cs.front())) << "width " << width << ": a line starts with " << line;
            EXPECT_FALSE(OpensCjk(cs.back())) << "width " << width << ": a line ends with " << line;
        }
    }
}

TEST(TextWrap, EnglishBreaksAtSpacesAndDropsThem) {
    EXPECT_EQ(BreakLines("the block walks along K", 10, kGrid), "the block\nwalks\nalong K");
    EXPECT_EQ(BreakLines("fits", 10, kGrid), "fits");
    EXPECT_EQ(BreakLines("", 10, kGrid), "");
}

TEST(TextWrap, AWordWiderThanTheLineIsSplitAfterASeparator) {
    EXPECT_EQ(BreakLines("cudaOcc_RegAllocation", 12, kGrid), "cudaOcc_\nRegAllocatio\nn");
    EXPECT_EQ(BreakLines("abcdefghij", 4, kGrid), "abcd\nefgh\nij");
}

// The widest piece no line may break inside: the column width below which a word is cut.
TEST(TextWrap, TheWidestUnbreakablePieceIsAWordOrACharacterWithItsPunctuation) {
    EXPECT_EQ(WidestUnbreakable("Threads per block (T)", kGrid), 7.0f);   // "Threads"
    EXPECT_EQ(WidestUnbreakable("XOR swizzle", kGrid), 7.0f);
    EXPECT_EQ(WidestUnbreakable("", kGrid), 0.0f);
    // 线程块（T）: "（T）" holds together (no break after "（" nor before "）"), 2 + 1 + 2 wide.
    EXPECT_EQ(WidestUnbreakable("\xe7\xba\xbf\xe7\xa8\x8b\xe5\x9d\x97\xef\xbc\x88T\xef\xbc\x89", kGrid), 5.0f);
    // At that width no line breaks inside a word; a unit narrower, one does.
    const std::string label = "Outputs per thread (U)";
    const float least = WidestUnbreakable(label, kGrid);
    for (const std::string& line : lines_of(BreakLines(label, least, kGrid)))
        EXPECT_TRUE(line == "Outputs" || line == "per" || line == "thread" || line == "(U)" || line == "per thread" || line == "thread (U)")
            << line;
    EXPECT_NE(BreakLines(label, least - 1, kGrid).find("Output\n"), std::string::npos);
}

TEST(TextWrap, ItsOwnLineBreaksAndIndentsAreKept) {
    EXPECT_EQ(BreakLines("one\n  two\n\nthree", 20, kGrid), "one\n  two\n\nthree");
    EXPECT_EQ(BreakLines("a b\n", 20, kGrid), "a b\n");
}

// Random text of words, CJK runs, punctuation and line breaks: nothing lost or reordered, every
// line within the width (but a single character wider than it), each step forward.
TEST(TextWrap, RandomTextKeepsItsCharactersAndFitsItsWidth) {
    std::mt19937 rng(0x7e47);
    const std::vector<std::string> pieces = {"the", "block", "k", "TILE×TILE", "cudaOccRegAllocationGranularity", "线程块",
                                             "共享内存", "，", "。", "（", "）", "128", " ", " ", " ", "\n", "《分块》", "a_b/c-d"};
    for (int round = 0; round < 2000; ++round) {
        std::string text;
        for (int i = int(rng() % 40); i > 0; --i) text += pieces[rng() % pieces.size()];
        const float width = float(1 + rng() % 30);
        const std::string broken = BreakLines(text, width, kGrid);
        ASSERT_EQ(without(broken, "\n "), without(text, "\n ")) << text;
        for (const std::string& line : lines_of(broken))
            if (chars_of(line).size() > 1) {
                EXPECT_LE(width_of(line), width) << "width " << width << ": " << line;
            }
    }
}

TEST(TextWrap, ALineBreakInTheSourceIsASpaceOnlyBetweenWords) {
    EXPECT_TRUE(SourceBreakIsSpace('d', 'w'));
    EXPECT_TRUE(SourceBreakIsSpace(0x901A, 'G')) << "通 / GPU: Latin beside CJK keeps its space";
    EXPECT_FALSE(SourceBreakIsSpace(0x901A, 0x8BFB)) << "通道 / 读得";
    EXPECT_FALSE(SourceBreakIsSpace(0xFF0C, 0x4E00)) << "， / 一";
}

// In a real frame with ImGui's built-in font (ASCII only): a line wraps within the window, and a
// character the font lacks is named as a layout problem instead of being drawn as a box unnoticed.
TEST(TextWrap, InAFrameLinesFitTheWindowAndAMissingGlyphIsNamed) {
    const ImGuiTestContext context(ImVec2(400, 300));
    ImGui::NewFrame();
    LayoutProblems().clear();
    ImGui::SetNextWindowSize(ImVec2(200, 200));
    ImGui::Begin("wrap");
    const std::string lines = [] {
        ImGui::PushTextWrapPos(0.0f);
        std::string out = WrapLines("the block walks along K in steps of T and waits at a barrier");
        ImGui::PopTextWrapPos();
        return out;
    }();
    const float room = ImGui::GetContentRegionAvail().x;
    for (const std::string& line : lines_of(lines)) EXPECT_LE(ImGui::CalcTextSize(line.c_str()).x, room) << line;
    EXPECT_GE(lines_of(lines).size(), 3u);
    WrappedText("plain ASCII");
    EXPECT_TRUE(LayoutProblems().empty());
    WrappedText("\xe4\xb8\xad: a CJK character");
    ASSERT_EQ(LayoutProblems().size(), 1u);
    EXPECT_NE(LayoutProblems()[0].find("U+4E2D"), std::string::npos) << LayoutProblems()[0];
    ImGui::End();
    ImGui::EndFrame();
}

TEST(TextWrap, MalformedBytesEndWithoutALoop) {
    const std::string bytes = "\xff\xfe\xe4\xb8 abc \xe4\xb8\xad\xe6";
    for (float width = 1; width < 6; width += 1) {
        const std::string broken = BreakLines(bytes, width, kGrid);
        EXPECT_EQ(without(broken, "\n "), without(bytes, "\n ")) << width;
    }
}

}  // namespace
}  // namespace tilelab::gui
