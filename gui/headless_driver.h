// Frames for one App without a window (headless.cpp): ImGui's frame with the display size fed in,
// GL errors and the app's invariants checked after each, missing glyphs and layout problems
// collected; waits drawn at the windowed app's rate. Shared by the headless modes (the walk, the
// drag, the random actions of headless_monkey.cpp).
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include "app.h"
#include "engine_jobs.h"
#include "tilelab/util.h"

namespace tilelab::gui {

// While waiting for the worker, draw at most this often, and at once when it hands a result
// over: as the windowed app does while busy (60 Hz, woken by the engine thread, main.cpp), so
// that a measured change-to-redraw latency is what a window shows.
constexpr double kWaitFrameMs = 1000.0 / 60.0;

// Draws frames for one App; checks GL errors and the app's invariants after each.
class FrameDriver {
public:
    FrameDriver(App& app, int width, int height) : app_(app), width_(width), height_(height) {}

    // Returns false (with error() set) on a GL error or a broken invariant.
    bool frame();

    // Frames until the worker has delivered the final, fully measured result (or the timeout).
    // 0 fine, 2 error, 3 timeout.
    int until_settled(double timeout_s) {
        return until([this] { return app_.settled(); }, timeout_s);
    }

    // Frames until `done()` holds after a frame (or the timeout). 0 fine, 2 error, 3 timeout.
    template <class Done>
    int until(Done done, double timeout_s) {
        const auto start = Clock::now();
        const EngineThread* worker = app_.state().engine_thread;
        for (;;) {
            const auto frame_start = Clock::now();
            const uint64_t seen = worker ? worker->deliveries() : 0;   // before the frame takes them
            if (!frame()) return 2;
            if (done()) return 0;
            if (ms_since(start) > timeout_s * 1000) return 3;
            const double left = kWaitFrameMs - ms_since(frame_start);
            if (left <= 0) continue;
            if (worker) worker->wait_for_delivery(seen, left);
            else std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(left));
        }
    }

    int frames() const { return frames_; }
    // Characters drawn as the box because no font in the atlas has them, over every frame so far.
    int missing_glyphs() const { return missing_glyphs_; }
    // Where frame time goes: building the UI (CPU) against drawing it (GL; llvmpipe is the CPU too).
    void print_split(std::FILE* out) const;
    const std::string& error() const { return error_; }
    // Layout problems (ui_common.h) of the frames drawn while a context is set ("05 step 3,
    // Memory: ", which prefixes each; "" collects none), since the last take. `large_text`: all
    // but a step's parameter out of view (at a projector's text size one parameter's row can be
    // taller than the panel; tables scroll, headlines and rows of controls wrap).
    void set_layout_context(std::string context, bool large_text = false) {
        layout_context_ = std::move(context);
        large_text_ = large_text;
    }
    std::set<std::string> take_layout_problems() { return std::exchange(layout_seen_, {}); }

private:
    App& app_;
    int width_, height_;
    int frames_ = 0;
    int missing_glyphs_ = 0;
    double build_ms_ = 0, render_ms_ = 0;
    Clock::time_point last_ = Clock::now();
    std::string error_;
    std::string layout_context_;
    bool large_text_ = false;
    std::set<std::string> layout_seen_;
};

// --monkey: `actions` random things a user could do (lessons, steps, parameters with values allowed
// and not, sizes typed right and wrong, tabs, the Code views, language, text size, presenter
// mode, resets), each followed by a few checked frames and now and then a wait for the answer.
// The same seed, the same actions. 0 when every frame held, else 2 (or 3: no answer in time);
// stderr says which action.
// With `check_layout`, the frames drawn at the normal text size are checked too (layout: lines).
int Monkey(App& app, FrameDriver& driver, int actions, uint32_t seed, double timeout_s, bool check_layout);

}  // namespace tilelab::gui
