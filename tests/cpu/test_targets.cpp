// Model-mode presets: datasheet figures that agree with each other and with cuda_occupancy.h.
#include <gtest/gtest.h>

#include <cmath>

#include "tilelab/occupancy.h"
#include "tilelab/target.h"

using namespace tilelab;

TEST(Target, FivePresetsAreThere) {
    const auto& presets = target_presets();
    ASSERT_EQ(presets.size(), 5u);
    for (const char* key : {"t4", "a100", "rtx4090", "h100", "h200"}) {
        const Target* t = find_target(key);
        ASSERT_NE(t, nullptr) << key;
        EXPECT_EQ(t->preset, key);
        EXPECT_EQ(t->source, "datasheet");
    }
}

TEST(Target, FindByKeyNameOrArch) {
    EXPECT_EQ(find_target("H100")->preset, "h100");
    EXPECT_EQ(find_target("Tesla T4")->preset, "t4");
    EXPECT_EQ(find_target("geforce rtx 4090")->preset, "rtx4090");
    EXPECT_EQ(find_target(" RTX4090 ")->preset, "rtx4090");
    EXPECT_EQ(find_target("RTX-4090"), nullptr);   // exact names only: nothing is dropped before matching
    EXPECT_EQ(find_target("h-1 0 0"), nullptr);
    EXPECT_EQ(find_target("h\xff" "100"), nullptr);
    EXPECT_EQ(find_target("sm_75")->preset, "t4");
    EXPECT_EQ(find_target("sm_80")->preset, "a100");
    EXPECT_EQ(find_target("sm_89")->preset, "rtx4090");
    EXPECT_EQ(find_target("sm_90")->preset, "h100");  // the first preset with sm_90
    EXPECT_EQ(find_target("sm_90")->arch_name(), "sm_90");
    EXPECT_EQ(find_target("nonsense"), nullptr);
    EXPECT_EQ(find_target(""), nullptr);
    EXPECT_EQ(find_target("sm_70"), nullptr);
}

TEST(Target, ArchitectureFigures) {
    const Target& t4 = *find_target("t4");
    EXPECT_EQ(t4.arch(), 75);
    EXPECT_EQ(t4.max_threads_per_sm, 1024);
    EXPECT_EQ(t4.max_blocks_per_sm, 16);
    EXPECT_EQ(t4.reserved_smem_per_block, 0);
    const Target& ada = *find_target("rtx4090");
    EXPECT_EQ(ada.max_threads_per_sm, 1536);
    EXPECT_EQ(ada.max_blocks_per_sm, 24);
    for (const char* key : {"a100", "h100", "h200"}) {
        const Target& t = *find_target(key);
        EXPECT_EQ(t.max_threads_per_sm, 2048) << key;
        EXPECT_EQ(t.max_blocks_per_sm, 32) << key;
        EXPECT_EQ(t.reserved_smem_per_block, 1024) << key;
    }
}

// The quoted FP32 peak is SMs × FP32 lanes per SM × 2 (an FMA is two FLOPs) × boost clock.
// Lanes per SM: 64 on compute capability 7.5 and 8.0, 128 on 8.9 and 9.0 (CUDA C++ Programming
// Guide, arithmetic instruction throughput table).
TEST(Target, PeakFp32IsLanesTimesClock) {
    for (const auto& t : target_presets()) {
        int lanes = (t.arch() == 75 || t.arch() == 80) ? 64 : 128;
        double formula = t.sm_count * lanes * 2 * t.clock_ghz;
        EXPECT_NEAR(t.peak_fp32_gflops, formula, 0.01 * formula) << t.name;
        EXPECT_GT(t.dram_gbps, 0) << t.name;
    }
}

// Each preset is consistent: per-block limits within per-SM limits; and the SM-wide figures the
// occupancy header keeps in its own tables agree with ours.
TEST(Target, ConsistentWithTheOccupancyHeader) {
    for (const auto& t : target_presets()) {
        SCOPED_TRACE(t.name);
        EXPECT_GT(t.sm_count, 0);
        EXPECT_LE(t.max_threads_per_block, t.max_threads_per_sm);
        EXPECT_LE(t.regs_per_block, t.regs_per_sm);
        EXPECT_LE(t.smem_per_block, t.smem_per_block_optin);
        EXPECT_LE(t.smem_per_block_optin + t.reserved_smem_per_block, t.smem_per_sm);
        EXPECT_EQ(t.max_threads_per_sm % t.warp_size, 0);

        // cuda_occupancy.h keeps its own table of blocks per SM: ours must match it.
        Occupancy one_warp = compute_occupancy(t, {32, 16, 1});
        ASSERT_EQ(one_warp.error, "");
        EXPECT_EQ(one_warp.limit_blocks, t.max_blocks_per_sm);
        // The SM's shared memory must be a carveout size the architecture offers, or the header
        // would round it up and the step would show another figure.
        std::string steps;
        for (const auto& line : one_warp.steps) steps += line + "\n";
        EXPECT_NE(steps.find("; " + std::to_string(t.smem_per_sm) + " B per SM"), std::string::npos) << steps;
    }
}
