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
#include "plot.h"
#include "ui_common.h"

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

void DrawSiteTable(const RunResult& r) {
    const BankModel& b = r.model.banks;
    ImGui::TextUnformatted("Shared-memory banks, per access site");
    HelpMarker("One row per shared load or store of the kernel, as the compiler emits it. Wavefronts: the 128-byte "
               "cycles the warp instructions need (4-byte accesses in one phase, 8-byte in two half-warp phases, "
               "16-byte in four quarter-warp phases; per phase, the busiest bank's distinct words). Ways: the "
               "worst phase (1 = conflict-free). Conflicts = wavefronts \xe2\x88\x92 the conflict-free minimum.");
    if (!BeginDataTable("bank_sites", {{"site", 2.2f}, {"op", 0, 2.5f}, {"bytes", 0, 3.0f}, {"instructions"},
                                       {"wavefronts"}, {"ways", 0, 3.0f}, {"conflicts"}}))
        return;
    for (const BankSiteTotals& s : b.sites) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s%s", s.name.c_str(), s.caveat.empty() ? "" : " *");
        if (ImGui::IsItemHovered()) WrappedTooltip((s.formula + (s.caveat.empty() ? "" : "\n" + s.caveat)).c_str());
        PushFontOrDefault(AppFonts().mono);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.store ? "st" : "ld");
        ImGui::TableNextColumn();
        ImGui::Text("%d", s.width_bytes);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(s.instructions).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(s.wavefronts).c_str());
        ImGui::TableNextColumn();
        ImGui::PushStyleColor(ImGuiCol_Text, s.worst_ways > 1 ? kConflictColor : plot::kTextColor);
        ImGui::Text("%d", s.worst_ways);
        ImGui::PopStyleColor();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(s.conflicts()).c_str());
        ImGui::PopFont();
    }
    // Totals: model against the hardware counters, loads and stores.
    for (const bool load : {true, false}) {
        const char* op = load ? "ld" : "st";
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("all %s: model", load ? "loads" : "stores");
        PushFontOrDefault(AppFonts().mono);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(op);
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(load ? b.load_instructions : b.store_instructions).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(load ? b.load_wavefronts : b.store_wavefronts).c_str());
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatCount(load ? b.load_conflicts : b.store_conflicts).c_str());
        ImGui::PopFont();
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("all %s: hardware", load ? "loads" : "stores");
        if (ImGui::IsItemHovered())
            WrappedTooltip("smsp__inst_executed_op_shared_*, l1tex__data_pipe_lsu_wavefronts_mem_shared_op_* and "
                           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_* of one replayed launch. The "
                           "conflict counter also counts stalls that are not address conflicts (lesson 03): "
                           "compare wavefronts first.");
        PushFontOrDefault(AppFonts().mono);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(op);
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(Hw(r, load ? "smsp__inst_executed_op_shared_ld.sum" : "smsp__inst_executed_op_shared_st.sum").c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(Hw(r, (std::string("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_") + op + ".sum").c_str()).c_str());
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(Hw(r, (std::string("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_") + op + ".sum").c_str()).c_str());
        ImGui::PopFont();
    }
    ImGui::EndTable();
}

// Lanes on top, banks below, a line from each active lane to its bank.
void DrawWarpPicture(const WarpBanks& w) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float width = std::max(320.0f, ImGui::GetContentRegionAvail().x);
    const float cell = width / kWarpLanes, box = std::min(cell * 0.8f, ImGui::GetFontSize() * 1.4f);
    const float gap = ImGui::GetFontSize() * 5.0f;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float lane_y = o.y + ImGui::GetFontSize() * 2.3f, bank_y = lane_y + box + gap;
    dl->AddText(ImVec2(o.x, o.y), plot::kDimTextColor, "lanes 0..31 of the warp (red outline: conflict)");
    dl->AddText(ImVec2(o.x, bank_y + box + ImGui::GetFontSize() * 1.1f), plot::kDimTextColor, "banks 0..31");
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
    ImGui::Dummy(ImVec2(width, bank_y + box + ImGui::GetFontSize() * 2.4f - o.y));
}

}  // namespace

void DrawBankSection(AppState& state, const RunResult& r) {
    const BankModel& b = r.model.banks;
    if (!b.modelled || b.sites.empty()) {
        ImGui::TextDisabled("%s", r.smem_bytes() > 0 ? "Shared-memory banks: the bank model does not cover this kernel's shared accesses yet."
                                                      : "This kernel does not use shared memory: no banks to show.");
        return;
    }
    DrawSiteTable(r);
    const Variant* v = find_variant(r.request.variant);
    if (!v || !v->shared_sites) return;
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
    ImGui::TextUnformatted("One warp instruction, lane by lane");
    HelpMarker("Pick an access site, a warp of the block and which of its executions (unrolled loop index). Each "
               "lane is coloured by the bank of its first word and joined to every bank it touches; lanes outlined "
               "in red share a bank with another lane of their phase at a different word (a conflict); faint lines "
               "are broadcasts (another lane reads the same word).");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
    if (ImGui::BeginCombo("site", site.name.c_str())) {
        for (int i = 0; i < int(sites.size()); ++i)
            if (ImGui::Selectable(sites[size_t(i)].name.c_str(), i == shown)) state.bank_site = i;
        ImGui::EndCombo();
    }
    state.bank_warp = std::clamp(state.bank_warp, 0, site.warps() - 1);
    state.bank_instance = std::clamp(state.bank_instance, 0, site.instances - 1);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    ImGui::SliderInt("warp", &state.bank_warp, 0, site.warps() - 1);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    ImGui::SliderInt("instance", &state.bank_instance, 0, site.instances - 1);
    const WarpBanks w = site.warp(state.bank_instance, state.bank_warp);
    PushFontOrDefault(AppFonts().mono);
    ImGui::TextWrapped("%s   [%s, %d bytes per lane]", site.formula.c_str(), site.store ? "store" : "load", site.width_bytes);
    ImGui::PopFont();
    ImGui::Text("%d wavefront%s (conflict-free: %d), %d-way worst, %d broadcast lane%s", w.wavefronts,
                w.wavefronts == 1 ? "" : "s", w.min_wavefronts,
                [&] { int m = 0; for (const LaneBank& l : w.lanes) m = std::max(m, l.wavefront + 1); return m; }(),
                w.broadcasts, w.broadcasts == 1 ? "" : "s");
    DrawWarpPicture(w);
}

}  // namespace tilelab::gui
