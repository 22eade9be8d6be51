// The GPU worker over one byte stream (tilelab-gpu-worker --stdio) through a launcher (sh -c),
// without a GPU: the greeting and its protocol version, what a launcher that is not the worker
// prints, truncated and oversized frames, a stream that drops in the middle of a run, the
// connect time-out, and the engine and CLI over it. On a machine without a GPU the real worker
// greets with "no GPU" and its reason: the session is a model-mode session, as the app shows it.
#include <gtest/gtest.h>
#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <algorithm>
#include "host/remote_link.h"
#include "host/worker_client.h"
#include "spawned_program.h"
#include "worker_bytes.h"
#include "tilelab/engine.h"
#include "tilelab/result_json.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;
using worker::json;
using Clock = std::chrono::steady_clock;

std::string worker_path() {
    std::string failure;
    const std::string path = find_gpu_worker(failure);
    EXPECT_FALSE(path.empty()) << failure;
    return path;
}

struct Scratch : test::Scratch {
    Scratch() : test::Scratch("stdio-test") {}
};

json greeting(int protocol, bool gpu) {
    json hello = {{"hello", "tilelab-gpu-worker"}, {"protocol", protocol}, {"host", "fakehost"},
                  {"device", {{"gpu", gpu}, {"reason", gpu ? "" : "no GPU in this test"}, {"name", "Fake GPU"}}}};
    if (gpu) hello["target"] = json::parse(nlohmann::ordered_json(*find_target("h100")).dump());
    return hello;
}

GpuLocation via(const std::string& command, int timeout_s = 10) {
    GpuLocation where;
    where.command = command;
    where.connect_timeout_s = timeout_s;
    return where;
}

// Opens a link through `command`, expecting it to fail; why it failed.
std::string refused_by(const std::string& command, int timeout_s = 10) {
    RemoteLink link(via(command, timeout_s));
    json hello;
    std::string failure;
    EXPECT_FALSE(link.open(hello, failure));
    return failure;
}

TEST(RemoteStdio, TheRealWorkerGreetsWithItsProtocolAndSaysWhetherItHasAGpu) {
    RemoteLink link(via(worker_path() + " --stdio"));
    json hello;
    std::string failure;
    ASSERT_TRUE(link.open(hello, failure)) << failure;
    EXPECT_EQ(hello.at("protocol"), worker::kProtocolVersion);
    EXPECT_FALSE(hello.at("host").get<std::string>().empty());
    const json& device = hello.at("device");
    if (!device.at("gpu").get<bool>()) EXPECT_FALSE(device.at("reason").get<std::string>().empty()) << "no GPU, and no reason given";
    else EXPECT_TRUE(hello.contains("target"));
}

TEST(RemoteStdio, ACommandThatIsNotTheWorkerIsNamedWithWhatItPrinted) {
    const std::string failure = refused_by("echo Welcome to gpu01");
    EXPECT_NE(failure.find("printed \"Welcome "), std::string::npos) << failure;
}

TEST(RemoteStdio, AMissingWorkerIsSaidSo) {
    const std::string failure = refused_by("tilelab-no-such-worker-here --stdio");
    EXPECT_NE(failure.find("was not found"), std::string::npos) << failure;
}

// A worker file that cannot be executed is said so, not taken for a refused SSH login (both say
// "Permission denied"; 2026-12-05 the command's said the SSH sentence).
TEST(RemoteStdio, AWorkerThatIsNotExecutableIsSaidSo) {
    Scratch s;
    const std::string file = s.file("tilelab-gpu-worker", "#!/bin/sh\n");   // mode 644
    const std::string failure = refused_by(file + " --stdio");
    EXPECT_NE(failure.find("permission denied"), std::string::npos) << failure;
    EXPECT_EQ(failure.find("SSH"), std::string::npos) << failure;
}

TEST(RemoteStdio, AWorkerOfAnotherProtocolVersionIsRefusedWithBothVersions) {
    Scratch s;
    const std::string file = s.file("old", test::magic() + test::frame(greeting(worker::kProtocolVersion + 7, true)));
    const std::string failure = refused_by("cat " + file + "; sleep 5");
    EXPECT_NE(failure.find(fmt::format("speaks protocol {}", worker::kProtocolVersion + 7)), std::string::npos) << failure;
    EXPECT_NE(failure.find(fmt::format("this TileLab speaks {}", worker::kProtocolVersion)), std::string::npos) << failure;
}

TEST(RemoteStdio, TruncatedAndOversizedGreetingsAreFramingErrors) {
    Scratch s;
    const std::string whole = test::frame(greeting(worker::kProtocolVersion, true));
    const std::string truncated = s.file("truncated", test::magic() + whole.substr(0, whole.size() / 2));
    const std::string huge = s.file("huge", test::magic() + std::string("\xff\xff\xff\x7f", 4));
    const std::string not_cbor = s.file("notcbor", test::magic() + std::string("\x03\0\0\0", 4) + "\xff\xff\xff");
    const std::pair<std::string, std::string> cases[] = {{truncated, "closed in the middle of the greeting"},
                                                         {huge, "far more than a greeting"},
                                                         {not_cbor, "not a valid message"}};
    for (const auto& [file, expected] : cases) {
        const std::string failure = refused_by("cat " + file);
        EXPECT_NE(failure.find(expected), std::string::npos) << failure;
    }
}

TEST(RemoteStdio, ASilentCommandIsGivenUpAtTheConnectTimeout) {
    const auto start = Clock::now();
    const std::string failure = refused_by("sleep 30", 1);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(4));
    EXPECT_NE(failure.find("no answer within 1 s"), std::string::npos) << failure;
}

TEST(RemoteStdio, AStreamThatDropsInTheMiddleOfARunFailsTheRunAndStaysLostUntilReconnect) {
    Scratch s;
    // Greets as a worker with a GPU, takes the request, then the stream ends (a dropped link).
    const std::string file = s.file("drop", test::magic() + test::frame(greeting(worker::kProtocolVersion, true)));
    WorkerClient& client = WorkerClient::instance();
    client.configure(via("cat " + file + "; head -c 4 >/dev/null; echo 'link dropped' >&2"));
    json hello, reply;
    std::string failure;
    ASSERT_TRUE(client.connect(hello, failure)) << failure;
    const auto start = Clock::now();
    EXPECT_FALSE(client.call({{"op", "memory"}}, nullptr, reply, failure));
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(8));
    EXPECT_NE(failure.find("closed in the middle of a run"), std::string::npos) << failure;
    EXPECT_NE(failure.find("link dropped"), std::string::npos) << "the launcher's last words: " << failure;
    EXPECT_EQ(client.lost(), failure);
    std::string again;
    EXPECT_FALSE(client.call({{"op", "memory"}}, nullptr, reply, again));
    EXPECT_EQ(again, failure) << "a lost link answers with its reason at once";
    client.configure(GpuLocation{});   // back to this machine for the other tests
}

TEST(RemoteStdio, TheWorkerEndsTheConnectionOnAnOversizedFrameAndSaysWhy) {
    WorkerClient& client = WorkerClient::instance();
    Scratch s;
    const std::string log = (s.dir / "worker.err").string();
    // The oversized frame is sent by the "launcher" itself, after the worker's greeting.
    // (The shell around the pipe keeps the stream open after the worker leaves: the client's
    // silence limit, 2 s here, ends the wait.)
    client.configure(via("(printf '\\377\\377\\377\\017'; cat) | " + worker_path() + " --stdio 2>" + log, 2));
    json hello, reply;
    std::string failure;
    ASSERT_TRUE(client.connect(hello, failure)) << failure;
    EXPECT_FALSE(client.call({{"op", "memory"}}, nullptr, reply, failure));
    client.configure(GpuLocation{});
    const std::string said = test::slurp(log);
    EXPECT_NE(said.find("ending the connection"), std::string::npos) << said;
    EXPECT_NE(said.find("at most 16777216 are allowed"), std::string::npos) << said;
}

TEST(RemoteStdio, TheEngineOverTheStdioWorkerCompilesForTheTargetItWasGiven) {
    EngineConfig cfg;
    cfg.gpu = via(worker_path() + " --stdio");
    Engine engine(cfg);
    const DeviceStatus d = engine.device();
    EXPECT_FALSE(d.unreachable) << d.reason;
    EXPECT_NE(d.where.find("via `"), std::string::npos) << d.where;
    if (!d.gpu) {   // a model-mode session over the link: analysed, not measured, and said why
        EXPECT_NE(d.reason.find("no usable device"), std::string::npos) << d.reason;
        const RunResult r = engine.run(RunRequest{"matmul.smem_tiled", {}, Problem{{256, 256, 256}}});
        EXPECT_TRUE(r.ok) << r.error;
        EXPECT_FALSE(r.measured);
        EXPECT_EQ(r.no_gpu_reason, d.reason);
    }
    WorkerClient::instance().configure(GpuLocation{});
}

TEST(RemoteStdio, TheEngineFallsBackToModelModeWhenTheGpuCannotBeReached) {
    EngineConfig cfg;
    cfg.gpu = via("echo 'srun: error: Unable to allocate resources: Invalid partition name specified' >&2; exit 1");
    Engine engine(cfg);
    const DeviceStatus d = engine.device();
    EXPECT_FALSE(d.gpu);
    EXPECT_TRUE(d.unreachable);
    EXPECT_NE(d.reason.find("Slurm did not start the GPU worker"), std::string::npos) << d.reason;
    EXPECT_NE(d.reason.find("Invalid partition name"), std::string::npos) << d.reason;
    EXPECT_TRUE(engine.analyze(RunRequest{"matmul.smem_tiled", {}, Problem{{256, 256, 256}}}).ok);
    WorkerClient::instance().configure(GpuLocation{});
}

TEST(RemoteStdio, TheCliExitsOneWithTheReasonWhenTheGpuCannotBeReached) {
    Scratch s;
    const test::Spawned r = test::spawn(test::cli_path(), {"run", "02", "--gpu-command", "echo 'no route' >&2; exit 255"},
                                        {}, 30, s.dir.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("no route"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    const test::Spawned bad = test::spawn(test::cli_path(), {"run", "02", "--gpu-host", "-oProxyCommand=touch x"}, {}, 30,
                                          s.dir.string());
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find("is not a host name"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tilelab
