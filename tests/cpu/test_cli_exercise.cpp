// tilelab-cli exercise / compile --source / run --source, end to end in model mode: the exit codes
// (0 ok, 2 unusable input, 3 no GPU to run on, 5 compile errors at file:line:col) and what they print.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "spawned_program.h"
#include "tilelab/exercise.h"
#include "test_folder.h"

namespace {

using namespace tilelab;

class CliExercise : public test::TestWithFolder {
protected:
    CliExercise() : TestWithFolder("cli_exercise", /*create=*/true) {}
    test::Spawned cli(const std::vector<std::string>& args) {
        return test::spawn(test::cli_path(), args, {"TILELAB_MODEL_MODE=1"}, 300,
                           dir_.string());
    }
    std::string write(const std::string& name, const std::string& bytes) {
        const std::string path = (dir_ / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    static std::string number(const Exercise& ex) { return ex.lesson->id.substr(0, ex.lesson->id.find('_')); }
};

TEST_F(CliExercise, ListNamesEveryLessonsExercise) {
    const auto r = cli({"exercise", "list"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const Exercise& ex : all_exercises()) EXPECT_NE(r.out.find(ex.lesson->title), std::string::npos) << ex.lesson->id;
    EXPECT_EQ(r.out.find("no exercise"), std::string::npos) << r.out;
}

TEST_F(CliExercise, SkeletonPrintsTheStartingFileWhichCompilesThroughSource) {
    for (const Exercise& ex : all_exercises()) {
        SCOPED_TRACE(ex.lesson->id);
        const auto skeleton = cli({"exercise", number(ex), "--skeleton"});
        ASSERT_EQ(skeleton.exit_code, 0) << skeleton.err;
        EXPECT_EQ(skeleton.out, ex.skeleton);
    }
    const Exercise& ex = all_exercises().front();
    const std::string path = write("my.cu", ex.skeleton);
    const auto compiled = cli({"compile", number(ex), "--source", path});
    EXPECT_EQ(compiled.exit_code, 0) << compiled.out << compiled.err;
    EXPECT_NE(compiled.out.find("egisters"), std::string::npos) << compiled.out;
}

TEST_F(CliExercise, ACompileErrorExitsFiveNamingFileLineAndColumn) {
    const Exercise& ex = all_exercises().front();
    const int line = int(std::count(ex.header.begin(), ex.header.end(), '\n')) + 1;
    const std::string path =
        write("broken.cu", ex.header + "int broken = not_declared_anywhere;\n" + ex.skeleton.substr(ex.header.size()));
    const auto r = cli({"compile", number(ex), "--source", path});
    EXPECT_EQ(r.exit_code, 5) << r.err;
    EXPECT_NE(r.err.find(path + ":" + std::to_string(line) + ":14: error: identifier \"not_declared_anywhere\""),
              std::string::npos)
        << r.err;
}

TEST_F(CliExercise, RunInModelModeCompilesThenSaysThereIsNoGpu) {
    const Exercise& ex = all_exercises().front();
    const auto r = cli({"run", number(ex), "--source", write("my.cu", fill_in(ex.skeleton, ex))});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("no GPU"), std::string::npos) << r.err;
}

TEST_F(CliExercise, UnusableInputExitsTwoWithOneSentence) {
    const Exercise& ex = all_exercises().front();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {write("binary.cu", std::string("\x7f" "ELF\0\0\0", 7)), "not a text file"},
        {write("huge.cu", std::string(kMaxUserSourceBytes + 10, ' ')), "at most"},
        {write("empty.cu", ""), "empty"},
        {(dir_ / "missing.cu").string(), "no file"},
        {dir_.string(), "cannot be read"},
    };
    for (const auto& [path, says] : cases) {
        for (const char* command : {"compile", "run"}) {
            const auto r = cli({command, number(ex), "--source", path});
            EXPECT_EQ(r.exit_code, 2) << command << " " << path << ": " << r.err;
            EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        }
    }
    const auto unknown = cli({"exercise", "99"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("no lesson"), std::string::npos) << unknown.err;
}

}  // namespace
