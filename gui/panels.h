// One function per panel, each in its own file (gui/panel_<name>.cpp). A panel draws into the
// current ImGui window/child the app opened for it; it reads and writes AppState only and talks to
// the engine only through the EngineThread (gui/engine_thread.h).
#pragma once
#include "app_state.h"

namespace tilelab::gui {

// Shell panels (gui/panel_lesson.cpp, panel_params.cpp, panel_results.cpp, panel_code.cpp).
void DrawLessonPanel(AppState& state);
void DrawParamsPanel(AppState& state);
void DrawResultsPanel(AppState& state);
void DrawCodePanel(AppState& state);
// The Code tab's Exercise view (gui/panel_exercise.cpp) and its side-by-side table
// (gui/panel_exercise_compare.cpp).
void DrawExercisePanel(AppState& state);
void DrawExerciseComparison(AppState& state);
// Model mode: a combo of the target presets (gui/panel_params.cpp); used by the banner too.
void DrawTargetPicker(AppState& state);

// Analysis panels (gui/panel_occupancy.cpp, panel_memory.cpp, panel_tiles.cpp,
// panel_compare.cpp).
void DrawOccupancyPanel(AppState& state);
void DrawMemoryPanel(AppState& state);
// The Memory panel's shared-memory banks section (gui/panel_banks.cpp).
void DrawBankSection(AppState& state, const RunResult& r);
void DrawTilesPanel(AppState& state);
void DrawComparePanel(AppState& state);

}  // namespace tilelab::gui
