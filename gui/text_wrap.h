// Line breaks for text in both languages. Dear ImGui 1.86 breaks a wrapped line only at a space or
// after ASCII punctuation, so a Chinese sentence (no spaces) breaks at its last space, often half a
// line early, and a word-like run such as "（PREC）" is cut anywhere. Here a line may also break
// between two characters either of which is CJK, never before closing punctuation (，。）…) nor
// after opening punctuation (（《「…); a word wider than the whole line is split, preferably after
// '_', '.', '/' or '-'. The lesson text (markdown.cpp) places its words with these rules; every
// other wrapped text in the app goes through WrappedText or WrapLines.
#pragma once
#include <string>
#include <string_view>
#include <imgui.h>

namespace tilelab::gui {

bool IsCjk(unsigned c);
bool ClosesCjk(unsigned c);   // no line starts with it
bool OpensCjk(unsigned c);    // no line ends with it
// Whether a line break in a paragraph's source, between `before` and `after`, reads as a space:
// between words it does; between two CJK characters nothing is there (Chinese puts no spaces).
bool SourceBreakIsSpace(unsigned before, unsigned after);

// The width of one character (a code point), in the units of the widths below: a font's at a size,
// or any function's (the tests' fixed-width grid). Called for every character drawn, every frame.
class Advance {
public:
    Advance(ImFont* font, float size) : font_(font), scale_(size / font->FontSize) {}
    explicit Advance(float (*width)(unsigned)) : width_(width) {}
    float operator()(unsigned c) const { return font_ ? font_->GetCharAdvance(ImWchar(c)) * scale_ : width_(c); }

private:
    ImFont* font_ = nullptr;
    float scale_ = 1.0f;
    float (*width_)(unsigned) = nullptr;
};

// Where [b, e) must break to fit `avail`: at the last break point that fits; at a '\n' found
// first; e if it all fits; b if no break point fits.
const char* WrapPosition(const Advance& advance, const char* b, const char* e, float avail);
// The first break point after b's first character (or a '\n'); e if there is none.
const char* NextBreak(const char* b, const char* e);
// For a word wider than the line: the longest prefix of [b, e) that fits `avail`, ended after its
// last '_', '.', '/' or '-' where that keeps at least a third of it; at least one character.
const char* SplitPosition(const Advance& advance, const char* b, const char* e, float avail);

// The width of the widest piece of `text` no line may break inside (a word; a CJK character with
// the punctuation that clings to it): a column narrower than it cuts a word in two.
float WidestUnbreakable(std::string_view text, const Advance& advance);
// The current font at the size it is drawn (ImGui::GetFont, GetFontSize), and the widest piece in it.
Advance CurrentAdvance();
float WidestUnbreakable(std::string_view text);

// `text` with a '\n' wherever it must break to fit `width`: no line wider than `width` (but a
// single character wider than it), spaces at a break dropped, its own line breaks kept.
std::string BreakLines(std::string_view text, float width, const Advance& advance);

// `text` broken for the current window's wrap position (PushTextWrapPos; the content region's
// edge when none is pushed) with the current font, at the cursor's position. English too: ImGui
// would also break after a full stop, splitting "1.02 ms" into "1." and "02 ms".
std::string WrapLines(std::string_view text);
// A character of `text` the current font has no glyph for (it would be drawn as a box): a layout
// problem naming it and the text. The walk also counts the boxes drawn, but cannot say whose.
void ReportMissingGlyphs(std::string_view text);
// ImGui::TextWrapped, TextColored and TextDisabled with these breaks (no format strings); each
// reports its missing glyphs.
void WrappedText(std::string_view text);
void WrappedTextColored(const ImVec4& colour, std::string_view text);
void WrappedTextDisabled(std::string_view text);

}  // namespace tilelab::gui
