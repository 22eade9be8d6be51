// [SECTION] Hardware counters in the panels (hardware_view.h): the Memory panel's table by level
// and the sentences around it. The counters come from the GPU worker's CUPTI pass, after the
// timed repetitions; this file only reads RunResult::hardware.
#include "hardware_view.h"
#include <cstdio>
#include <vector>
#include "analysis_common.h"
#include "fonts.h"
#include "ui_common.h"
#include "tilelab/i18n.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kTensorPipe = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";

// One row of the table: a level of the memory system and what each of the three views says.
struct LevelRow {
    const char* level;
    const char* help;
    std::string model, counted, hardware, ways;
    std::string hardware_tip;
    bool shared = false;   // has a "ways" figure
};

std::string Ways(double wavefronts, double requests) {
    if (!(requests > 0)) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", wavefronts / requests);
    return buf;
}

void Cell(const std::string& text, const char* tip = nullptr) {
    ImGui::TableNextColumn();
    if (text.empty()) {
        ImGui::TextDisabled("\xe2\x80\x94");   // an em dash: this view has no such figure
        return;
    }
    ImGui::TextUnformatted(text.c_str());
    if (tip && *tip && ImGui::IsItemHovered()) WrappedTooltip(tip);
}

}  // namespace

std::optional<double> DramIntensity(const RunResult& r) {
    const auto bytes = r.hardware.dram_bytes();
    if (!bytes || !(*bytes > 0) || !(r.model.flops > 0)) return std::nullopt;
    return r.model.flops / *bytes;
}

namespace {

// A counter measured in percent, as a share 0..1; nullopt without counters.
std::optional<double> MeasuredShare(const RunResult& r, const char* metric) {
    if (!r.hardware.ok()) return std::nullopt;
    const auto pct = r.hardware.get(metric);
    if (!pct) return std::nullopt;
    return *pct / 100.0;
}

}  // namespace

std::optional<double> AchievedOccupancy(const RunResult& r) { return MeasuredShare(r, kOccupancy); }

std::optional<double> TensorPipeBusy(const RunResult& r) { return MeasuredShare(r, kTensorPipe); }

std::string HardwareMissingReason(const RunResult& r) {
    const HardwareCounters& h = r.hardware;
    if (h.ok()) return "";
    if (!r.measured && !r.no_gpu_reason.empty()) return hardware_reason(hardware_status::no_gpu);
    if (h.status != hardware_status::skipped)
        return h.reason.empty() ? hardware_reason(h.status) : h.reason;
    if (r.phase == Phase::analysed) return tr("hardware.after_timed_runs");
    if (r.phase == Phase::quick) return tr("hardware.after_drag");
    if (!r.ok) return tr("hardware.run_did_not_finish");
    return tr("hardware.off");
}

void DrawHardwareTable(const RunResult& r) {
    const CostModel& m = r.model;
    const HardwareCounters& h = r.hardware;
    const bool have = h.ok();
    const bool counted = r.measured && r.counted.has_value();
    const auto hw = [&](const char* name) { return have ? h.get(name) : std::nullopt; };
    const auto bytes = [](std::optional<double> v) { return v ? format_bytes(*v) : std::string(); };
    const auto requests = [](double elements) { return FormatCount(elements / 32) + " req"; };

    // The rows hold pointers to their help: these live as long as the rows.
    const std::string l1_loads_help = trf("hardware.l1_loads_help", m.load_element_bytes);
    const std::string l1_stores_help = trf("hardware.l1_stores_help", m.store_element_bytes);
    std::vector<LevelRow> rows;
    rows.push_back({tr("hardware.dram_read").c_str(), tr("hardware.dram_read_help").c_str(), "", "",
                    bytes(hw(kDramRead)), "", ""});
    if (have && r.compiled) rows.back().hardware_tip = dram_read_case(r.compiled->ptxas.spill_loads);
    rows.push_back({tr("hardware.dram_write").c_str(), tr("hardware.dram_write_help").c_str(), "", "",
                    bytes(hw(kDramWrite)), "", ""});
    // Which side of the counters' acceptance rule this configuration is on (tilelab/hardware.h).
    if (have)
        rows.back().hardware_tip = dram_write_case(m.store_bytes(m.total.global_stores), r.target.l2_bytes,
                                                   r.compiled ? r.compiled->ptxas.spill_stores : 0);
    rows.push_back({"L2", tr("hardware.l2_help").c_str(), "", "",
                    bytes(hw("lts__t_bytes.sum")), "", ""});
    if (have && r.compiled) rows.back().hardware_tip = l2_bytes_case(r.compiled->ptxas.spill_bytes());
    rows.push_back({tr("hardware.l1_loads").c_str(), l1_loads_help.c_str(),
                    format_bytes(m.load_bytes(m.total.global_loads)), counted ? format_bytes(m.load_bytes(r.counted->global_loads)) : "",
                    bytes(hw("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum")), "", ""});
    rows.push_back({tr("hardware.l1_stores").c_str(), l1_stores_help.c_str(),
                    format_bytes(m.store_bytes(m.total.global_stores)), counted ? format_bytes(m.store_bytes(r.counted->global_stores)) : "",
                    bytes(hw("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum")), "", ""});
    for (const bool load : {true, false}) {
        const char* op = load ? "ld" : "st";
        const std::optional<double> requested = have ? h.shared_requests(load) : std::nullopt;
        const bool has_instr = requested.has_value();
        const double instr = requested.value_or(0.0);
        const auto waves = hw((std::string("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_") + op + ".sum").c_str());
        const auto conflicts = hw((std::string("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_") + op + ".sum").c_str());
        const double model_elems = load ? m.total.shared_loads : m.total.shared_stores;
        LevelRow row{tr(load ? "memory.shared_loads" : "memory.shared_stores").c_str(), tr("hardware.shared_help").c_str(),
                     model_elems > 0 ? requests(model_elems) : "",
                     counted && model_elems > 0 ? requests(load ? r.counted->shared_loads : r.counted->shared_stores) : "",
                     has_instr ? FormatCount(instr) + " req" : "", has_instr && waves ? Ways(*waves, instr) : "", "", true};
        if (has_instr && waves && conflicts) {
            row.hardware_tip = trf("hardware.shared_tip", format_count(instr), format_count(*waves), format_count(*conflicts));
            // A spilling kernel's conflicts are loose (tilelab/hardware.h): said beside them.
            if (const std::string loose = r.compiled ? shared_conflicts_case(r.compiled->ptxas.spill_bytes()) : ""; !loose.empty())
                row.hardware_tip += "\n" + loose;
        }
        rows.push_back(row);
    }
    // The constant cache, where the model has run-time addressed constant reads or a warp's lanes
    // asked for several addresses at once (every kernel loads a few parameters with LDC).
    const auto ldc = hw("smsp__inst_executed_op_ldc.sum"), idc = hw("idc__requests.sum");
    if (m.constant_requests > 0 || (ldc && idc && *idc > 1.5 * *ldc)) {
        LevelRow row{tr("hardware.constant").c_str(), tr("hardware.constant_help").c_str(),
                     m.constant_requests > 0 ? FormatCount(m.constant_requests) + " req" : "", "",
                     idc ? FormatCount(*idc) + " req" : "", ldc && idc ? Ways(*idc, *ldc) : "", "", true};
        if (ldc && idc && *ldc > 0)
            row.hardware_tip = trf("hardware.constant_tip", format_count(*ldc), format_count(*idc), Ways(*idc, *ldc));
        rows.push_back(row);
    }

    TextWithHelp(tr("hardware.by_level"), trf("hardware.by_level_help", format_element_sizes(r.precision)).c_str());
    std::vector<std::string> levels;   // wrapped between words where the column is narrow
    for (const LevelRow& row : rows) levels.push_back(row.level);
    if (BeginDataTable("##levels", {{tr("hardware.col_level").c_str(), 1.3f, 0, WidestEm(levels, true)}, {tr("hardware.col_model").c_str()}, {tr("hardware.col_counted").c_str()},
                                  {tr("hardware.col_hardware").c_str()}, {tr("banks.col_ways").c_str(), 0, 3.5f}})) {
        for (const LevelRow& row : rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            WrappedText(row.level);
            if (ImGui::IsItemHovered()) WrappedTooltip(row.help);
            PushFontOrDefault(AppFonts().mono);
            Cell(row.model);
            Cell(row.counted);
            if (!have) {
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", r.measured || r.phase != Phase::full ? "\xe2\x80\x94" : NoGpu());
            } else {
                Cell(row.hardware, row.hardware_tip.c_str());
            }
            if (row.shared) Cell(row.ways);
            else ImGui::TableNextColumn();   // ways: shared memory only
            ImGui::PopFont();
        }
        EndDataTable();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    if (have) {
        WrappedText(model_vs_dram_note());
    } else {
        WrappedText(HardwareMissingReason(r));
    }
    ImGui::PopStyleColor();
}

}  // namespace tilelab::gui
