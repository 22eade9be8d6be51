#include "ui_common.h"
#include <fmt/format.h>
#include "tilelab/i18n.h"
#include "text_wrap.h"
#include <imgui_internal.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace tilelab::gui {

namespace {
// A header's name a line per word; Chinese has no spaces, so a full-width parenthesis starts a line too.
std::string StackedName(std::string_view name) {
    static constexpr std::string_view kOpen = "\xef\xbc\x88";   // （
    std::string out;
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == ' ') {
            out += '\n';
            continue;
        }
        if (i > 0 && name.substr(i, kOpen.size()) == kOpen && out.back() != '\n') out += '\n';
        out += name[i];
    }
    return out;
}

// A fixed column's width in pixels, a whole one to spare: ImGui rounds the width down, and a header
// that measured exactly its width (CountColumn sizes to it) lost its last pixel (at text size 0.73).
float FixedWidth(const TableColumn& c) { return std::ceil(ImGui::GetFontSize() * c.fixed_em) + 1.0f; }

// The widest line of a name (ImGui measures text of several lines by its widest).
float WidestLine(const std::string& text) { return ImGui::CalcTextSize(text.c_str()).x; }

// A stretched column's least width: what it asks for, else this many ems per unit of weight, enough
// for a word or two of its cells a line (the access names, the formulas) rather than a letter a line.
constexpr float kLeastEmPerStretch = 3.0f;
float LeastWidth(const TableColumn& c, const std::string& shown_name) {
    const float em = c.least_em > 0 ? c.least_em : c.stretch * kLeastEmPerStretch;
    // A few pixels to spare: the columns' widths are rounded, and a wrapped line keeps a pixel.
    return std::max(WidestLine(shown_name), ImGui::GetFontSize() * em) + 4.0f;
}

// How wide the table must be for no column to be squeezed: names stacked, stretched columns their
// least width, the others as wide as their content was when last drawn (`last`, or their names).
float NeededWidth(const std::vector<TableColumn>& columns, const ImGuiTable* last) {
    const float cell = ImGui::GetStyle().CellPadding.x * 2 + 1;
    float need = 0;
    for (size_t i = 0; i < columns.size(); ++i) {
        const TableColumn& c = columns[i];
        float w = WidestLine(StackedName(c.name));
        if (c.fixed_em > 0) w = FixedWidth(c);
        else if (c.stretch > 0) w = LeastWidth(c, StackedName(c.name));
        else if (last && int(i) < last->ColumnsCount) w = std::max(w, last->Columns[int(i)].WidthAuto);
        need += cell + w;
    }
    return need;
}
// Where a data table keeps the height its rows took (EndDataTable), in the window's storage.
ImGuiID RowsHeightKey(ImGuiID table) { return ImHashStr("rows height", 0, table); }
}  // namespace

bool BeginDataTable(const char* id, const std::vector<TableColumn>& columns, ImGuiTableFlags extra, ImVec2 size) {
    ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | extra;
    // A table that was not drawn in the frame before has no column widths yet: it is checked from
    // its second frame on.
    ImGuiStorage* storage = ImGui::GetStateStorage();
    const ImGuiID last_drawn = ImGui::GetID(id);
    // Nor one last drawn at another text size (its widths are of the old font).
    const ImGuiID font_key = ImHashStr("font size", 0, last_drawn);
    const bool sized = storage->GetInt(last_drawn, -2) == ImGui::GetFrameCount() - 1 &&
                       storage->GetFloat(font_key) == ImGui::GetFontSize();
    storage->SetInt(last_drawn, ImGui::GetFrameCount());
    storage->SetFloat(font_key, ImGui::GetFontSize());
    const ImGuiTable* last = sized ? ImGui::TableFindByID(last_drawn) : nullptr;
    const float room = size.x > 0 ? size.x : ImGui::GetContentRegionAvail().x;
    // Narrower than its columns need (large text on a projector's 1280x720): the table scrolls
    // sideways with its first column frozen, every column keeping a readable width, instead of
    // squeezing the names to a letter a line. Its height is what its rows took when last drawn, so
    // only the sideways scroll bar is added and the mouse wheel still scrolls the panel.
    // Once scrolling, it stays so until there is an em to spare, so that a scroll bar coming and
    // going beside it (which moves its edge) cannot flip it back and forth.
    const bool was_narrow = last && (last->Flags & ImGuiTableFlags_ScrollX) && !(extra & ImGuiTableFlags_ScrollX);
    const float need = NeededWidth(columns, last);
    const bool narrow = !(flags & ImGuiTableFlags_ScrollX) && need > room - (was_narrow ? ImGui::GetFontSize() : 0.0f);
    // Scrolling, the columns share a width of their own: what they need; where the table has that
    // much (the em of hysteresis), its own (0), so no scroll bar shows for a pixel or two.
    const float inner_width = narrow && need > room ? need : 0.0f;
    if (narrow) {
        flags |= ImGuiTableFlags_ScrollX;
        if (size.y <= 0) {
            // The scroll bar's height where it showed last time (or the table did not scroll yet):
            // in the band where it stays scrolling with its columns all in view, none shows.
            const bool bar = !was_narrow || last->InnerWindow->ScrollbarX;
            const float rows = storage->GetFloat(RowsHeightKey(last_drawn), ImGui::GetFrameHeightWithSpacing() * 4);
            size.y = rows + (bar ? ImGui::GetStyle().ScrollbarSize : 0.0f) + 2;
        }
    }
    // When the names side by side are wider than the table, each goes on as many lines as it has
    // words ("total (counted)" over two lines), so a narrow panel cuts fewer of them short (ImGui
    // ends one that still does not fit with "..." and shows it whole on hover). Decided from the
    // width alone, so the columns do not shift from frame to frame. A table that scrolls sideways by
    // request keeps its names on one line.
    const float cell = ImGui::GetStyle().CellPadding.x * 2 + 1;
    float side_by_side = 0;
    for (const TableColumn& c : columns)
        side_by_side += cell + (c.fixed_em > 0 ? FixedWidth(c) : ImGui::CalcTextSize(c.name).x);
    const bool stack = (narrow || !(flags & ImGuiTableFlags_ScrollX)) && side_by_side > room;
    if (!ImGui::BeginTable(id, int(columns.size()), flags, size, inner_width)) return false;
    // The header stays when the rows scroll, the first column when the columns do.
    if (flags & (ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY))
        ImGui::TableSetupScrollFreeze(flags & ImGuiTableFlags_ScrollX ? 1 : 0, 1);
    for (const TableColumn& c : columns) {
        const std::string name = stack ? StackedName(c.name) : std::string(c.name);
        if (c.fixed_em > 0) ImGui::TableSetupColumn(name.c_str(), ImGuiTableColumnFlags_WidthFixed, FixedWidth(c));
        else if (c.stretch > 0) ImGui::TableSetupColumn(name.c_str(), ImGuiTableColumnFlags_WidthStretch, c.stretch);
        // Neither: as wide as its header and its widest cell (a fixed column of a table that cannot
        // be resized is fitted to its content every frame), the stretched ones taking the rest.
        else ImGui::TableSetupColumn(name.c_str(), ImGuiTableColumnFlags_WidthFixed);
    }
    // ImGui::TableHeadersRow, column by column, to see which name its column cuts short. Reported
    // when it was cut in the two frames before as well: the frames after new contents (another
    // step's wider numbers, the other language's words) size the columns from the old ones before
    // the table turns to scrolling where they no longer fit.
    const ImGuiID cut_key = ImHashStr("header cut", 0, last_drawn);
    const int cut_before = sized ? storage->GetInt(cut_key) : 0;   // frames in a row
    bool cut = false;
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int i = 0; i < int(columns.size()); ++i) {
        if (!ImGui::TableSetColumnIndex(i)) continue;
        const char* name = ImGui::TableGetColumnName(i);
        if (sized && WidestLine(name) > ImGui::GetContentRegionAvail().x + 0.5f) {
            cut = true;
            if (cut_before >= 2) ReportLayoutProblem(std::string("table ") + id + ": the header '" + columns[size_t(i)].name + "' is cut");
        }
        ImGui::PushID(i);
        ImGui::TableHeader(name);
        ImGui::PopID();
    }
    storage->SetInt(cut_key, cut ? cut_before + 1 : 0);
    return true;
}

float WidestEm(const std::vector<std::string>& texts, bool words) {
    float widest = 0;
    for (const std::string& t : texts) widest = std::max(widest, words ? WidestUnbreakable(t) : ImGui::CalcTextSize(t.c_str()).x);
    return widest / ImGui::GetFontSize();
}

void EndDataTable() {
    const ImGuiTable* table = ImGui::GetCurrentTable();
    const ImGuiID id = table->ID;
    const ImGuiWindow* inner = table->InnerWindow;
    const bool scrolls = inner != table->OuterWindow;
    ImGui::EndTable();
    // The rows' height this frame: the content of the window that scrolls them, or the table's.
    const float rows = scrolls ? inner->DC.CursorMaxPos.y - inner->DC.CursorStartPos.y : table->OuterRect.GetHeight();
    ImGui::GetStateStorage()->SetFloat(RowsHeightKey(id), rows);
}

void HelpMarker(const char* text) {
    SameLineIfFits(ImGui::CalcTextSize("(?)").x);   // else at the start of the next line, never past the edge
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) WrappedTooltip(text);
}

bool FitsOnThisLine(float width, float gap) {
    const float spacing = gap >= 0 ? gap : ImGui::GetStyle().ItemSpacing.x;
    // The right edge of the window's content, or of the table cell the line is in.
    return ImGui::GetItemRectMax().x + spacing + width <= ImGui::GetContentRegionMaxAbs().x;
}

float FieldWidth(float wanted, float after, float least) {
    const float line = ImGui::GetContentRegionAvail().x;
    const float beside = line - after - (after > 0 ? ImGui::GetStyle().ItemSpacing.x : 0);
    return std::min(wanted, beside >= least ? beside : line);
}

void SameLineIfFits(float width, float gap) {
    if (FitsOnThisLine(width, gap)) ImGui::SameLine(0, gap >= 0 ? gap : ImGui::GetStyle().ItemSpacing.x);
}

float ButtonWidth(const char* label) { return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x; }

void TextWithHelp(const std::string& text, const char* help, bool dim) {
    if (dim) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    WrappedText(help ? text + " (?)" : text);
    if (dim) ImGui::PopStyleColor();
    if (help && ImGui::IsItemHovered()) WrappedTooltip(help);
}

void WrappedTooltip(const char* text) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    WrappedText(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

ImVec4 StatusColorVec(bool ok) {
    return ok ? ImVec4(0.30f, 0.80f, 0.40f, 1.0f) : ImVec4(0.95f, 0.33f, 0.30f, 1.0f);
}

ImVec4 CautionColorVec() { return ImVec4(0.95f, 0.76f, 0.32f, 1.0f); }

ImU32 StatusColor(bool ok) { return ImGui::ColorConvertFloat4ToU32(StatusColorVec(ok)); }

namespace {

// Three significant digits: 1.23, 12.3, 123.
std::string ThreeDigits(double v, const char* unit) {
    char buf[64];
    double a = std::fabs(v);
    int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    std::snprintf(buf, sizeof buf, "%.*f%s%s", decimals, v, unit[0] ? " " : "", unit);
    return buf;
}

}  // namespace

std::string FormatCount(double n) {
    if (!std::isfinite(n)) return "-";
    const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int i = 0;
    while (std::fabs(n) >= 1000.0 && i < 5) { n /= 1000.0; ++i; }
    if (i == 0 && n == std::floor(n)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", n);
        return buf;
    }
    return ThreeDigits(n, prefixes[i]);
}

std::string FormatTime(double ms) {
    if (!std::isfinite(ms)) return "-";
    if (std::fabs(ms) >= 1000.0) return ThreeDigits(ms / 1000.0, "s");
    if (std::fabs(ms) >= 1.0) return ThreeDigits(ms, "ms");
    if (std::fabs(ms) >= 1e-3) return ThreeDigits(ms * 1000.0, "us");
    return ThreeDigits(ms * 1e6, "ns");
}

std::string StageName(const std::string& stage) {
    const std::string& text = tr("stage." + stage);
    return text.rfind("stage.", 0) == 0 ? stage : text;   // a stage the table does not name: as it is
}

std::vector<std::string>& LayoutProblems() {
    static std::vector<std::string> problems;   // the UI thread's only
    return problems;
}

void ReportLayoutProblem(std::string what) {
    std::vector<std::string>& problems = LayoutProblems();
    if (std::find(problems.begin(), problems.end(), what) == problems.end()) problems.push_back(std::move(what));
}

void ReportOverflowingWindows(std::initializer_list<std::string_view> wide) {
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    for (const ImGuiWindow* w : g.Windows) {
        if (!w->Active || w->Hidden) continue;
        // Windows that scroll sideways or size themselves, and those named wide, are meant to hold
        // wider content.
        if (w->Flags & (ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_AlwaysHorizontalScrollbar |
                        ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup))
            continue;
        const std::string_view leaf = std::string_view(w->Name).substr(std::string_view(w->Name).rfind('/') + 1);
        if (std::any_of(wide.begin(), wide.end(), [&](std::string_view prefix) { return leaf.rfind(prefix, 0) == 0; })) continue;
        const float over = w->DC.CursorMaxPos.x - w->InnerClipRect.Max.x;
        if (over > 1.0f) {
            // "TileLab##root/##tabs_21C03114/Code_F5CB6FDC" without the IDs ImGui appends to child names.
            std::string name = w->Name;
            for (size_t at = 0; (at = name.find('_', at)) != std::string::npos;) {
                const bool id = at + 9 <= name.size() && name.find_first_not_of("0123456789ABCDEF", at + 1) >= at + 9 &&
                                (at + 9 == name.size() || name[at + 9] == '/');
                if (id) name.erase(at, 9);
                else ++at;
            }
            ReportLayoutProblem(fmt::format("{}: something runs {:.0f} px past the right edge", name, over));
        }
    }
}

std::string PercentText(double fraction) {
    const double pct = fraction * 100.0;
    char buf[32];
    std::snprintf(buf, sizeof buf, pct == std::floor(pct) ? "%.0f%%" : "%.1f%%", pct);
    return buf;
}

bool TextEllipsized(const std::string& text) {
    const std::string shown = Ellipsized(text, ImGui::GetContentRegionAvail().x);
    ImGui::TextUnformatted(shown.c_str());
    return shown != text;
}

std::string Ellipsized(const std::string& text, float room) {
    if (ImGui::CalcTextSize(text.c_str()).x <= room) return text;
    const char* dots = "...";
    const float budget = room - ImGui::CalcTextSize(dots).x;
    // The longest prefix that fits, cut at a character boundary (a byte that is not a UTF-8 continuation).
    std::vector<size_t> cuts;
    for (size_t i = 1; i <= text.size(); ++i)
        if (i == text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) cuts.push_back(i);
    size_t lo = 0, hi = cuts.size();   // cuts[0..lo) fit; the answer is in [lo, hi)
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (ImGui::CalcTextSize(text.c_str(), text.c_str() + cuts[mid]).x <= budget) lo = mid + 1;
        else hi = mid;
    }
    const size_t keep = lo == 0 ? 0 : cuts[lo - 1];
    return text.substr(0, keep) + dots;
}

bool FittedText(const std::string& text, const ImVec4& colour, float right) {
    const float room = right - ImGui::GetCursorPosX();
    if (room < ImGui::CalcTextSize("...").x) return false;
    const std::string shown = Ellipsized(text, room);
    ImGui::TextColored(colour, "%s", shown.c_str());
    if (shown != text && ImGui::IsItemHovered()) WrappedTooltip(text.c_str());
    return true;
}

float WindowFitScale(float width, float height) {
    constexpr float kDesignWidth = 1280, kDesignHeight = 720, kStep = 0.05f, kSmallest = 0.7f;
    if (!(width > 0) || !(height > 0)) return 1.0f;   // not known yet (the first frame)
    const float fit = std::min(width / kDesignWidth, height / kDesignHeight);
    // The small epsilon keeps 0.8 exactly 0.8 when 1024/1280 rounds a hair below it.
    return std::clamp(std::floor(fit / kStep + 1e-3f) * kStep, kSmallest, 1.0f);
}

}  // namespace tilelab::gui
