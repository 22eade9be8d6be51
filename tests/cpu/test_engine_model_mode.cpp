// The engine in model mode (no GPU, or asked for): it says why, compiles and analyses like in
// GPU mode, measures nothing, and refuses invalid requests with one sentence. Runs everywhere.
#include <gtest/gtest.h>
#include <cstdlib>
#include "model/family_shape.h"
#include "fixed_variant.h"
#include "tilelab/engine.h"
#include "tilelab/i18n.h"
#include "tilelab/variant.h"
#include "model_engine.h"

using namespace tilelab;

namespace {

using test::model_engine;

// One sentence: not empty, one line, ends with a full stop.
void expect_one_sentence(const std::string& s) {
    EXPECT_FALSE(s.empty());
    EXPECT_EQ(s.find('\n'), std::string::npos) << s;
    if (!s.empty()) {
        EXPECT_EQ(s.back(), '.') << s;
    }
}

// A variant of our own (added to the registry, unlisted) so these tests do not depend on how
// far the lessons' variants have got: the test kernel with the matmul signature, one warp.
Variant test_variant(const std::string& id, LaunchShape shape) {
    return tilelab::testing::fixed_variant({.id = id, .family = "matmul", .title = "test kernel"},
                                           {"test/fault.cuh", "faulting_matmul<0>"}, shape);
}

const Problem kSmall{{64, 64, 64}};

void register_one_warp() {
    add_variant(test_variant("test.one_warp", {{1, 1, 1}, {32, 1, 1}, 0}));
}

}  // namespace

TEST(EngineModelMode, SaysItHasNoGpuAndWhy) {
    EXPECT_FALSE(model_engine().device().gpu);
    EXPECT_FALSE(model_engine().device().reason.empty());
}

TEST(EngineModelMode, EnvironmentVariableForcesModelMode) {
    ::setenv("TILELAB_MODEL_MODE", "1", 1);
    Engine engine;
    ::unsetenv("TILELAB_MODEL_MODE");
    EXPECT_FALSE(engine.device().gpu);
    EXPECT_NE(engine.device().reason.find("TILELAB_MODEL_MODE"), std::string::npos) << engine.device().reason;
}

// A learner who switches the language mid-session reads why there is no GPU in the new one (the
// app's banner kept the start's wording, 2026-12-05); the target chosen stays.
TEST(EngineModelMode, TheReasonIsWordedAgainInTheLanguageNowSet) {
    Engine engine(EngineConfig{"", true});
    ASSERT_NE(find_target("t4"), nullptr);
    ASSERT_TRUE(engine.set_target(*find_target("t4")));
    const std::string english = engine.device().reason;
    set_language(Language::Chinese);
    engine.reword_status();
    const std::string chinese = engine.device().reason;
    set_language(Language::English);
    EXPECT_EQ(chinese, "\xe6\x8c\x89\xe8\xa6\x81\xe6\xb1\x82\xe8\xbf\x9b\xe5\x85\xa5\xe6\xa8\xa1\xe5\x9e\x8b\xe6\xa8\xa1\xe5\xbc\x8f");   // 按要求进入模型模式
    EXPECT_NE(chinese, english);
    engine.reword_status();
    EXPECT_EQ(engine.device().reason, english);
    EXPECT_EQ(engine.target().arch(), 75);
}

TEST(EngineModelMode, TargetIsAPresetAndCanBeChanged) {
    register_one_warp();
    Engine engine(EngineConfig{"", true});
    EXPECT_EQ(engine.target().source, "datasheet");
    ASSERT_NE(find_target("t4"), nullptr);
    EXPECT_TRUE(engine.set_target(*find_target("t4")));
    EXPECT_EQ(engine.target().arch(), 75);
    EXPECT_EQ(engine.analyze({"test.one_warp", {}, kSmall}).target.arch_name(), "sm_75");
}

TEST(EngineModelMode, AnalyzesTheTestKernel) {
    register_one_warp();
    const RunResult r = model_engine().analyze({"test.one_warp", {}, kSmall});
    ASSERT_TRUE(r.ok) << r.stage << ": " << r.error;
    ASSERT_TRUE(r.compiled);
    EXPECT_TRUE(r.compiled->ok);
    EXPECT_GT(r.compiled->ptxas.registers, 0);
    EXPECT_GT(r.occupancy.blocks_per_sm, 0);
    EXPECT_FALSE(r.kernel_source.empty());
    EXPECT_EQ(r.name_expression, "faulting_matmul<0>");
    EXPECT_EQ(r.target.arch_name(), model_engine().target().arch_name());
}

TEST(EngineModelMode, AnalyzesEveryWrittenVariantAtItsDefaults) {
    int analysed = 0;
    for (const Variant& v : all_variants()) {
        if (!v.defined()) continue;   // placeholder, written later
        const Problem p = make_family_shape(v.family)->test_problem();
        const RunResult r = model_engine().analyze({v.id, {}, p});
        EXPECT_TRUE(r.ok) << v.id << ": " << r.stage << ": " << r.error;
        EXPECT_GT(r.model.global_bytes, 0) << v.id;   // every kernel moves data
        if (v.family != "transpose" && v.family != "bandwidth") {   // a transpose and a read do no arithmetic
            EXPECT_GT(r.model.flops, 0) << v.id;
        }
        ++analysed;
    }
    if (analysed == 0) GTEST_SKIP() << "no variant has a kernel yet";
}

TEST(EngineModelMode, RunMeasuresNothingAndSaysWhy) {
    register_one_warp();
    const RunResult r = model_engine().run({"test.one_warp", {}, kSmall});
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_FALSE(r.measured);
    EXPECT_EQ(r.no_gpu_reason, model_engine().device().reason);
    EXPECT_FALSE(r.counted.has_value());
    EXPECT_EQ(r.timing.median_ms, 0);
}

TEST(EngineModelMode, CeilingsAreNotMeasured) {
    const Ceilings c = model_engine().ceilings();
    EXPECT_FALSE(c.measured);
    EXPECT_FALSE(c.note.empty());
}

TEST(EngineModelMode, UnknownVariantIsOneSentence) {
    const std::string why = model_engine().invalid_reason({"matmul.nonexistent", {}, kSmall});
    expect_one_sentence(why);
    EXPECT_NE(why.find("matmul.nonexistent"), std::string::npos);
    const RunResult r = model_engine().analyze({"matmul.nonexistent", {}, kSmall});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.stage, "input");
    EXPECT_EQ(r.error, why);
}

TEST(EngineModelMode, UnwrittenVariantSaysSoInsteadOfCrashing) {
    Variant empty;
    empty.id = "test.unwritten";
    empty.family = "matmul";
    add_variant(empty);
    const RunResult r = model_engine().run({"test.unwritten", {}, kSmall});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.stage, "input");
    EXPECT_NE(r.error.find("variant test.unwritten is not implemented yet"), std::string::npos) << r.error;
}

TEST(EngineModelMode, ValueOutOfRangeIsOneSentence) {
    Variant v = test_variant("test.with_param", {{1, 1, 1}, {32, 1, 1}, 0});
    v.params = {{"TILE", "Tile", ParamKind::Pow2, 4, 32, 1, 16, "test"}};
    add_variant(v);
    EXPECT_EQ(model_engine().invalid_reason({"test.with_param", {{"TILE", 8}}, kSmall}), "");
    expect_one_sentence(model_engine().invalid_reason({"test.with_param", {{"TILE", 12}}, kSmall}));
    expect_one_sentence(model_engine().invalid_reason({"test.with_param", {{"TILE", 64}}, kSmall}));
    expect_one_sentence(model_engine().invalid_reason({"test.with_param", {{"NOPE", 1}}, kSmall}));
}

TEST(EngineModelMode, EngineRefusesMoreThan1024ThreadsEvenIfTheVariantDoesNot) {
    // The variant declares no constraint at all; the engine's generic check still applies.
    add_variant(test_variant("test.too_many_threads", {{1, 1, 1}, {64, 32, 1}, 0}));
    const std::string why = model_engine().invalid_reason({"test.too_many_threads", {}, kSmall});
    expect_one_sentence(why);
    EXPECT_NE(why.find("2048"), std::string::npos) << why;
    EXPECT_NE(why.find("1024"), std::string::npos) << why;
}

TEST(EngineModelMode, EngineRefusesSharedMemoryOverTheOptInLimit) {
    const int optin = model_engine().target().smem_per_block_optin;
    add_variant(
        test_variant("test.too_much_smem", {{1, 1, 1}, {32, 1, 1}, unsigned(optin + 4)}));
    expect_one_sentence(model_engine().invalid_reason({"test.too_much_smem", {}, kSmall}));
    add_variant(test_variant("test.optin_smem", {{1, 1, 1}, {32, 1, 1}, unsigned(optin)}));
    EXPECT_EQ(model_engine().invalid_reason({"test.optin_smem", {}, kSmall}), "");
}

TEST(EngineModelMode, EngineRefusesAGridOverTheLimit) {
    add_variant(test_variant("test.tall_grid", {{1, 70000, 1}, {32, 1, 1}, 0}));
    expect_one_sentence(model_engine().invalid_reason({"test.tall_grid", {}, kSmall}));
}

TEST(EngineModelMode, MatmulSizesOutOfRangeAreOneSentence) {
    register_one_warp();
    const std::string zero = model_engine().invalid_reason({"test.one_warp", {}, Problem{{0, 64, 64}}});
    expect_one_sentence(zero);
    EXPECT_NE(zero.find("M"), std::string::npos) << zero;
    expect_one_sentence(model_engine().invalid_reason({"test.one_warp", {}, Problem{{64, 64, 1 << 20}}}));
}
