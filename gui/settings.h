// Our own small settings file, ~/.config/tilelab/settings.json ($XDG_CONFIG_HOME respected):
// where the user was (lesson, step), comfort (font scale, presenter mode, tab), the model-mode
// target and the parameters and size last used for each variant. ImGui keeps its own ini beside it.
//
// The file is the user's data. It is read field by field: a field of the wrong type or out of
// range is reported and replaced by its default while the others are kept. A file that does not
// parse at all is moved aside (settings.json.bad-<timestamp>) before anything is written. Writes
// are atomic (temporary file, fsync, rename) and keep the keys this version does not know.
#pragma once
#include <string>
#include <vector>
#include "app_state.h"

namespace tilelab::gui {

// The configuration folder, created on demand; "" with `why` set when there is none (no
// XDG_CONFIG_HOME or HOME, or something that is not a folder is in the way).
std::string ConfigDir(std::string& why);
std::string ConfigDir();
std::string SettingsPath();                  // ConfigDir()/settings.json, or ""

struct SavedPlace {
    std::string lesson_id;                   // "" = start at the first lesson
    int step = 0;
    std::string model_target;                // preset key, "" = the engine's default
    std::string language;                    // "en" / "zh", "" = not saved (the locale decides)
};

// Reads what exists into `state` (comfort and per-variant memory) and returns where to resume.
// A missing file leaves everything at its default, silently. Anything wrong with the file adds
// one sentence to `notices` (which field, what was wrong, what is used instead).
SavedPlace LoadSettings(const std::string& path, AppState& state, std::vector<std::string>& notices);
// Writes atomically, merged into the keys already in the file. Returns false with `error` (one
// line, naming the path and the OS's reason) on failure; never overwrites a file it cannot parse.
bool SaveSettings(const std::string& path, const AppState& state, std::string& error);

// `path` if ImGui may read and write its layout there (absent, or a regular file of plausible
// size), else "" with a notice on stderr: ImGui's own loader trusts whatever is at the path.
std::string UsableIniPath(const std::string& path);

// Moves an unreadable settings file to "<path>.bad-<timestamp>"; returns the new name, or "" with
// `error` set.
std::string MoveAside(const std::string& path, std::string& error);

}  // namespace tilelab::gui
