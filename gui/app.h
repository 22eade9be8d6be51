// The app's frame: menu bar, model-mode banner, a fixed three-column layout (lesson | parameters
// and results | tabs for Occupancy, Memory, Code, Tiles, Compare) and a status bar; keyboard
// shortcuts; settings; the hand-over of worker results to AppState. Knows nothing of windows or
// EGL: main/windowed and headless drive it frame by frame.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>
#include "app_state.h"
#include "engine_thread.h"
#include "gpu_setting.h"

namespace tilelab::gui {

// Milliseconds from a to b.
inline double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

struct AppOptions {
    bool persist = true;            // read and write ~/.config/tilelab (off for headless runs)
    bool log_latency = false;       // timings to stderr: first frame, submit -> drawn, frame times
    std::string lesson;             // id or number prefix; "" = resume where the user left off
    int step = -1;                  // -1 = resume / first step
    std::vector<std::string> sets;  // "NAME=VALUE" overrides after the step's presets
    std::string size;               // problem size override
    std::string panel;              // tab to open: occupancy, memory, code, tiles, compare, exercise
    // Exercises: where they are saved when `persist` is off ("" = not saved; with `persist`, the
    // exercise store's own folder), and a file whose text is typed into the editor at start.
    std::string exercise_dir;
    std::string exercise_text;
    std::string drill_answer;       // --drill-answer K=VALUE: drill K of the lesson answered and checked at start
    std::string drill_scores;       // --drill-scores FILE: the drills' scores, when `persist` is off ("" = none)
    std::string sweep;              // --sweep X[,Y][,curves]: the Compare tab's sweep started (gui/compare_sweep_text.cpp)
    bool tune = false;              // --tune: the Compare tab's "Start search" pressed at start (gui/panel_tune.cpp)
    bool presenter = false;
    float text_size = 0;            // --text-size: View > Larger/Smaller text's scale (0 = the settings file's)
    std::string lang;               // "en" / "zh" from --lang; "" = the settings file's, else the locale's
    Clock::time_point launched = Clock::now();
};

struct FrameStats {
    int frames = 0, busy_frames = 0, font_frames = 0;
    double max_ms = 0, max_busy_ms = 0, sum_busy_ms = 0;
};

class App {
public:
    App(const AppOptions& options, EngineThread& engine_thread);
    ~App();
    App(const App&) = delete;
    App& operator=(const App&) = delete;

    // After the ImGui context and the OpenGL3 renderer exist. Returns "" or why the options
    // cannot be honoured (unknown lesson or parameter).
    std::string Init();
    // Before ImGui::NewFrame(): rebuilds the fonts when the scale changed.
    // `window_width` x `window_height`: the window's size in screen coordinates (ImGui's DisplaySize);
    // below the 1280x720 the layout is designed at, text and spacing shrink in proportion.
    void BeforeNewFrame(float window_width, float window_height);
    // Builds one frame (between NewFrame and Render).
    void Frame();
    // Clears the framebuffer and draws ImGui's draw data.
    void Render(int framebuffer_width, int framebuffer_height);
    // After the frame was presented: latency and frame-time bookkeeping.
    void AfterFrame(double frame_ms);

    AppState& state() { return state_; }
    const FrameStats& frame_stats() const { return stats_; }
    // The text size drawn: View > Larger/Smaller text, times the window's fit below 1280x720, times
    // presenter mode's 1.4.
    float effective_font_scale() const;
    bool quit_requested() const { return quit_; }
    // The worker has delivered the final result for the newest request, measured in full.
    bool settled() const;
    // The final result (quick or full) of request `request_id` is the one on screen.
    bool drawn(uint64_t request_id) const;
    // Our own invariants (indices in range, request matches the lesson); "" when they hold.
    std::string CheckInvariants() const;
    void SaveSettingsNow();
    // Frame times, then PrintCompileAheadStats().
    void PrintFrameStats(std::FILE* out) const;
    // How many of the user's requests found their kernel compiled (ahead): one line.
    void PrintCompileAheadStats(std::FILE* out) const;

private:
    std::string init_from_options();   // Init's work; Init records whether it succeeded
    std::string select_panel_from_options();
    void wait_for_engine() const;      // the engine starts on the worker's thread: up to 120 s for it to be ready
    void poll_worker();
    void log_stages(const EngineUpdate& update, Clock::time_point drawn_at) const;
    void on_engine_ready();
    void handle_keys();
    void draw_menu_bar();
    void draw_model_banner();
    void draw_columns(float height);
    void draw_tabs();
    void draw_status_bar();
    void apply_style();

    AppOptions options_;
    EngineThread& engine_thread_;
    AppState state_;
    std::string settings_path_, ini_path_;
    std::string saved_model_target_;
    GpuSettingDraft gpu_draft_;
    float built_font_scale_ = 0;
    float window_fit_ = 1.0f;         // WindowFitScale of the window's size
    Language built_language_ = Language::English;   // the language the fonts were built for
    bool chinese_shown_ = false;      // the fonts have had Chinese in this run: they keep it
    // A frame drew characters the fonts lack (Chinese typed or pasted in English, a file's
    // comment): the next frame builds the fonts with Chinese. Asked once a run (a character no
    // font has would ask every frame).
    bool missing_glyphs_seen_ = false, chinese_asked_ = false;
    bool quit_ = false;
    bool initialized_ = false;        // Init succeeded: only then are settings written on exit
    bool engine_seen_ = false;
    uint64_t shown_request_id_ = 0;   // the request whose update state_.result holds
    bool first_frame_logged_ = false;
    bool fonts_rebuilt_ = false;      // this frame rebuilt the font atlas
    double last_frame_ms_ = 0;
    FrameStats stats_;
    std::vector<EngineUpdate> to_log_;   // updates applied this frame, logged once drawn
};

}  // namespace tilelab::gui
