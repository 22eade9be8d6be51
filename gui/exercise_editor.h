// The exercise editor's state and what the user can do with it, apart from drawing it
// (gui/panel_exercise.cpp draws): the current lesson's exercise file, loaded from the exercise
// store (the starting file when nothing is saved), saved atomically after every change, a
// history of versions for "Undo" after the editor has lost focus, a reset that keeps a backup, and
// the debounced hand-over of the text to the engine thread (compile errors at the user's lines;
// on a GPU a validated, timed run under a time limit). Nothing typed is ever dropped: a failed
// save keeps the text in memory, says why, and is tried again on the next change.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "tilelab/engine.h"
#include "tilelab/exercise.h"
#include "tilelab/i18n.h"

namespace tilelab::gui {

struct AppState;

// How long after the last keystroke the text is compiled.
inline constexpr std::chrono::milliseconds kExerciseDebounce(300);
// A user's run is stopped after this long (an endless loop), and the GPU worker restarted.
inline constexpr int kExerciseTimeLimitMs = 10000;
// Versions kept for Undo; typing within this long of the last version extends it.
inline constexpr size_t kExerciseHistory = 100;
inline constexpr std::chrono::milliseconds kExerciseSnapshotGap(1000);

struct ExerciseEditorState {
    std::string dir;                  // the exercise store's folder ("" = not saved: say so)
    std::string lesson_id;            // whose exercise `text` is ("" = none loaded)
    std::string file_name;            // "matmul_smem_tiled.cu": how compile errors name it
    std::string text;
    std::string note;                 // the last load/save/reset outcome worth saying (one line)
    bool note_is_error = false;
    bool saved = true;                // `text` is what the store holds
    std::map<std::string, std::string> unsaved_by_lesson;   // texts whose save failed, by lesson id
    std::vector<std::string> undo, redo;   // older / newer versions than `text`
    std::chrono::steady_clock::time_point last_edit{}, last_snapshot{};
    bool submit_due = false;          // edited since the last submission
    // What went to the engine thread last, and what came back for it.
    uint64_t submitted_id = 0;
    RunRequest submitted_request;
    Language submitted_language = Language::English;   // what its verdict and messages are worded in
    std::string submitted_text;
    std::shared_ptr<const RunResult> result;
    std::string result_text;          // the text `result` is for (its stall bars fit no other)
    std::vector<Diagnostic> diagnostics;   // the result's, in the user's file only
    bool busy = false;                // the engine thread has the user's text (redraw often)
    // Editor view: a cursor move asked for (a click on an error), line and column from 1.
    int goto_line = 0, goto_column = 0;
    int cursor_line = 1;              // where the cursor is (from the editor's callback)
    int shown_cursor_line = 1;        // the line last scrolled into view
    int reveal_line = 0;              // new errors: scroll the first into view unless the user is typing
    bool editor_active = false;       // the text had the keyboard last frame
    bool confirm_reset = false;       // the reset confirmation is open
};

// The current lesson's exercise, or null (and `why` says why) when it has none.
const Exercise* CurrentExercise(const AppState& state, std::string* why = nullptr);
// Loads the current lesson's exercise into the editor if another (or none) is loaded. Returns
// whether there is one.
bool ExerciseEnsureLoaded(AppState& state);
// The user changed the text (typing, paste, undo): remember the version before, save, and
// compile after the debounce.
void ExerciseEdited(AppState& state, const std::string& new_text);
// --exercise-text: `text` as if the user had typed it into the current lesson's exercise; the
// saved file it replaces is backed up first (the note names the copy). False with `why`.
bool ExerciseTypeIn(AppState& state, const std::string& text, std::string& why);
bool ExerciseUndo(AppState& state);
bool ExerciseRedo(AppState& state);
// Back to the starting file; the saved file is kept as a backup first (the note names it).
bool ExerciseReset(AppState& state);
// Every frame: takes the engine thread's answer for the user's text, and submits the text once
// the debounce has passed, or again when the lesson's parameters or size changed.
void ExerciseUpdate(AppState& state, std::chrono::steady_clock::time_point now);
// Errors and warnings of `r` that are in the user's file, by line.
std::vector<Diagnostic> UserDiagnostics(const RunResult& r, const std::string& file_name);

}  // namespace tilelab::gui
