#include "actions.h"
#include <algorithm>
#include <chrono>
#include <sstream>
#include <vector>
#include "engine_thread.h"

namespace tilelab::gui {

namespace {

// A slider being dragged sends a value every frame; wait this long for it to settle so the worker
// compiles the value the user stops at, not every value passed on the way. Short, because it adds
// to every redraw, and a run started too early is cancelled when the slider moves on. Only for a
// kernel not yet compiled: the worker starts a compiled one (compile-ahead's neighbours) at once.
constexpr std::chrono::milliseconds kDragDebounce(30);

// While dragging (and first after a click): the quick protocol (tilelab/result.h); the full follows.
RunOptions quick_options(RunOptions opt) { return quick_protocol(opt); }

// The step's whole state (Lesson::state_at): the same however the step is reached.
void apply_step_state(AppState& state) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson) return;
    const StepState step = lesson->state_at(state.step_index);
    state.request.params = step.params;
    if (!step.size.empty()) state.size_text = step.size;
}

// The parameters the step is about: those its "set:" line moves away from the step before. The
// first step is where the lesson starts (its text introduces every parameter): it marks none.
void mark_step_params(AppState& state, const Lesson& lesson) {
    StepHighlight& h = state.step_highlight;
    h.params.clear();
    ++h.entered;
    if (state.step_index <= 0 || state.step_index >= int(lesson.steps.size())) return;
    const ParamValues before = lesson.state_at(state.step_index - 1).params;
    for (const auto& [name, value] : lesson.steps[size_t(state.step_index)].set)
        if (auto it = before.find(name); it == before.end() || it->second != value) h.params.push_back(name);
}

// The next step's state, for compile-ahead.
std::vector<RunRequest> next_step_requests(const AppState& state) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson || state.step_index + 1 >= int(lesson->steps.size())) return {};
    const StepState step = lesson->state_at(state.step_index + 1);
    RunRequest next = state.request;
    next.params = step.params;
    std::string error;
    if (!step.size.empty() && !parse_problem(step.size, next.problem, error)) return {};
    return {next};
}

}  // namespace

const Lesson* CurrentLesson(const AppState& state) {
    const auto& lessons = all_lessons();
    if (state.lesson_index < 0 || state.lesson_index >= int(lessons.size())) return nullptr;
    return &lessons[size_t(state.lesson_index)];
}

const Variant* CurrentVariant(const AppState& state) { return find_variant(state.request.variant); }

void EnterLesson(AppState& state, int lesson_index, int step) {
    const auto& lessons = all_lessons();
    if (lessons.empty()) return;
    state.lesson_index = std::clamp(lesson_index, 0, int(lessons.size()) - 1);
    state.request.variant = lessons[size_t(state.lesson_index)].variant;
    state.history.clear();
    EnterStep(state, step);
}

// Entering a step, from anywhere, sets its whole state: edits made inside the step before are gone.
void EnterStep(AppState& state, int step) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson) return;
    const int last = std::max(0, int(lesson->steps.size()) - 1);
    state.step_index = std::clamp(step, 0, last);
    // A step about one tab's picture opens on it (lesson 03: the banks, in Memory).
    if (const std::string& panel = lesson->panel_at(state.step_index); !panel.empty()) state.select_tab = panel;
    apply_step_state(state);
    mark_step_params(state, *lesson);
    SubmitRequest(state);
}

void StepForward(AppState& state) {
    const Lesson* lesson = CurrentLesson(state);
    if (!lesson) return;
    if (state.step_index + 1 < int(lesson->steps.size())) EnterStep(state, state.step_index + 1);
    else if (state.lesson_index + 1 < int(all_lessons().size())) EnterLesson(state, state.lesson_index + 1, 0);
}

void StepBack(AppState& state) {
    if (state.step_index > 0) {
        EnterStep(state, state.step_index - 1);
    } else if (state.lesson_index > 0) {
        const auto& prev = all_lessons()[size_t(state.lesson_index - 1)];
        EnterLesson(state, state.lesson_index - 1, std::max(0, int(prev.steps.size()) - 1));
    }
}

void ResetStep(AppState& state) {
    if (CurrentLesson(state)) {
        EnterStep(state, state.step_index);
        return;
    }
    const Variant* variant = CurrentVariant(state);
    if (!variant) return;
    state.request.params = with_defaults(variant->params, {});
    SubmitRequest(state);
}

bool SubmitRequest(AppState& state, const std::string& changed, Change how) {
    Problem problem;
    std::string error;
    if (!parse_problem(state.size_text, problem, error)) {
        state.size_error = error;
        return false;
    }
    state.size_error.clear();
    state.request.problem = problem;
    state.params_by_variant[state.request.variant] = state.request.params;
    state.size_by_variant[state.request.variant] = state.size_text;
    state.last_changed_param = changed;
    state.updating = true;
    if (!state.engine_thread) return true;
    const AheadHint ahead{changed, next_step_requests(state), state.run_options.count_accesses, how != Change::Drag};
    if (how == Change::Click || how == Change::Drag)
        state.engine_thread->submit(state.request, quick_options(state.run_options),
                                    how == Change::Drag ? kDragDebounce : std::chrono::milliseconds(0), ahead);
    if (how != Change::Drag) state.engine_thread->submit(state.request, state.run_options, std::chrono::milliseconds(0), ahead);
    return true;
}

bool RunnableConfig(const std::string& config, const Variant& v, ParamValues& out) {
    std::istringstream words(config);
    std::string word, name, error;
    int value = 0, n = 0;
    while (words >> word) {
        if (!parse_assignment(word, name, value, error)) return false;
        if (!v.param(name)) return false;
        out[name] = value;
        ++n;
    }
    return n > 0;
}

std::vector<RunRequest> MeasuredAnswerRuns(const AppState& state) {
    std::vector<RunRequest> runs;
    const Lesson* lesson = CurrentLesson(state);
    const Variant* variant = CurrentVariant(state);
    if (!lesson || !variant || state.step_index >= int(lesson->steps.size())) return runs;
    const LessonStep& step = lesson->steps[size_t(state.step_index)];
    if (step.measured.empty()) return runs;
    const ParamValues step_params = lesson->state_at(state.step_index).params;
    for (const MeasuredAnswer& answer : step.measured)
        for (const auto& [config, time] : answer.times) {
            ParamValues set;
            if (!RunnableConfig(config, *variant, set)) continue;
            RunRequest r = state.request;
            r.params = step_params;
            for (const auto& [name, value] : set) r.params[name] = value;
            runs.push_back(std::move(r));
        }
    return runs;
}

bool StartLessonRuns(AppState& state) {
    std::vector<RunRequest> runs = MeasuredAnswerRuns(state);
    if (!state.engine_thread || runs.empty()) return false;
    // A step that states stall shares has them measured too, whatever the Run menu says.
    RunOptions opt = state.run_options;
    if (const Lesson* lesson = CurrentLesson(state); lesson && state.step_index < int(lesson->steps.size()))
        for (const MeasuredAnswer& answer : lesson->steps[size_t(state.step_index)].measured)
            for (const auto& [config, value] : answer.times) {
                double percent = 0;
                StallGroup group{};
                opt.stall_samples |= parse_stall_claim(value, percent, group);
            }
    state.engine_thread->submit_sweep(std::move(runs), opt);
    state.lesson_runs_generation = state.engine_thread->sweep_progress().generation;
    state.lesson_runs_lesson = state.lesson_index;
    state.lesson_runs_step = state.step_index;
    return true;
}

bool LessonRunsAreThisStep(const AppState& state) {
    return state.engine_thread && state.lesson_runs_generation != 0 && state.lesson_runs_lesson == state.lesson_index &&
           state.lesson_runs_step == state.step_index &&
           state.engine_thread->sweep_progress().generation == state.lesson_runs_generation;
}

}  // namespace tilelab::gui
