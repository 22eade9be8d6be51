// [SECTION] Hardware counters in the panels (hardware_view.h): the Memory panel's table by level
// and the sentences around it. The counters come from the GPU worker's CUPTI pass, after the
// timed repetitions; this file only reads RunResult::hardware.
#include "hardware_view.h"
#include <cstdio>
#include <vector>
#include "analysis_common.h"
#include "fonts.h"
#include "ui_common.h"

namespace tilelab::gui {

namespace {

constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";

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

std::optional<double> AchievedOccupancy(const RunResult& r) {
    if (!r.hardware.ok()) return std::nullopt;
    const auto pct = r.hardware.get(kOccupancy);
    if (!pct) return std::nullopt;
    return *pct / 100.0;
}

std::string HardwareMissingReason(const RunResult& r) {
    const HardwareCounters& h = r.hardware;
    if (h.ok()) return "";
    if (!r.measured && !r.no_gpu_reason.empty()) return hardware_reason(hardware_status::no_gpu);
    if (h.status != hardware_status::skipped)
        return h.reason.empty() ? hardware_reason(h.status) : h.reason;
    if (r.phase == Phase::analysed) return "Hardware counters: read after the timed runs on the GPU, which follow.";
    if (r.phase == Phase::quick) return "Hardware counters: the full run after the drag reads them (a drag skips them).";
    if (!r.ok) return "Hardware counters: none, the run did not finish.";
    return "Hardware counters are off: turn them on in the Run menu (each full run then replays the kernel twice or so).";
}

void DrawHardwareTable(const RunResult& r) {
    const CostModel& m = r.model;
    const HardwareCounters& h = r.hardware;
    const bool have = h.ok();
    const bool counted = r.measured && r.counted.has_value();
    const auto hw = [&](const char* name) { return have ? h.get(name) : std::nullopt; };
    const auto bytes = [](std::optional<double> v) { return v ? format_bytes(*v) : std::string(); };
    const auto requests = [](double elements) { return FormatCount(elements / 32) + " req"; };

    std::vector<LevelRow> rows;
    rows.push_back({"DRAM read", "Bytes read from device memory: what missed in L2. At least the compulsory bytes.", "", "",
                    bytes(hw(kDramRead)), "", ""});
    rows.push_back({"DRAM write", "Bytes written back to device memory during the kernel (L2 write-backs).", "", "",
                    bytes(hw(kDramWrite)), "", ""});
    rows.push_back({"L2", "Bytes through the L2 slices: every request that missed in L1.", "", "",
                    bytes(hw("lts__t_bytes.sum")), "", ""});
    rows.push_back({"L1 global loads", "Bytes of global loads the SMs asked of L1 (model and counted: loads \xc3\x97 4 B).",
                    format_bytes(4 * m.total.global_loads), counted ? format_bytes(4 * r.counted->global_loads) : "",
                    bytes(hw("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum")), "", ""});
    rows.push_back({"L1 global stores", "Bytes of global stores through L1 (model and counted: stores \xc3\x97 4 B).",
                    format_bytes(4 * m.total.global_stores), counted ? format_bytes(4 * r.counted->global_stores) : "",
                    bytes(hw("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum")), "", ""});
    for (const bool load : {true, false}) {
        const char* op = load ? "ld" : "st";
        const auto instr = hw(load ? "smsp__inst_executed_op_shared_ld.sum" : "smsp__inst_executed_op_shared_st.sum");
        const auto waves = hw((std::string("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_") + op + ".sum").c_str());
        const auto conflicts = hw((std::string("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_") + op + ".sum").c_str());
        const double model_elems = load ? m.total.shared_loads : m.total.shared_stores;
        LevelRow row{load ? "shared loads" : "shared stores",
                     "Warp-wide shared-memory requests (model and counted: accesses \xc3\x97 32 lanes). Ways = "
                     "wavefronts per request: 1 without bank conflicts, up to 32.",
                     model_elems > 0 ? requests(model_elems) : "",
                     counted && model_elems > 0 ? requests(load ? r.counted->shared_loads : r.counted->shared_stores) : "",
                     instr ? FormatCount(*instr) + " req" : "", instr && waves ? Ways(*waves, *instr) : "", "", true};
        if (instr && waves && conflicts)
            row.hardware_tip = format_count(*instr) + " requests, " + format_count(*waves) + " wavefronts, " + format_count(*conflicts) +
                               " bank conflicts";
        rows.push_back(row);
    }

    ImGui::TextUnformatted("By level: model, counted, hardware");
    HelpMarker("Model and counted are what the kernel asks for (every access, 4 bytes each); hardware is what "
               "CUPTI's counters saw on one replayed launch, L2 emptied first, read after the timed runs. The "
               "counter names are Nsight Compute's (hover a value).");
    if (BeginDataTable("levels", {{"level", 1.3f}, {"model"}, {"counted"}, {"hardware"}, {"ways", 0, 3.5f}})) {
        for (const LevelRow& row : rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.level);
            if (ImGui::IsItemHovered()) WrappedTooltip(row.help);
            PushFontOrDefault(AppFonts().mono);
            Cell(row.model);
            Cell(row.counted);
            if (!have) {
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", r.measured || r.phase != Phase::full ? "\xe2\x80\x94" : kNoGpu);
            } else {
                Cell(row.hardware, row.hardware_tip.c_str());
            }
            if (row.shared) Cell(row.ways);
            else ImGui::TableNextColumn();   // ways: shared memory only
            ImGui::PopFont();
        }
        ImGui::EndTable();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    if (have) {
        ImGui::TextWrapped("%s", kModelVsDramNote);
    } else {
        ImGui::TextWrapped("%s", HardwareMissingReason(r).c_str());
    }
    ImGui::PopStyleColor();
}

}  // namespace tilelab::gui
