// What the user can do, as functions on AppState, shared by the panels, the keyboard shortcuts
// and the headless walk: move through lessons and steps, change parameters, ask for a run.
#pragma once
#include <string>
#include "app_state.h"
#include "tilelab/lesson.h"
#include "tilelab/variant.h"

namespace tilelab::gui {

const Lesson* CurrentLesson(const AppState& state);
const Variant* CurrentVariant(const AppState& state);

// Opens lesson `lesson_index` at `step` (clamped): switches the variant, sets the step's whole
// state (Lesson::state_at: the same however the step is reached) and submits a run.
void EnterLesson(AppState& state, int lesson_index, int step = 0);
// Moves to `step` of the current lesson (clamped) and sets its whole state. The user's own changes
// stay only while the step does.
void EnterStep(AppState& state, int step);
// Next/previous step, crossing into the next/previous lesson at either end.
void StepForward(AppState& state);
void StepBack(AppState& state);

// "Reset this step": the current step's state again, the user's changes inside it undone
// (outside any lesson: the variant's defaults).
void ResetStep(AppState& state);

// How a request came about, which decides how it is measured. The quick protocol (validated,
// fewer repetitions, nothing counted) gives the fastest validated answer; the full one follows.
enum class Change {
    Other,     // lesson, step, size, reset, run again: the full protocol
    Click,     // a parameter value picked (button, checkbox): a quick run, the full one right behind it
    Drag,      // a slider moving: quick runs only, after a debounce
    Release,   // the slider let go: the full protocol, queued behind the quick run of the same value
};

// Sends the current request to the worker. `changed`: the parameter the user just changed ("" =
// none). Returns false (and sets state.size_error) when the problem size does not parse.
bool SubmitRequest(AppState& state, const std::string& changed = "", Change how = Change::Other);

// A "which is faster?" step's measured answers (<!-- measured: -->): the configurations written as
// NAME=VALUE that the lesson's variant knows (`out`: those values), as whole requests at this
// step's state and the current size; StartLessonRuns() runs them on this GPU as a sweep (false
// when there is nothing to run or no engine), LessonRunsAreThisStep() says whether the sweep's
// results belong to the step on screen.
bool RunnableConfig(const std::string& config, const Variant& v, ParamValues& out);
std::vector<RunRequest> MeasuredAnswerRuns(const AppState& state);
bool StartLessonRuns(AppState& state);
bool LessonRunsAreThisStep(const AppState& state);

}  // namespace tilelab::gui
