// The app's whole persistent view state: one plain struct. Panels read and write it; only the
// engine thread (gui/engine_thread.*) talks to the engine. No function-static state in panels.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "compile_memory.h"
#include "exercise_editor.h"
#include "tilelab/drills.h"
#include "tilelab/engine.h"
#include "tilelab/i18n.h"
#include "tilelab/lesson.h"
#include "tilelab/result.h"
#include "tilelab/tune.h"

namespace tilelab::gui {

class EngineThread;   // runs engine requests on a background thread (gui/engine_thread.h)

struct HistoryPoint {           // one finished run, for the history plot and the roofline
    std::string variant;
    ParamValues params;
    Problem problem;
    std::string dragged;        // the parameter that changed to make this run ("" = none)
    double x = 0;               // that parameter's value
    double median_ms = 0;
    double gflops = 0, intensity = 0;
    double dram_intensity = 0;  // model FLOPs / measured DRAM bytes (0 = no hardware counters)
    bool valid = false;
    Phase phase = Phase::full;  // quick: the quick protocol's; the full run replaces it
};

struct PinnedConfig {           // Compare panel
    std::string label;
    std::shared_ptr<const RunResult> result;
};

struct SweepState {             // Compare panel: one- or two-parameter sweep
    std::string param_x, param_y;   // param_y "" = one-parameter sweep
    std::string variant;            // the variant the last sweep submitted ran: shown only in it
    int lesson = -1;                // the lesson it was run in (-1 = none: the variant alone)
    bool running = false;
    std::vector<std::shared_ptr<const RunResult>> results;
    std::vector<std::string> gpus;   // the GPU that measured each result, when spread over several
};

// One drill of the Drills tab (gui/panel_drills.cpp): what the user entered, the check in flight
// (a sweep of the engine thread) and its outcome.
struct DrillView {
    std::string input;          // a number drill's text field
    int choice = -1;            // a choice drill's radio button
    bool checking = false;
    uint64_t generation = 0;    // the engine thread's sweep that evaluates it
    DrillAnswer answer;         // what was checked
    int outcome = -1;           // -1 not checked, 0 wrong, 1 right
    std::string shown;          // the engine's answer, as the user reads it
    std::string note;           // why it could not be checked (needs a GPU, a failed compile ...)
};

// Compare panel: "Find the best on this GPU" (gui/panel_tune.cpp, gui/tune_view.h).
struct TuneViewState {
    double budget_s = 60;                       // seconds of measuring (kDefaultTuneBudget)
    std::string key;                            // TuneKeyName() of what is shown ("" = not looked up yet)
    std::shared_ptr<const TuneReport> report;   // the ranking shown: cached, or searched here
    bool cached = false;                        // the report came from the cache
    std::string note;                           // a refused cache file, a failed search: one sentence
    uint64_t taken = 0;                         // the engine thread's search whose report is shown (0 = none)
    int applied = -1;                           // the row last applied to the sliders
};

// The parameters the step just entered changes from the step before (actions.cpp:
// mark_step_params): the parameters panel scrolls them into view and marks them for a few seconds. `entered` counts EnterStep calls and `seen` the
// last one the panel drew, so each entry is marked once, however it came (buttons, keys, --step).
struct StepHighlight {
    std::vector<std::string> params;
    int entered = 0, seen = 0;
    double since = 0;   // ImGui::GetTime() when the panel first drew this entry
    int settling = 0;   // frames left in which the panel scrolls them into view (its height may change)
    float span = 0;     // from the first of their rows' top to the last one's bottom, last frame (px)
    float height = 0;   // the panel's height last frame: while they are marked, a new height scrolls again,
    float top = 0;      // as does a new place of their first row in its content (the text reflowed)
};

struct AppState {
    // Lesson flow
    int lesson_index = 0;
    int step_index = 0;
    int drawn_lesson = -1, drawn_step = -1;   // what the lesson panel last drew (to scroll to top)
    float params_height = 0;        // the parameters panel's content height last frame (layout)
    float results_headline = 0;     // the results panel's height down to its headline numbers, last frame
    StepHighlight step_highlight;

    // Current request (what the sliders show)
    RunRequest request;
    CompileMemory compile_memory;   // each variant's last slow compile here (the "compiling" line)
    std::string size_text = "1024";

    // Latest result (its phase says whether its measurement follows) and whether a newer one is on its way
    std::shared_ptr<const RunResult> result;
    bool updating = false;
    std::string last_changed_param;
    std::string size_error;         // why size_text could not be parsed ("" = fine)

    // Parameters and size remembered per variant (persisted), so switching lessons keeps them.
    std::map<std::string, ParamValues> params_by_variant;
    std::map<std::string, std::string> size_by_variant;

    std::vector<HistoryPoint> history;
    std::vector<PinnedConfig> pinned;
    SweepState sweep;

    // Tiles panel
    int tile_block_x = 0, tile_block_y = 0, tile_k_step = 0;
    // The row of its block whose running softmax the Tiles panel follows; past the end: the last.
    int tile_stream_row = 1 << 20;
    bool tile_playing = false;
    // The pipeline timeline's inputs (lesson 22): a load's latency, and its rate per block (0: the
    // rate that fits the measured time, or in model mode the DRAM's share).
    float pipeline_latency_us = 0, pipeline_rate_gbps = 0;
    int bank_site = -1, bank_warp = 0, bank_instance = 0;  // Memory panel's bank picture (site -1: the worst)
    double tile_play_accum = 0;

    // Comfort
    float font_scale = 1.0f;
    bool presenter_mode = false;
    bool fullscreen = false;
    bool show_lesson = true, show_params = true, show_results = true, show_occupancy = true;
    // The window is too narrow for the lesson column at this text size (fewer than
    // kLessonColumnMinEm font heights): the lesson's text is a tab in front of the others, and
    // reading_lesson_tab says that tab is the one shown (active_tab keeps the analysis tab).
    bool lesson_in_tabs = false, reading_lesson_tab = false;
    bool show_memory = true, show_code = true, show_tiles = true, show_compare = true, show_drills = true;
    int model_target_index = 0;     // preset chosen in model mode
    std::string active_tab = "Occupancy";   // right-hand tab shown (Occupancy/Memory/Code/Tiles/Compare)
    std::string select_tab;                 // set to switch tabs programmatically on the next frame

    // Run options the user can change. Full runs sample stalls here by default (the CLI asks with
    // --stalls): the Code tab's bars.
    RunOptions run_options = [] {
        RunOptions o;
        o.stall_samples = true;
        return o;
    }();

    // panels: fields the analysis panels (occupancy, memory, tiles, compare) add go below here.
    // Occupancy: the three curves, recomputed only when the result changes.
    std::shared_ptr<const RunResult> occupancy_curves_of;   // the result they were computed for
    OccupancyCurves occupancy_curves;
    // Compare: pinning, sweeps, export.
    std::string pin_label;                  // label for the next pin ("" = automatic)
    int sweep_x_from = 0, sweep_x_to = -1;  // indices into the swept parameter's values (-1 = last)
    int sweep_y_from = 0, sweep_y_to = -1;
    std::string swept_x, swept_y;           // the parameters of the sweep submitted (y "" = 1-D)
    std::vector<int> sweep_x_values, sweep_y_values;   // and their values
    uint64_t sweep_generation = 0;          // the worker's sweep generation they belong to
    int sweep_metric = 0;                   // heatmap colour: 0 time, 1 GFLOP/s, 2 occupancy
    bool sweep_curves = false;              // a two-parameter sweep as one curve per y value, not a heatmap
    // Lesson: a step's measured configurations run on this GPU (a sweep of the engine thread).
    uint64_t lesson_runs_generation = 0;    // that sweep's generation (0 = none)
    int lesson_runs_lesson = -1, lesson_runs_step = -1;   // the step it belongs to
    TuneViewState tune;
    std::string export_path = "./tilelab_sweep.csv";
    std::string export_message;             // the last export's outcome
    std::string notice;                     // shown in the status bar: a settings problem, a failed save
    Language language = Language::English;  // what the user chose (View > Language), persisted; the
                                            // app applies it (tilelab/i18n.h) before the next frame
    // A PNG of a screen rectangle, taken after the frame is rendered (App::Render): see
    // gui/plot_export.h. Coordinates are ImGui screen coordinates.
    bool capture_pending = false;
    std::string capture_path;
    float capture_min_x = 0, capture_min_y = 0, capture_max_x = 0, capture_max_y = 0;

    // Code tab: which of its two views is open ("Kernel" or "Exercise"), and the exercise editor.
    std::string code_view = "Kernel";
    std::string select_code_view;           // set to switch on the next frame
    // The result whose hottest stall line was last brought into view (compared, never dereferenced).
    const RunResult* code_scrolled_for = nullptr;
    ExerciseEditorState exercise;

    // Drills tab: the view of each drill by "lesson id/drill id", and the scores kept between runs
    // in DrillScores::default_path() (drill_scores_path "" = not saved: headless runs).
    std::map<std::string, DrillView> drill_views;
    DrillScores drill_scores;
    std::string drill_scores_path;

    // The only way to the engine: the engine thread owns every call that queries, changes or runs it.
    EngineThread* engine_thread = nullptr;   // owned by main
};

}  // namespace tilelab::gui
