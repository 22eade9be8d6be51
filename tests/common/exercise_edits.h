// What the exercise tests do to a learner's file (test_exercise_gpu.cpp, test_cpu_run.cpp): find an
// exercise by its variant, and the completed starting file with one piece of text replaced.
#pragma once
#include <gtest/gtest.h>
#include <string>
#include "tilelab/exercise.h"

namespace tilelab::test {

inline const Exercise* exercise_of(const std::string& variant) {
    for (const Exercise& ex : all_exercises())
        if (ex.lesson->variant == variant) return &ex;
    return nullptr;
}

// The completed file with `from` replaced by `to`; the replacement must exist, so a kernel whose
// text moved fails here loudly instead of testing nothing.
inline std::string mutated(const Exercise& ex, const std::string& from, const std::string& to) {
    std::string text = fill_in(ex.skeleton, ex);
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "'" << from << "' is no longer in " << ex.kernel_file;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

}  // namespace tilelab::test
