// A step is a whole state (issue #13): walking every lesson's steps forward, backward, by jumps
// and at random, the app's parameters and size at a step are always Lesson::state_at(step); the
// user's own change stays while the step does and is gone once it is left; "Reset this step"
// undoes it. The app here has no worker: the actions only set the state.
#include <gtest/gtest.h>

#include <random>

#include "actions.h"
#include "app_state.h"
#include "tabs.h"

using namespace tilelab;
using namespace tilelab::gui;

namespace {

void expect_step_state(const AppState& state, const std::string& how) {
    const Lesson* lesson = CurrentLesson(state);
    ASSERT_NE(lesson, nullptr);
    const StepState want = lesson->state_at(state.step_index);
    SCOPED_TRACE(lesson->id + " step " + std::to_string(state.step_index + 1) + " reached " + how);
    EXPECT_EQ(state.request.variant, lesson->variant);
    EXPECT_EQ(state.request.params, want.params);
    EXPECT_EQ(state.size_text, want.size);
}

}  // namespace

TEST(StepWalk, ForwardBackwardAndJumpsGiveTheSameState) {
    AppState state;
    const auto& lessons = all_lessons();
    ASSERT_FALSE(lessons.empty());
    EnterLesson(state, 0, 0);
    expect_step_state(state, "by opening the first lesson");
    // Forward through everything, then back through everything.
    for (int guard = 0; guard < 1000; ++guard) {
        const int li = state.lesson_index, si = state.step_index;
        StepForward(state);
        if (state.lesson_index == li && state.step_index == si) break;
        expect_step_state(state, "by →");
    }
    for (int guard = 0; guard < 1000; ++guard) {
        const int li = state.lesson_index, si = state.step_index;
        StepBack(state);
        if (state.lesson_index == li && state.step_index == si) break;
        expect_step_state(state, "by ←");
    }
    // Jumps from every step of every lesson to every step of the same lesson, and lesson jumps.
    for (size_t li = 0; li < lessons.size(); ++li)
        for (size_t from = 0; from < lessons[li].steps.size(); ++from)
            for (size_t to = 0; to < lessons[li].steps.size(); ++to) {
                EnterLesson(state, int(li), int(from));
                expect_step_state(state, "by a lesson jump");
                EnterStep(state, int(to));
                expect_step_state(state, "by a click from step " + std::to_string(from + 1));
            }
}

TEST(StepWalk, RandomWalkWithUserEdits) {
    AppState state;
    const auto& lessons = all_lessons();
    std::mt19937 rng(13);
    EnterLesson(state, 0, 0);
    for (int move = 0; move < 3000; ++move) {
        const int lesson_before = state.lesson_index, step_before = state.step_index;
        const RunRequest before = state.request;
        const std::string size_before = state.size_text;
        switch (rng() % 5) {
            case 0:
            case 1: {
                // → at the very last step and ← at the very first go nowhere: the user's change stays.
                if (rng() % 2) StepForward(state);
                else StepBack(state);
                if (state.lesson_index == lesson_before && state.step_index == step_before) {
                    EXPECT_EQ(state.request, before) << "not leaving the step keeps the user's change";
                    EXPECT_EQ(state.size_text, size_before);
                    continue;
                }
                break;
            }
            case 2: EnterLesson(state, int(rng() % lessons.size()), int(rng() % 8)); break;
            case 3: EnterStep(state, int(rng() % 8)); break;
            default: {
                // A user's change inside the step: it stays while the step does, and a reset undoes it.
                ASSERT_FALSE(state.request.params.empty());
                auto it = state.request.params.begin();
                std::advance(it, long(rng() % state.request.params.size()));
                it->second += 1;
                state.size_text = "96";
                const RunRequest edited = state.request;
                SubmitRequest(state);
                EXPECT_EQ(state.request.params, edited.params) << "the user's change stays inside the step";
                if (rng() % 2) {
                    ResetStep(state);
                    expect_step_state(state, "by Reset this step");
                }
                continue;
            }
        }
        expect_step_state(state, "at random (move " + std::to_string(move) + ")");
    }
}

// A step about one tab's picture opens on that tab (<!-- panel: -->): every name a lesson gives is
// a tab, in both languages alike; lesson 03, about bank conflicts, opens on Memory.
TEST(StepWalk, AStepOpensOnTheTabItIsAbout) {
    for (const Language lang : {Language::English, Language::Chinese})
        for (const Lesson& l : all_lessons(lang))
            for (size_t s = 0; s < l.steps.size(); ++s) {
                const std::string& panel = l.panel_at(int(s));
                EXPECT_TRUE(panel.empty() || FindTab(panel)) << l.id << " step " << s + 1 << ": no tab '" << panel << "'";
                EXPECT_EQ(panel, all_lessons(Language::English)[size_t(&l - all_lessons(lang).data())].panel_at(int(s)))
                    << l.id << " step " << s + 1 << ": the languages differ";
            }
    AppState state;
    const Lesson* banks = find_lesson("03");
    ASSERT_NE(banks, nullptr);
    EnterLesson(state, int(banks - all_lessons().data()), 0);
    EXPECT_EQ(state.select_tab, "Memory");
}
