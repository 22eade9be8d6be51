// Where the programs the tests start are: named by an environment variable, else where a build
// puts them relative to this test binary. scripts/carry_build.sh keeps that layout when it copies
// a build to the GPU machine (tests/ holds tilelab_tests and its helpers; the folder above it the
// CLI and the GPU worker), so a carried test binary finds them wherever the folder lands: no path
// of the machine that built it is compiled in.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace tilelab::test {

struct Helper {
    const char* file;  // relative to the layout's root (the build folder, or carry_build.sh's DEST)
    const char* env;   // names it elsewhere when set and not empty
};

inline constexpr Helper kCliHelper{"tilelab-cli", "TILELAB_CLI"};
// Found by the engine itself (engine/src/host/worker_client.cpp: find_gpu_worker), the same way.
inline constexpr Helper kGpuWorkerHelper{"tilelab-gpu-worker", "TILELAB_GPU_WORKER"};
inline constexpr Helper kTypistHelper{"tests/exercise_typist", "TILELAB_EXERCISE_TYPIST"};
inline constexpr Helper kFakeGpuWorkerHelper{"tests/fake_gpu_worker", "TILELAB_FAKE_GPU_WORKER"};

// Every program the full build's tests start: the carried layout must hold each
// (tests/cpu/test_carried_layout.cpp checks that scripts/carry_build.sh copies them all).
inline constexpr Helper kCarriedHelpers[] = {kCliHelper, kGpuWorkerHelper, kTypistHelper, kFakeGpuWorkerHelper};

// The folder above the one this test binary is in: the build folder, or a carried copy of it.
inline std::filesystem::path layout_root() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path(".") : exe.parent_path().parent_path();
}

inline std::string helper_path(const Helper& h) {
    if (const char* named = std::getenv(h.env); named && *named) return named;
    return (layout_root() / h.file).string();
}

// A folder of the test's own, /tmp/tilelab-NAME-PID, removed with all it holds when the test ends.
struct Scratch {
    std::filesystem::path dir;
    explicit Scratch(const std::string& name)
        : dir(std::filesystem::temp_directory_path() / ("tilelab-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(dir);
    }
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    std::string path(const std::string& name) const { return (dir / name).string(); }
    // A file holding exactly these bytes (for `cat FILE` to play a worker, say); its path.
    std::string file(const std::string& name, const std::string& bytes) const {
        std::ofstream(dir / name, std::ios::binary) << bytes;
        return path(name);
    }
};

}  // namespace tilelab::test
