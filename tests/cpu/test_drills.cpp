// Interview drills (tilelab/drills.h): every lesson has at least three in both languages, the two
// languages agree on everything but the text, every drill's answer comes from the engine at its
// state (model mode, or marked as needing a GPU), answers are checked with their tolerance, the
// score survives a restart, and `tilelab-cli drill` exits 0 right, 1 wrong, 2 unusable input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "spawned_program.h"
#include "tilelab/drills.h"
#include "tilelab/engine.h"
#include "tilelab/lesson.h"
#include "model_engine.h"

using namespace tilelab;

namespace {

using test::model_engine;

std::string scratch(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("tilelab_drills_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

test::Spawned drill_cli(const std::vector<std::string>& args, const std::string& name) {
    const std::string dir = scratch(name);
    test::Spawned r = test::spawn(test::cli_path(), args, {"TILELAB_MODEL_MODE=1", "LANG=C"},
                                  120, dir);
    std::filesystem::remove_all(dir);
    return r;
}

Drill number_drill(const std::string& tolerance) {
    std::vector<Drill> drills;
    std::string error;
    const std::string text = R"({"drills": [{"id": "d", "ask": "blocks per SM", "tolerance": ")" + tolerance +
                             R"(", "question": "q", "explanation": "x"}]})";
    EXPECT_TRUE(parse_drills(text, drills, error)) << error;
    return drills.empty() ? Drill{} : drills[0];
}

}  // namespace

TEST(Drills, FilesParse) {
    for (const std::string& problem : drill_file_problems()) ADD_FAILURE() << problem;
}

TEST(Drills, EveryLessonHasAtLeastThreeInBothLanguages) {
    for (const Lesson& l : all_lessons(Language::English)) {
        SCOPED_TRACE(l.id);
        const auto& en = lesson_drills(l.id, Language::English);
        const auto& zh = lesson_drills(l.id, Language::Chinese);
        EXPECT_GE(en.size(), 3u) << "lessons/" << l.id << "/drills.json";
        const auto ids = lessons_with_drills(Language::Chinese);
        EXPECT_NE(std::find(ids.begin(), ids.end(), l.id), ids.end()) << "lessons/" << l.id << "/drills.zh.json is missing";
        ASSERT_EQ(en.size(), zh.size()) << "the two languages have different drills";
    }
}

// Only the texts are translated: ids, states, quantities, tolerances and choice values agree.
TEST(Drills, BothLanguagesAskTheSameThing) {
    for (const Lesson& l : all_lessons(Language::English)) {
        const auto& en = lesson_drills(l.id, Language::English);
        const auto& zh = lesson_drills(l.id, Language::Chinese);
        if (en.size() != zh.size()) continue;   // reported above
        for (size_t i = 0; i < en.size(); ++i) {
            SCOPED_TRACE(l.id + " drill " + en[i].id);
            const Drill &a = en[i], &b = zh[i];
            EXPECT_EQ(a.id, b.id);
            EXPECT_EQ(a.step, b.step);
            EXPECT_EQ(a.set, b.set);
            EXPECT_EQ(a.size, b.size);
            EXPECT_EQ(a.ask, b.ask);
            EXPECT_EQ(a.pick, b.pick);
            EXPECT_EQ(a.tolerance, b.tolerance);
            ASSERT_EQ(a.choices.size(), b.choices.size());
            for (size_t c = 0; c < a.choices.size(); ++c) {
                EXPECT_EQ(a.choices[c].value, b.choices[c].value);
                EXPECT_EQ(a.choices[c].set, b.choices[c].set);
            }
            EXPECT_NE(a.question, b.question) << "the Chinese question is the English one";
            EXPECT_NE(a.explanation, b.explanation) << "the Chinese explanation is the English one";
        }
    }
}

// The answer of every drill comes from the engine at the drill's state: here, in model mode, each
// one evaluates, or says it needs a GPU (a measured drill), and no drill's answer is written in the data.
TEST(Drills, EveryDrillEvaluatesInModelModeOrNeedsAGpu) {
    Engine& engine = model_engine();
    int evaluated = 0, measured = 0, referenced = 0;
    for (const Lesson& l : all_lessons(Language::English)) {
        for (const Drill& d : lesson_drills(l.id, Language::English)) {
            SCOPED_TRACE(l.id + " drill " + d.id);
            const DrillKey key = evaluate_drill(engine, l, d);
            if (d.needs_gpu() && d.reference) {   // answered from the reference GPU's values, named
                ++measured, ++referenced;
                ASSERT_TRUE(key.ok) << key.error;
                EXPECT_FALSE(key.needs_gpu);
                EXPECT_NE(key.reference.find(d.reference->gpu), std::string::npos) << key.reference;
                EXPECT_NE(key.shown.find(d.reference->date), std::string::npos) << key.shown;
                continue;
            }
            if (d.needs_gpu()) {
                ++measured;
                EXPECT_FALSE(key.ok);
                EXPECT_TRUE(key.needs_gpu) << key.error;
                continue;
            }
            ++evaluated;
            ASSERT_TRUE(key.ok) << key.error;
            EXPECT_FALSE(key.shown.empty());
            if (d.kind() != DrillKind::number) {
                EXPECT_EQ(key.right.size(), d.choices.size());
                EXPECT_TRUE(std::count(key.right.begin(), key.right.end(), false) > 0)
                    << "every choice is right: the drill asks nothing";
            }
        }
    }
    EXPECT_GE(evaluated, 20);
    EXPECT_GE(measured, 5) << "'which is faster?' drills, answered on the user's GPU";
    EXPECT_EQ(referenced, measured) << "every measured drill has its reference values (scripts/drill_references.sh)";
}

TEST(Drills, ARightAnswerScoresAndAWrongOneDoesNot) {
    Engine& engine = model_engine();
    const Lesson* l = find_lesson("02");
    ASSERT_NE(l, nullptr);
    for (const Drill& d : lesson_drills(l->id, Language::English)) {
        if (d.needs_gpu()) continue;
        SCOPED_TRACE(d.id);
        const DrillKey key = evaluate_drill(engine, *l, d);
        ASSERT_TRUE(key.ok) << key.error;
        DrillAnswer right, wrong;
        if (d.kind() == DrillKind::number) {
            right.number = key.value;
            wrong.number = key.value * 1.5 + 1;
        } else {
            right.choice = int(std::find(key.right.begin(), key.right.end(), true) - key.right.begin());
            wrong.choice = int(std::find(key.right.begin(), key.right.end(), false) - key.right.begin());
        }
        EXPECT_TRUE(drill_answer_right(d, key, right));
        EXPECT_FALSE(drill_answer_right(d, key, wrong));
    }
}

TEST(Drills, ToleranceEdges) {
    DrillKey key;
    key.ok = true;
    key.value = 128;
    const Drill exact = number_drill("exact");
    EXPECT_TRUE(drill_answer_right(exact, key, {128, -1}));
    EXPECT_FALSE(drill_answer_right(exact, key, {127, -1}));
    EXPECT_FALSE(drill_answer_right(exact, key, {128.5, -1}));

    const Drill five = number_drill("5%");
    key.value = 8;
    EXPECT_TRUE(drill_answer_right(five, key, {8.4, -1})) << "exactly 5% off";
    EXPECT_TRUE(drill_answer_right(five, key, {7.6, -1}));
    EXPECT_FALSE(drill_answer_right(five, key, {8.41, -1}));
    EXPECT_FALSE(drill_answer_right(five, key, {7.59, -1}));

    DrillKey none;   // nothing evaluated: nothing is right
    EXPECT_FALSE(drill_answer_right(exact, none, {0, -1}));

    std::vector<Drill> bad;
    std::string error;
    EXPECT_FALSE(parse_drills(R"({"drills": [{"id": "d", "ask": "registers", "tolerance": "about",
                                  "question": "q", "explanation": "x"}]})", bad, error));
    EXPECT_FALSE(parse_drills(R"({"drills": [{"id": "d", "ask": "time", "question": "q", "explanation": "x",
                                  "choices": [{"label": "a", "set": "PAD=0"}, {"label": "b", "set": "PAD=1"}]}]})",
                              bad, error))
        << "choosing a configuration needs pick";
    EXPECT_FALSE(parse_drills(R"({"drills": [{"id": "d", "ask": "registers", "question": "q"}]})", bad, error))
        << "an explanation is required";
}

// A tie within the tolerance: both configurations are right.
TEST(Drills, ConfigurationTiesWithinTheTolerance) {
    std::vector<Drill> drills;
    std::string error;
    ASSERT_TRUE(parse_drills(R"({"drills": [{"id": "f", "ask": "time", "pick": "min", "tolerance": "3%",
        "question": "q", "explanation": "x",
        "choices": [{"label": "A", "set": "PAD=0"}, {"label": "B", "set": "PAD=1"}]}]})", drills, error)) << error;
    const Drill& d = drills[0];
    auto measured = [](double ms) {
        auto r = std::make_shared<RunResult>();
        r->ok = r->measured = r->validation.passed = true;
        r->timing.median_ms = ms;
        return std::shared_ptr<const RunResult>(r);
    };
    DrillKey key = drill_key(d, {measured(1.00), measured(1.02)});
    ASSERT_TRUE(key.ok) << key.error;
    EXPECT_TRUE(drill_answer_right(d, key, {0, 0}));
    EXPECT_TRUE(drill_answer_right(d, key, {0, 1})) << "2% slower is a tie at 3%";
    key = drill_key(d, {measured(1.00), measured(1.10)});
    EXPECT_TRUE(drill_answer_right(d, key, {0, 0}));
    EXPECT_FALSE(drill_answer_right(d, key, {0, 1}));

    auto unmeasured = std::make_shared<RunResult>();
    unmeasured->ok = true;
    unmeasured->no_gpu_reason = "no CUDA driver";
    key = drill_key(d, {unmeasured, unmeasured});
    EXPECT_FALSE(key.ok);
    EXPECT_TRUE(key.needs_gpu);

    // Without a GPU, a reference GPU's values answer it, and say whose they are.
    Drill referenced = d;
    referenced.reference = DrillReference{"Some GPU", "2026-01-02", {2.0, 1.5}};
    key = drill_key(referenced, {unmeasured, unmeasured});
    ASSERT_TRUE(key.ok) << key.error;
    EXPECT_FALSE(drill_answer_right(referenced, key, {0, 0}));
    EXPECT_TRUE(drill_answer_right(referenced, key, {0, 1}));
    EXPECT_NE(key.shown.find("Some GPU"), std::string::npos) << key.shown;
    EXPECT_NE(key.shown.find("2026-01-02"), std::string::npos) << key.shown;
    // With a GPU, its own measurement wins.
    key = drill_key(referenced, {measured(1.0), measured(1.5)});
    EXPECT_TRUE(drill_answer_right(referenced, key, {0, 0}));
    EXPECT_TRUE(key.reference.empty());

    auto invalid = std::make_shared<RunResult>(*measured(0.5));
    invalid->validation.passed = false;
    key = drill_key(d, {measured(1.0), invalid});
    EXPECT_FALSE(key.ok) << "a time whose output was wrong answers nothing";
    EXPECT_FALSE(key.needs_gpu);
    EXPECT_NE(key.error.find("validation"), std::string::npos) << key.error;
}

TEST(Drills, AnswersParse) {
    const Drill d = number_drill("exact");
    DrillAnswer a;
    std::string error;
    ASSERT_TRUE(parse_drill_answer(d, " 1,024 ", a, error)) << error;
    EXPECT_EQ(a.number, 1024);
    ASSERT_TRUE(parse_drill_answer(d, "37.5%", a, error));
    EXPECT_EQ(a.number, 37.5);
    EXPECT_FALSE(parse_drill_answer(d, "", a, error));
    EXPECT_FALSE(parse_drill_answer(d, "12 blocks", a, error));
    EXPECT_FALSE(parse_drill_answer(d, "nan", a, error));
    EXPECT_EQ(error, "'nan' is not a number.");
    // As a Chinese input method's full-width mode types it: １，０２４ and ３７．５％.
    ASSERT_TRUE(parse_drill_answer(d, "\uFF11\uFF0C\uFF10\uFF12\uFF14", a, error)) << error;
    EXPECT_EQ(a.number, 1024);
    ASSERT_TRUE(parse_drill_answer(d, "\uFF13\uFF17\uFF0E\uFF15\uFF05", a, error)) << error;
    EXPECT_EQ(a.number, 37.5);
    // The answer's message is the learner's language (the Drills tab shows it under the field).
    set_language(Language::Chinese);
    EXPECT_FALSE(parse_drill_answer(d, "", a, error));
    const std::string empty_zh = error;
    EXPECT_FALSE(parse_drill_answer(d, "abc", a, error));
    set_language(Language::English);
    EXPECT_EQ(empty_zh, "答案为空。");
    EXPECT_EQ(error, "“abc”不是数字。");

    const Lesson* l = find_lesson("01");
    ASSERT_NE(l, nullptr);
    const auto& drills = lesson_drills(l->id, Language::English);
    const auto choice = std::find_if(drills.begin(), drills.end(), [](const Drill& x) { return x.kind() == DrillKind::category; });
    ASSERT_NE(choice, drills.end());
    ASSERT_TRUE(parse_drill_answer(*choice, "2", a, error)) << error;
    EXPECT_EQ(a.choice, 1);
    ASSERT_TRUE(parse_drill_answer(*choice, "warps", a, error)) << error;
    EXPECT_EQ(a.choice, 0);
    EXPECT_FALSE(parse_drill_answer(*choice, "9", a, error));
}

TEST(Drills, ScoresSurviveARestart) {
    const std::string dir = scratch("scores");
    const std::string path = dir + "/sub/drills.json";
    DrillScores scores;
    std::string error;
    ASSERT_TRUE(scores.load(path, error)) << "a missing file is an empty score: " << error;
    scores.record("02_matmul_smem_tiled", "loads_per_thread", true);
    scores.record("02_matmul_smem_tiled", "intensity_tile32", false);
    scores.record("08_stencil_basic", "limiter", true);
    ASSERT_TRUE(scores.save(path, error)) << error;

    DrillScores again;
    ASSERT_TRUE(again.load(path, error)) << error;
    EXPECT_EQ(again, scores);
    EXPECT_EQ(again.outcome("02_matmul_smem_tiled", "loads_per_thread"), 1);
    EXPECT_EQ(again.outcome("02_matmul_smem_tiled", "intensity_tile32"), 0);
    EXPECT_EQ(again.outcome("02_matmul_smem_tiled", "pad_faster"), -1);
    EXPECT_EQ(again.right_count("02_matmul_smem_tiled", {"loads_per_thread", "intensity_tile32", "pad_faster"}), 1);
    EXPECT_EQ(again.outcome("09_stencil_basic", "limiter"), 1) << "a renumbered lesson keeps its score";
    again.reset("02_matmul_smem_tiled");
    EXPECT_EQ(again.outcome("02_matmul_smem_tiled", "loads_per_thread"), -1);

    std::ofstream(path) << "{ not json";
    DrillScores broken;
    EXPECT_FALSE(broken.load(path, error));
    EXPECT_NE(error.find(path), std::string::npos) << error;
    std::filesystem::remove_all(dir);
}

TEST(DrillsCli, ListsALessonsDrills) {
    const auto r = drill_cli({"drill", "02"}, "list");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const Drill& d : lesson_drills("02", Language::English)) EXPECT_NE(r.out.find(d.question), std::string::npos) << d.id;
}

TEST(DrillsCli, ExitCodesRightWrongUnusable) {
    Engine& engine = model_engine();
    const Lesson* l = find_lesson("02");
    ASSERT_NE(l, nullptr);
    const auto& drills = lesson_drills(l->id, Language::English);
    ASSERT_FALSE(drills.empty());
    ASSERT_EQ(drills[0].kind(), DrillKind::number);
    const DrillKey key = evaluate_drill(engine, *l, drills[0]);
    ASSERT_TRUE(key.ok) << key.error;
    const std::string right = std::to_string(static_cast<long long>(key.value));
    const std::string wrong = std::to_string(static_cast<long long>(key.value) + 1);

    auto r = drill_cli({"drill", "02", "--answer", "1=" + right}, "right");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find(drills[0].explanation), std::string::npos) << "the explanation follows the answer";
    r = drill_cli({"drill", "02", "--answer", drills[0].id + "=" + wrong}, "wrong");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find(key.shown), std::string::npos) << "a wrong answer is shown the right one";
    for (const char* bad : {"1=many", "99=1", "1", "=3"}) {
        r = drill_cli({"drill", "02", "--answer", bad}, "bad");
        EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    }
    r = drill_cli({"drill", "99"}, "nolesson");
    EXPECT_EQ(r.exit_code, 2) << r.err;

    // A measured drill in model mode: answered from its reference GPU's values, which it names
    // (0 right or 1 wrong); without reference values it would need a GPU (exit 3).
    const auto measured = std::find_if(drills.begin(), drills.end(), [](const Drill& d) { return d.needs_gpu(); });
    ASSERT_NE(measured, drills.end());
    r = drill_cli({"drill", "02", "--answer", measured->id + "=1"}, "gpu");
    if (measured->reference) {
        EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
        EXPECT_NE(r.out.find(measured->reference->gpu), std::string::npos) << r.out;
    } else {
        EXPECT_EQ(r.exit_code, 3) << r.err;
    }
}
