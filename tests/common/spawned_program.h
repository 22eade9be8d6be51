// Runs a program as a fuzz case does: arguments passed as bytes (no shell), a fresh environment
// overlay, stdout and stderr captured, and a time limit after which it is killed, so that a hang
// is a failed assertion rather than a stuck test run.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "helpers.h"

namespace tilelab::test {

struct Spawned {
    int exit_code = -1;     // -1 when it did not exit normally
    int signal = 0;         // the signal that ended it, if one did
    bool timed_out = false; // killed at the time limit
    std::string out, err;
};

// The CLI under test: TILELAB_CLI, else the one beside this build's (or carried layout's) tests/.
inline std::string cli_path() { return helper_path(kCliHelper); }

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// `env` entries ("NAME=value") are set on top of this process's environment.
inline Spawned spawn(const std::string& program, const std::vector<std::string>& args,
                     const std::vector<std::string>& env, double limit_s, const std::string& scratch_dir) {
    const std::string out_path = scratch_dir + "/spawn.out", err_path = scratch_dir + "/spawn.err";
    Spawned r;
    // Everything the child needs is built before fork: the test process may have threads, and
    // only async-signal-safe calls are allowed between fork and exec.
    std::vector<std::string> environment = env;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('=') + 1);
        bool overridden = false;
        for (const auto& o : env) overridden |= o.rfind(name, 0) == 0;
        if (!overridden) environment.push_back(entry);
    }
    std::vector<char*> envp, argv;
    for (auto& e : environment) envp.push_back(e.data());
    envp.push_back(nullptr);
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int in = ::open("/dev/null", O_RDONLY);
        if (out < 0 || err < 0 || in < 0) ::_exit(127);
        ::dup2(in, 0);
        ::dup2(out, 1);
        ::dup2(err, 2);
        ::execve(program.c_str(), argv.data(), envp.data());
        ::_exit(127);
    }
    if (pid < 0) return r;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            r.timed_out = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (!r.timed_out) {
        if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    }
    r.out = slurp(out_path);
    r.err = slurp(err_path);
    return r;
}

// Printable form of a fuzz case's arguments, for the failure message that reproduces it.
inline std::string describe_args(const std::vector<std::string>& args) {
    std::string s;
    for (const auto& a : args) {
        s += " '";
        for (unsigned char c : a) {
            if (s.size() > 400) return s + "…";
            if (c >= 0x20 && c < 0x7F && c != '\'') s += char(c);
            else {
                char hex[8];
                std::snprintf(hex, sizeof hex, "\\x%02x", c);
                s += hex;
            }
        }
        s += "'";
    }
    return s;
}

}  // namespace tilelab::test
