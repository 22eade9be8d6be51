// The drills' score per lesson, kept between runs of the app (tilelab/drills.h): one small JSON
// file in the user's data folder, replaced whole on every save (tilelab/safe_file.h).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "tilelab/drills.h"
#include "tilelab/lesson.h"
#include "tilelab/safe_file.h"

namespace tilelab {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string DrillScores::default_path() {
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return std::string(xdg) + "/tilelab/drills.json";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.local/share/tilelab/drills.json";
    return {};
}

std::string DrillScores::slug(const std::string& lesson_id) {
    const size_t underscore = lesson_id.find('_');
    return underscore == std::string::npos ? lesson_id : lesson_id.substr(underscore + 1);
}

bool DrillScores::load(const std::string& path, std::string& error) {
    outcomes_.clear();
    kept_.clear();
    newer_ = 0;
    std::string text;
    switch (read_regular_file(path, 1 << 20, text, error)) {
    case ReadOutcome::missing: return true;
    case ReadOutcome::ok: break;
    default: return false;
    }
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    const auto lessons = j.is_object() ? j.find("lessons") : j.end();
    if (j.is_discarded() || lessons == j.end() || !lessons->is_object()) {
        error = "the drill scores in " + path + " are not {\"lessons\": {...}}; they were left as they are";
        return false;
    }
    kept_ = j.dump();
    // Field by field: an entry that is not "right" or "wrong" is left out (and kept in the file).
    // Scores saved under a lesson's name before its folder was renamed (renamed_lessons()) count
    // for the new name where it has none of its own; save() writes them under the new name.
    std::map<std::string, std::map<std::string, bool>> under_old_names;
    for (const auto& [slug_name, drills] : lessons->items()) {
        if (!drills.is_object()) continue;
        std::string now = slug_name;
        for (const auto& [before, after] : renamed_lessons())
            if (slug_name == slug(before)) now = slug(after);
        auto& into = now == slug_name ? outcomes_[slug_name] : under_old_names[now];
        for (const auto& [drill_id, outcome] : drills.items())
            if (outcome == "right" || outcome == "wrong") into[drill_id] = outcome == "right";
    }
    for (const auto& [now, drills] : under_old_names)
        for (const auto& [drill_id, right] : drills) outcomes_[now].emplace(drill_id, right);
    const auto version = j.find("version");
    if (version != j.end() && version->is_number() && version->get<double>() > kVersion) {
        newer_ = version->is_number_integer() ? int(std::min<int64_t>(version->get<int64_t>(), INT32_MAX)) : kVersion + 1;
        error = fmt::format("the drill scores in {} were written by a newer TileLab (version {}, this one writes {}): they are "
                            "shown but not changed", path, version->dump(), kVersion);
        return false;
    }
    return true;
}

bool DrillScores::save(const std::string& path, std::string& error) const {
    if (newer_ > 0) {
        error = fmt::format("the drill scores in {} were written by a newer TileLab (version {}), so they were not written over",
                            path, newer_);
        return false;
    }
    // Start from what load() read: keys and entries this version does not know survive.
    json j = kept_.empty() ? json::object() : json::parse(kept_, nullptr, false);
    if (!j.is_object()) j = json::object();
    json& lessons = j["lessons"];
    if (!lessons.is_object()) lessons = json::object();
    for (auto lesson = lessons.begin(); lesson != lessons.end();) {
        bool emptied = false;
        if (lesson->is_object()) {   // this version's own entries are written again from outcomes_
            for (auto entry = lesson->begin(); entry != lesson->end();)
                entry = *entry == "right" || *entry == "wrong" ? lesson->erase(entry) : std::next(entry);
            emptied = lesson->empty();
        }
        lesson = emptied ? lessons.erase(lesson) : std::next(lesson);
    }
    for (const auto& [slug_name, drills] : outcomes_)
        for (const auto& [drill_id, right] : drills) {
            json& lesson = lessons[slug_name];
            if (!lesson.is_object()) lesson = json::object();   // not ours to keep: a lesson is an object
            lesson[drill_id] = right ? "right" : "wrong";
        }
    j["version"] = kVersion;
    std::error_code ec;
    if (const fs::path parent = fs::path(path).parent_path(); !parent.empty()) fs::create_directories(parent, ec);
    return write_file_atomic(path, j.dump(1) + "\n", error);
}

void DrillScores::record(const std::string& lesson_id, const std::string& drill_id, bool right) {
    outcomes_[slug(lesson_id)][drill_id] = right;
}

int DrillScores::outcome(const std::string& lesson_id, const std::string& drill_id) const {
    const auto lesson = outcomes_.find(slug(lesson_id));
    if (lesson == outcomes_.end()) return -1;
    const auto it = lesson->second.find(drill_id);
    return it == lesson->second.end() ? -1 : int(it->second);
}

int DrillScores::right_count(const std::string& lesson_id, const std::vector<std::string>& drill_ids) const {
    int n = 0;
    for (const std::string& id : drill_ids) n += outcome(lesson_id, id) == 1;
    return n;
}

void DrillScores::reset(const std::string& lesson_id) { outcomes_.erase(slug(lesson_id)); }

}  // namespace tilelab
