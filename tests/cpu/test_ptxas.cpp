// Reading ptxas's verbose report (-Xptxas=-v) as NVRTC returns it in the program log.
#include <gtest/gtest.h>
#include <tuple>

#include "tilelab/compile.h"

using namespace tilelab;

namespace {

// Two entry functions, as NVRTC 13 prints them for sm_75 (sm_90 leaves out cmem), with a
// device function called by the second one, which has its own properties block.
const char* kTwoKernels =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1kILi32EEvPKfPfi' for 'sm_75'\n"
    "ptxas info    : Function properties for _Z1kILi32EEvPKfPfi\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 48 registers, used 1 barriers, 4096 bytes smem, 372 bytes cmem[0]\n"
    "ptxas info    : Compile time = 7.228 ms\n"
    "ptxas info    : Compiling entry function '_Z5otherPf' for 'sm_75'\n"
    "ptxas info    : Function properties for _Z6helperf\n"
    "ptxas         .     24 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Function properties for _Z5otherPf\n"
    "ptxas         .     168 bytes stack frame, 164 bytes spill stores, 160 bytes spill loads\n"
    "ptxas info    : Used 16 registers, used 0 barriers, 360 bytes cmem[0], 8 bytes cmem[2]\n"
    "ptxas info    : Compile time = 0.971 ms\n";

// Every figure of `got` is `want`'s (parsed, registers, spill stores and loads, stack, smem, cmem).
void expect_report(const PtxasInfo& got, const PtxasInfo& want) {
    const auto figures = [](const PtxasInfo& i) {
        return std::tuple(i.parsed, i.registers, i.spill_stores, i.spill_loads, i.stack_bytes, i.smem_bytes, i.cmem_bytes);
    };
    EXPECT_EQ(figures(got), figures(want));
}

}  // namespace

TEST(Ptxas, ReadsTheNamedKernelOnly) {
    expect_report(parse_ptxas_report(kTwoKernels, "_Z1kILi32EEvPKfPfi"),
                  {.registers = 48, .spill_stores = 0, .spill_loads = 0, .stack_bytes = 0, .smem_bytes = 4096, .cmem_bytes = 372, .parsed = true});
    // The callee's stack frame (24 B) is not the kernel's (168 B).
    expect_report(parse_ptxas_report(kTwoKernels, "_Z5otherPf"),
                  {.registers = 16, .spill_stores = 164, .spill_loads = 160, .stack_bytes = 168, .smem_bytes = 0, .cmem_bytes = 360, .parsed = true});
}

TEST(Ptxas, WithoutANameTakesTheFirstKernel) {
    PtxasInfo first = parse_ptxas_report(kTwoKernels);
    EXPECT_TRUE(first.parsed);
    EXPECT_EQ(first.registers, 48);
}

TEST(Ptxas, UnknownNameOrEmptyLogIsNotParsed) {
    EXPECT_FALSE(parse_ptxas_report(kTwoKernels, "_Z7missingv").parsed);
    EXPECT_FALSE(parse_ptxas_report("").parsed);
    EXPECT_FALSE(parse_ptxas_report("error: something went wrong\n").parsed);
}

// The real thing: NVRTC's log for a kernel squeezed to 32 registers must report spills, and
// without the cap the same kernel must not spill and must use more registers.
TEST(Ptxas, RealReportShowsSpillsUnderARegisterCap) {
    CompileService service("");
    CompileRequest req{.source_file = "test/spill.cuh", .name_expression = "tilelab_test_pressure<64>", .arch = 90};
    auto free_run = service.compile(req);
    ASSERT_TRUE(free_run->ok) << free_run->error << "\n" << free_run->log;
    ASSERT_TRUE(free_run->ptxas.parsed) << free_run->log;
    EXPECT_GT(free_run->ptxas.registers, 32) << free_run->log;
    EXPECT_EQ(free_run->ptxas.spill_stores, 0) << free_run->log;

    req.max_registers = 32;
    auto capped = service.compile(req);
    ASSERT_TRUE(capped->ok) << capped->error;
    ASSERT_TRUE(capped->ptxas.parsed) << capped->log;
    EXPECT_LE(capped->ptxas.registers, 32) << capped->log;
    EXPECT_GT(capped->ptxas.spill_stores, 0) << capped->log;
    EXPECT_GT(capped->ptxas.spill_loads, 0) << capped->log;
    EXPECT_GT(capped->ptxas.stack_bytes, 0) << "spilled values live in the stack frame\n" << capped->log;
    EXPECT_NE(capped->options.find("-maxrregcount=32"), std::string::npos);
}
