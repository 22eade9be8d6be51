// Where the user's exercise files live, and how they are kept: one file per lesson in
// $XDG_DATA_HOME/tilelab/exercises/ (else ~/.local/share/tilelab/exercises/), named by the
// lesson's slug without its number ("matmul_smem_tiled.cu"), so renumbering the lessons keeps
// them. Every save replaces the file whole (temporary file, fsync, rename): a crash at any point
// leaves the last saved text or the one before it, never a torn file. Nothing is ever dropped:
// a reset keeps a backup, and a saved file that cannot be read is moved aside, not overwritten.
#pragma once
#include <string>
#include "tilelab/exercise.h"

namespace tilelab {

// $XDG_DATA_HOME/tilelab/exercises or ~/.local/share/tilelab/exercises; "" when neither is set.
std::string default_exercise_dir();

class ExerciseStore {
public:
    explicit ExerciseStore(std::string dir) : dir_(std::move(dir)) {}
    const std::string& dir() const { return dir_; }

    // "<dir>/matmul_smem_tiled.cu" for lesson "02_matmul_smem_tiled".
    std::string path_for(const Exercise& ex) const;
    std::string path_for_lesson(const std::string& lesson_id) const;

    // The saved text; the starting file when nothing is saved yet. A saved file that cannot be
    // used (not text, too large, unreadable) is renamed to "<file>.unreadable-<time>" first, and
    // `note` says so and where it went; otherwise `note` is empty.
    std::string load(const Exercise& ex, std::string& note) const;
    // Replaces the saved file with `text`, atomically. False with one line in `error`.
    bool save(const Exercise& ex, const std::string& text, std::string& error) const;
    // Copies the saved file to "<file>.bak-<time>" (`backup` gets its path; "" when nothing is
    // saved). False with `error` when it could not be read or copied.
    bool back_up(const Exercise& ex, std::string& backup, std::string& error) const;
    // Reset to the starting file: the current file is copied to "<file>.bak-<time>" first
    // (`backup` gets its path; "" when there was nothing saved). False with `error` if the
    // backup could not be written, and then nothing is changed.
    bool reset(const Exercise& ex, std::string& backup, std::string& error) const;

private:
    std::string dir_;
};

}  // namespace tilelab
