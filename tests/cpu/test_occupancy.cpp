// Occupancy: hand-worked cases (the arithmetic is in each comment), errors for what cannot
// launch, and a sweep checking that the teaching steps say what cuda_occupancy.h computed.
#include <gtest/gtest.h>

#include <climits>
#include <optional>
#include <regex>

#include "tilelab/i18n.h"
#include "tilelab/occupancy.h"
#include "model/occupancy_rules.h"

using namespace tilelab;

namespace {

const Target& preset(const char* key) {
    const Target* t = find_target(key);
    EXPECT_NE(t, nullptr) << key;
    return *t;
}

// What a hand-worked case states: each field given is checked, those left out are not.
struct Stated {
    std::optional<std::string> error{};
    std::optional<int> blocks_per_sm{}, active_warps{}, max_warps{};
    std::optional<double> occupancy{};
    std::optional<int> limit_warps{}, limit_registers{}, limit_smem{}, limit_blocks{};
    std::optional<std::string> limiter{};
};

void expect_stated(const Occupancy& o, const Stated& s) {
    if (s.error) { EXPECT_EQ(o.error, *s.error); }
    if (s.blocks_per_sm) { EXPECT_EQ(o.blocks_per_sm, *s.blocks_per_sm); }
    if (s.active_warps) { EXPECT_EQ(o.active_warps, *s.active_warps); }
    if (s.max_warps) { EXPECT_EQ(o.max_warps, *s.max_warps); }
    if (s.occupancy) { EXPECT_DOUBLE_EQ(o.occupancy, *s.occupancy); }
    if (s.limit_warps) { EXPECT_EQ(o.limit_warps, *s.limit_warps); }
    if (s.limit_registers) { EXPECT_EQ(o.limit_registers, *s.limit_registers); }
    if (s.limit_smem) { EXPECT_EQ(o.limit_smem, *s.limit_smem); }
    if (s.limit_blocks) { EXPECT_EQ(o.limit_blocks, *s.limit_blocks); }
    if (s.limiter) { EXPECT_EQ(o.limiter, *s.limiter); }
}

std::string all_steps(const Occupancy& o) {
    std::string s;
    for (const auto& line : o.steps) s += line + "\n";
    return s;
}

}  // namespace

// The issue's case: 32×32 threads, 32 registers, 8 KB shared memory on sm_90.
//   warps: 1024 threads = 32 warps; 64 warps per SM / 32 = 2 blocks
//   registers: 32 × 32 = 1024 per warp; 16384 per sub-partition = 16 warps, × 4 = 64 warps / 32 = 2
//   shared memory: 8192 + 1024 reserved = 9216 B; 233472 / 9216 = 25 blocks
//   blocks: 32.  → 2 blocks = 64 warps of 64 = 100%, limited by warps and registers alike.
TEST(Occupancy, IssueCase32x32On90) {
    Occupancy o = compute_occupancy(preset("h100"), {1024, 32, 8192});
    expect_stated(o, {.error = "", .blocks_per_sm = 2, .active_warps = 64, .max_warps = 64, .occupancy = 1.0,
                      .limit_warps = 2, .limit_registers = 2, .limit_smem = 25, .limit_blocks = 32,
                      .limiter = "warps and registers"});
    std::string steps = all_steps(o);
    EXPECT_NE(steps.find("8192 + 1024 reserved = 9216 B per block"), std::string::npos) << steps;
    EXPECT_NE(steps.find("233472 B per SM / 9216 B = 25 blocks"), std::string::npos) << steps;
    EXPECT_NE(steps.find("= 2 blocks per SM = 64 warps of 64 = 100%"), std::string::npos) << steps;
}

// Shared-memory bound: 256 threads, 32 registers, 48 KB on sm_90.
//   smem: 49152 + 1024 = 50176 B; 233472 / 50176 = 4 blocks (warps allow 8, registers 8)
//   → 4 blocks × 8 warps = 32 of 64 = 50%.
TEST(Occupancy, SharedMemoryBound) {
    Occupancy o = compute_occupancy(preset("h100"), {256, 32, 48 * 1024});
    expect_stated(o, {.blocks_per_sm = 4, .occupancy = 0.5, .limit_warps = 8, .limit_registers = 8, .limit_smem = 4,
                      .limiter = "shared memory"});
}

// Blocks bound: one-warp blocks, 16 registers, no shared memory, sm_90.
//   warps: 64 / 1 = 64; registers: 512 per warp, 16384 / 512 = 32 warps per partition = 128
//   blocks; smem: only the 1024 B reservation, 233472 / 1024 = 228; blocks: 32
//   → 32 blocks = 32 warps of 64 = 50%: small blocks waste the SM.
TEST(Occupancy, BlocksBoundWithWarpSizedBlocks) {
    Occupancy o = compute_occupancy(preset("h100"), {32, 16, 0});
    expect_stated(o, {.blocks_per_sm = 32, .occupancy = 0.5, .limit_warps = 64, .limit_registers = 128, .limit_smem = 228,
                      .limit_blocks = 32, .limiter = "blocks"});
}

// Register granularity: 33 registers × 32 = 1056, allocated as 1280 (units of 256).
//   16384 / 1280 = 12 warps per partition = 48 warps; 128-thread blocks (4 warps) → 12 blocks
//   = 48 of 64 warps = 75%. One register more than 32 costs a quarter of the SM.
TEST(Occupancy, RegisterAllocationUnit) {
    Occupancy o = compute_occupancy(preset("h100"), {128, 33, 0});
    expect_stated(o, {.blocks_per_sm = 12, .occupancy = 0.75, .limit_registers = 12, .limiter = "registers"});
    EXPECT_NE(all_steps(o).find("1056 per warp, rounded up to the 256-register allocation unit: 1280"),
              std::string::npos)
        << all_steps(o);
}

// Registers live in four sub-partitions: 40 registers = 1280 per warp, 16384 / 1280 = 12 warps
// in each, 48 in all; 3-warp blocks → 16 blocks (not 65536 / 3840 = 17).
TEST(Occupancy, RegistersPerSubPartition) {
    Occupancy o = compute_occupancy(preset("h100"), {96, 40, 0});
    expect_stated(o, {.blocks_per_sm = 16, .active_warps = 48, .limit_warps = 21, .limit_registers = 16});
}

// T4 (sm_75, 32 warps per SM): 256 threads at 64 registers.
//   warps: 32 / 8 = 4; registers: 2048 per warp, 16384 / 2048 = 8 per partition = 32 warps / 8
//   = 4; no shared memory and no reservation: no limit → 4 blocks = 32 of 32 warps = 100%.
TEST(Occupancy, T4WarpsAndRegisters) {
    Occupancy o = compute_occupancy(preset("t4"), {256, 64, 0});
    expect_stated(o, {.blocks_per_sm = 4, .max_warps = 32, .occupancy = 1.0, .limit_warps = 4, .limit_registers = 4,
                      .limit_smem = INT_MAX, .limit_blocks = 16, .limiter = "warps and registers"});
    EXPECT_NE(all_steps(o).find("shared memory: none used → no limit"), std::string::npos);
}

// T4 shared memory in 256-byte units: 20000 B → 20224 B; 65536 / 20224 = 3 blocks of 4 warps
// = 12 of 32 warps = 37.5%.
TEST(Occupancy, T4SharedMemoryUnit) {
    Occupancy o = compute_occupancy(preset("t4"), {128, 32, 20000});
    expect_stated(o, {.blocks_per_sm = 3, .occupancy = 12.0 / 32.0, .limit_smem = 3, .limiter = "shared memory"});
    EXPECT_NE(all_steps(o).find("rounded up to the 256 B allocation unit: 20224 B"), std::string::npos)
        << all_steps(o);
}

// RTX 4090 (48 warps per SM): 512 threads at 32 registers → warps 48 / 16 = 3, registers 64 / 16
// = 4 → 3 blocks = 48 of 48 warps.
TEST(Occupancy, Ada48Warps) {
    Occupancy o = compute_occupancy(preset("rtx4090"), {512, 32, 0});
    expect_stated(o, {.blocks_per_sm = 3, .max_warps = 48, .occupancy = 1.0, .limit_warps = 3, .limit_registers = 4});
}

TEST(Occupancy, WhatCannotLaunchSaysWhy) {
    const Target& h100 = preset("h100");
    for (OccupancyInput in : {OccupancyInput{2048, 32, 0}, OccupancyInput{0, 32, 0},
                              OccupancyInput{256, 256, 0}, OccupancyInput{256, 32, h100.smem_per_block_optin + 1},
                              OccupancyInput{256, -1, 0}, OccupancyInput{256, 32, -5}}) {
        Occupancy o = compute_occupancy(h100, in);
        EXPECT_NE(o.error, "") << in.threads_per_block << " " << in.registers_per_thread << " " << in.smem_per_block;
        EXPECT_EQ(o.blocks_per_sm, 0);
        EXPECT_EQ(o.occupancy, 0);
    }
    EXPECT_EQ(compute_occupancy(h100, {2048, 32, 0}).error,
              "A block of 2048 threads exceeds the 1024 threads a block may have on sm_90.");
    // 1024 threads × 255 registers = 32 warps × 8192 (255 × 32 = 8160, rounded to 8192): 262144
    // registers, four times what a block may use.
    Occupancy o = compute_occupancy(h100, {1024, 255, 0});
    EXPECT_EQ(o.blocks_per_sm, 0);
    EXPECT_EQ(o.limiter, "registers");
    EXPECT_EQ(o.error, "A block of 1024 threads at 255 registers each needs 262144 registers, more than the 65536 a block may use.");
    // The full opt-in shared memory still fits one block.
    EXPECT_EQ(compute_occupancy(h100, {256, 32, h100.smem_per_block_optin}).blocks_per_sm, 1);
}

// The steps are the calculator's arithmetic: every "<resource>: ... = N blocks" line gives the
// same N as cuda_occupancy.h's per-resource limit, across every preset and a grid of inputs.
TEST(Occupancy, StepsAgreeWithTheHeader) {
    const std::regex limit_line(R"(^(warps|registers|shared memory|blocks): .*(= (\d+) blocks|no limit)$)");
    int checked = 0;
    for (const auto& t : target_presets()) {
        for (int threads : {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1000, 1024}) {
            for (int regs : {0, 8, 16, 24, 32, 33, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255}) {
                for (int smem : {0, 1, 1000, 4096, 8192, 12289, 16384, 32768, 48 * 1024, 65536, 100000, 163840,
                                 t.smem_per_block_optin}) {
                    if (smem > t.smem_per_block_optin || threads > t.max_threads_per_block) continue;
                    Occupancy o = compute_occupancy(t, {threads, regs, smem});
                    SCOPED_TRACE(t.name + " " + std::to_string(threads) + " threads " + std::to_string(regs) +
                                 " regs " + std::to_string(smem) + " B\n" + all_steps(o));
                    int seen = 0;
                    for (const auto& line : o.steps) {
                        std::smatch m;
                        if (!std::regex_match(line, m, limit_line)) continue;
                        ++seen;
                        int n = m[3].matched ? std::stoi(m[3]) : INT_MAX;
                        std::string what = m[1];
                        int expected = what == "warps"       ? o.limit_warps
                                       : what == "registers" ? o.limit_registers
                                       : what == "blocks"    ? o.limit_blocks
                                                             : o.limit_smem;
                        ASSERT_EQ(n, expected) << line;
                    }
                    ASSERT_EQ(seen, 4);
                    int least = std::min({o.limit_warps, o.limit_registers, o.limit_smem, o.limit_blocks});
                    ASSERT_EQ(o.blocks_per_sm, least);
                    ASSERT_EQ(o.active_warps, o.blocks_per_sm * ((threads + 31) / 32));
                    ASSERT_FALSE(o.limiter.empty());
                    ++checked;
                }
            }
        }
    }
    EXPECT_GT(checked, 3000);
}

TEST(Occupancy, CurvesVaryOneInputEach) {
    const Target& h100 = preset("h100");
    OccupancyInput at{256, 32, 8192};
    OccupancyCurves c = occupancy_curves(h100, at);
    ASSERT_EQ(c.vs_block_size.size(), 1024u / 32u);
    EXPECT_EQ(c.vs_block_size.front().x, 32);
    EXPECT_EQ(c.vs_block_size.back().x, 1024);
    ASSERT_EQ(c.vs_registers.size(), 255u);
    ASSERT_FALSE(c.vs_smem.empty());
    EXPECT_EQ(c.vs_smem.front().x, 0);
    EXPECT_EQ(c.vs_smem.back().x, h100.smem_per_block_optin);
    // Each curve passes through the current point.
    double here = compute_occupancy(h100, at).occupancy;
    auto value_at = [](const std::vector<CurvePoint>& curve, int x) {
        for (const auto& p : curve)
            if (p.x == x) return p.occupancy;
        return -1.0;
    };
    EXPECT_DOUBLE_EQ(value_at(c.vs_block_size, 256), here);
    EXPECT_DOUBLE_EQ(value_at(c.vs_registers, 32), here);
    EXPECT_DOUBLE_EQ(value_at(c.vs_smem, 8192), here);
    // More registers or more shared memory never raise occupancy.
    for (size_t i = 1; i < c.vs_registers.size(); ++i)
        EXPECT_LE(c.vs_registers[i].occupancy, c.vs_registers[i - 1].occupancy);
    for (size_t i = 1; i < c.vs_smem.size(); ++i) EXPECT_LE(c.vs_smem[i].occupancy, c.vs_smem[i - 1].occupancy);
    // 255 registers × 256 threads still fits (8 warps × 8192 = 65536), at 8 warps of 64.
    EXPECT_DOUBLE_EQ(c.vs_registers.back().occupancy, 8.0 / 64.0);
}

// The client-only build has no cuda_occupancy.h and follows our own statement of its rules
// (occupancy_rules_own.cpp): every limit, the granularities and carveouts the steps quote, for
// every preset and a grid of inputs, must be the header's, and an architecture outside the own
// rules' tables must be refused rather than guessed.
TEST(Occupancy, OwnRulesAgreeWithTheHeader) {
    const OccupancyRules& header = occupancy_rules();
    const OccupancyRules& own = own_occupancy_rules();
    if (&header == &own) GTEST_SKIP() << "client-only build (TILELAB_CUDA=OFF): no cuda_occupancy.h to compare with";
    std::vector<Target> targets = target_presets();
    for (const char* arch : {"sm_70", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"}) {
        Target t = preset("h100");   // the limits of a Hopper, under other architectures' rules
        t.sm_major = arch[3] - '0';
        t.sm_minor = arch[4] - '0';
        if (arch[5]) t.sm_major = t.sm_major * 10 + t.sm_minor, t.sm_minor = arch[5] - '0';
        if (t.sm_major == 8 && t.sm_minor == 0) t.smem_per_sm = 164 * 1024, t.smem_per_block_optin = 163 * 1024;
        if (t.sm_major == 12 || (t.sm_major == 8 && t.sm_minor != 0)) t.smem_per_sm = 100 * 1024, t.smem_per_block_optin = 99 * 1024;
        if (t.sm_major == 7) t.smem_per_sm = 96 * 1024, t.smem_per_block_optin = 96 * 1024, t.reserved_smem_per_block = 0;
        targets.push_back(t);
    }
    int checked = 0;
    for (const auto& t : targets) {
        SCOPED_TRACE(t.name + " " + t.arch_name());
        ASSERT_EQ(own.register_unit(t), header.register_unit(t));
        ASSERT_EQ(own.sub_partitions(t), header.sub_partitions(t));
        ASSERT_EQ(own.smem_unit(t), header.smem_unit(t));
        ASSERT_EQ(own.max_blocks_per_sm(t), header.max_blocks_per_sm(t));
        OccupancyLimits probe;
        ASSERT_EQ(int(own.limits(t, {32, 32, 0}, probe)), int(OccupancyRulesStatus::ok));   // a consistent target
        for (int threads : {1, 32, 33, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1000, 1024}) {
            for (int regs : {0, 1, 8, 16, 24, 32, 33, 40, 48, 64, 72, 96, 128, 168, 200, 255}) {
                for (int smem = 0; smem <= t.smem_per_block_optin; smem += smem < 4096 ? 1000 : 5003) {
                    const OccupancyInput in{threads, regs, smem};
                    OccupancyLimits a, b;
                    const auto sa = own.limits(t, in, a), sb = header.limits(t, in, b);
                    ASSERT_EQ(int(sa), int(sb)) << threads << " threads " << regs << " regs " << smem << " B";
                    if (sa != OccupancyRulesStatus::ok) continue;
                    ASSERT_EQ(std::vector<int>({a.warps, a.registers, a.smem, a.blocks, a.active}),
                              std::vector<int>({b.warps, b.registers, b.smem, b.blocks, b.active}))
                        << threads << " threads " << regs << " regs " << smem << " B";
                    ASSERT_EQ(std::vector<bool>({a.by_warps, a.by_registers, a.by_smem, a.by_blocks}),
                              std::vector<bool>({b.by_warps, b.by_registers, b.by_smem, b.by_blocks}));
                    const size_t alloc = size_t(smem + t.reserved_smem_per_block + 127) / 128 * 128;
                    ASSERT_EQ(own.smem_carveout(t, alloc), header.smem_carveout(t, alloc));
                    ++checked;
                }
            }
        }
    }
    EXPECT_GT(checked, 50000);
    Target pascal = preset("h100");
    pascal.sm_major = 6, pascal.sm_minor = 1;
    OccupancyLimits unused;
    EXPECT_EQ(int(own.limits(pascal, {256, 32, 0}, unused)), int(OccupancyRulesStatus::unknown_device));
}

// Registers as allocated: per warp in units of 256, so per thread the ptxas count rounded up to a
// multiple of 8 on every target. Hand-worked:
//   14 → 14 × 32 = 448 per warp → 512 → 16 per thread (transpose.smem at TILE=8 on an H100:
//        ptxas 14, Nsight Compute's launch__registers_per_thread 16)
//   16 → 512, already a multiple → 16;  1 → 32 → 256 → 8;  33 → 1056 → 1280 → 40;
//   255 → 8160 → 8192 → 256;  0 → 0 (no registers, nothing allocated).
TEST(Occupancy, RegistersAsAllocatedAreMultiplesOfEight) {
    const Target& h100 = preset("h100");
    struct Case { int ptxas, per_warp, per_thread; };
    for (const Case c : {Case{14, 512, 16}, Case{16, 512, 16}, Case{1, 256, 8}, Case{33, 1280, 40},
                         Case{255, 8192, 256}, Case{0, 0, 0}}) {
        const RegisterAllocation a = allocated_registers(h100, c.ptxas);
        EXPECT_EQ(a.ptxas, c.ptxas);
        EXPECT_EQ(a.unit, 256);
        EXPECT_EQ(a.thread_multiple, 8);
        EXPECT_EQ(a.per_warp, c.per_warp) << c.ptxas;
        EXPECT_EQ(a.per_thread, c.per_thread) << c.ptxas;
        EXPECT_EQ(a.rounded(), c.per_thread != c.ptxas) << c.ptxas;
    }
    // The same unit on every preset, Turing to Blackwell.
    for (const auto& t : target_presets()) {
        EXPECT_EQ(allocated_registers(t, 14).per_thread, 16) << t.name;
        EXPECT_EQ(allocated_registers(t, 57).per_thread, 64) << t.name;
    }
}

// Occupancy counts the allocated registers: any ptxas count gives exactly what its allocated count
// gives, on every preset, and the arithmetic shows both counts where they differ. (The 255-per-
// thread limit is checked on ptxas's count: 249 to 255 registers allocate 256 and still launch.)
TEST(Occupancy, OccupancyUsesTheAllocatedCountAndSaysSo) {
    for (const auto& t : target_presets()) {
        for (int regs = 1; regs <= t.max_regs_per_thread; ++regs) {
            const int allocated = allocated_registers(t, regs).per_thread;
            if (allocated > t.max_regs_per_thread) {
                EXPECT_GT(compute_occupancy(t, {128, regs, 0}).blocks_per_sm, 0) << t.name << " " << regs;
                continue;
            }
            for (int threads : {64, 128, 256, 512}) {
                const Occupancy ptxas = compute_occupancy(t, {threads, regs, 4096});
                const Occupancy alloc = compute_occupancy(t, {threads, allocated, 4096});
                ASSERT_EQ(ptxas.limit_registers, alloc.limit_registers) << t.name << " " << regs << " regs " << threads;
                ASSERT_EQ(ptxas.blocks_per_sm, alloc.blocks_per_sm) << t.name << " " << regs << " regs " << threads;
            }
        }
    }
    const Target& h100 = preset("h100");
    const std::string rounded = all_steps(compute_occupancy(h100, {64, 14, 512}));
    EXPECT_NE(rounded.find("448 per warp, rounded up to the 256-register allocation unit: 512 = 16 per thread as "
                           "allocated (ptxas: 14)"),
              std::string::npos)
        << rounded;
    const std::string exact = all_steps(compute_occupancy(h100, {64, 16, 512}));
    EXPECT_EQ(exact.find("as allocated"), std::string::npos) << exact;

    set_language(Language::Chinese);
    const std::string zh = all_steps(compute_occupancy(h100, {64, 14, 512}));
    set_language(Language::English);
    EXPECT_NE(zh.find("每线程实际分配 16 个（ptxas：14）"), std::string::npos) << zh;
}
