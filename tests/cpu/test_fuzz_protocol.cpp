// Both ends of the worker protocol against hostile frames (issue #30): the shape check that runs
// before any CBOR is parsed (random, truncated, lying and deeply nested bytes), the worker fed
// such frames by its client, and the client fed them by a "worker" that is a file played by
// `cat` through a launcher. Every case must end without a signal, within its time limit, with
// one sentence. Seeded: a failure names its case and reproduces.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fuzz_seed.h"
#include "host/remote_link.h"
#include "host/worker_client.h"
#include "spawned_program.h"
#include "worker_bytes.h"
#include "protocol/worker_protocol.h"
#include "tilelab/engine.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;
using worker::json;
using Clock = std::chrono::steady_clock;
using test::frame;
using test::frame_of;
using test::magic;

const uint32_t kSeed = tilelab::test::fuzz_seed(0x30'c0b0);

std::vector<uint8_t> nested_arrays(size_t depth) {   // [[[...[0]...]]]: one byte a level
    std::vector<uint8_t> bytes(depth, 0x81);
    bytes.push_back(0x00);
    return bytes;
}

json random_value(std::mt19937& rng, int depth) {
    switch (rng() % (depth > 3 ? 6 : 9)) {
    case 0: return nullptr;
    case 1: return bool(rng() & 1);
    case 2: return int64_t(rng()) - int64_t(rng()) * 65536;
    case 3: return uint64_t(rng()) << 32 | rng();
    case 4: return double(int(rng())) / 3.0;
    case 5: return std::string(rng() % 9, char('a' + rng() % 26));
    case 6: return json::binary(std::vector<uint8_t>(rng() % 9, uint8_t(rng())));
    case 7: {
        json a = json::array();
        for (int i = int(rng() % 4); i > 0; --i) a.push_back(random_value(rng, depth + 1));
        return a;
    }
    default: {
        static const char* const kKeys[] = {"id", "note", "failure", "result", "ceilings", "free_bytes", "total_bytes",
                                            "compiled", "ok", "timing", "context_lost", "error", "median_ms", "blocks"};
        json o = json::object();
        for (int i = int(rng() % 5); i > 0; --i) o[kKeys[rng() % 14]] = random_value(rng, depth + 1);
        return o;
    }
    }
}

// [SECTION] The shape check, on bytes -----------------------------------------------------------

TEST(ProtocolFuzz, TheShapeCheckRefusesDeepLongAndLyingBytesWithoutRecursing) {
    const worker::CborLimits& limits = worker::kReplyLimits;
    const auto problem = [&](const std::vector<uint8_t>& b) { return worker::cbor_shape_problem(b.data(), b.size(), limits); };
    EXPECT_NE(problem(nested_arrays(100000)).find("nested deeper than 64 levels"), std::string::npos);
    EXPECT_NE(problem(nested_arrays(3000000)).find("nested deeper"), std::string::npos);
    EXPECT_EQ(problem(nested_arrays(60)), "");
    std::vector<uint8_t> indefinite(100000, 0x9f);   // [_ [_ [_ ... without breaks
    EXPECT_NE(problem(indefinite).find("nested deeper"), std::string::npos);
    EXPECT_NE(problem({0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}).find("claims"), std::string::npos);
    EXPECT_NE(problem({0xbb, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}).find("claims"), std::string::npos);   // a map
    EXPECT_NE(problem({0x5a, 0x10, 0x00, 0x00, 0x00, 0x01}).find("claims 268435456 bytes"), std::string::npos);
    EXPECT_NE(problem({0xc1, 0x00}).find("tag"), std::string::npos);
    EXPECT_NE(problem({0x01, 0x02}).find("follow"), std::string::npos);
    EXPECT_NE(problem({0xff}).find("break"), std::string::npos);
    EXPECT_NE(problem({}).find("ends"), std::string::npos);
    EXPECT_NE(problem({0x1c}).find("malformed"), std::string::npos);
    const worker::CborLimits few{64, 100};
    const std::vector<uint8_t> many = json::to_cbor(json(std::vector<int>(200, 1)));
    EXPECT_NE(worker::cbor_shape_problem(many.data(), many.size(), few).find("more than 100 values"), std::string::npos);
}

TEST(ProtocolFuzz, EveryMessageTheShapeCheckPassesParsesAndEveryRealMessagePasses) {
    std::mt19937 rng(kSeed);
    for (int i = 0; i < 3000; ++i) {
        // Real messages pass and parse; random bytes and cut or flipped messages never crash
        // either step, and what passes the check parses without recursing past its limit.
        const std::vector<uint8_t> good = json::to_cbor(random_value(rng, 0));
        ASSERT_EQ(worker::cbor_shape_problem(good.data(), good.size(), worker::kRequestLimits), "") << "case " << i;
        std::vector<uint8_t> bad = good;
        switch (i % 4) {
        case 0: bad.resize(rng() % (bad.size() + 1)); break;
        case 1: bad[rng() % bad.size()] ^= uint8_t(1u << (rng() % 8)); break;
        case 2: bad.assign(rng() % 64, 0); for (auto& b : bad) b = uint8_t(rng()); break;
        default: bad.insert(bad.begin(), rng() % 200 + 65, uint8_t(0x81 + (rng() % 2) * 0x1e)); break;   // deep, 0x81 or 0x9f
        }
        json parsed;
        std::string error;
        const bool ok = worker::parse_frame_body(bad, parsed, error, worker::Peer::client);
        EXPECT_TRUE(ok || (!error.empty() && error.find('\n') == std::string::npos)) << "case " << i;
        EXPECT_EQ(error.find("GPU worker"), std::string::npos) << "a client's bytes are not the worker's: " << error;
    }
}

// [SECTION] The worker, fed hostile frames ------------------------------------------------------

struct WorkerProcess {
    pid_t pid = -1;
    int fd = -1;
    std::string err_path;
    WorkerProcess(const std::string& scratch) {
        std::string failure;
        const std::string path = find_gpu_worker(failure);
        EXPECT_FALSE(path.empty()) << failure;
        int channel[2], cancel[2];
        EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, channel), 0);
        EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, cancel), 0);
        err_path = scratch + "/worker.err";
        const std::string channel_fd = std::to_string(channel[1]), cancel_fd = std::to_string(cancel[1]);
        pid = fork();
        if (pid == 0) {
            ::close(channel[0]);
            ::close(cancel[0]);
            const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            ::dup2(err, 2);
            execl(path.c_str(), path.c_str(), "--channel-fd", channel_fd.c_str(), "--cancel-fd", cancel_fd.c_str(),
                  "--compile-only", static_cast<char*>(nullptr));
            _exit(127);
        }
        ::close(channel[1]);
        ::close(cancel[1]);
        ::close(cancel[0]);
        fd = channel[0];
        timeval limit{20, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    }
    // Waits (at most 20 s) for it to end; its wait status.
    int wait_status() {
        ::close(fd);
        int status = 0;
        for (int i = 0; i < 2000; ++i) {
            if (waitpid(pid, &status, WNOHANG) == pid) return status;
            usleep(10000);
        }
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return -1;
    }
};

TEST(ProtocolFuzz, TheWorkerEndsAConnectionThatSendsUnreadableFramesAndSaysWhyWithoutCrashing) {
    const fs::path dir = fs::temp_directory_path() / ("tilelab-protofuzz-" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::mt19937 rng(kSeed + 1);
    struct Case {
        std::string bytes, said;
    };
    std::vector<Case> cases = {
        {frame_of(nested_arrays(100000)), "the client sent a message that cannot be read: it is nested deeper than 64 levels"},
        {frame_of({0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), "claims"},
        {frame_of({0xff, 0xfe}), "the client sent a message that cannot be read"},
        {std::string("\x10\0\0\0", 4) + "\xa1\x62id", "closed in the middle of a message"},
        {std::string("\xff\xff\xff\x7f", 4), "at most"},
    };
    for (int i = 0; i < 12; ++i) {   // random bodies: whatever they are, the worker answers or says why it ended
        std::vector<uint8_t> body(rng() % 40 + 1);
        for (auto& b : body) b = uint8_t(rng());
        cases.push_back({frame_of(body), ""});
    }
    for (size_t i = 0; i < cases.size(); ++i) {
        WorkerProcess w(dir.string());
        // The worker may end the connection before it has read everything: no SIGPIPE for that.
        (void)::send(w.fd, cases[i].bytes.data(), cases[i].bytes.size(), MSG_NOSIGNAL);
        ::shutdown(w.fd, SHUT_WR);
        json reply;
        std::string error;
        while (worker::read_frame(w.fd, reply, error) == worker::ReadStatus::message) {}   // replies to what it could read
        const int status = w.wait_status();
        ASSERT_NE(status, -1) << "case " << i << ": the worker did not end";
        ASSERT_TRUE(WIFEXITED(status)) << "case " << i << ": the worker died of signal " << WTERMSIG(status);
        const std::string said = test::slurp(w.err_path);
        EXPECT_NE(said.find(cases[i].said), std::string::npos) << "case " << i << ": " << said;
        EXPECT_EQ(said.find("the GPU worker sent"), std::string::npos) << "case " << i << ": the client's bytes: " << said;
        EXPECT_LE(std::count(said.begin(), said.end(), '\n'), 1) << said;
    }
    fs::remove_all(dir);
}

// [SECTION] The client, fed hostile replies ----------------------------------------------------

json greeting() {
    return {{"hello", "tilelab-gpu-worker"}, {"protocol", worker::kProtocolVersion}, {"host", "fakehost"},
            {"device", {{"gpu", false}, {"reason", "no GPU in this test"}, {"name", "Fake"}}}};
}

struct Scratch : test::Scratch {
    Scratch() : test::Scratch("protofuzz-client") {}
};

GpuLocation via(const std::string& command, int timeout_s) {
    GpuLocation where;
    where.command = command;
    where.connect_timeout_s = timeout_s;
    return where;
}

long max_rss_kb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// A reply that cannot be read ends the link with a sentence, never the client: nested 3 million
// deep, a header claiming 256 MiB and then silence (nothing allocated up front), a non-object.
TEST(ProtocolFuzz, TheClientRefusesUnreadableRepliesWithinTheSilenceLimit) {
    Scratch s;
    const std::string hello = magic() + frame(greeting());
    struct Case {
        std::string reply, said;
    };
    const Case cases[] = {
        {frame_of(nested_arrays(3000000)), "nested deeper than 64 levels"},
        {std::string("\xff\xff\xff\x0f", 4) + "abc", "went silent for 1 s"},
        {frame(json::array({1, 2})), "not an object"},
        {frame(json(7)), "not an object"},
        {std::string("\x05\0\0\0\xa1", 5), "went silent"},
    };
    for (const Case& c : cases) {
        WorkerClient client;
        client.configure(via("cat " + s.file("reply", hello + c.reply) + "; cat >/dev/null", 1));
        json got, reply;
        std::string failure;
        ASSERT_TRUE(client.connect(got, failure)) << failure;
        const long rss_before = max_rss_kb();
        const auto start = Clock::now();
        EXPECT_FALSE(client.call({{"op", "memory"}}, nullptr, reply, failure));
        EXPECT_LT(Clock::now() - start, std::chrono::seconds(5)) << c.said;
        EXPECT_NE(failure.find(c.said), std::string::npos) << failure;
        EXPECT_EQ(failure.find("json.exception"), std::string::npos) << failure;
        EXPECT_LT(max_rss_kb() - rss_before, 64 * 1024) << "allocated before the body came: " << c.said;
    }
}

// Replies that parse, of every wrong type: what call() accepts, the readers read without
// throwing; what it refuses, it refuses with a sentence that names the field.
TEST(ProtocolFuzz, TheClientReadsOnlyRepliesWhoseFieldsAreRight) {
    Scratch s;
    std::mt19937 rng(kSeed + 2);
    Measurement good_m;
    good_m.ok = true;
    good_m.counted = AccessCounts{};
    const json good[] = {{{"result", good_m}}, {{"free_bytes", 1}, {"total_bytes", 2}}, {{"ceilings", Ceilings{}}},
                         {{"compiled", worker::compile_result_to_json(CompileResult{})}}};
    const char* const ops[] = {"run", "memory", "ceilings", "compile"};
    constexpr int kCases = 160;
    std::string replies = magic() + frame(greeting());
    std::vector<json> sent;
    for (int i = 0; i < kCases; ++i) {
        json r = good[i % 4];
        if (i % 5 == 0) r = random_value(rng, 1);
        else {   // one field of a real reply removed or given another type
            std::vector<json::json_pointer> leaves;
            const auto walk = [&](auto&& self, const json& j, const json::json_pointer& at) -> void {
                if (j.is_object()) for (const auto& [k, v] : j.items()) self(self, v, at / k);
                leaves.push_back(at);
            };
            walk(walk, r, json::json_pointer());
            const auto& path = leaves[rng() % leaves.size()];
            if (!path.empty() && rng() % 3 == 0) r.at(path.parent_pointer()).erase(path.back());
            else if (!path.empty()) r[path] = random_value(rng, 2);
        }
        if (!r.is_object()) r = json{{"x", r}};
        r.erase("context_lost");
        r.erase("note");
        r["id"] = i + 1;
        sent.push_back(r);
        replies += frame(r);
    }
    WorkerClient client;
    client.configure(via("cat " + s.file("replies", replies) + "; cat >/dev/null", 5));
    json hello;
    std::string failure;
    ASSERT_TRUE(client.connect(hello, failure)) << failure;
    int accepted = 0;
    for (int i = 0; i < kCases; ++i) {
        json reply;
        const std::string op = ops[i % 4];
        const bool ok = client.call({{"op", op}}, nullptr, reply, failure);
        ASSERT_TRUE(ok || !failure.empty()) << "case " << i << ": " << sent[size_t(i)].dump().substr(0, 400);
        if (!ok) {
            EXPECT_EQ(failure.find("json.exception"), std::string::npos) << "case " << i << ": " << failure;
            EXPECT_EQ(failure.find('\n'), std::string::npos) << failure;
            ASSERT_EQ(failure.find("closed"), std::string::npos) << "case " << i << ": the link broke: " << failure;
            continue;
        }
        ++accepted;
        const std::string what = sent[size_t(i)].dump();
        if (op == "run") {
            EXPECT_NO_THROW(reply.at("result").get<Measurement>()) << what;
        } else if (op == "memory") {
            EXPECT_NO_THROW((void)reply.at("free_bytes").get<size_t>()) << what;
        } else if (op == "ceilings") {
            EXPECT_NO_THROW(reply.at("ceilings").get<Ceilings>()) << what;
        } else {
            EXPECT_NO_THROW(worker::compile_result_from_json(reply.at("compiled"))) << what;
        }
    }
    EXPECT_GT(accepted, 5) << "the real replies among them are read";
    EXPECT_LT(accepted, kCases - 20) << "the broken ones are refused";
}

// A worker that says "waiting for the GPU" forever is given up at the request's time limit,
// with a sentence that quotes it; the launcher (a loop, no exec) goes with its process group.
// A reply that says it failed but not why (found by seed 146 of the campaign: "failure": "")
// still gives the caller a sentence, in both languages.
TEST(ProtocolFuzz, AFailureWithoutWordsStillSaysSomething) {
    Scratch s;
    const json blanks[] = {"", "   ", "\n", "\t\n"};
    std::string replies = magic() + frame(greeting());
    for (size_t i = 0; i < std::size(blanks); ++i) replies += frame({{"id", i + 1}, {"failure", blanks[i]}});
    WorkerClient client;
    client.configure(via("cat " + s.file("replies", replies) + "; cat >/dev/null", 5));
    json hello, reply;
    std::string failure;
    ASSERT_TRUE(client.connect(hello, failure)) << failure;
    for (size_t i = 0; i < std::size(blanks); ++i) {
        failure.clear();
        if (i == 1) set_language(Language::Chinese);
        EXPECT_FALSE(client.call({{"op", "memory"}}, nullptr, reply, failure)) << i;
        set_language(Language::English);
        EXPECT_EQ(failure, i == 1 ? "GPU worker \xe6\x8a\xa5\xe5\x91\x8a\xe4\xba\x86\xe5\xa4\xb1\xe8\xb4\xa5\xef\xbc\x8c\xe4\xbd\x86\xe6\xb2\xa1\xe6\x9c\x89\xe8\xaf\xb4\xe6\x98\x8e\xe5\x8e\x9f\xe5\x9b\xa0"
                                  : "the GPU worker reported a failure without saying why") << i;
    }
}

// A greeting without a GPU that gives no reason: the engine still says one.
TEST(ProtocolFuzz, AGreetingWithoutAReasonStillSaysWhyThereIsNoGpu) {
    Scratch s;
    json hello = greeting();
    hello["device"]["reason"] = " \n";
    EngineConfig cfg;
    cfg.own_worker = true;
    cfg.gpu = via("cat " + s.file("hello", magic() + frame(hello)) + "; cat >/dev/null", 5);
    Engine engine(cfg);
    const DeviceStatus d = engine.device();
    EXPECT_FALSE(d.gpu);
    EXPECT_FALSE(d.unreachable) << d.reason;
    EXPECT_EQ(d.reason.substr(d.reason.size() - std::string(": no GPU").size()), ": no GPU") << d.reason;
}

TEST(ProtocolFuzz, NotesForeverEndAtTheRequestLimitAndTheLauncherGroupGoes) {
    Scratch s;
    const std::string hello = s.file("hello", magic() + frame(greeting()));
    const std::string note = s.file("note", frame({{"note", "waiting for the GPU: another run holds it"}, {"id", 1}}));
    const std::string pid_file = (s.dir / "loop.pid").string();
    ::setenv("TILELAB_WORKER_WAIT_S", "2", 1);
    {
        WorkerClient client;
        client.configure(via("cat " + hello + "; sh -c 'echo $$ > " + pid_file + "; while :; do cat " + note +
                                 "; sleep 0.2; done'",
                             1));
        json got, reply;
        std::string failure;
        ASSERT_TRUE(client.connect(got, failure)) << failure;
        const auto start = Clock::now();
        EXPECT_FALSE(client.call({{"op", "memory"}}, nullptr, reply, failure));
        const double took = std::chrono::duration<double>(Clock::now() - start).count();
        EXPECT_GE(took, 1.9);
        EXPECT_LT(took, 6);
        EXPECT_NE(failure.find("kept this request waiting for 2 s"), std::string::npos) << failure;
        EXPECT_NE(failure.find("another run holds it"), std::string::npos) << failure;
    }
    ::unsetenv("TILELAB_WORKER_WAIT_S");
    const pid_t loop = std::atoi(test::slurp(pid_file).c_str());
    ASSERT_GT(loop, 0);
    const std::string stat = test::slurp("/proc/" + std::to_string(loop) + "/stat");
    EXPECT_TRUE(stat.empty() || stat.find(") Z ") != std::string::npos) << "the launcher's loop still runs: " << stat;
}

}  // namespace
}  // namespace tilelab
