// The stencil cost models' figures (lessons 08–11): PMPP's (0.46, 1.37 at T = 8, 2.68 at T = 32, the
// 3.25 bound, 12 KB vs 4 KB, the 58 % halo) from the per-block formulas the extras show, exact
// totals at sizes worked out by hand, and the constraints, each refusal a sentence that says why
// (through the variants and through the engine's whole check, as the app makes it). The totals
// against CPU walks of the kernels at random sizes are tests/cpu/test_stencil_models.cpp.
#include <gtest/gtest.h>
#include <string>
#include "lookups.h"
#include "stencil_checks.h"
#include "test_target.h"
#include "tilelab/engine.h"
#include "tilelab/variant.h"

using namespace tilelab;

using tilelab::testing::test_target;
using namespace tilelab::test;   // variant, grid, engine_invalid_reason (stencil_checks.h)

// [SECTION] PMPP's figures ---------------------------------------------------------------------

TEST(StencilPmppFigures, BasicKernelDoes13FlopsPer28BytesLoaded) {
    const Variant& v = variant("stencil.basic");
    const auto m = v.cost_model(with_defaults(v.params, {}), grid(64, 64, 64));
    EXPECT_DOUBLE_EQ(test::extra_value(m, "OP/B, PMPP per-thread ratio"), 13.0 / 28.0);
    EXPECT_NEAR(test::extra_value(m, "OP/B, PMPP per-thread ratio"), 0.46, 0.005);
}

TEST(StencilPmppFigures, TiledAtT8Reaches137AndHasA58PercentHalo) {
    const Variant& v = variant("stencil.smem_tiled");
    const auto m = v.cost_model({{"T", 8}}, grid(64, 64, 64));
    EXPECT_NEAR(test::extra_value(m, "OP/B, PMPP per-block ratio"), 1.37, 0.005);
    EXPECT_DOUBLE_EQ(test::extra_value(m, "OP/B, PMPP per-block ratio"), 13.0 * 216 / (4 * 512));
    // 512 cells in an 8³ tile, 216 of them outputs: 296 halo cells, 58%.
    EXPECT_DOUBLE_EQ(test::extra_value(m, "halo fraction of the input tile"), 296.0 / 512.0);
    EXPECT_NEAR(test::extra_value(m, "halo fraction of the input tile"), 0.58, 0.005);
    EXPECT_EQ(v.smem_bytes({{"T", 8}}), 4 * 512);
}

TEST(StencilPmppFigures, CoarsenedT32Reaches268ForTheBooksCube) {
    // PMPP's 2.68 is a 32³ input tile: a 32×32 block walking the 30 output planes inside it.
    for (const char* id : {"stencil.coarsened", "stencil.register_tiled"}) {
        const Variant& v = variant(id);
        const auto m = v.cost_model({{"TX", 32}, {"TY", 32}, {"Z", 30}}, grid(256, 256, 256));
        EXPECT_NEAR(test::extra_value(m, "OP/B, PMPP per-block ratio"), 2.68, 0.005) << id;
        EXPECT_DOUBLE_EQ(test::extra_value(m, "OP/B, PMPP per-block ratio"), 13.0 * 30 * 30 * 30 / (4.0 * 32 * 32 * 32)) << id;
    }
}

// The stencil variants that sweep the grid once (lessons 08–11), the ones PMPP's figures are
// about; a variant that asks the family for several time steps fuses them past the one-sweep
// bound (lesson 20: test_stencil_temporal.cpp).
static bool one_sweep(const Variant& v) {
    return v.family == "stencil" && v.bind(with_defaults(v.params, {}))->family_options().count("steps") == 0;
}

TEST(StencilPmppFigures, EveryRatioStaysBelowThe325Bound) {
    const Problem pr = grid(128, 128, 128);
    for (const Variant& v : all_variants()) {
        if (!one_sweep(v)) continue;
        const auto m = v.cost_model(with_defaults(v.params, {}), pr);
        EXPECT_DOUBLE_EQ(test::extra_value(m, "OP/B upper bound"), 3.25) << v.id;
        const std::string ratio = v.id == "stencil.basic" ? "OP/B, PMPP per-thread ratio" : "OP/B, PMPP per-block ratio";
        EXPECT_LT(test::extra_value(m, ratio), 3.25) << v.id;
    }
    // The formula alone (no block may have 128×128 threads): a growing tile approaches the bound.
    const Variant& c = variant("stencil.coarsened");
    const double big = test::extra_value(c.cost_model({{"TX", 128}, {"TY", 128}, {"Z", 128}}, pr), "OP/B, PMPP per-block ratio");
    EXPECT_GT(big, 3.0);
    EXPECT_LT(big, 3.25);
}

TEST(StencilPmppFigures, RegisterTilingCutsSharedMemoryFrom12KBTo4KB) {
    const ParamValues t32 = {{"TX", 32}, {"TY", 32}, {"Z", 32}};
    const Variant& coarsened = variant("stencil.coarsened");
    const Variant& registers = variant("stencil.register_tiled");
    EXPECT_EQ(coarsened.smem_bytes(t32), 3 * 32 * 32 * 4);   // 12 KB
    EXPECT_EQ(registers.smem_bytes(t32), 32 * 32 * 4);       // 4 KB
    const Problem pr = grid(256, 256, 256);
    EXPECT_EQ(test::extra_value(coarsened.cost_model(t32, pr), "shared memory / block (bytes)"), 12288);
    EXPECT_EQ(test::extra_value(registers.cost_model(t32, pr), "shared memory / block (bytes)"), 4096);
}

// [SECTION] Exact whole-launch figures vs the per-block ideal -------------------------------

TEST(StencilExactTotals, IntensityIsFlopsOverEveryByteTheLaunchMoves) {
    const Problem pr = grid(512, 512, 512);
    for (const Variant& v : all_variants()) {
        if (!one_sweep(v)) continue;
        const auto m = v.cost_model(with_defaults(v.params, {}), pr);
        const double interior = 510.0 * 510 * 510, cells = 512.0 * 512 * 512;
        EXPECT_EQ(m.flops, 13 * interior) << v.id;
        EXPECT_EQ(m.total.global_stores, cells) << v.id << ": every cell is written once";
        EXPECT_DOUBLE_EQ(m.global_bytes, 4 * (m.total.global_loads + m.total.global_stores)) << v.id;
        EXPECT_DOUBLE_EQ(m.intensity, m.flops / m.global_bytes) << v.id;
        EXPECT_EQ(m.compulsory_bytes, 8 * cells) << v.id;
        // The book's ratio leaves out the stores (and the boundary), so the exact one is lower.
        const std::string ratio = v.id == "stencil.basic" ? "OP/B, PMPP per-thread ratio" : "OP/B, PMPP per-block ratio";
        EXPECT_LT(m.intensity, test::extra_value(m, ratio)) << v.id;
    }
}

TEST(StencilExactTotals, BasicLoadsSevenPerInteriorCellAndOnePerBoundaryCell) {
    const Variant& v = variant("stencil.basic");
    const auto m = v.cost_model(with_defaults(v.params, {}), grid(512, 512, 512));
    const double interior = 510.0 * 510 * 510, cells = 512.0 * 512 * 512;
    EXPECT_EQ(m.total.global_loads, 7 * interior + (cells - interior));
    // 13·I / (4·(7·I + B + N)) ≈ 0.41, below the book's 0.46 which leaves out the store.
    EXPECT_NEAR(m.intensity, 0.41, 0.01);
}

TEST(StencilExactTotals, TiledAt512LoadsEachCellOncePlusTheSeams) {
    // 510 interior cells per axis in 6-cell steps: 85 tiles, 84 seams of 2 cells each.
    const Variant& v = variant("stencil.smem_tiled");
    const auto m = v.cost_model({{"T", 8}}, grid(512, 512, 512));
    const double per_axis = 512 + 2 * 84;
    EXPECT_EQ(m.total.global_loads, per_axis * per_axis * per_axis);
}

TEST(StencilExactTotals, CoarsenedAndRegisterTiledMoveTheSameGlobalBytes) {
    const Problem pr = grid(300, 200, 100);
    for (const ParamValues& p : {ParamValues{{"TX", 32}, {"TY", 32}, {"Z", 32}},
                                 ParamValues{{"TX", 64}, {"TY", 8}, {"Z", 7}}, ParamValues{{"TX", 3}, {"TY", 3}, {"Z", 1}},
                                 ParamValues{{"TX", 32}, {"TY", 4}, {"RY", 4}, {"Z", 32}, {"HALO", 1}}}) {
        const auto coarsened = variant("stencil.coarsened").cost_model(p, pr);
        const auto registers = variant("stencil.register_tiled").cost_model(p, pr);
        EXPECT_EQ(coarsened.total.global_loads, registers.total.global_loads);
        EXPECT_EQ(coarsened.total.global_stores, registers.total.global_stores);
        EXPECT_EQ(coarsened.intensity, registers.intensity);
        // ... but register tiling reads fewer values from shared memory: 4 per output, not 7.
        EXPECT_LT(registers.total.shared_loads, coarsened.total.shared_loads);
    }
}

TEST(StencilExactTotals, LargerTilesLoadLess) {
    const Problem pr = grid(256, 256, 256);
    const double basic = variant("stencil.basic").cost_model({{"BX", 32}, {"BY", 8}, {"BZ", 1}}, pr).total.global_loads;
    const double tiled = variant("stencil.smem_tiled").cost_model({{"T", 8}}, pr).total.global_loads;
    const double coarsened =
        variant("stencil.coarsened").cost_model({{"TX", 32}, {"TY", 32}, {"Z", 32}}, pr).total.global_loads;
    EXPECT_LT(tiled, basic);
    EXPECT_LT(coarsened, tiled);
    EXPECT_GT(coarsened, 256.0 * 256 * 256) << "the halo still costs something";
}

// [SECTION] The model equals a walk of each kernel at any size --------------------------------

// [SECTION] Constraints say why, in a sentence --------------------------------------------

TEST(StencilConstraints, TheOrder2StencilNeedsFiveCellsAndATileOfFive) {
    EXPECT_NE(engine_invalid_reason("stencil.basic", {{"BX", 32}, {"BY", 8}, {"BZ", 1}, {"RADIUS", 2}}, grid(4, 64, 64))
                  .find("at least 5 cells"),
              std::string::npos);
    const std::string reason = engine_invalid_reason("stencil.smem_tiled", {{"T", 4}, {"RADIUS", 2}}, grid(64, 64, 64));
    EXPECT_NE(reason.find("at least 2·RADIUS + 1 = 5"), std::string::npos) << reason;
}

TEST(StencilPmppFigures, TheOrder2StencilLoads13AndItsHaloCostsMore) {
    const Problem pr = grid(256, 256, 256);
    const CostModel basic = variant("stencil.basic").cost_model({{"BX", 32}, {"BY", 8}, {"BZ", 1}, {"RADIUS", 2}}, pr);
    EXPECT_EQ(basic.per_thread.global_loads, 13);
    EXPECT_EQ(basic.flops, 25.0 * 252 * 252 * 252);
    EXPECT_NEAR(test::extra_value(basic, "OP/B, PMPP per-thread ratio"), 25.0 / 52, 1e-12);
    EXPECT_NEAR(test::extra_value(basic, "OP/B upper bound"), 6.25, 1e-12);
    const Variant& tiled = variant("stencil.smem_tiled");
    const CostModel r1 = tiled.cost_model({{"T", 8}, {"RADIUS", 1}}, pr), r2 = tiled.cost_model({{"T", 8}, {"RADIUS", 2}}, pr);
    EXPECT_NEAR(test::extra_value(r1, "halo fraction of the input tile"), 296.0 / 512, 1e-12);
    EXPECT_NEAR(test::extra_value(r2, "halo fraction of the input tile"), 448.0 / 512, 1e-12) << "4³ outputs of an 8³ tile";
    EXPECT_NEAR(test::extra_value(r2, "OP/B, PMPP per-block ratio"), 25.0 * 64 / (4 * 512), 1e-12);
}

TEST(StencilConstraints, TiledStopsAtT10BecauseOfTheThreadLimit) {
    const Variant& v = variant("stencil.smem_tiled");
    const Problem pr = grid(256, 256, 256);
    EXPECT_EQ(v.invalid_reason({{"T", 10}}, pr, test_target()), "");
    const std::string why = v.invalid_reason({{"T", 11}}, pr, test_target());
    EXPECT_NE(why.find("1331"), std::string::npos) << why;
    EXPECT_NE(why.find("1024"), std::string::npos) << why;
    EXPECT_NE(why.find("at most 10"), std::string::npos) << why;
    EXPECT_EQ(why.back(), '.') << why;
}

TEST(StencilConstraints, PlaneWalksNeedTXTimesTYWithinTheBlockLimit) {
    for (const char* id : {"stencil.coarsened", "stencil.register_tiled"}) {
        const Problem pr = grid(256, 256, 256);
        EXPECT_EQ(engine_invalid_reason(id, {{"TX", 32}, {"TY", 32}, {"Z", 32}}, pr), "") << id;
        const std::string why = engine_invalid_reason(id, {{"TX", 64}, {"TY", 32}, {"Z", 32}}, pr);
        EXPECT_NE(why.find("2048"), std::string::npos) << id << ": " << why;
        EXPECT_EQ(why.back(), '.') << why;
    }
}

TEST(StencilConstraints, TheHaloLayoutsSayWhatTheyNeed) {
    const Problem pr = grid(256, 256, 256);
    for (const char* id : {"stencil.coarsened", "stencil.register_tiled"}) {
        const Variant& v = variant(id);
        // Inside: a tile needs a row between its two halo rows.
        const std::string rows = v.invalid_reason({{"TX", 32}, {"TY", 1}, {"RY", 2}, {"Z", 8}, {"HALO", 0}}, pr, test_target());
        EXPECT_NE(rows.find("at least 3"), std::string::npos) << id << ": " << rows;
        EXPECT_EQ(v.invalid_reason({{"TX", 32}, {"TY", 1}, {"RY", 2}, {"Z", 8}, {"HALO", 1}}, pr, test_target()),
                  "With the halo around the tile, each of its 2·TX + 2·TY·RY = 68 halo cells is loaded by a thread "
                  "of its own, but a 32×1 block has only 32 threads.") << id;
        EXPECT_EQ(v.invalid_reason({{"TX", 32}, {"TY", 4}, {"RY", 4}, {"Z", 32}, {"HALO", 1}}, pr, test_target()), "") << id;
    }
}

TEST(StencilExactTotals, TheHaloAroundTheTileLoadsLessThanTheBooksLayout) {
    // 512³, 32 × 16 outputs per tile: the book's 32 × 18 input tile (TY·RY = 18) loads its
    // overlapping edges twice, the aligned tile loads its halo rows and columns once.
    const Problem pr = grid(512, 512, 512);
    const Variant& v = variant("stencil.register_tiled");
    const auto inside = v.cost_model({{"TX", 34}, {"TY", 6}, {"RY", 3}, {"Z", 32}, {"HALO", 0}}, pr);
    const auto around = v.cost_model({{"TX", 32}, {"TY", 4}, {"RY", 4}, {"Z", 32}, {"HALO", 1}}, pr);
    // Around: Nx·Ny·(Nz−2+2·Gz) + (2·Nx·(Gy−1) + 2·Ny·(Gx−1))·(Nz−2), Gx = 16, Gy = 32, Gz = 16.
    EXPECT_EQ(around.total.global_loads, 512.0 * 512 * (510 + 32) + (2.0 * 512 * 31 + 2.0 * 512 * 15) * 510);
    EXPECT_LT(around.total.global_loads, inside.total.global_loads);
    EXPECT_NEAR(test::extra_value(around, "OP/B, PMPP per-block ratio"), 13.0 * 512 * 32 / (4.0 * (512 * 34 + 96 * 32)), 1e-12);
}

TEST(StencilConstraints, RegisterTilingFitsWhereThreePlanesDoNot) {
    Target small = test_target();
    small.smem_per_block = 8 * 1024;
    const ParamValues t32 = {{"TX", 32}, {"TY", 32}, {"Z", 16}};
    const Problem pr = grid(256, 256, 256);
    const std::string why = engine_invalid_reason("stencil.coarsened", t32, pr, small);
    EXPECT_NE(why.find("12288"), std::string::npos) << why;
    EXPECT_EQ(engine_invalid_reason("stencil.register_tiled", t32, pr, small), "");
}

TEST(StencilConstraints, GridsTooSmallOrTooTallAreRefusedWithASentence) {
    for (const Variant& v : all_variants()) {
        if (v.family != "stencil") continue;
        const std::string why = v.invalid_reason(with_defaults(v.params, {}), grid(2, 64, 64), test_target());
        EXPECT_NE(why.find("Nx is 2"), std::string::npos) << v.id << ": " << why;
    }
    const std::string tall =
        engine_invalid_reason("stencil.basic", {{"BX", 32}, {"BY", 1}, {"BZ", 1}}, grid(8, 70000, 3));
    EXPECT_NE(tall.find("70000 blocks along y"), std::string::npos) << tall;
    EXPECT_NE(tall.find("65535"), std::string::npos) << tall;
}

TEST(StencilConstraints, DefaultsRunAt256And512) {
    for (const Variant& v : all_variants()) {
        if (v.family != "stencil") continue;
        for (int64_t n : {256, 512})
            EXPECT_EQ(v.invalid_reason(with_defaults(v.params, {}), grid(n, n, n), test_target()), "") << v.id;
    }
}

TEST(StencilConstraints, TheFamilyRefusesGridsItCannotHoldWithASentence) {
    // Through the engine in model mode, which asks the stencil family before the variant.
    Engine engine(EngineConfig{"", /*force_model_mode=*/true});
    auto why = [&](int64_t nx, int64_t ny, int64_t nz) {
        return engine.invalid_reason(RunRequest{"stencil.register_tiled", {}, grid(nx, ny, nz)});
    };
    EXPECT_EQ(why(3, 3, 3), "");
    EXPECT_EQ(why(1024, 1024, 1024), "");
    EXPECT_NE(why(64, 2, 64).find("Ny is 2"), std::string::npos) << why(64, 2, 64);
    const std::string too_big = why(2048, 1024, 1024);
    EXPECT_NE(too_big.find("2^30"), std::string::npos) << too_big;
    EXPECT_EQ(too_big.back(), '.') << too_big;
    const std::string not_int = why(int64_t(1) << 32, 3, 3);
    EXPECT_NE(not_int.find("int"), std::string::npos) << not_int;
}
