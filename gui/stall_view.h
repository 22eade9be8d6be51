// Where the warps wait, drawn (tilelab/stalls.h): one colour per stall group, a bar beside each
// source line of the Code panel with its share of the kernel's samples, a tooltip with the line's
// reasons and its sampled SASS instructions, the kernel's summary and its legend.
#pragma once
#include <imgui.h>
#include <string>
#include <vector>
#include "tilelab/result.h"

namespace tilelab::gui {

ImU32 StallColor(StallGroup g);

// The kernel's samples per line of the file the Code panel shows (index = line - 1; null where a
// line has none). Empty when the result has no samples for that file.
std::vector<const StallLine*> StallLinesOf(const RunResult& r, size_t line_count);

// The bar column: `width` wide, one line high; `most` is the largest line's sample count (bars
// are scaled to it). Hover: the line's share, its reasons and its SASS instructions.
void DrawStallBar(const StallSamples& s, const StallLine* line, uint64_t most, float width);
// The same bar drawn at `p` without an item (beside a text editor's lines, which is one item);
// its tooltip shows while the mouse is over it. Returns whether it is hovered.
bool DrawStallBarAt(ImDrawList* dl, ImVec2 p, ImVec2 size, const StallSamples& s, const StallLine* line, uint64_t most);
// The largest line's sample count among `lines` (StallLinesOf), what the bars are scaled to.
uint64_t StallMostOf(const std::vector<const StallLine*>& lines);

// The kernel's `n` most sampled lines of its own file, one selectable row each (line, share, top
// reason, the line's text from kernel_source). Returns the line clicked, 0 for none.
int DrawStallTopLines(const RunResult& r, size_t n);

// Above the source: the summary sentence, the legend of the groups present, or why there are no
// samples (status, reason); nothing when sampling was not asked for.
void DrawStallHeader(const RunResult& r);

}  // namespace tilelab::gui
