// One function per panel, each in its own file (gui/panel_<name>.cpp). A panel draws into the
// current ImGui window/child the app opened for it; it reads and writes AppState only and talks to
// the engine only through the EngineThread (gui/engine_thread.h).
#pragma once
#include "app_state.h"
#include "compare_export.h"

namespace tilelab::gui {

// Shell panels (gui/panel_lesson.cpp, panel_params.cpp, panel_results.cpp, panel_code.cpp).
void DrawLessonPanel(AppState& state);
// The lesson's navigator alone (lesson, step buttons): presenter mode shows it above the parameters.
void DrawLessonNavigator(AppState& state);
// The step's text with Previous / Next under it, without the navigator: the lesson column below
// it, or the Lesson tab where the window is too narrow for the column at this text size.
void DrawLessonText(AppState& state);
// A lesson as the navigator names it: "02  Shared-memory tiling".
std::string LessonLabel(const Lesson& lesson);
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
// The Tiles panel's tensor-core picture: one mma.sync's A, B and C fragments lane by lane, for
// operands of `element_bytes` (gui/panel_fragments.cpp; tilelab/mma_layout.h).
void DrawFragmentLanes(int element_bytes, int64_t wgmma_n = 0);
void DrawComparePanel(AppState& state);
// Its pinned configurations (gui/panel_compare_pins.cpp): table and bars of the results kept.
void DrawComparePins(AppState& state);
// The Compare panel's sweep of state.sweep.param_x over xs (and param_y over ys, a grid when
// not empty), submitted to the engine thread. StartSweepFromText: "X" or "X,Y" with every value
// of each, ",curves" drawing the grid as one curve per Y (--sweep; gui/compare_sweep_text.cpp).
void StartSweep(AppState& state, const std::vector<int>& xs, const std::vector<int>& ys);
// Whether the last sweep ran the variant on screen: another lesson's sweep is neither drawn
// (a click on it would set parameters this kernel does not have) nor exported; it shows again
// when the learner returns to its lesson.
bool SweepIsOfCurrentVariant(const AppState& state);
// What the export buttons write: the sweep of this variant, else the pinned configurations.
ResultList ExportedRows(const AppState& state);
bool StartSweepFromText(AppState& state, const std::string& text, std::string& error);
// The Compare panel's "Find the best on this GPU" section: the autotuner (gui/panel_tune.cpp).
void DrawTuneSection(AppState& state);
// Its Start: searches the current variant at the current size. False while a search runs, the
// engine is starting or the size does not parse. TuneRunning: a search is waiting or running.
bool StartTune(AppState& state);
bool TuneRunning(const AppState& state);

// The Drills tab (gui/panel_drills.cpp): the current lesson's interview drills. CheckDrill sends
// the drill's state to the engine thread; UpdateDrillChecks (every frame, whichever tab is shown)
// grades the answers whose evaluation came back and saves the score.
void DrawDrillsPanel(AppState& state);
bool CheckDrill(AppState& state, const Lesson& lesson, const Drill& drill);
void UpdateDrillChecks(AppState& state);
bool DrillsChecking(const AppState& state);
// The lesson's score: right answers among the drills that count here (a measured drill counts only on a GPU).
void DrillScore(const AppState& state, const Lesson& lesson, int& right, int& counted);
// --drill-answer K=VALUE: as if the user had entered VALUE for drill K of the current lesson and
// pressed Check. False (and why) when it cannot be checked.
bool DrillAnswerFromText(AppState& state, const std::string& key_value, std::string& error);

}  // namespace tilelab::gui
