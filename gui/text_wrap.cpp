#include "text_wrap.h"
#include <fmt/format.h>
#include <imgui_internal.h>
#include "ui_common.h"
#include <algorithm>
#include <initializer_list>

namespace tilelab::gui {

bool IsCjk(unsigned c) {
    return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF);
}

bool ClosesCjk(unsigned c) {
    for (unsigned p : {0xFF0Cu, 0x3002u, 0x3001u, 0xFF1Bu, 0xFF1Au, 0xFF1Fu, 0xFF01u, 0xFF09u, 0x300Bu, 0x300Du, 0x300Fu,
                       0x3011u, 0x2019u, 0x201Du, 0x2026u})
        if (c == p) return true;
    return false;
}

bool OpensCjk(unsigned c) {
    for (unsigned p : {0xFF08u, 0x300Au, 0x300Cu, 0x300Eu, 0x3010u, 0x2018u, 0x201Cu})
        if (c == p) return true;
    return false;
}

bool SourceBreakIsSpace(unsigned before, unsigned after) { return !IsCjk(before) || !IsCjk(after); }

namespace {

// One code point at s (a malformed byte reads as one character), and its length.
unsigned char_at(const char* s, const char* e, int& length) {
    unsigned c = 0;
    const int n = ImTextCharFromUtf8(&c, s, e);
    length = n > 0 ? n : 1;
    return c;
}

// Whether a line may break before c, after prev (both of the same text; not at its start).
bool may_break(unsigned prev, unsigned c) {
    if (ClosesCjk(c) || OpensCjk(prev)) return false;
    return c == ' ' || prev == ' ' || IsCjk(c) || IsCjk(prev);
}

}  // namespace

const char* WrapPosition(const Advance& advance, const char* b, const char* e, float avail) {
    float width = 0.0f;
    const char* last_break = b;
    unsigned prev = 0;
    for (const char* s = b; s < e;) {
        int n = 0;
        const unsigned c = char_at(s, e, n);
        if (c == '\n') return s;
        if (s > b && may_break(prev, c)) last_break = s;
        width += advance(c);
        if (width > avail) return last_break;
        prev = c;
        s += n;
    }
    return e;
}

const char* NextBreak(const char* b, const char* e) {
    unsigned prev = 0;
    for (const char* s = b; s < e;) {
        int n = 0;
        const unsigned c = char_at(s, e, n);
        if (s > b && (c == '\n' || may_break(prev, c))) return s;
        prev = c;
        s += n;
    }
    return e;
}

const char* SplitPosition(const Advance& advance, const char* b, const char* e, float avail) {
    float width = 0.0f;
    const char* fits = b;
    const char* before_last = b;   // fits, one character back
    const char* separator = nullptr;
    for (const char* s = b; s < e;) {
        int n = 0;
        const unsigned c = char_at(s, e, n);
        width += advance(c);
        if (width > avail && s > b) break;
        before_last = fits;
        s += n;
        fits = s;
        if (c == '_' || c == '.' || c == '/' || c == '-') separator = s;
    }
    if (separator && separator - b >= (fits - b) / 3) return separator;
    // "（PREC" + "）": the closing mark goes down with the character before it.
    int n = 0;
    if (fits < e && before_last > b && ClosesCjk(char_at(fits, e, n))) return before_last;
    return fits;
}

float WidestUnbreakable(std::string_view text, const Advance& advance) {
    float widest = 0;
    const char* const e = text.data() + text.size();
    for (const char* b = text.data(); b < e;) {
        const char* next = NextBreak(b, e);
        float width = 0;
        for (const char* s = b; s < next;) {
            int n = 0;
            const unsigned c = char_at(s, next, n);
            if (c != ' ' && c != '\n') width += advance(c);
            s += n;
        }
        widest = std::max(widest, width);
        b = next;
    }
    return widest;
}

Advance CurrentAdvance() { return Advance(ImGui::GetFont(), ImGui::GetFontSize()); }

float WidestUnbreakable(std::string_view text) { return WidestUnbreakable(text, CurrentAdvance()); }

std::string BreakLines(std::string_view text, float width, const Advance& advance) {
    std::string out;
    out.reserve(text.size() + text.size() / 16);
    const char* b = text.data();
    const char* const e = b + text.size();
    while (b < e) {
        const char* brk = WrapPosition(advance, b, e, width);
        if (brk == e) {
            out.append(b, e);
            break;
        }
        if (brk == b && *b != '\n') brk = SplitPosition(advance, b, NextBreak(b, e), width);
        const char* end = brk;   // a line ends at its last non-space, as ImGui draws it
        while (end > b && end[-1] == ' ') --end;
        out.append(b, end);
        out += '\n';
        b = brk;
        if (b < e && *b == '\n') ++b;   // the text's own break: the line after keeps its indent
        else
            while (b < e && *b == ' ') ++b;
    }
    return out;
}

std::string WrapLines(std::string_view text) {
    const ImGuiWindow* window = ImGui::GetCurrentWindow();
    const float wrap_pos = window->DC.TextWrapPos;
    if (wrap_pos < 0.0f) return std::string(text);
    // ImGui measures the same widths in the font's own units; a pixel to spare keeps a rounding
    // difference from breaking a line of ours a second time.
    const float width = ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos) - 1.0f;
    return BreakLines(text, std::max(width, 1.0f), CurrentAdvance());
}

void ReportMissingGlyphs(std::string_view text) {
    const ImFont* font = ImGui::GetFont();
    const char* e = text.data() + text.size();
    for (const char* s = text.data(); s < e;) {
        int n = 0;
        const unsigned c = char_at(s, e, n);
        if (c > ' ' && c <= 0xFFFF && !font->FindGlyphNoFallback(ImWchar(c))) {
            ReportLayoutProblem(fmt::format("U+{:04X} has no glyph in the font: \"{}\"", c, std::string(text.substr(0, 80))));
            return;
        }
        s += n;
    }
}

void WrappedText(std::string_view text) {
    ReportMissingGlyphs(text);
    const bool push = ImGui::GetCurrentWindow()->DC.TextWrapPos < 0.0f;   // as ImGui::TextWrapped
    if (push) ImGui::PushTextWrapPos(0.0f);
    const std::string lines = WrapLines(text);
    ImGui::TextUnformatted(lines.data(), lines.data() + lines.size());
    if (push) ImGui::PopTextWrapPos();
}

void WrappedTextColored(const ImVec4& colour, std::string_view text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    WrappedText(text);
    ImGui::PopStyleColor();
}

void WrappedTextDisabled(std::string_view text) { WrappedTextColored(ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), text); }

}  // namespace tilelab::gui
