// tilelab: the desktop app. Windowed with GLFW by default; --headless renders offscreen through
// EGL (no X server) for screenshots, the scripted walk and latency measurements.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include "app.h"
#include "gl_util.h"
#include "gpu_setting.h"
#include "headless.h"
#include "settings.h"
#include "tilelab/cli_flags.h"
#include "tilelab/i18n.h"
#include "tilelab/input_policy.h"
#include "tilelab/version.h"

namespace {

using tilelab::gui::App;
using tilelab::gui::Clock;

// While nothing moves, wait for input instead of redrawing: a tutor left open should not heat
// the laptop. While a request is in flight, redraw often so "updating" stays live.
constexpr double kIdleWaitSeconds = 0.25;
constexpr double kBusyWaitSeconds = 1.0 / 60.0;

// Ctrl+C or a window manager's TERM ends the loop normally, so settings are saved.
volatile std::sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int) { g_stop_signal = 1; }

void on_glfw_error(int code, const char* text) { std::fprintf(stderr, "%s\n", tilelab::trf("app.glfw_error", code, text).c_str()); }

// Switches between a window and full screen on the window's current monitor.
class FullscreenToggle {
public:
    explicit FullscreenToggle(GLFWwindow* w) : window_(w) {}
    void apply(bool fullscreen) {
        if (fullscreen == (glfwGetWindowMonitor(window_) != nullptr)) return;
        if (fullscreen) {
            glfwGetWindowPos(window_, &x_, &y_);
            glfwGetWindowSize(window_, &w_, &h_);
            GLFWmonitor* monitor = glfwGetPrimaryMonitor();
            if (!monitor) return;
            const GLFWvidmode* mode = glfwGetVideoMode(monitor);
            glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
        } else {
            glfwSetWindowMonitor(window_, nullptr, x_, y_, w_, h_, 0);
        }
    }

private:
    GLFWwindow* window_;
    int x_ = 0, y_ = 0, w_ = 1600, h_ = 900;
};

int run_windowed(const tilelab::gui::AppOptions& app_options, const tilelab::EngineConfig& engine_config, int width,
                 int height) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        std::fprintf(stderr, "%s\n", tilelab::tr("app.no_display").c_str());
        return 1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    GLFWwindow* window = glfwCreateWindow(width, height, "TileLab", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "%s\n", tilelab::tr("app.no_gl_window").c_str());
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
    if (!tilelab::gui::LoadGl(&glfwGetProcAddress)) {
        std::fprintf(stderr, "%s\n", tilelab::tr("app.no_gl33").c_str());
        return 1;
    }
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");

    int rc = 0;
    {
        // The worker constructs the Engine on its own thread, so the window shows at once.
        tilelab::gui::EngineThread engine_thread(engine_config);
        engine_thread.set_on_delivery([] { glfwPostEmptyEvent(); });   // a result drawn at once, not at the next tick
        App app(app_options, engine_thread);
        if (std::string error = app.Init(); !error.empty()) {
            std::fprintf(stderr, "tilelab: %s\n", tilelab::one_line(error).c_str());
            rc = tilelab::kExitInvalidInput;
        }
        FullscreenToggle fullscreen(window);
        while (rc == 0 && !glfwWindowShouldClose(window) && !app.quit_requested() && !g_stop_signal) {
            if (app.state().updating || app.state().exercise.busy) glfwWaitEventsTimeout(kBusyWaitSeconds);
            else glfwWaitEventsTimeout(kIdleWaitSeconds);
            const auto start = Clock::now();
            int window_w = 0, window_h = 0;
            glfwGetWindowSize(window, &window_w, &window_h);
            app.BeforeNewFrame(float(window_w), float(window_h));
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            ImGui::NewFrame();
            app.Frame();
            ImGui::Render();
            int fb_w = 0, fb_h = 0;
            glfwGetFramebufferSize(window, &fb_w, &fb_h);
            app.Render(fb_w, fb_h);
            glfwSwapBuffers(window);
            app.AfterFrame(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
            fullscreen.apply(app.state().fullscreen);
        }
        if (app_options.log_latency) app.PrintFrameStats(stderr);
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return rc;
}

// The app's flags follow the same policy as tilelab-cli's (tilelab/input_policy.h): a flag
// error is one line starting "tilelab: " and exits 2, an empty value is an error, never the
// default. Returns -1 to go on, else the exit code.
int parse_flags(CLI::App& cli, int argc, char** argv) {
    try {
        cli.parse(argc, argv);
        tilelab::refuse_empty_values(&cli);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return cli.exit(e);   // --help
        std::fprintf(stderr, "tilelab: %s\n", tilelab::trf("cli.parse_error", tilelab::one_line(e.what())).c_str());
        return tilelab::kExitInvalidInput;
    } catch (const tilelab::InputError& e) {
        std::fprintf(stderr, "tilelab: %s\n", tilelab::one_line(e.what()).c_str());
        return tilelab::kExitInvalidInput;
    }
    return -1;
}

}  // namespace

int main(int argc, char** argv) {
    const auto launched = Clock::now();
    // Before anything slow (the settings, the window, GL, the engine): a TERM that comes while
    // they start ends the app normally too, so its settings are saved (issue #30).
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    // --lang (else the locale) before the parser is built, so --help and flag errors are in that
    // language; the app decides again once the settings file is read.
    tilelab::set_language_from_command_line(argc, argv);
    CLI::App cli{tilelab::tr("apphelp.app"), "tilelab"};
    cli.footer(tilelab::tr("apphelp.footer"));
    cli.set_version_flag("--version", tilelab::version_text(), tilelab::tr("clihelp.version"));
    tilelab::gui::HeadlessOptions o;
    o.app.launched = launched;
    bool headless = false, model = false;
    std::string gl_device = "auto";
    cli.add_flag("--headless", headless, tilelab::tr("apphelp.headless"));
    cli.add_option("--lesson", o.app.lesson, tilelab::tr("apphelp.lesson"));
    cli.add_option("--step", o.app.step, tilelab::tr("apphelp.step"))->check(tilelab::whole_number(0, 1000));
    cli.add_option("--set", o.app.sets, tilelab::tr("apphelp.set"));
    cli.add_option("--size", o.app.size, tilelab::tr("apphelp.size"));
    cli.add_option("--panel", o.app.panel, tilelab::tr("apphelp.panel"));
    cli.add_option("--drill-answer", o.app.drill_answer, tilelab::tr("apphelp.drill_answer"));
    cli.add_option("--drill-scores", o.app.drill_scores, tilelab::tr("apphelp.drill_scores"));
    cli.add_flag("--tune", o.app.tune, tilelab::tr("apphelp.tune"));
    cli.add_option("--sweep", o.app.sweep, tilelab::tr("apphelp.sweep"));
    cli.add_option("--exercise-dir", o.app.exercise_dir,
                   tilelab::tr("apphelp.exercise_dir"));
    cli.add_option("--exercise-text", o.app.exercise_text,
                   tilelab::tr("apphelp.exercise_text"));
    cli.add_option("--width", o.width, tilelab::tr("apphelp.width"))->check(tilelab::whole_number(320, 8192));
    cli.add_option("--height", o.height, tilelab::tr("apphelp.height"))->check(tilelab::whole_number(240, 8192));
    cli.add_option("--screenshot", o.screenshot, tilelab::tr("apphelp.screenshot"));
    cli.add_flag("--walk", o.walk, tilelab::tr("apphelp.walk"));
    cli.add_flag("--check-layout", o.check_layout, tilelab::tr("apphelp.check_layout"));
    cli.add_option("--monkey", o.monkey, tilelab::tr("apphelp.monkey"))->check(tilelab::whole_number(1, 1000000));
    cli.add_option("--monkey-seed", o.monkey_seed, tilelab::tr("apphelp.monkey_seed"));
    cli.add_option("--drag", o.drag, tilelab::tr("apphelp.drag"));
    cli.add_flag("--run-measured", o.run_measured,
                 tilelab::tr("apphelp.run_measured"));
    cli.add_option("--drag-values", o.drag_values,
                   tilelab::tr("apphelp.drag_values"))
        ->check(CLI::NonNegativeNumber);
    cli.add_option("--timeout", o.timeout_s, tilelab::tr("apphelp.timeout"))
        ->check(CLI::Range(0.001, 86400.0));
    cli.add_option("--gl-device", gl_device,
                   tilelab::tr("apphelp.gl_device"))
        ->check(CLI::IsMember({"auto", "gpu", "software"}));
    cli.add_flag("--log-latency", o.app.log_latency, tilelab::tr("apphelp.log_latency"));
    cli.add_flag("--presenter", o.app.presenter, tilelab::tr("apphelp.presenter"));
    cli.add_option("--text-size", o.app.text_size, tilelab::tr("apphelp.text_size"))->check(CLI::Range(0.5, 3.0));
    cli.add_flag("--model", model, tilelab::tr("apphelp.model"));
    std::string gpu_host, gpu_command;
    int connect_timeout_s = 15;
    auto* host_flag = cli.add_option("--gpu-host", gpu_host,
                                     tilelab::tr("apphelp.gpu_host"));
    cli.add_option("--gpu-command", gpu_command,
                   tilelab::tr("apphelp.gpu_command"))
        ->excludes(host_flag);
    cli.add_option("--connect-timeout", connect_timeout_s, tilelab::tr("apphelp.connect_timeout"))
        ->check(tilelab::whole_number(1, 600));
    cli.add_option("--lang", o.app.lang, tilelab::tr("apphelp.lang"))
        ->check(CLI::IsMember({"en", "zh"}));
    if (const int rc = parse_flags(cli, argc, argv); rc >= 0) return rc;

    o.engine.force_model_mode = model;
    o.engine.gpu.host = gpu_host;
    o.engine.gpu.command = gpu_command;
    o.engine.gpu.connect_timeout_s = connect_timeout_s;
    if (const std::string problem = o.engine.gpu.problem(); !problem.empty()) {
        std::fprintf(stderr, "tilelab: %s\n", problem.c_str());
        return tilelab::kExitInvalidInput;
    }
    // Full runs read the hardware counters by default (Run menu): CUPTI is set up while the first
    // kernel compiles. A user who turned them off pays that once, in the background, at start.
    o.engine.prepare_hardware_counters = true;
    o.engine.prepare_stall_samples = true;
    o.gl_device = gl_device == "gpu" ? tilelab::gui::GlDevice::Gpu
                : gl_device == "software" ? tilelab::gui::GlDevice::Software
                                          : tilelab::gui::GlDevice::Auto;
    if (!headless &&
        (!o.screenshot.empty() || o.walk || o.monkey > 0 || !o.drag.empty() || o.run_measured ||
         o.gl_device != tilelab::gui::GlDevice::Auto)) {
        std::fprintf(stderr, "%s\n", tilelab::tr("app.needs_headless").c_str());
        return tilelab::kExitInvalidInput;
    }
    if (headless) {
        // Headless runs are scripted: they neither read nor change the user's settings.
        o.app.persist = false;
        std::signal(SIGINT, SIG_DFL);   // nothing of the user's to save: a signal ends it at once
        std::signal(SIGTERM, SIG_DFL);
        return tilelab::gui::RunHeadless(o);
    }
    // The window remembers where the GPU is (the GPU menu); a flag given now is saved there.
    const std::string settings = tilelab::gui::SettingsPath();
    if (!o.engine.gpu.remote() && !settings.empty()) {
        std::string notice;
        const int timeout = o.engine.gpu.connect_timeout_s;
        o.engine.gpu = tilelab::gui::LoadGpuSetting(settings, notice);
        o.engine.gpu.connect_timeout_s = timeout;
        if (!notice.empty()) std::fprintf(stderr, "tilelab: %s\n", notice.c_str());
    } else if (o.engine.gpu.remote() && !settings.empty()) {
        std::string error;
        if (!tilelab::gui::SaveGpuSetting(settings, o.engine.gpu, error)) std::fprintf(stderr, "tilelab: %s\n", error.c_str());
    }
    return run_windowed(o.app, o.engine, o.width, o.height);
}
