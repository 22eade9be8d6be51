// The Compare panel's sweep belongs to the variant it ran: in another lesson it is neither drawn
// nor exported (a click on its heatmap would give this kernel parameters it does not declare),
// and it is back when the learner returns. The app here has no worker: the sweep's results are
// put in the state as the engine thread would leave them.
#include <gtest/gtest.h>

#include "actions.h"
#include "imgui_test_context.h"
#include "panels.h"
#include "tilelab/variant.h"

using namespace tilelab;
using namespace tilelab::gui;

namespace {

std::shared_ptr<const RunResult> result_of(const RunRequest& request) {
    auto r = std::make_shared<RunResult>();
    r->request = request;
    r->ok = true;
    r->stage = "done";
    return r;
}

// Lesson `lesson`'s variant with a finished 2-D sweep of its first two parameters (two values each).
void leave_a_sweep(AppState& state, int lesson) {
    EnterLesson(state, lesson, 0);
    const Variant* v = CurrentVariant(state);
    ASSERT_NE(v, nullptr);
    ASSERT_GE(v->params.size(), 2u) << v->id;
    state.sweep.param_x = v->params[0].name;
    state.sweep.param_y = v->params[1].name;
    state.sweep.variant = v->id;
    state.swept_x = state.sweep.param_x;
    state.swept_y = state.sweep.param_y;
    state.sweep_x_values = {v->params[0].values().front(), v->params[0].values().back()};
    state.sweep_y_values = {v->params[1].values().front(), v->params[1].values().back()};
    for (int y : state.sweep_y_values)
        for (int x : state.sweep_x_values) {
            RunRequest r = state.request;
            r.params[state.swept_x] = x;
            r.params[state.swept_y] = y;
            state.sweep.results.push_back(result_of(r));
        }
}

// Frames of the Compare panel in a full-size window, clicking at each point of a grid over it;
// nothing in it may run past the window's edge.
void click_all_over(AppState& state) {
    ImGuiTestContext imgui(ImVec2(1280, 720));
    ImGuiIO& io = ImGui::GetIO();
    for (float y = 10; y < 720; y += 12)
        for (float x = 10; x < 1280; x += 40)
            for (bool down : {true, false}) {
                io.MousePos = ImVec2(x, y);
                io.MouseDown[0] = down;
                io.DeltaTime = 1.0f / 60;
                ImGui::NewFrame();
                ImGui::SetNextWindowPos(ImVec2(0, 0));
                ImGui::SetNextWindowSize(io.DisplaySize);
                ImGui::Begin("Compare");
                DrawComparePanel(state);
                ImGui::End();
                ReportOverflowingWindows({});
                ImGui::Render();
            }
    // The built-in font of a test context has ASCII only: missing glyphs are not this test's subject.
    for (const std::string& problem : LayoutProblems())
        if (problem.find("has no glyph") == std::string::npos) ADD_FAILURE() << problem;
}

}  // namespace

TEST(CompareSweep, AnotherLessonsSweepIsNeitherExportedNorClickable) {
    AppState state;
    leave_a_sweep(state, 0);
    const Variant* swept = CurrentVariant(state);
    ASSERT_NE(swept, nullptr);
    ASSERT_TRUE(SweepIsOfCurrentVariant(state));
    EXPECT_EQ(ExportedRows(state).size(), 4u);

    // Another lesson, whose kernel declares neither swept parameter.
    int other = -1;
    for (int i = 1; i < int(all_lessons().size()) && other < 0; ++i) {
        const Variant* v = find_variant(all_lessons()[size_t(i)].variant);
        if (v && !v->param(state.swept_x) && !v->param(state.swept_y)) other = i;
    }
    ASSERT_GE(other, 0) << "no lesson without " << state.swept_x << " and " << state.swept_y;
    EnterLesson(state, other, 0);
    EXPECT_FALSE(SweepIsOfCurrentVariant(state));
    state.pinned.push_back({"pinned here", result_of(state.request)});
    const ResultList rows = ExportedRows(state);
    ASSERT_EQ(rows.size(), 1u) << "the other lesson's sweep would be exported";
    EXPECT_EQ(rows[0]->request.variant, state.request.variant);

    const ParamValues before = state.request.params;
    click_all_over(state);
    EXPECT_EQ(state.request.params, before) << "a click set parameters from " << swept->id << "'s sweep";
    EXPECT_EQ(state.sweep.results.size(), 4u) << "the sweep is kept for when the learner returns";

    EnterLesson(state, 0, 0);
    EXPECT_TRUE(SweepIsOfCurrentVariant(state));
    EXPECT_EQ(ExportedRows(state).size(), 4u);
}
