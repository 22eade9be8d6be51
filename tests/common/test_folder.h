// A scratch folder named after the running test, so that tests of one binary running at once
// (ctest -j) never share one: /tmp/tilelab_PREFIX_PID_TESTNAME. Not created here.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace tilelab::test {

inline std::filesystem::path folder_of_this_test(const std::string& prefix) {
    std::string name = "tilelab_" + prefix + "_";
    name += std::to_string(::getpid());
    name += '_';   // appended piecewise: GCC 12's -Wrestrict false positive on "x" + std::string&&
    name += ::testing::UnitTest::GetInstance()->current_test_info()->name();
    return std::filesystem::temp_directory_path() / name;
}

}  // namespace tilelab::test
