#include "ui_common.h"
#include "tilelab/i18n.h"
#include <cmath>
#include <cstdio>

namespace tilelab::gui {

bool BeginDataTable(const char* id, const std::vector<TableColumn>& columns, ImGuiTableFlags extra, ImVec2 size) {
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | extra;
    if (!ImGui::BeginTable(id, int(columns.size()), flags, size)) return false;
    if (flags & ImGuiTableFlags_ScrollY) ImGui::TableSetupScrollFreeze(0, 1);
    for (const TableColumn& c : columns) {
        if (c.fixed_em > 0) ImGui::TableSetupColumn(c.name, ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * c.fixed_em);
        else if (c.stretch > 0) ImGui::TableSetupColumn(c.name, ImGuiTableColumnFlags_WidthStretch, c.stretch);
        else ImGui::TableSetupColumn(c.name);
    }
    ImGui::TableHeadersRow();
    return true;
}

void HelpMarker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) WrappedTooltip(text);
}

void WrappedTooltip(const char* text) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

ImVec4 StatusColorVec(bool ok) {
    return ok ? ImVec4(0.30f, 0.80f, 0.40f, 1.0f) : ImVec4(0.95f, 0.33f, 0.30f, 1.0f);
}

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

}  // namespace tilelab::gui
