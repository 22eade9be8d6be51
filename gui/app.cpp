#include "app.h"
#include "tilelab/i18n.h"
#include "compare_export.h"
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>   // key codes only: ImGui 1.86's GLFW backend indexes io.KeysDown by them
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <algorithm>
#include <cctype>
#include <string>
#include <thread>
#include "actions.h"
#include "fonts.h"
#include "gl_util.h"
#include "hardware_view.h"
#include "panels.h"
#include "settings.h"
#include "tabs.h"
#include "tilelab/exercise_store.h"
#include "tilelab/input_policy.h"
#include "ui_common.h"

namespace tilelab::gui {

namespace {

// Presenter mode enlarges everything by this much on top of the user's own font scale.
constexpr float kPresenterScale = 1.4f;
// The window's width, in font heights, below which the lesson's text leaves its column for a tab.
constexpr float kLessonColumnMinEm = 46.0f;
constexpr size_t kHistoryLimit = 500;
const ImVec4 kBackground(0.09f, 0.10f, 0.12f, 1.0f);

bool same_name(const std::string& a, const std::string& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

}  // namespace

App::App(const AppOptions& options, EngineThread& engine_thread) : options_(options), engine_thread_(engine_thread) {
    state_.engine_thread = &engine_thread_;
}

App::~App() {
    // A run whose options were refused ends without touching the user's files.
    ImGuiIO& io = ImGui::GetIO();
    if (initialized_) {
        SaveSettingsNow();
        // ImGui would write its ini when its context is destroyed, after ini_path_ is gone: write now.
        if (io.IniFilename) ImGui::SaveIniSettingsToDisk(io.IniFilename);
    }
    io.IniFilename = nullptr;
}

float App::effective_font_scale() const {
    return state_.font_scale * window_fit_ * (state_.presenter_mode ? kPresenterScale : 1.0f);
}

std::string App::Init() {
    std::string error = init_from_options();
    initialized_ = error.empty();
    return error;
}

void App::wait_for_engine() const {
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    while (!engine_thread_.ready() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// --panel (or an exercise to type in): the tab and Code view the first frame shows.
std::string App::select_panel_from_options() {
    if (same_name(options_.panel, "exercise") || !options_.exercise_text.empty()) {
        state_.select_tab = "Code";
        state_.select_code_view = "Exercise";
    } else if (same_name(options_.panel, "lesson")) {
        state_.select_tab = kLessonTab;   // the Lesson tab where the window is narrow, else its column
    } else if (!options_.panel.empty()) {
        const auto* tab = std::find_if(std::begin(kTabs), std::end(kTabs),
                                       [&](const Tab& t) { return same_name(t.name, options_.panel); });
        if (tab == std::end(kTabs)) {
            std::string names;
            for (const Tab& t : kTabs) {
                for (const char* c = t.name; *c; ++c) names += char(std::tolower(static_cast<unsigned char>(*c)));
                names += ", ";
            }
            return "--panel: there is no panel '" + shortened(options_.panel) + "' (" + names + "exercise, lesson).";
        }
        state_.select_tab = tab->name;
    }
    return "";
}

std::string App::init_from_options() {
    SavedPlace place;
    if (options_.persist) {
        std::string why;
        settings_path_ = ConfigDir(why).empty() ? "" : SettingsPath();
        std::vector<std::string> notices;
        if (settings_path_.empty()) notices.push_back(trf("notice.settings_nothing_saved", why));
        place = LoadSettings(settings_path_, state_, notices);
        for (const std::string& n : notices) std::fprintf(stderr, "tilelab: %s\n", n.c_str());
        if (!notices.empty())
            state_.notice = notices.front() + (notices.size() > 1 ? trf("notice.and_more_on_stderr", notices.size() - 1) : "");
        saved_model_target_ = place.model_target;
        const std::string dir = ConfigDir();
        ini_path_ = dir.empty() ? "" : UsableIniPath(dir + "/imgui.ini");   // ImGui keeps the pointer
        ImGui::GetIO().IniFilename = ini_path_.empty() ? nullptr : ini_path_.c_str();
    } else {
        ImGui::GetIO().IniFilename = nullptr;
    }
    if (options_.presenter) state_.presenter_mode = true;
    if (options_.text_size > 0) state_.font_scale = options_.text_size;
    // --lang, else the settings file's (read above), else the locale's.
    if (!options_.lang.empty()) {
        if (!parse_language(options_.lang, state_.language))
            return "--lang: '" + shortened(options_.lang) + "' is not a language (en or zh).";
    } else if (place.language.empty() || !parse_language(place.language, state_.language)) {
        state_.language = language_from_locale();
    }
    set_language(state_.language);

    const auto& lessons = all_lessons();
    if (lessons.empty()) return tr("menu.no_lessons_are_compiled_into_this_build").c_str();
    // --step counts from 1, as the step buttons do (0, the old first step, is step 1).
    int lesson_index = 0, step = options_.step > 0 ? options_.step - 1 : 0;
    const std::string wanted = !options_.lesson.empty() ? options_.lesson : place.lesson_id;
    if (!wanted.empty()) {
        const Lesson* found = find_lesson(wanted);
        if (!found) {
            if (!options_.lesson.empty()) return trf("app.no_such_lesson", shortened(wanted));
        } else {
            lesson_index = int(found - lessons.data());
            if (options_.step < 0 && options_.lesson.empty()) step = place.step;
        }
    }
    if (options_.step > int(lessons[size_t(lesson_index)].steps.size()) &&
        !lessons[size_t(lesson_index)].steps.empty())
        return trf("app.no_such_step", lessons[size_t(lesson_index)].id, lessons[size_t(lesson_index)].steps.size(),
                   options_.step);
    EnterLesson(state_, lesson_index, step);

    // The same checks, in the same words, as tilelab-cli's (tilelab/input_policy.h).
    if (const Variant* variant = CurrentVariant(state_)) {
        try {
            for (const auto& [name, value] : parse_sets(*variant, options_.sets)) state_.request.params[name] = value;
            if (!options_.size.empty()) parse_size_flag(options_.size);
        } catch (const InputError& e) {
            return e.what();
        }
    } else if (!options_.sets.empty()) {
        return trf("app.unknown_variant_set", state_.request.variant);
    }
    if (!options_.size.empty()) state_.size_text = options_.size;
    if (!options_.sets.empty() || !options_.size.empty())
        if (!SubmitRequest(state_)) return trf("app.bad_size", state_.size_error);

    // A combination the engine cannot run is invalid input, as tilelab-cli says: refused with
    // the engine's reason rather than drawn as "cannot run". The engine starts on the worker's
    // thread; wait for it, but only when flags shaped the request.
    if (!options_.sets.empty() || !options_.size.empty()) {
        wait_for_engine();
        if (const std::string reason = engine_thread_.invalid_reason(state_.request); !reason.empty()) return reason;
    }

    state_.exercise.dir = options_.persist ? default_exercise_dir() : options_.exercise_dir;
    if (std::string error = select_panel_from_options(); !error.empty()) return error;
    // The drills' scores, kept between runs (headless runs neither read nor write them).
    state_.drill_scores_path = options_.persist ? DrillScores::default_path() : options_.drill_scores;
    if (!state_.drill_scores_path.empty()) {
        std::string error;
        if (!state_.drill_scores.load(state_.drill_scores_path, error)) {
            std::fprintf(stderr, "tilelab: %s\n", error.c_str());
            state_.notice = error;
            state_.drill_scores_path.clear();   // never overwrite a file we could not read
        }
    }
    if (!options_.drill_answer.empty()) {
        state_.select_tab = "Drills";
        wait_for_engine();
        std::string error;
        if (!DrillAnswerFromText(state_, options_.drill_answer, error)) return "--drill-answer: " + error;
    }
    if (options_.tune) {   // as if the user had pressed Start search in the Compare tab
        state_.select_tab = "Compare";
        wait_for_engine();
        if (!StartTune(state_)) return tr("tuner.cannot_start");
    }
    if (!options_.sweep.empty()) {   // as if the user had chosen the sweep's parameters and pressed Run
        wait_for_engine();
        std::string error;
        if (!StartSweepFromText(state_, options_.sweep, error)) return "--sweep: " + error;
    }
    if (!options_.exercise_text.empty()) {   // as if the user had typed it
        std::string text, error, why;
        if (!read_user_source(options_.exercise_text, text, error)) return "--exercise-text: " + error;
        if (!ExerciseTypeIn(state_, text, why)) return "--exercise-text: " + why;
    }
    return "";
}

void App::apply_style() {
    ImGuiStyle style;
    ImGui::StyleColorsDark(&style);
    style.WindowRounding = 0;
    style.ChildRounding = 4;
    style.FrameRounding = 4;
    style.GrabRounding = 4;
    style.TabRounding = 4;
    style.PopupRounding = 4;
    style.FramePadding = ImVec2(8, 5);
    style.ItemSpacing = ImVec2(10, 7);
    style.CellPadding = ImVec2(6, 4);
    style.WindowPadding = ImVec2(12, 10);
    style.ScrollbarSize = 16;
    style.Colors[ImGuiCol_WindowBg] = kBackground;
    style.Colors[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
    style.Colors[ImGuiCol_MenuBarBg] = ImVec4(0.13f, 0.14f, 0.17f, 1.0f);
    style.ScaleAllSizes(effective_font_scale());
    ImGui::GetStyle() = style;
}

void App::BeforeNewFrame(float window_width, float window_height) {
    window_fit_ = WindowFitScale(window_width, window_height);
    const float scale = effective_font_scale();
    const bool for_missing = missing_glyphs_seen_ && !chinese_shown_ && !chinese_asked_;
    missing_glyphs_seen_ = false;
    if (scale == built_font_scale_ && state_.language == built_language_ && !for_missing) return;
    chinese_asked_ = chinese_asked_ || for_missing;
    const auto start = Clock::now();
    const bool chinese = state_.language == Language::Chinese;
    // Once Chinese has been shown, its glyphs stay: after a switch to English the result on screen,
    // worded in Chinese by the engine, stays until the run asked again arrives (a full run on a
    // GPU), and its characters would be drawn as boxes meanwhile. In English, Chinese typed into
    // a field or the editor brings them too.
    BuildFonts(scale, chinese || chinese_shown_ || for_missing);
    chinese_shown_ = chinese_shown_ || ((chinese || for_missing) && AppFonts().chinese);
    const auto uploading = Clock::now();
    RebuildFontTexture();
    const double upload_ms = ms_between(uploading, Clock::now());
    if (chinese && !AppFonts().chinese) {
        // No Chinese font (or none that fits the atlas): English, with a one-line notice.
        state_.language = Language::English;
        state_.notice = tr("notice.no_chinese_font", Language::English);
    }
    if (language() != state_.language) {
        set_language(state_.language);
        // Everything the engine words (why there is no GPU, reasons, occupancy arithmetic) is
        // asked for again.
        if (initialized_) {
            if (state_.engine_thread) state_.engine_thread->reword_status();
            SubmitRequest(state_);
        }
    }
    built_language_ = state_.language;
    // ui-strings: off (--log-latency: measurements for developers and scripts, in English)
    if (options_.log_latency)
        std::fprintf(stderr,
                     "latency: fonts built and uploaded in %.1f ms (%s; files %.1f ms, characters collected %.1f ms, "
                     "atlas %.1f ms, texture %.1f ms; %d glyphs, %.0fx%.0f)\n",
                     ms_between(start, Clock::now()), AppFonts().system_fonts ? "system fonts" : "ImGui's default font",
                     AppFonts().files_ms, AppFonts().collect_ms, AppFonts().rasterize_ms, upload_ms, AppFonts().glyphs,
                     FontAtlasSize().x, FontAtlasSize().y);
    // ui-strings: on
    apply_style();
    built_font_scale_ = scale;
    fonts_rebuilt_ = true;
}

void App::on_engine_ready() {
    const DeviceStatus device = engine_thread_.device();
    if (device.gpu) return;
    const auto& presets = target_presets();
    const Target* saved = saved_model_target_.empty() ? nullptr : find_target(saved_model_target_);
    const std::string current = saved ? saved->preset : engine_thread_.target().preset;
    for (size_t i = 0; i < presets.size(); ++i)
        if (presets[i].preset == current) state_.model_target_index = int(i);
    if (saved && saved->preset != engine_thread_.target().preset) {
        engine_thread_.set_model_target(*saved);
        SubmitRequest(state_);
    }
}

void App::poll_worker() {
    if (!engine_seen_ && engine_thread_.ready()) {
        engine_seen_ = true;
        on_engine_ready();
    }
    EngineUpdate update;
    if (engine_thread_.poll(update)) {
        state_.result = update.result;
        if (update.result) state_.compile_memory.record(*update.result);
        shown_request_id_ = update.request_id;
        to_log_.push_back(update);
        const RunResult* r = update.result.get();
        if (r && r->phase != Phase::analysed && r->measured) {
            HistoryPoint p;
            p.variant = r->request.variant;
            p.params = r->request.params;
            p.problem = r->request.problem;
            p.dragged = state_.last_changed_param;
            const auto it = p.params.find(p.dragged);
            p.x = it != p.params.end() ? it->second : 0;
            p.median_ms = r->timing.median_ms;
            p.gflops = r->gflops;
            p.intensity = r->model.intensity;
            p.dram_intensity = DramIntensity(*r).value_or(0);
            p.valid = r->ok && (!r->validation.checked || r->validation.passed);
            p.phase = r->phase;
            // A full measurement replaces the quick ones of the same configuration.
            if (p.phase == Phase::full)
                std::erase_if(state_.history, [&](const HistoryPoint& h) {
                    return h.phase == Phase::quick && h.variant == p.variant && h.params == p.params && h.problem == p.problem;
                });
            state_.history.push_back(p);
            if (state_.history.size() > kHistoryLimit) state_.history.erase(state_.history.begin());
        }
    }
    state_.updating = engine_thread_.busy() || (state_.result && state_.result->phase == Phase::analysed);
    ExerciseUpdate(state_, Clock::now());
}

bool App::settled() const {
    // The worker may be idle with the newest result not yet polled: compare ids, not just busy().
    // A quick result is never the last word: its full measurement follows.
    return state_.result && state_.result->phase == Phase::full && !engine_thread_.busy() &&
           shown_request_id_ == engine_thread_.last_submitted_id();
}

bool App::drawn(uint64_t request_id) const {
    return state_.result && state_.result->phase != Phase::analysed && shown_request_id_ == request_id;
}

void App::handle_keys() {
    ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || ImGui::IsAnyItemActive()) return;
    const bool ctrl = io.KeyCtrl;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) StepForward(state_);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) StepBack(state_);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown))) EnterLesson(state_, state_.lesson_index + 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp))) EnterLesson(state_, state_.lesson_index - 1);
    if (ctrl && (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)))
        state_.font_scale = std::min(3.0f, state_.font_scale + 0.1f);
    if (ctrl && (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)))
        state_.font_scale = std::max(0.5f, state_.font_scale - 0.1f);
    if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_0)) state_.font_scale = 1.0f;
    if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_P)) state_.presenter_mode = !state_.presenter_mode;
    if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_Q)) quit_ = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_F11)) state_.fullscreen = !state_.fullscreen;
    if (ImGui::IsKeyPressed(GLFW_KEY_F5)) SubmitRequest(state_);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)) && state_.fullscreen) state_.fullscreen = false;
}

void App::draw_tabs() {
    if (!ImGui::BeginTabBar("##analysis_tabs")) return;
    const std::string select = state_.select_tab;
    state_.reading_lesson_tab = false;
    if (select == kLessonTab && !state_.lesson_in_tabs) state_.select_tab.clear();   // the text is in its column
    if (state_.lesson_in_tabs) {
        const std::string label = tr("tab.Lesson") + "###Lesson";
        if (ImGui::BeginTabItem(label.c_str(), nullptr, select == kLessonTab ? ImGuiTabItemFlags_SetSelected : 0)) {
            if (select == kLessonTab) state_.select_tab.clear();
            // A step's own tab, when it opens, is shown instead.
            state_.reading_lesson_tab = select.empty() || select == kLessonTab;
            ImGui::BeginChild("##lesson_tab", ImVec2(0, 0), false);
            DrawLessonText(state_);
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
    }
    for (const Tab& tab : kTabs) {
        if (!(state_.*tab.shown)) continue;
        const ImGuiTabItemFlags flags = select == tab.name ? ImGuiTabItemFlags_SetSelected : 0;
        // Shown translated; "###name" keeps the tab's identity (and the settings' tab) in every language.
        const std::string label = tr(std::string("tab.") + tab.name) + "###" + tab.name;
        if (ImGui::BeginTabItem(label.c_str(), nullptr, flags)) {
            state_.active_tab = tab.name;
            ImGui::BeginChild(tab.name, ImVec2(0, 0), false);
            tab.draw(state_);
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
    }
    if (!select.empty() && state_.active_tab == select) state_.select_tab.clear();
    ImGui::EndTabBar();
}

void App::draw_columns(float height) {
    // Three columns need the room: at a large text size in a small window the lesson's text moves
    // into a tab before the others (at 1280 px, above 1.55 times the normal size), where the
    // parameters, results and tabs keep enough width to lay out. Presenter mode hides it.
    const bool wide = ImGui::GetContentRegionAvail().x >= ImGui::GetFontSize() * kLessonColumnMinEm;
    const bool lesson_column = state_.show_lesson && !state_.presenter_mode && wide;
    state_.lesson_in_tabs = state_.show_lesson && !state_.presenter_mode && !wide;
    const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_NoSavedSettings;
    if (!ImGui::BeginTable(lesson_column ? "##layout3" : "##layout2", lesson_column ? 3 : 2, flags, ImVec2(0, height)))
        return;
    if (lesson_column) ImGui::TableSetupColumn("lesson", ImGuiTableColumnFlags_WidthStretch, 0.31f);   // ui-strings: not shown
    ImGui::TableSetupColumn("centre", ImGuiTableColumnFlags_WidthStretch, lesson_column ? 0.29f : 0.42f);   // ui-strings: not shown
    ImGui::TableSetupColumn("tabs", ImGuiTableColumnFlags_WidthStretch, lesson_column ? 0.40f : 0.58f);   // ui-strings: not shown
    ImGui::TableNextRow(ImGuiTableRowFlags_None, height);
    if (lesson_column) {
        ImGui::TableNextColumn();
        ImGui::BeginChild("##lesson", ImVec2(0, height), false);
        DrawLessonPanel(state_);
        ImGui::EndChild();
    }
    ImGui::TableNextColumn();
    const float column_top = ImGui::GetCursorPosY();
    // Presenter mode hides the lesson's text, never its step controls: they go above the parameters.
    if (!lesson_column) {
        DrawLessonNavigator(state_);
        ImGui::Separator();
    }
    // Parameters above, results below, each scrolling on its own: however many parameters a
    // variant has, the results stay in view. The parameters get what they need, up to 55%, or up
    // to 72% while that shows all of the parameters the step just set (StepHighlight), but never
    // so much that the results' headline numbers (time, throughput) leave the view, as they would
    // with presenter mode's large text on a 1280x720 projector; never under 20% either.
    const float pad = ImGui::GetStyle().WindowPadding.y + ImGui::GetStyle().ItemSpacing.y;
    const float below = column_top + height - ImGui::GetCursorPosY() - pad;   // for both panels
    const float headline = state_.results_headline > 0 ? state_.results_headline + pad : 0.0f;
    const float params_max = std::max(height * 0.2f, std::min(std::clamp(state_.step_highlight.span + 2 * pad, height * 0.55f,
                                                                          height * 0.72f),
                                                              below - headline));
    const float params_h = std::clamp(state_.params_height, height * 0.2f, params_max);
    ImGui::BeginChild("##params", ImVec2(0, params_h), false);
    DrawParamsPanel(state_);
    state_.params_height = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
    ImGui::EndChild();
    ImGui::Separator();
    ImGui::BeginChild("##results", ImVec2(0, std::max(50.0f, column_top + height - ImGui::GetCursorPosY())), false);
    DrawResultsPanel(state_);
    ImGui::EndChild();
    ImGui::TableNextColumn();
    ImGui::BeginChild("##tabs", ImVec2(0, height), false);
    draw_tabs();
    ImGui::EndChild();
    ImGui::EndTable();
}

void App::draw_status_bar() {
    ImGui::Separator();
    char frame[64];
    std::snprintf(frame, sizeof frame, "%s %.1f ms", tr("status.frame").c_str(), last_frame_ms_);
    const float frame_x = ImGui::GetWindowWidth() - ImGui::CalcTextSize(frame).x - ImGui::GetStyle().WindowPadding.x * 2;
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float right = frame_x - spacing;   // every part ends before the frame time
    const ImVec4 dim = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    if (!engine_thread_.ready()) FittedText(tr("status.engine_starting"), dim, right);
    else DrawGpuStatus(engine_thread_, right);   // where runs go (gpu_setting.h)
    // Then the activity and a notice (e.g. a settings field that was reset; it stays until the app
    // closes), each shortened to the room left: at a large text size they would run under it. A
    // part with no room for more than its separator and "..." is left out.
    const auto part = [&](const std::string& text, const ImVec4& colour) {
        ImGui::SameLine();
        if (right - ImGui::GetCursorPosX() < ImGui::CalcTextSize("  |  ...").x) return false;
        return FittedText("  |  " + text, colour, right);
    };
    if (!part(to_string(engine_thread_.activity()), dim)) return;
    if (!state_.notice.empty() && !part(state_.notice, CautionColorVec())) return;
    if (ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + spacing > frame_x) return;   // no room for the frame time
    ImGui::SameLine(frame_x);
    ImGui::TextDisabled("%s", frame);
}

void App::Frame() {
    LayoutProblems().clear();
    poll_worker();
    UpdateDrillChecks(state_);
    handle_keys();
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->WorkPos);
    ImGui::SetNextWindowSize(viewport->WorkSize);
    ImGui::Begin("TileLab##root", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoBringToFrontOnFocus);
    draw_menu_bar();
    draw_model_banner();
    const float status_height = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y;
    draw_columns(std::max(100.0f, ImGui::GetContentRegionAvail().y - status_height));
    draw_status_bar();
    ImGui::End();
    ReportOverflowingWindows({"##exercise_text"});   // the exercise editor's lines of code
}

void App::Render(int framebuffer_width, int framebuffer_height) {
    // A scan of the frame's vertices for the box glyph: about 0.02 ms (15,000 vertices).
    if (!chinese_shown_ && !chinese_asked_) missing_glyphs_seen_ = CountMissingGlyphs(ImGui::GetDrawData()) > 0;
    ClearFramebuffer(framebuffer_width, framebuffer_height, kBackground.x, kBackground.y, kBackground.z);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // The Compare panel's "plot as PNG" reads back the region it asked for, now that it is drawn.
    ServicePendingCapture(state_, framebuffer_width, framebuffer_height);
}

std::string App::CheckInvariants() const {
    const Lesson* lesson = CurrentLesson(state_);
    if (!lesson) return "lesson index " + std::to_string(state_.lesson_index) + " is out of range";
    if (state_.step_index < 0 || (state_.step_index > 0 && state_.step_index >= int(lesson->steps.size())))
        return "step index " + std::to_string(state_.step_index) + " is out of range for " + lesson->id;
    if (state_.request.variant != lesson->variant)
        return "the request's variant " + state_.request.variant + " is not lesson " + lesson->id + "'s " + lesson->variant;
    if (const Variant* v = CurrentVariant(state_))
        for (const auto& [name, value] : state_.request.params)
            if (!v->param(name))
                return "the request has parameter " + name + " which " + v->id + " does not declare";
    if (!FindTab(state_.active_tab))
        return "the active tab \"" + state_.active_tab + "\" is not a tab";
    if (state_.font_scale < 0.5f || state_.font_scale > 3.0f) return "font scale out of range";
    return "";
}

void App::SaveSettingsNow() {
    if (!options_.persist) return;
    std::string error;
    if (!SaveSettings(settings_path_, state_, error)) {
        std::fprintf(stderr, "tilelab: %s\n", error.c_str());
        state_.notice = error;
    }
}

}  // namespace tilelab::gui
