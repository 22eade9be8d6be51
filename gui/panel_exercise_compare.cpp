// [SECTION] Exercise, side by side: the user's kernel next to the lesson's at the same parameters
// and size (the lesson's is the app's current result): time, rate, registers, spills, occupancy
// and validation, with one line saying what state the user's kernel is in (compiling, compile
// errors, model mode: compiled and analysed, not run).
#include <imgui.h>
#include <string>
#include "engine_thread.h"
#include "exercise_editor.h"
#include "panels.h"
#include "ui_common.h"

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
    return std::to_string(int(r.occupancy.occupancy * 100 + 0.5)) + " %";
}

// "passed", "FAILED" (the status line has the first mismatch), "not run", or the stage that failed.
std::string validation_of(const RunResult& r, bool& ok) {
    ok = false;
    if (!r.ok && r.stage != "validate") return r.stage == "compile" ? "no compile" : r.stage + " failed";
    if (!r.measured) return "not run";
    if (!r.validation.checked) return "not checked";
    ok = r.validation.passed;
    return ok ? "passed" : "FAILED";
}

// One line: where the user's kernel is.
void status_line(const AppState& state) {
    const ExerciseEditorState& e = state.exercise;
    const RunResult* r = e.result.get();
    const bool stale = !r || e.submitted_text != e.text || e.busy;
    ImGui::PushTextWrapPos(0);
    if (!state.engine_thread || !state.engine_thread->ready()) {
        ImGui::TextDisabled("Starting the engine...");
    } else if (!r) {
        ImGui::TextDisabled("Compiling your kernel...");
    } else if (r->compiled && !r->compiled->ok) {
        const size_t n = e.diagnostics.size();
        ImGui::TextColored(StatusColorVec(false), "Your kernel does not compile: %zu message%s, marked at %s line%s below.%s",
                           n, n == 1 ? "" : "s", n == 1 ? "its" : "their", n == 1 ? "" : "s",
                           stale ? " (compiling again...)" : "");
    } else if (!r->ok) {
        ImGui::TextColored(StatusColorVec(false), "Your kernel failed (%s): %s", r->stage.c_str(), r->error.c_str());
    } else if (!r->measured) {
        ImGui::TextDisabled("Model mode: your kernel compiled; registers and occupancy below; not run (%s).%s",
                            r->no_gpu_reason.empty() ? "no GPU" : r->no_gpu_reason.c_str(), stale ? " Compiling again..." : "");
    } else {
        ImGui::TextColored(StatusColorVec(r->validation.passed), "Your kernel ran: %s%s.%s",
                           r->validation.passed ? "correct" : "wrong result: ",
                           r->validation.passed ? "" : r->validation.message.c_str(), stale ? " Running again..." : "");
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
    // One row per kernel, so the editor keeps the height.
    if (!BeginDataTable("##exercise_vs_lesson", {{"", 1.1f}, {"Time", 1.1f}, {flops ? "FLOP/s" : "B/s", 1.1f},
                                                 {"Regs", 0.7f}, {"Spills", 1.0f}, {"Occupancy", 1.2f}, {"Check", 1.2f}}))
        return;
    for (const RunResult* r : {mine, lesson}) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r == mine ? "Yours" : "Lesson's");
        if (!r) {
            ImGui::TableNextColumn();
            ImGui::TextDisabled("updating");
            continue;
        }
        for (const std::string& value : {r->measured ? FormatTime(r->timing.median_ms) : std::string("-"),
                                         rate_of(*r, flops), registers_of(*r), spills_of(*r), occupancy_of(*r)}) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(value.c_str());
        }
        ImGui::TableNextColumn();
        bool ok = false;
        const std::string check = validation_of(*r, ok);
        if (r->measured || !r->ok) ImGui::TextColored(StatusColorVec(ok), "%s", check.c_str());
        else ImGui::TextDisabled("%s", check.c_str());
        if (ImGui::IsItemHovered()) WrappedTooltip(check.c_str());
    }
    ImGui::EndTable();
}

}  // namespace tilelab::gui
