// tilelab-cli against hostile input: seeded, generated command lines (and the cases of issue #12
// by hand). Every run must end by itself within the time limit, without a signal, with a
// documented exit code (0-5), and a failure must be exactly one line "tilelab-cli: ..." of
// bounded length. The seed is fixed so a failure reproduces; the failing command line is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <random>
#include <string>
#include <vector>

#include "fuzz_seed.h"
#include "spawned_program.h"

namespace {

namespace fs = std::filesystem;
using tilelab::test::describe_args;
using tilelab::test::spawn;
using tilelab::test::Spawned;

const uint32_t kSeed = tilelab::test::fuzz_seed(0x7113'1ab5);
constexpr int kCases = 120;
constexpr int kParallel = 4;   // cases in flight at once: each mostly waits for its process to start
constexpr double kLimitSeconds = 60;
constexpr size_t kLongestMessage = 700;   // bytes: a quoted value is cut past 300 characters

class CliFuzz : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("tilelab_fuzz_cli_" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_ / "cache");
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    Spawned run(const std::vector<std::string>& args, int slot = 0) {
        const fs::path scratch = dir_ / ("slot" + std::to_string(slot));
        fs::create_directories(scratch);
        // One cache for every case: a configuration compiled once is read back afterwards.
        return spawn(tilelab::test::cli_path(), args, {"TILELAB_MODEL_MODE=1", "XDG_CACHE_HOME=" + (dir_ / "cache").string()},
                     kLimitSeconds, scratch.string());
    }

    // Runs every case, kParallel at a time; results in the order of `cases`.
    std::vector<Spawned> run_all(const std::vector<std::vector<std::string>>& cases) {
        std::vector<Spawned> results(cases.size());
        for (size_t first = 0; first < cases.size(); first += kParallel) {
            std::vector<std::future<void>> batch;
            for (size_t i = first; i < std::min(cases.size(), first + kParallel); ++i)
                batch.push_back(std::async(std::launch::async, [&, i] { results[i] = run(cases[i], int(i - first)); }));
            for (auto& f : batch) f.get();
        }
        return results;
    }

    // The contract every run keeps, whatever its input.
    void expect_contract(const std::vector<std::string>& args, const Spawned& r) {
        const std::string what = "tilelab-cli" + describe_args(args);
        ASSERT_FALSE(r.timed_out) << what << ": still running after " << kLimitSeconds << " s";
        ASSERT_EQ(r.signal, 0) << what << ": killed by signal " << r.signal;
        ASSERT_GE(r.exit_code, 0) << what;
        ASSERT_LE(r.exit_code, 5) << what << ": undocumented exit code\n" << r.err;
        if (r.exit_code == 0) return;
        // Exactly one line names the error; progress lines ("\rsweep: point ...") may precede it.
        int error_lines = 0;
        size_t start = 0;
        while (start < r.err.size()) {
            const size_t end = std::min(r.err.find('\n', start), r.err.size());
            const std::string line = r.err.substr(start, end - start);
            if (line.rfind("tilelab-cli: ", 0) == 0) {
                ++error_lines;
                EXPECT_LE(line.size(), kLongestMessage) << what << ": a message of " << line.size() << " bytes";
            }
            start = end + 1;
        }
        EXPECT_EQ(error_lines, 1) << what << " (exit " << r.exit_code << "):\n" << r.err.substr(0, 2000);
    }

    std::filesystem::path dir_;
};

// ---- the generator ------------------------------------------------------------------------

std::string random_bytes(std::mt19937& rng, size_t max_len) {
    std::uniform_int_distribution<int> len(1, int(max_len)), byte(1, 255);   // argv cannot hold NUL
    std::string s(size_t(len(rng)), ' ');
    for (char& c : s) c = char(byte(rng));
    return s;
}

template <size_t N>
std::string pick(std::mt19937& rng, const char* const (&options)[N]) {
    return options[std::uniform_int_distribution<size_t>(0, N - 1)(rng)];
}

std::string random_value(std::mt19937& rng) {
    static const char* const kValues[] = {
        "", " ", "0", "-16", "7", "abc", "1e9", "99999999999999999999", "16", "32", "4", "h100", "H100", "sm_90",
        "sm_70", "t4", "h\xff" "100", "!!h-1 0 0??", "TILE=7", "TILE=", "=16", "TILE=16", "TILE=0", "TILE=-16",
        "PAD=1", "BM=64", "1", "2", "64", "1x1", "2x2x2", "100000x100000x100000", "4096x", "x", "8,16", "8,,16",
        "-1", "2147483648", "0x10", "--", "-", "tile=16", "TILE=16=16",
    };
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    if (kind == 0) return random_bytes(rng, 24);
    if (kind == 1) return std::string(size_t(std::uniform_int_distribution<int>(61, 5000)(rng)), 'x');
    return pick(rng, kValues);
}

std::vector<std::string> random_command_line(std::mt19937& rng) {
    static const char* const kSubcommands[] = {"list", "targets", "ceilings", "compile", "run", "sweep", "bogus", "",
                                               "--help", "-x"};
    static const char* const kVariants[] = {"02", "01", "07", "99", "", "matmul.smem_tiled", "matmul.nope",
                                            "stencil.basic", "x", "0"};
    static const char* const kFlags[] = {"--size", "--target", "--set", "--reps", "--warmup", "--seed", "--values",
                                         "--values2", "--param", "--param2", "--json", "--csv", "--model-mode", "--log",
                                         "--no-flush", "--no-count", "--compile-only", "--bogus", "--size=", "-s"};
    std::vector<std::string> args = {pick(rng, kSubcommands)};
    const std::string sub = args.front();   // a copy: args grows below
    const bool takes_variant = sub == "compile" || sub == "run" || sub == "sweep";
    // Most generated requests are wrong somewhere: the point is the error paths, and a valid one
    // costs an NVRTC compile the first time.
    if (takes_variant) args.push_back(pick(rng, kVariants));
    const int flags = std::uniform_int_distribution<int>(0, 4)(rng);
    for (int i = 0; i < flags; ++i) {
        const std::string flag = pick(rng, kFlags);
        args.push_back(flag);
        const bool is_switch = flag == "--json" || flag == "--csv" || flag == "--model-mode" || flag == "--log" ||
                               flag == "--no-flush" || flag == "--no-count" || flag == "--compile-only";
        if (!is_switch && std::uniform_int_distribution<int>(0, 9)(rng) > 0) args.push_back(random_value(rng));
    }
    if (sub == "sweep" && std::uniform_int_distribution<int>(0, 3)(rng) > 0) {
        // A sweep analyses every point: keep it to a few values so the suite stays fast.
        args.insert(args.end(), {"--param", "TILE", "--values", std::uniform_int_distribution<int>(0, 1)(rng) ? "8,16" : "7"});
    }
    return args;
}

TEST_F(CliFuzz, GeneratedCommandLinesKeepTheContract) {
    std::mt19937 rng(kSeed);
    std::vector<std::vector<std::string>> cases;
    for (int i = 0; i < kCases; ++i) cases.push_back(random_command_line(rng));
    const std::vector<Spawned> results = run_all(cases);
    int by_code[6] = {};
    for (size_t i = 0; i < cases.size(); ++i) {
        expect_contract(cases[i], results[i]);
        if (HasFatalFailure()) return;
        ++by_code[results[i].exit_code];
    }
    // The generator must reach both sides: some command lines succeed, most are refused.
    EXPECT_GT(by_code[0], 0);
    EXPECT_GT(by_code[2], kCases / 3);
}

// ---- issue #12, case by case ---------------------------------------------------------------

struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string message;   // a part of the one-line message
};

TEST_F(CliFuzz, TheReportedCasesAreRefusedInOneClearLine) {
    const std::string long_value(100000, '4');
    const std::vector<Case> cases = {
        {{"compile", "02", "--size", ""}, 2, "--size: the value is empty"},
        {{"compile", "02", "--target", ""}, 2, "--target: the value is empty"},
        {{"compile", "02", "--target", "h\xff" "100"}, 2, "unknown target 'h?100'"},
        {{"compile", "02", "--target", "!!h-1 0 0??"}, 2, "unknown target"},
        {{"compile", "02", "--target", "h10"}, 2, "did you mean h100"},
        {{"compile", "02", "--target", "RTX-4090"}, 2, "did you mean"},
        {{"run", "02", "--reps", "abc"}, 2, "--reps: 'abc' is not a whole number"},
        {{"run", "02", "--reps", "0"}, 2, "--reps: 0 is not between 1 and 100000"},
        {{"sweep", "02", "--param", "TILE", "--values", ""}, 2, "--values: the value is empty"},   // not "TILE=0"
        {{"compile", "02", "--set", "TILE=7"}, 2, "TILE=7"},
        {{"compile", "02", "--set", "TILE=0"}, 2, "TILE=0"},
        {{"compile", "02", "--set", "TILE=-16"}, 2, "TILE=-16"},
        {{"compile", "02", "--size", long_value}, 2, "(100000 bytes)"},
        {{"compile", long_value}, 2, "(100000 bytes)"},
        {{"compile", "02", "--set", long_value}, 2, "(100000 bytes)"},
        {{long_value}, 2, "(100000 bytes)"},
        {{"compile", "02", "--bogus", long_value}, 2, "(100000 bytes)"},
    };
    std::vector<std::vector<std::string>> command_lines;
    for (const Case& c : cases) command_lines.push_back(c.args);
    const std::vector<Spawned> results = run_all(command_lines);
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        const Spawned& r = results[i];
        expect_contract(c.args, r);
        EXPECT_EQ(r.exit_code, c.exit_code) << describe_args(c.args) << "\n" << r.err.substr(0, 500);
        EXPECT_NE(r.err.find(c.message), std::string::npos)
            << describe_args(c.args) << ": expected \"" << c.message << "\" in\n" << r.err.substr(0, 500);
    }
}

TEST_F(CliFuzz, ExactTargetNamesStillWork) {
    for (const char* target : {"h100", "H100", "H100 SXM5", "sm_90", " t4 "}) {
        const Spawned r = run({"targets", "--target", target});
        expect_contract({"targets", "--target", target}, r);
        EXPECT_EQ(r.exit_code, 0) << target << ": " << r.err;
    }
}

}  // namespace
