// Child processes, for both of TileLab's processes: finding a program to start (the GPU worker
// beside the app, the toolkit's nvdisasm beside the worker), the spawn attributes every child gets
// (the GPU worker, a launcher such as ssh, nvdisasm), and reaping one within a deadline.
#pragma once
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>

namespace tilelab {

// A regular file this process may execute (a folder with the name does not count).
inline bool is_executable_file(const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// `name` in the first folder of PATH that holds it as an executable file; "" when none does.
inline std::string find_on_path(std::string_view name) {
    const char* path = std::getenv("PATH");
    for (std::string_view rest = path ? path : ""; !rest.empty();) {
        const size_t colon = rest.find(':');
        const std::string_view dir = rest.substr(0, colon);
        rest = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
        if (dir.empty()) continue;
        const std::filesystem::path candidate = std::filesystem::path(dir) / name;
        if (is_executable_file(candidate)) return candidate.string();
    }
    return "";
}

// Initialises `attr` for a child: no signal blocked, SIGPIPE back to its default action (this
// process ignores it), and with `own_group` a process group of its own. Destroy it after spawning.
inline void init_child_spawn_attributes(posix_spawnattr_t& attr, bool own_group) {
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (own_group) {
        posix_spawnattr_setpgroup(&attr, 0);
        flags |= POSIX_SPAWN_SETPGROUP;
    }
    posix_spawnattr_setflags(&attr, flags);
}

// Waits for child `pid` until `deadline`, looking every `poll`; still running then, it is killed
// (SIGKILL, `killed` set) and reaped. Returns waitpid's answer: `pid` with `status` filled, or -1
// when the child cannot be waited for.
inline pid_t reap_by(pid_t pid, std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds poll,
                     int& status, bool& killed) {
    killed = false;
    for (;;) {
        const pid_t got = ::waitpid(pid, &status, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR)) return got;
        if (got == 0 && std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(poll);
    }
    ::kill(pid, SIGKILL);
    killed = true;
    pid_t got;
    while ((got = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {}
    return got;
}

}  // namespace tilelab
