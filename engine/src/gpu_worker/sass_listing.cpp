// nvdisasm's listing of a cubin (sass_listing.h).
#include "gpu_worker/sass_listing.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include "store/find_program.h"
#include "tilelab/stalls.h"

extern char** environ;

namespace tilelab {
namespace {

constexpr std::chrono::milliseconds kDisassembleTimeout(10000);

std::string find_nvdisasm() {
    if (const char* env = std::getenv("TILELAB_NVDISASM"); env && is_executable_file(env)) return env;
#ifdef TILELAB_CUDA_LIBRARY_DIR
    if (const std::string beside = std::string(TILELAB_CUDA_LIBRARY_DIR) + "/../bin/nvdisasm"; is_executable_file(beside))
        return beside;
#endif
    if (is_executable_file("/usr/local/cuda/bin/nvdisasm")) return "/usr/local/cuda/bin/nvdisasm";
    return find_on_path("nvdisasm");
}

// A new empty temporary file's name, "" on failure.
std::string temporary(const char* pattern) {
    std::string name = pattern;
    const int fd = ::mkstemp(name.data());
    if (fd < 0) return "";
    ::close(fd);
    return name;
}

}  // namespace

SassListings::~SassListings() { abandon(); }

const SassListings::Entry* SassListings::kept(const std::vector<char>& cubin, const std::string& function) {
    for (auto it = recent_.begin(); it != recent_.end(); ++it)
        if (it->function == function && it->cubin == cubin) {
            recent_.splice(recent_.begin(), recent_, it);
            return &recent_.front();
        }
    return nullptr;
}

void SassListings::start(const std::vector<char>& cubin, const std::string& function) {
    if (kept(cubin, function) || (running_ && running_->function == function && running_->cubin == cubin)) return;
    abandon();
    Running r{cubin, function, -1, {}, {}, std::chrono::steady_clock::now(), {}};
    const std::string tool = find_nvdisasm();
    if (tool.empty()) {
        r.why = "no nvdisasm (the CUDA toolkit's disassembler) on the GPU machine";
    } else if ((r.input = temporary("/tmp/tilelab-sass-XXXXXX")).empty() ||
               (r.output = temporary("/tmp/tilelab-sass-XXXXXX")).empty()) {
        r.why = std::string("nvdisasm: no temporary file: ") + std::strerror(errno);
    } else if (!(std::ofstream(r.input, std::ios::binary).write(cubin.data(), std::streamsize(cubin.size())))) {
        r.why = "nvdisasm: the cubin could not be written to " + r.input;
    } else {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, r.output.c_str(), O_WRONLY | O_TRUNC, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        const char* argv[] = {tool.c_str(), "-c", r.input.c_str(), nullptr};
        const int spawned = posix_spawn(&r.pid, tool.c_str(), &actions, nullptr, const_cast<char**>(argv), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (spawned != 0) {
            r.pid = -1;
            r.why = "nvdisasm could not start: " + std::string(std::strerror(spawned));
        }
    }
    running_ = std::move(r);
}

SassListings::Entry SassListings::finish(Running& r) {
    Entry e{std::move(r.cubin), r.function, {}, r.why};   // r is done with after this
    if (r.pid > 0) {
        int status = 0;
        bool done = false;
        while (!done) {
            const pid_t got = ::waitpid(r.pid, &status, WNOHANG);
            if (got == r.pid || (got < 0 && errno != EINTR)) done = true;
            else if (std::chrono::steady_clock::now() - r.started > kDisassembleTimeout) break;
            else std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        if (!done) {
            ::kill(r.pid, SIGKILL);
            while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {}
            e.why = "nvdisasm took longer than 10 s";
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            e.why = "nvdisasm failed";
        } else {
            std::stringstream text;
            text << std::ifstream(r.output).rdbuf();
            e.listing = parse_sass_listing(text.str(), r.function);
            if (e.listing.empty()) e.why = "nvdisasm's listing has no " + r.function;
        }
        r.pid = -1;
    }
    if (!r.input.empty()) ::unlink(r.input.c_str());
    if (!r.output.empty()) ::unlink(r.output.c_str());
    return e;
}

void SassListings::abandon() {
    if (!running_) return;
    if (running_->pid > 0) {
        ::kill(running_->pid, SIGKILL);
        int status = 0;
        while (::waitpid(running_->pid, &status, 0) < 0 && errno == EINTR) {}
        running_->pid = -1;
    }
    finish(*running_);
    running_.reset();
}

const std::map<uint64_t, std::string>& SassListings::of(const std::vector<char>& cubin, const std::string& function,
                                                         std::string& why) {
    if (const Entry* e = kept(cubin, function)) {
        why = e->why;
        return e->listing;
    }
    start(cubin, function);
    Entry e = finish(*running_);
    running_.reset();
    why = e.why;
    recent_.push_front(std::move(e));
    if (recent_.size() > kKept) recent_.pop_back();
    return recent_.front().listing;
}

}  // namespace tilelab
