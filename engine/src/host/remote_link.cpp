// Reaching a GPU worker through a launcher (remote_link.h).
#include "host/remote_link.h"
#include "tilelab/i18n.h"
#include "host/worker_replies.h"
#include "store/child_process.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

extern char** environ;

namespace tilelab {

// The last lines a launcher wrote to stderr (ssh's, srun's, the shell's, the worker's own).
struct StderrTail {
    std::mutex mutex;
    std::deque<std::string> lines;
    std::string partial;
    void add(const char* data, size_t n) {
        std::lock_guard lock(mutex);
        for (size_t i = 0; i < n; ++i) {
            if (data[i] == '\n' || data[i] == '\r') {
                if (!partial.empty()) lines.push_back(std::move(partial));
                partial.clear();
                while (lines.size() > 8) lines.pop_front();
            } else if (partial.size() < 400) {
                partial += data[i];
            }
        }
    }
    std::vector<std::string> last(size_t n) {
        std::lock_guard lock(mutex);
        std::vector<std::string> out(lines.begin(), lines.end());
        if (!partial.empty()) out.push_back(partial);
        if (out.size() > n) out.erase(out.begin(), out.end() - long(n));
        return out;
    }
};

namespace {

using worker::json;
using Clock = std::chrono::steady_clock;
// How long a launcher still running at close() has after SIGTERM before its group is killed.
constexpr int kTermGraceMs = 500;

// The process groups of the launchers this process runs (0: a free slot), for the signal
// handler of end_launchers_with_this_process(): lock-free, so that the handler may read them.
constexpr int kMaxLaunchers = 64;
std::atomic<pid_t> launcher_groups[kMaxLaunchers];

void remember_group(pid_t group) {
    for (auto& slot : launcher_groups) {
        pid_t empty = 0;
        if (slot.compare_exchange_strong(empty, group)) return;
    }
}

void forget_group(pid_t group) {
    for (auto& slot : launcher_groups) {
        pid_t mine = group;
        if (slot.compare_exchange_strong(mine, 0)) return;
    }
}

void end_launchers_and_die(int sig) {
    for (auto& slot : launcher_groups)
        if (const pid_t group = slot.load(); group > 0) ::kill(-group, SIGKILL);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

std::string shortened(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n) + "…"; }

void read_stderr(int fd, std::shared_ptr<StderrTail> tail) {
    char buffer[1024];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        tail->add(buffer, size_t(n));
    }
    ::close(fd);
}

// Reads exactly n bytes before `deadline`. "" or what happened.
std::string read_by(int fd, uint8_t* data, size_t n, Clock::time_point deadline, size_t& got) {
    got = 0;
    while (got < n) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return "timeout";
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, int(std::min<long long>(left, 100)));
        if (ready < 0 && errno != EINTR) return std::string("poll: ") + std::strerror(errno);
        if (ready <= 0) continue;
        const ssize_t r = ::read(fd, data + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return std::string("read: ") + std::strerror(errno);
        if (r == 0) return "closed";
        got += size_t(r);
    }
    return "";
}

std::string printable(const uint8_t* data, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += (data[i] >= 32 && data[i] < 127) ? char(data[i]) : '.';
    return s;
}

}  // namespace

std::string GpuLocation::describe() const {
    if (!host.empty()) return say("{} via ssh", "{}（经 ssh）", host);
    if (!command.empty()) return say("via `{}`", "经由 `{}`", shortened(command, 60));
    return "";
}

std::string GpuLocation::problem() const {
    if (!host.empty() && !command.empty())
        return say("give either a GPU host or a GPU command, not both", "请只给出 GPU 主机或 GPU 命令中的一个，不要同时给出");
    if (!host.empty()) {
        if (host[0] == '-')
            return say("'{}' is not a host name (it starts with '-')", "“{}”不是主机名（它以“-”开头）", shortened(host, 40));
        for (char c : host)
            if (c <= ' ' || c == 127)
                return say("'{}' is not a host name (it holds spaces or control characters)", "“{}”不是主机名（其中有空格或控制字符）",
                           shortened(host, 40));
    }
    for (char c : command)
        if (c == '\n' || c == '\r' || c == '\0') return say("the GPU command must be one line", "GPU 命令必须只有一行");
    if (connect_timeout_s < 1 || connect_timeout_s > 600)
        return say("the connect time-out must be 1 to 600 seconds", "连接超时必须在 1 到 600 秒之间");
    if (device < -1 || device > 1023)
        return say("GPU {} is not a device number (0 to 1023)", "GPU {} 不是设备编号（0 到 1023）", device);
    return "";
}

std::vector<std::string> launcher_argv(const GpuLocation& where) {
    if (!where.host.empty()) {
        // -T: no terminal (a byte stream); BatchMode: keys only, never a password prompt that
        // nobody sees; the keep-alives end a dropped link within about 15 s.
        std::vector<std::string> argv = {"ssh", "-T", "-o", "BatchMode=yes", "-o", fmt::format("ConnectTimeout={}", where.connect_timeout_s),
                                         "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "--", where.host,
                                         "tilelab-gpu-worker", "--stdio"};
        if (where.device >= 0) argv.insert(argv.end(), {"--gpu-device", std::to_string(where.device)});
        return argv;
    }
    // The command ends in `tilelab-gpu-worker --stdio` (GpuLocation), so the flag goes last.
    return {"/bin/sh", "-c", where.device >= 0 ? fmt::format("{} --gpu-device {}", where.command, where.device) : where.command};
}

RemoteLink::~RemoteLink() { close(0); }

bool RemoteLink::open(json& hello, std::string& failure) {
    if (const std::string p = where_.problem(); !p.empty()) {
        failure = p;
        return false;
    }
    int pair[2], err[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        failure = std::string("could not create the channel to the GPU worker: ") + std::strerror(errno);
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pair[1], 0);
    posix_spawn_file_actions_adddup2(&actions, pair[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawnattr_t attr;
    // Its own process group: a terminal's Ctrl-C reaches the app, not ssh (which would drop the link).
    init_child_spawn_attributes(attr, /*own_group=*/true);
    const std::vector<std::string> args = launcher_argv(where_);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(pair[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(pair[0]);
        ::close(err[0]);
        pid_ = -1;
        failure = rc == ENOENT && args[0] == "ssh"
                      ? "ssh is not installed on this computer (Debian: openssh-client), so the GPU host cannot be reached"
                      : fmt::format("could not start {}: {}", args[0], std::strerror(rc));
        return false;
    }
    channel_ = pair[0];
    reaped_ = false;
    remember_group(pid_);
    tail_ = std::make_shared<StderrTail>();
    std::thread(read_stderr, err[0], tail_).detach();

    const std::string problem = read_greeting(channel_, where_.connect_timeout_s * 1000, hello);
    if (problem.empty()) {
        if (std::string p = greeting_problem(hello, where_.describe()); !p.empty()) {
            failure = p;
            close(2000);
            return false;
        }
        return true;
    }
    if (problem == "timeout") {
        close(0);
        failure = explain(say("no answer within {} s", "{} 秒内没有回答", where_.connect_timeout_s));
    } else if (problem == "closed") {
        close(2000);   // it has exited or is exiting: its status and stderr tell why
        failure = explain(say("the launcher ended before the GPU worker answered", "启动器在 GPU 工作进程回答之前就结束了"));
    } else {
        close(2000);
        failure = explain(problem);
    }
    return false;
}

int RemoteLink::exit_status() {
    if (!reaped_ && pid_ > 0) {
        // Looked at, not reaped: the launcher's pid names its process group until close() has
        // ended the whole group, so that no other process can take that number meanwhile.
        siginfo_t info{};
        if (::waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_)
            return info.si_code == CLD_EXITED ? (info.si_status & 0xff) << 8 : info.si_status & 0x7f;
    }
    return reaped_ ? status_ : -1;
}

std::string RemoteLink::close(int grace_ms) {
    if (channel_ >= 0) ::close(channel_);
    channel_ = -1;
    if (pid_ <= 0) return "not running";
    for (int waited = 0; exit_status() < 0 && waited < grace_ms; waited += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    // The launcher leads a process group of its own (open()): what it started and left running
    // (a compound command, srun inside a script, a worker behind a pipe) ends with the group.
    // A launcher still running is asked first (srun passes SIGTERM on and releases its
    // allocation), then the group is killed.
    if (exit_status() < 0) {
        ::kill(-pid_, SIGTERM);
        for (int waited = 0; exit_status() < 0 && waited < kTermGraceMs; waited += 10)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(-pid_, SIGKILL);
    int status = 0;
    if (::waitpid(pid_, &status, 0) == pid_) status_ = status;
    reaped_ = true;
    forget_group(pid_);
    pid_ = -1;
    // Give the stderr reader a moment to take the launcher's last words.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (WIFEXITED(status_)) return fmt::format("exited with status {}", WEXITSTATUS(status_));
    if (WIFSIGNALED(status_)) return fmt::format("killed by signal {}", WTERMSIG(status_));
    return "stopped";
}

std::string RemoteLink::explain(const std::string& what) {
    const std::vector<std::string> lines = tail_ ? tail_->last(3) : std::vector<std::string>{};
    std::string said;
    for (const std::string& l : lines) said += (said.empty() ? "" : " / ") + l;
    const std::string all = said;
    const int code = reaped_ && WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
    const std::string where = where_.describe();
    const std::string host = where_.host.empty() ? say("the GPU machine", "GPU 机器") : where_.host;
    const std::string quoted = said.empty() ? "" : say(" (it said: {})", "（它说：{}）", shortened(said, 300));
    if (contains(all, "Could not resolve hostname") || contains(all, "Name or service not known"))
        return say("The GPU host {} is unknown{}.", "GPU 主机 {} 无法解析{}。", host, quoted);
    // ssh says "Permission denied (publickey,password)."; a shell that cannot run a file says
    // "…: Permission denied" and exits with 126.
    if (contains(all, "Permission denied (") || contains(all, "Too many authentication failures"))
        return say("{} refused the SSH login: only keys are tried, never a password (set up key login, e.g. ssh-copy-id){}.",
                   "{} 拒绝了 SSH 登录：只尝试密钥，从不用密码（请设置密钥登录，例如 ssh-copy-id）{}。", host, quoted);
    if (code == 126 || contains(all, "Permission denied"))
        return say("The GPU command could not be run: permission denied (is the worker there an executable file, "
                   "e.g. installed with install -m 755?){}.",
                   "GPU 命令无法运行：权限被拒绝（那里的 worker 是可执行文件吗？例如用 install -m 755 安装）{}。", quoted);
    if (contains(all, "Host key verification failed") || contains(all, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
        return say("{}'s SSH host key is unknown or has changed: connect once with plain ssh to check it{}.",
                   "{} 的 SSH 主机密钥未知或已改变：请先用普通 ssh 连接一次核对它{}。", host, quoted);
    if (contains(all, "Connection refused") || contains(all, "Connection timed out") || contains(all, "No route to host") ||
        contains(all, "Network is unreachable") || contains(all, "Connection closed by") || contains(all, "Connection reset"))
        return say("The GPU host {} could not be reached{}.", "无法连到 GPU 主机 {}{}。", host, quoted);
    if (code == 127 || contains(all, "tilelab-gpu-worker: not found") || contains(all, "tilelab-gpu-worker: command not found") ||
        contains(all, "No such file or directory"))
        return say("tilelab-gpu-worker was not found {}: install it there (docs/teaching_server.md){}.",
                   "{}找不到 tilelab-gpu-worker：请在那里安装（docs/teaching_server.md）{}。",
                   where_.host.empty() ? say("where the GPU command runs", "在 GPU 命令运行的地方")
                                       : say("on {}", "在 {} 上", where_.host),
                   quoted);
    if (code == worker::kHungKernelExitStatus || contains(all, "did not stop when asked")) return never_returned_text();
    if (contains(all, "srun:") || contains(all, "salloc:") || contains(all, "sbatch:"))
        return say("Slurm did not start the GPU worker ({}){}.", "Slurm 没有启动 GPU 工作进程（{}）{}。", what, quoted);
    const std::string ended = code >= 0 ? say("; the launcher exited with status {}", "；启动器以状态 {} 退出", code)
                              : reaped_ && WIFSIGNALED(status_)
                                  ? say("; the launcher was killed by signal {}", "；启动器被信号 {} 终止", WTERMSIG(status_))
                                  : "";
    return say("The GPU worker {} could not be used: {}{}{}.", "GPU 工作进程 {} 无法使用：{}{}{}。", where, what, ended, quoted);
}

std::string never_returned_text() {
    return say("the kernel held the GPU past the worker's limit and never returned (an endless loop, or a wait that nothing "
               "ends: an mbarrier no thread arrives at?), so the GPU worker exited to free the GPU; a fresh one starts with the "
               "next run",
               "内核占用 GPU 超过了 worker 的时限且一直没有返回（死循环，或一个永远等不到的等待：没有线程到达的 mbarrier？），"
               "所以 GPU worker 退出以释放 GPU；下一次运行会启动一个新的");
}

void end_launchers_with_this_process() {
    struct sigaction action {};
    action.sa_handler = end_launchers_and_die;
    sigemptyset(&action.sa_mask);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

std::string read_greeting(int fd, int timeout_ms, json& hello) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    uint8_t magic[sizeof worker::kGreetingMagic];
    size_t got = 0;
    std::string r = read_by(fd, magic, sizeof magic, deadline, got);
    if (got > 0 && std::memcmp(magic, worker::kGreetingMagic, got) != 0)
        return fmt::format("the command printed \"{}\" where the GPU worker's greeting belongs (is it "
                           "tilelab-gpu-worker --stdio? a login script writing to stdout?)", printable(magic, got));
    if (!r.empty()) return got > 0 && r == "closed" ? "the stream closed in the middle of the greeting" : r;
    uint8_t header[4];
    if (r = read_by(fd, header, 4, deadline, got); !r.empty()) return r == "closed" ? "the stream closed in the middle of the greeting" : r;
    const uint32_t n = uint32_t(header[0]) | uint32_t(header[1]) << 8 | uint32_t(header[2]) << 16 | uint32_t(header[3]) << 24;
    if (n > 64 * 1024) return fmt::format("the greeting claims {} bytes, far more than a greeting has", n);
    std::vector<uint8_t> body(n);
    if (r = read_by(fd, body.data(), n, deadline, got); !r.empty()) return r == "closed" ? "the stream closed in the middle of the greeting" : r;
    std::string error;
    if (!worker::parse_frame_body(body, hello, error, worker::Peer::worker) || !hello.is_object())
        return "the greeting is not a valid message";
    return "";
}

std::string greeting_problem(const json& hello, const std::string& where) {
    if (hello.value("hello", std::string()) != "tilelab-gpu-worker") return "the greeting is not tilelab-gpu-worker's";
    const json& v = hello.contains("protocol") ? hello.at("protocol") : json();
    if (!v.is_number_integer()) return "the greeting carries no protocol version";
    if (v.get<int64_t>() != worker::kProtocolVersion)
        return say("The tilelab-gpu-worker {} speaks protocol {}, this TileLab speaks {}: install the same TileLab version on "
                   "both machines.",
                   "tilelab-gpu-worker {} 使用协议 {}，而本 TileLab 使用 {}：请在两台机器上安装同一版本的 TileLab。", where,
                   v.get<int64_t>(), worker::kProtocolVersion);
    if (const std::string p = greeting_fields_problem(hello); !p.empty())
        return say("The GPU worker {} is broken or not TileLab's: its greeting cannot be used ({}).",
                   "GPU 工作进程 {} 已损坏或不是 TileLab 的：它的问候无法使用（{}）。", where, p);
    return "";
}

}  // namespace tilelab
