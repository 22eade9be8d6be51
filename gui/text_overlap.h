// Text drawn over other text, found in a frame's draw data after ImGui::Render(): the layout checks
// (`--check-layout`, the walk, the monkey) see what runs past a window's edge while drawing, but
// not a caption that a picture's own text lands on, which draw-list code places by hand.
#pragma once
#include <string>
#include <vector>

struct ImDrawData;

namespace tilelab::gui {

// One sentence for each window (with its child windows; tooltips and popups apart) where a glyph
// of one line of text covers at least a fifth of a glyph of another, as seen on screen (each within
// its clip rectangle), naming both lines' text and where. Glyphs of the same line may touch
// (kerning); a glyph drawn again within 2 px of itself (a shadow) is not counted.
std::vector<std::string> FindOverlappingText(const ImDrawData* draw_data);

}  // namespace tilelab::gui
