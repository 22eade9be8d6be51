// The GPU worker's message decoder against malformed requests: random JSON values, real requests
// with fields removed, retyped or out of range, and random CBOR. The validator must never throw and
// must refuse everything the worker could not read; the real worker process, sent such messages,
// must answer each with an error reply and stay up for the next. Seeded, so a failure reproduces.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_seed.h"
#include "host/worker_client.h"
#include "protocol/worker_protocol.h"

namespace {

using namespace tilelab;
using worker::json;

const uint32_t kSeed = tilelab::test::fuzz_seed(0x60b'4e12);
constexpr int kRandomCases = 400;
constexpr int kMutatedCases = 400;

json random_json(std::mt19937& rng, int depth) {
    switch (std::uniform_int_distribution<int>(0, depth > 2 ? 6 : 8)(rng)) {
    case 0: return nullptr;
    case 1: return bool(rng() & 1);
    case 2: return int64_t(rng()) - int64_t(rng()) * 4096;
    case 3: return uint64_t(rng()) << 32 | rng();
    case 4: return double(int(rng())) / 7.0;
    case 5: {
        std::string s(rng() % 12, 'a');
        for (char& c : s) c = char('a' + rng() % 26);
        return s;
    }
    case 6: return json::binary(std::vector<uint8_t>(rng() % 8, uint8_t(rng())));
    case 7: {
        json a = json::array();
        for (int i = int(rng() % 4); i > 0; --i) a.push_back(random_json(rng, depth + 1));
        return a;
    }
    default: {
        static const char* const kKeys[] = {"id", "op", "job", "options", "kernel", "block", "dynamic_smem",
                                            "handle", "leave_free_bytes", "cancelled", "cubin", "lowered_name", "cluster"};
        json o = json::object();
        for (int i = int(rng() % 5); i > 0; --i) o[kKeys[rng() % std::size(kKeys)]] = random_json(rng, depth + 1);
        return o;
    }
    }
}

json valid_run_request() {
    worker::MeasureJob job;
    job.family = "matmul";
    job.problem.dim = {64, 64, 64};
    job.launch.grid = {4, 4, 1};
    job.launch.block = {16, 16, 1};
    auto cubin = std::make_shared<CompileResult>();
    cubin->cubin.assign(64, char(1));
    cubin->lowered_name = "k";
    job.kernel = cubin;
    return {{"op", "run"}, {"id", 7}, {"job", worker::job_to_json(job)}, {"options", json(RunOptions{})}};
}

// Every leaf of `j`, as JSON pointers.
void leaves(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
    if (j.is_object())
        for (const auto& [k, v] : j.items()) leaves(v, at / k, out);
    else if (j.is_array())
        for (size_t i = 0; i < j.size(); ++i) leaves(j[i], at / i, out);
    out.push_back(at);
}

TEST(WorkerFuzz, RandomValuesAreRefusedWithoutThrowing) {
    std::mt19937 rng(kSeed);
    for (int i = 0; i < kRandomCases; ++i) {
        const json message = random_json(rng, 0);
        std::string problem;
        ASSERT_NO_THROW(problem = worker::request_problem(message)) << "case " << i << ": " << message.dump();
        ASSERT_NO_THROW(worker::request_id_or_zero(message));
        // Nothing random names a known op with every field right: all are refused, with a reason.
        EXPECT_FALSE(problem.empty()) << "case " << i << ": " << message.dump();
    }
    EXPECT_FALSE(worker::request_problem(json(42)).empty());                        // a bare integer
    EXPECT_FALSE(worker::request_problem({{"id", "7"}, {"op", "memory"}}).empty());  // a string id
    EXPECT_EQ(worker::request_id_or_zero({{"id", "7"}, {"op", "memory"}}), 0u);
    EXPECT_EQ(worker::request_problem({{"id", 7}, {"op", "memory"}}), "");
    // The language of the reply's messages: optional, "en" or "zh".
    EXPECT_EQ(worker::request_problem({{"id", 7}, {"op", "memory"}, {"lang", "zh"}}), "");
    EXPECT_FALSE(worker::request_problem({{"id", 7}, {"op", "memory"}, {"lang", "fr"}}).empty());
    EXPECT_FALSE(worker::request_problem({{"id", 7}, {"op", "memory"}, {"lang", 1}}).empty());
}

TEST(WorkerFuzz, MutatedRequestsAreRefusedOrReadable) {
    std::mt19937 rng(kSeed + 1);
    const json good = valid_run_request();
    ASSERT_EQ(worker::request_problem(good), "");
    std::vector<json::json_pointer> paths;
    leaves(good, json::json_pointer(), paths);
    for (int i = 0; i < kMutatedCases; ++i) {
        json bad = good;
        const auto& path = paths[rng() % paths.size()];
        if (path.empty()) continue;
        json& parent = bad.at(path.parent_pointer());
        if (i % 3 == 0 && parent.is_object()) parent.erase(path.back());   // a field left out
        else bad[path] = random_json(rng, 3);                               // or of another type
        std::string problem;
        ASSERT_NO_THROW(problem = worker::request_problem(bad)) << bad.dump();
        // What the validator lets through, the worker's readers must be able to read.
        if (problem.empty()) {
            EXPECT_NO_THROW(worker::job_from_json(bad.at("job"))) << "case " << i << ": " << bad.dump();
            EXPECT_NO_THROW(bad.at("options").get<RunOptions>()) << "case " << i << ": " << bad.dump();
        }
    }
}

// The real worker process: malformed messages each get a failure reply, and the worker is still
// there to answer a well-formed one afterwards.
TEST(WorkerFuzz, TheWorkerAnswersMalformedMessagesAndStaysUp) {
    std::string failure;
    const std::string path = find_gpu_worker(failure);
    ASSERT_FALSE(path.empty()) << failure;
    int channel[2], cancel[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, channel), 0);
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, cancel), 0);
    const std::string channel_fd = std::to_string(channel[1]), cancel_fd = std::to_string(cancel[1]);
    const pid_t pid = fork();
    if (pid == 0) {
        ::close(channel[0]);
        ::close(cancel[0]);
        execl(path.c_str(), path.c_str(), "--channel-fd", channel_fd.c_str(), "--cancel-fd", cancel_fd.c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    ASSERT_GT(pid, 0);
    ::close(channel[1]);
    ::close(cancel[1]);
    timeval limit{30, 0};   // a reply that never comes fails the test instead of hanging it
    setsockopt(channel[0], SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);

    std::mt19937 rng(kSeed + 2);
    std::vector<json> messages = {json(42), {{"id", "7"}, {"op", "memory"}}, json::array({1, 2}), "run",
                                  {{"id", 3}}, {{"id", 3}, {"op", "run"}}, {{"id", 4}, {"op", "release"}, {"handle", "x"}}};
    for (int i = 0; i < 40; ++i) messages.push_back(random_json(rng, 0));
    for (const json& m : messages) {
        std::string error;
        ASSERT_TRUE(worker::write_frame(channel[0], m, error)) << error;
        json reply;
        ASSERT_EQ(worker::read_frame(channel[0], reply, error), worker::ReadStatus::message)
            << "no reply to " << m.dump() << ": " << error;
        ASSERT_TRUE(reply.is_object());
        EXPECT_TRUE(reply.contains("failure")) << m.dump() << " -> " << reply.dump();
        EXPECT_EQ(reply.value("id", 99u), worker::request_id_or_zero(m));
    }
    // Still up: a well-formed request gets its answer (the memory, or why there is no GPU).
    std::string error;
    ASSERT_TRUE(worker::write_frame(channel[0], {{"id", 5}, {"op", "memory"}}, error)) << error;
    json reply;
    ASSERT_EQ(worker::read_frame(channel[0], reply, error), worker::ReadStatus::message) << error;
    EXPECT_EQ(reply.value("id", 0u), 5u);
    EXPECT_TRUE(reply.contains("total_bytes") || reply.value("failure", "").find("no usable device") != std::string::npos)
        << reply.dump();
    ::close(channel[0]);
    ::close(cancel[0]);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status)) << "the worker ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

namespace {

// A job's element types are names the worker knows; anything else is refused with a sentence
// naming the field, before any buffer is sized for it.
TEST(WorkerFuzz, AnElementTypeTheWorkerDoesNotKnowIsRefused) {
    const json good = valid_run_request();
    ASSERT_EQ(worker::request_problem(good), "");
    EXPECT_EQ(worker::job_from_json(good.at("job")).precision, Precision{});
    for (const json& bad_value : {json("fp8"), json(4), json(nullptr)}) {
        json bad = good;
        bad["job"]["precision"]["input"] = bad_value;
        const std::string why = worker::request_problem(bad);
        EXPECT_NE(why.find("precision"), std::string::npos) << why;
    }
    json not_object = good;
    not_object["job"]["precision"] = "bf16";
    EXPECT_NE(worker::request_problem(not_object).find("precision"), std::string::npos);
    json no_precision = good;   // an older client: FP32
    no_precision["job"].erase("precision");
    EXPECT_EQ(worker::request_problem(no_precision), "");
}

}  // namespace

namespace {

// A job's family options are at most 16 names of ints; anything else is refused naming the field.
TEST(WorkerFuzz, FamilyOptionsThatAreNotNamedIntsAreRefused) {
    const json good = valid_run_request();
    EXPECT_TRUE(worker::job_from_json(good.at("job")).options.empty()) << "an older client sends none";
    json causal = good;
    causal["job"]["family_options"] = {{"causal", 1}};
    ASSERT_EQ(worker::request_problem(causal), "");
    EXPECT_EQ(worker::job_from_json(causal.at("job")).options, (FamilyOptions{{"causal", 1}}));
    json many = good;
    for (int i = 0; i < 17; ++i) many["job"]["family_options"]["k" + std::to_string(i)] = i;
    for (const json& bad_value : {json("yes"), json(1.5), json(int64_t(1) << 40), json::array(), json(nullptr)}) {
        json bad = good;
        bad["job"]["family_options"] = {{"causal", bad_value}};
        const std::string why = worker::request_problem(bad);
        EXPECT_NE(why.find("family_options"), std::string::npos) << bad_value.dump() << ": " << why;
    }
    json not_object = good;
    not_object["job"]["family_options"] = "causal";
    EXPECT_NE(worker::request_problem(not_object).find("family_options"), std::string::npos);
    EXPECT_NE(worker::request_problem(many).find("more than 16"), std::string::npos);
}

// A job of several kernels: "passes" an array of at most 8 objects, each a kernel and a launch,
// every field checked and named; anything else is refused before the job is read.
TEST(WorkerFuzz, PassesThatAreNotKernelsAndLaunchesAreRefused) {
    const json good = valid_run_request();
    const json pass = {{"kernel", good.at("job").at("kernel")}, {"launch", good.at("job").at("launch")}};
    json two = good;
    two["job"]["passes"] = {pass, pass};
    ASSERT_EQ(worker::request_problem(two), "");
    EXPECT_EQ(worker::job_from_json(two.at("job")).passes.size(), 2u);
    const auto refused = [&](const json& passes, const std::string& words) {
        json bad = good;
        bad["job"]["passes"] = passes;
        const std::string why = worker::request_problem(bad);
        EXPECT_NE(why.find(words), std::string::npos) << passes.dump().substr(0, 200) << ": " << why;
    };
    refused("kernels", "\"passes\" is not an array");
    refused(json::array({1}), "passes[0]: not an object");
    refused(json::array({pass, json::object()}), "passes[1]: \"kernel\" is missing");
    json no_launch = pass;
    no_launch.erase("launch");
    refused(json::array({no_launch}), "passes[0]: \"launch\" is missing");
    json bad_grid = pass;
    bad_grid["launch"]["grid"] = {1, -2, 1};
    refused(json::array({bad_grid}), "passes[0]: launch:");
    json bad_counting = pass;
    bad_counting["counting"] = "cubin";
    refused(json::array({bad_counting}), "passes[0]: \"counting\" is not an object");
    refused(json(std::vector<json>(9, pass)), "more than 8");
    // A pass launched several times in a row (lesson 20's time steps): 1 … kMaxPassRepeats, a
    // whole number; the count comes through, and is 1 where absent.
    for (const json& n : {json(0), json(kMaxPassRepeats + 1), json(-3), json(2.5), json("4"), json(nullptr)}) {
        json repeated = pass;
        repeated["repeat"] = n;
        refused(json::array({pass, repeated}), "passes[1]: \"repeat\" is not a whole number from 1 to");
    }
    json repeated = pass;
    repeated["repeat"] = kMaxPassRepeats;
    two["job"]["passes"] = {pass, repeated};
    ASSERT_EQ(worker::request_problem(two), "");
    const worker::MeasureJob job = worker::job_from_json(two.at("job"));
    EXPECT_EQ(job.passes[0].repeat, 1);
    EXPECT_EQ(job.passes[1].repeat, kMaxPassRepeats);
    EXPECT_EQ(worker::job_to_json(job).at("passes")[1].at("repeat"), kMaxPassRepeats);
    EXPECT_FALSE(worker::job_to_json(job).at("passes")[0].contains("repeat")) << "1 is left out";
}

}  // namespace
