#include "settings.h"
#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include "actions.h"
#include "tilelab/i18n.h"
#include "app.h"
#include "tabs.h"
#include "tilelab/input_policy.h"
#include "tilelab/time_text.h"
#include "tilelab/safe_file.h"

namespace tilelab::gui {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A settings file is a few kB; anything far larger is not one.
constexpr size_t kMaxSettingsBytes = size_t(1) << 20;
constexpr int kMaxStep = 1000;
constexpr size_t kMaxNameLength = 200;

enum class Parsed { missing, object, unusable };

// Reads and parses `path`. `unusable`: something is there but it is not a JSON object we can
// use; `why` says what (and whether it can be moved aside: only regular files are).
Parsed read_settings(const std::string& path, json& out, std::string& why, bool& movable) {
    std::string text;
    movable = false;
    switch (read_regular_file(path, kMaxSettingsBytes, text, why)) {
    case ReadOutcome::missing: return Parsed::missing;
    case ReadOutcome::refused:
    case ReadOutcome::failed: return Parsed::unusable;
    case ReadOutcome::ok: break;
    }
    movable = true;
    out = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (out.is_discarded()) {
        why = text.empty() ? "it is empty" : "it is not valid JSON";
        return Parsed::unusable;
    }
    if (!out.is_object()) {
        why = "it is JSON but not an object";
        return Parsed::unusable;
    }
    return Parsed::object;
}

// Field readers: each takes the field if it is present and right, else says why not.
struct FieldReader {
    const json& j;
    std::vector<std::string>& notices;

    void bad(const char* key, const std::string& what, const std::string& instead) {
        notices.push_back(std::string("settings: \"") + key + "\" " + what + "; using " + instead + ".");
    }

    void text(const char* key, std::string& out, const std::string& default_name) {
        if (!j.contains(key)) return;
        const json& v = j.at(key);
        if (!v.is_string()) return bad(key, "is not a string", default_name);
        if (v.get_ref<const std::string&>().size() > kMaxNameLength) return bad(key, "is too long", default_name);
        out = v.get<std::string>();
    }

    void integer(const char* key, int& out, int min, int max) {
        if (!j.contains(key)) return;
        const json& v = j.at(key);
        const std::string instead = std::to_string(out);
        if (!v.is_number_integer()) return bad(key, "is not a whole number", instead);
        const bool in_range = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(max)
                                                     : v.get<int64_t>() >= min && v.get<int64_t>() <= max;
        if (!in_range) return bad(key, "is not between " + std::to_string(min) + " and " + std::to_string(max), instead);
        out = v.get<int>();
    }

    void number(const char* key, float& out, float min, float max) {
        if (!j.contains(key)) return;
        const json& v = j.at(key);
        const std::string instead = json(out).dump();
        if (!v.is_number() || !std::isfinite(v.get<double>())) return bad(key, "is not a number", instead);
        const double d = v.get<double>();
        if (d < min || d > max) return bad(key, "is not between " + json(min).dump() + " and " + json(max).dump(), instead);
        out = float(d);
    }

    void boolean(const char* key, bool& out) {
        if (!j.contains(key)) return;
        if (!j.at(key).is_boolean()) return bad(key, "is not true or false", out ? "true" : "false");
        out = j.at(key).get<bool>();
    }
};


}  // namespace

std::string ConfigDir(std::string& why) {
    std::string base;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home) base = std::string(home) + "/.config";
    else {
        why = "there is no configuration folder (neither XDG_CONFIG_HOME nor HOME is set)";
        return "";
    }
    const std::string dir = base + "/tilelab";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir, ec)) {
        why = os_error("cannot use the configuration folder", dir, ec ? ec.value() : ENOTDIR);
        return "";
    }
    return dir;
}

std::string ConfigDir() {
    std::string why;
    return ConfigDir(why);
}

std::string SettingsPath() {
    const std::string dir = ConfigDir();
    return dir.empty() ? "" : dir + "/settings.json";
}

std::string MoveAside(const std::string& path, std::string& error) {
    const std::string base = path + ".bad-" + time_text("%Y%m%d-%H%M%S", TimeZone::Local);
    std::string target = base;
    struct stat st {};
    for (int n = 2; ::lstat(target.c_str(), &st) == 0; ++n) target = base + "-" + std::to_string(n);
    std::error_code ec;
    fs::rename(path, target, ec);
    if (ec) {
        error = os_error("cannot move aside", path, ec.value());
        return "";
    }
    return target;
}

std::string UsableIniPath(const std::string& path) {
    std::string bytes, why;
    const ReadOutcome got = read_regular_file(path, kMaxSettingsBytes, bytes, why);
    if (got == ReadOutcome::ok || got == ReadOutcome::missing) return path;
    std::fprintf(stderr, "tilelab: %s\n", trf("notice.layout_not_kept", why).c_str());
    return "";
}

SavedPlace LoadSettings(const std::string& path, AppState& state, std::vector<std::string>& notices) {
    SavedPlace place;
    if (path.empty()) return place;
    json j;
    std::string why;
    bool movable = false;
    switch (read_settings(path, j, why, movable)) {
    case Parsed::missing: return place;
    case Parsed::unusable:
        if (movable) {
            std::string error;
            const std::string moved = MoveAside(path, error);
            notices.push_back(moved.empty()
                                  ? "settings: " + shortened_path(path) + " cannot be used (" + why + ") nor moved aside (" + error +
                                        "); defaults are used and it will not be overwritten."
                                  : "settings: " + shortened_path(path) + " cannot be used (" + why + "); it was moved to " +
                                        shortened_path(moved) + " and defaults are used.");
        } else {
            notices.push_back("settings: " + why + "; defaults are used and nothing will be saved there.");
        }
        return place;
    case Parsed::object: break;
    }

    FieldReader f{j, notices};
    f.text("lesson", place.lesson_id, "the first lesson");
    f.integer("step", place.step, 0, kMaxStep);
    f.text("model_target", place.model_target, "the default target");
    if (!place.model_target.empty() && !find_target(place.model_target)) {
        f.bad("model_target", "is not a target preset (" + shortened(place.model_target) + ")", "the default target");
        place.model_target.clear();
    }
    f.text("language", place.language, "the locale's language");
    if (Language lang; !place.language.empty() && !parse_language(place.language, lang)) {
        f.bad("language", "is not a language (" + shortened(place.language) + ")", "the locale's language");
        place.language.clear();
    }
    f.number("font_scale", state.font_scale, 0.5f, 3.0f);
    f.boolean("presenter", state.presenter_mode);
    f.boolean("show_lesson", state.show_lesson);
    f.boolean("hardware_counters", state.run_options.hardware_counters);
    f.boolean("stall_samples", state.run_options.stall_samples);
    std::string tab = state.active_tab;
    f.text("tab", tab, "the " + state.active_tab + " tab");
    if (!FindTab(tab)) {
        f.bad("tab", "is not a tab (" + shortened(tab) + ")", "the " + state.active_tab + " tab");
        tab = state.active_tab;
    }
    state.active_tab = tab;
    state.select_tab = state.active_tab;

    if (j.contains("params")) {
        if (!j["params"].is_object()) {
            f.bad("params", "is not an object", "each lesson's defaults");
        } else {
            int dropped = 0;
            for (const auto& [variant, values] : j["params"].items()) {
                if (!values.is_object()) {
                    ++dropped;
                    continue;
                }
                ParamValues pv;
                for (const auto& [name, v] : values.items()) {
                    const bool fits = v.is_number_integer() && !v.is_number_unsigned()
                                          ? v.get<int64_t>() >= INT32_MIN && v.get<int64_t>() <= INT32_MAX
                                          : v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(INT32_MAX);
                    if (fits) pv[name] = v.get<int>();
                    else ++dropped;
                }
                state.params_by_variant[variant] = pv;
            }
            if (dropped > 0)
                f.bad("params", "has " + std::to_string(dropped) + " value(s) that are not whole numbers",
                      "the defaults for those");
        }
    }
    if (j.contains("size")) {
        if (!j["size"].is_object()) {
            f.bad("size", "is not an object", "each lesson's default size");
        } else {
            int dropped = 0;
            for (const auto& [variant, v] : j["size"].items()) {
                if (v.is_string() && v.get_ref<const std::string&>().size() <= kMaxNameLength)
                    state.size_by_variant[variant] = v.get<std::string>();
                else ++dropped;
            }
            if (dropped > 0)
                f.bad("size", "has " + std::to_string(dropped) + " entry(ies) that are not sizes", "the default for those");
        }
    }
    return place;
}

bool SaveSettings(const std::string& path, const AppState& state, std::string& error) {
    if (path.empty()) {
        std::string why = "there is no configuration folder";
        ConfigDir(why);
        error = "settings not saved: " + why;
        return false;
    }
    // Start from what is on disk, so keys this version does not know survive. A file that does
    // not parse (edited while the app ran) is moved aside first; one that cannot be moved is
    // left alone and nothing is written.
    json j = json::object();
    std::string why;
    bool movable = false;
    if (read_settings(path, j, why, movable) == Parsed::unusable) {
        if (!movable) {
            error = "settings not saved: " + why;
            return false;
        }
        std::string move_error;
        const std::string moved = MoveAside(path, move_error);
        if (moved.empty()) {
            error = "settings not saved: " + shortened_path(path) + " cannot be used (" + why + ") nor moved aside (" + move_error + ")";
            return false;
        }
        std::fprintf(stderr, "tilelab: %s\n",
                     trf("notice.settings_moved_aside", shortened_path(path), why, shortened_path(moved)).c_str());
        j = json::object();
    }
    if (!j.is_object()) j = json::object();
    if (const Lesson* lesson = CurrentLesson(state)) j["lesson"] = lesson->id;
    j["step"] = state.step_index;
    j["language"] = language_code(state.language);
    j["font_scale"] = state.font_scale;
    j["presenter"] = state.presenter_mode;
    j["show_lesson"] = state.show_lesson;
    j["hardware_counters"] = state.run_options.hardware_counters;
    j["stall_samples"] = state.run_options.stall_samples;
    j["tab"] = state.active_tab;
    const auto& presets = target_presets();
    if (state.model_target_index >= 0 && state.model_target_index < int(presets.size()))
        j["model_target"] = presets[size_t(state.model_target_index)].preset;
    json params = json::object();
    for (const auto& [variant, values] : state.params_by_variant) params[variant] = values;
    j["params"] = params;
    j["size"] = state.size_by_variant;

    std::string write_error;
    // Text that is not UTF-8 (a --size typed with stray bytes) is replaced, not a reason to throw.
    const std::string text = j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    if (!write_file_atomic(path, text, write_error)) {
        error = "settings not saved: " + write_error;
        return false;
    }
    return true;
}

}  // namespace tilelab::gui
