// Helpers the four analysis panels (occupancy, memory, tiles, compare) share: headline numbers in the big font,
// a drawn match mark, and short labels for configurations.
#pragma once
#include <string>
#include <imgui.h>
#include "app_state.h"

namespace tilelab::gui {

// Shown wherever a value needs a GPU and there is none (model mode).
inline constexpr const char* kNoGpu = "no GPU";

// A caption in small dim text above a value in the big font, as one group. With `same_row` it
// goes right of the previous item when it fits there, else on a new line, so a row of headlines
// wraps in a narrow panel. `help` (may be null) becomes a tooltip on the value.
void Headline(const char* caption, const std::string& value, ImU32 color, const char* help, bool same_row = true);

// A check mark (green) or a cross (red) drawn as lines, one text line high; any font has it.
void MatchMark(bool match);

// "TILE=32 PAD=1" (parameters in name order).
std::string ParamSummary(const ParamValues& params);

// A short label for a configuration: "<variant title> TILE=32 @ 1024".
std::string ConfigLabel(const RunResult& r);

}  // namespace tilelab::gui
