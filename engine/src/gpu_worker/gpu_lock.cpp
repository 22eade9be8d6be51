// Taking turns on one GPU through flock (gpu_lock.h).
#include "gpu_worker/gpu_lock.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace tilelab {
namespace {

using Clock = std::chrono::steady_clock;

// How often a waiter tries the lock: the most a turn adds to the wait it follows.
constexpr auto kRetry = std::chrono::milliseconds(2);
constexpr auto kReportEvery = std::chrono::seconds(1);

// Opens (creating if needed) a file that any user may lock. With fs.protected_regular, an
// O_CREAT open of another user's file in /tmp fails, so an existing file is opened without it.
int open_shared(const std::string& path, std::string& error) {
    for (int attempt = 0; attempt < 3; ++attempt) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) return fd;
        if (errno != ENOENT) break;
        fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            (void)::fchmod(fd, 0666);   // past the umask: every learner's worker opens it
            return fd;
        }
        if (errno != EEXIST) break;
    }
    error = "the GPU's lock file " + path + " cannot be opened: " + std::strerror(errno);
    return -1;
}

std::string queue_dir(const std::string& lock_path) { return lock_path + ".queue"; }

// A ticket: a file in the queue folder, locked by its waiter for as long as it waits.
struct Ticket {
    std::string path;
    int fd = -1;
    Ticket(const std::string& lock_path) {
        static std::atomic<unsigned> serial{0};
        const std::string dir = queue_dir(lock_path);
        if (::mkdir(dir.c_str(), 01777) == 0) (void)::chmod(dir.c_str(), 01777);
        path = dir + "/" + std::to_string(::getpid()) + "." + std::to_string(serial++);
        fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd);
            fd = -1;
        }
        if (fd < 0) path.clear();   // no ticket: this run is simply not counted by others
    }
    ~Ticket() {
        if (fd < 0) return;
        ::unlink(path.c_str());
        ::close(fd);
    }
};

}  // namespace

std::string gpu_lock_path(const std::string& device_key) {
    const char* env = std::getenv("TILELAB_LOCK_DIR");
    std::string dir = env && *env ? env : "/tmp";
    std::string key = device_key.empty() ? "0" : device_key;
    for (char& c : key)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')) c = '_';
    return dir + "/tilelab-gpu-" + key + ".lock";
}

int runs_waiting(const std::string& path, const std::string& except_ticket) {
    const std::string dir = queue_dir(path);
    DIR* d = ::opendir(dir.c_str());
    if (!d) return 0;
    int live = 0;
    while (const dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.') continue;
        const std::string ticket = dir + "/" + e->d_name;
        if (ticket == except_ticket) continue;
        const int fd = ::open(ticket.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (::flock(fd, LOCK_SH | LOCK_NB) != 0) ++live;       // its waiter holds it: still waiting
        else (void)::unlink(ticket.c_str());                   // left by a waiter that died
        ::close(fd);
    }
    ::closedir(d);
    return live;
}

std::string GpuTurn::acquire(const std::string& path, const CancelFlag* cancel,
                             const std::function<void(int)>& on_wait) {
    release();
    waited_ms_ = 0;
    std::string error;
    const int fd = open_shared(path, error);
    if (fd < 0) return error;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        fd_ = fd;
        return "";
    }
    const auto start = Clock::now();
    Ticket ticket(path);
    auto next_report = start;
    for (;;) {
        if (cancel && cancel->load()) {
            ::close(fd);
            return "cancelled while waiting for the GPU";
        }
        if (Clock::now() >= next_report) {
            if (on_wait) on_wait(runs_waiting(path, ticket.path));
            next_report += kReportEvery;
        }
        std::this_thread::sleep_for(kRetry);
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) break;
        if (errno != EWOULDBLOCK && errno != EINTR) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            return "the GPU's lock " + path + " cannot be taken: " + why;
        }
    }
    fd_ = fd;
    waited_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return "";
}

void GpuTurn::release() {
    if (fd_ < 0) return;
    ::close(fd_);   // closing the last descriptor of the open file drops the flock
    fd_ = -1;
}

}  // namespace tilelab
