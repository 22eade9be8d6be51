// Headless rendering: an EGL pbuffer context (no X server; Mesa's llvmpipe on CPU machines, the
// NVIDIA driver on the GPU machine), ImGui's OpenGL3 renderer only (no platform backend: we feed
// the display size and time ourselves), frames rendered until the result is in, then a PNG.
// Also the scripted walk through every lesson, step and tab, and the latency measurement.
#pragma once
#include <string>
#include "app.h"

namespace tilelab::gui {

// Which EGL device renders: Auto tries the device platform (first device that works), then Mesa's
// surfaceless one, then the default display. Gpu/Software insist on a device of that kind, so that
// GL can be kept off the GPU the CUDA worker measures on.
enum class GlDevice { Auto, Gpu, Software };

struct HeadlessOptions {
    AppOptions app;
    EngineConfig engine;
    int width = 1600, height = 900;
    std::string screenshot;      // PNG to write once the result is drawn ("" = none)
    bool walk = false;           // every lesson x step x tab, one frame each; fail on any error
    int monkey = 0;              // this many random user actions, checked frames after each (0 = none)
    unsigned monkey_seed = 1;    // ... drawn from this seed
    bool check_layout = false;   // fail when the last frame cut text short (ui_common.h: LayoutProblems)
    std::string drag;            // measure latency: step this parameter through its legal values
    int drag_values = 0;         // ... at most this many of them, from the current one up (0 = all)
    bool run_measured = false;   // press the step's "Run them here" and wait for every run (GPU only)
    double timeout_s = 300;      // longest wait for a result
    GlDevice gl_device = GlDevice::Auto;
};

// Returns the process exit code (tilelab/input_policy.h): 0 fine, 2 invalid input (refused as
// tilelab-cli refuses it), 1 anything else that failed: no GL device of the kind asked for, a GL
// error or broken invariant, a timeout, a screenshot that could not be written. stderr says which.
int RunHeadless(const HeadlessOptions& options);

}  // namespace tilelab::gui
