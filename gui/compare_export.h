// Getting results out of the Compare panel: sweep or pinned results as CSV or JSON, and a PNG of
// a screen rectangle (a plot) read back from the framebuffer once the frame has been rendered.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include "app_state.h"

namespace tilelab::gui {

using ResultList = std::vector<std::shared_ptr<const RunResult>>;

// A result that ran and, where it was validated, passed: the Compare panel draws the others red.
inline bool Passed(const RunResult& r) { return r.ok && (!r.validation.checked || r.validation.passed); }

// One row per result (null entries skipped): variant, problem, every parameter, status, timing,
// validation, occupancy, registers and the model's intensity. Unmeasured values are empty cells.
std::string ResultsToCsv(const ResultList& results);
// The same fields as an array of JSON objects (unmeasured values are null).
std::string ResultsToJson(const ResultList& results);

// Writes `text` to `path`. Returns "" or a sentence saying why it could not.
std::string WriteTextFile(const std::string& path, const std::string& text);

// Asks for a PNG of the screen rectangle [min, max] (ImGui coordinates) at `path`; taken by
// ServicePendingCapture after this frame is rendered.
void RequestCapture(AppState& state, const std::string& path, float min_x, float min_y, float max_x, float max_y);
// Call after the frame's draw data is rendered and before buffers are swapped (App::Render):
// reads the rectangle back from the framebuffer and writes it. The outcome goes to
// state.export_message. Does nothing when no capture is pending.
void ServicePendingCapture(AppState& state, int framebuffer_width, int framebuffer_height);

}  // namespace tilelab::gui
