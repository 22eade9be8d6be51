// Exercises without a GPU: the markers make a starting file and give the reference back, every
// lesson has an exercise whose starting file compiles, the starting file completed with the
// reference lines compiles to the lesson's own kernel, compile errors land on the user's lines,
// and a file that cannot be a kernel is refused with a sentence.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tilelab/engine.h"
#include "tilelab/exercise.h"
#include "tilelab/variant.h"
#include "exercise_edits.h"
#include "host/user_signature.h"
#include "model_engine.h"

namespace {

using namespace tilelab;

using test::model_engine;

RunRequest request_of(const Exercise& ex) {
    const StepState state = ex.lesson->state_at(0);
    RunRequest req{ex.lesson->variant, state.params, {}};
    std::string error;
    EXPECT_TRUE(parse_problem(state.size, req.problem, error)) << error;
    return req;
}

TEST(ExerciseMarkers, ABlockBecomesOneTodoAtItsIndentAndFillsBackIn) {
    const std::string reference =
        "int f(int x) {\n"
        "    // EXERCISE-BEGIN: double x\n"
        "    x *= 2;\n"
        "    x += 0;\n"
        "    // EXERCISE-END\n"
        "    return x;\n"
        "}\n";
    std::string skeleton, error;
    std::vector<ExerciseBlock> blocks;
    ASSERT_TRUE(make_skeleton(reference, skeleton, blocks, error)) << error;
    EXPECT_EQ(skeleton, "int f(int x) {\n    // TODO(1): double x\n    return x;\n}\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_EQ(blocks[0].lines, (std::vector<std::string>{"    x *= 2;", "    x += 0;"}));
    Exercise ex;
    ex.blocks = blocks;
    EXPECT_EQ(fill_in(skeleton, ex), strip_markers(reference));
}

TEST(ExerciseMarkers, MarkersThatDoNotPairUpAreRefusedNamingTheLine) {
    const char* bad[] = {
        "// EXERCISE-BEGIN: a\nx;\n",                                            // never closed
        "x;\n// EXERCISE-END\n",                                                 // never opened
        "// EXERCISE-BEGIN: a\n// EXERCISE-BEGIN: b\nx;\n// EXERCISE-END\n",     // nested
        "// EXERCISE-BEGIN: a\n// EXERCISE-END\n",                               // empty
        "// EXERCISE-BEGIN:\nx;\n// EXERCISE-END\n",                             // no hint
    };
    for (const char* text : bad) {
        std::string skeleton, error;
        std::vector<ExerciseBlock> blocks;
        EXPECT_FALSE(make_skeleton(text, skeleton, blocks, error)) << text;
        EXPECT_NE(error.find("line"), std::string::npos) << text << " -> " << error;
    }
}

TEST(Exercises, EveryLessonHasOneWithTodosThatRestoreTheReference) {
    for (const Lesson& lesson : all_lessons()) {
        SCOPED_TRACE(lesson.id);
        const Exercise* ex = find_exercise(lesson.id);
        ASSERT_NE(ex, nullptr) << exercise_missing_reason(lesson.id);
        EXPECT_GE(ex->blocks.size(), 2u) << "an exercise leaves at least two key places to write";
        EXPECT_NE(ex->skeleton.find("// TODO(1): "), std::string::npos);
        EXPECT_EQ(ex->skeleton.find("EXERCISE-"), std::string::npos) << "no marker is left in the starting file";
        EXPECT_EQ(fill_in(ex->skeleton, *ex), ex->header + strip_markers(ex->reference));
    }
}

// NVRTC needs no GPU: the starting file must compile as it is (a TODO leaves a kernel that is
// wrong, never one that does not compile), and the completed file must be the lesson's kernel:
// the same registers, spills and shared memory as the lesson's own build.
TEST(Exercises, EveryStartingFileCompilesAndTheCompletedOneIsTheLessonsKernel) {
    for (const Exercise& ex : all_exercises()) {
        SCOPED_TRACE(ex.lesson->id);
        const RunRequest req = request_of(ex);
        const RunResult lesson = model_engine().analyze(req);
        ASSERT_TRUE(lesson.ok) << lesson.error;
        const RunResult skeleton = model_engine().analyze(req, {"skeleton.cu", ex.skeleton});
        EXPECT_TRUE(skeleton.ok) << skeleton.stage << ": " << skeleton.error;
        EXPECT_EQ(skeleton.user_kernel, "skeleton.cu");
        const RunResult completed = model_engine().analyze(req, {"completed.cu", fill_in(ex.skeleton, ex)});
        ASSERT_TRUE(completed.ok) << completed.error;
        EXPECT_EQ(completed.compiled->ptxas.registers, lesson.compiled->ptxas.registers);
        EXPECT_EQ(completed.compiled->ptxas.spill_stores, lesson.compiled->ptxas.spill_stores);
        EXPECT_EQ(completed.compiled->ptxas.smem_bytes, lesson.compiled->ptxas.smem_bytes);
        EXPECT_EQ(completed.occupancy.blocks_per_sm, lesson.occupancy.blocks_per_sm);
    }
}

TEST(Exercises, ACompileErrorIsReportedAtTheUsersLineAndColumn) {
    const Exercise& ex = all_exercises().front();
    // A bad line right after the header: its line number is the header's lines + 1.
    const int header_lines = int(std::count(ex.header.begin(), ex.header.end(), '\n'));
    const std::string text = ex.header + "int broken = undefined_name_here;\n" + ex.skeleton.substr(ex.header.size());
    const RunResult r = model_engine().analyze(request_of(ex), {"mine.cu", text});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.stage, "compile");
    const std::vector<Diagnostic> d = parse_diagnostics(r.compiled->log);
    ASSERT_FALSE(d.empty()) << r.compiled->log;
    EXPECT_EQ(d[0].file, "mine.cu");
    EXPECT_EQ(d[0].line, header_lines + 1);
    EXPECT_EQ(d[0].column, 14) << r.compiled->log;   // where undefined_name_here starts
    EXPECT_EQ(d[0].severity, "error");
    EXPECT_NE(d[0].message.find("undefined_name_here"), std::string::npos);
    EXPECT_EQ(format_diagnostic(d[0]).rfind(fmt::format("mine.cu:{}:14: error: ", header_lines + 1), 0), 0u)
        << format_diagnostic(d[0]);
}

TEST(Exercises, AUserCompileIsNeverCachedSoEveryEditCompiles) {
    const Exercise& ex = all_exercises().front();
    const auto before = model_engine().compiler().stats().nvrtc;
    model_engine().analyze(request_of(ex), {"a.cu", ex.skeleton});
    model_engine().analyze(request_of(ex), {"a.cu", ex.skeleton});
    EXPECT_EQ(model_engine().compiler().stats().nvrtc, before + 2);
}

// A parameter that picks another kernel of the lesson (lesson 15's SPLIT) while the user's file
// holds the first one: refused before any compile, with a sentence naming both; a kernel whose
// name only starts like the lesson's is not taken for it.
TEST(Exercises, AParameterThatPicksAnotherKernelNamesItInsteadOfFailingToCompile) {
    const Exercise* ex = test::exercise_of("attention.online_softmax");
    ASSERT_NE(ex, nullptr);
    RunRequest req = request_of(*ex);
    req.params["SPLIT"] = 1;
    const RunResult r = model_engine().analyze(req, {"mine.cu", ex->reference});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.compiled, nullptr) << "refused before the compile";
    EXPECT_NE(r.error.find("online_softmax_attention_2d<"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("attention/online_softmax_2d.cuh"), std::string::npos) << r.error;
    EXPECT_EQ(missing_kernel_problem("void k_2d(); void k2();", "a.cu", "k<1>", "f.cuh").empty(), false);
    EXPECT_EQ(missing_kernel_problem("void k_2d(); void k (int);", "a.cu", "k<1>", "f.cuh"), "");
    EXPECT_EQ(missing_kernel_problem("k", "a.cu", "k", "f.cuh"), "");
}

TEST(UserSource, WhatCannotBeAKernelFileIsRefusedWithASentence) {
    EXPECT_EQ(user_source_problem("a.cu", "__global__ void k() {}\n"), "");
    EXPECT_EQ(user_source_problem("a.cu", "// 中文注释\n"), "") << "UTF-8 text is text";
    EXPECT_NE(user_source_problem("a.cu", "").find("empty"), std::string::npos);
    EXPECT_NE(user_source_problem("a.cu", std::string("ab\0cd", 5)).find("not a text file"), std::string::npos);
    EXPECT_NE(user_source_problem("a.cu", "\xff\xfe x").find("not a text file"), std::string::npos);
    EXPECT_NE(user_source_problem("a.cu", std::string(kMaxUserSourceBytes + 1, 'x')).find("at most"),
              std::string::npos);
}

TEST(UserSource, ReadingRefusesMissingFilesDirectoriesAndFifosWithoutWaiting) {
    const auto dir = std::filesystem::temp_directory_path() / ("tilelab_user_source_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::string text, error;
    EXPECT_FALSE(read_user_source((dir / "nothing.cu").string(), text, error));
    EXPECT_NE(error.find("no file"), std::string::npos) << error;
    EXPECT_FALSE(read_user_source(dir.string(), text, error));
    EXPECT_FALSE(error.empty());
    const std::string fifo = (dir / "fifo.cu").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_FALSE(read_user_source(fifo, text, error));   // returns at once: nothing opens it for reading
    const std::string good = (dir / "good.cu").string();
    std::ofstream(good) << "__global__ void k() {}\n";
    EXPECT_TRUE(read_user_source(good, text, error)) << error;
    EXPECT_EQ(text, "__global__ void k() {}\n");
    std::filesystem::remove_all(dir);
}

}  // namespace
