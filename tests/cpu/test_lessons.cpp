// Lessons: the markdown format of lesson.h, and every embedded lesson checked against the
// variant it teaches (its presets must name real parameters with allowed values).
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "model/family_shape.h"
#include "tilelab/lesson.h"
#include "tilelab/variant.h"

const std::vector<std::pair<std::string, std::string>>& embedded_lesson_table();

using namespace tilelab;

namespace {

const char* kSample = R"md(# Shared-memory tiling
<!-- variant: matmul.smem_tiled -->

Each block stages a tile of A and B in shared memory.

## The naive kernel reloads everything
<!-- set: TILE=8 PAD=0 -->
<!-- size: 1024 -->
Every thread reads a row of A and a column of B.

```cpp
## not a heading: inside a code block
```

## Bigger tiles
<!-- set: TILE=32 -->
Global loads fall by the tile size.
)md";

}  // namespace

TEST(Lesson, ParsesTitleVariantIntroAndSteps) {
    Lesson l = parse_lesson("02_matmul_smem_tiled", kSample);
    EXPECT_EQ(l.id, "02_matmul_smem_tiled");
    EXPECT_EQ(l.title, "Shared-memory tiling");
    EXPECT_EQ(l.variant, "matmul.smem_tiled");
    EXPECT_EQ(l.intro, "Each block stages a tile of A and B in shared memory.");
    ASSERT_EQ(l.steps.size(), 2u);

    const LessonStep& first = l.steps[0];
    EXPECT_EQ(first.title, "The naive kernel reloads everything");
    EXPECT_EQ(first.set, (ParamValues{{"TILE", 8}, {"PAD", 0}}));
    EXPECT_EQ(first.size, "1024");
    EXPECT_EQ(first.markdown.rfind("## The naive kernel reloads everything\n", 0), 0u) << first.markdown;
    EXPECT_NE(first.markdown.find("## not a heading"), std::string::npos);
    EXPECT_EQ(first.markdown.find("<!--"), std::string::npos) << "directives are not shown";

    const LessonStep& second = l.steps[1];
    EXPECT_EQ(second.title, "Bigger tiles");
    EXPECT_EQ(second.set, (ParamValues{{"TILE", 32}}));
    EXPECT_EQ(second.size, "1024") << "a step keeps the size named before it: a step is a whole state";
    EXPECT_NE(second.markdown.find("Global loads fall"), std::string::npos);
}

TEST(Lesson, ASizeBeforeTheFirstStepIsTheLessonsDefault) {
    Lesson l = parse_lesson("x", "# T\n<!-- variant: a.b -->\n<!-- size: 512 -->\nIntro.\n"
                                 "## One\nText.\n## Two\n<!-- size: 64x32x16 -->\n## Three\n");
    EXPECT_EQ(l.default_size, "512");
    EXPECT_EQ(l.intro, "Intro.") << "the directive is not shown";
    ASSERT_EQ(l.steps.size(), 3u);
    EXPECT_EQ(l.steps[0].size, "512");
    EXPECT_EQ(l.steps[1].size, "64x32x16");
    EXPECT_EQ(l.steps[2].size, "64x32x16");
}

TEST(Lesson, WindowsLineEndingsAndNoSteps) {
    Lesson l = parse_lesson("x", "# Title\r\n<!-- variant: a.b -->\r\nJust text.\r\n");
    EXPECT_EQ(l.title, "Title");
    EXPECT_EQ(l.variant, "a.b");
    EXPECT_EQ(l.intro, "Just text.");
    EXPECT_TRUE(l.steps.empty());
}

TEST(Lesson, AllLessonsInFolderOrderAndFoundByNumber) {
    const auto& lessons = all_lessons();
    const auto english = std::count_if(embedded_lesson_table().begin(), embedded_lesson_table().end(),
                                       [](const auto& e) { return e.first.ends_with("/lesson.md"); });
    EXPECT_EQ(lessons.size(), size_t(english));
    for (size_t i = 1; i < lessons.size(); ++i) EXPECT_LT(lessons[i - 1].id, lessons[i].id);
    for (const auto& l : lessons) {
        EXPECT_EQ(find_lesson(l.id), &l);
        std::string number = l.id.substr(0, l.id.find('_'));
        EXPECT_EQ(find_lesson(number), &l) << number;
        EXPECT_EQ(find_lesson(std::to_string(std::stoi(number))), &l) << "without leading zeros";
    }
    EXPECT_EQ(find_lesson("no_such_lesson"), nullptr);
    EXPECT_EQ(find_lesson(""), nullptr);
    EXPECT_EQ(find_lesson("999"), nullptr);
}

// Every lesson names a real variant, and every preset in it is a parameter of that variant with
// an allowed value, and every size parses. Malformed directives fail here rather than being
// silently dropped by the parser.
TEST(Lesson, EveryLessonAgreesWithItsVariant) {
    if (all_lessons().empty()) GTEST_SKIP() << "no lessons/*/lesson.md written yet";
    const std::regex set_line(R"(^\s*<!--\s*set:(.*)-->\s*$)");
    for (const auto& [path, text] : embedded_lesson_table()) {
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) {
            std::smatch m;
            if (!std::regex_match(line, m, set_line)) continue;
            std::istringstream words(m[1].str());
            std::string word, name, error;
            int value = 0;
            while (words >> word) EXPECT_TRUE(parse_assignment(word, name, value, error)) << path << ": " << error;
        }
    }
    for (const auto& l : all_lessons()) {
        SCOPED_TRACE(l.id);
        EXPECT_FALSE(l.title.empty());
        EXPECT_FALSE(l.intro.empty());
        EXPECT_FALSE(l.steps.empty());
        const Variant* v = find_variant(l.variant);
        ASSERT_NE(v, nullptr) << "variant '" << l.variant << "'";
        for (const auto& step : l.steps) {
            SCOPED_TRACE(step.title);
            for (const auto& [name, value] : step.set) {
                auto spec = std::find_if(v->params.begin(), v->params.end(),
                                         [&](const ParamSpec& p) { return p.name == name; });
                ASSERT_NE(spec, v->params.end()) << name << " is not a parameter of " << v->id;
                EXPECT_EQ(spec->range_reason(value), "");
            }
            Problem p;
            std::string error;
            EXPECT_TRUE(parse_problem(step.size, p, error)) << "every step has a size: " << error;
        }
    }
}

// Every lesson declares the size it opens at, so none inherits the app's default or the size of
// the lesson before it, and keeps it small: a drag must redraw a validated result within ~50 ms,
// so a lesson's default problem stays at or below 2048³ multiply-adds (matmul; about 1 ms for the
// register-tiled kernels on an H100) or 512³ cells (stencil; under 1 ms) — the family's work
// (FamilyShape::work: a read's floats, not its grid).
TEST(Lesson, EveryLessonDeclaresASmallDefaultSize) {
    for (const auto& l : all_lessons()) {
        SCOPED_TRACE(l.id);
        Problem p;
        std::string error;
        ASSERT_TRUE(parse_problem(l.default_size, p, error)) << "no <!-- size: --> before the first step: " << error;
        const Variant* v = find_variant(l.variant);
        ASSERT_NE(v, nullptr);
        const double work = make_family_shape(v->family)->work(p);
        EXPECT_LE(work, v->family == "matmul" ? 2048.0 * 2048 * 2048 : 512.0 * 512 * 512) << l.default_size;
    }
}

// Every lesson declares the size its kernels run at on the CPU (model mode's verdict), small
// enough that a run stays well inside the CPU run's 5 s limit on a 2-core machine: at most
// 1,000,000 outputs' worth of work (M·N·K for matmul, cells for the rest).
TEST(Lesson, EveryLessonDeclaresASmallCpuSize) {
    for (const auto& l : all_lessons()) {
        SCOPED_TRACE(l.id);
        Problem p;
        std::string error;
        ASSERT_TRUE(parse_problem(l.cpu_size, p, error)) << "no <!-- cpu size: --> before the first step: " << error;
        const Variant* v = find_variant(l.variant);
        ASSERT_NE(v, nullptr);
        EXPECT_LE(make_family_shape(v->family)->work(p), 1e6) << l.cpu_size;
    }
}
