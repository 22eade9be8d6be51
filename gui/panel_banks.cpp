// [SECTION] Shared-memory banks (part of the Memory panel): every shared access site of the kernel
// with its wavefronts and conflicts (model, tilelab/banks.h) beside the hardware counters, and a
// picture of one warp instruction: the 32 lanes above the 32 banks, each lane coloured by its bank
// and joined to it, the lanes that conflict outlined in red, the address formula beside it. The
// user picks the site, the warp and the instance; it redraws as PAD, swizzle and width change.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include "analysis_common.h"
#include "fonts.h"
#include "panels.h"
#include "tilelab/i18n.h"
#include "plot.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

constexpr ImU32 kConflictColor = IM_COL32(235, 80, 70, 255);

ImU32 BankColor(int bank) {
    // 32 hues around the wheel, so neighbouring banks differ and a shared colour means a shared bank.
    float r = 0, g = 0, b = 0;
    // Bank 0 starts at blue, away from the red of a conflict.
    ImGui::ColorConvertHSVtoRGB(std::fmod(0.55f + float(bank) / kSharedBanks, 1.0f), 0.55f, 0.95f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

std::string Hw(const RunResult& r, const char* name) {
    const auto v = r.hardware.ok() ? r.hardware.get(name) : std::nullopt;
    return v ? FormatCount(*v) : std::string("\xe2\x80\x94");
}

// Shared-memory requests as the hardware counted them (loads: ldmatrix included).
std::string HwRequests(const RunResult& r, bool load) {
    const std::optional<double> v = r.hardware.ok() ? r.hardware.shared_requests(load) : std::nullopt;
    return v.has_value() ? FormatCount(v.value_or(0.0)) : std::string("\xe2\x80\x94");
}

// A count column as wide as its header or "8.88 M" in the table's mono font, whichever is wider.
TableColumn CountColumn(const std::string& header) {
    PushFontOrDefault(AppFonts().mono);
    const float value_em = ImGui::CalcTextSize("8.88 M").x / ImGui::GetFontSize();
    ImGui::PopFont();
    return {header.c_str(), 0, std::max(value_em, ImGui::CalcTextSize(header.c_str()).x / ImGui::GetFontSize())};
}

void DrawSiteTable(const RunResult& r) {
    const BankModel& b = r.model.banks;
    TextWithHelp(tr("banks.per_site"), tr("banks.per_site_help").c_str());
    // The site takes what the counts leave and wraps; its worst n-way conflict goes under its name
    // (red), so the table fits the tab column of a 1280x720 projector. Narrower than 7 ems (an
    // index expression a line or two), the table scrolls sideways instead.
    const std::string instructions = tr("banks.col_instructions"), wavefronts = tr("banks.col_wavefronts"),
                      conflicts = tr("banks.col_conflicts");
    if (!BeginDataTable("##bank_sites", {{tr("banks.col_site").c_str(), 1.0f, 0, 7.0f}, CountColumn(tr("banks.col_op")),
                                         CountColumn(instructions), CountColumn(wavefronts), CountColumn(conflicts)}))
        return;
    for (const BankSiteTotals& s : b.sites) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        WrappedText(formula_expression(s.name) + (s.caveat.empty() ? "" : " *"));
        if (ImGui::IsItemHovered())
            WrappedTooltip((formula_expression(s.formula) + (s.caveat.empty() ? "" : "\n" + formula_expression(s.caveat))).c_str());
        if (s.worst_ways > 1) {
            ImGui::PushStyleColor(ImGuiCol_Text, kConflictColor);
            ImGui::TextUnformatted(trf("banks.worst_ways", s.worst_ways).c_str());
            ImGui::PopStyleColor();
        } else {
            ImGui::TextDisabled("%s", tr("banks.conflict_free").c_str());
        }
        PushFontOrDefault(AppFonts().mono);
        ImGui::TableNextColumn();
        ImGui::Text("%s %dB", s.store ? "st" : "ld", s.width_bytes);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(s.instructions).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(s.wavefronts).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(s.conflicts()).c_str());
        ImGui::PopFont();
    }
    // Totals: model against the hardware counters, loads and stores.
    for (const bool load : {true, false}) {
        const char* op = load ? "ld" : "st";
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        WrappedText(tr(load ? "banks.all_loads_model" : "banks.all_stores_model"));
        PushFontOrDefault(AppFonts().mono);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(op);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(load ? b.load_instructions : b.store_instructions).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(load ? b.load_wavefronts : b.store_wavefronts).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(load ? b.load_conflicts : b.store_conflicts).c_str());
        ImGui::PopFont();
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        WrappedText(tr(load ? "banks.all_loads_hardware" : "banks.all_stores_hardware"));
        if (ImGui::IsItemHovered())
            WrappedTooltip(tr("banks.hardware_help").c_str());
        PushFontOrDefault(AppFonts().mono);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(op);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(HwRequests(r, load).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(Hw(r, (std::string("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_") + op + ".sum").c_str()).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(Hw(r, (std::string("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_") + op + ".sum").c_str()).c_str());
        ImGui::PopFont();
    }
    EndDataTable();
}

// Lanes on top, banks below, a line from each active lane to its bank; as wide as the panel, down
// to 5 px a lane (a window of 800x600 ran it 24 px past the edge at its 320 px least), the
// captions wrapped.
void DrawWarpPicture(const WarpBanks& w) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec4 dim = ImGui::ColorConvertU32ToFloat4(plot::kDimTextColor);
    WrappedTextColored(dim, tr("banks.lanes_caption"));
    const float width = std::max(5.0f * kWarpLanes, ImGui::GetContentRegionAvail().x);
    const float cell = width / kWarpLanes, box = std::min(cell * 0.8f, ImGui::GetFontSize() * 1.4f);
    const float gap = ImGui::GetFontSize() * 5.0f;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float lane_y = o.y + ImGui::GetFontSize() * 1.2f, bank_y = lane_y + box + gap;
    for (int i = 0; i < kWarpLanes; ++i) {
        const float x = o.x + i * cell + (cell - box) / 2;
        dl->AddRectFilled(ImVec2(x, bank_y), ImVec2(x + box, bank_y + box), plot::WithAlpha(BankColor(i), 0.45f));
        if (i % 4 == 0) {   // every fourth number, under the banks and over the lanes
            char label[8];
            std::snprintf(label, sizeof label, "%d", i);
            dl->AddText(ImVec2(x, bank_y + box + 1), plot::kDimTextColor, label);
            dl->AddText(ImVec2(x, lane_y - ImGui::GetFontSize()), plot::kDimTextColor, label);
        }
    }
    const int words = w.width_bytes / 4;
    for (int i = 0; i < kWarpLanes; ++i) {
        const LaneBank& l = w.lanes[size_t(i)];
        const float x = o.x + i * cell + (cell - box) / 2;
        if (l.byte < 0) {
            dl->AddRect(ImVec2(x, lane_y), ImVec2(x + box, lane_y + box), plot::kGridColor);
            continue;
        }
        dl->AddRectFilled(ImVec2(x, lane_y), ImVec2(x + box, lane_y + box), BankColor(l.bank));
        if (l.conflict) dl->AddRect(ImVec2(x - 1, lane_y - 1), ImVec2(x + box + 1, lane_y + box + 1), kConflictColor, 0, 0, 3.0f);
        for (int k = 0; k < words; ++k) {
            const int bank = (l.bank + k) % kSharedBanks;
            const float bx = o.x + bank * cell + cell / 2;
            dl->AddLine(ImVec2(x + box / 2, lane_y + box), ImVec2(bx, bank_y),
                        plot::WithAlpha(l.conflict ? kConflictColor : BankColor(l.bank), l.broadcast ? 0.35f : 0.8f), 1.5f);
        }
    }
    ImGui::Dummy(ImVec2(width, bank_y + box + ImGui::GetFontSize() * 1.1f - o.y));
    WrappedTextColored(dim, tr("banks.banks_caption"));
}

}  // namespace

void DrawBankSection(AppState& state, const RunResult& r) {
    const BankModel& b = r.model.banks;
    if (!b.modelled || b.sites.empty()) {
        WrappedTextDisabled(tr(r.smem_bytes() > 0 ? "banks.not_covered" : "banks.no_shared_memory"));
        return;
    }
    DrawSiteTable(r);
    const Variant* v = find_variant(r.request.variant);
    if (!v || !v->declares_shared_sites) return;
    const std::vector<SharedAccessSite> sites = v->shared_sites(r.request.params, r.request.problem);
    if (sites.empty()) return;
    // Until the user picks one, the site with the most conflicts (the first if none has any).
    int shown = state.bank_site;
    if (shown < 0 || shown >= int(sites.size())) {
        shown = 0;
        for (int i = 0; i < int(b.sites.size()) && i < int(sites.size()); ++i)
            if (b.sites[size_t(i)].conflicts() > b.sites[size_t(shown)].conflicts()) shown = i;
    }
    const SharedAccessSite& site = sites[size_t(shown)];
    ImGui::Spacing();
    TextWithHelp(tr("banks.one_warp"), tr("banks.one_warp_help").c_str());
    // Each control with its label after it: the frames shrink to the panel (a projector's text size),
    // and the second slider goes under the first where both do not fit.
    const float inner = ImGui::GetStyle().ItemInnerSpacing.x;
    const auto label_w = [&](const char* key) { return inner + ImGui::CalcTextSize(tr(key).c_str()).x; };
    ImGui::SetNextItemWidth(FieldWidth(ImGui::GetFontSize() * 18, label_w("banks.site"), ImGui::GetFontSize() * 6));
    if (ImGui::BeginCombo((tr("banks.site") + "###site").c_str(), formula_expression(site.name).c_str())) {
        for (int i = 0; i < int(sites.size()); ++i)
            if (ImGui::Selectable((formula_expression(sites[size_t(i)].name) + "###" + std::to_string(i)).c_str(), i == shown))
                state.bank_site = i;
        ImGui::EndCombo();
    }
    state.bank_warp = std::clamp(state.bank_warp, 0, site.warps() - 1);
    state.bank_instance = std::clamp(state.bank_instance, 0, site.instances - 1);
    const float slider = ImGui::GetFontSize() * 8;
    ImGui::SetNextItemWidth(FieldWidth(slider, label_w("banks.warp")));
    ImGui::SliderInt((tr("banks.warp") + "###warp").c_str(), &state.bank_warp, 0, site.warps() - 1);
    SameLineIfFits(slider + label_w("banks.instance"));
    ImGui::SetNextItemWidth(FieldWidth(slider, label_w("banks.instance")));
    ImGui::SliderInt((tr("banks.instance") + "###instance").c_str(), &state.bank_instance, 0, site.instances - 1);
    const WarpBanks w = site.warp(state.bank_instance, state.bank_warp);
    PushFontOrDefault(AppFonts().mono);
    WrappedText(formula_expression(site.formula) + "   " + trf(site.store ? "banks.store_bytes_per_lane" : "banks.load_bytes_per_lane", site.width_bytes));
    ImGui::PopFont();
    const int worst = [&] { int m = 0; for (const LaneBank& l : w.lanes) m = std::max(m, l.wavefront + 1); return m; }();
    WrappedText(trf("banks.warp_summary", w.wavefronts, w.min_wavefronts, worst, w.broadcasts));
    DrawWarpPicture(w);
}

}  // namespace tilelab::gui
