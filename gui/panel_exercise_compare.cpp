// [SECTION] Exercise, side by side: the user's kernel next to the lesson's at the same parameters
// and size (the lesson's is the app's current result): time, rate, registers, spills, occupancy
// DRAM bytes and shared-memory bank conflicts from the hardware counters (where they were read),
// and validation, with one line saying what state the user's kernel is in (compiling, compile
// errors, model mode: compiled and analysed, not run).
#include <imgui.h>
#include <string>
#include "engine_thread.h"
#include "exercise_editor.h"
#include "panels.h"
#include "ui_common.h"
#include "tilelab/i18n.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

std::string rate_of(const RunResult& r, bool flops) {
    if (!r.measured || r.timing.median_ms <= 0) return "-";
    const double v = flops ? r.gflops : r.gbps_effective;
    return FormatCount(v * 1e9);   // the column says FLOP/s or B/s
}

std::string registers_of(const RunResult& r) {
    if (!r.compiled || !r.compiled->ok || !r.compiled->ptxas.parsed) return "-";
    return std::to_string(r.compiled->ptxas.registers);
}

std::string spills_of(const RunResult& r) {
    if (!r.compiled || !r.compiled->ok || !r.compiled->ptxas.parsed) return "-";
    const PtxasInfo& p = r.compiled->ptxas;
    return std::to_string(p.spill_stores) + "/" + std::to_string(p.spill_loads) + " B";
}

std::string occupancy_of(const RunResult& r) {
    if (!r.compiled || !r.compiled->ok || r.occupancy.max_warps == 0) return "-";
    return PercentText(r.occupancy.occupancy);
}

// What DRAM moved (read + write) and the shared-memory bank conflicts (loads + stores), from the
// hardware counters; "-" where they were not read (model mode, switched off, not allowed).
std::string dram_of(const RunResult& r) {
    const HardwareCounters& h = r.hardware;
    if (!h.ok()) return "-";
    return FormatCount(h.get("dram__bytes_read.sum").value_or(0) + h.get("dram__bytes_write.sum").value_or(0)) + "B";
}

std::string conflicts_of(const RunResult& r) {
    const HardwareCounters& h = r.hardware;
    if (!h.ok()) return "-";
    return FormatCount(h.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum").value_or(0) +
                       h.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum").value_or(0));
}

// Without a GPU, the CPU run's verdict on the user's kernel (RunResult::cpu); nullptr when there is none.
const CpuCheck* cpu_verdict_of(const RunResult& r) { return !r.measured && r.cpu && r.cpu->verdict() ? &*r.cpu : nullptr; }

// "passed", "FAILED" (the status line has the first mismatch), "not run", or the stage that failed.
std::string validation_of(const RunResult& r, bool& ok) {
    ok = false;
    if (!r.ok && r.stage != "validate") return r.stage == "compile" ? tr("exercise.no_compile") : trf("exercise.stage_failed", StageName(r.stage));
    if (cpu_verdict_of(r)) {
        ok = r.cpu->passed();
        return tr(ok ? "exercise.passed_cpu" : "exercise.failed_cpu");
    }
    if (!r.measured) return tr("exercise.not_run");
    if (!r.validation.checked) return tr("exercise.not_checked");
    ok = r.validation.passed;
    return tr(ok ? "exercise.passed" : "exercise.failed");
}

// One line: where the user's kernel is.
void status_line(const AppState& state) {
    const ExerciseEditorState& e = state.exercise;
    const RunResult* r = e.result.get();
    const bool stale = !r || e.submitted_text != e.text || e.busy;
    ImGui::PushTextWrapPos(0);
    if (!state.engine_thread || !state.engine_thread->ready()) {
        WrappedTextDisabled(tr("exercise.starting_engine"));
    } else if (!r) {
        WrappedTextDisabled(tr("exercise.compiling_yours"));
    } else if (r->compiled && !r->compiled->ok) {
        const size_t n = e.diagnostics.size();
        WrappedTextColored(StatusColorVec(false), trf(n == 1 ? "exercise.does_not_compile_one" : "exercise.does_not_compile_many", n) +
                                                      (stale ? tr("exercise.compiling_again") : ""));
    } else if (!r->ok) {
        WrappedTextColored(StatusColorVec(false), trf("exercise.yours_failed", StageName(r->stage), r->error));
    } else if (const CpuCheck* verdict = cpu_verdict_of(*r)) {
        // No GPU: the CPU run's verdict, at its own size, on the user's file.
        const CpuCheck& c = *verdict;
        const std::string size = format_problem(c.problem);
        const std::string text = c.passed() ? trf("exercise.cpu_passed", c.file, size)
                                            : trf("exercise.cpu_failed", c.file, size, c.status == "failed" ? c.validation.message : c.message);
        ImGui::TextColored(StatusColorVec(c.passed()), "%s%s", text.c_str(), stale ? tr("exercise.running_again").c_str() : "");
    } else if (!r->measured) {
        const std::string why = r->no_gpu_reason.empty() ? tr("banner.no_gpu") : r->no_gpu_reason;
        const std::string cpu = r->cpu ? " " + r->cpu->message : "";
        ImGui::TextDisabled("%s%s%s", trf("exercise.model_mode_compiled", why).c_str(), cpu.c_str(),
                            stale ? tr("exercise.compiling_again").c_str() : "");
    } else {
        const bool counters_next = r->phase == Phase::quick && e.submitted_text == e.text;
        ImGui::TextColored(StatusColorVec(r->validation.passed), "%s%s",
                           (r->validation.passed ? tr("exercise.ran_correct") : trf("exercise.ran_wrong", r->validation.message)).c_str(),
                           counters_next ? tr("exercise.measuring_fully").c_str() : stale ? tr("exercise.running_again").c_str() : "");
    }
    ImGui::PopTextWrapPos();
}

}  // namespace

void DrawExerciseComparison(AppState& state) {
    status_line(state);
    const ExerciseEditorState& e = state.exercise;
    const RunResult* mine = e.result.get();
    // The lesson's result counts only when it is for the same parameters and size.
    const RunResult* lesson = state.result.get();
    if (lesson && mine && !(lesson->request == mine->request)) lesson = nullptr;
    if (!mine) return;
    const Variant* v = find_variant(mine->request.variant);
    const bool flops = v && v->family == "matmul";
    // One row per kernel, so the editor keeps the height; every column as wide as its header and
    // values, scrolling sideways (the row names stay) where the tab is narrower than all nine.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float height = 3 * (ImGui::GetTextLineHeight() + 2 * style.CellPadding.y + 1) + style.ScrollbarSize;
    if (!BeginDataTable("##exercise_vs_lesson", {{""}, {tr("exercise.col_time").c_str()}, {flops ? "FLOP/s" : "B/s"},
                                                 {tr("exercise.col_regs").c_str()}, {tr("exercise.col_spills").c_str()},
                                                 {tr("exercise.col_occupancy").c_str()}, {"DRAM"},
                                                 {tr("exercise.col_conflicts").c_str()}, {tr("exercise.col_check").c_str()}},
                        ImGuiTableFlags_ScrollX, ImVec2(0, height)))
        return;
    for (const RunResult* r : {mine, lesson}) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tr(r == mine ? "exercise.row_yours" : "exercise.row_lessons").c_str());
        if (!r) {
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%s", tr("exercise.updating").c_str());
            continue;
        }
        for (const std::string& value : {r->measured ? FormatTime(r->timing.median_ms) : std::string("-"),
                                         rate_of(*r, flops), registers_of(*r), spills_of(*r), occupancy_of(*r),
                                         dram_of(*r), conflicts_of(*r)}) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(value.c_str());
        }
        if (r->measured && !r->hardware.ok() && !r->hardware.reason.empty() && ImGui::IsItemHovered())
            WrappedTooltip(r->hardware.reason.c_str());
        ImGui::TableNextColumn();
        bool ok = false;
        const std::string check = validation_of(*r, ok);
        if (r->measured || !r->ok || cpu_verdict_of(*r)) ImGui::TextColored(StatusColorVec(ok), "%s", check.c_str());
        else ImGui::TextDisabled("%s", check.c_str());
        if (ImGui::IsItemHovered()) WrappedTooltip(check.c_str());
    }
    EndDataTable();
}

}  // namespace tilelab::gui
