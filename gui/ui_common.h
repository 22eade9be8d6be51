// Small helpers every panel shares: the (?) marker, pass/fail colours, and number formatting
// with units, so the same quantity reads the same everywhere.
#pragma once
#include <initializer_list>
#include <string_view>
#include <vector>
#include <string>
#include <imgui.h>
#include "tilelab/format.h"   // format_bytes: sizes as the CLI writes them

namespace tilelab::gui {

// A greyed "(?)" on the current line; hovering shows `text` wrapped at a readable width.
void HelpMarker(const char* text);
// Whether `width` more fits right of the previous item, `gap` after it (-1: the style's spacing),
// on the window's line. SameLineIfFits puts the next item there when it does, else on a new line:
// rows of buttons, swatches and headlines wrap with it.
bool FitsOnThisLine(float width, float gap = -1.0f);
void SameLineIfFits(float width, float gap = -1.0f);
// The width of ImGui::Button(label) (its text and the frame's padding).
float ButtonWidth(const char* label);
// The width for a field that wants `wanted` px with `after` px more to follow it on its line (a
// button beside it): what the line leaves, down to `least`; below that the field takes the line
// and what follows wraps under it (SameLineIfFits). Never wider than the line.
float FieldWidth(float wanted, float after = 0, float least = 0);

// A data table's column: a stretch weight, or a fixed width in font heights, or neither: as wide
// as its header and its widest cell.
struct TableColumn {
    const char* name;
    float stretch = 0;
    float fixed_em = 0;
    // A stretched column's least width, in ems, below which the table scrolls sideways instead
    // (0: three ems per unit of stretch, a word or two a line; WidestEm measures its cells').
    float least_em = 0;
};
// The widest of `texts` in ems, whole or (`words`) its widest piece no line breaks inside: what a
// column of them needs not to cut one.
float WidestEm(const std::vector<std::string>& texts, bool words);
// ImGui::BeginTable with the look every data table shares (borders, striped rows, proportional
// widths) plus `extra` flags, then its columns and the header row (frozen when it scrolls). Too
// narrow for its columns, it scrolls sideways with the first column frozen. Call EndDataTable()
// only when it returns true.
bool BeginDataTable(const char* id, const std::vector<TableColumn>& columns, ImGuiTableFlags extra = 0,
                    ImVec2 size = ImVec2(0, 0));
// ImGui::EndTable, keeping the height the rows took (a table that scrolls sideways is that tall).
void EndDataTable();
// Text cut short where it must not be (a headline number, a table header, a step's parameter out of
// view), found while drawing: one sentence each. The app clears the list when a frame starts;
// `tilelab --headless --check-layout` fails on what the last frame found.
void ReportLayoutProblem(std::string what);
std::vector<std::string>& LayoutProblems();
// At the end of a frame: a window whose content ran past its right edge, where nothing scrolls to
// it (text that does not wrap, a row of buttons that does not break), is a layout problem.
// `wide`: the names of child windows meant to be wider (a code editor's text, ImGui's child of a
// multi-line text field, scrolls sideways without a scrollbar).
void ReportOverflowingWindows(std::initializer_list<std::string_view> wide);
// The end of the report that a step's parameter is out of view (panel_params.cpp), so that a check
// may leave it out (the headless monkey at large text sizes, where one parameter's row can be
// taller than its panel).
inline constexpr std::string_view kOutOfView = " is out of view";

// `text` on one line, cut at a character boundary and ended with "..." when it is wider than the
// room left on the line; returns whether it was cut (the caller shows the whole in a tooltip).
bool TextEllipsized(const std::string& text);
// `text` as TextEllipsized would draw it in `room` pixels of the current font.
std::string Ellipsized(const std::string& text, float room);
// `text` in `colour` on the current line, shortened to end before `right` (an x in the window, as
// GetCursorPosX gives), the whole of it in a tooltip when shortened; nothing where not even "..."
// fits. Returns whether it drew. For a line of several parts (the status bar) that must not run
// past the window's edge at a large text size.
bool FittedText(const std::string& text, const ImVec4& colour, float right);
// `text` wrapped at the column's edge with " (?)" after it when there is `help` (may be null),
// shown on hover: unlike HelpMarker beside unwrapped text, the marker wraps with the words and is
// never cut off in a narrow column. `dim` draws it in the disabled colour.
void TextWithHelp(const std::string& text, const char* help, bool dim = false);
// A tooltip with `text` wrapped at a readable width; call it while the item is hovered.
void WrappedTooltip(const char* text);

// A result's stage ("input", "compile", "launch", "run", ...) in the current language.
std::string StageName(const std::string& stage);

// Green for a pass / valid value, red for a failure.
ImU32 StatusColor(bool ok);
ImVec4 StatusColorVec(bool ok);
// Amber for a caution: what is shown holds, but read it with this sentence (a notice, a warning,
// samples the hardware dropped or a sampling period left out).
ImVec4 CautionColorVec();

// 1234567 -> "1.23 M"; 950 -> "950". Plain SI prefixes (k, M, G, T), three significant digits: a
// compact figure for headlines and narrow columns (the exact count is tilelab::format_count).
std::string FormatCount(double n);
// 0.125 -> "12.5%", 0.5 -> "50%": whole percentages whole, others with one decimal (the CLI's
// fmt_pct rule), so 8 of 64 warps reads the same in every panel and in the terminal.
std::string PercentText(double fraction);
// 0.0123 -> "12.3 us", 15.2 -> "15.2 ms", 2500 -> "2.50 s".
std::string FormatTime(double ms);

// The factor text and spacing are drawn at in a window of `width` x `height` screen units: 1 at
// the 1280x720 the layout is designed at and above; smaller windows shrink everything in
// proportion (1024x768: 0.8), in steps of 0.05 so that resizing rebuilds the fonts a few times,
// not every frame, and never below 0.7 (14-point body text stays readable).
float WindowFitScale(float width, float height);

}  // namespace tilelab::gui
