// The GPU tests run on a machine the build is carried to (scripts/carry_build.sh BUILD DEST):
// the test binary must find every program it starts there (tests/common/helpers.h), and the
// carried layout must hold each of them. The second test carries this build, runs the carried
// test binary's own check, then takes one helper away and requires that check to fail.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "helpers.h"
#include "spawned_program.h"
#include "store/child_process.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;

TEST(CarriedLayout, EveryProgramTheTestsStartIsFoundFromThisBinary) {
    for (const test::Helper& h : test::kCarriedHelpers) {
        const std::string path = test::helper_path(h);
        EXPECT_TRUE(is_executable_file(path))
            << h.file << ": not found at " << path << " (set " << h.env
            << " or carry it with scripts/carry_build.sh, which keeps the build's layout)";
    }
}

// scripts/carry_build.sh from the checkout: TILELAB_SOURCE (the GPU machine's checkout is not
// where the build was made), else the working folder (scripts/gpu_check.sh runs from the
// checkout's root), else the source folder this build was made from.
std::string carry_script() {
    std::vector<fs::path> roots;
    if (const char* named = std::getenv("TILELAB_SOURCE"); named && *named) roots.emplace_back(named);
    roots.emplace_back(fs::current_path());
    roots.emplace_back(TILELAB_SOURCE_DIR);
    for (const fs::path& root : roots) {
        const fs::path script = root / "scripts" / "carry_build.sh";
        std::error_code ec;
        if (fs::is_regular_file(script, ec)) return script.string();
    }
    return "";
}

struct CarryScratch : test::Scratch {
    CarryScratch() : test::Scratch("carry-test") {}
};

// Runs the carried test binary's own check with no helper named by the environment.
test::Spawned run_carried_check(const fs::path& dest, const fs::path& scratch) {
    // The child runs one test whatever shard of the suite this process is (gpu_check.sh's tests:K/N):
    // googletest's sharding variables would otherwise leave it with none, passing.
    std::vector<std::string> env = {"GTEST_SHARD_INDEX=0", "GTEST_TOTAL_SHARDS=1"};
    for (const test::Helper& h : test::kCarriedHelpers) env.push_back(std::string(h.env) + "=");
    return test::spawn((dest / "tests" / "tilelab_tests").string(),
                       {"--gtest_filter=CarriedLayout.EveryProgramTheTestsStartIsFoundFromThisBinary"}, env, 60,
                       scratch.string());
}

TEST(CarriedLayout, CarryBuildCopiesEveryProgramTheTestsStart) {
    const std::string script = carry_script();
    if (script.empty()) GTEST_SKIP() << "no scripts/carry_build.sh here (set TILELAB_SOURCE to the checkout)";
    CarryScratch s;
    const fs::path dest = s.dir / "carried";
    const test::Spawned carry =
        test::spawn("/bin/bash", {script, test::layout_root().string(), dest.string()}, {}, 120, s.dir.string());
    ASSERT_EQ(carry.exit_code, 0) << carry.err;
    ASSERT_TRUE(is_executable_file((dest / "tests" / "tilelab_tests").string())) << carry.err;
    for (const test::Helper& h : test::kCarriedHelpers)
        EXPECT_TRUE(is_executable_file((dest / h.file).string())) << "carry_build.sh did not copy " << h.file;

    const test::Spawned whole = run_carried_check(dest, s.dir);
    EXPECT_EQ(whole.exit_code, 0) << whole.out << whole.err;
    EXPECT_NE(whole.out.find("[  PASSED  ] 1 test."), std::string::npos) << "the check ran no test:\n" << whole.out;

    // The check must notice a layout that lost a helper.
    fs::remove(dest / test::kFakeGpuWorkerHelper.file);
    const test::Spawned lost = run_carried_check(dest, s.dir);
    EXPECT_NE(lost.exit_code, 0) << lost.out;
    EXPECT_NE(lost.out.find("tests/fake_gpu_worker: not found"), std::string::npos) << lost.out;
}

}  // namespace
}  // namespace tilelab
