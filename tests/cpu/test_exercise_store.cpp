// The user's exercise files: saves round-trip, a reset keeps a backup, an unusable saved file is
// moved aside (never overwritten), and killing the editor at random points while it types loses
// no edit that was saved (tests/tools/exercise_typist.cpp stands in for the editor).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "spawned_program.h"
#include "tilelab/exercise_store.h"
#include "test_folder.h"

namespace {

using namespace tilelab;
namespace fs = std::filesystem;

class ExerciseStoreTest : public test::TestWithFolder {
protected:
    ExerciseStoreTest() : TestWithFolder("exercise_store", /*create=*/false) {}
    std::vector<std::string> files_starting(const std::string& prefix) const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(dir_))
            if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
        return out;
    }
};

const Exercise& first_exercise() { return all_exercises().front(); }

// Next to this test binary, in a build or a carried layout (scripts/carry_build.sh), or
// $TILELAB_EXERCISE_TYPIST.
std::string typist_path() { return test::helper_path(test::kTypistHelper); }

TEST_F(ExerciseStoreTest, NothingSavedLoadsTheStartingFileAndASaveRoundTrips) {
    const ExerciseStore store(dir_.string());
    const Exercise& ex = first_exercise();
    std::string note, error;
    EXPECT_EQ(store.load(ex, note), ex.skeleton);
    EXPECT_EQ(note, "");
    const std::string mine = ex.skeleton + "// my change: 中文 too\n";
    ASSERT_TRUE(store.save(ex, mine, error)) << error;
    EXPECT_EQ(store.load(ex, note), mine);
    EXPECT_EQ(note, "");
    // The file is named by the lesson's slug, not its number, so renumbering keeps it.
    const std::string name = fs::path(store.path_for(ex)).filename().string();
    EXPECT_EQ(name, ex.lesson->id.substr(ex.lesson->id.find('_') + 1) + ".cu");
}

TEST_F(ExerciseStoreTest, ResetKeepsABackupOfWhatWasThere) {
    const ExerciseStore store(dir_.string());
    const Exercise& ex = first_exercise();
    std::string note, error, backup;
    const std::string mine = ex.skeleton + "int my_work = 1;\n";
    ASSERT_TRUE(store.save(ex, mine, error)) << error;
    ASSERT_TRUE(store.reset(ex, backup, error)) << error;
    EXPECT_EQ(store.load(ex, note), ex.skeleton);
    ASSERT_FALSE(backup.empty());
    EXPECT_EQ(test::slurp(backup), mine);
    // A second reset right away keeps a second backup, not the first one overwritten.
    ASSERT_TRUE(store.save(ex, mine + "int more = 2;\n", error)) << error;
    std::string second;
    ASSERT_TRUE(store.reset(ex, second, error)) << error;
    EXPECT_NE(second, backup);
    EXPECT_EQ(test::slurp(backup), mine);
}

TEST_F(ExerciseStoreTest, AnUnusableSavedFileIsMovedAsideNotOverwritten) {
    const ExerciseStore store(dir_.string());
    const Exercise& ex = first_exercise();
    fs::create_directories(dir_);
    const std::string binary("\x7f" "ELF\0\0\1", 7);
    std::ofstream(store.path_for(ex), std::ios::binary) << binary;
    std::string note, error;
    EXPECT_EQ(store.load(ex, note), ex.skeleton);
    EXPECT_NE(note.find("moved to"), std::string::npos) << note;
    const auto aside = files_starting(fs::path(store.path_for(ex)).filename().string() + ".unreadable-");
    ASSERT_EQ(aside.size(), 1u);
    EXPECT_EQ(test::slurp(aside[0]), binary);
}

// Kills the typist at random points, many times, each round continuing from what was saved: the
// file always holds at least every keystroke whose save had returned (at most one more: the save
// in flight), and is never torn.
TEST_F(ExerciseStoreTest, KillingTheEditorAtRandomPointsWhileTypingLosesNoSavedEdit) {
    const Exercise& ex = first_exercise();
    const ExerciseStore store(dir_.string());
    const std::string number = ex.lesson->id.substr(0, ex.lesson->id.find('_'));
    fs::create_directories(dir_);
    std::mt19937 rng(20261123);
    std::uniform_int_distribution<int> kill_after_ms(150, 600);   // start-up takes ~100 ms; then a save every few ms
    size_t confirmed = 0;   // keystrokes known saved
    int killed = 0;
    for (int round = 0; round < 25; ++round) {
        const auto r = test::spawn(typist_path(), {dir_.string(), number, "100000"}, {},
                                   kill_after_ms(rng) / 1000.0, dir_.string());
        ASSERT_TRUE(r.timed_out || r.exit_code == 0) << "round " << round << ": exit " << r.exit_code << ": " << r.err;
        killed += r.timed_out;
        // The last complete line is the last keystroke whose save returned.
        size_t last = confirmed;
        const size_t end = r.out.rfind('\n');
        if (end != std::string::npos) {
            const size_t begin = r.out.rfind('\n', end - 1);
            last = std::stoul(r.out.substr(begin == std::string::npos ? 0 : begin + 1, end));
        }
        std::string note;
        const std::string saved = store.load(ex, note);
        ASSERT_EQ(note, "") << "round " << round;
        ASSERT_EQ(saved.compare(0, ex.skeleton.size(), ex.skeleton), 0) << "round " << round << ": torn or foreign file";
        const size_t typed = saved.size() - ex.skeleton.size();
        EXPECT_TRUE(typed == last || typed == last + 1)
            << "round " << round << ": " << last << " keystrokes confirmed, " << typed << " on disk";
        EXPECT_GE(typed, confirmed) << "round " << round << ": an earlier round's edits were lost";
        confirmed = typed;
    }
    EXPECT_GT(killed, 20) << "the typist was meant to be killed mid-typing";
    EXPECT_GT(confirmed, 0u);
}

}  // namespace
