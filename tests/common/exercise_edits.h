// What the exercise tests do to a learner's file (test_exercise_gpu.cpp, test_cpu_run.cpp): find an
// exercise by its variant, and the completed starting file (or a lesson's kernel file) with one
// piece of text replaced.
#pragma once
#include <gtest/gtest.h>
#include <string>
#include "tilelab/compile.h"
#include "tilelab/exercise.h"

namespace tilelab::test {

inline const Exercise* exercise_of(const std::string& variant) {
    for (const Exercise& ex : all_exercises())
        if (ex.lesson->variant == variant) return &ex;
    return nullptr;
}

// `text` (the kernel file `where`) with its first `from` replaced by `to`; the replacement must
// exist, so a kernel whose text moved fails here loudly instead of testing nothing.
inline std::string replaced(std::string text, const std::string& from, const std::string& to, const std::string& where) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "'" << from << "' is no longer in " << where;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

// The completed file with `from` replaced by `to`.
inline std::string mutated(const Exercise& ex, const std::string& from, const std::string& to) {
    return replaced(fill_in(ex.skeleton, ex), from, to, ex.kernel_file);
}

// A lesson's kernel file (kernels/`path`, as embedded) with `from` replaced by `to`: a copy with a
// mistake put in, run as the user's file.
inline std::string kernel_with(const std::string& path, const std::string& from, const std::string& to) {
    const std::string* text = embedded_source(path);
    EXPECT_NE(text, nullptr) << path;
    return text ? replaced(*text, from, to, path) : "";
}

}  // namespace tilelab::test
