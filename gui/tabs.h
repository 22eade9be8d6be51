// The app's tabs, in the order the tab bar and the View menu show them: one row per tab, and every
// place that knows the tabs iterates this table (the tab bar and the View menu in gui/app.cpp,
// --panel, the settings' "tab" in gui/settings.cpp, the headless walk in gui/headless.cpp).
// A new tab is one row here, its panel function (gui/panels.h), its AppState::show_ flag and its
// strings (tab.<name>, the menu key) in strings/*.json.
#pragma once
#include <algorithm>
#include <iterator>
#include <string_view>
#include "app_state.h"
#include "panels.h"

namespace tilelab::gui {

struct Tab {
    const char* name;           // its identity in every language: "###name", the settings' "tab",
                                // --panel (any case); shown as tr("tab.<name>")
    const char* menu_key;       // the View menu's item that shows or hides it
    bool AppState::*shown;      // whether the tab bar shows it (the View menu's tick)
    void (*draw)(AppState&);    // draws it into the tab's child window
};

inline constexpr Tab kTabs[] = {
    {"Occupancy", "menu.occupancy_tab", &AppState::show_occupancy, DrawOccupancyPanel},
    {"Memory", "menu.memory_tab", &AppState::show_memory, DrawMemoryPanel},
    {"Code", "menu.code_tab", &AppState::show_code, DrawCodePanel},
    {"Tiles", "menu.tiles_tab", &AppState::show_tiles, DrawTilesPanel},
    {"Compare", "menu.compare_tab", &AppState::show_compare, DrawComparePanel},
    {"Drills", "menu.drills_tab", &AppState::show_drills, DrawDrillsPanel},
};

// The lesson's text as a tab, in front of these, where the window is too narrow for its column
// (App::draw_columns); not a row above: it has no View-menu tick, no panel of its own and is never
// the saved tab. Its identity (select_tab, --panel lesson); shown as tr("tab.Lesson").
inline constexpr std::string_view kLessonTab = "Lesson";   // ui-strings: not shown

// The tab of that exact name; nullptr when there is none.
inline const Tab* FindTab(std::string_view name) {
    const Tab* t = std::find_if(std::begin(kTabs), std::end(kTabs), [&](const Tab& tab) { return name == tab.name; });
    return t == std::end(kTabs) ? nullptr : t;
}

}  // namespace tilelab::gui
