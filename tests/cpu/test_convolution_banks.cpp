// Lesson 19's shared-memory bank sites (lessons/19_convolution_filter_memory/variant.cpp) against a
// walk of kernels/convolution/filter_memory.cuh: every block of the launch, its tile fill, its bank
// copy (FILTER_IN = shared) and its tap loop, each thread's address worked out here from the kernel
// source. Random parameters at small odd sizes, so the last blocks along x and y are cut.
#include <gtest/gtest.h>
#include <random>
#include <string>
#include "bank_walk.h"
#include "test_target.h"
#include "tilelab/variant.h"

using namespace tilelab;
using tilelab::testing::expect_model_equals_walk;
using tilelab::testing::KernelWalk;

namespace {

struct Conv {
    int where, per_lane, f, r, bx, by;
};

// A copy loop `for (i = t; i < n; i += threads) smem[base + i] = ...`, as the compiler emits it:
// unrolled by 4, the remainder first. A thread with m trips stores its first m mod 4 in the
// remainder's passes, then 4 a round; a warp issues a pass if any of its lanes takes part.
void copy_loop(KernelWalk& walk, const std::string& name, int n, int base) {
    const int threads = walk.threads;
    const auto trips = [&](int t) { return t < n ? (n - 1 - t) / threads + 1 : 0; };
    for (int pass = 0; pass < 3; ++pass)
        walk.issue(name, true, [&](int t) -> int64_t { return pass < trips(t) % 4 ? base + t + pass * threads : -1; });
    for (int round = 0; round < trips(0) / 4; ++round)
        for (int u = 0; u < 4; ++u)
            walk.issue(name, true, [&](int t) -> int64_t {
                return round < trips(t) / 4 ? base + t + (trips(t) % 4 + 4 * round + u) * threads : -1;
            });
}

KernelWalk walk_filter_memory(const Conv& c, const Problem& prob) {
    const int64_t w = prob.dim[0], h = prob.dim[1];
    const int d = 2 * c.r + 1, taps = d * d, tw = c.bx + 2 * c.r, th = c.by + 2 * c.r, threads = c.bx * c.by;
    const bool shared = c.where == 3;
    KernelWalk walk;
    walk.threads = threads;
    for (int64_t y0 = 0; y0 < h; y0 += c.by)
        for (int64_t x0 = 0; x0 < w; x0 += c.bx) {
            // for (i = t; i < TW·TH; i += BX·BY) tile[i] = ...; and, from shared memory, the bank after
            // the tile (shared_bank = smem + TW·TH).
            copy_loop(walk, "tile[i] = in[…]", tw * th, 0);
            if (shared) copy_loop(walk, "shared_bank[i] = bank[i]", c.f * taps, tw * th);
            // Threads whose output is outside the image return before the tap loop.
            const auto output = [&](int t, auto word) -> int64_t {
                const int tx = t % c.bx, ty = t / c.bx;
                const int64_t x = x0 + tx, y = y0 + ty;
                if (x >= w || y >= h) return -1;
                return word(tx, ty, int((c.per_lane ? x : y) % c.f));
            };
            for (int k = 0; k < taps; ++k) {
                walk.issue("tile[(ty + k/D)·TW + tx + k%D]", false, [&](int t) {
                    return output(t, [&](int tx, int ty, int) { return int64_t(ty + k / d) * tw + tx + k % d; });
                });
                if (shared)
                    walk.issue("shared_bank[k·F + f]", false, [&](int t) {
                        return output(t, [&](int, int, int f) { return int64_t(tw) * th + int64_t(k) * c.f + f; });
                    });
            }
        }
    return walk;
}

const Variant& convolution() {
    const Variant* v = find_variant("convolution.filter_memory");
    EXPECT_NE(v, nullptr);
    return *v;
}

ParamValues params_of(const Conv& c) {
    return {{"FILTER_IN", c.where}, {"INDEX", c.per_lane}, {"FILTERS", c.f}, {"RADIUS", c.r}, {"BX", c.bx}, {"BY", c.by}};
}

}  // namespace

TEST(ConvolutionBanks, ModelEqualsAWalkOfEveryBlock) {
    const Variant& v = convolution();
    std::mt19937 rng(19);
    int shared = 0;
    for (int n = 0; n < 24;) {
        // FILTERS 2..32: with one filter the placements other than shared have no shared filter reads
        const Conv c{int(rng() % 4), int(rng() % 2), 2 << (rng() % 5), int(1 + rng() % 4), 8 << (rng() % 5), 1 << (rng() % 6)};
        const Problem prob{{int64_t(1 + rng() % 90), int64_t(1 + rng() % 50), 1}};
        const ParamValues p = params_of(c);
        if (!v.invalid_reason(p, prob, tilelab::testing::test_target()).empty()) continue;
        ++n;
        shared += c.where == 3;
        SCOPED_TRACE(::testing::Message() << "FILTER_IN=" << c.where << " INDEX=" << c.per_lane << " FILTERS=" << c.f << " RADIUS="
                                          << c.r << " BX=" << c.bx << " BY=" << c.by << " at " << prob.dim[0] << "x" << prob.dim[1]);
        expect_model_equals_walk(v, p, prob, walk_filter_memory(c, prob));
    }
    EXPECT_GT(shared, 3) << "the bank's copy and reads were walked";
}

// A warp of a block narrower than 32 threads covers 32/BX rows of the tile, BX + 2R words apart: at
// BX = 8, R = 2 rows start 12 words apart, so rows 0 and 3 share banks 4..7 and the tap reads are
// two-way; BX = 32 reads one row a warp, conflict-free. The filter's shared reads never conflict
// (F ≤ 32 different words in consecutive banks, or one word broadcast).
TEST(ConvolutionBanks, NarrowBlocksMakeTheTapReadsConflict) {
    const Variant& v = convolution();
    const Problem prob{{256, 256, 1}};
    const auto load_conflicts = [&](int bx, int by) {
        return full_cost_model(v, params_of({3, 1, 32, 2, bx, by}), prob).banks.load_conflicts;
    };
    EXPECT_EQ(load_conflicts(32, 8), 0);
    EXPECT_EQ(load_conflicts(128, 1), 0);
    EXPECT_GT(load_conflicts(8, 8), 0);
    const BankModel narrow = full_cost_model(v, params_of({3, 1, 32, 2, 8, 8}), prob).banks;
    for (const BankSiteTotals& s : narrow.sites) {
        if (s.name.starts_with("shared_bank")) {
            EXPECT_EQ(s.conflicts(), 0) << s.name;
        }
    }
}

// The model against the H200's counters (scripts/gpu_bank_check.sh, 2026-12-01, smsp__inst_executed_op_shared_{ld,st}
// and l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}) where they count nothing beyond the
// addresses (small grids: no replays behind the L1's other traffic). At 333×77, BX=16 BY=4 RADIUS=3
// a thread copies 3 or 4 tile cells and 6 or 7 filter words: with the loops unrolled by 4 a block
// issues 23 stores, not 20. With one filter in shared memory its 25 taps are 6 float4 loads and
// one float (the compiler's, where tile cells + k is aligned), 13 wavefronts a warp.
TEST(ConvolutionBanks, ModelEqualsTheH200sCounters) {
    const Variant& v = convolution();
    const BankModel odd = full_cost_model(v, params_of({3, 0, 8, 3, 16, 4}), Problem{{333, 77, 1}}).banks;
    EXPECT_EQ(odd.load_instructions, 80262);
    EXPECT_EQ(odd.load_wavefronts, 119364);
    EXPECT_EQ(odd.store_instructions, 9660);
    EXPECT_EQ(odd.store_wavefronts, 9660);
    const BankModel one = full_cost_model(v, params_of({3, 0, 1, 2, 32, 8}), Problem{{256, 256, 1}}).banks;
    EXPECT_EQ(one.load_instructions, 65536);
    EXPECT_EQ(one.load_wavefronts, 77824);
    EXPECT_EQ(one.store_instructions, 3840);
    const BankModel narrow = full_cost_model(v, params_of({3, 1, 32, 2, 8, 8}), Problem{{256, 256, 1}}).banks;
    EXPECT_EQ(narrow.load_wavefronts, 153600);
    EXPECT_EQ(narrow.load_conflicts, 51200);
    EXPECT_EQ(narrow.store_instructions, 30720);
}
