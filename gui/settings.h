// Our own small settings file, ~/.config/tilelab/settings.json ($XDG_CONFIG_HOME respected):
// where the user was (lesson, step), comfort (font scale, presenter mode, tab), the model-mode
// target and the parameters and size last used for each variant. ImGui keeps its own ini beside it.
#pragma once
#include <string>
#include "app_state.h"

namespace tilelab::gui {

std::string ConfigDir();                     // created on demand; "" if there is no home
std::string SettingsPath();                  // ConfigDir()/settings.json

struct SavedPlace {
    std::string lesson_id;                   // "" = start at the first lesson
    int step = 0;
    std::string model_target;                // preset key, "" = the engine's default
};

// Reads what exists into `state` (comfort and per-variant memory) and returns where to resume.
// A missing or unreadable file leaves everything at its default.
SavedPlace LoadSettings(const std::string& path, AppState& state);
// Writes atomically (temporary file, then rename). Returns false with `error` set on failure.
bool SaveSettings(const std::string& path, const AppState& state, std::string& error);

}  // namespace tilelab::gui
