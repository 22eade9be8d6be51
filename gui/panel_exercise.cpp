// [SECTION] Exercise (Code tab): write the lesson's kernel yourself. An editor with line numbers
// in a gutter (same font and line height, scrolled with the text), compile errors marked at their
// lines and listed under it (a click moves the cursor there), Undo/Redo over saved versions, a
// reset to the starting file that keeps a backup, the user's kernel next to the lesson's:
// time, rate, registers, spills, occupancy, validation, and after a full run on a GPU where its
// warps waited, a bar beside each sampled line as in the Code panel. State and actions:
// gui/exercise_editor.*.
#include <imgui.h>
#include <algorithm>
#include <string>
#include "exercise_editor.h"
#include "fonts.h"
#include "panels.h"
#include "stall_view.h"
#include "tilelab/i18n.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

const ImVec4 kGutterText(0.50f, 0.53f, 0.60f, 1.0f);
const ImVec4 kErrorText(1.00f, 0.45f, 0.40f, 1.0f);
const ImU32 kErrorLine = IM_COL32(220, 60, 50, 70);
const ImU32 kEditorBg = IM_COL32(24, 26, 32, 255);

struct EditorCallbackData {
    ExerciseEditorState* e;
    std::string* buffer;
};

int offset_of(const char* text, int length, int line, int column) {
    int at = 0;
    for (int l = 1; l < line && at < length; ++at)
        if (text[at] == '\n') ++l;
    for (int c = 1; c < column && at < length && text[at] != '\n'; ++c) ++at;
    return at;
}

int editor_callback(ImGuiInputTextCallbackData* data) {
    auto* ctx = static_cast<EditorCallbackData*>(data->UserData);
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        ctx->buffer->resize(size_t(data->BufTextLen));
        data->Buf = ctx->buffer->data();
        return 0;
    }
    ExerciseEditorState& e = *ctx->e;
    if (e.goto_line > 0) {   // a click on an error: the cursor to its line and column
        data->CursorPos = data->SelectionStart = data->SelectionEnd =
            offset_of(data->Buf, data->BufTextLen, e.goto_line, std::max(1, e.goto_column));
        e.goto_line = 0;
    }
    e.cursor_line = 1 + int(std::count(data->Buf, data->Buf + data->CursorPos, '\n'));
    return 0;
}

const Diagnostic* first_at_line(const std::vector<Diagnostic>& ds, int line) {
    for (const Diagnostic& d : ds)
        if (d.line == line) return &d;
    return nullptr;
}

void draw_toolbar(AppState& state) {
    ExerciseEditorState& e = state.exercise;
    ImGui::BeginDisabled(e.undo.empty());
    if (ImGui::Button(tr("exercise.undo").c_str())) ExerciseUndo(state);
    ImGui::EndDisabled();
    // The buttons in a row where they fit (a projector's text size wraps them).
    SameLineIfFits(ButtonWidth(tr("exercise.redo").c_str()));
    ImGui::BeginDisabled(e.redo.empty());
    if (ImGui::Button(tr("exercise.redo").c_str())) ExerciseRedo(state);
    ImGui::EndDisabled();
    SameLineIfFits(ButtonWidth(tr("exercise.reset_button").c_str()));
    // The popup's ID stays the same in both languages ("###"), so a switch never loses it.
    const std::string reset_title = tr("exercise.reset_title") + "###reset_exercise";
    if (ImGui::Button(tr("exercise.reset_button").c_str())) ImGui::OpenPopup(reset_title.c_str());
    HelpMarker(tr("exercise.help").c_str());
    if (e.dir.empty()) {   // beside the buttons where it fits, else under them
        const std::string why = tr("exercise.not_saved_no_folder");
        SameLineIfFits(ImGui::CalcTextSize(why.c_str()).x);
        WrappedTextColored(CautionColorVec(), why);
    } else {
        ImGui::SameLine();
        // Shortened to the room left on the line; the whole path is the tooltip.
        ImGui::PushStyleColor(ImGuiCol_Text, e.saved ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled) : kErrorText);
        TextEllipsized(e.saved ? trf("exercise.saved_as", e.file_name) : trf("exercise.not_saved_as", e.file_name));
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) WrappedTooltip((e.dir + "/" + e.file_name).c_str());
    }
    if (!e.note.empty()) {
        WrappedTextColored(e.note_is_error ? kErrorText : kGutterText, e.note);
    }
    if (ImGui::BeginPopupModal(reset_title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
        WrappedText(tr("exercise.reset_text"));
        ImGui::PopTextWrapPos();
        if (ImGui::Button(tr("exercise.reset").c_str())) {
            ExerciseReset(state);
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button(tr("compare.cancel").c_str()) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

void draw_editor(AppState& state, float height) {
    ExerciseEditorState& e = state.exercise;
    PushFontOrDefault(AppFonts().mono);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float line_h = ImGui::GetFontSize();   // InputTextMultiline's line height
    const int lines = 1 + int(std::count(e.text.begin(), e.text.end(), '\n'));
    const int digits = std::max(3, int(std::to_string(lines).size()));
    // Where the warps waited, beside the lines (a full run on a GPU), while the text is the one
    // that was sampled: after an edit the lines would no longer match.
    const RunResult* sampled = e.result && e.result_text == e.text ? e.result.get() : nullptr;
    const std::vector<const StallLine*> stalls = sampled ? StallLinesOf(*sampled, size_t(lines)) : std::vector<const StallLine*>{};
    const uint64_t most = StallMostOf(stalls);
    const float bar_w = most > 0 ? ImGui::CalcTextSize("0").x * 4 : 0.0f;
    const float gutter_w = bar_w + ImGui::CalcTextSize("0").x * float(digits + 1) + style.FramePadding.x;
    float text_w = 0;
    for (size_t start = 0; start <= e.text.size();) {
        size_t end = e.text.find('\n', start);
        if (end == std::string::npos) end = e.text.size();
        text_w = std::max(text_w, ImGui::CalcTextSize(e.text.data() + start, e.text.data() + end).x);
        start = end + 1;
    }

    ImGui::BeginChild("##exercise_scroll", ImVec2(0, height), true, ImGuiWindowFlags_HorizontalScrollbar);
    const bool want_goto = e.goto_line > 0;
    const int goto_line = e.goto_line;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float editor_h = float(lines + 1) * line_h + 2 * style.FramePadding.y;
    const float editor_w = std::max(ImGui::GetContentRegionAvail().x - gutter_w, text_w + 4 * line_h);
    const ImVec2 text_min(origin.x + gutter_w, origin.y);
    draw->AddRectFilled(text_min, ImVec2(text_min.x + editor_w, text_min.y + editor_h), kEditorBg);
    // The gutter and the error lines, for the visible lines only.
    const float scroll_y = ImGui::GetScrollY();
    const int first = std::max(0, int((scroll_y - style.FramePadding.y) / line_h));
    const int last = std::min(lines, first + int(ImGui::GetWindowHeight() / line_h) + 2);
    for (int i = first; i < last; ++i) {
        const float y = origin.y + style.FramePadding.y + float(i) * line_h;
        const Diagnostic* d = first_at_line(e.diagnostics, i + 1);
        if (d && d->severity == "error")
            draw->AddRectFilled(ImVec2(origin.x, y), ImVec2(text_min.x + editor_w, y + line_h), kErrorLine);
        const std::string number = std::to_string(i + 1);
        const float w = ImGui::CalcTextSize(number.c_str()).x;
        const ImVec4& colour = d ? (d->severity == "error" ? kErrorText : CautionColorVec()) : kGutterText;
        draw->AddText(ImVec2(text_min.x - style.FramePadding.x - w, y), ImGui::GetColorU32(colour), number.c_str());
        if (most > 0) DrawStallBarAt(draw, ImVec2(origin.x, y), ImVec2(bar_w, line_h), sampled->stalls, stalls[size_t(i)], most);
    }

    ImGui::SetCursorScreenPos(text_min);
    if (want_goto) ImGui::SetKeyboardFocusHere();
    std::string buffer = e.text;
    EditorCallbackData ctx{&e, &buffer};
    ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(0, 0, 0, 0));   // drawn above, under the error lines
    const bool changed = ImGui::InputTextMultiline(
        "##exercise_text", buffer.data(), buffer.capacity() + 1, ImVec2(editor_w, editor_h),
        ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackResize | ImGuiInputTextFlags_CallbackAlways,
        editor_callback, &ctx);
    ImGui::PopStyleColor();
    if (changed) {
        buffer.resize(std::char_traits<char>::length(buffer.c_str()));
        ExerciseEdited(state, buffer);
    }
    // Keep the cursor's line in view as it moves (typing, arrows, a click on an error).
    const bool active = ImGui::IsItemActive();
    e.editor_active = active;
    if (e.reveal_line > 0 && !active && !want_goto) {   // new errors while the user is not typing: show the first
        const float y = style.FramePadding.y + float(e.reveal_line - 1) * line_h;
        if (y < ImGui::GetScrollY() || y + line_h > ImGui::GetScrollY() + ImGui::GetWindowHeight() - style.ScrollbarSize)
            ImGui::SetScrollY(std::max(0.0f, y - ImGui::GetWindowHeight() / 3));
    }
    e.reveal_line = 0;
    if (want_goto || (active && e.cursor_line != e.shown_cursor_line)) {
        const int line = want_goto ? goto_line : e.cursor_line;
        const float y = style.FramePadding.y + float(line - 1) * line_h;
        const float view_h = ImGui::GetWindowHeight() - style.ScrollbarSize - 2 * style.WindowPadding.y;
        if (want_goto) ImGui::SetScrollY(std::max(0.0f, y - view_h / 3));
        else if (y < ImGui::GetScrollY()) ImGui::SetScrollY(y);
        else if (y + line_h > ImGui::GetScrollY() + view_h) ImGui::SetScrollY(y + line_h - view_h);
        e.shown_cursor_line = e.cursor_line;
    }
    ImGui::EndChild();
    ImGui::PopFont();
}

void draw_diagnostics(ExerciseEditorState& e) {
    for (size_t i = 0; i < e.diagnostics.size(); ++i) {
        const Diagnostic& d = e.diagnostics[i];
        // Appended piece by piece: `":" + std::to_string(...)` trips GCC 12's false -Wrestrict at -O3.
        std::string text = std::to_string(d.line);
        if (d.column > 0) text.append(":").append(std::to_string(d.column));
        text.append("  ").append(d.severity).append(": ").append(d.message);
        // One row a message, cut to the list's width (a compiler's message can run to thousands of
        // characters: template arguments, a long identifier); the whole of it on hover.
        const std::string shown = Ellipsized(text, ImGui::GetContentRegionAvail().x);
        ImGui::PushStyleColor(ImGuiCol_Text, d.severity == "error" ? kErrorText : CautionColorVec());
        if (ImGui::Selectable((shown + "##diag" + std::to_string(i)).c_str())) {
            e.goto_line = d.line;
            e.goto_column = d.column;
        }
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered())
            WrappedTooltip(((shown != text ? text + "\n\n" : std::string()) + tr("exercise.click_to_go")).c_str());
    }
}

}  // namespace

void DrawExercisePanel(AppState& state) {
    std::string why;
    if (!CurrentExercise(state, &why)) {
        WrappedTextDisabled(trf("exercise.no_exercise", why));
        return;
    }
    ExerciseEnsureLoaded(state);
    ExerciseEditorState& e = state.exercise;
    draw_toolbar(state);
    DrawExerciseComparison(state);
    // Where the learner's warps wait (a full run on a GPU): folded under its summary; a line is one
    // click from the editor.
    if (const RunResult* mine = e.result.get(); mine && mine->stalls.has_samples()) {
        // Shortened to the header's width (the arrow and its padding aside); the whole on hover.
        const std::string summary = trf("exercise.stalls_title", stall_summary(mine->stalls, mine->kernel_file));
        const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() - 4 * ImGui::GetStyle().FramePadding.x;
        const bool open = ImGui::CollapsingHeader((Ellipsized(summary, room) + "###exercise_stalls").c_str());
        if (ImGui::IsItemHovered()) WrappedTooltip(summary.c_str());
        if (open)
            if (const int line = DrawStallTopLines(*mine, 5)) e.goto_line = line;
    }
    // The errors under the editor: up to six lines of them visible, the rest scroll.
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const float list_h = e.diagnostics.empty() ? 0 : row_h * float(std::min<size_t>(e.diagnostics.size(), 6)) + row_h;
    const float avail = ImGui::GetContentRegionAvail().y;
    draw_editor(state, std::max(row_h * 8, avail - list_h - ImGui::GetStyle().ItemSpacing.y));
    if (!e.diagnostics.empty()) {
        ImGui::BeginChild("##exercise_errors", ImVec2(0, 0), false);
        draw_diagnostics(e);
        ImGui::EndChild();
    }
}

}  // namespace tilelab::gui
