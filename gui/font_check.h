// Checking a font file before ImGui sees it. ImGui's rasteriser (stb_truetype) trusts the file:
// a truncated TTF makes it read past the end (SIGSEGV), an empty file or a folder trips its
// assertions (SIGABRT). So a candidate is read whole (a regular file of plausible size), its
// magic number and table directory are checked, every table must lie inside the file, the glyph
// index (loca) must point inside the glyph data, and a trial load must find the letter 'A'.
#pragma once
#include <string>

namespace tilelab::gui {

// Reads and checks the font at `path` (symlinks resolved, as system fonts often are links).
// On success `bytes` holds the file; otherwise `why` says in a few words what is wrong.
bool LoadCheckedFont(const std::string& path, std::string& bytes, std::string& why);

// Whether a checked font (its first face, as ImGui loads it) has a glyph for `codepoint`.
bool FontHasCodepoint(const std::string& bytes, int codepoint);

// The checks alone, on bytes already in memory.
bool CheckFontBytes(const std::string& bytes, std::string& why);

}  // namespace tilelab::gui
