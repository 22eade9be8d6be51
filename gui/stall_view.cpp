// Drawing stall samples (stall_view.h).
#include "stall_view.h"
#include <fmt/format.h>
#include <algorithm>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui {
namespace {

// Legend entries shown beside the summary; the others are one hover away.
constexpr size_t kLegendShown = 3;

// Groups by share, largest first, without the empty ones.
std::vector<StallGroup> groups_by_share(const StallCounts& c) {
    std::vector<StallGroup> out;
    for (int g = 0; g < kStallGroups; ++g)
        if (c.n[size_t(g)] > 0) out.push_back(StallGroup(g));
    std::stable_sort(out.begin(), out.end(), [&](StallGroup a, StallGroup b) { return c[a] > c[b]; });
    return out;
}

void swatch(StallGroup g) {
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + h * 0.2f), ImVec2(p.x + h * 0.6f, p.y + h * 0.8f), StallColor(g), 2.0f);
    ImGui::Dummy(ImVec2(h * 0.6f, h));
    ImGui::SameLine(0, h * 0.25f);
}

// One row per group present in `c`, largest first: swatch, share of `total`, name.
void group_rows(const StallCounts& c, uint64_t total) {
    for (StallGroup g : groups_by_share(c)) {
        swatch(g);
        ImGui::Text("%s  %s", PercentText(stall_share(c[g], total) / 100.0).c_str(), stall_group_name(g).c_str());
    }
}

void line_tooltip(const StallSamples& s, const StallLine& l) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    WrappedText(trf("stall.line_share", l.line, PercentText(stall_share(l.counts.total(), s.total) / 100.0)));
    group_rows(l.counts, l.counts.total());
    // The line's SASS instructions that were sampled, by offset.
    // Those of calls inlined on it marked: they count on their own line too.
    std::string pcs;
    bool calls = false;
    const auto index = &l - s.lines.data();
    for (const StallPc& pc : s.pcs) {
        const bool call = std::find(pc.calls.begin(), pc.calls.end(), index) != pc.calls.end();
        if (pc.line != index && !call) continue;
        calls |= call;
        pcs += fmt::format("{}{}0x{:04x}  {:>6}  {}{}{}", pcs.empty() ? "" : "\n", call ? "↳ " : "", pc.offset,
                           FormatCount(double(pc.counts.total())), stall_group_name(pc.counts.top()), pc.sass.empty() ? "" : "  ", pc.sass);
    }
    if (!pcs.empty()) {
        ImGui::Separator();
        WrappedTextDisabled(tr("stall.sass_heading"));
        ImGui::TextUnformatted(pcs.c_str());
    }
    if (calls) WrappedTextDisabled(tr("stall.line_calls"));
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

}  // namespace

ImU32 StallColor(StallGroup g) {
    switch (g) {
        case StallGroup::issuing: return IM_COL32(96, 200, 120, 255);
        case StallGroup::global_memory: return IM_COL32(230, 90, 80, 255);
        case StallGroup::shared_memory: return IM_COL32(240, 170, 60, 255);
        case StallGroup::barrier: return IM_COL32(170, 120, 230, 255);
        case StallGroup::math_pipe: return IM_COL32(80, 170, 240, 255);
        case StallGroup::memory_throttle: return IM_COL32(235, 120, 170, 255);
        case StallGroup::not_selected: return IM_COL32(150, 210, 200, 255);
        case StallGroup::branch: return IM_COL32(200, 200, 110, 255);
        case StallGroup::wait: return IM_COL32(150, 150, 160, 255);
        case StallGroup::other: return IM_COL32(110, 110, 120, 255);
    }
    return IM_COL32(110, 110, 120, 255);
}

std::vector<const StallLine*> StallLinesOf(const RunResult& r, size_t line_count) {
    std::vector<const StallLine*> out;
    if (!r.stalls.has_samples()) return out;
    for (const StallLine& l : r.stalls.lines) {
        if (l.line < 1 || size_t(l.line) > line_count || !stall_file_matches(l.file, r.kernel_file)) continue;
        if (out.empty()) out.assign(line_count, nullptr);
        out[size_t(l.line) - 1] = &l;
    }
    return out;
}

bool DrawStallBarAt(ImDrawList* dl, ImVec2 p, ImVec2 size, const StallSamples& s, const StallLine* line, uint64_t most) {
    if (!line || most == 0) return false;
    const float h = size.y, full = size.x - h * 0.3f;
    float x = p.x;
    const uint64_t total = line->counts.total();
    const float bar = full * float(double(total) / double(most));
    for (StallGroup g : groups_by_share(line->counts)) {
        const float w = bar * float(double(line->counts[g]) / double(total));
        dl->AddRectFilled(ImVec2(x, p.y + h * 0.15f), ImVec2(x + w, p.y + h * 0.85f), StallColor(g));
        x += w;
    }
    if (!ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem) ||
        !ImGui::IsMouseHoveringRect(p, ImVec2(p.x + size.x, p.y + size.y)))
        return false;
    line_tooltip(s, *line);
    return true;
}

void DrawStallBar(const StallSamples& s, const StallLine* line, uint64_t most, float width) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 size(width, ImGui::GetTextLineHeight());
    ImGui::Dummy(size);
    DrawStallBarAt(ImGui::GetWindowDrawList(), p, size, s, line, most);
}

uint64_t StallMostOf(const std::vector<const StallLine*>& lines) {
    uint64_t most = 0;
    for (const StallLine* l : lines)
        if (l) most = std::max(most, l->counts.total());
    return most;
}

int DrawStallTopLines(const RunResult& r, size_t n) {
    const StallSamples& s = r.stalls;
    int clicked = 0;
    size_t shown = 0;
    for (const StallLine& l : s.lines) {
        if (shown == n) break;
        if (!stall_file_matches(l.file, r.kernel_file)) continue;
        ++shown;
        const std::string text = trim(text_line(r.kernel_source, l.line));
        const StallGroup top = l.counts.top();
        DrawStallBar(s, &l, s.lines.front().counts.total(), ImGui::GetFontSize() * 3);
        ImGui::SameLine();
        const std::string label = fmt::format("{:>4}  {:>5}  {}  {}##stall{}", l.line, PercentText(stall_share(l.counts.total(), s.total) / 100.0),
                                              stall_group_name(top), text, l.line);
        if (ImGui::Selectable(label.c_str())) clicked = l.line;
    }
    return clicked;
}

void DrawStallHeader(const RunResult& r) {
    const StallSamples& s = r.stalls;
    if (s.status == stall_status::skipped) return;
    ImGui::PushTextWrapPos(0);
    if (!s.has_samples()) {
        WrappedTextDisabled(trf("stall.none", s.reason.empty() ? s.status : s.reason));
        ImGui::PopTextWrapPos();
        return;
    }
    WrappedText(stall_summary(s, r.kernel_file));
    if (ImGui::IsItemHovered())
        WrappedTooltip(trf("stall.header_help", FormatCount(double(s.total)), s.launches, stall_periods_text(s)).c_str());
    if (!s.reason.empty()) WrappedTextColored(CautionColorVec(), s.reason);   // the samples stand
    ImGui::PopTextWrapPos();
    // The legend: the largest groups, each with its share (hover: what it means); the rest, with
    // every share, in the tooltip of "+N".
    const std::vector<StallGroup> groups = groups_by_share(s.counts);
    for (size_t i = 0; i < groups.size() && i < kLegendShown; ++i) {
        const StallGroup g = groups[i];
        const std::string item = fmt::format("{} {}", stall_group_name(g), PercentText(stall_share(s.counts[g], s.total) / 100.0));
        if (i > 0) SameLineIfFits(ImGui::GetTextLineHeight() * 0.85f + ImGui::CalcTextSize(item.c_str()).x, ImGui::GetFontSize());
        ImGui::BeginGroup();
        swatch(g);
        ImGui::TextUnformatted(item.c_str());
        ImGui::EndGroup();
        if (ImGui::IsItemHovered()) WrappedTooltip(tr(fmt::format("stall.{}.help", stall_group_key(g))).c_str());
    }
    if (groups.size() <= kLegendShown) return;
    const std::string more = fmt::format("+{}", groups.size() - kLegendShown);
    SameLineIfFits(ImGui::CalcTextSize(more.c_str()).x, ImGui::GetFontSize());
    ImGui::TextDisabled("%s", more.c_str());
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    group_rows(s.counts, s.total);
    ImGui::EndTooltip();
}

}  // namespace tilelab::gui
