// Lessons that never contradict themselves (issue #13): every step's state is valid, every
// question is asked at the size its step runs at, and every number a lesson checks is what the
// model (or the compiled kernel, on the default target) gives at that step's state.
#include <gtest/gtest.h>
#include <algorithm>

#include <cmath>
#include <regex>
#include <sstream>

#include "model/family_shape.h"
#include "tilelab/engine.h"
#include "tilelab/lesson.h"
#include "tilelab/quantities.h"
#include "tilelab/stalls.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"
#include "model_engine.h"

const std::vector<std::pair<std::string, std::string>>& embedded_lesson_table();

using namespace tilelab;

namespace {

using test::model_engine;

RunRequest request_at(const Lesson& l, const StepState& s, const LessonCheck* check = nullptr) {
    RunRequest req;
    req.variant = l.variant;
    req.params = s.params;
    std::string size = s.size, error;
    if (check) {
        for (const auto& [name, value] : check->set) req.params[name] = value;
        if (!check->size.empty()) size = check->size;
    }
    EXPECT_TRUE(parse_problem(size, req.problem, error)) << size << ": " << error;
    return req;
}

// "37.5" agrees with 37.46 but not with 37.6: the value as written, to its last digit.
// "58%" is a fraction written as a percentage: it agrees with 0.578.
bool agrees(const std::string& written, double model) {
    std::string digits;
    for (char c : written)
        if (c != ' ' && c != ',') digits += c;
    if (!digits.empty() && digits.back() == '%') {
        digits.pop_back();
        model *= 100;
    }
    const double value = std::stod(digits);
    const size_t dot = digits.find('.');
    const int decimals = dot == std::string::npos ? 0 : int(digits.size() - dot - 1);
    return std::fabs(model - value) <= 0.5 * std::pow(10.0, -decimals) + 1e-9;
}

}  // namespace

TEST(LessonText, ChecksAndMeasuredAnswersParse) {
    LessonCheck c;
    std::string error;
    ASSERT_TRUE(parse_check("MAXREG=80 size=4096 | occupancy % = 37.5", c, error)) << error;
    EXPECT_EQ(c.set, (ParamValues{{"MAXREG", 80}}));
    EXPECT_EQ(c.size, "4096");
    EXPECT_EQ(c.quantity, "occupancy %");
    EXPECT_EQ(c.value, "37.5");
    EXPECT_FALSE(parse_check("registers 128", c, error));
    EXPECT_FALSE(parse_check("MAXREG=x | registers = 1", c, error));

    MeasuredAnswer m;
    ASSERT_TRUE(parse_measured("H200, 2026-11-22, 4096³ | TILE=32: 16.55 ms | TILE=32 PAD=1: 19.86 ms", m, error));
    EXPECT_EQ(m.where, "H200, 2026-11-22, 4096³");
    ASSERT_EQ(m.times.size(), 2u);
    EXPECT_EQ(m.times[1].first, "TILE=32 PAD=1");
    EXPECT_EQ(m.times[1].second, "19.86 ms");
    EXPECT_FALSE(parse_measured("H200 | only one", m, error));
    EXPECT_FALSE(parse_measured("H200, 2026-12-04, 512³", m, error));
    ASSERT_TRUE(parse_measured("H200, 2026-12-04, 512³ | TSTEPS=3: 9.997 ms", m, error)) << error;
    ASSERT_EQ(m.times.size(), 1u);

    double percent = 0;
    StallGroup group{};
    ASSERT_TRUE(parse_stall_claim("48% memory_throttle", percent, group));
    EXPECT_DOUBLE_EQ(percent, 48);
    EXPECT_EQ(group, StallGroup::memory_throttle);
    EXPECT_TRUE(parse_stall_claim("6.5% barrier", percent, group));
    EXPECT_FALSE(parse_stall_claim("0.420 ms", percent, group));
    EXPECT_FALSE(parse_stall_claim("48% memory", percent, group)) << "not a group key";
    EXPECT_FALSE(parse_stall_claim("148% barrier", percent, group));
    EXPECT_FALSE(parse_stall_claim("% barrier", percent, group));
}

TEST(LessonText, AStepIsAWholeStateWhateverCameBefore) {
    const char* md = "# T\n<!-- variant: matmul.smem_tiled -->\n<!-- size: 512 -->\nIntro.\n"
                     "## One\n<!-- set: TILE=8 -->\n## Two\n<!-- set: PAD=1 -->\n<!-- size: 1000 -->\n"
                     "## Three\n<!-- set: TILE=32 -->\n";
    const Lesson l = parse_lesson("x", md);
    ASSERT_EQ(l.steps.size(), 3u);
    EXPECT_EQ(l.state_at(0).params.at("TILE"), 8);
    EXPECT_EQ(l.state_at(0).params.at("PAD"), 0) << "the variant's default";
    EXPECT_EQ(l.state_at(0).size, "512");
    EXPECT_EQ(l.state_at(1).params.at("TILE"), 8) << "kept from step 1";
    EXPECT_EQ(l.state_at(2).params.at("PAD"), 1) << "kept from step 2";
    EXPECT_EQ(l.state_at(2).size, "1000");
    EXPECT_EQ(l.state_at(0), l.state_at(0)) << "the same state however often it is asked for";
}

// Every step of every lesson opens at a state the app accepts on the default target.
TEST(LessonText, EveryStepStateIsValid) {
    Engine& engine = model_engine();
    for (const auto& l : all_lessons()) {
        for (int i = 0; i < int(l.steps.size()); ++i) {
            SCOPED_TRACE(l.id + " step " + std::to_string(i + 1) + " \"" + l.steps[size_t(i)].title + "\"");
            const StepState s = l.state_at(i);
            EXPECT_EQ(engine.invalid_reason(request_at(l, s)), "");
        }
    }
}

// A question that names a problem size is asked at that size: "at 4096³", "N = 1024",
// "at 1000×999×1001" (a tile's "8×8×8" or "32³" is not a problem size).
TEST(LessonText, QuestionsAreAskedAtTheStepsSize) {
    const std::regex cube(R"([Aa]t (\d+)³)"), triple(R"([Aa]t (\d+)×(\d+)×(\d+))"), identifier("[A-Za-z]+");
    int questions = 0, sizes = 0;
    for (const auto& l : all_lessons()) {
        for (int i = 0; i < int(l.steps.size()); ++i) {
            const LessonStep& step = l.steps[size_t(i)];
            if (step.title.rfind("Questions", 0) != 0) continue;
            ++questions;
            SCOPED_TRACE(l.id + " \"" + step.title + "\"");
            Problem p;
            std::string error;
            ASSERT_TRUE(parse_problem(l.state_at(i).size, p, error)) << error;
            const std::string& text = step.markdown;
            for (std::sregex_iterator m(text.begin(), text.end(), cube), end; m != end; ++m, ++sizes)
                for (int d = 0; d < 3; ++d) EXPECT_EQ(std::stoll((*m)[1]), p.dim[d]) << m->str();
            for (std::sregex_iterator m(text.begin(), text.end(), triple), end; m != end; ++m, ++sizes)
                for (int d = 0; d < 3; ++d) EXPECT_EQ(std::stoll((*m)[d + 1]), p.dim[d]) << m->str();
            // "N = 1024": the size its family calls N (matmul's second, attention's first).
            const Variant* v = find_variant(l.variant);
            ASSERT_NE(v, nullptr);
            const auto names = make_family_shape(v->family)->dim_names();
            for (size_t d = 0; d < names.size(); ++d) {
                if (!std::regex_match(names[d], identifier)) continue;
                const std::regex equals("\\b" + names[d] + " = (\\d+)");
                for (std::sregex_iterator m(text.begin(), text.end(), equals), end; m != end; ++m, ++sizes)
                    EXPECT_EQ(std::stoll((*m)[1]), p.dim[d]) << m->str();
            }
        }
    }
    EXPECT_GE(questions, int(all_lessons().size())) << "every lesson ends with questions";
    EXPECT_GE(sizes, 5) << "the questions that name a size were found";
}

// Every <!-- check: --> is well-formed, names a quantity the analysis has, is written in the text
// it stands for, and agrees with the model (registers: NVRTC on the default target). The quantity
// is the engine's (tilelab/quantities.h), as a drill's.
TEST(LessonText, EveryCheckedNumberIsTheModels) {
    Engine& engine = model_engine();
    const std::regex check_line(R"(^\s*<!--\s*check:(.*)-->\s*$)");
    size_t written = 0;
    for (const auto& [path, text] : embedded_lesson_table()) {
        // The Chinese texts carry the same directives (tests/cpu/test_lesson_sync.cpp): count the English.
        if (path.size() >= 9 && path.compare(path.size() - 9, 9, "lesson.md") != 0) continue;
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) {
            std::smatch m;
            if (line.find("<!-- check:") != std::string::npos || line.find("<!-- measured:") != std::string::npos) {
                EXPECT_TRUE(std::regex_match(trim(line), std::regex(R"(^<!--.*-->$)")))
                    << path << ": a directive must be a line of its own: " << line;
            }
            if (!std::regex_match(line, m, check_line)) continue;
            LessonCheck c;
            std::string error;
            EXPECT_TRUE(parse_check(trim(m[1].str()), c, error)) << path << ": " << error;
            ++written;
        }
    }
    size_t checked = 0;
    for (const auto& l : all_lessons()) {
        auto run_checks = [&](const std::vector<LessonCheck>& checks, int step, const std::string& text) {
            const StepState s = l.state_at(step);
            for (const auto& c : checks) {
                SCOPED_TRACE(l.id + " step " + std::to_string(step + 1) + ": " + c.quantity + " = " + c.value);
                ++checked;
                EXPECT_NE(text.find(c.value), std::string::npos) << "the checked value is not in the text";
                const RunRequest req = request_at(l, s, &c);
                ASSERT_EQ(engine.invalid_reason(req), "");
                const RunResult r = engine.analyze(req);
                ASSERT_TRUE(r.ok) << r.error;
                double value = 0;
                ASSERT_TRUE(quantity_value(r, c.quantity, value)) << "no quantity '" << c.quantity << "'";
                EXPECT_TRUE(agrees(c.value, value)) << "the model gives " << value;
            }
        };
        run_checks(l.intro_checks, 0, l.intro);
        for (int i = 0; i < int(l.steps.size()); ++i) run_checks(l.steps[size_t(i)].checks, i, l.steps[size_t(i)].markdown);
    }
    EXPECT_EQ(checked, written) << "a malformed check was left out by the parser";
    EXPECT_GE(checked, 20u);
}

// "Which is faster?" has an answer without a GPU: the measured answers name a GPU and a date and
// give a time, or a stall claim ("48% memory_throttle": a share of the PC samples, tilelab/stalls.h),
// for each configuration.
TEST(LessonText, MeasuredAnswersNameGpuDateAndTimesOrStallShares) {
    const std::regex where(R"((H100|H200)[^,]*, 20\d\d-\d\d-\d\d)"), time(R"(^[0-9.]+ ms$)");
    double percent = 0;
    StallGroup group{};
    size_t written = 0;   // English lines: the Chinese texts carry the same directives
    for (const auto& [path, text] : embedded_lesson_table()) {
        if (path.size() < 9 || path.compare(path.size() - 9, 9, "lesson.md") != 0) continue;
        for (size_t at = text.find("<!-- measured:"); at != std::string::npos; at = text.find("<!-- measured:", at + 1)) ++written;
    }
    size_t answers = 0;
    for (const auto& l : all_lessons())
        for (const auto& step : l.steps)
            for (const auto& m : step.measured) {
                SCOPED_TRACE(l.id + " \"" + step.title + "\"");
                ++answers;
                EXPECT_TRUE(std::regex_search(m.where, where)) << m.where;
                EXPECT_GE(m.times.size(), 1u);
                for (const auto& [config, t] : m.times)
                    EXPECT_TRUE(std::regex_match(t, time) || parse_stall_claim(t, percent, group)) << config << ": " << t;
            }
    EXPECT_EQ(answers, written) << "a malformed measured answer, or one outside a step, was left out by the parser";
    EXPECT_GE(answers, 4u);
}
