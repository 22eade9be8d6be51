// The user's exercise files (tilelab/exercise_store.h): atomic saves, backups on reset, and a
// saved file that cannot be read moved aside rather than overwritten.
#include "tilelab/exercise_store.h"
#include "tilelab/i18n.h"
#include "tilelab/lesson.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "tilelab/safe_file.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;

// PATH + TAG + seconds and milliseconds since the epoch, with -2, -3, ... appended if that name
// is taken: two resets in the same millisecond (a fast machine, a double click) keep two backups.
std::string unused_name(const std::string& path, const char* tag) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
    const std::string base = fmt::format("{}{}{}.{:03}", path, tag, ms / 1000, ms % 1000);
    std::string name = base;
    std::error_code ec;
    const auto taken = [&] {
        const fs::file_type t = fs::symlink_status(name, ec).type();
        return t != fs::file_type::not_found && t != fs::file_type::none;   // none: cannot tell, let the write say
    };
    for (int n = 2; taken() && n < 1000; ++n) name = fmt::format("{}-{}", base, n);
    return name;
}

bool make_dir(const std::string& dir, std::string& error) {
    if (dir.empty()) {
        error = say("There is no folder for exercises (neither XDG_DATA_HOME nor HOME is set).",
                    "没有存放练习的文件夹（XDG_DATA_HOME 和 HOME 都未设置）。");
        return false;
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        error = say("Cannot create {}: {}.", "无法创建 {}：{}。", dir, ec.message());
        return false;
    }
    return true;
}

}  // namespace

std::string default_exercise_dir() {
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return std::string(xdg) + "/tilelab/exercises";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.local/share/tilelab/exercises";
    return {};
}

std::string ExerciseStore::path_for(const Exercise& ex) const { return path_for_lesson(ex.lesson->id); }

std::string ExerciseStore::path_for_lesson(const std::string& id) const {
    const size_t underscore = id.find('_');
    const std::string slug = underscore == std::string::npos ? id : id.substr(underscore + 1);
    return (fs::path(dir_) / (slug + ".cu")).string();
}

std::string ExerciseStore::load(const Exercise& ex, std::string& note) const {
    note.clear();
    const std::string path = path_for(ex);
    // A file saved before the lesson's folder was renamed (renamed_lessons()) moves to the new name.
    for (const auto& [before, now] : renamed_lessons()) {
        std::error_code moved;
        const std::string old_path = path_for_lesson(before);
        if (now != ex.lesson->id || fs::exists(path, moved) || !fs::exists(old_path, moved)) continue;
        fs::rename(old_path, path, moved);
        if (moved) note = fmt::format("{} could not be moved to {} ({}); it is left as it is and the exercise starts "
                                      "afresh", old_path, path, moved.message());
    }
    std::string text, why;
    const ReadOutcome got = read_regular_file(path, kMaxUserSourceBytes + 1, text, why);
    if (got == ReadOutcome::missing) return ex.skeleton;
    if (got == ReadOutcome::ok) {
        why = user_source_problem(path, text);
        if (why.empty()) return text;
    }
    // Not usable: keep it where the user can find it, and start from the starting file.
    const std::string aside = unused_name(path, ".unreadable-");
    std::error_code ec;
    fs::rename(path, aside, ec);
    note = ec ? fmt::format("{} could not be used ({}) nor moved aside ({}); it is left as it is and not written",
                            path, why, ec.message())
              : fmt::format("{} could not be used ({}); it was moved to {} and the exercise starts afresh", path, why,
                            aside);
    return ex.skeleton;
}

bool ExerciseStore::save(const Exercise& ex, const std::string& text, std::string& error) const {
    if (!make_dir(dir_, error)) return false;
    return write_file_atomic(path_for(ex), text, error);
}

bool ExerciseStore::back_up(const Exercise& ex, std::string& backup, std::string& error) const {
    backup.clear();
    if (!make_dir(dir_, error)) return false;
    const std::string path = path_for(ex);
    std::string current, why;
    const ReadOutcome got = read_regular_file(path, size_t(64) << 20, current, why);
    if (got == ReadOutcome::missing) return true;
    if (got != ReadOutcome::ok) {
        error = say("{} could not be backed up ({}).", "{} 无法备份（{}）。", path, why);
        return false;
    }
    const std::string bak = unused_name(path, ".bak-");
    if (!write_file_atomic(bak, current, error)) return false;
    backup = bak;
    return true;
}

bool ExerciseStore::reset(const Exercise& ex, std::string& backup, std::string& error) const {
    if (!back_up(ex, backup, error)) {
        error += ", so it was not reset";
        return false;
    }
    return write_file_atomic(path_for(ex), ex.skeleton, error);
}

}  // namespace tilelab
