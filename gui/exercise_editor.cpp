#include "exercise_editor.h"
#include "tilelab/i18n.h"
#include <algorithm>
#include "actions.h"
#include "app_state.h"
#include "engine_thread.h"
#include "tilelab/exercise_store.h"
#include "tilelab/stalls.h"

namespace tilelab::gui {

namespace {

using SteadyClock = std::chrono::steady_clock;

// Saves `text` for the loaded exercise; on failure the text stays in memory (unsaved_by_lesson)
// and the note says why. Returns whether it is saved.
bool save_now(AppState& state, const Exercise& ex) {
    ExerciseEditorState& e = state.exercise;
    if (e.dir.empty()) {
        e.saved = false;
        e.note = tr("exercise.note_no_folder");
        e.note_is_error = true;
        e.unsaved_by_lesson[e.lesson_id] = e.text;
        return false;
    }
    std::string error;
    if (!ExerciseStore(e.dir).save(ex, e.text, error)) {
        e.saved = false;
        e.note = trf("exercise.note_not_saved", error);
        e.note_is_error = true;
        e.unsaved_by_lesson[e.lesson_id] = e.text;
        return false;
    }
    e.saved = true;
    e.unsaved_by_lesson.erase(e.lesson_id);
    if (e.note_is_error) {   // a save that failed before has now worked
        e.note.clear();
        e.note_is_error = false;
    }
    return true;
}

void submit(AppState& state, std::chrono::milliseconds debounce) {
    ExerciseEditorState& e = state.exercise;
    if (!state.engine_thread || e.lesson_id.empty()) return;
    RunOptions opt = state.run_options;
    opt.quick = false;
    opt.count_accesses = false;       // the counting build is the lesson's own kernel, not the user's
    opt.time_limit_ms = kExerciseTimeLimitMs;
    opt.cpu_check = true;             // without a GPU: a verdict from the CPU run (RunResult::cpu)
    e.submitted_request = state.request;
    e.submitted_language = language();
    e.submitted_text = e.text;
    e.submitted_id = state.engine_thread->submit_user(state.request, UserKernel{e.file_name, e.text}, opt, debounce);
    e.submit_due = false;
}

void set_text(AppState& state, const Exercise& ex, std::string text) {
    ExerciseEditorState& e = state.exercise;
    e.text = std::move(text);
    save_now(state, ex);
    e.submit_due = true;
    submit(state, kExerciseDebounce);
}

}  // namespace

const Exercise* CurrentExercise(const AppState& state, std::string* why) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson) {
        if (why) *why = tr("exercise.no_lesson_open");
        return nullptr;
    }
    const Exercise* ex = find_exercise(lesson->id);
    if (!ex && why) *why = exercise_missing_reason(lesson->id);
    return ex;
}

bool ExerciseEnsureLoaded(AppState& state) {
    const Exercise* ex = CurrentExercise(state);
    ExerciseEditorState& e = state.exercise;
    if (!ex) return false;
    if (e.lesson_id == ex->lesson->id) return true;
    ExerciseEditorState fresh;
    fresh.dir = e.dir;
    fresh.unsaved_by_lesson = std::move(e.unsaved_by_lesson);
    e = std::move(fresh);
    e.lesson_id = ex->lesson->id;
    if (const auto it = e.unsaved_by_lesson.find(e.lesson_id); it != e.unsaved_by_lesson.end()) {
        e.text = it->second;   // a save failed earlier: the text typed then, not the file
        e.saved = false;
        e.note = tr("exercise.note_never_saved");
        e.note_is_error = true;
    } else if (e.dir.empty()) {
        e.text = ex->skeleton;
        e.saved = false;
    } else {
        e.text = ExerciseStore(e.dir).load(*ex, e.note);   // the starting file when nothing is saved
        e.note_is_error = !e.note.empty();
    }
    const std::string path = e.dir.empty() ? std::string() : ExerciseStore(e.dir).path_for(*ex);
    e.file_name = path.empty() ? ex->lesson->id + ".cu" : path.substr(path.find_last_of('/') + 1);
    e.submit_due = true;
    return true;
}

void ExerciseEdited(AppState& state, const std::string& new_text) {
    const Exercise* ex = CurrentExercise(state);
    ExerciseEditorState& e = state.exercise;
    if (!ex || e.lesson_id != ex->lesson->id || new_text == e.text) return;
    // Typing in one burst (a character added or removed at a time) is one version; a pause, a
    // paste, a cut or anything larger starts the next.
    const auto now = SteadyClock::now();
    const long grown = long(new_text.size()) - long(e.text.size());
    const bool keystroke = grown == 1 || grown == -1;
    if (e.undo.empty() || !keystroke || now - e.last_edit > kExerciseSnapshotGap ||
        now - e.last_snapshot > 10 * kExerciseSnapshotGap) {
        e.undo.push_back(e.text);
        e.last_snapshot = now;
        if (e.undo.size() > kExerciseHistory) e.undo.erase(e.undo.begin());
    }
    e.redo.clear();
    e.last_edit = now;
    set_text(state, *ex, new_text);
}

bool ExerciseTypeIn(AppState& state, const std::string& text, std::string& why) {
    const Exercise* ex = CurrentExercise(state, &why);
    if (!ex) return false;
    ExerciseEnsureLoaded(state);
    ExerciseEditorState& e = state.exercise;
    // What it replaces is kept, as a reset keeps it (issue #30).
    std::string backup;
    if (text != e.text && !e.dir.empty() && !ExerciseStore(e.dir).back_up(*ex, backup, why)) {
        why += say("; nothing was replaced", "；什么也没有替换");
        return false;
    }
    ExerciseEdited(state, text);
    if (!backup.empty() && !e.note_is_error) e.note = trf("exercise.note_text_backup", backup);
    return true;
}

// Undo and redo: the last version of `from` becomes the text, the text goes onto `to`.
static bool step_version(AppState& state, std::vector<std::string>& from, std::vector<std::string>& to) {
    const Exercise* ex = CurrentExercise(state);
    ExerciseEditorState& e = state.exercise;
    if (!ex || from.empty()) return false;
    to.push_back(e.text);
    std::string text = std::move(from.back());
    from.pop_back();
    e.last_snapshot = {};   // the next keystroke starts a new version
    set_text(state, *ex, std::move(text));
    return true;
}

bool ExerciseUndo(AppState& state) { return step_version(state, state.exercise.undo, state.exercise.redo); }

bool ExerciseRedo(AppState& state) { return step_version(state, state.exercise.redo, state.exercise.undo); }

bool ExerciseReset(AppState& state) {
    const Exercise* ex = CurrentExercise(state);
    ExerciseEditorState& e = state.exercise;
    if (!ex) return false;
    std::string backup, error;
    if (!e.dir.empty() && !ExerciseStore(e.dir).reset(*ex, backup, error)) {
        e.note = trf("exercise.note_not_reset", error);
        e.note_is_error = true;
        return false;
    }
    if (e.text != ex->skeleton) {   // the text before stays in the history too
        e.undo.push_back(e.text);
        if (e.undo.size() > kExerciseHistory) e.undo.erase(e.undo.begin());
    }
    e.redo.clear();
    e.last_snapshot = {};
    set_text(state, *ex, ex->skeleton);
    if (!e.note_is_error) e.note = backup.empty() ? tr("exercise.note_reset") : trf("exercise.note_reset_backup", backup);
    return true;
}

std::vector<Diagnostic> UserDiagnostics(const RunResult& r, const std::string& file_name) {
    std::vector<Diagnostic> out;
    if (!r.compiled) return out;
    for (Diagnostic& d : parse_diagnostics(r.compiled->log))
        if (d.file == file_name || (d.file.size() > file_name.size() &&
                                    d.file.compare(d.file.size() - file_name.size() - 1, std::string::npos, "/" + file_name) == 0))
            out.push_back(std::move(d));
    std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
    return out;
}

void ExerciseUpdate(AppState& state, std::chrono::steady_clock::time_point /*now*/) {
    ExerciseEditorState& e = state.exercise;
    if (!state.engine_thread) return;
    EngineUpdate update;
    if (state.engine_thread->poll_user(update) && update.request_id == e.submitted_id && update.result) {
        e.result = update.result;
        e.result_text = e.submitted_text;
        e.diagnostics = UserDiagnostics(*update.result, e.file_name);
        for (const Diagnostic& d : e.diagnostics)
            if (d.severity == "error") {
                e.reveal_line = d.line;
                break;
            }
        // No error: a sampled run brings the user's most sampled line into view instead.
        if (const StallLine* hot = stall_hottest_line(update.result->stalls, update.result->kernel_file); hot && e.reveal_line == 0)
            e.reveal_line = hot->line;
    }
    e.busy = state.engine_thread->user_busy();
    const Lesson* lesson = CurrentLesson(state);
    if (e.lesson_id.empty() || !lesson || lesson->id != e.lesson_id || !state.engine_thread->ready()) return;
    // A lesson switch loads that lesson's exercise (only while the editor is open, see the panel);
    // new parameters or a new size compile the same text for them, to compare like with like, and
    // another language words its verdict again, but only while the editor shows: a slider dragged
    // in another tab does not wait on the user's compile.
    const bool showing = state.active_tab == "Code" && state.code_view == "Exercise" && !state.reading_lesson_tab;
    const bool stale = !(e.submitted_request == state.request) || e.submitted_language != language();
    if (e.submit_due || (showing && e.submitted_id != 0 && stale))
        submit(state, e.submitted_id == 0 ? std::chrono::milliseconds(0) : kExerciseDebounce);
}

}  // namespace tilelab::gui
