// The app's whole persistent view state: one plain struct. Panels read and write it; only the
// worker (gui/worker.*) talks to the engine. No function-static state in panels.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include "tilelab/engine.h"
#include "tilelab/lesson.h"
#include "tilelab/result.h"

namespace tilelab::gui {

class Worker;   // runs engine requests on a background thread (gui/worker.h)

struct HistoryPoint {           // one finished run, for the history plot and the roofline
    std::string variant;
    ParamValues params;
    Problem problem;
    std::string dragged;        // the parameter that changed to make this run ("" = none)
    double x = 0;               // that parameter's value
    double median_ms = 0;
    double gflops = 0, intensity = 0;
    bool valid = false;
};

struct PinnedConfig {           // Compare panel
    std::string label;
    std::shared_ptr<const RunResult> result;
};

struct SweepState {             // Compare panel: one- or two-parameter sweep
    std::string param_x, param_y;   // param_y "" = one-parameter sweep
    bool running = false;
    std::vector<std::shared_ptr<const RunResult>> results;
};

struct AppState {
    // Lesson flow
    int lesson_index = 0;
    int step_index = 0;

    // Current request (what the sliders show)
    RunRequest request;
    std::string size_text = "1024";

    // Latest result and whether a newer one is on its way
    std::shared_ptr<const RunResult> result;
    bool updating = false;
    std::string last_changed_param;

    std::vector<HistoryPoint> history;
    std::vector<PinnedConfig> pinned;
    SweepState sweep;

    // Tiles panel
    int tile_block_x = 0, tile_block_y = 0, tile_k_step = 0;
    bool tile_playing = false;
    double tile_play_accum = 0;

    // Comfort
    float font_scale = 1.0f;
    bool presenter_mode = false;
    bool fullscreen = false;
    bool show_lesson = true, show_params = true, show_results = true, show_occupancy = true;
    bool show_memory = true, show_code = true, show_tiles = true, show_compare = true;
    int model_target_index = 0;     // preset chosen in model mode

    // Run options the user can change
    RunOptions run_options;

    Engine* engine = nullptr;   // owned by main
    Worker* worker = nullptr;   // owned by main
};

}  // namespace tilelab::gui
