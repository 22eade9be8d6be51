// Reading ptxas's verbose report (-Xptxas=-v) as NVRTC returns it in the program log.
#include <gtest/gtest.h>

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

}  // namespace

TEST(Ptxas, ReadsTheNamedKernelOnly) {
    PtxasInfo k = parse_ptxas_report(kTwoKernels, "_Z1kILi32EEvPKfPfi");
    EXPECT_TRUE(k.parsed);
    EXPECT_EQ(k.registers, 48);
    EXPECT_EQ(k.smem_bytes, 4096);
    EXPECT_EQ(k.cmem_bytes, 372);
    EXPECT_EQ(k.stack_bytes, 0);
    EXPECT_EQ(k.spill_stores, 0);
    EXPECT_EQ(k.spill_loads, 0);

    // The callee's stack frame (24 B) is not the kernel's (168 B).
    PtxasInfo other = parse_ptxas_report(kTwoKernels, "_Z5otherPf");
    EXPECT_TRUE(other.parsed);
    EXPECT_EQ(other.registers, 16);
    EXPECT_EQ(other.stack_bytes, 168);
    EXPECT_EQ(other.spill_stores, 164);
    EXPECT_EQ(other.spill_loads, 160);
    EXPECT_EQ(other.smem_bytes, 0);
    EXPECT_EQ(other.cmem_bytes, 360);
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
