// The GPU worker through a real OpenSSH server, end to end, without a GPU: the test starts its
// own sshd on 127.0.0.1 (a free port, its own host key, a throw-away client key in a temporary
// authorized_keys; StrictModes and PAM off, as the current user) and reaches the worker through
// `ssh ... tilelab-gpu-worker --stdio` given as --gpu-command. It skips, saying why, only if
// sshd cannot be started here (scripts/setup.sh installs openssh-server).
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include "host/worker_client.h"
#include "spawned_program.h"
#include "tilelab/engine.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int free_port() {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = -1;
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    ::close(s);
    return port;
}

bool port_open(int port) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(uint16_t(port));
    const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(s);
    return ok;
}

// One sshd for the whole suite.
class SshServer : public ::testing::Test {
protected:
    static inline fs::path dir;
    static inline pid_t sshd = -1;
    static inline int port = -1;
    static inline std::string skip_reason, user, worker;

    static bool keygen(const fs::path& key) {
        return test::spawn("/usr/bin/ssh-keygen", {"-q", "-t", "ed25519", "-N", "", "-f", key.string()}, {}, 30, dir.string())
                   .exit_code == 0;
    }

    static void SetUpTestSuite() {
        dir = fs::temp_directory_path() / ("tilelab-sshd-test-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        if (!fs::exists("/usr/sbin/sshd") || !fs::exists("/usr/bin/ssh") || !fs::exists("/usr/bin/ssh-keygen")) {
            skip_reason = "sshd, ssh or ssh-keygen is not installed (Debian: openssh-server, openssh-client)";
            return;
        }
        std::string failure;
        worker = find_gpu_worker(failure);
        if (!keygen(dir / "host_key") || !keygen(dir / "client_key") || !keygen(dir / "wrong_key")) {
            skip_reason = "ssh-keygen failed";
            return;
        }
        fs::copy_file(dir / "client_key.pub", dir / "authorized_keys");
        fs::permissions(dir / "authorized_keys", fs::perms::owner_read | fs::perms::owner_write);
        user = ::getpwuid(::getuid())->pw_name;
        port = free_port();
        std::ofstream(dir / "sshd_config") << fmt::format(
            "Port {}\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\nPidFile {}\n"
            "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nLogLevel ERROR\n",
            port, (dir / "host_key").string(), (dir / "authorized_keys").string(), (dir / "sshd.pid").string());
        // As root, sshd wants its privilege-separation folder (the Debian service makes it).
        if (::getuid() == 0) ::mkdir("/run/sshd", 0755);
        const std::string log = (dir / "sshd.log").string(), config = (dir / "sshd_config").string();
        sshd = ::fork();
        if (sshd == 0) {
            const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            ::dup2(fd, 2);
            ::execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", config.c_str(), nullptr);
            ::_exit(127);
        }
        for (int i = 0; i < 100 && !port_open(port); ++i) {
            int status = 0;
            if (::waitpid(sshd, &status, WNOHANG) == sshd) {
                sshd = -1;
                skip_reason = "sshd could not be started: " + test::slurp(log);
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (!port_open(port)) skip_reason = "sshd did not listen within 5 s: " + test::slurp(log);
    }

    static void TearDownTestSuite() {
        if (sshd > 0) {
            ::kill(sshd, SIGTERM);
            ::waitpid(sshd, nullptr, 0);
        }
        std::error_code ec;
        fs::remove_all(dir, ec);
    }

    void SetUp() override {
        if (!skip_reason.empty()) GTEST_SKIP() << skip_reason;
    }

    // The launcher the app's --gpu-command takes: the user's own ssh, pointed at this server.
    static std::string ssh_command(const std::string& key = "client_key") {
        return fmt::format("ssh -F /dev/null -T -o BatchMode=yes -o IdentitiesOnly=yes -o UserKnownHostsFile={} "
                           "-o StrictHostKeyChecking=accept-new -o ConnectTimeout=5 -p {} -i {} {}@127.0.0.1 {} --stdio",
                           (dir / "known_hosts").string(), port, (dir / key).string(), user, worker);
    }

    static GpuLocation via_ssh(const std::string& key = "client_key") {
        GpuLocation where;
        where.command = ssh_command(key);
        where.connect_timeout_s = 10;
        return where;
    }

    // Kills the server's side of every open connection: sshd's children.
    static int kill_sessions() {
        int killed = 0;
        for (const auto& e : fs::directory_iterator("/proc")) {
            std::ifstream stat(e.path() / "stat");
            std::string pid, comm, state;
            long ppid = 0;
            if (!(stat >> pid >> comm >> state >> ppid)) continue;
            if (ppid == sshd) killed += ::kill(std::stoi(pid), SIGKILL) == 0;
        }
        return killed;
    }
};

TEST_F(SshServer, AModelModeSessionRunsOverSshAndSaysWhereTheRunsGo) {
    EngineConfig cfg;
    cfg.gpu = via_ssh();
    Engine engine(cfg);
    const DeviceStatus d = engine.device();
    ASSERT_FALSE(d.unreachable) << d.reason;
    EXPECT_NE(d.where.find("via `ssh"), std::string::npos) << d.where;
    const RunResult r = engine.run(RunRequest{"matmul.smem_tiled", {}, Problem{{256, 256, 256}}});
    EXPECT_TRUE(r.ok) << r.error;
    if (!d.gpu) {   // no GPU behind this sshd: analysed, not measured, with the far end's reason
        EXPECT_NE(d.reason.find("no usable device"), std::string::npos) << d.reason;
        EXPECT_FALSE(r.measured);
        EXPECT_EQ(r.no_gpu_reason, d.reason);
    }
    WorkerClient::instance().configure(GpuLocation{});
}

TEST_F(SshServer, TheCliOverSshExitsAsItWouldLocally) {
    const test::Spawned r = test::spawn(test::cli_path(), {"run", "02", "--size", "256", "--gpu-command", ssh_command()}, {},
                                        60, dir.string());
    EXPECT_TRUE(r.exit_code == 3 || r.exit_code == 0) << r.err;
    if (r.exit_code == 3) {
        EXPECT_NE(r.err.find("no usable device"), std::string::npos) << r.err;
    }
}

TEST_F(SshServer, AWrongKeyIsRefusedInOneSentenceWithoutAPasswordPrompt) {
    const auto start = Clock::now();
    EngineConfig cfg;
    cfg.gpu = via_ssh("wrong_key");
    Engine engine(cfg);
    const DeviceStatus d = engine.device();
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
    EXPECT_FALSE(d.gpu);
    EXPECT_TRUE(d.unreachable);
    EXPECT_NE(d.reason.find("refused the SSH login"), std::string::npos) << d.reason;
    EXPECT_NE(d.reason.find("Permission denied"), std::string::npos) << d.reason;
    WorkerClient::instance().configure(GpuLocation{});
}

TEST_F(SshServer, AKilledConnectionFailsTheRunInBoundedTimeAndStaysLost) {
    WorkerClient& client = WorkerClient::instance();
    client.configure(via_ssh());
    worker::json hello, reply;
    std::string failure;
    ASSERT_TRUE(client.connect(hello, failure)) << failure;
    ASSERT_GE(kill_sessions(), 1) << "no ssh session to kill";
    const auto start = Clock::now();
    EXPECT_FALSE(client.call({{"op", "memory"}}, nullptr, reply, failure));
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(15));
    EXPECT_NE(failure.find("closed"), std::string::npos) << failure;
    EXPECT_EQ(client.lost(), failure);
    // Reconnect: a new session through the same sshd.
    EXPECT_TRUE(client.connect(hello, failure)) << failure;
    EXPECT_EQ(client.lost(), "");
    client.configure(GpuLocation{});
}

}  // namespace
}  // namespace tilelab
