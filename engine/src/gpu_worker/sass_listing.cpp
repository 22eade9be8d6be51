// nvdisasm's listing of a cubin (sass_listing.h).
#include "gpu_worker/sass_listing.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "store/child_process.h"
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

// A new empty temporary file's name (in TMPDIR, else /tmp), "" on failure.
std::string temporary() {
    std::string name = (std::filesystem::temp_directory_path() / "tilelab-sass-XXXXXX").string();
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
    } else if ((r.input = temporary()).empty() || (r.output = temporary()).empty()) {
        r.why = std::string("nvdisasm: no temporary file: ") + std::strerror(errno);
    } else if (!(std::ofstream(r.input, std::ios::binary).write(cubin.data(), std::streamsize(cubin.size())))) {
        r.why = "nvdisasm: the cubin could not be written to " + r.input;
    } else {
        posix_spawnattr_t attr;
        init_child_spawn_attributes(attr, /*own_group=*/false);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, r.output.c_str(), O_WRONLY | O_TRUNC, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        const char* argv[] = {tool.c_str(), "-c", r.input.c_str(), nullptr};
        const int spawned = posix_spawn(&r.pid, tool.c_str(), &actions, &attr, const_cast<char**>(argv), environ);
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
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
        bool killed = false;
        const pid_t got = reap_by(r.pid, r.started + kDisassembleTimeout, std::chrono::milliseconds(2), status, killed);
        if (killed) {
            e.why = "nvdisasm took longer than " + std::to_string(kDisassembleTimeout.count() / 1000) + " s";
        } else if (got != r.pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
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
    if (running_->pid > 0) {   // not waited for: killed now
        int status = 0;
        bool killed = false;
        (void)reap_by(running_->pid, std::chrono::steady_clock::time_point{}, std::chrono::milliseconds(0), status, killed);
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
