#include "markdown.h"
#include <md4c.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <algorithm>
#include <string>
#include <vector>
#include "code_grid.h"
#include "fonts.h"
#include "text_wrap.h"
#include "ui_common.h"

namespace tilelab::gui {

namespace {

const ImVec4 kCodeText(0.95f, 0.72f, 0.45f, 1.0f);
const ImVec4 kLinkText(0.45f, 0.70f, 1.0f, 1.0f);
const ImVec4 kQuoteText(0.75f, 0.78f, 0.85f, 1.0f);
const ImU32 kCodeBackground = IM_COL32(255, 255, 255, 22);

struct ListLevel {
    bool ordered = false;
    unsigned next_number = 1;
};

// The parser calls back into this as it walks the document; we draw as we go.
struct Renderer {
    int heading = 0;             // 1..6 inside a heading, else 0
    int strong = 0, emphasis = 0, code_span = 0, link = 0, quote = 0;
    bool in_code_block = false, in_html = false;
    std::string code_block;
    std::vector<ListLevel> lists;
    bool line_started = false;   // something is already on the current line
    bool soft_break = false;     // a line break inside the paragraph's source, not yet placed
    unsigned last_char = 0;      // the last character placed
    bool after_bullet = false;   // the next text continues the bullet's line
    int table_count = 0;
    bool table_open = false;
    float indent_width = 0;

    ImFont* font() const {
        const Fonts& f = AppFonts();
        if (heading == 1) return f.h1;
        if (heading == 2) return f.h2;
        if (heading >= 3) return f.h3;
        if (code_span) return f.mono;
        if (strong) return f.bold;
        if (emphasis) return f.italic;
        return f.body;
    }

    void end_line() {
        // The cursor is already below the last item; only our own bookkeeping changes.
        line_started = false;
        after_bullet = false;
    }

    // Places text on the current line, wrapping at word boundaries.
    void emit(const char* b, const char* e) {
        if (b < e) last_char = last_code_point(b, e);
        ImFont* f = font();
        PushFontOrDefault(f);
        ReportMissingGlyphs(std::string_view(b, size_t(e - b)));
        ImFont* active = ImGui::GetFont();
        const bool coloured = code_span || link || quote;
        if (coloured) ImGui::PushStyleColor(ImGuiCol_Text, code_span ? kCodeText : link ? kLinkText : kQuoteText);
        const Advance advance(active, DrawnSize(active));
        while (b < e) {
            if (line_started) ImGui::SameLine(0, 0);
            const float avail = ImGui::GetContentRegionAvail().x;
            // A word (or a CJK character) that does not fit moves down whole, never cut.
            const char* brk = WrapPosition(advance, b, e, avail);
            if (brk == b) {
                if (line_started) {   // nothing fits after what is there: start a new line
                    ImGui::NewLine();
                    line_started = false;
                    while (b < e && *b == ' ') ++b;
                    continue;
                }
                // Wider than the column: the word is broken where the line ends. Only a single
                // character wider than the whole column can still run past it.
                brk = SplitPosition(advance, b, NextBreak(b, e), avail);
                if (active->CalcTextSizeA(DrawnSize(active), FLT_MAX, 0, b, brk).x > avail + 1.0f)
                    ReportLayoutProblem("lesson text '" + std::string(b, brk) + "' runs past its column");
            }
            if (code_span) {
                const ImVec2 p = ImGui::GetCursorScreenPos();
                const ImVec2 size = active->CalcTextSizeA(DrawnSize(active), FLT_MAX, 0, b, brk);
                ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x - 1, p.y), ImVec2(p.x + size.x + 1, p.y + size.y),
                                                          kCodeBackground, 3.0f);
            }
            ImGui::TextUnformatted(b, brk);
            line_started = true;
            after_bullet = false;
            b = brk;
            if (b < e) {
                line_started = false;
                while (b < e && (*b == ' ' || *b == '\n')) ++b;
            }
        }
        if (coloured) ImGui::PopStyleColor();
        ImGui::PopFont();
    }

    void emit(std::string_view s) { emit(s.data(), s.data() + s.size()); }

    // Text after a line break in the paragraph's source: the break is a space between words, and
    // nothing between two CJK characters (Chinese puts no space there).
    void emit_after_break(std::string_view s) {
        if (soft_break && !s.empty()) {
            soft_break = false;
            unsigned first = 0;
            ImTextCharFromUtf8(&first, s.data(), s.data() + s.size());
            if (SourceBreakIsSpace(last_char, first)) emit(" ");
        }
        emit(s);
    }

    static unsigned last_code_point(const char* b, const char* e) {
        const char* s = e - 1;
        while (s > b && e - s < 4 && (static_cast<unsigned char>(*s) & 0xC0) == 0x80) --s;
        unsigned c = 0;
        ImTextCharFromUtf8(&c, s, e);
        return c;
    }

    // Code keeps its line breaks and its columns (code_grid.h); a line wider than the column
    // scrolls sideways inside the block.
    void draw_code_block() {
        std::string text = code_block;
        while (!text.empty() && text.back() == '\n') text.pop_back();
        PushFontOrDefault(AppFonts().mono);
        struct Placed {
            std::string text;
            float x;
        };
        std::vector<std::vector<Placed>> lines;
        const float cell = ImGui::CalcTextSize("0").x;
        float width = 0;
        for (size_t at = 0; at <= text.size();) {
            size_t end = text.find('\n', at);
            if (end == std::string::npos) end = text.size();
            std::vector<Placed>& line = lines.emplace_back();
            float right = 0;
            for (CodeSegment& segment : CodeGridLine(std::string_view(text).substr(at, end - at))) {
                // At its column, or a cell after the text before it if that ran wider.
                const float x = line.empty() ? segment.column * cell : std::max(segment.column * cell, right + cell);
                right = x + ImGui::CalcTextSize(segment.text.c_str()).x;
                line.push_back({std::move(segment.text), x});
            }
            width = std::max(width, right);
            at = end + 1;
        }
        const ImVec2 pad = ImGui::GetStyle().FramePadding;
        const float line_height = ImGui::GetTextLineHeight();
        const ImVec2 size(width, line_height * float(lines.size()));
        const float avail = ImGui::GetContentRegionAvail().x;
        const bool too_wide = size.x + 2 * pad.x > avail;
        const float height = size.y + 2 * pad.y + (too_wide ? ImGui::GetStyle().ScrollbarSize : 0.0f);
        ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::ColorConvertU32ToFloat4(kCodeBackground));
        ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, pad);
        ImGui::PushStyleVar(ImGuiStyleVar_ChildRounding, 4.0f);
        ImGui::BeginChild(ImGui::GetID(code_block.c_str()), ImVec2(avail, height), false,
                          ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_AlwaysUseWindowPadding |
                              ImGuiWindowFlags_NoScrollWithMouse);
        const ImVec2 origin = ImGui::GetCursorScreenPos();
        const ImU32 colour = ImGui::ColorConvertFloat4ToU32(kCodeText);
        for (size_t row = 0; row < lines.size(); ++row)
            for (const Placed& p : lines[row])
                ImGui::GetWindowDrawList()->AddText(ImVec2(origin.x + p.x, origin.y + line_height * float(row)), colour,
                                                    p.text.c_str());
        ImGui::Dummy(size);
        ImGui::EndChild();
        ImGui::PopStyleVar(2);
        ImGui::PopStyleColor();
        ImGui::PopFont();
        ImGui::Spacing();
    }

    void enter(MD_BLOCKTYPE type, void* detail) {
        soft_break = false;
        switch (type) {
        case MD_BLOCK_H:
            heading = int(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
            if (ImGui::GetCursorPosY() > ImGui::GetStyle().WindowPadding.y + 1) ImGui::Spacing();
            end_line();
            break;
        case MD_BLOCK_P:
            if (!after_bullet) end_line();
            break;
        case MD_BLOCK_UL:
        case MD_BLOCK_OL: {
            ListLevel level;
            level.ordered = type == MD_BLOCK_OL;
            if (level.ordered) level.next_number = static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start;
            lists.push_back(level);
            if (line_started) end_line();
            indent_width = ImGui::GetFontSize() * 1.3f;
            ImGui::Indent(indent_width);
            break;
        }
        case MD_BLOCK_LI: {
            end_line();
            std::string marker = "\xe2\x80\xa2";   // U+2022 bullet
            if (!lists.empty() && lists.back().ordered) marker = std::to_string(lists.back().next_number++) + ".";
            const float indent_x = ImGui::GetCursorScreenPos().x;
            const float marker_w = ImGui::CalcTextSize(marker.c_str()).x;
            ImGui::SetCursorScreenPos(ImVec2(indent_x - marker_w - ImGui::GetFontSize() * 0.4f, ImGui::GetCursorScreenPos().y));
            ImGui::TextUnformatted(marker.c_str());
            ImGui::SameLine(0, 0);
            ImGui::Dummy(ImVec2(std::max(0.0f, indent_x - ImGui::GetCursorScreenPos().x), 0));
            line_started = true;
            after_bullet = true;
            break;
        }
        case MD_BLOCK_CODE:
            in_code_block = true;
            code_block.clear();
            end_line();
            break;
        case MD_BLOCK_QUOTE:
            ++quote;
            ImGui::Indent(ImGui::GetFontSize());
            end_line();
            break;
        case MD_BLOCK_HR:
            end_line();
            ImGui::Separator();
            break;
        case MD_BLOCK_HTML:
            in_html = true;
            break;
        case MD_BLOCK_TABLE: {
            end_line();
            const unsigned cols = static_cast<MD_BLOCK_TABLE_DETAIL*>(detail)->col_count;
            const std::string id = "##md_table" + std::to_string(table_count++);
            table_open = cols > 0 && ImGui::BeginTable(id.c_str(), int(cols),
                ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp);
            break;
        }
        case MD_BLOCK_TR:
            if (table_open) ImGui::TableNextRow();
            break;
        case MD_BLOCK_TH:
        case MD_BLOCK_TD:
            if (table_open) ImGui::TableNextColumn();
            if (type == MD_BLOCK_TH) ++strong;
            end_line();
            break;
        default:
            break;
        }
    }

    void leave(MD_BLOCKTYPE type) {
        soft_break = false;
        switch (type) {
        case MD_BLOCK_H:
            if (!line_started) ImGui::NewLine();
            end_line();
            if (heading <= 2) ImGui::Separator();
            heading = 0;
            break;
        case MD_BLOCK_P:
            if (!line_started && !after_bullet) break;
            end_line();
            if (lists.empty() && !table_open) ImGui::Spacing();
            break;
        case MD_BLOCK_UL:
        case MD_BLOCK_OL:
            lists.pop_back();
            end_line();
            ImGui::Unindent(ImGui::GetFontSize() * 1.3f);
            if (lists.empty()) ImGui::Spacing();
            break;
        case MD_BLOCK_LI:
            if (after_bullet) ImGui::NewLine();   // an empty item
            end_line();
            break;
        case MD_BLOCK_CODE:
            in_code_block = false;
            draw_code_block();
            break;
        case MD_BLOCK_QUOTE:
            --quote;
            end_line();
            ImGui::Unindent(ImGui::GetFontSize());
            break;
        case MD_BLOCK_HTML:
            in_html = false;
            break;
        case MD_BLOCK_TABLE:
            if (table_open) ImGui::EndTable();
            table_open = false;
            end_line();
            ImGui::Spacing();
            break;
        case MD_BLOCK_TH:
            --strong;
            end_line();
            break;
        case MD_BLOCK_TD:
            end_line();
            break;
        default:
            break;
        }
    }

    void span(MD_SPANTYPE type, int delta) {
        switch (type) {
        case MD_SPAN_EM: emphasis += delta; break;
        case MD_SPAN_STRONG: strong += delta; break;
        case MD_SPAN_CODE: code_span += delta; break;
        case MD_SPAN_A: link += delta; break;
        default: break;
        }
    }

    void text(MD_TEXTTYPE type, const char* b, unsigned size) {
        if (in_html || type == MD_TEXT_HTML) return;
        if (in_code_block) {
            code_block.append(b, size);
            return;
        }
        switch (type) {
        case MD_TEXT_BR:
            if (!line_started) ImGui::NewLine();
            end_line();
            break;
        case MD_TEXT_SOFTBR:
            soft_break = true;
            break;
        case MD_TEXT_ENTITY:
            emit_after_break(decode_entity(std::string_view(b, size)));
            break;
        case MD_TEXT_NULLCHAR:
            break;
        default:
            emit_after_break(std::string_view(b, size));
            break;
        }
    }

    static std::string decode_entity(std::string_view e) {
        if (e == "&amp;") return "&";
        if (e == "&lt;") return "<";
        if (e == "&gt;") return ">";
        if (e == "&quot;") return "\"";
        if (e == "&nbsp;") return " ";
        if (e.size() > 3 && e[1] == '#') {
            const bool hex = e[2] == 'x' || e[2] == 'X';
            unsigned long cp = '?';
            try {
                cp = std::stoul(std::string(e.substr(hex ? 3 : 2, e.size() - (hex ? 4 : 3))), nullptr, hex ? 16 : 10);
            } catch (const std::exception&) {   // a malformed reference stays a question mark
            }
            std::string out;
            if (cp < 0x80) out += char(cp);
            else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
            else if (cp < 0x10000) { out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
            return out;
        }
        return std::string(e);
    }
};

int on_enter_block(MD_BLOCKTYPE t, void* d, void* u) { static_cast<Renderer*>(u)->enter(t, d); return 0; }
int on_leave_block(MD_BLOCKTYPE t, void*, void* u) { static_cast<Renderer*>(u)->leave(t); return 0; }
int on_enter_span(MD_SPANTYPE t, void*, void* u) { static_cast<Renderer*>(u)->span(t, +1); return 0; }
int on_leave_span(MD_SPANTYPE t, void*, void* u) { static_cast<Renderer*>(u)->span(t, -1); return 0; }
int on_text(MD_TEXTTYPE t, const MD_CHAR* b, MD_SIZE n, void* u) { static_cast<Renderer*>(u)->text(t, b, n); return 0; }

}  // namespace

bool RenderMarkdown(std::string_view text) {
    MD_PARSER parser{};
    parser.abi_version = 0;
    parser.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH;
    parser.enter_block = on_enter_block;
    parser.leave_block = on_leave_block;
    parser.enter_span = on_enter_span;
    parser.leave_span = on_leave_span;
    parser.text = on_text;
    Renderer r;
    ImGui::PushID(text.data());
    const int rc = md_parse(text.data(), MD_SIZE(text.size()), &parser, &r);
    // Close whatever a malformed document left open so the ImGui stacks stay balanced.
    if (r.table_open) ImGui::EndTable();
    while (!r.lists.empty()) { r.lists.pop_back(); ImGui::Unindent(ImGui::GetFontSize() * 1.3f); }
    while (r.quote > 0) { --r.quote; ImGui::Unindent(ImGui::GetFontSize()); }
    ImGui::PopID();
    if (rc != 0) {
        WrappedText(text);
        return false;
    }
    return true;
}

}  // namespace tilelab::gui
