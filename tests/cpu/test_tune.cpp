// The autotuner in model mode (tilelab/tune.h): its space is exactly the valid points, its plan is
// the same for the same seed, spilling and impossible points are pruned with a reason, its cache
// round-trips and refuses a corrupt file, and `tilelab-cli tune` lists candidates and exits 3
// without a GPU, 2 on bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spawned_program.h"
#include "tilelab/engine.h"
#include "tilelab/i18n.h"
#include "tilelab/tune.h"
#include "tilelab/variant.h"
#include "model_engine.h"

namespace {

using namespace tilelab;
namespace fs = std::filesystem;

using test::model_engine;

const Variant& variant(const std::string& id) {
    const Variant* v = find_variant(id);
    if (v == nullptr) throw std::runtime_error("no variant " + id);
    return *v;
}

// Every combination by plain recursion over the declaration, kept when the engine accepts it.
std::vector<ParamValues> brute_force_valid(const Variant& v, const Problem& problem) {
    std::vector<ParamValues> valid;
    ParamValues point;
    std::function<void(size_t)> walk = [&](size_t i) {
        if (i == v.params.size()) {
            if (model_engine().invalid_reason(RunRequest{v.id, point, problem}).empty()) valid.push_back(point);
            return;
        }
        for (int value : v.params[i].values()) {
            point[v.params[i].name] = value;
            walk(i + 1);
        }
    };
    walk(0);
    return valid;
}

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("tilelab_tune_test_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

class TuneSpace : public ::testing::TestWithParam<const char*> {};

TEST_P(TuneSpace, EnumerationEqualsTheBruteForceValidPoints) {
    const Variant& v = variant(GetParam());
    TuneConfig cfg;
    cfg.problem = Problem{{512, 512, 512}};
    std::vector<ParamValues> walked;
    const uint64_t combinations = for_each_valid_point(model_engine(), v, cfg, [&](const ParamValues& p) {
        walked.push_back(p);
        return true;
    });
    uint64_t product = 1;
    for (const auto& p : v.params) product *= p.values().size();
    EXPECT_EQ(combinations, product);
    const auto expected = brute_force_valid(v, cfg.problem);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(walked, expected);   // the same points in the same (odometer) order
}

INSTANTIATE_TEST_SUITE_P(SmallMatmuls, TuneSpace, ::testing::Values("matmul.smem_tiled", "matmul.register_1d"));

TEST(Tune, ASearchedSubsetKeepsTheOtherParametersFixed) {
    const Variant& v = variant("matmul.register_1d");
    const TuneConfig cfg{.searched = {"U"}, .fixed = {{"T", 64}}, .problem = Problem{{512, 512, 512}}};
    const uint64_t combinations = for_each_valid_point(model_engine(), v, cfg, [&](const ParamValues& p) {
        EXPECT_EQ(p.at("T"), 64);
        EXPECT_EQ(p.at("S"), v.params[2].def);
        return true;
    });
    EXPECT_EQ(combinations, v.params[1].values().size());
}

// A space too large to walk (lesson 20: 16.8 million combinations without STEPS, billions with it)
// is sampled at kMaxWalkedPoints distinct points, the same ones every time; parameters that set
// what is computed (STEPS) stay at their value unless named.
TEST(Tune, ALargeSpaceIsSampledTheSameWayEveryTimeAndKeepsTheProblemFixed) {
    const Variant& v = variant("stencil.temporal");
    TuneConfig cfg;
    cfg.problem = Problem{{64, 64, 64}};
    EXPECT_EQ(tune_space_size(v, cfg), 8ull * 32 * 8 * 2 * 1024 * 4) << "every parameter but STEPS";
    const auto walk = [&](uint64_t seed) {
        cfg.seed = seed;
        std::vector<ParamValues> points;
        const uint64_t walked = for_each_valid_point(model_engine(), v, cfg, [&](const ParamValues& p) {
            points.push_back(p);
            return true;
        });
        EXPECT_EQ(walked, kMaxWalkedPoints);
        return points;
    };
    const std::vector<ParamValues> a = walk(1), b = walk(2);
    ASSERT_GT(a.size(), 1000u);
    EXPECT_EQ(a, b) << "the seed moves step 2's sample, not the points the model sees";
    for (const ParamValues& p : a) ASSERT_EQ(p.at("STEPS"), 64);
    std::set<ParamValues> distinct(a.begin(), a.end());
    EXPECT_EQ(distinct.size(), a.size());

    const TuneReport r = tune_key(model_engine(), v, cfg);
    EXPECT_EQ(std::count(r.searched.begin(), r.searched.end(), "STEPS"), 0);
    cfg.searched = {"STEPS", "TSTEPS"};
    EXPECT_EQ(tune_space_size(v, cfg), 256u * 8);
    EXPECT_EQ(tune_key(model_engine(), v, cfg).searched, (std::vector<std::string>{"TSTEPS", "STEPS"}));
    const TuneReport attention = tune_key(model_engine(), variant("attention.flash2_mma"), TuneConfig{});
    EXPECT_EQ(std::count(attention.searched.begin(), attention.searched.end(), "CAUSAL"), 0);
    // Nor an element type: every variant with PREC keeps it unless it is named.
    int with_prec = 0;
    for (const Variant& each : all_variants()) {
        const auto prec = std::find_if(each.params.begin(), each.params.end(), [](const ParamSpec& p) { return p.name == "PREC"; });
        if (prec == each.params.end()) continue;
        SCOPED_TRACE(each.id);
        ++with_prec;
        const TuneReport k = tune_key(model_engine(), each, TuneConfig{});
        EXPECT_FALSE(k.searched.empty());
        EXPECT_EQ(std::count(k.searched.begin(), k.searched.end(), "PREC"), 0);
        TuneConfig named;
        named.searched = {"PREC"};
        EXPECT_EQ(tune_key(model_engine(), each, named).searched, (std::vector<std::string>{"PREC"}));
    }
    EXPECT_GE(with_prec, 5);
}

// The space line says when the model saw a sample of the space, in both languages.
TEST(Tune, TheSpaceLineSaysWhenTheSpaceWasSampled) {
    struct Restore {
        Language saved = language();
        ~Restore() { set_language(saved); }
    } restore;
    TuneReport r;
    r.combinations = r.walked = 16;
    r.valid = 12;
    set_language(Language::English);
    EXPECT_EQ(tune_space_text(r), "space: 16 combinations, 12 valid; 0 candidates, 0 measured");
    r.combinations = 16777216, r.walked = 200000, r.valid = 91075;
    EXPECT_EQ(tune_space_text(r), "space: 16777216 combinations, 200000 of them drawn at random, 91075 valid; 0 candidates, 0 measured");
    set_language(Language::Chinese);
    EXPECT_NE(tune_space_text(r).find("随机抽取其中 200000 种"), std::string::npos);
}

TEST(Tune, ThePlanIsTheSameForTheSameSeedAndTheSampleMovesWithIt) {
    const Variant& v = variant("matmul.warp_tiled");
    TuneConfig cfg;
    cfg.problem = Problem{{4096, 4096, 4096}};
    cfg.shortlist = 10;
    cfg.sample = 6;
    cfg.seed = 7;
    const TuneReport a = plan_tune(model_engine(), v, cfg), b = plan_tune(model_engine(), v, cfg);
    // 10 by the model, 6 sampled, then the lesson's defaults and steps unless they are among those.
    ASSERT_GE(a.candidates.size(), 16u);
    for (size_t i = 16; i < a.candidates.size(); ++i) {
        EXPECT_TRUE(a.candidates[i].origin == "default" || a.candidates[i].origin == "step") << a.candidates[i].origin;
        if (a.candidates[i].origin == "default") {
            EXPECT_EQ(i, 16u);
            EXPECT_EQ(a.candidates[i].params, with_defaults(v.params, {}));
        }
    }
    EXPECT_GT(a.valid, 10000u) << "lesson 06's space is large: the point of the shortlist";
    for (size_t i = 0; i < a.candidates.size(); ++i) EXPECT_EQ(a.candidates[i].params, b.candidates[i].params) << i;
    for (size_t i = 1; i < 10; ++i) EXPECT_LE(a.candidates[i - 1].score_ms, a.candidates[i].score_ms);
    cfg.seed = 8;
    const TuneReport c = plan_tune(model_engine(), v, cfg);
    for (size_t i = 0; i < 10; ++i) EXPECT_EQ(a.candidates[i].params, c.candidates[i].params) << "model's part";
    bool sample_moved = false;
    for (size_t i = 10; i < 16; ++i) sample_moved |= a.candidates[i].params != c.candidates[i].params;
    EXPECT_TRUE(sample_moved);
}

// Every step of the variant's lessons is a candidate, with the searched parameters' values the step
// sets and the rest fixed: lesson 20's two-column step (CX=2 TSTEPS=3 TY=4 RY=6, the fastest
// measured) is one the roofline does not shortlist at 512³, and STEPS, which a step sets to 64 but
// the tuner does not search, stays at the value asked for.
TEST(Tune, TheLessonsStepsAreCandidatesWithTheParametersNotSearchedFixed) {
    const Variant& v = variant("stencil.temporal");
    TuneConfig cfg;
    cfg.problem = Problem{{512, 512, 512}};
    cfg.fixed = {{"STEPS", 16}};
    const TuneReport r = plan_tune(model_engine(), v, cfg);
    const auto two_columns = std::find_if(r.candidates.begin(), r.candidates.end(), [](const TuneCandidate& c) {
        return c.params.at("CX") == 2 && c.params.at("TSTEPS") == 3 && c.params.at("TY") == 4 && c.params.at("RY") == 6 &&
               c.params.at("ZC") == 64;
    });
    ASSERT_NE(two_columns, r.candidates.end());
    EXPECT_EQ(two_columns->origin, "step");
    size_t steps = 0;
    for (const TuneCandidate& c : r.candidates) {
        EXPECT_EQ(c.params.at("STEPS"), 16) << c.origin;
        steps += c.origin == "step";
    }
    EXPECT_GE(steps, 3u);
    // Searching only TSTEPS: the steps differ in it alone, the other parameters at their defaults.
    cfg.searched = {"TSTEPS"};
    for (const TuneCandidate& c : plan_tune(model_engine(), v, cfg).candidates) {
        EXPECT_EQ(c.params.at("CX"), with_defaults(v.params, {}).at("CX")) << c.origin;
        EXPECT_EQ(c.params.at("STEPS"), 16) << c.origin;
    }
}

TEST(Tune, PruneSaysWhySpillsNoBlockAndTooMuchSharedMemory) {
    TuneCandidate c;
    c.blocks_per_sm = 2;
    c.smem_bytes = 1000;
    EXPECT_EQ(prune_reason(c, 48 * 1024), "");
    c.spill_bytes = 64;
    EXPECT_NE(prune_reason(c, 48 * 1024).find("spills 64 bytes"), std::string::npos);
    c.spill_bytes = 0;
    c.blocks_per_sm = 0;
    EXPECT_NE(prune_reason(c, 48 * 1024).find("occupancy 0"), std::string::npos);
    c.blocks_per_sm = 1;
    c.smem_bytes = 100000;
    EXPECT_NE(prune_reason(c, 48 * 1024).find("shared memory"), std::string::npos);
}

TEST(Tune, ModelModeCompilesEveryCandidateAndDropsTheSpillingOnes) {
    // The 2D kernel capped at 32 registers: the thread tiles with many accumulators must spill.
    const Variant& v = variant("matmul.register_pressure");
    const TuneConfig cfg{.searched = {"TM"}, .fixed = {{"MAXREG", 32}}, .problem = Problem{{256, 256, 256}}};
    const TuneReport r = run_tune(model_engine(), v, cfg);
    EXPECT_FALSE(r.gpu);
    EXPECT_EQ(r.tried, 0);
    ASSERT_FALSE(r.candidates.empty());
    int spilling = 0;
    for (const auto& c : r.candidates) {
        EXPECT_TRUE(c.analysed);
        EXPECT_FALSE(c.measured);
        if (c.spill_bytes > 0) {
            ++spilling;
            EXPECT_NE(c.pruned.find("spills"), std::string::npos) << c.pruned;
        }
    }
    EXPECT_GT(spilling, 0) << "a 32-register cap on 8×8 accumulators spills";
    // Ranked: the pruned come last.
    EXPECT_TRUE(std::is_partitioned(r.candidates.begin(), r.candidates.end(),
                                    [](const TuneCandidate& c) { return c.pruned.empty(); }));
}

TuneReport sample_report() {
    TuneReport r;
    r.variant = "matmul.smem_tiled";
    r.target = "NVIDIA H100 80GB HBM3";
    r.arch = "sm_90";
    r.problem = Problem{{4096, 4096, 4096}};
    r.searched = {"TILE", "PAD"};
    r.seed = 3;
    r.combinations = 16;
    r.valid = 12;
    r.gpu = true;
    r.tried = 2;
    r.measured_at = "2026-11-23T19:00:00Z";
    r.reference_name = "cuBLAS SGEMM";
    r.reference_ms = 2.68;
    TuneCandidate c;
    c.params = {{"TILE", 32}, {"PAD", 1}};
    c.origin = "model";
    c.score_ms = 12.5;
    c.analysed = c.measured = c.valid = true;
    c.phase = "full";
    c.registers = 38;
    c.median_ms = 15.2;
    c.pct_of_reference = 17.6;
    r.candidates = {c};
    c.params = {{"TILE", 8}, {"PAD", 0}};
    c.pruned = "spills 8 bytes to local memory";
    c.measured = c.valid = false;
    r.candidates.push_back(c);
    return r;
}

// The full runs are of the best few by the quick protocol; a full median that reads above a quick
// one (lesson 20 on an H200: 12.87 full against 12.60 quick) keeps its place above it.
TEST(Tune, TheRankingPutsFullRunsFirstThenQuickThenUnmeasuredFailedAndPruned) {
    const auto point = [](const char* phase, double median, double score) {
        TuneCandidate c;
        c.analysed = true;
        c.measured = c.valid = phase[0] != '\0';
        c.phase = phase;
        c.median_ms = median;
        c.score_ms = score;
        return c;
    };
    TuneCandidate failed = point("quick", 0, 1), pruned = point("", 0, 0.5);
    failed.valid = false;
    failed.error = "validation failed";
    pruned.pruned = "spills 8 bytes to local memory";
    std::vector<TuneCandidate> cs = {pruned, point("quick", 12.60, 5), point("", 0, 3), failed, point("full", 12.87, 4),
                                     point("quick", 12.65, 6), point("full", 11.49, 7), point("", 0, 2)};
    rank_candidates(cs);
    const std::vector<std::pair<std::string, double>> expected = {
        {"full", 11.49}, {"full", 12.87}, {"quick", 12.60}, {"quick", 12.65}};
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(cs[i].phase, expected[i].first) << i;
        EXPECT_EQ(cs[i].median_ms, expected[i].second) << i;
    }
    EXPECT_EQ(cs[4].score_ms, 2);   // unmeasured, by the model's score
    EXPECT_EQ(cs[5].score_ms, 3);
    EXPECT_EQ(cs[6].error, "validation failed");
    EXPECT_FALSE(cs[7].pruned.empty());
}

TEST(Tune, TheCacheRoundTripsAndRefusesCorruptOrForeignFiles) {
    const fs::path dir = scratch("cache");
    const TuneReport r = sample_report();
    const std::string path = tune_cache_path(dir.string(), r);
    EXPECT_EQ(path.rfind(dir.string() + "/tune/", 0), 0u) << path;
    TuneReport back;
    std::string error;
    EXPECT_EQ(load_tune_cache(path, r, back, error), CacheLoad::missing);
    ASSERT_TRUE(save_tune_cache(path, r, error)) << error;
    ASSERT_EQ(load_tune_cache(path, r, back, error), CacheLoad::hit) << error;
    EXPECT_EQ(tune_report_to_json(back), tune_report_to_json(r));
    EXPECT_EQ(back.candidates[1].pruned, r.candidates[1].pruned);

    TuneReport other = r;
    other.target = "NVIDIA H200";
    EXPECT_NE(tune_cache_path(dir.string(), other), path);
    EXPECT_EQ(load_tune_cache(path, other, back, error), CacheLoad::refused);
    EXPECT_NE(error.find("another GPU"), std::string::npos) << error;

    // A ranking of the same key made by an earlier search (no "search" in its key: version 1).
    {
        std::string saved = tune_report_to_json(r);
        const std::string mark = "\"search\": 2,";
        const size_t at = saved.find(mark);
        ASSERT_NE(at, std::string::npos) << saved.substr(0, 200);
        saved.erase(at, mark.size());
        std::ofstream(path, std::ios::binary | std::ios::trunc) << saved;
        EXPECT_EQ(load_tune_cache(path, r, back, error), CacheLoad::refused);
        EXPECT_NE(error.find("another version of the search"), std::string::npos) << error;
    }

    for (const std::string& corrupt : {std::string("{\"format\": \"tilelab-tune/1\", \"key\": "), std::string("[1, 2]"),
                                       std::string("{\"format\": \"tilelab-tune/1\", \"key\": {}}"), std::string("\xff\xfe")}) {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << corrupt;
        error.clear();
        EXPECT_EQ(load_tune_cache(path, r, back, error), CacheLoad::refused) << corrupt;
        EXPECT_NE(error.find("refused"), std::string::npos) << error;
        EXPECT_NE(error.find(path), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
    fs::remove_all(dir);
}

// ---- the CLI in model mode ------------------------------------------------------------------

test::Spawned tune_cli(const std::vector<std::string>& args, const std::string& name) {
    const fs::path dir = scratch(name);
    std::vector<std::string> all = {"tune"};
    all.insert(all.end(), args.begin(), args.end());
    test::Spawned r = test::spawn(test::cli_path(), all, {"TILELAB_MODEL_MODE=1", "LANG=C", "LC_ALL=C"}, 300, dir.string());
    fs::remove_all(dir);
    return r;
}

void expect_usage_error(const test::Spawned& r) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("tilelab-cli: ", 0), 0u) << r.err;
}

TEST(CliTune, ModelModeListsThePrunedCandidatesAndExits3) {
    const auto r = tune_cli({"matmul.smem_tiled", "--size", "256", "--candidates", "4", "--sample", "2"}, "model");
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("no GPU"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.out.find("space: 16 combinations"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("strategy:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("TILE="), std::string::npos) << r.out;
}

TEST(CliTune, JsonInModelModeCarriesTheSpaceAndTheCandidates) {
    const auto r = tune_cli({"matmul.smem_tiled", "--size", "256", "--candidates", "4", "--sample", "2", "--json"}, "json");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["combinations"], 16);
    const auto& cs = j["candidates"];
    EXPECT_EQ(std::count_if(cs.begin(), cs.end(), [](const auto& c) { return c["origin"] == "model"; }), 4);
    EXPECT_EQ(std::count_if(cs.begin(), cs.end(), [](const auto& c) { return c["origin"] == "sample"; }), 2);
    EXPECT_LE(std::count_if(cs.begin(), cs.end(), [](const auto& c) { return c["origin"] == "default"; }), 1);
    const std::set<std::string> origins = {"model", "sample", "default", "step"};
    for (const auto& c : cs) EXPECT_TRUE(origins.count(c["origin"].get<std::string>())) << c["origin"];
    EXPECT_EQ(j["gpu"], false);
    EXPECT_EQ(j["cached"], false);
}

TEST(CliTune, BadInputExits2WithOneSentence) {
    expect_usage_error(tune_cli({"matmul.no_such"}, "unknown_variant"));
    expect_usage_error(tune_cli({"matmul.smem_tiled", "--budget", "0"}, "budget0"));
    expect_usage_error(tune_cli({"matmul.smem_tiled", "--budget=-5"}, "budget_negative"));
    expect_usage_error(tune_cli({"matmul.smem_tiled", "--budget", "soon"}, "budget_text"));
    expect_usage_error(tune_cli({"matmul.smem_tiled", "--param", "NOPE"}, "unknown_param"));
    expect_usage_error(tune_cli({"matmul.smem_tiled", "--param", "TILE", "--set", "TILE=16"}, "param_and_set"));
}

}  // namespace
