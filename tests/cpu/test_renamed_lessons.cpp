// Lesson folders renamed to follow the naming rule (tilelab/lesson.h renamed_lessons()): what a
// user saved under the old folder name still loads — the app's last lesson (find_lesson), the
// drills' scores (keyed by the folder without its number) and the exercise files (the same).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tilelab/drills.h"
#include "tilelab/exercise.h"
#include "tilelab/exercise_store.h"
#include "tilelab/lesson.h"

using namespace tilelab;
namespace fs = std::filesystem;

namespace {

fs::path scratch_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("tilelab_renamed_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string read_all(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST(RenamedLessons, EveryOldNameFindsItsNewFolder) {
    ASSERT_FALSE(renamed_lessons().empty());
    for (const auto& [before, now] : renamed_lessons()) {
        const Lesson* l = find_lesson(before);
        ASSERT_NE(l, nullptr) << before;
        EXPECT_EQ(l->id, now);
        EXPECT_EQ(find_lesson(now), l);
        EXPECT_EQ(before.substr(0, 3), now.substr(0, 3)) << "a rename keeps the lesson's number";
    }
    EXPECT_EQ(find_lesson("03_shared_memory_banks")->variant, "transpose.smem");
    EXPECT_EQ(find_lesson("07_registers_spills_occupancy")->variant, "matmul.register_pressure");
}

TEST(RenamedLessons, ScoresSavedUnderTheOldNameCountAndAreWrittenUnderTheNew) {
    const fs::path dir = scratch_dir("scores");
    const std::string path = (dir / "drills.json").string();
    // As an earlier TileLab wrote it: lesson 03's and 07's scores under their old slugs, and a score
    // under 07's new slug that the old one must not overwrite.
    std::ofstream(path) << R"({"version": 1, "lessons": {
        "shared_memory_banks": {"pad_fixes": "right", "swizzle": "wrong"},
        "registers_spills_occupancy": {"spill": "wrong", "occupancy": "right"},
        "matmul_register_pressure": {"spill": "right"},
        "matmul_smem_tiled": {"loads_per_thread": "right"}}})";
    DrillScores scores;
    std::string error;
    ASSERT_TRUE(scores.load(path, error)) << error;
    EXPECT_EQ(scores.outcome("03_transpose_smem", "pad_fixes"), 1);
    EXPECT_EQ(scores.outcome("03_transpose_smem", "swizzle"), 0);
    EXPECT_EQ(scores.outcome("07_matmul_register_pressure", "occupancy"), 1);
    EXPECT_EQ(scores.outcome("07_matmul_register_pressure", "spill"), 1) << "the new name's own score wins";
    EXPECT_EQ(scores.outcome("02_matmul_smem_tiled", "loads_per_thread"), 1);

    ASSERT_TRUE(scores.save(path, error)) << error;
    const std::string saved = read_all(path);
    EXPECT_EQ(saved.find("shared_memory_banks"), std::string::npos) << saved;
    EXPECT_EQ(saved.find("registers_spills_occupancy"), std::string::npos) << saved;
    EXPECT_NE(saved.find("transpose_smem"), std::string::npos) << saved;
    DrillScores again;
    ASSERT_TRUE(again.load(path, error)) << error;
    EXPECT_EQ(again, scores);
    fs::remove_all(dir);
}

TEST(RenamedLessons, AnExerciseSavedUnderTheOldNameMovesToTheNew) {
    for (const auto& [before, now] : renamed_lessons()) {
        const Exercise* ex = find_exercise(now);
        if (!ex) continue;   // a lesson whose kernel has no exercise
        const fs::path dir = scratch_dir("exercise");
        const ExerciseStore store(dir.string());
        const std::string old_path = store.path_for_lesson(before);
        const std::string text = ex->skeleton + "\n// the user's work\n";
        std::ofstream(old_path) << text;
        std::string note;
        EXPECT_EQ(store.load(*ex, note), text) << now;
        EXPECT_EQ(note, "");
        EXPECT_FALSE(fs::exists(old_path));
        EXPECT_EQ(read_all(store.path_for(*ex)), text);
        // A file under the new name is never replaced by one left under the old name.
        std::ofstream(old_path) << "// stale\n";
        EXPECT_EQ(store.load(*ex, note), text);
        EXPECT_TRUE(fs::exists(old_path));
        fs::remove_all(dir);
    }
    EXPECT_NE(find_exercise("03_transpose_smem"), nullptr) << "lesson 03's kernel has an exercise: the loop ran";
}
