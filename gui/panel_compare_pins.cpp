// The Compare panel's pinned configurations: the current result kept under a label, the pins in
// a table and as three bar charts (time, GFLOP/s, occupancy); model mode draws occupancy alone.
#include <limits>
#include <string>
#include <imgui.h>
#include <imgui_stdlib.h>
#include "analysis_common.h"
#include "compare_export.h"
#include "panels.h"
#include "plot.h"
#include "text_wrap.h"
#include "tilelab/i18n.h"
#include "tilelab/variant_text.h"
#include "ui_common.h"

namespace tilelab::gui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double TimeOf(const RunResult& r) { return r.measured && r.ok ? r.timing.median_ms : kNaN; }
double GflopsOf(const RunResult& r) { return r.measured && r.ok ? r.gflops : kNaN; }
double OccupancyOf(const RunResult& r) { return r.ok || r.stage != "input" ? r.occupancy.occupancy * 100 : kNaN; }

}  // namespace

void DrawComparePins(AppState& state) {
    TextWithHelp(tr("compare.pinned_configurations"), tr("compare.pin_help").c_str());
    const float pin_w = ButtonWidth(tr("compare.pin_current").c_str());
    ImGui::SetNextItemWidth(FieldWidth(ImGui::GetFontSize() * 18, pin_w, ImGui::GetFontSize() * 8));
    ImGui::InputTextWithHint("##pin_label", tr("compare.label_default_the_parameters").c_str(), &state.pin_label);
    SameLineIfFits(pin_w);
    ImGui::BeginDisabled(!state.result);
    if (ImGui::Button(tr("compare.pin_current").c_str())) {
        PinnedConfig pin;
        pin.result = state.result;
        pin.label = !state.pin_label.empty() ? state.pin_label : ParamSummary(state.result->request.params, state.result->request.variant);
        if (pin.label.empty()) pin.label = state.result->request.variant;
        state.pinned.push_back(pin);
        state.pin_label.clear();
    }
    ImGui::EndDisabled();
    if (!state.pinned.empty()) {
        SameLineIfFits(ButtonWidth(tr("compare.clear_pins").c_str()));
        if (ImGui::Button(tr("compare.clear_pins").c_str())) state.pinned.clear();
    }
    if (state.pinned.empty()) return;

    if (BeginDataTable("##pinned", {{tr("compare.col_label").c_str(), 2.5f}, {tr("compare.col_variant").c_str(), 1.5f},
                                    {tr("compare.col_time").c_str()}, {"GFLOP/s"}, {tr("compare.col_occupancy").c_str()},
                                    {tr("compare.col_registers").c_str()}, {"", 0, 2}})) {
        int remove = -1;
        for (size_t i = 0; i < state.pinned.size(); ++i) {
            const PinnedConfig& pin = state.pinned[i];
            if (!pin.result) continue;
            const RunResult& r = *pin.result;
            ImGui::PushID(int(i));
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(pin.label.c_str());
            ImGui::TableNextColumn();
            const Variant* v = find_variant(r.request.variant);
            ImGui::TextUnformatted(v ? variant_title(*v).c_str() : r.request.variant.c_str());
            ImGui::TableNextColumn();
            if (!r.measured) ImGui::TextDisabled("%s", NoGpu());
            else ImGui::TextColored(StatusColorVec(Passed(r)), "%s", FormatTime(r.timing.median_ms).c_str());
            ImGui::TableNextColumn();
            if (!r.measured) ImGui::TextDisabled("%s", NoGpu());
            else ImGui::TextUnformatted(plot::FormatValue(r.gflops).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(PercentText(r.occupancy.occupancy).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.compiled ? r.compiled->ptxas.registers : 0);
            ImGui::TableNextColumn();
            if (ImGui::SmallButton("x")) remove = int(i);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("compare.unpin").c_str());
            ImGui::PopID();
        }
        EndDataTable();
        if (remove >= 0) state.pinned.erase(state.pinned.begin() + remove);
    }

    // Three bar charts: the same pins, three measures.
    plot::BarChart time, gflops, occupancy;
    time.title = tr("compare.time_lower_is_better");
    time.value_axis.label = "ms";
    gflops.title = tr("compare.gflop_s_higher_is_better").c_str();
    gflops.value_axis.label = "GFLOP/s";
    occupancy.title = tr("compare.col_occupancy");
    occupancy.value_axis.label = "%";
    occupancy.value_axis.range = plot::Range{0, 100};
    plot::BarSeries t, g, o;
    t.color = plot::Palette(0);
    g.color = plot::Palette(2);
    o.color = plot::Palette(1);
    bool any_measured = false;
    for (const PinnedConfig& pin : state.pinned) {
        if (!pin.result) continue;
        const RunResult& r = *pin.result;
        for (plot::BarChart* c : {&time, &gflops, &occupancy}) c->categories.push_back(pin.label);
        any_measured |= r.measured;
        t.values.push_back(TimeOf(r));
        g.values.push_back(GflopsOf(r));
        o.values.push_back(OccupancyOf(r));
        ImU32 status = Passed(r) ? 0 : StatusColor(false);   // failed runs stand out red
        t.bar_colors.push_back(status);
        g.bar_colors.push_back(status);
        t.value_labels.push_back(r.measured ? FormatTime(r.timing.median_ms) : NoGpu());
        g.value_labels.push_back(r.measured ? plot::FormatValue(r.gflops) : NoGpu());
    }
    time.series.push_back(t);
    gflops.series.push_back(g);
    occupancy.series.push_back(o);
    time.horizontal = gflops.horizontal = occupancy.horizontal = true;
    time.legend = gflops.legend = occupancy.legend = false;
    time.empty_text = gflops.empty_text = NoGpu();

    float font = ImGui::GetFontSize();
    float height = font * (5.5f + 2.2f * float(state.pinned.size()));
    float avail = ImGui::GetContentRegionAvail().x;
    if (!any_measured) {
        WrappedTextDisabled(trf("compare.model_mode_bars", NoGpu()));
        plot::DrawBars("pinned_occupancy", ImVec2(-1, height), occupancy);
    } else {
        ThreeAcross(avail, height, [&](ImVec2 size) { plot::DrawBars("pinned_time", size, time); },
                    [&](ImVec2 size) { plot::DrawBars("pinned_gflops", size, gflops); },
                    [&](ImVec2 size) { plot::DrawBars("pinned_occupancy", size, occupancy); });
    }
}

}  // namespace tilelab::gui
