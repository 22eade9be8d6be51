// Taking turns on one GPU (gpu_lock.h), without a GPU: flock conflicts between two open files
// even in one process, so two GpuTurns here behave as two learners' workers.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include "gpu_worker/gpu_lock.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;

struct LockDir {
    fs::path dir = fs::temp_directory_path() / ("tilelab-lock-test-" + std::to_string(::getpid()));
    LockDir() {
        fs::create_directories(dir);
        ::setenv("TILELAB_LOCK_DIR", dir.c_str(), 1);
    }
    ~LockDir() {
        ::unsetenv("TILELAB_LOCK_DIR");
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

TEST(GpuLock, PathNamesTheGpuUnderTheLockDirAndKeepsOnlySafeCharacters) {
    LockDir d;
    EXPECT_EQ(gpu_lock_path("0a1b-2c"), (d.dir / "tilelab-gpu-0a1b-2c.lock").string());
    EXPECT_EQ(gpu_lock_path("../x y"), (d.dir / "tilelab-gpu-___x_y.lock").string());
}

TEST(GpuLock, TheLockFileIsCreatedSoThatEveryUserCanOpenIt) {
    LockDir d;
    const std::string path = gpu_lock_path("gpu0");
    GpuTurn turn;
    ASSERT_EQ(turn.acquire(path, nullptr, nullptr), "");
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0666u);
    EXPECT_TRUE(turn.held());
    EXPECT_EQ(turn.waited_ms(), 0);
}

TEST(GpuLock, ASecondRunWaitsForTheFirstAndIsToldSo) {
    LockDir d;
    const std::string path = gpu_lock_path("gpu0");
    GpuTurn first;
    ASSERT_EQ(first.acquire(path, nullptr, nullptr), "");
    std::atomic<int> reports{0};
    std::atomic<bool> second_held{false};
    GpuTurn second;
    std::thread waiter([&] {
        EXPECT_EQ(second.acquire(path, nullptr, [&](int others) {
            EXPECT_EQ(others, 0);   // nobody waits besides this run
            ++reports;
        }), "");
        second_held = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(second_held) << "two runs held the GPU at once";
    EXPECT_EQ(runs_waiting(path), 1) << "the waiting run's ticket is counted";
    first.release();
    waiter.join();
    EXPECT_TRUE(second_held);
    EXPECT_GE(reports.load(), 1);
    EXPECT_GE(second.waited_ms(), 250);
    EXPECT_LT(second.waited_ms(), 5000);
    EXPECT_EQ(runs_waiting(path), 0) << "the ticket goes when its run gets the GPU";
}

TEST(GpuLock, AWaitEndsWhenCancelled) {
    LockDir d;
    const std::string path = gpu_lock_path("gpu0");
    GpuTurn first, second;
    ASSERT_EQ(first.acquire(path, nullptr, nullptr), "");
    CancelFlag cancel{false};
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        cancel = true;
    });
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(second.acquire(path, &cancel, nullptr), "cancelled while waiting for the GPU");
    canceller.join();
    EXPECT_FALSE(second.held());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(GpuLock, ATicketLeftByAKilledWaiterIsNotCountedAndIsRemoved) {
    LockDir d;
    const std::string path = gpu_lock_path("gpu0");
    fs::create_directories(path + ".queue");
    const std::string stale = path + ".queue/12345.0";
    { std::ofstream(stale).put('x'); }   // nobody holds its flock
    EXPECT_EQ(runs_waiting(path), 0);
    EXPECT_FALSE(fs::exists(stale));
}

TEST(GpuLock, AnUnusableLockFileIsSaidInASentence) {
    LockDir d;
    GpuTurn turn;
    const std::string why = turn.acquire((d.dir / "no-such-dir" / "x.lock").string(), nullptr, nullptr);
    EXPECT_NE(why.find("cannot be opened"), std::string::npos) << why;
    EXPECT_FALSE(turn.held());
}

}  // namespace
}  // namespace tilelab
