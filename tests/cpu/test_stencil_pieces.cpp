// Lesson 11's register-tiled kernel with VX columns a thread (float2 and float4 pieces of a row):
// its PTX run on the CPU at sizes the tiles do not divide, validated, every access counted equal
// to the model's; the layouts it refuses, each with its sentence. The walks in
// test_stencil_models.cpp and test_stencil_banks.cpp check the totals and the bank sites at random
// configurations; this runs the kernel itself.
#include <gtest/gtest.h>
#include "stencil_checks.h"

using namespace tilelab;
using namespace tilelab::test;

namespace {

ParamValues pieces(int tx, int ty, int ry, int z, int vx) {
    return {{"TX", tx}, {"TY", ty}, {"RY", ry}, {"Z", z}, {"HALO", 1}, {"VX", vx}};
}

// 44 columns: a partial last tile along x at TX = 16 and 32; 29 rows and 13 planes: partial last
// tiles along y and z, and a z block of one or two planes.
TEST(StencilPieces, TheKernelsPtxPassesOnTheCpuWithTheModelsCounts) {
    const Problem p = grid(44, 29, 13);
    const ParamValues cases[] = {pieces(16, 4, 1, 4, 4), pieces(32, 4, 2, 5, 4), pieces(16, 8, 1, 3, 2),
                                 pieces(8, 8, 1, 6, 2), pieces(12, 8, 1, 4, 4), pieces(32, 4, 4, 8, 1)};
    for (const ParamValues& params : cases) {
        SCOPED_TRACE(::testing::Message() << "TX=" << params.at("TX") << " TY=" << params.at("TY") << " RY="
                                          << params.at("RY") << " Z=" << params.at("Z") << " VX=" << params.at("VX"));
        ASSERT_EQ(engine_invalid_reason("stencil.register_tiled", params, p), "");
        expect_cpu_run_passes_with_the_models_counts(RunRequest{"stencil.register_tiled", params, p}, 11);
    }
}

TEST(StencilPieces, RefusesPiecesWithTheHaloInsideAcrossATileOrARowAndTooFewHaloThreads) {
    const Problem p = grid(64, 64, 64);
    auto reason = [&](const ParamValues& params, const Problem& size) {
        return engine_invalid_reason("stencil.register_tiled", params, size);
    };
    ParamValues inside = pieces(32, 8, 1, 8, 4);
    inside["HALO"] = 0;
    EXPECT_NE(reason(inside, p).find("HALO = 1"), std::string::npos) << reason(inside, p);
    EXPECT_NE(reason(pieces(30, 8, 1, 8, 4), p).find("TX = 30"), std::string::npos);
    EXPECT_NE(reason(pieces(32, 8, 1, 8, 4), grid(62, 64, 64)).find("Nx is 62"), std::string::npos);
    EXPECT_EQ(reason(pieces(32, 8, 1, 8, 2), grid(62, 64, 64)), "");
    // 8 threads along x, 4 rows: 2·8 + 2·4 = 24 halo pieces for 32 threads; 8 rows: 32 for 16.
    EXPECT_EQ(reason(pieces(32, 4, 1, 8, 4), p), "");
    EXPECT_NE(reason(pieces(32, 2, 4, 8, 4), p).find("halo pieces"), std::string::npos) << reason(pieces(32, 2, 4, 8, 4), p);
}

}  // namespace
