// The CPU run (engine/src/cpu/): a verdict without a GPU. Every lesson's own kernel at its first
// step passes on the CPU (or says in one sentence that it needs a GPU) with its counted accesses
// equal to the model's; every exercise's completed starting file passes and every bare one
// fails; a solution without its barriers fails in every one of 10 seeds; an out-of-bounds index
// is reported with its thread, line and element; an endless loop is stopped at the time limit.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "cpu/cpu_run.h"
#include "cpu/ptx.h"
#include "cpu_checks.h"
#include "model_engine.h"
#include "tilelab/compile.h"
#include "exercise_edits.h"
#include "tilelab/exercise.h"
#include "tilelab/lesson.h"

namespace {

using namespace tilelab;
using test::exercise_of;
using test::mutated;
using test::model_engine;

Problem parse_size(const std::string& text) {
    Problem p;
    std::string error;
    EXPECT_TRUE(parse_problem(text, p, error)) << error;
    return p;
}

RunRequest first_step(const Lesson& l) {
    const StepState state = l.state_at(0);
    RunRequest req{l.variant, state.params, {}};
    std::string error;
    EXPECT_TRUE(parse_problem(state.size, req.problem, error)) << error;
    return req;
}

CpuCheck run_user(const Exercise& ex, const std::string& text, uint64_t seed = 1234) {
    const RunResult r = model_engine().run(first_step(*ex.lesson), UserKernel{"mine.cu", text}, test::cpu_run_options({}, seed));
    EXPECT_TRUE(r.cpu.has_value()) << r.stage << ": " << r.error;
    return r.cpu.value_or(CpuCheck{});
}

TEST(CpuRun, EveryLessonKernelPassesAtItsFirstStepWithTheModelsCounts) {
    for (const Lesson& l : all_lessons()) {
        SCOPED_TRACE(l.id);
        const RunResult r = model_engine().run(first_step(l), test::cpu_run_options());
        ASSERT_TRUE(r.cpu.has_value()) << r.stage << ": " << r.error;
        const CpuCheck& c = *r.cpu;
        EXPECT_EQ(c.file.rfind("kernels/", 0), 0u) << c.file;
        EXPECT_EQ(format_problem(c.problem), format_problem(parse_size(l.cpu_size))) << "the lesson's <!-- cpu size: -->";
        // The Hopper lessons' wgmma and TMA need sm_90a: those say so. WMMA, mma.sync, ldmatrix and
        // cp.async run on the CPU (lessons 12, 13 and 16; engine/src/cpu/cpu_tensor.cpp).
        if (c.status == "needs_gpu") {
            EXPECT_TRUE(l.id == "21_matmul_tma_wgmma" || l.id == "22_matmul_warp_specialized") << c.message;
            EXPECT_NE(c.message.find("GPU"), std::string::npos) << c.message;
            continue;
        }
        EXPECT_EQ(c.status, "passed") << c.message << c.validation.message;
        EXPECT_TRUE(c.validation.checked && c.validation.passed);
        EXPECT_LT(c.seconds, 5.0);
        // Global traffic as the model says, element for element. Shared accesses are counted as the
        // PTX executes them, which the model (the source's accesses) need not match: the compiler
        // moves the transpose's shared reads under the bound check of their store, so threads
        // past the edge of a partial tile issue none.
        EXPECT_EQ(c.counted.global_loads, c.model.global_loads);
        EXPECT_EQ(c.counted.global_stores, c.model.global_stores);
        EXPECT_EQ(c.counted.shared_loads > 0, c.model.shared_loads > 0);
        EXPECT_EQ(c.counted.shared_stores > 0, c.model.shared_stores > 0);
    }
}

TEST(CpuRun, EveryCompletedStartingFilePassesAndEveryBareOneFails) {
    for (const Exercise& ex : all_exercises()) {
        SCOPED_TRACE(ex.lesson->id);
        const CpuCheck done = run_user(ex, fill_in(ex.skeleton, ex));
        if (done.status == "needs_gpu") continue;   // checked on the GPU (test_exercise_gpu.cpp)
        EXPECT_EQ(done.status, "passed") << done.message << done.validation.message;
        EXPECT_EQ(done.file, "mine.cu");
        EXPECT_LT(done.seconds, 5.0);
        const CpuCheck bare = run_user(ex, ex.skeleton);
        EXPECT_TRUE(bare.status == "failed" || bare.status == "fault") << bare.status << ": " << bare.message;
        EXPECT_LT(bare.seconds, 5.0);
    }
}

TEST(CpuRun, ASolutionWithoutItsBarriersFailsInEveryRun) {
    const Exercise* ex = exercise_of("matmul.smem_tiled");
    ASSERT_NE(ex, nullptr);
    std::string racy = fill_in(ex->skeleton, *ex);
    for (size_t at; (at = racy.find("__syncthreads();")) != std::string::npos;)
        racy.replace(at, std::string("__syncthreads();").size(), "/* no barrier */");
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        const CpuCheck c = run_user(*ex, racy, seed);
        EXPECT_EQ(c.status, "fault") << "seed " << seed << ": " << c.message;
        EXPECT_NE(c.message.find("race"), std::string::npos) << c.message;
        EXPECT_NE(c.message.find("mine.cu:"), std::string::npos) << c.message;
    }
    // Only the second barrier missing: the next tile overwrites one another thread still reads.
    std::string second = fill_in(ex->skeleton, *ex);
    const size_t last = second.rfind("__syncthreads();");
    second.replace(last, std::string("__syncthreads();").size(), "/* no barrier */");
    for (uint64_t seed = 1; seed <= 10; ++seed) EXPECT_EQ(run_user(*ex, second, seed).status, "fault") << seed;
}

TEST(CpuRun, AnOutOfBoundsIndexIsReportedWithItsThreadLineAndElement) {
    const Exercise* ex = exercise_of("matmul.smem_tiled");
    ASSERT_NE(ex, nullptr);
    // The bound on B's column dropped: the last block's threads past N read past the end of B.
    const CpuCheck c = run_user(*ex, mutated(*ex, "if (b_row < K && col < N) {", "if (b_row < K) {"));
    EXPECT_EQ(c.status, "fault") << c.message;
    EXPECT_NE(c.message.find("B["), std::string::npos) << c.message;
    EXPECT_NE(c.message.find("past the end of B"), std::string::npos) << c.message;
    EXPECT_NE(c.message.find("thread ("), std::string::npos) << c.message;
    EXPECT_NE(c.message.find("mine.cu:"), std::string::npos) << c.message;
}

TEST(CpuRun, AnEndlessLoopIsStoppedAtTheTimeLimit) {
    const Exercise* ex = exercise_of("matmul.smem_tiled");
    ASSERT_NE(ex, nullptr);
    const std::string endless =
        mutated(*ex, "float sum = 0.0f;", "float sum = 0.0f;\n    while (*(volatile const float*)A == *(volatile const float*)A) {}");
    const RunResult analysed = model_engine().analyze(first_step(*ex->lesson), UserKernel{"mine.cu", endless});
    ASSERT_TRUE(analysed.ok) << analysed.error;
    CompileService compiler("");
    const auto start = std::chrono::steady_clock::now();
    const CpuCheck c = run_on_cpu(analysed, compiler, 1, /*time_limit_s=*/1.0);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(c.status, "fault") << c.message;
    EXPECT_NE(c.message.find("endless loop"), std::string::npos) << c.message;
    EXPECT_NE(c.message.find("stopped after 1 s"), std::string::npos) << "the run's limit, not what was left of it: " << c.message;
    EXPECT_LT(s, 4.0);
}

TEST(CpuRun, PlainNamesOfSharedVariables) {
    EXPECT_EQ(cpu::plain_name("_ZZ17smem_tiled_matmulILi16ELi0EEvPKfS1_PfiiiPyE6a_tile"), "a_tile");
    EXPECT_EQ(cpu::plain_name("_ZZ23register_2d_matmul_bodyILi128EEvPKfE2As"), "As");
    EXPECT_EQ(cpu::plain_name("stencil_coef"), "stencil_coef");
}

}  // namespace
