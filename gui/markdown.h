// Lesson markdown (md4c) drawn with ImGui: headings, paragraphs with wrapped mixed-style text,
// bullet and numbered lists, emphasis, inline code, fenced code blocks, block quotes and tables.
// HTML comments (the lesson's <!-- set: ... --> directives) are not shown.
#pragma once
#include <string_view>

namespace tilelab::gui {

// Draws `text` into the current window at the cursor, wrapping at the window's content width.
// Parses on every call (a lesson step is a few kilobytes: microseconds). Returns false if md4c
// rejected the text (it then draws it plain).
bool RenderMarkdown(std::string_view text);

}  // namespace tilelab::gui
