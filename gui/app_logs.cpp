// The app's logs for developers and scripts (--log-latency, frame statistics): where each
// request's time went, how long frames took, what compile-ahead found. Measurements, not UI text.
#include <algorithm>
#include <cstdio>
#include "app.h"

namespace tilelab::gui {

// ui-strings: off (the latency and frame logs below are measurements for developers and scripts)
void App::AfterFrame(double frame_ms) {
    last_frame_ms_ = frame_ms;
    const auto now = Clock::now();
    ++stats_.frames;
    // A frame that rebuilt the font atlas (startup, Ctrl +/-) is counted apart: it is not what a
    // slider drag costs.
    if (fonts_rebuilt_) ++stats_.font_frames;
    else stats_.max_ms = std::max(stats_.max_ms, frame_ms);
    if (state_.updating && !fonts_rebuilt_) {
        ++stats_.busy_frames;
        stats_.max_busy_ms = std::max(stats_.max_busy_ms, frame_ms);
        stats_.sum_busy_ms += frame_ms;
    }
    if (options_.log_latency) {
        if (!first_frame_logged_)
            std::fprintf(stderr, "latency: first frame drawn %.1f ms after launch\n", ms_between(options_.launched, now));
        for (const EngineUpdate& d : to_log_) {
            std::fprintf(stderr, "latency: request %llu %s: published %.1f ms, drawn %.1f ms after the %s\n",
                         static_cast<unsigned long long>(d.request_id),
                         phase_name(d.result->phase), ms_between(d.submitted, d.published),
                         ms_between(d.submitted, now), d.after_release ? "release" : "change");
            log_stages(d, now);
        }
    }
    first_frame_logged_ = true;
    fonts_rebuilt_ = false;
    to_log_.clear();
}

namespace {

// Where a build came from, for the latency log.
const char* build_source(const std::string& cache_level, bool ahead) {
    if (cache_level == "memory") return ahead ? "memory cache, compiled ahead" : "memory cache";
    if (cache_level == "in-flight") return ahead ? "waited for its compile-ahead" : "waited for the same compile";
    if (cache_level == "disk") return "disk cache";
    return "NVRTC";
}

}  // namespace

// Where a request's time went: waiting (debounce, the run before it), each engine stage, and the
// hand-over to the screen. The stages are wall times; what is left of "published" is the worker's
// own overhead (the engine lock, the second analyze() of run(), CBOR).
void App::log_stages(const EngineUpdate& d, Clock::time_point drawn_at) const {
    const StageTimes s = d.result ? d.result->stages : StageTimes{};
    const CompileResult* c = d.result ? d.result->compiled.get() : nullptr;
    std::fprintf(stderr, "latency:   request %llu stages: waited %.1f, compile %.1f",
                 static_cast<unsigned long long>(d.request_id), ms_between(d.submitted, d.started), s.compile_ms);
    if (c) std::fprintf(stderr, " (%s)", build_source(c->cache_level, c->compiled_ahead));
    if (d.result && d.result->phase != Phase::analysed && (d.result->measured || s.worker_ms > 0)) {
        std::fprintf(stderr, ", instrumented build %.1f", s.count_compile_ms);
        if (s.count_compile_ms > 0)
            std::fprintf(stderr, " (%s)", s.count_compile_cached ? (s.count_prefetch_hit ? "memory cache, compiled ahead"
                                                                                          : "memory cache")
                                                                 : "not cached");
        std::fprintf(stderr,
                     ", GPU worker %.1f (setup %.1f, validate %.1f, timing %.1f, count %.1f, stall samples %.1f, "
                     "counters %.1f, reference %.1f)",
                     s.worker_ms, s.setup_ms, s.validate_ms, s.timing_ms, s.count_ms, s.stalls_ms, s.hardware_ms,
                     s.reference_ms);
    }
    std::fprintf(stderr, ", to the screen %.1f ms\n", ms_between(d.published, drawn_at));
}

void App::PrintFrameStats(std::FILE* out) const {
    std::fprintf(out, "frames: %d drawn (%d rebuilt the fonts, not counted), slowest %.1f ms; %d while a request was "
                      "in flight, slowest %.1f ms, mean %.1f ms\n",
                 stats_.frames, stats_.font_frames, stats_.max_ms, stats_.busy_frames, stats_.max_busy_ms,
                 stats_.busy_frames ? stats_.sum_busy_ms / stats_.busy_frames : 0.0);
    PrintCompileAheadStats(out);
}

void App::PrintCompileAheadStats(std::FILE* out) const {
    const InteractiveCompileStats s = engine_thread_.compile_stats();
    const CompileAheadStats a = engine_thread_.compile_ahead_stats();
    std::fprintf(out, "compile-ahead: %llu of %llu new requests found their kernel in the memory cache (%llu compiled ahead)",
                 static_cast<unsigned long long>(s.cached), static_cast<unsigned long long>(s.asked),
                 static_cast<unsigned long long>(s.ahead));
    if (s.counted_asked > 0)
        std::fprintf(out, "; instrumented builds %llu of %llu (%llu compiled ahead)",
                     static_cast<unsigned long long>(s.counted_cached), static_cast<unsigned long long>(s.counted_asked),
                     static_cast<unsigned long long>(s.counted_ahead));
    std::fprintf(out, "; in the background: %llu compiled, %llu found compiled, %llu invalid skipped, %llu dropped by a "
                      "newer list, %zu queued\n",
                 static_cast<unsigned long long>(a.compiled), static_cast<unsigned long long>(a.already),
                 static_cast<unsigned long long>(a.invalid), static_cast<unsigned long long>(a.dropped), a.queued);
}

}  // namespace tilelab::gui
