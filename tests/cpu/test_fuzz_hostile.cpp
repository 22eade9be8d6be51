// tilelab-cli against hostile peers and hostile files (issue #30): greetings whose device or
// target is broken (fields of every type and size), launchers that do not `exec` (their whole
// process group must go when the client gives up, exits or is killed), users' sources that never
// finish compiling (an #include of a FIFO or of a 4 GiB sparse file, macros that double 24
// times), kernels with the wrong parameters or 1 GiB of shared memory, text that is not strict
// UTF-8, and damaged drill scores. Every case: no signal, no hang, the documented exit code and
// one "tilelab-cli: " sentence. Seeded; a failing case prints its input.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_seed.h"
#include "spawned_program.h"
#include "worker_bytes.h"
#include "tilelab/drills.h"
#include "tilelab/exercise.h"
#include "tilelab/exercise_store.h"
#include "tilelab/result_json.h"
#include "tilelab/target.h"
#include "host/worker_client.h"
#include "protocol/worker_protocol.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using test::frame;
using test::magic;

const uint32_t kSeed = tilelab::test::fuzz_seed(0x30'face);
constexpr double kLimitS = 60;

struct Scratch : test::Scratch {
    Scratch() : test::Scratch("hostile") { fs::create_directories(dir / "cache"); }
};

json good_greeting() {
    return {{"hello", "tilelab-gpu-worker"}, {"protocol", worker::kProtocolVersion}, {"host", "fakehost"},
            {"device", {{"gpu", true}, {"reason", ""}, {"name", "Fake H100"}, {"total_bytes", 1u << 30}, {"index", 0}, {"count", 1}}},
            {"target", json::parse(nlohmann::ordered_json(*find_target("h100")).dump())}};
}

// The greeting, then the answer to the engine's first request (free memory), then nothing.
std::string worker_bytes(const json& hello) {
    return magic() + frame(hello) +
           frame({{"id", 1}, {"free_bytes", 1u << 29}, {"total_bytes", 1u << 30}});
}

test::Spawned cli(const Scratch& s, const std::vector<std::string>& args, std::vector<std::string> env = {}, int slot = 0) {
    const fs::path scratch = s.dir / ("slot" + std::to_string(slot));
    fs::create_directories(scratch);
    env.push_back("XDG_CACHE_HOME=" + (s.dir / "cache").string());
    env.push_back("XDG_DATA_HOME=" + (s.dir / "data").string());
    return test::spawn(test::cli_path(), args, env, kLimitS, scratch.string());
}

// The contract of every run: ended by itself, no signal, an `allowed` exit code, and on failure
// exactly one "tilelab-cli: " line without the JSON library's words.
void expect_contract(const std::string& what, const test::Spawned& r, std::initializer_list<int> allowed) {
    ASSERT_FALSE(r.timed_out) << what << ": still running after " << kLimitS << " s";
    ASSERT_EQ(r.signal, 0) << what << ": killed by signal " << r.signal << "\n" << r.err;
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), r.exit_code), allowed.end())
        << what << ": exit " << r.exit_code << "\n" << r.err.substr(0, 2000);
    EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << what << "\n" << r.err;
    if (r.exit_code == 0) return;
    int lines = 0;   // "tilelab-cli: GPU: ... on ..." says where runs go; it is not an error
    for (size_t at = r.err.find("tilelab-cli: "); at != std::string::npos; at = r.err.find("tilelab-cli: ", at + 1))
        lines += r.err.compare(at, 18, "tilelab-cli: GPU: ") != 0;
    EXPECT_EQ(lines, 1) << what << "\n" << r.err.substr(0, 2000);
}

// Whether `pid` is gone (or a zombie nobody reaps yet: it runs no more).
bool gone(pid_t pid) {
    const std::string stat = test::slurp("/proc/" + std::to_string(pid) + "/stat");
    return stat.empty() || stat.find(") Z ") != std::string::npos;
}

json random_field(std::mt19937& rng) {
    switch (rng() % 9) {
    case 0: return nullptr;
    case 1: return "x";
    case 2: return int64_t(rng() % 200) - 100;
    case 3: return INT64_MAX;
    case 4: return 2147483647;
    case 5: return double(rng() % 1000) / 7.0;
    case 6: return json::array({1, 2});
    case 7: return json::object();
    default: return int64_t(1) << (rng() % 40);
    }
}

// [SECTION] Greetings ------------------------------------------------------------------------------

TEST(HostileFuzz, ABrokenGreetingIsABrokenWorkerExitOneNamingTheField) {
    Scratch s;
    struct Case {
        std::string what;
        json hello;
        std::string said;
    };
    std::vector<Case> cases;
    const auto with = [](const std::string& pointer, const json& value) {
        json h = good_greeting();
        h[json::json_pointer(pointer)] = value;
        return h;
    };
    cases.push_back({"warp_size 2147483647", with("/target/warp_size", 2147483647), "\"target.warp_size\" is 2147483647, not 32"});
    cases.push_back({"warp_size 0", with("/target/warp_size", 0), "target.warp_size"});
    cases.push_back({"sm_major 0", with("/target/sm_major", 0), "target.sm_major"});
    cases.push_back({"sm_major -5", with("/target/sm_major", -5), "target.sm_major"});
    cases.push_back({"target {}", with("/target", json::object()), "\"target.sm_major\" is missing"});
    cases.push_back({"target 7", with("/target", 7), "\"target\" is not an object"});
    cases.push_back({"gpu \"yes\"", with("/device/gpu", "yes"), "device.gpu"});
    cases.push_back({"host []", with("/host", json::array()), "\"host\" is not a string"});
    cases.push_back({"max_grid_dim", with("/target/max_grid_dim", json::array({1, 2})), "target.max_grid_dim"});
    cases.push_back({"resident_clusters short", with("/target/resident_clusters", json::array({0, 0, 66})), "target.resident_clusters"});
    cases.push_back({"resident_clusters -1", with("/target/resident_clusters", json::array({0, 0, 66, 0, -1, 0, 0, 0, 0})),
                     "\"target.resident_clusters\"[4] is not an integer from 0 to 100000"});
    // Less than any CUDA GPU has had: a broken worker, not a request that does not fit (exit 2; fuzz
    // campaign seeds 6 and 61 found these).
    cases.push_back({"smem_per_block 26", with("/target/smem_per_block", 26), "target.smem_per_block"});
    cases.push_back({"max_threads_per_block 90", with("/target/max_threads_per_block", 90), "target.max_threads_per_block"});
    cases.push_back({"max_block_dim x 8", with("/target/max_block_dim", json::array({8, 1024, 64})),
                     "\"target.max_block_dim\"[0] is 8, less than any CUDA GPU's 512"});
    std::vector<test::Spawned> results(cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string file = s.file("hello" + std::to_string(i), worker_bytes(cases[i].hello));
        results[i] = cli(s, {"compile", "02", "--gpu-command", "cat " + file + "; cat >/dev/null", "--connect-timeout", "5"});
        expect_contract(cases[i].what, results[i], {1});
        EXPECT_NE(results[i].err.find(cases[i].said), std::string::npos) << cases[i].what << ": " << results[i].err;
    }
}

// One field of the target replaced by a value of any type or size: every run keeps the contract
// (a greeting within range is used: exit 0, or 5 where NVRTC has no such architecture).
TEST(HostileFuzz, RandomTargetFieldsNeverCrashTheClient) {
    Scratch s;
    std::mt19937 rng(kSeed);
    const json base = good_greeting();
    std::vector<std::string> keys;
    for (const auto& [k, v] : base.at("target").items()) keys.push_back(k);
    constexpr int kCases = 24, kParallel = 4;
    std::vector<json> hellos;
    for (int i = 0; i < kCases; ++i) {
        json h = base;
        h["target"][keys[rng() % keys.size()]] = random_field(rng);
        if (i % 4 == 3) h["target"][keys[rng() % keys.size()]] = random_field(rng);
        hellos.push_back(h);
    }
    for (int first = 0; first < kCases; first += kParallel) {
        std::vector<std::future<test::Spawned>> batch;
        for (int i = first; i < std::min(kCases, first + kParallel); ++i) {
            const std::string file = s.file("hello" + std::to_string(i), worker_bytes(hellos[size_t(i)]));
            batch.push_back(std::async(std::launch::async, [&, file, i] {
                return cli(s, {"compile", "02", "--gpu-command", "cat " + file + "; cat >/dev/null", "--connect-timeout", "5"}, {},
                           i - first);
            }));
        }
        for (int i = first; i < std::min(kCases, first + kParallel); ++i)
            expect_contract("greeting " + hellos[size_t(i)].at("target").dump(), batch[size_t(i - first)].get(), {0, 1, 5});
    }
}

// [SECTION] Launchers that do not exec -------------------------------------------------------------

// A launcher whose last word is a background job it waits for: the CLI gives up (the worker stays
// silent), exits, and the job is gone with the launcher's process group.
TEST(HostileFuzz, ALauncherThatDoesNotExecIsEndedWithItsGroupWhenTheClientGivesUp) {
    Scratch s;
    const std::string greeting = s.file("hello", magic() + frame(good_greeting()));
    const std::string pid_file = s.path("job.pid");
    const auto start = Clock::now();
    const test::Spawned r = cli(s, {"run", "02", "--gpu-command", "cat " + greeting + "; sleep 300 & echo $! > " + pid_file + "; wait",
                                    "--connect-timeout", "1"});
    expect_contract("silent launcher", r, {1, 3});
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
    const pid_t job = std::atoi(test::slurp(pid_file).c_str());
    ASSERT_GT(job, 0);
    EXPECT_TRUE(gone(job)) << "the launcher's background job outlived the client";
}

// The client killed by SIGTERM in the middle of a run: its launcher's group goes with it.
TEST(HostileFuzz, TheLauncherGroupGoesWhenTheClientIsKilled) {
    Scratch s;
    const std::string bytes = s.file("hello", worker_bytes(good_greeting()));
    const std::string pid_file = s.path("job.pid"), out = s.path("cli.out");
    const std::string command = "cat " + bytes + "; sleep 300 & echo $! > " + pid_file + "; wait";
    const std::string cli_path = test::cli_path(), cache = "XDG_CACHE_HOME=" + (s.dir / "cache").string();
    std::vector<char*> envp = {const_cast<char*>(cache.c_str())};   // built before fork: only exec after it
    for (char** e = environ; *e; ++e)
        if (std::string(*e).rfind("XDG_CACHE_HOME=", 0) != 0 && std::string(*e).rfind("TILELAB_MODEL_MODE=", 0) != 0) envp.push_back(*e);
    envp.push_back(nullptr);
    const char* argv[] = {cli_path.c_str(), "run", "02", "--gpu-command", command.c_str(), "--connect-timeout", "60", nullptr};
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        execve(cli_path.c_str(), const_cast<char**>(argv), envp.data());
        _exit(127);
    }
    ASSERT_GT(pid, 0);
    for (int i = 0; i < 600 && test::slurp(pid_file).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const pid_t job = std::atoi(test::slurp(pid_file).c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));   // compiling, or waiting for the run's reply
    ::kill(pid, SIGTERM);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << test::slurp(out);
    ASSERT_GT(job, 0) << test::slurp(out);
    for (int i = 0; i < 50 && !gone(job); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(gone(job)) << "the launcher's background job outlived the killed client";
}

// [SECTION] Users' sources ---------------------------------------------------------------------------

std::string reference_source() {
    const Exercise* ex = find_exercise("02");
    return ex ? fill_in(ex->skeleton, *ex) : std::string();
}

// `source` with one more parameter at the end of its kernel's list: it still compiles, and
// would be launched with an argument too few.
std::string with_extra_parameter(const std::string& source) {
    const size_t body = source.find('{', source.find("__global__"));
    const size_t close = source.rfind(')', body);   // the list ends right before the kernel's body
    return source.substr(0, close) + ", int extra" + source.substr(close);
}

TEST(HostileFuzz, HostileSourcesEndAsCompileFailuresWithinTheDeadline) {
    Scratch s;
    const std::string good = reference_source();
    ASSERT_FALSE(good.empty());
    const std::string fifo = s.path("fifo");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const std::string sparse = s.path("sparse.h");
    std::ofstream(sparse).close();
    fs::resize_file(sparse, uintmax_t(4) << 30);
    std::string bomb = "#define D0 x\n";
    for (int i = 1; i <= 24; ++i) bomb += "#define D" + std::to_string(i) + " D" + std::to_string(i - 1) + " D" + std::to_string(i - 1) + "\n";
    bomb += "static int bomb[] = { D24 };\n";
    struct Case {
        std::string what, text, said;
        int exit;
        double at_most_s;
    };
    const std::vector<Case> cases = {
        {"include of a FIFO", "#include \"" + fifo + "\"\n" + good, "the compile took longer than 3 s", 5, 20},
        {"include of a 4 GiB sparse file", "#include \"" + sparse + "\"\n" + good, "", 5, 20},
        {"macro doubling bomb", "#define x 1,\n" + bomb + good, "", 5, 20},
        {"one parameter too many", with_extra_parameter(good), "but the lesson launches it with the parameters (", 5, 30},
        {"1 GiB of shared memory",
         good + "\n__global__ void huge_shared(float* o) { __shared__ float s[1 << 28]; s[threadIdx.x] = o[0]; "
                "__syncthreads(); o[threadIdx.x] = s[threadIdx.x ^ 1]; }\n",
         "", 5, 30},
        {"an encoded surrogate", good + "// \xed\xa0\x80\n", "not a text file", 2, 30},
        {"an overlong NUL", good + "// \xc0\x80\n", "not a text file", 2, 30},
    };
    for (const Case& c : cases) {
        const std::string file = s.file("user.cu", c.text);
        const auto start = Clock::now();
        const test::Spawned r = cli(s, {"run", "02", "--source", file}, {"TILELAB_MODEL_MODE=1", "TILELAB_COMPILE_LIMIT_S=3"});
        const double took = std::chrono::duration<double>(Clock::now() - start).count();
        expect_contract(c.what, r, {c.exit});
        EXPECT_LT(took, c.at_most_s) << c.what;
        EXPECT_NE(r.err.find(c.said), std::string::npos) << c.what << ": " << r.err.substr(0, 2000);
        EXPECT_EQ(r.err.find("0 bytes gmem"), std::string::npos) << c.what << ": the line that says why, please: " << r.err;
    }
}

// [SECTION] Data files ---------------------------------------------------------------------------------

TEST(HostileFuzz, DrillScoresKeepWhatTheyDoNotUnderstandAndRefuseToDowngrade) {
    Scratch s;
    const std::string path = s.path("drills.json");
    std::ofstream(path) << R"({"version": 1, "theme": "dark", "lessons": {"matmul_smem_tiled": {"a": "right", "b": {"x": 1},
                             "c": "skipped"}, "other": [1, 2]}})";
    DrillScores scores;
    std::string error;
    ASSERT_TRUE(scores.load(path, error)) << error;
    scores.record("02_matmul_smem_tiled", "a", false);
    scores.record("02_matmul_smem_tiled", "d", true);
    ASSERT_TRUE(scores.save(path, error)) << error;
    const json saved = json::parse(test::slurp(path));
    EXPECT_EQ(saved.at("theme"), "dark");
    EXPECT_EQ(saved.at("lessons").at("other"), json::array({1, 2}));
    EXPECT_EQ(saved.at("lessons").at("matmul_smem_tiled").at("b"), json({{"x", 1}}));
    EXPECT_EQ(saved.at("lessons").at("matmul_smem_tiled").at("c"), "skipped");
    EXPECT_EQ(saved.at("lessons").at("matmul_smem_tiled").at("a"), "wrong");
    EXPECT_EQ(saved.at("lessons").at("matmul_smem_tiled").at("d"), "right");

    const std::string newer = R"({"version": 2, "lessons": {"matmul_smem_tiled": {"a": "right"}}, "streaks": [3]})";
    std::ofstream(path) << newer;
    DrillScores future;
    EXPECT_FALSE(future.load(path, error));
    EXPECT_NE(error.find("newer TileLab (version 2"), std::string::npos) << error;
    EXPECT_EQ(future.outcome("02_matmul_smem_tiled", "a"), 1) << "read as far as it can be";
    future.record("02_matmul_smem_tiled", "a", false);
    EXPECT_FALSE(future.save(path, error));
    EXPECT_NE(error.find("not written over"), std::string::npos) << error;
    EXPECT_EQ(test::slurp(path), newer) << "a newer file is never downgraded";
}

TEST(HostileFuzz, DamagedDataFilesAreReadOrRefusedNeverCrash) {
    Scratch s;
    std::mt19937 rng(kSeed + 1);
    const std::string valid = R"({"version": 1, "lessons": {"matmul_smem_tiled": {"a": "right", "b": "wrong"}}, "k": [1]})";
    const std::string path = s.path("drills.json");
    for (int i = 0; i < 300; ++i) {
        std::string bytes = valid;
        switch (i % 5) {
        case 0: bytes.resize(rng() % bytes.size()); break;
        case 1: bytes[rng() % bytes.size()] = char(rng()); break;
        case 2: bytes = std::string(size_t(rng() % 200000), '[') + bytes; break;   // deep text
        case 3: bytes.replace(bytes.find("1,"), 1, std::to_string(rng()) + "e999999"); break;
        default: bytes = std::string(rng() % 64, char(rng())); break;
        }
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        DrillScores scores;
        std::string error;
        const bool loaded = scores.load(path, error);
        EXPECT_TRUE(loaded || (!error.empty() && error.find('\n') == std::string::npos)) << "case " << i;
        if (!loaded) continue;
        ASSERT_TRUE(scores.save(path, error)) << "case " << i << ": " << error;
        DrillScores again;
        ASSERT_TRUE(again.load(path, error)) << "case " << i << ": " << error;
        EXPECT_EQ(again, scores) << "case " << i;
    }
    // An exercise file with an encoded surrogate is not the user's text to compile: moved aside.
    const Exercise* ex = find_exercise("02");
    ASSERT_NE(ex, nullptr);
    ExerciseStore store(s.path("exercises"));
    std::string ignored;
    ASSERT_TRUE(store.save(*ex, ex->skeleton + "// \xed\xa0\x80\n", ignored)) << ignored;
    std::string note;
    EXPECT_EQ(store.load(*ex, note), ex->skeleton);
    EXPECT_NE(note.find("moved to"), std::string::npos) << note;
}

// The clusters that fit at once come to a local engine in the worker's memory reply: taken when
// they are nine integers from 0 to 100,000, else left as they were, the reply still read.
TEST(HostileFuzz, AMemoryReplysClustersAreTakenOnlyWhenWellFormed) {
    struct Case {
        const char* clusters;
        int expect_four;   // resident_clusters[4] afterwards (7: left as it was)
    };
    const Case cases[] = {{"[0,0,66,39,30,22,17,15,15]", 30}, {"[0,0,66]", 7}, {"[0,0,66,39,-1,22,17,15,15]", 7},
                          {"[0,0,66,39,\"30\",22,17,15,15]", 7}, {"[0,0,66,39,1e9,22,17,15,15]", 7}, {"{}", 7}, {"null", 7}};
    WorkerClient& client = WorkerClient::instance();
    for (const Case& c : cases) {
        SCOPED_TRACE(c.clusters);
        GpuLocation where;
        where.command = test::helper_path(test::kFakeGpuWorkerHelper) + " --stdio --count 1 --clusters '" + c.clusters + "'";
        client.configure(where);
        worker::json hello;
        std::string failure;
        ASSERT_TRUE(client.connect(hello, failure)) << failure;
        size_t free_bytes = 0, total_bytes = 0;
        int clusters[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
        EXPECT_TRUE(device_memory_in_worker(client, free_bytes, total_bytes, false, false, &clusters));
        EXPECT_EQ(total_bytes, size_t(1) << 30);
        EXPECT_EQ(clusters[4], c.expect_four);
    }
    client.configure(GpuLocation{});
}

}  // namespace
}  // namespace tilelab
