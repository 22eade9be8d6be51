// The Results heading's "compiling" line: the last slow compile of the variant being built, measured
// here, and nothing where there is none (gui/compile_memory.h).
#include <gtest/gtest.h>

#include "compile_memory.h"
#include "tilelab/i18n.h"

namespace tilelab::gui {
namespace {

RunResult compiled(const std::string& variant, double ms, bool cached = false) {
    RunResult r;
    r.request.variant = variant;
    r.stages.compile_ms = ms;
    r.stages.compile_cached = cached;
    return r;
}

TEST(CompileMemory, KeepsEachVariantsLastSlowCompileAndIgnoresCacheHits) {
    CompileMemory memory;
    EXPECT_FALSE(memory.last_seconds("matmul.register_2d"));
    memory.record(compiled("matmul.register_2d", 7200));
    memory.record(compiled("matmul.register_2d", 4, false));    // a disk-cache hit: milliseconds
    memory.record(compiled("matmul.register_2d", 3000, true));  // compiled ahead: not this build's wait
    ASSERT_TRUE(memory.last_seconds("matmul.register_2d"));
    EXPECT_DOUBLE_EQ(*memory.last_seconds("matmul.register_2d"), 7.2);
    EXPECT_FALSE(memory.last_seconds("matmul.naive")) << "one variant's figure is not another's";
    memory.record(compiled("matmul.register_2d", 2400));
    EXPECT_DOUBLE_EQ(*memory.last_seconds("matmul.register_2d"), 2.4) << "the last slow one, not the slowest";
}

TEST(CompileMemory, TheLineSaysTheSecondsAndTheLastFigureWhereThereIsOne) {
    set_language(Language::English);
    EXPECT_EQ(CompilingLine("compiling and analysing", 3.4, std::nullopt), "updating: compiling and analysing... 3 s");
    const std::string with = CompilingLine("compiling and analysing", 3.4, 7.2);
    EXPECT_NE(with.find("3 s"), std::string::npos) << with;
    EXPECT_NE(with.find("took 7 s"), std::string::npos) << with;
    set_language(Language::Chinese);
    EXPECT_NE(CompilingLine("x", 1, 7.2).find("7 秒"), std::string::npos);
    set_language(Language::English);
}

}  // namespace
}  // namespace tilelab::gui
