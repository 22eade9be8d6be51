#include "headless.h"
#include "headless_driver.h"
#include "stall_view.h"
#include "headless_egl.h"
#include "fonts.h"
#include "tilelab/i18n.h"
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <set>
#include <vector>
#include "actions.h"
#include "panels.h"
#include "tabs.h"
#include "text_overlap.h"
#include "gl_util.h"
#include "ui_common.h"
#include "tune_view.h"
#include "tilelab/input_policy.h"
#include "tilelab/safe_file.h"
#include "tilelab/util.h"

namespace tilelab::gui {

namespace {

// ---- one ImGui context with the OpenGL3 renderer (RAII) ------------------------------------

struct ImGuiRenderer {
    bool ok = false;
    ImGuiRenderer() {
        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        ok = ImGui_ImplOpenGL3_Init("#version 330 core");
    }
    ~ImGuiRenderer() {
        if (ok) ImGui_ImplOpenGL3_Shutdown();
        ImGui::DestroyContext();
    }
};

// Encodes in memory, then writes through write_file_atomic: stb's own writer ignores write and
// close errors, so a full disk (or /dev/full) would pass for success.
bool write_png(const std::string& path, int width, int height, std::string& error) {
    const std::vector<uint8_t> rgba = ReadPixelsRgba(width, height);
    std::string png;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
    };
    if (!stbi_write_png_to_func(append, &png, width, height, 4, rgba.data(), width * 4)) {
        error = "could not encode the PNG for " + shortened_path(path);
        return false;
    }
    return write_file_atomic(path, png, error);
}

// The step's "Run them here", as the button does it: one line per configuration with this GPU's
// time beside the reference GPU's, then the frames settle so a screenshot shows the column.
int run_measured_answers(App& app, FrameDriver& driver, double timeout_s) {
    AppState& state = app.state();
    const std::vector<RunRequest> runs = MeasuredAnswerRuns(state);
    if (runs.empty()) {
        std::fprintf(stderr, "run-measured: this step has no measured answer to run\n");
        return 0;
    }
    if (!state.engine_thread->device().gpu) {
        std::fprintf(stderr, "run-measured: %zu configurations, not run: no GPU (%s)\n", runs.size(),
                     state.engine_thread->device().reason.c_str());
        return 0;
    }
    if (!StartLessonRuns(state)) return 2;
    const int rc = driver.until(
        [&] {
            const SweepProgress p = state.engine_thread->sweep_progress();
            return !p.running && p.done == p.total;
        },
        timeout_s);
    if (rc != 0) return rc;
    const auto results = state.engine_thread->sweep_results();
    for (size_t i = 0; i < runs.size(); ++i) {
        const RunResult* r = i < results.size() ? results[i].get() : nullptr;
        std::string config;
        for (const auto& [name, value] : runs[i].params) config += name + "=" + std::to_string(value) + " ";
        if (r && r->ok && r->measured)
            std::fprintf(stderr, "run-measured: %sat %s: %.3f ms here (validated: %s)\n", config.c_str(),
                         format_problem(r->request.problem).c_str(), r->timing.median_ms,
                         r->validation.passed ? "yes" : "no");
        else
            std::fprintf(stderr, "run-measured: %s: %s\n", config.c_str(), r ? r->error.c_str() : "no result");
    }
    return LessonRunsAreThisStep(state) ? 0 : 2;
}

// --exercise-text: frames until the typed text has its answer, then its compile messages on
// stderr (file:line:col as the CLI prints them) and one summary line.
int wait_for_exercise(App& app, FrameDriver& driver, double timeout_s) {
    const ExerciseEditorState& e = app.state().exercise;
    const int rc = driver.until([&] { return e.result && !e.busy && e.submitted_text == e.text; }, timeout_s);
    if (rc != 0) {
        if (rc == 3) std::fprintf(stderr, "%s\n", trf("headless.exercise_no_result", std::lround(timeout_s)).c_str());
        return rc;
    }
    for (const Diagnostic& d : e.diagnostics) std::fprintf(stderr, "exercise: %s\n", format_diagnostic(d).c_str());
    const RunResult& r = *e.result;
    std::fprintf(stderr, "exercise: %s: %s, %zu messages, saved=%s\n", e.file_name.c_str(),
                 r.compiled && r.compiled->ok ? "compiled" : "does not compile", e.diagnostics.size(),
                 e.saved ? "yes" : "no");
    if (r.stalls.has_samples()) {   // the bars beside the editor's lines (a full run on a GPU)
        const size_t lines = size_t(std::count(e.text.begin(), e.text.end(), '\n')) + 1;
        const std::vector<const StallLine*> bars = StallLinesOf(r, lines);
        const StallLine* hot = stall_hottest_line(r.stalls, r.kernel_file);
        std::fprintf(stderr, "exercise: stall-bars=%zu hottest-line=%d\n",
                     size_t(std::count_if(bars.begin(), bars.end(), [](const StallLine* l) { return l != nullptr; })), hot ? hot->line : 0);
    }
    return 0;
}

int walk(App& app, FrameDriver& driver, double timeout_s, bool check_layout) {
    AppState& state = app.state();
    const auto& lessons = all_lessons();
    int steps = 0;
    // Asks for `name` through `select` and draws until `shown` is it: a selection shows from the
    // next frame on. False, having said so, when it never does or a frame fails.
    std::string context;   // "05 step 3, " while walking that step
    const auto show = [&](std::string& select, const std::string& shown, const char* name, const char* what) {
        select = name;
        for (int k = 0; k < 4 && (k < 2 || shown != name); ++k)
            if (!driver.frame()) return false;
        if (shown != name) std::fprintf(stderr, "walk: %s %s never became active\n", what, name);
        if (shown != name || !check_layout) return shown == name;
        // Its layout, once its tables have had a frame to size their columns.
        driver.set_layout_context(context + name + ": ");
        const bool drawn = driver.frame();
        driver.set_layout_context("");
        return drawn;
    };
    for (size_t li = 0; li < lessons.size(); ++li) {
        EnterLesson(state, int(li), 0);
        const int waited = driver.until_settled(timeout_s);
        if (waited == 2) return 2;
        const RunResult* r = state.result.get();
        std::fprintf(stderr, "walk: %s: %s\n", lessons[li].id.c_str(),
                     waited == 3 ? "timed out waiting for the analysis"
                     : !r        ? "no result"
                     : r->ok     ? "analysed"
                                 : ("cannot run: " + r->error).c_str());
        const int step_count = std::max<int>(1, int(lessons[li].steps.size()));
        for (int s = 0; s < step_count; ++s, ++steps) {
            if (s > 0) EnterStep(state, s);
            context = lessons[li].id.substr(0, 2) + " step " + std::to_string(s + 1) + ", ";
            for (const Tab& tab : kTabs)
                if (!show(state.select_tab, state.active_tab, tab.name, "tab")) return 2;
            // The Code tab's second view, the exercise editor, then back to the kernel.
            for (const char* view : {"Exercise", "Kernel"}) {
                state.select_tab = "Code";
                if (!show(state.select_code_view, state.code_view, view, "Code view")) return 2;
            }
        }
    }
    // Every character drawn must be in the atlas: one drawn as the box is a failure (tilelab/i18n.h).
    const ImVec2 atlas = FontAtlasSize();
    std::fprintf(stderr, "walk: language %s, font atlas %.0fx%.0f, %d glyphs missing from the atlas\n",
                 language_code(language()), atlas.x, atlas.y, driver.missing_glyphs());
    if (driver.missing_glyphs() > 0) return 2;
    if (check_layout) {
        const std::set<std::string> problems = driver.take_layout_problems();
        for (const std::string& problem : problems) std::fprintf(stderr, "layout: %s\n", problem.c_str());  // ui-strings: not shown
        std::fprintf(stderr, "walk: %zu layout problems\n", problems.size());  // ui-strings: not shown
        if (!problems.empty()) return 2;
    }
    std::fprintf(stderr, "walk: %zu lessons, %d steps, 5 tabs and the exercise each, %d frames: no GL error, invariants held\n",
                 lessons.size(), steps, driver.frames());
    return 0;
}

// Between two values of a drag, how long a user is assumed to pause at most: the next change
// waits until compile-ahead has finished what it queued, or this long, whichever comes first.
// (A real user looks at each value for a moment, and that is when compile-ahead works; a drag
// measured back to back would time a user no one is.)
constexpr double kDragPauseS = 2.0;
// Before the drag: the first result's compile-ahead and, on a GPU, the card's ceilings (measured
// after a second of quiet), so neither lands inside the measurement.
constexpr double kBeforeDragS = 5.0;

// The values a slider passes when dragged from the current one: up to the end of the slider,
// then down past the start (a jump back, as when the user grabs the slider again), skipping the
// values the engine refuses. At most `count` values (0 = all).
std::vector<int> drag_path(const ParamSpec& spec, int current, const RunRequest& base, const EngineThread& worker,
                           int count) {
    std::vector<int> above, below;
    for (int value : spec.values()) {
        if (value > current) above.push_back(value);
        if (value < current) below.push_back(value);
    }
    std::reverse(below.begin(), below.end());
    std::vector<int> path;
    for (const auto* side : {&above, &below})
        for (int value : *side) {
            if (count > 0 && int(path.size()) >= count) return path;
            RunRequest candidate = base;
            candidate.params[spec.name] = value;
            if (worker.invalid_reason(candidate).empty()) path.push_back(value);
        }
    return path;
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double worst_of(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

// Where a result's kernel came from, as the drag lines say it.
const char* kernel_origin(const RunResult* r) {
    if (!r || !r->compiled) return "not compiled";
    if (r->stages.compile_cached) return r->stages.prefetch_hit ? "compiled ahead" : "in the memory cache";
    if (r->compiled->cache_level == "in-flight") return "waited for its compile";
    if (r->compiled->cache_level == "disk") return "from the disk cache";
    return "compiled now";
}

// "auto": the first parameter of the variant with at least two other values the engine accepts
// at the current state (lesson 04's first parameter, T, has one: its slice S·U fixes it).
std::string pick_drag_param(const Variant& v, const RunRequest& base, const EngineThread& worker) {
    for (const ParamSpec& spec : v.params)
        if (drag_path(spec, base.params.count(spec.name) ? base.params.at(spec.name) : spec.def, base, worker, 2)
                .size() >= 2)
            return spec.name;
    return "";
}

int measure_drag(App& app, FrameDriver& driver, std::string name, int max_values, double timeout_s) {
    AppState& state = app.state();
    const Variant* v = CurrentVariant(state);
    if (v && name == "auto") name = pick_drag_param(*v, state.request, *state.engine_thread);
    const ParamSpec* spec = v ? v->param(name) : nullptr;
    if (!spec) {
        std::fprintf(stderr, "tilelab: variant %s has no parameter %s\n", state.request.variant.c_str(),
                     name.empty() ? "with two other valid values to drag over" : name.c_str());
        return 1;
    }
    EngineThread& worker = *state.engine_thread;
    const auto background_idle = [&] { return worker.background_idle(); };
    if (driver.until(background_idle, kBeforeDragS) == 2) return 2;

    const int start = state.request.params[name];
    const std::vector<int> path = drag_path(*spec, start, state.request, worker, max_values);
    std::vector<double> quick_ms, full_ms;
    int hits = 0, in_flight = 0, count_asked = 0, count_hits = 0;
    for (size_t i = 0; i < path.size(); ++i) {
        const int value = path[i];
        if (i > 0 && driver.until(background_idle, kDragPauseS) == 2) return 2;   // the user's pause
        state.request.params[name] = value;
        // As a slider does: while dragging, the quick protocol (debounced only if it must compile) ...
        const auto changed = Clock::now();
        SubmitRequest(state, name, Change::Drag);
        const uint64_t quick = state.engine_thread->last_submitted_id();
        int rc = driver.until([&] { return app.drawn(quick); }, timeout_s);
        quick_ms.push_back(ms_since(changed));
        const RunResult* r = state.result.get();
        const bool hit = r && r->stages.compile_cached;
        hits += hit;
        in_flight += r && r->compiled && r->compiled->cache_level == "in-flight";
        std::fprintf(stderr, "drag: %s=%d redrawn %.1f ms after the change%s, kernel %s\n", name.c_str(), value,
                     quick_ms.back(), state.result && state.result->phase == Phase::quick ? " (quick run, validated)" : "",
                     kernel_origin(r));
        if (rc != 0) return rc;
        // ... and once it is drawn, the slider is let go: the full protocol for the same request.
        const auto released = Clock::now();
        SubmitRequest(state, name, Change::Release);
        rc = driver.until_settled(timeout_s);
        full_ms.push_back(ms_since(released));
        if (const RunResult* full = state.result.get(); full && full->stages.count_compile_ms > 0) {
            ++count_asked;
            count_hits += full->stages.count_compile_cached;
        }
        std::fprintf(stderr, "drag: %s=%d full result %.1f ms after the release\n", name.c_str(), value, full_ms.back());
        if (rc != 0) return rc;
    }
    // A jump far along the slider (a click at its other end): the farthest valid value not
    // visited, asked for at once, so compile-ahead has not seen it; its kernel is compiled now
    // (or read from the disk cache on a warm pass).
    double jump_ms = 0;
    int jump_value = state.request.params[name];
    std::string jump_kernel = "none";
    {
        const std::vector<int> all = drag_path(*spec, jump_value, state.request, worker, 0);
        // Not the current value's neighbours either: compile-ahead has those.
        int above = INT_MAX, below = INT_MIN;
        for (int x : all) {
            if (x > jump_value) above = std::min(above, x);
            if (x < jump_value) below = std::max(below, x);
        }
        int best = -1;
        for (int value : all)
            if (value != above && value != below && value != start && std::find(path.begin(), path.end(), value) == path.end() &&
                (best < 0 || std::abs(value - jump_value) > std::abs(best - jump_value)))
                best = value;
        if (best >= 0) {
            state.request.params[name] = best;
            const auto changed = Clock::now();
            SubmitRequest(state, name, Change::Drag);   // grabbed and moved far in one go
            const uint64_t quick = state.engine_thread->last_submitted_id();
            const int rc = driver.until([&] { return app.drawn(quick); }, timeout_s);
            jump_ms = ms_since(changed);
            const RunResult* r = state.result.get();
            std::fprintf(stderr, "drag: jump %s=%d -> %d redrawn %.1f ms after the change, kernel %s\n", name.c_str(),
                         jump_value, best, jump_ms, kernel_origin(r));
            jump_kernel = kernel_origin(r);   // one word for the summary line: "compiled-now", ...
            std::replace(jump_kernel.begin(), jump_kernel.end(), ' ', '-');
            jump_value = best;
            if (rc != 0) return rc;
            SubmitRequest(state, name, Change::Release);
            if (const int settled = driver.until_settled(timeout_s); settled != 0) return settled;
        }
    }
    // One grep-able line per drag. quick: change -> the quick (validated) result drawn; full:
    // release -> the full result drawn; prefetch_hits: values whose kernel was in the memory cache
    // when asked (compiled ahead, or seen before); count_hits: the same for the instrumented build.
    const Lesson* lesson = CurrentLesson(state);
    const std::string lesson_number = lesson ? lesson->id.substr(0, lesson->id.find('_')) : "?";
    std::fprintf(stderr, "drag-summary: lesson=%s param=%s values=%zu quick_median_ms=%.1f quick_worst_ms=%.1f "
                 "full_median_ms=%.1f full_worst_ms=%.1f prefetch_hits=%d/%zu in_flight_waits=%d count_hits=%d/%d "
                 "jump_ms=%.1f jump_kernel=%s mode=%s\n",
                 lesson_number.c_str(), name.c_str(), path.size(), median_of(quick_ms), worst_of(quick_ms),
                 median_of(full_ms), worst_of(full_ms), hits, path.size(), in_flight, count_hits, count_asked,
                 jump_ms, jump_kernel.c_str(), worker.device().gpu ? "gpu" : "model");
    return 0;
}

// --tune: the search started at Init runs to its end, then one line says what the table shows.
int wait_for_tune(App& app, FrameDriver& driver, double timeout_s) {
    // Ended, and its report taken by the section (drawn on the frames the driver renders).
    const int rc = driver.until([&] {
        const TuneStatus st = app.state().engine_thread->tune_status();
        return !st.running && app.state().tune.taken == st.generation;
    }, timeout_s);
    const TuneViewState& view = app.state().tune;
    if (rc != 0 || !view.report) {
        std::fprintf(stderr, "tune: %s\n", rc != 0 ? "timed out" : view.note.c_str());  // ui-strings: not shown
        return rc != 0 ? rc : 1;
    }
    const TuneReport& r = *view.report;
    const Variant* v = find_variant(r.variant);
    const std::string first = r.candidates.empty() || !v ? "-" : TuneParamsText(*v, r.candidates.front().params);
    const auto pruned = std::count_if(r.candidates.begin(), r.candidates.end(), [](const TuneCandidate& c) { return !c.pruned.empty(); });
    std::fprintf(stderr, "tune: %s at %s on %s: %zu candidates, %ld pruned, %d measured, first %s\n",  // ui-strings: not shown
                 r.variant.c_str(), format_problem(r.problem).c_str(), r.target.c_str(), r.candidates.size(), long(pruned),
                 r.tried, first.c_str());
    return 0;
}

// --sweep: the sweep started at Init runs to its end, its results drawn.
int wait_for_sweep(App& app, FrameDriver& driver, double timeout_s) {
    const int rc = driver.until([&] {
        const SweepProgress p = app.state().engine_thread->sweep_progress();
        return p.generation == app.state().sweep_generation && !p.running && !app.state().sweep.running;
    }, timeout_s);
    std::fprintf(stderr, "sweep: %s, %zu results\n", rc != 0 ? "timed out" : "done", app.state().sweep.results.size());  // ui-strings: not shown
    return rc;
}

}  // namespace

int RunHeadless(const HeadlessOptions& options) {
    headless_egl::EglContext egl(options.width, options.height, options.gl_device);
    if (!egl.ok()) {
        std::fprintf(stderr, "%s\n", trf("headless.no_context", egl.error()).c_str());
        return 1;
    }
    if (!LoadGl(&eglGetProcAddress)) {
        std::fprintf(stderr, "%s\n", tr("headless.no_gl33").c_str());
        return 1;
    }
    if (options.app.log_latency)
        std::fprintf(stderr, "headless: EGL %s, GL %s\n", egl.platform().c_str(), GlVersionString().c_str());
    ImGuiRenderer renderer;
    if (!renderer.ok) {
        std::fprintf(stderr, "%s\n", tr("headless.no_renderer").c_str());
        return 1;
    }
    EngineThread engine_thread(options.engine);
    App app(options.app, engine_thread);
    if (std::string error = app.Init(); !error.empty()) {
        std::fprintf(stderr, "tilelab: %s\n", one_line(error).c_str());
        return kExitInvalidInput;   // the same input tilelab-cli refuses, with the same code
    }
    FrameDriver driver(app, options.width, options.height);

    int rc = 0;
    if (options.walk) {
        rc = walk(app, driver, options.timeout_s, options.check_layout);
    } else if (options.monkey > 0) {
        rc = Monkey(app, driver, options.monkey, options.monkey_seed, options.timeout_s, options.check_layout);
    } else {
        rc = driver.until_settled(options.timeout_s);
        if (rc == 3) std::fprintf(stderr, "%s\n", trf("headless.no_result", std::lround(options.timeout_s)).c_str());
        if (rc == 0 && !options.drag.empty())
            rc = measure_drag(app, driver, options.drag, options.drag_values, options.timeout_s);
        if (rc == 0 && options.run_measured) rc = run_measured_answers(app, driver, options.timeout_s);
        if (rc == 0 && !options.app.exercise_text.empty()) rc = wait_for_exercise(app, driver, options.timeout_s);
        if (rc == 0 && (!options.app.drill_answer.empty() || !options.app.drill_scores.empty())) {
            rc = driver.until([&] { return !DrillsChecking(app.state()); }, options.timeout_s);
            if (const Lesson* lesson = CurrentLesson(app.state())) {
                int right = 0, counted = 0;
                DrillScore(app.state(), *lesson, right, counted);
                std::fprintf(stderr, "drill-score: %s %d/%d\n", lesson->id.c_str(), right, counted);  // ui-strings: not shown
            }
            for (const auto& [key, v] : app.state().drill_views)
                if (v.outcome >= 0 || !v.note.empty())
                    std::fprintf(stderr, "drill: %s: %s\n", key.c_str(),  // ui-strings: not shown
                                 v.outcome < 0 ? one_line(v.note).c_str()
                                               : (std::string(v.outcome == 1 ? "right" : "wrong") + ", the answer here: " + v.shown).c_str());  // ui-strings: not shown
        }
    }
    if (rc == 0 && options.app.tune) rc = wait_for_tune(app, driver, options.timeout_s);
    if (rc == 0 && !options.app.sweep.empty()) rc = wait_for_sweep(app, driver, options.timeout_s);
    // A few more frames: tabs switched by flag and auto-sized items settle on the second frame; a
    // data table that turns to scrolling sideways once a scroll bar beside it shows, by the fifth.
    for (int i = 0; i < 6 && rc != 2; ++i)
        if (!driver.frame()) rc = 2;
    // A frame's error (GL, a broken invariant); the walk's own failures said what they were above.
    if (rc == 2 && !driver.error().empty()) std::fprintf(stderr, "tilelab: %s\n", driver.error().c_str());
    if (options.check_layout && rc == 0 && options.monkey == 0) {   // the monkey judged the frames it checks
        // Text drawn anywhere (an input field, the editor) as the box: a character no font has.
        if (const int boxes = CountMissingGlyphs(ImGui::GetDrawData()); boxes > 0)
            ReportLayoutProblem(std::to_string(boxes) + " characters drawn as the box: the fonts have no glyph for them");   // ui-strings: not shown
        for (std::string& problem : FindOverlappingText(ImGui::GetDrawData())) ReportLayoutProblem(std::move(problem));
        for (const std::string& problem : LayoutProblems()) std::fprintf(stderr, "layout: %s\n", problem.c_str());  // ui-strings: not shown
        if (!LayoutProblems().empty()) rc = 1;
    }
    if (!options.screenshot.empty()) {
        std::string error;
        if (!write_png(options.screenshot, options.width, options.height, error)) {
            std::fprintf(stderr, "%s\n", trf("headless.screenshot_failed", error).c_str());
            if (rc == 0) rc = 1;
        }
    }
    if (options.app.log_latency) {
        app.PrintFrameStats(stderr);
        driver.print_split(stderr);
    }
    // Every failure past the input checks (GL error, broken invariant, timeout, an output not
    // written) is exit 1: 2 means invalid input in every TileLab executable.
    return rc == 0 ? kExitOk : kExitFailed;
}

}  // namespace tilelab::gui
