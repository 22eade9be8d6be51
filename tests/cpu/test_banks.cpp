// The bank model (tilelab/banks.h): hand-worked warps first, then every shared-memory variant's
// model against an independent CPU walk of its kernel's shared addresses at random
// configurations. The walks below re-derive each address from the kernel source's loops (not
// from the variants' site formulas) and count wavefronts their own way: per 128-byte phase, the
// busiest bank's number of distinct 4-byte words.
#include <gtest/gtest.h>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <random>
#include <set>
#include "tilelab/banks.h"
#include "tilelab/variant.h"

using namespace tilelab;

namespace {

std::array<int64_t, kWarpLanes> lanes(int64_t (*f)(int)) {
    std::array<int64_t, kWarpLanes> a;
    for (int l = 0; l < kWarpLanes; ++l) a[size_t(l)] = f(l);
    return a;
}

}  // namespace

TEST(Banks, ConsecutiveFloatsTakeOneWavefront) {
    const WarpBanks w = warp_banks(lanes([](int l) { return int64_t(4 * l); }), 4, false);
    EXPECT_EQ(w.wavefronts, 1);
    EXPECT_EQ(w.conflicts(), 0);
    EXPECT_EQ(w.lanes[5].bank, 5);
}

TEST(Banks, AColumnOfA32WideTileIs32Way) {
    for (const bool store : {false, true}) {
        const WarpBanks w = warp_banks(lanes([](int l) { return int64_t(4 * 32 * l); }), 4, store);
        EXPECT_EQ(w.wavefronts, 32);
        EXPECT_EQ(w.conflicts(), 31);
        EXPECT_EQ(w.worst_ways, 32);
        for (const LaneBank& l : w.lanes) EXPECT_TRUE(l.conflict);
        EXPECT_EQ(w.lanes[31].wavefront, 31);
    }
}

TEST(Banks, PaddingOneFloatMakesTheColumnConflictFree) {
    const WarpBanks w = warp_banks(lanes([](int l) { return int64_t(4 * 33 * l); }), 4, false);
    EXPECT_EQ(w.wavefronts, 1);
    EXPECT_EQ(w.worst_ways, 1);
}

TEST(Banks, OneWordForEveryLaneIsABroadcast) {
    const WarpBanks w = warp_banks(lanes([](int) { return int64_t(64); }), 4, false);
    EXPECT_EQ(w.wavefronts, 1);
    EXPECT_EQ(w.broadcasts, 31);
    EXPECT_TRUE(w.lanes[0].broadcast);
}

TEST(Banks, ConsecutiveFloat4TakeFourWavefrontsLoadedOrStored) {
    // 512 bytes, 128 per wavefront, no conflict: loads in half-warps, stores in quarter-warps.
    for (const bool store : {false, true}) {
        const WarpBanks w = warp_banks(lanes([](int l) { return int64_t(16 * l); }), 16, store);
        EXPECT_EQ(w.wavefronts, 4);
        EXPECT_EQ(w.min_wavefronts, 4);
        EXPECT_EQ(w.conflicts(), 0);
        EXPECT_EQ(w.worst_ways, 1);
        EXPECT_EQ(w.lanes[9].phase, store ? 1 : 0);
        // A 128-byte stride puts every lane on banks 0-3: 8 lanes per quarter, 8-way.
        const WarpBanks s = warp_banks(lanes([](int l) { return int64_t(128 * l); }), 16, store);
        EXPECT_EQ(s.wavefronts, 4 * 8);
        EXPECT_EQ(s.worst_ways, 8);
    }
}

TEST(Banks, AUniformFloat4LoadTakesOneWavefrontPerHalfWarpAndAStoreOnePerQuarter) {
    const auto uniform = lanes([](int) { return int64_t(0); });
    EXPECT_EQ(warp_banks(uniform, 16, false).wavefronts, 2);
    EXPECT_EQ(warp_banks(uniform, 16, true).wavefronts, 4);
    EXPECT_EQ(warp_banks(uniform, 16, false).conflicts(), 0);
    // Half-warps on two float4 (the 2D kernel's A fragment): 2 wavefronts, where 4 quarter-warp
    // phases would take 4.
    EXPECT_EQ(warp_banks(lanes([](int l) { return int64_t(l < 16 ? 0 : 16); }), 16, false).wavefronts, 2);
}

TEST(Banks, LoadsFetchOncePerEqualPairAndPerEqualPairOfPairs) {
    // Lanes 2m and 2m+1 on one float4: 8 fetches per half-warp, 128 bytes, 1 wavefront each.
    EXPECT_EQ(warp_banks(lanes([](int l) { return int64_t(16 * (l / 2)); }), 16, false).wavefronts, 2);
    // Quads (a, b, a, b): the pairs are equal, 2 fetches per quad.
    EXPECT_EQ(warp_banks(lanes([](int l) { return int64_t(16 * (l % 2)); }), 16, false).wavefronts, 2);
    // Quads (a, a, a, b): 3 fetches per quad although only 2 addresses: 192 bytes per half-warp.
    EXPECT_EQ(warp_banks(lanes([](int l) { return int64_t(16 * (l % 4 == 3 ? 1 : 0) + 32 * (l / 4)); }), 16, false).wavefronts, 4);
    // Quads (0, 1, 2, 3) repeated: no two lanes of a quad share, 512 bytes.
    EXPECT_EQ(warp_banks(lanes([](int l) { return int64_t(16 * (l % 4)); }), 16, false).wavefronts, 4);
}

TEST(Banks, Float2LoadsServeTheWholeWarpStoresHalfWarps) {
    const WarpBanks w = warp_banks(lanes([](int l) { return int64_t(8 * l); }), 8, false);
    EXPECT_EQ(w.wavefronts, 2);
    EXPECT_EQ(w.conflicts(), 0);
    // One float2 per half-warp, in the same bank: a conflict for a load (one unit), none for a store.
    const auto halves = lanes([](int l) { return int64_t(l < 16 ? 0 : 128); });
    EXPECT_EQ(warp_banks(halves, 8, false).wavefronts, 2);
    EXPECT_EQ(warp_banks(halves, 8, false).conflicts(), 1);
    EXPECT_EQ(warp_banks(halves, 8, true).wavefronts, 2);
    EXPECT_EQ(warp_banks(halves, 8, true).conflicts(), 0);
    // Lanes 2m, 2m+1 on one float2, 128 bytes in all: one wavefront for the whole warp.
    EXPECT_EQ(warp_banks(lanes([](int l) { return int64_t(8 * (l / 2)); }), 8, false).wavefronts, 1);
    // A 16-byte stride in each half-warp, the halves alike (the 2D kernel's B fragment at PAD=2):
    // not one wavefront, so half-warps, each 2-way: 4, where the whole warp would need only 2.
    const WarpBanks strided = warp_banks(lanes([](int l) { return int64_t(16 * (l % 16)); }), 8, false);
    EXPECT_EQ(strided.wavefronts, 4);
    EXPECT_EQ(strided.conflicts(), 2);
    EXPECT_EQ(strided.lanes[16].phase, 1);
}

TEST(Banks, InactiveLanesDoNotCount) {
    const WarpBanks w = warp_banks(lanes([](int l) { return l < 8 ? int64_t(4 * 32 * l) : int64_t(-1); }), 4, false);
    EXPECT_EQ(w.wavefronts, 8);
    EXPECT_EQ(w.lanes[8].bank, -1);
    EXPECT_EQ(warp_banks(lanes([](int l) { return l < 8 ? int64_t(16 * l) : int64_t(-1); }), 16, false).wavefronts, 1);
}

// The patterns of scripts/bank_probe, with the wavefronts and conflicts Nsight Compute counted for
// them on a GPU, replayed against the model. TILELAB_BANK_PROBE names another table (another GPU).
TEST(BankProbe, TheModelReproducesEveryMeasuredPattern) {
    const char* env = std::getenv("TILELAB_BANK_PROBE");
    const std::string path = env ? env : TILELAB_SOURCE_DIR "/tests/cpu/data/bank_probe_h100.txt";
    std::ifstream in(path);
    ASSERT_TRUE(in) << "cannot read " << path;
    int patterns = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const std::string pattern = line.substr(line.find(" # ") + 3);
        std::istringstream f(line.substr(0, line.find(" # ")));
        std::string op;
        int width = 0;
        std::array<int64_t, kWarpLanes> bytes{};
        double wavefronts = -1, conflicts = -1;
        f >> op >> width;
        for (int64_t& b : bytes) f >> b;
        f >> wavefronts >> conflicts;
        ASSERT_TRUE(f) << "malformed line: " << line;
        const WarpBanks w = warp_banks(bytes, width, op == "st");
        EXPECT_EQ(w.wavefronts, wavefronts) << op << " " << pattern;
        EXPECT_EQ(w.conflicts(), conflicts) << op << " " << pattern;
        ++patterns;
    }
    EXPECT_GE(patterns, 90);
}

// ---- independent walks -------------------------------------------------------------------

namespace {

// Wavefronts of one warp instruction, counted independently of warp_banks (same rule, other
// code): stores per 128 bytes of lanes, loads per warp (per half-warp for float4, and for float2
// when the warp does not fit one wavefront) with the fetches of each quad (equal neighbours l,
// l^1 once; equal pairs once); per unit the larger of ceil(fetched bytes / 128) and the busiest
// bank's distinct words.
struct Tally {
    double instructions = 0, wavefronts = 0, minimum = 0;
    bool store = false;
    void add(const std::vector<int64_t>& word_of_lane, int floats) {   // -1: inactive
        const auto word = [&](int l) { return l < int(word_of_lane.size()) ? word_of_lane[size_t(l)] : int64_t(-1); };
        // {busiest bank's distinct words, minimum} of lanes p..p+unit-1; {0, 0} when none is active
        const auto serve = [&](int p, int unit) {
            std::map<int64_t, std::set<int64_t>> bank;
            for (int l = p; l < p + unit; ++l)
                if (word(l) >= 0)
                    for (int i = 0; i < floats; ++i) bank[(word(l) + i) % 32].insert(word(l) + i);
            if (bank.empty()) return std::pair<size_t, size_t>{0, 0};
            size_t most = 0;
            for (const auto& [b, words] : bank) most = std::max(most, words.size());
            size_t least = 1;
            if (!store) {
                size_t fetches = 0;
                for (int q = p; q < p + unit; q += 4) {
                    std::set<int64_t> first{word(q), word(q + 1)}, second{word(q + 2), word(q + 3)};
                    first.erase(-1);
                    second.erase(-1);
                    const bool pairs_equal = word(q) == word(q + 2) && word(q + 1) == word(q + 3);
                    fetches += pairs_equal ? first.size() : first.size() + second.size();
                }
                least = (fetches * size_t(floats) * 4 + 127) / 128;
            }
            return std::pair<size_t, size_t>{most, least};
        };
        int unit = store ? 32 / floats : floats == 4 ? 16 : 32;
        if (!store && floats == 2 && serve(0, 32) != std::pair<size_t, size_t>{1, 1}) unit = 16;
        bool any = false;
        for (int p = 0; p < 32; p += unit) {
            const auto [most, least] = serve(p, unit);
            if (least == 0) continue;
            wavefronts += double(std::max(most, least));
            minimum += double(!store && unit == 16 && floats == 2 ? 0 : least);
            any = true;
        }
        if (!store && unit == 16 && floats == 2 && any) minimum += double(serve(0, 32).second);   // the warp's minimum
        instructions += any ? 1 : 0;
    }
};

struct Walked {
    Tally loads, stores{0, 0, 0, true};
};

void expect_model_equals_walk(const Variant& v, const ParamValues& p, const Problem& prob, const Walked& w, double repeats) {
    const BankModel m = full_cost_model(v, with_defaults(v.params, p), prob).banks;
    double lmin = 0, smin = 0;
    for (const BankSiteTotals& s : m.sites) (s.store ? smin : lmin) += s.min_wavefronts;
    EXPECT_EQ(m.load_instructions, w.loads.instructions * repeats);
    EXPECT_EQ(m.store_instructions, w.stores.instructions * repeats);
    EXPECT_EQ(m.load_wavefronts, w.loads.wavefronts * repeats);
    EXPECT_EQ(m.store_wavefronts, w.stores.wavefronts * repeats);
    EXPECT_EQ(lmin, w.loads.minimum * repeats);
    EXPECT_EQ(smin, w.stores.minimum * repeats);
}

// Per warp, the words its lanes touch for one instruction: f(thread) -> word or -1.
template <typename F>
std::vector<int64_t> warp_words(int warp, int threads, F f) {
    std::vector<int64_t> w(32, -1);
    for (int l = 0; l < 32; ++l)
        if (warp * 32 + l < threads) w[size_t(l)] = f(warp * 32 + l);
    return w;
}

}  // namespace

// kernels/transpose/smem.cuh, one block (every block is the same).
TEST(BanksWalk, TransposeModelEqualsTheWalkAtRandomConfigurations) {
    const Variant* v = find_variant("transpose.smem");
    ASSERT_NE(v, nullptr);
    std::mt19937 rng(15);
    for (int n = 0; n < 60; ++n) {
        const int T = 8 << (rng() % 4), pad = int(rng() % 9), swz = int(rng() % 2), vec = 1 << (rng() % 3);
        const Problem prob{{int64_t(vec * (1 + rng() % 300)), int64_t(vec * (1 + rng() % 300)), 1}};
        SCOPED_TRACE(::testing::Message() << "TILE=" << T << " PAD=" << pad << " SWIZZLE=" << swz << " VEC=" << vec);
        const int L = T + pad, cols = T / vec, threads = cols * 8, chunks = T / vec;
        const auto word = [&](int row, int col) -> int64_t {
            const int chunk = swz ? (col / vec) ^ ((row / vec) % chunks) : col / vec;
            return int64_t(row) * L + chunk * vec + col % vec;
        };
        Walked w;
        for (int warp = 0; warp < (threads + 31) / 32; ++warp)
            for (int j = 0; j < T / 8; ++j) {
                const auto row_word = [&](int t) { return word(t / cols + 8 * j, (t % cols) * vec); };
                if (pad % vec == 0) {
                    w.stores.add(warp_words(warp, threads, row_word), vec);
                } else if (vec == 4 && L % 2 == 0) {   // pairs: the compiler proves 8-byte alignment
                    for (int i = 0; i < 4; i += 2)
                        w.stores.add(warp_words(warp, threads, [&](int t) { return row_word(t) + i; }), 2);
                } else {
                    for (int i = 0; i < vec; ++i)
                        w.stores.add(warp_words(warp, threads, [&](int t) { return row_word(t) + i; }), 1);
                }
                for (int i = 0; i < vec; ++i)
                    w.loads.add(warp_words(warp, threads, [&](int t) { return word((t % cols) * vec + i, t / cols + 8 * j); }), 1);
            }
        const double blocks = double((prob.dim[0] + T - 1) / T) * double((prob.dim[1] + T - 1) / T);
        expect_model_equals_walk(*v, {{"TILE", T}, {"PAD", pad}, {"SWIZZLE", swz}, {"VEC", vec}}, prob, w, blocks);
    }
}

// kernels/matmul/smem_tiled.cuh: per k-tile two stores and 2·T loads per thread.
TEST(BanksWalk, SmemTiledMatmulModelEqualsTheWalk) {
    const Variant* v = find_variant("matmul.smem_tiled");
    ASSERT_NE(v, nullptr);
    for (int T = 4; T <= 32; T += 4)
        for (int pad = 0; pad <= 1; ++pad) {
            SCOPED_TRACE(::testing::Message() << "TILE=" << T << " PAD=" << pad);
            const int L = T + pad, threads = T * T;
            Walked w;
            for (int warp = 0; warp < (threads + 31) / 32; ++warp) {
                for (int s = 0; s < 2; ++s) w.stores.add(warp_words(warp, threads, [&](int t) { return int64_t(t / T) * L + t % T; }), 1);
                // Unpadded rows are 16-byte aligned: the compiler reads a_tile[ty][k..k+3] as one
                // float4 (the H100's shared-load instruction count says so: 5/8 of all-scalar).
                const int a_width = pad == 0 ? 4 : 1;
                for (int k = 0; k < T; k += a_width)
                    w.loads.add(warp_words(warp, threads, [&](int t) { return int64_t(t / T) * L + k; }), a_width);
                for (int k = 0; k < T; ++k)
                    w.loads.add(warp_words(warp, threads, [&](int t) { return int64_t(k) * L + t % T; }), 1);
            }
            const Problem prob{{100, 70, 90}};
            const double repeats = double((70 + T - 1) / T) * double((100 + T - 1) / T) * double((90 + T - 1) / T);
            expect_model_equals_walk(*v, {{"TILE", T}, {"PAD", pad}}, prob, w, repeats);
        }
}

// kernels/matmul/register_1d.cuh: Bt[u][s] stored transposed, read by all at once, the
// U·S consecutive floats as the widest vectors U·S allows (what ptxas emits).
TEST(BanksWalk, Register1dMatmulModelEqualsTheWalk) {
    const Variant* v = find_variant("matmul.register_1d");
    ASSERT_NE(v, nullptr);
    for (const auto& [T, U, S] : {std::array{64, 16, 4}, std::array{128, 128, 1}, std::array{32, 64, 2}, std::array{64, 32, 8},
                                  std::array{32, 32, 3}, std::array{32, 1, 32}, std::array{96, 3, 32}}) {
        SCOPED_TRACE(::testing::Message() << "T=" << T << " U=" << U << " S=" << S);
        Walked w;
        for (int warp = 0; warp < (T + 31) / 32; ++warp) {
            for (int r = 0; r < S * U / T; ++r)
                w.stores.add(warp_words(warp, T, [&](int t) { const int e = t + r * T; return int64_t(e % U) * S + e / U; }), 1);
            const int floats = (U * S) % 4 == 0 ? 4 : (U * S) % 2 == 0 ? 2 : 1;
            for (int u = 0; u < U; ++u)
                for (int s = 0; s < S; ++s) {
                    if ((u * S + s) % floats != 0) continue;   // inside the vector an earlier load began
                    w.loads.add(warp_words(warp, T, [&](int) { return int64_t(u) * S + s; }), floats);
                }
        }
        const Problem prob{{300, 200, 100}};
        const double repeats = double((200 + U - 1) / U) * double((300 + T - 1) / T) * double((100 + S - 1) / S);
        expect_model_equals_walk(*v, {{"T", T}, {"U", U}, {"S", S}}, prob, w, repeats);
    }
}

// kernels/matmul/register_2d.cuh where the source's widths are what the compiler emits
// (TRANSPOSE_A=1, PAD a multiple of 4, FLOAT4=1, TM=TN=8): A stored transposed as single floats,
// B as float4, both fragments read as float4.
TEST(BanksWalk, Register2dMatmulModelEqualsTheWalk) {
    const Variant* v = find_variant("matmul.register_2d");
    ASSERT_NE(v, nullptr);
    for (const auto& [BM, BN, BK, PAD] : {std::array{128, 128, 8, 0}, std::array{128, 128, 8, 4}, std::array{64, 64, 8, 0},
                                          std::array{64, 128, 16, 8}, std::array{128, 64, 8, 4}}) {
        SCOPED_TRACE(::testing::Message() << "BM=" << BM << " BN=" << BN << " BK=" << BK << " PAD=" << PAD);
        const int TM = 8, TN = 8, cols = BN / TN, rows = BM / TM, threads = cols * rows, ldA = BM + PAD, ldB = BN + PAD;
        Walked w;
        for (int warp = 0; warp < (threads + 31) / 32; ++warp) {
            for (int r = 0; r < BM * BK / threads / 4; ++r)
                for (int i = 0; i < 4; ++i)
                    w.stores.add(warp_words(warp, threads, [&](int t) { const int e = t + r * threads; return int64_t((e % (BK / 4)) * 4 + i) * ldA + e / (BK / 4); }), 1);
            for (int r = 0; r < BK * BN / threads / 4; ++r)
                w.stores.add(warp_words(warp, threads, [&](int t) { const int e = t + r * threads; return int64_t(e / (BN / 4)) * ldB + (e % (BN / 4)) * 4; }), 4);
            for (int k = 0; k < BK; ++k) {
                for (int g = 0; g < TM / 4; ++g)
                    w.loads.add(warp_words(warp, threads, [&](int t) { return int64_t(k) * ldA + g * rows * 4 + (t / cols) * 4; }), 4);
                for (int g = 0; g < TN / 4; ++g)
                    w.loads.add(warp_words(warp, threads, [&](int t) { return int64_t(k) * ldB + g * cols * 4 + (t % cols) * 4; }), 4);
            }
        }
        const Problem prob{{512, 384, 256}};
        const double repeats = double((384 + BN - 1) / BN) * double((512 + BM - 1) / BM) * double((256 + BK - 1) / BK);
        expect_model_equals_walk(*v, {{"BM", BM}, {"BN", BN}, {"BK", BK}, {"TM", TM}, {"TN", TN}, {"PAD", PAD}, {"TRANSPOSE_A", 1}, {"FLOAT4", 1}},
                                 prob, w, repeats);
    }
}

// What the lesson says about the transpose at 32×32: 32-way without help; PAD=1 or the swizzle
// brings it to 1; float4 rows with PAD=1 lose their vector store.
TEST(BanksWalk, TransposeLessonClaims) {
    const Variant* v = find_variant("transpose.smem");
    ASSERT_NE(v, nullptr);
    const Problem p{{1024, 1024, 1}};
    const auto site = [&](ParamValues pv, bool store) {
        const BankModel m = full_cost_model(*v, with_defaults(v->params, pv), p).banks;
        for (const BankSiteTotals& s : m.sites)
            if (s.store == store) return s;
        return BankSiteTotals{};
    };
    EXPECT_EQ(site({{"PAD", 0}}, false).worst_ways, 32);
    EXPECT_EQ(site({{"PAD", 1}}, false).worst_ways, 1);
    EXPECT_EQ(site({{"SWIZZLE", 1}}, false).worst_ways, 1);
    EXPECT_EQ(site({{"SWIZZLE", 1}, {"VEC", 4}}, false).worst_ways, 1);
    EXPECT_EQ(site({{"VEC", 4}}, true).width_bytes, 16);
    EXPECT_EQ(site({{"VEC", 4}, {"PAD", 1}}, true).width_bytes, 4);
}
