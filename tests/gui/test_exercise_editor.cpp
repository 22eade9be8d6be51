// The exercise editor (Code tab → Exercise), driven through AppState as the panel drives it:
// the starting file when nothing is saved, every change saved at once, a compile error reported
// at the user's line by a real NVRTC compile on the engine thread (model mode), Undo after the
// editor lost focus, a reset that keeps a backup, and a save that fails losing nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "actions.h"
#include "app_state.h"
#include "engine_thread.h"
#include "exercise_editor.h"
#include "tilelab/exercise_store.h"

using namespace tilelab;
using namespace tilelab::gui;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("tilelab_editor_test_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

int lesson_index_of(const Exercise& ex) {
    const auto& lessons = all_lessons();
    for (size_t i = 0; i < lessons.size(); ++i)
        if (lessons[i].id == ex.lesson->id) return int(i);
    return -1;
}

// `text` with `line` (from 1) inserted before line `at`.
std::string insert_line(const std::string& text, int at, const std::string& line) {
    size_t pos = 0;
    for (int l = 1; l < at; ++l) pos = text.find('\n', pos) + 1;
    return text.substr(0, pos) + line + "\n" + text.substr(pos);
}

// Frames as the app runs them, until the engine thread has answered for the text on screen.
bool wait_for_answer(AppState& state, std::chrono::seconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
        ExerciseUpdate(state, std::chrono::steady_clock::now());
        const ExerciseEditorState& e = state.exercise;
        if (e.result && !e.busy && e.submitted_text == e.text) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

EngineConfig model_mode() {
    EngineConfig cfg;
    cfg.force_model_mode = true;
    return cfg;
}

// The first exercise's lesson entered, its store in a fresh folder, an engine thread in model mode.
struct EditorOnFirstExercise {
    explicit EditorOnFirstExercise(const std::string& name) : dir(fresh_dir(name)), engine(model_mode()) {
        state.exercise.dir = dir.string();
        EnterLesson(state, lesson_index_of(ex), 0);
        state.engine_thread = &engine;
    }
    const Exercise& ex = all_exercises().front();
    const fs::path dir;
    EngineThread engine;
    AppState state;
};

}  // namespace

TEST(ExerciseEditor, SavesEveryChangeAndShowsACompileErrorAtItsLine) {
    ASSERT_FALSE(all_exercises().empty());
    EditorOnFirstExercise editor("errors");
    const Exercise& ex = editor.ex;
    const fs::path& dir = editor.dir;
    AppState& state = editor.state;

    ASSERT_TRUE(ExerciseEnsureLoaded(state));
    EXPECT_EQ(state.exercise.text, ex.skeleton) << "nothing saved: the starting file";
    const fs::path file = ExerciseStore(dir.string()).path_for(ex);

    // A line that cannot compile, typed at file scope right after the #include.
    const size_t include_at = ex.skeleton.find("#include");
    ASSERT_NE(include_at, std::string::npos);
    const int bad_line = 2 + int(std::count(ex.skeleton.begin(), ex.skeleton.begin() + long(include_at), '\n'));
    const std::string broken = insert_line(ex.skeleton, bad_line, "int qq_not_a_type = undefined_name_here;");
    ExerciseEdited(state, broken);
    EXPECT_TRUE(state.exercise.saved);
    EXPECT_EQ(read_file(file), broken) << "saved at once, before any compile";

    ASSERT_TRUE(wait_for_answer(state, std::chrono::seconds(180)));
    const RunResult& r = *state.exercise.result;
    ASSERT_TRUE(r.compiled);
    EXPECT_FALSE(r.compiled->ok);
    ASSERT_FALSE(state.exercise.diagnostics.empty()) << r.compiled->log;
    const Diagnostic& d = state.exercise.diagnostics.front();
    EXPECT_EQ(d.line, bad_line) << format_diagnostic(d);
    EXPECT_EQ(d.severity, "error");
    EXPECT_NE(d.message.find("undefined_name_here"), std::string::npos) << d.message;
    EXPECT_EQ(d.file, state.exercise.file_name);

    // The reference filled in compiles: no messages, registers and occupancy, nothing run.
    ExerciseEdited(state, fill_in(ex.skeleton, ex));
    ASSERT_TRUE(wait_for_answer(state, std::chrono::seconds(180)));
    const RunResult& good = *state.exercise.result;
    ASSERT_TRUE(good.compiled);
    EXPECT_TRUE(good.compiled->ok) << good.compiled->log;
    EXPECT_TRUE(state.exercise.diagnostics.empty());
    EXPECT_GT(good.compiled->ptxas.registers, 0);
    EXPECT_GT(good.occupancy.blocks_per_sm, 0);
    EXPECT_FALSE(good.measured);
    EXPECT_FALSE(good.user_kernel.empty());

    // Undo with the editor not focused: the broken version again, saved.
    ASSERT_TRUE(ExerciseUndo(state));
    EXPECT_EQ(state.exercise.text, broken);
    EXPECT_EQ(read_file(file), broken);
    ASSERT_TRUE(ExerciseRedo(state));
    EXPECT_EQ(state.exercise.text, fill_in(ex.skeleton, ex));

    // Reset: the starting file, and the file before kept as a backup.
    const std::string before_reset = state.exercise.text;
    ASSERT_TRUE(ExerciseReset(state));
    EXPECT_EQ(state.exercise.text, ex.skeleton);
    EXPECT_EQ(read_file(file), ex.skeleton);
    int backups = 0;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().filename().string().find(".bak-") != std::string::npos) {
            ++backups;
            EXPECT_EQ(read_file(entry.path()), before_reset);
        }
    EXPECT_EQ(backups, 1);
    ASSERT_TRUE(ExerciseUndo(state)) << "the reset can be undone";
    EXPECT_EQ(state.exercise.text, before_reset);

    // A fresh app finds the saved text.
    AppState again;
    again.exercise.dir = dir.string();
    EnterLesson(again, lesson_index_of(ex), 0);
    ASSERT_TRUE(ExerciseEnsureLoaded(again));
    EXPECT_EQ(again.exercise.text, before_reset);
    fs::remove_all(dir);
}

// What the engine words for the user's run (why there is no GPU, the CPU run's faults) follows a
// language switch while the editor shows: the same text is asked for again, after the status is
// worded again as the app asks (2026-12-05: it kept the language it was first asked in).
TEST(ExerciseEditor, ALanguageSwitchAsksForTheVerdictAgainInTheNewLanguage) {
    ASSERT_FALSE(all_exercises().empty());
    EditorOnFirstExercise editor("language");
    const Exercise& ex = editor.ex;
    EngineThread& engine = editor.engine;
    AppState& state = editor.state;
    state.active_tab = "Code";
    state.code_view = "Exercise";
    ASSERT_TRUE(ExerciseEnsureLoaded(state));
    ExerciseEdited(state, fill_in(ex.skeleton, ex));
    ASSERT_TRUE(wait_for_answer(state, std::chrono::seconds(180)));
    const std::string english = state.exercise.result->no_gpu_reason;
    ASSERT_FALSE(english.empty());
    const uint64_t first = state.exercise.submitted_id;

    set_language(Language::Chinese);
    engine.reword_status();
    ExerciseUpdate(state, std::chrono::steady_clock::now());
    EXPECT_NE(state.exercise.submitted_id, first) << "asked again";
    const bool answered = wait_for_answer(state, std::chrono::seconds(180));
    const std::string chinese = answered ? state.exercise.result->no_gpu_reason : "";
    // And not again while nothing changes.
    const uint64_t second = state.exercise.submitted_id;
    ExerciseUpdate(state, std::chrono::steady_clock::now());
    const uint64_t third = state.exercise.submitted_id;
    set_language(Language::English);
    ASSERT_TRUE(answered);
    EXPECT_NE(chinese, english);
    EXPECT_NE(chinese.find("\xe6\xa8\xa1\xe5\x9e\x8b\xe6\xa8\xa1\xe5\xbc\x8f"), std::string::npos) << chinese;   // 模型模式
    EXPECT_EQ(third, second) << "asked once per switch";
    fs::remove_all(editor.dir);
}

TEST(ExerciseEditor, AFailedSaveKeepsTheTextAndSaysWhy) {
    ASSERT_GE(all_exercises().size(), 2u);
    const Exercise& ex = all_exercises()[0];
    const Exercise& other = all_exercises()[1];
    const fs::path root = fresh_dir("blocked");
    std::ofstream(root / "not_a_dir") << "a file where the folder should be";
    AppState state;   // no engine thread: nothing is compiled, the edits are only kept
    state.exercise.dir = (root / "not_a_dir" / "exercises").string();
    EnterLesson(state, lesson_index_of(ex), 0);
    ASSERT_TRUE(ExerciseEnsureLoaded(state));
    const std::string typed = ex.skeleton + "// my notes\n";
    ExerciseEdited(state, typed);
    EXPECT_FALSE(state.exercise.saved);
    EXPECT_TRUE(state.exercise.note_is_error);
    EXPECT_NE(state.exercise.note.find("Not saved"), std::string::npos) << state.exercise.note;
    EXPECT_EQ(state.exercise.text, typed);
    // Another lesson and back: the unsaved text is still there.
    EnterLesson(state, lesson_index_of(other), 0);
    ASSERT_TRUE(ExerciseEnsureLoaded(state));
    EXPECT_EQ(state.exercise.text, other.skeleton);
    EnterLesson(state, lesson_index_of(ex), 0);
    ASSERT_TRUE(ExerciseEnsureLoaded(state));
    EXPECT_EQ(state.exercise.text, typed);
    fs::remove_all(root);
}

TEST(ExerciseEditor, KeystrokesInOneBurstAreOneVersionAPasteIsItsOwn) {
    const Exercise& ex = all_exercises().front();
    AppState state;   // not saved anywhere, no engine: only the history is looked at
    EnterLesson(state, lesson_index_of(ex), 0);
    ASSERT_TRUE(ExerciseEnsureLoaded(state));
    std::string text = ex.skeleton;
    for (char c : std::string("// typed")) ExerciseEdited(state, text += c);   // one burst
    ExerciseEdited(state, text + "\n// pasted\n// lines\n");                  // a paste
    ASSERT_TRUE(ExerciseUndo(state));
    EXPECT_EQ(state.exercise.text, text) << "the paste undone alone";
    ASSERT_TRUE(ExerciseUndo(state));
    EXPECT_EQ(state.exercise.text, ex.skeleton) << "the burst undone at once";
    EXPECT_FALSE(ExerciseUndo(state)) << "nothing before the starting file";
}

// --exercise-text replaces the saved file as typing would, keeping a copy of what it replaces
// (issue #30: it used to overwrite it with no backup); the same text again replaces nothing.
TEST(ExerciseEditor, TypedInTextKeepsABackupOfTheFileItReplaces) {
    const Exercise& ex = all_exercises().front();
    const fs::path dir = fresh_dir("typed_in");
    AppState state;   // no engine thread: nothing is compiled, the edits are only kept
    state.exercise.dir = dir.string();
    EnterLesson(state, lesson_index_of(ex), 0);
    ASSERT_TRUE(ExerciseEnsureLoaded(state));
    const std::string mine = ex.skeleton + "// my own work\n";
    ExerciseEdited(state, mine);
    const fs::path file = ExerciseStore(dir.string()).path_for(ex);
    ASSERT_EQ(read_file(file), mine);

    const std::string typed = ex.skeleton + "// typed in by --exercise-text\n";
    std::string why;
    ASSERT_TRUE(ExerciseTypeIn(state, typed, why)) << why;
    EXPECT_EQ(read_file(file), typed);
    const auto backups = [&] {
        std::vector<fs::path> found;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().filename().string().find(".bak-") != std::string::npos) found.push_back(entry.path());
        return found;
    };
    ASSERT_EQ(backups().size(), 1u);
    EXPECT_EQ(read_file(backups().front()), mine);
    EXPECT_NE(state.exercise.note.find(backups().front().filename().string()), std::string::npos) << state.exercise.note;
    ASSERT_TRUE(ExerciseTypeIn(state, typed, why)) << why;
    EXPECT_EQ(backups().size(), 1u) << "nothing replaced, nothing to keep";
    fs::remove_all(dir);
}
