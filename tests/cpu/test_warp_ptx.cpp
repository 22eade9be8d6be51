// What the warp-tiled kernel compiles to, read in its PTX (NVRTC, no GPU needed): from sm_80 on,
// STAGES > 1 copies B with cp.async (16 bytes, or 4 where N or K % 4 ≠ 0, in the src-size form
// that zero-fills) and loads A into registers as float4 (it is transposed on the way to shared memory) and waits for all but the newest STAGES-2 groups; STAGES = 1, and any STAGES before
// sm_80, copies with plain loads and stores and has no cp.async at all. The fragment reads are
// float4 (ld.shared.v4) with constant offsets from one base.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "nvrtc_ptx.h"
#include "tilelab/compile.h"

namespace tilelab {
namespace {

// The PTX of `name_expression` from the embedded kernel file, for `arch` ("compute_80").
std::string ptx_of(const std::string& name_expression, const std::string& arch) {
    const std::string* kernel = embedded_source("matmul/warp_tiled.cuh");
    const std::string* common = embedded_source("common.cuh");
    if (!kernel || !common) {
        ADD_FAILURE() << "kernel sources not embedded";
        return "";
    }
    return test::nvrtc_ptx(*kernel, "warp_tiled.cuh", arch, {{"common.cuh", *common}}, name_expression,
                           {"-default-device", std::string("-I") + TILELAB_CUDA_INCLUDE_FOR_TESTS});
}

int count(const std::string& text, const std::string& pattern) {
    const std::regex re(pattern);
    return int(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

TEST(WarpTiledPtx, CpAsyncFromSm80WithZeroFillAndPlainLoadsOtherwise) {
    const std::string stages3 = "warp_tiled_matmul<128, 128, 16, 64, 32, 2, 8, 4, 3, 2>";
    const std::string sm80 = ptx_of(stages3, "compute_80");
    // Each of the two bodies (N and K % 4 == 0, or not) copies B STAGES-1 slices ahead and one per
    // step: 2 copies of 16 bytes per slice, or 8 of 4 bytes. A never goes through cp.async: the
    // float4 body loads it as 2 float4 per slice, in the same three places.
    EXPECT_EQ(count(sm80, R"(cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16, %r\d+;)"), 2 * 3);
    EXPECT_EQ(count(sm80, R"(cp\.async\.ca\.shared\.global \[%r\d+\], \[%rd\d+\], 4, %r\d+;)"), 8 * 3);
    EXPECT_EQ(count(sm80, R"(ld\.global(\.nc)?\.v4\.f32)"), 2 * 3);
    EXPECT_GT(count(sm80, R"(cp\.async\.wait_group 1;)"), 0) << "all but the newest STAGES-2 = 1 groups";
    EXPECT_GT(count(sm80, R"(cp\.async\.commit_group;)"), 0);
    // Per k of a slice: 2 float4 reads of A and 2 of B, with constant offsets, in each body.
    EXPECT_EQ(count(sm80, R"(ld\.shared\.v4\.f32)"), 2 * 16 * 4);

    const std::string sm75 = ptx_of(stages3, "compute_75");
    EXPECT_EQ(count(sm75, R"(cp\.async)"), 0) << "no cp.async before sm_80: plain loads";
    EXPECT_GT(count(sm75, R"(ld\.global)"), 0);

    const std::string stages1 = ptx_of("warp_tiled_matmul<128, 128, 16, 64, 32, 2, 8, 4, 1, 2>", "compute_90");
    EXPECT_EQ(count(stages1, R"(cp\.async)"), 0) << "STAGES = 1 copies synchronously";
    EXPECT_GT(count(stages1, R"(ld\.global\.nc\.v4\.f32|ld\.global\.v4\.f32)"), 0) << "B as float4 where N % 4 == 0";
}

}  // namespace
}  // namespace tilelab
