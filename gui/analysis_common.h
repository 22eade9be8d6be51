// Helpers the four analysis panels (occupancy, memory, tiles, compare) share: headline numbers in the big font,
// a drawn match mark, and short labels for configurations.
#pragma once
#include <functional>
#include <string>
#include <imgui.h>
#include "app_state.h"
#include "tilelab/i18n.h"

namespace tilelab::gui {

// "no GPU", in the current language: what a measured column shows in model mode.
inline const char* NoGpu() { return tr("banner.no_gpu").c_str(); }

// The result a panel draws, or null after saying so in one dim line ("No result yet: ... to
// `purpose`.").
const RunResult* ResultOrHint(const AppState& state, const char* purpose);

// Three plots side by side where the panel is wide enough, else one above the other; each
// callback draws one plot at the size it is given.
void ThreeAcross(float avail_width, float height, const std::function<void(ImVec2)>& first,
                 const std::function<void(ImVec2)>& second, const std::function<void(ImVec2)>& third);

// A caption in small dim text above a value in the big font, as one group. With `same_row` it
// goes right of the previous item when it fits there, else on a new line, so a row of headlines
// wraps in a narrow panel. `help` (may be null) becomes a tooltip on the value.
void Headline(const char* caption, const std::string& value, ImU32 color, const char* help, bool same_row = true);

// `text` in the big headline font and `color`, shrunk (down to the body text's size) when the
// line has less room left than it needs, so a narrow column never cuts a headline number off.
// Returns the ascent it was drawn with, for text set on its baseline. `keep_clear` px at the
// line's end stay empty (a gap to the next column's number).
float FittedBigText(const std::string& text, ImU32 color, float keep_clear = 0);

// A check mark (green) or a cross (red) drawn as lines, one text line high; any font has it.
void MatchMark(bool match);

// "TILE=32 PAD=1" (parameters in name order).
// "BM=128 PREC=bf16": values shown as the variant's parameters show them (numbers without one).
std::string ParamSummary(const ParamValues& params, const std::string& variant_id = "");

// A short label for a configuration: "<variant title> TILE=32 @ 1024".
std::string ConfigLabel(const RunResult& r);

}  // namespace tilelab::gui
