// Starting, talking to and stopping the GPU worker (worker_client.h).
#include "host/worker_client.h"
#include "store/child_process.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fmt/format.h>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>
#include "host/remote_link.h"
#include "host/worker_replies.h"
#include "tilelab/i18n.h"
#include "tilelab/util.h"

extern char** environ;

namespace tilelab {
namespace {

namespace fs = std::filesystem;
using worker::json;

constexpr const char* kWorkerName = "tilelab-gpu-worker";
// How often a waiting call looks at the cancel flag: the cancel latency the parent adds.
constexpr int kPollMs = 10;
// After a cancel, how long the worker may take to reach its next check (it checks between
// repetitions; a hung kernel never gets there) before it is killed.
constexpr int kCancelGraceMs = 10000;
// How long a worker may take to exit after its channel closes.
constexpr int kExitGraceMs = 5000;
// The most one request may wait for its reply, notes or not (a queue for a shared GPU, a worker
// that says "waiting" forever): TILELAB_WORKER_WAIT_S, default 15 minutes.
int request_limit_s() {
    const char* env = std::getenv("TILELAB_WORKER_WAIT_S");
    if (!env || !*env) return 900;
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    return end != env && !*end && v >= 1 && v <= 86400 ? int(v) : 900;
}

// The id a reply or note carries, or 0 when it has none that can be read.
uint32_t message_id(const json& m) {
    if (!m.contains("id")) return 0;
    const json& v = m.at("id");
    return v.is_number_unsigned() && v.get<uint64_t>() <= UINT32_MAX ? v.get<uint32_t>() : 0;
}
// The worker's ends of the two sockets, as its command line tells it.
constexpr int kChildChannelFd = 3, kChildCancelFd = 4;

std::string describe_exit(int status) {
    if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return "stopped";
}

// Moves a descriptor above the ones the child's file actions write (0..4), close-on-exec.
int move_high(int fd) {
    const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    return high;
}

}  // namespace

std::string find_gpu_worker(std::string& failure) {
    if (const char* env = std::getenv("TILELAB_GPU_WORKER"); env && *env) {
        if (is_executable_file(env)) return env;
        failure = say("TILELAB_GPU_WORKER={} is not an executable file", "TILELAB_GPU_WORKER={} 不是可执行文件", std::string(env));
        return "";
    }
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path& dir : {exe.parent_path(), exe.parent_path().parent_path()})
            if (is_executable_file(dir / kWorkerName)) return (dir / kWorkerName).string();
    }
    if (std::string on_path = find_on_path(kWorkerName); !on_path.empty()) return on_path;
    failure = say("{} was not found next to {}; reinstall or set TILELAB_GPU_WORKER",
                  "在 {1} 旁边没有找到 {0}；请重新安装，或设置 TILELAB_GPU_WORKER", std::string(kWorkerName),
                  ec ? say("this program", "本程序") : exe.string());
    return "";
}

WorkerClient& WorkerClient::instance() {
    static WorkerClient client;
    return client;
}

WorkerClient::WorkerClient() = default;

WorkerClient::WorkerClient(bool compile_only) : compile_only_(compile_only) {}

WorkerClient::~WorkerClient() {
    std::lock_guard lock(mutex_);
    if (pid_ > 0 || remote_) stop(kExitGraceMs);
}

void WorkerClient::configure(const GpuLocation& where) {
    std::lock_guard lock(mutex_);
    if (where.same_place(where_)) return;
    if (pid_ > 0 || remote_) stop(kExitGraceMs);
    where_ = where;
    remote_configured_ = where.remote();
    lost_.clear();
}

bool WorkerClient::connect(json& hello, std::string& failure) {
    std::lock_guard lock(mutex_);
    if (pid_ > 0 || remote_) stop(kExitGraceMs);
    lost_.clear();
    if (!connect_locked(hello, failure)) {
        lost_ = failure;
        return false;
    }
    return true;
}

bool WorkerClient::connect_locked(json& hello, std::string& failure) {
    if (!where_.remote()) {
        failure = say("the GPU worker runs on this machine; there is nothing to connect to", "GPU worker 就在本机上运行，没有要连接的远端");
        return false;
    }
    auto link = std::make_unique<RemoteLink>(where_);
    if (!link->open(hello, failure)) return false;
    {
        std::lock_guard note_lock(note_mutex_);
        compiler_version_ = hello.contains("nvrtc") && hello.at("nvrtc").is_string() ? hello.at("nvrtc").get<std::string>() : "";
    }
    remote_ = std::move(link);
    channel_ = remote_->channel();
    ++generation_;
    return true;
}

std::string WorkerClient::compiler_version() {
    std::lock_guard lock(note_mutex_);
    return compiler_version_;
}

std::string WorkerClient::lost() {
    std::lock_guard lock(mutex_);
    return lost_;
}

std::string WorkerClient::note() {
    std::lock_guard lock(note_mutex_);
    return note_;
}

void WorkerClient::set_note(const std::string& note) {
    std::lock_guard lock(note_mutex_);
    note_ = note;
}

uint64_t WorkerClient::generation() {
    std::lock_guard lock(mutex_);
    return generation_;
}

uint64_t WorkerClient::deaths() {
    std::lock_guard lock(mutex_);
    return deaths_;
}

bool WorkerClient::start(std::string& failure) {
    const std::string path = find_gpu_worker(failure);
    if (path.empty()) return false;
    int channel[2], cancel[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
        failure = say("could not create the GPU worker channel: {}", "无法建立到 GPU worker 的通道：{}", std::string(std::strerror(errno)));
        return false;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cancel) != 0) {
        failure = say("could not create the GPU worker channel: {}", "无法建立到 GPU worker 的通道：{}", std::string(std::strerror(errno)));
        ::close(channel[0]);
        ::close(channel[1]);
        return false;
    }
    const int child_channel = move_high(channel[1]), child_cancel = move_high(cancel[1]);

    // The child gets its two sockets as fds 3 and 4 (dup2 clears close-on-exec), stdin from
    // /dev/null, and stdout joined to stderr so that nothing a library prints reaches a channel.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, child_channel, kChildChannelFd);
    posix_spawn_file_actions_adddup2(&actions, child_cancel, kChildCancelFd);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
    posix_spawnattr_t attr;
    init_child_spawn_attributes(attr, /*own_group=*/false);
    const std::string channel_arg = std::to_string(kChildChannelFd), cancel_arg = std::to_string(kChildCancelFd);
    const std::string device_arg = std::to_string(where_.device);
    std::vector<char*> argv = {const_cast<char*>(path.c_str()), const_cast<char*>("--channel-fd"),
                               const_cast<char*>(channel_arg.c_str()), const_cast<char*>("--cancel-fd"),
                               const_cast<char*>(cancel_arg.c_str())};
    if (compile_only_) argv.push_back(const_cast<char*>("--compile-only"));
    if (where_.device >= 0) argv.insert(argv.end(), {const_cast<char*>("--gpu-device"), const_cast<char*>(device_arg.c_str())});
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(child_channel);
    ::close(child_cancel);
    if (rc != 0) {
        failure = say("could not start {}: {}", "无法启动 {}：{}", path, std::string(std::strerror(rc)));
        ::close(channel[0]);
        ::close(cancel[0]);
        return false;
    }
    pid_ = pid;
    channel_ = channel[0];
    cancel_ = cancel[0];
    ++generation_;
    return true;
}

std::string WorkerClient::stop(int grace_ms, bool* hung_kernel) {
    if (remote_) {   // the link owns the channel and the launcher
        channel_ = -1;
        const std::string how = remote_->close(grace_ms);
        remote_.reset();
        return how;
    }
    if (channel_ >= 0) ::close(channel_);
    if (cancel_ >= 0) ::close(cancel_);
    channel_ = cancel_ = -1;
    if (pid_ <= 0) return "not running";
    // Still running after the grace: a hung kernel, or a worker ignoring its closed channel.
    int status = 0;
    bool killed = false;
    const pid_t done = reap_by(pid_, std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms),
                               std::chrono::milliseconds(kPollMs), status, killed);
    pid_ = -1;
    if (hung_kernel) *hung_kernel = done > 0 && WIFEXITED(status) && WEXITSTATUS(status) == worker::kHungKernelExitStatus;
    return done > 0 ? describe_exit(status) : "could not be reaped";
}

bool WorkerClient::wait_for_reply(uint32_t id, const CancelFlag* cancel, json& reply, std::string& failure,
                                  int time_limit_ms, bool compile, bool& timed_out) {
    bool cancel_sent = false;
    const auto sent_at = std::chrono::steady_clock::now();
    auto cancel_sent_at = sent_at;
    // A remote worker says at least once a second that it is busy (worker_protocol.h): silence
    // for the connect time-out means the link is dead, even where TCP has not noticed yet.
    auto last_heard = sent_at;
    const auto silence_limit = std::chrono::seconds(where_.connect_timeout_s);
    const int wait_limit_s = request_limit_s();
    for (;;) {
        if (std::chrono::steady_clock::now() - sent_at > std::chrono::seconds(wait_limit_s)) {
            const std::string said = note();
            const std::string how = stop(0);
            failure = say("the GPU worker kept this request waiting for {} s{}, so it was given up; the GPU worker was stopped ({}) "
                          "and a fresh one starts with the next run",
                          "GPU worker 让这个请求等了 {} s{}，已放弃；GPU worker 已停止（{}），下一次运行会启动一个新的", wait_limit_s,
                          said.empty() ? std::string() : " (\"" + said + "\")", how);
            return false;
        }
        if (time_limit_ms > 0 && std::chrono::steady_clock::now() - sent_at > std::chrono::milliseconds(time_limit_ms)) {
            const std::string how = stop(0);
            timed_out = true;
            if (compile) {
                failure = say("the compile took longer than {:g} s and was stopped (an #include of something that never ends, or "
                              "macros that expand without end?)",
                              "编译超过 {:g} s，已被停止（#include 了读不完的东西，或宏展开没有尽头？）", time_limit_ms / 1000.0);
                return false;
            }
            failure = say("the run took longer than {:g} s and was stopped (an endless loop in the kernel, or a wait that nothing "
                          "ends, such as an mbarrier no thread arrives at?); the GPU worker was stopped ({}) and a fresh one starts "
                          "with the next run",
                          "运行超过 {:g} s，已被停止（内核里有死循环，或一个永远等不到的等待，比如没有线程到达的 mbarrier？）；"
                          "GPU worker 已停止（{}），下一次运行会启动一个新的",
                          time_limit_ms / 1000.0, how);
            return false;
        }
        if (cancel && cancel->load() && !cancel_sent) {
            if (remote_) {
                std::string ignored;   // a dead link shows on the channel
                (void)worker::write_frame(channel_, {{"cancel", id}}, ignored);
            } else {
                const uint8_t note[4] = {uint8_t(id), uint8_t(id >> 8), uint8_t(id >> 16), uint8_t(id >> 24)};
                (void)::send(cancel_, note, sizeof note, MSG_NOSIGNAL);   // a dead worker shows on the channel
            }
            cancel_sent = true;
            cancel_sent_at = std::chrono::steady_clock::now();
        }
        if (cancel_sent && std::chrono::steady_clock::now() - cancel_sent_at > std::chrono::milliseconds(kCancelGraceMs)) {
            const std::string how = stop(0);
            failure = say("cancelled; the GPU worker did not stop within {} s and was stopped ({}), so the next run starts afresh",
                          "已取消；GPU worker 在 {} s 内没有停下，已被停止（{}），下一次运行会重新开始",
                          kCancelGraceMs / 1000, how);
            return false;
        }
        pollfd p{channel_, POLLIN, 0};
        const int ready = ::poll(&p, 1, kPollMs);
        if (ready < 0 && errno != EINTR) {
            failure = say("waiting for the GPU worker failed: {}", "等待 GPU worker 失败：{}", std::string(std::strerror(errno)));
            stop(0);
            ++deaths_;
            return false;
        }
        if (remote_ && ready == 0 && std::chrono::steady_clock::now() - last_heard > silence_limit) {
            failure = say("The connection to the GPU worker {} went silent for {} s in the middle of a run.",
                          "到 GPU worker {} 的连接在运行中途沉默了 {} s。", where_.describe(), where_.connect_timeout_s);
            stop(0);
            ++deaths_;
            lost_ = failure;
            return false;
        }
        if (ready <= 0) continue;
        std::string error;
        // A frame that has begun comes whole within the silence limit (its body is not waited for
        // without end), and its shape is checked before it is parsed.
        const worker::ReadStatus got =
            worker::read_frame(channel_, reply, error, {worker::kMaxFrameBytes, where_.connect_timeout_s * 1000, worker::Peer::worker});
        if (got != worker::ReadStatus::message) {
            ++deaths_;
            if (remote_) {
                const std::string what = say("the connection closed in the middle of a run{}", "连接在运行中途断开{}",
                                             got == worker::ReadStatus::error ? " (" + error + ")" : std::string());
                remote_->close(kExitGraceMs);
                failure = remote_->explain(what);
                remote_.reset();
                channel_ = -1;
                lost_ = failure;
                return false;
            }
            bool hung = false;
            const std::string how = stop(kExitGraceMs, &hung);
            if (hung)
                failure = never_returned_text();
            else
                failure = say("the GPU worker stopped unexpectedly ({}{}); a fresh one starts with the next run",
                              "GPU worker 意外停止（{}{}）；下一次运行会启动一个新的", how,
                              got == worker::ReadStatus::error ? "; " + error : std::string());
            return false;
        }
        last_heard = std::chrono::steady_clock::now();
        if (!reply.is_object()) {   // not a message of this protocol: the worker is broken
            const std::string how = stop(0);
            ++deaths_;
            failure = say("the GPU worker sent a message that is not an object, so it was stopped ({}); a fresh one starts with the next run",
                          "GPU worker 发来的消息不是对象，已将其停止（{}）；下一次运行会启动一个新的", how);
            if (where_.remote()) lost_ = failure;
            return false;
        }
        if (reply.contains("note")) {   // the worker is busy with it: waiting for the GPU, or running
            if (message_id(reply) == id && reply.at("note").is_string()) set_note(worker_text(reply.at("note").get<std::string>(), 200));
            continue;
        }
        if (message_id(reply) != id) continue;   // a late reply to an abandoned request
        set_note("");
        return true;
    }
}

bool WorkerClient::call(json request, const CancelFlag* cancel, json& reply, std::string& failure, int time_limit_ms,
                        bool* timed_out) {
    bool stopped_at_limit = false;
    if (timed_out) *timed_out = false;
    // The worker writes its messages (validation, faults, counters not read) in this language.
    request["lang"] = language_code(language());
    std::lock_guard lock(mutex_);
    if (where_.remote()) {
        if (!lost_.empty()) {   // until the user reconnects
            failure = lost_;
            return false;
        }
        json hello;   // after a fault ended the remote worker: a fresh one, as locally
        if (!remote_ && !connect_locked(hello, failure)) {
            lost_ = failure;
            return false;
        }
    } else if (pid_ <= 0 && !start(failure)) {
        return false;
    }
    const uint32_t id = next_id_++;
    request["id"] = id;
    request["cancelled"] = cancel && cancel->load();
    std::string error;
    if (!worker::write_frame(channel_, request, error)) {
        ++deaths_;
        if (remote_) {
            remote_->close(kExitGraceMs);
            failure = lost_ = remote_->explain(say("the connection closed: {}", "连接已断开：{}", error));
            remote_.reset();
            channel_ = -1;
            return false;
        }
        const std::string how = stop(kExitGraceMs);
        failure = say("the GPU worker stopped unexpectedly ({}; {}); a fresh one starts with the next run",
                      "GPU worker 意外停止（{}；{}）；下一次运行会启动一个新的", how, error);
        return false;
    }
    const bool answered = wait_for_reply(id, cancel, reply, failure, time_limit_ms, request.at("op") == "compile", stopped_at_limit);
    if (timed_out) *timed_out = stopped_at_limit;
    set_note("");
    if (!answered) {
        reply = json::object();   // whatever arrived is not a reply to read
        return false;
    }
    if (reply.contains("context_lost") && !reply.at("context_lost").is_boolean()) reply.erase("context_lost");
    if (reply.value("context_lost", false)) stop(kExitGraceMs);   // it exits by itself; a fresh one comes next
    if (reply.contains("failure")) {
        failure = reply.at("failure").is_string()
                      ? worker_text(reply.at("failure").get<std::string>(), 600)
                      : say("the GPU worker's reply could not be read: \"failure\" is not a string",
                            "无法读取 GPU worker 的回复：\"failure\" 不是字符串");
        // A failure is never reported without a word (an empty or blank "failure", fuzz seed 146).
        if (failure.find_first_not_of(' ') == std::string::npos)
            failure = say("the GPU worker reported a failure without saying why", "GPU worker 报告了失败，但没有说明原因");
        return false;
    }
    const json& op = request.at("op");
    if (const std::string p = reply_fields_problem(op.is_string() ? op.get<std::string>() : "", reply); !p.empty()) {
        failure = say("the GPU worker's reply could not be read: {}", "无法读取 GPU worker 的回复：{}", p);
        return false;
    }
    return true;
}

Measurement measure_in_worker(WorkerClient& client, const worker::MeasureJob& job, const RunOptions& opt,
                              const CancelFlag* cancel, double& worker_ms) {
    json reply;
    std::string failure;
    Measurement m;
    m.stage = "run";
    try {
        const auto start = std::chrono::steady_clock::now();
        const json request = {{"op", "run"}, {"job", worker::job_to_json(job)}, {"options", opt}};
        const bool answered = client.call(request, cancel, reply, failure, opt.time_limit_ms);
        worker_ms = ms_since(start);
        if (!answered) {
            m.error = failure;
            return m;
        }
        m = reply.at("result").get<Measurement>();
    } catch (const std::exception&) {   // not reached: call() checked every field the reader reads
        m = Measurement{};
        m.stage = "run";
        m.error = say("the GPU worker's reply could not be read", "无法读取 GPU worker 的回复");
    }
    m.context_lost = reply.value("context_lost", false);
    // A run that kept its results (the context lost in its counters or samples) says so there.
    if (m.context_lost && !m.ok) m.error += std::string("; ") + kWorkerRestartedNote;
    return m;
}

Ceilings ceilings_in_worker(WorkerClient& client) {
    json reply;
    std::string failure;
    Ceilings c;
    try {
        if (!client.call({{"op", "ceilings"}}, nullptr, reply, failure)) {
            c.note = "could not measure the ceilings: " + failure;
            return c;
        }
        c = reply.at("ceilings").get<Ceilings>();
    } catch (const std::exception&) {   // not reached: call() checked every field the reader reads
        c = {};
        c.note = "could not read the ceilings from the GPU worker";
    }
    if (reply.value("context_lost", false)) c.note += std::string("; ") + kWorkerRestartedNote;
    return c;
}

bool device_memory_in_worker(WorkerClient& client, size_t& free_bytes, size_t& total_bytes, bool prepare_counters,
                             bool prepare_stalls, int (*resident_clusters)[9]) {
    json reply;
    std::string failure;
    try {
        json request = {{"op", "memory"}};
        if (prepare_counters) request["prepare_counters"] = true;   // set up after replying (gpu_worker.cpp)
        if (prepare_stalls) request["prepare_stalls"] = true;
        if (!client.call(request, nullptr, reply, failure)) return false;
        free_bytes = reply.at("free_bytes").get<size_t>();
        total_bytes = reply.at("total_bytes").get<size_t>();
        if (resident_clusters && reply.contains("resident_clusters") && resident_clusters_problem(reply).empty())
            for (int c = 0; c < 9; ++c) (*resident_clusters)[c] = reply.at("resident_clusters").at(size_t(c)).get<int>();
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace tilelab
