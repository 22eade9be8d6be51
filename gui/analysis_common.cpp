#include "analysis_common.h"
#include <algorithm>
#include <cfloat>
#include "fonts.h"
#include "ui_common.h"
#include "tilelab/i18n.h"
#include "tilelab/variant_text.h"
#include "engine_thread.h"
#include "text_wrap.h"

namespace tilelab::gui {

const RunResult* ResultOrHint(const AppState& state, const char* purpose) {
    if (!state.result)
        WrappedTextDisabled(trf("hint.no_result_yet", purpose));
    return state.result.get();
}

void ThreeAcross(float avail_width, float height, const std::function<void(ImVec2)>& first,
                 const std::function<void(ImVec2)>& second, const std::function<void(ImVec2)>& third) {
    if (avail_width > ImGui::GetFontSize() * 60) {
        const float w = (avail_width - ImGui::GetStyle().ItemSpacing.x * 2) / 3;
        first(ImVec2(w, height));
        ImGui::SameLine();
        second(ImVec2(w, height));
        ImGui::SameLine();
        third(ImVec2(w, height));
    } else {
        for (const auto* draw : {&first, &second, &third}) (*draw)(ImVec2(-1, height));
    }
}

void Headline(const char* caption, const std::string& value, ImU32 color, const char* help, bool same_row) {
    if (same_row) {
        ImFont* big = AppFonts().big ? AppFonts().big : ImGui::GetFont();
        float width = std::max(ImGui::CalcTextSize(caption).x,
                               big->CalcTextSizeA(DrawnSize(big), FLT_MAX, 0, value.c_str()).x);
        SameLineIfFits(width, ImGui::GetFontSize() * 2.0f);
    }
    ImGui::BeginGroup();
    ImGui::TextDisabled("%s", caption);
    FittedBigText(value, color);
    ImGui::EndGroup();
    if (help && ImGui::IsItemHovered()) WrappedTooltip(help);
}

float FittedBigText(const std::string& text, ImU32 color, float keep_clear) {
    const float body_size = ImGui::GetFontSize();
    PushFontOrDefault(AppFonts().big);
    const float width = ImGui::CalcTextSize(text.c_str()).x;
    const float room = ImGui::GetContentRegionAvail().x - keep_clear;
    float scale = 1.0f;
    if (width > room && width > 0) scale = std::max(room / width, std::min(1.0f, body_size / ImGui::GetFontSize()));
    if (width * scale > room + 0.5f)
        ReportLayoutProblem("the headline '" + text + "' is cut: " + std::to_string(int(width * scale)) + " px in " +
                            std::to_string(int(room)));
    ImGui::SetWindowFontScale(scale);
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopStyleColor();
    const float ascent = DrawnAscent();
    ImGui::SetWindowFontScale(1.0f);
    ImGui::PopFont();
    return ascent;
}

void MatchMark(bool match) {
    float h = ImGui::GetTextLineHeight();
    ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(h, h));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImU32 color = StatusColor(match);
    float t = std::max(2.0f, h * 0.12f);
    if (match) {
        ImVec2 pts[3] = {{p.x + h * 0.15f, p.y + h * 0.55f}, {p.x + h * 0.4f, p.y + h * 0.8f}, {p.x + h * 0.85f, p.y + h * 0.2f}};
        dl->AddPolyline(pts, 3, color, 0, t);
    } else {
        dl->AddLine(ImVec2(p.x + h * 0.2f, p.y + h * 0.2f), ImVec2(p.x + h * 0.8f, p.y + h * 0.8f), color, t);
        dl->AddLine(ImVec2(p.x + h * 0.8f, p.y + h * 0.2f), ImVec2(p.x + h * 0.2f, p.y + h * 0.8f), color, t);
    }
}

std::string ParamSummary(const ParamValues& params, const std::string& variant_id) {
    const Variant* v = variant_id.empty() ? nullptr : find_variant(variant_id);
    std::string s;
    for (const auto& [name, value] : params) {
        if (!s.empty()) s += ' ';
        const ParamSpec* spec = v ? v->param(name) : nullptr;
        s += name + "=" + (spec ? spec->value_text(value) : std::to_string(value));
    }
    return s;
}

std::string ConfigLabel(const RunResult& r) {
    const Variant* v = find_variant(r.request.variant);
    std::string title = v ? variant_title(*v) : r.request.variant;
    std::string params = ParamSummary(r.request.params, r.request.variant);
    return title + (params.empty() ? "" : " " + params) + " @ " + format_problem(r.request.problem);
}

}  // namespace tilelab::gui
