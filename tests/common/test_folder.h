// A scratch folder named after the running test, so that tests of one binary running at once
// (ctest -j) never share one: /tmp/tilelab_PREFIX_PID_TESTNAME. Not created here.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>

namespace tilelab::test {

inline std::filesystem::path folder_of_this_test(const std::string& prefix) {
    std::string name = "tilelab_" + prefix + "_";
    name += std::to_string(::getpid());
    name += '_';   // appended piecewise: GCC 12's -Wrestrict false positive on "x" + std::string&&
    name += ::testing::UnitTest::GetInstance()->current_test_info()->name();
    return std::filesystem::temp_directory_path() / name;
}

// A fixture whose tests each get that folder: removed before the test (and made again when
// `create`), removed after it.
class TestWithFolder : public ::testing::Test {
protected:
    TestWithFolder(std::string prefix, bool create) : prefix_(std::move(prefix)), create_(create) {}
    void SetUp() override {
        dir_ = folder_of_this_test(prefix_);
        std::filesystem::remove_all(dir_);
        if (create_) std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;

private:
    std::string prefix_;
    bool create_;
};

}  // namespace tilelab::test
