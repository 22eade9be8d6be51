// The Compare tab's autotuner without a window (gui/tune_view.h): a ranking cached for this GPU,
// variant, size and settings shows at once on entering them, and only for exactly those; the search
// the engine thread ran for the key on screen replaces it once; a clicked row sets every parameter
// of the variant as the parameter panel would, and pruned or failed rows cannot be applied.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "engine_thread.h"
#include "tune_view.h"
#include "tilelab/i18n.h"
#include "tilelab/target.h"

using namespace tilelab;
using namespace tilelab::gui;
namespace fs = std::filesystem;

namespace {

const Variant& smem_tiled() {
    const Variant* v = find_variant("matmul.smem_tiled");
    if (v == nullptr) throw std::runtime_error("no variant matmul.smem_tiled");
    return *v;
}

Problem square(int n) {
    Problem p;
    std::string error;
    if (!parse_problem(std::to_string(n), p, error)) throw std::runtime_error(error);
    return p;
}

TuneReport key_at(int n, double budget_s) {
    return tune_key(*find_target("h100"), false, smem_tiled(), TabTuneConfig(smem_tiled(), {}, square(n), budget_s));
}

// A ranking as a search would leave it: two measured rows, a pruned one.
TuneReport ranking(const TuneReport& key) {
    TuneReport r = key;
    r.gpu = true;
    r.measured_at = "2026-11-23T19:40:00Z";
    TuneCandidate fast, slow, pruned;
    fast.params = {{"TILE", 32}, {"PAD", 1}};
    fast.measured = fast.valid = true;
    fast.median_ms = 1.5;
    slow.params = {{"TILE", 8}, {"PAD", 0}};
    slow.measured = slow.valid = true;
    slow.median_ms = 4.0;
    pruned.params = {{"TILE", 4}, {"PAD", 0}};
    pruned.pruned = "spills 8 bytes";
    r.candidates = {fast, slow, pruned};
    return r;
}

struct ScratchDir {
    fs::path path = fs::temp_directory_path() / ("tilelab_tune_view_" + std::to_string(getpid()));
    ScratchDir() { fs::remove_all(path); }
    ~ScratchDir() { fs::remove_all(path); }
};

}  // namespace

TEST(TuneView, TheTabSearchesWhatTheCliSearchesWithoutFlags) {
    const TuneConfig cfg = TabTuneConfig(smem_tiled(), {{"TILE", 8}, {"PAD", 1}}, square(1024), kDefaultTuneBudget);
    EXPECT_TRUE(cfg.searched.empty());   // every parameter
    EXPECT_TRUE(cfg.fixed.empty());      // both searched: the learner's values do not matter
    EXPECT_EQ(cfg.seed, RunOptions{}.seed);   // tilelab-cli's --seed default
    EXPECT_EQ(cfg.shortlist, 24);
    EXPECT_EQ(cfg.sample, 8);
    EXPECT_EQ(cfg.budget_s, 60);
}

// What is computed stays what the learner looks at: a causal attention is tuned causal, lesson 20
// at the learner's STEPS; at the defaults nothing is fixed (the CLI's key without --set).
TEST(TuneView, TheTabKeepsWhatIsComputedAtTheLearnersValues) {
    const Variant& attention = *find_variant("attention.flash2_mma");
    ParamValues current = with_defaults(attention.params, {});
    EXPECT_TRUE(TabTuneConfig(attention, current, square(1024), kDefaultTuneBudget).fixed.empty());
    current["CAUSAL"] = 1;
    current["BR"] = current["BR"] == 64 ? 128 : 64;   // searched: not fixed
    EXPECT_EQ(TabTuneConfig(attention, current, square(1024), kDefaultTuneBudget).fixed, (ParamValues{{"CAUSAL", 1}}));
    const Variant& temporal = *find_variant("stencil.temporal");
    EXPECT_EQ(TabTuneConfig(temporal, {{"STEPS", 16}, {"TSTEPS", 2}}, square(256), kDefaultTuneBudget).fixed,
              (ParamValues{{"STEPS", 16}}));
    const Variant& wgmma = *find_variant("matmul.tma_wgmma");
    ParamValues fp16 = with_defaults(wgmma.params, {});
    const int other = fp16["PREC"] == int(ElementType::f16) ? int(ElementType::bf16) : int(ElementType::f16);
    fp16["PREC"] = other;
    EXPECT_EQ(TabTuneConfig(wgmma, fp16, square(4096), kDefaultTuneBudget).fixed, (ParamValues{{"PREC", other}}));
}

TEST(TuneView, ACachedRankingShowsOnEntryForItsKeyOnly) {
    ScratchDir dir;
    const TuneReport key = key_at(1024, 60);
    std::string error;
    ASSERT_TRUE(save_tune_cache(tune_cache_path(dir.path.string(), key), ranking(key), error)) << error;

    const CachedTune hit = LookUpTuneCache(dir.path.string(), key);
    ASSERT_NE(hit.report, nullptr);
    EXPECT_EQ(hit.report->candidates.size(), 3u);
    EXPECT_EQ(hit.report->measured_at, "2026-11-23T19:40:00Z");
    EXPECT_TRUE(hit.note.empty());
    // Another size or another budget is another search: nothing shows, nothing is said.
    for (const TuneReport& other : {key_at(2048, 60), key_at(1024, 30)}) {
        const CachedTune miss = LookUpTuneCache(dir.path.string(), other);
        EXPECT_EQ(miss.report, nullptr);
        EXPECT_TRUE(miss.note.empty());
    }
    EXPECT_EQ(LookUpTuneCache("", key).report, nullptr);   // no cache folder at all
}

TEST(TuneView, ACorruptCacheFileIsNotShownAndSaysWhy) {
    ScratchDir dir;
    const TuneReport key = key_at(1024, 60);
    const fs::path file = tune_cache_path(dir.path.string(), key);
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "{ not json";
    const CachedTune refused = LookUpTuneCache(dir.path.string(), key);
    EXPECT_EQ(refused.report, nullptr);
    EXPECT_NE(refused.note.find("JSON"), std::string::npos) << refused.note;
}

TEST(TuneView, EnteringAKeyLooksItUpOnceAndTheFinishedSearchReplacesTheCachedOne) {
    const TuneReport key = key_at(1024, 60);
    const auto cached = std::make_shared<const TuneReport>(ranking(key));
    int look_ups = 0;
    auto look_up = [&] {
        ++look_ups;
        return CachedTune{cached, ""};
    };
    TuneViewState view;
    view.budget_s = 90;
    TuneStatus idle;
    UpdateTuneView(view, "A", idle, look_up);
    EXPECT_EQ(look_ups, 1);
    EXPECT_EQ(view.report, cached);
    EXPECT_TRUE(view.cached);
    UpdateTuneView(view, "A", idle, look_up);   // the next frame: no file read
    EXPECT_EQ(look_ups, 1);
    EXPECT_EQ(view.budget_s, 90);

    // A search of this key, running: nothing changes; of another key, ended: not ours to show.
    TuneStatus running;
    running.generation = 1;
    running.running = true;
    running.key = "A";
    UpdateTuneView(view, "A", running, look_up);
    EXPECT_EQ(view.report, cached);
    TuneStatus other = running;
    other.running = false;
    other.key = "B";
    other.report = std::make_shared<const TuneReport>(ranking(key));
    UpdateTuneView(view, "A", other, look_up);
    EXPECT_EQ(view.report, cached);

    // Ended for this key: shown as searched here, once.
    TuneStatus done = other;
    done.key = "A";
    view.applied = 0;
    UpdateTuneView(view, "A", done, look_up);
    EXPECT_EQ(view.report, done.report);
    EXPECT_FALSE(view.cached);
    EXPECT_EQ(view.applied, -1);
    EXPECT_EQ(view.taken, 1u);

    // Another key forgets it (its own cache decides), the budget stays.
    UpdateTuneView(view, "B", idle, [] { return CachedTune{}; });
    EXPECT_EQ(view.report, nullptr);
    EXPECT_EQ(view.key, "B");
    EXPECT_EQ(view.budget_s, 90);
}

TEST(TuneView, AFailedSearchSaysWhyAndKeepsWhatWasShown) {
    TuneViewState view;
    UpdateTuneView(view, "A", TuneStatus{}, [] { return CachedTune{}; });
    TuneStatus failed;
    failed.generation = 3;
    failed.key = "A";
    failed.error = "The search stopped with an error: boom.";
    UpdateTuneView(view, "A", failed, [] { return CachedTune{}; });
    EXPECT_EQ(view.note, failed.error);
    EXPECT_EQ(view.report, nullptr);
    EXPECT_EQ(view.taken, 3u);
}

TEST(TuneView, ARowSetsEveryParameterOfTheVariant) {
    const Variant& v = smem_tiled();
    TuneCandidate row;
    row.params = {{"TILE", 8}, {"PAD", 1}, {"GONE", 3}};   // GONE: a parameter the variant no longer has
    const ParamValues current = {{"TILE", 16}, {"PAD", 0}};
    const ParamValues set = TunedParams(v, row, current);
    EXPECT_EQ(set, (ParamValues{{"TILE", 8}, {"PAD", 1}}));
    // A row of an older declaration without PAD: the current value stays, else the default.
    row.params = {{"TILE", 32}};
    EXPECT_EQ(TunedParams(v, row, current), (ParamValues{{"TILE", 32}, {"PAD", 0}}));
    row.params = {{"PAD", 1}};
    EXPECT_EQ(TunedParams(v, row, {}), (ParamValues{{"TILE", v.params.at(0).def}, {"PAD", 1}}));
}

TEST(TuneView, PrunedAndFailedRowsCannotBeApplied) {
    const TuneReport r = ranking(key_at(1024, 60));
    EXPECT_TRUE(CanApplyTuneRow(r.candidates[0]));
    EXPECT_FALSE(CanApplyTuneRow(r.candidates[2]));
    EXPECT_EQ(TuneRowNote(r.candidates[2]), trf("tune.pruned", "spills 8 bytes"));
    TuneCandidate failed = r.candidates[1];
    failed.valid = false;
    failed.error = "validation failed: 12 of 1048576 elements differ";
    EXPECT_FALSE(CanApplyTuneRow(failed));
    EXPECT_EQ(TuneRowNote(failed), failed.error);
}

TEST(TuneView, RowsReadInTheParameterPanelsOrderAndTimesInUtc) {
    EXPECT_EQ(TuneParamsText(smem_tiled(), {{"PAD", 1}, {"TILE", 32}}), "TILE=32 PAD=1");
    EXPECT_EQ(TuneTimeText("2026-11-23T19:40:00Z"), "2026-11-23 19:40 UTC");
    EXPECT_EQ(TuneTimeText("yesterday"), "yesterday");
}

// The engine thread (model mode, a fresh compile cache so every candidate really compiles): one
// search at a time, a second Start is refused while it runs, and Cancel ends it within one point,
// with its partial ranking and without touching the cache.
TEST(TuneEngineThread, OneSearchAtATimeAndCancelStopsItWithinAPoint) {
    ScratchDir dir;
    EngineConfig cfg;
    cfg.force_model_mode = true;
    cfg.cache_dir = (dir.path / "compile").string();
    EngineThread thread(cfg);
    const auto wait_for = [](auto done, double seconds) {
        const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
        while (!done() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return done();
    };
    ASSERT_TRUE(wait_for([&] { return thread.ready(); }, 120));

    const Variant* v = find_variant("matmul.warp_tiled");
    ASSERT_NE(v, nullptr);
    const TuneConfig search = TabTuneConfig(*v, {}, square(1024), kDefaultTuneBudget);
    ASSERT_TRUE(thread.submit_tune(v->id, search, "warp", (dir.path / "tune_root").string()));
    EXPECT_FALSE(thread.submit_tune(v->id, search, "again", ""));   // the button is disabled meanwhile
    EXPECT_EQ(thread.tune_status().key, "warp");

    // Past its first compiled point, then cancelled.
    ASSERT_TRUE(wait_for([&] { const TuneStatus s = thread.tune_status(); return !s.running || s.done >= 1; }, 300));
    ASSERT_TRUE(thread.tune_status().running) << "the search ended before it could be cancelled";
    const int planned = thread.tune_status().total;
    thread.cancel_tune();
    const auto cancelled_at = Clock::now();
    EXPECT_TRUE(thread.tune_status().cancelling || !thread.tune_status().running);
    ASSERT_TRUE(wait_for([&] { return !thread.tune_status().running; }, 120));
    const double took_s = std::chrono::duration<double>(Clock::now() - cancelled_at).count();
    EXPECT_LT(took_s, 30) << "Cancel waits for at most the point in hand";
    std::fprintf(stderr, "cancelled after %d of %d points, ended %.2f s after Cancel\n", thread.tune_status().done, planned, took_s);

    const TuneStatus st = thread.tune_status();
    ASSERT_NE(st.report, nullptr) << st.error;
    EXPECT_TRUE(st.report->cancelled);
    EXPECT_FALSE(st.report->gpu);
    EXPECT_GE(int(st.report->candidates.size()), planned);
    EXPECT_FALSE(fs::exists(dir.path / "tune_root" / "tune"));   // model mode caches nothing
    // Now a new search may start.
    EXPECT_TRUE(thread.submit_tune(v->id, search, "warp", ""));
    thread.cancel_tune();
}
