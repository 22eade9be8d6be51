// Lesson 13's cost model and bank model against a CPU walk of kernels/matmul/mma.cuh (compiled
// into the test binary from the lesson's folder). The walk runs every block in the kernel's order
// (GROUP rows at a time), every thread's copies of every slice with the kernel's index maps and
// branches (16-byte copies where K and N allow them, else one element at a time), every warp's
// ldmatrix and 4-byte fragment loads as the instrumented kernel counts them, and every store of C
// (two floats where N is even, else one by one). Counts must be exact at random valid
// configurations and odd sizes. The shared layouts are checked through the variant's own access
// sites: every copy lands on its own 16-byte piece inside the stage, and the swizzle removes the
// conflicts the plain layout has. The kernel itself runs on the CPU too (cpu_tensor.cpp models
// ldmatrix, mma.sync and cp.async), validated, with counts equal to the model's.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "cpu_checks.h"
#include "exercise_edits.h"
#include "lookups.h"
#include "model_engine.h"
#include "random_requests.h"
#include "tilelab/banks.h"
#include "tilelab/compile.h"
#include "tilelab/precision.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

using test::model_engine;
using test::registered_variant;

struct Walked {
    AccessCounts total;
    double mmas = 0;
    std::set<std::pair<int64_t, int64_t>> blocks;   // (by, bx) as the kernel maps its block index
};

// The kernel's block order: GROUP block rows at a time, column by column.
std::pair<int64_t, int64_t> block_of(int64_t id, int64_t gx, int64_t gy, int group) {
    if (group == 1) return {id / gx, id % gx};
    const int64_t per_group = group * gx, first = id / per_group * group;
    const int64_t rows = std::min<int64_t>(gy - first, group);
    return {first + id % per_group % rows, id % per_group / rows};
}

void walk_copies(Walked& w, int64_t rows, int64_t cols, int64_t row0, int64_t col0, int64_t row_limit,
                 int64_t col_limit, int width) {
    for (int64_t e = 0; e < rows * cols / width; ++e) {
        const int64_t row = row0 + e / (cols / width), col = col0 + (e % (cols / width)) * width;
        if (row < row_limit && col < col_limit) w.total.global_loads += width;
        w.total.shared_stores += width;
    }
}

Walked walk(const ParamValues& v, const Problem& p) {
    const auto input = ElementType(v.at("PREC"));
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    const int bm = v.at("BM"), bn = v.at("BN"), bk = v.at("BK"), wm = v.at("WM"), wn = v.at("WN");
    const int fk = input == ElementType::tf32 ? 8 : 16, vw = 16 / element_bytes(input);
    const int warps_n = bn / wn, warps = (bm / wm) * warps_n, tiles_m = wm / 16, tiles_n = wn / 8;
    const bool vec = K % vw == 0 && N % vw == 0;
    const int64_t gx = (N + bn - 1) / bn, gy = (M + bm - 1) / bm, steps = (K + bk - 1) / bk;
    Walked w;
    for (int64_t id = 0; id < gx * gy; ++id) {
        const auto [by, bx] = block_of(id, gx, gy, v.at("GROUP"));
        w.blocks.insert({by, bx});
        const int64_t row0 = by * bm, col0 = bx * bn;
        for (int64_t t = 0; t < steps; ++t) {
            walk_copies(w, bm, bk, row0, t * bk, M, K, vec ? vw : 1);
            walk_copies(w, bk, bn, t * bk, col0, K, N, vec ? vw : 1);
            for (int kk = 0; kk < bk; kk += fk) {
                // A: one ldmatrix.x4 per 16-row tile, vw elements a lane. B: one .x4.trans per two
                // 8-wide tiles (vw a lane); TF32: two 4-byte loads per tile (one element a lane).
                w.total.shared_loads += double(warps) * tiles_m * 32 * vw;
                w.total.shared_loads += input == ElementType::tf32 ? double(warps) * tiles_n * 2 * 32
                                                                   : double(warps) * tiles_n / 2 * 32 * vw;
                w.mmas += double(warps) * tiles_m * tiles_n;
            }
        }
        for (int warp = 0; warp < warps; ++warp)
            for (int i = 0; i < tiles_m; ++i)
                for (int j = 0; j < tiles_n; ++j)
                    for (int lane = 0; lane < 32; ++lane)
                        for (int h = 0; h < 2; ++h) {
                            const int64_t row = row0 + (warp / warps_n) * wm + i * 16 + lane / 4 + 8 * h;
                            const int64_t col = col0 + (warp % warps_n) * wn + j * 8 + 2 * (lane % 4);
                            if (row >= M) continue;
                            if (col + 1 < N && N % 2 == 0) w.total.global_stores += 2;
                            else w.total.global_stores += (col < N) + (col + 1 < N);
                        }
    }
    return w;
}

const Variant& mma() { return registered_variant("matmul.mma"); }

ParamValues with(const std::vector<std::string>& sets) { return test::values_with(mma(), sets); }

TEST(MmaModel, CountsEqualTheWalkAtRandomConfigurationsAndOddSizes) {
    const Variant& v = mma();
    test::for_random_models(v, 40, 20261129, {.max_dim = 300, .align = 8, .aligned_every = 3},
                            [&](const ParamValues& values, const Problem& problem, const CostModel& m) {
        const Walked w = walk(values, problem);
        EXPECT_EQ(m.total, w.total);
        EXPECT_DOUBLE_EQ(test::extra_value(m, "mma.sync, total"), w.mmas);
        const int64_t gx = (problem.dim[1] + values.at("BN") - 1) / values.at("BN");
        const int64_t gy = (problem.dim[0] + values.at("BM") - 1) / values.at("BM");
        EXPECT_EQ(int64_t(w.blocks.size()), gx * gy) << "the block order visits every tile once";
        EXPECT_EQ(m.load_element_bytes, element_bytes(ElementType(values.at("PREC"))));
        EXPECT_EQ(m.store_element_bytes, 4);
    });
}

// Every copy of a slice lands on its own piece of the stage, inside it: no layout loses or
// overlaps data, and the swizzle permutes pieces within their 128-byte line.
TEST(MmaModel, EveryLayoutPlacesEachCopyOnItsOwnPieceOfTheStage) {
    const Variant& v = mma();
    for (const char* prec : {"PREC=bf16", "PREC=tf32"})
        for (const char* layout : {"LAYOUT=0", "LAYOUT=1", "LAYOUT=2"})
            for (const char* bk : {"BK=16", "BK=32", "BK=64"})
                for (const char* bn : {"BN=64", "BN=128"}) {
                    const ParamValues values = with({prec, layout, bk, bn, "WN=32", "STAGES=1"});
                    const Problem p = test::size(512, 512, 512);
                    if (!model_engine().invalid_reason(RunRequest{.variant = v.id, .params = values, .problem = p}).empty())
                        continue;
                    SCOPED_TRACE(v.kernel(values).name_expression);
                    const int64_t stage = int64_t(test::extra_value(v.cost_model(values, p), "dynamic shared memory (bytes)"));
                    std::set<int64_t> seen;
                    for (const SharedAccessSite& s : v.shared_sites(values, p)) {
                        if (!s.store) continue;
                        for (int r = 0; r < s.instances; ++r)
                            for (int t = 0; t < s.threads; ++t) {
                                const int64_t at = s.byte_address(r, t);
                                EXPECT_EQ(at % 16, 0);
                                EXPECT_GE(at, 0);
                                EXPECT_LT(at, stage);
                                EXPECT_TRUE(seen.insert(at).second) << s.name << " copy " << r << "," << t << " at " << at;
                            }
                    }
                    const int layout_pad = values.at("LAYOUT") == 1 ? 16 : 0;
                    EXPECT_EQ(int64_t(seen.size()) * 16 + layout_pad * (values.at("BM") + values.at("BK")), stage);
                }
}

WarpBanks first_warp(const ParamValues& values, const std::string& site_prefix) {
    for (const SharedAccessSite& s : mma().shared_sites(values, test::size(4096, 4096, 4096)))
        if (s.name.rfind(site_prefix, 0) == 0) return s.warp(0, 0);
    throw std::runtime_error("no site " + site_prefix);
}

// One ldmatrix.x4 is four phases of eight 16-byte rows. BF16, BK=32: A's rows are 64 bytes, so
// plain rows r and r+2 share banks: 4 wavefronts a phase, 16 for the instruction instead of 4.
// B's rows are 256 bytes: all 8 rows of a phase on the same 4 banks, 8 a phase, 32 in all.
// Padding by 16 bytes or the XOR swizzle gives 4, the minimum.
TEST(MmaModel, TheSwizzleAndThePaddingRemoveTheConflictsOfThePlainLayout) {
    const WarpBanks plain_a = first_warp(with({"PREC=bf16", "LAYOUT=0"}), "A fragments");
    EXPECT_EQ(plain_a.wavefronts, 16);
    EXPECT_EQ(plain_a.min_wavefronts, 4);
    const WarpBanks plain_b = first_warp(with({"PREC=bf16", "LAYOUT=0"}), "B fragments");
    EXPECT_EQ(plain_b.wavefronts, 32);
    for (const char* layout : {"LAYOUT=1", "LAYOUT=2"})
        for (const char* site : {"A fragments", "B fragments"}) {
            const WarpBanks w = first_warp(with({"PREC=bf16", layout}), site);
            EXPECT_EQ(w.wavefronts, 4) << layout << " " << site;
            EXPECT_EQ(w.conflicts(), 0) << layout << " " << site;
        }
    // TF32's B is read 4 bytes a lane (k = t + 4h, n = g): the swizzle spreads a load over all
    // 32 banks; plain 512-byte rows put lanes g = 0..7 of one t on one bank.
    EXPECT_EQ(first_warp(with({"PREC=tf32", "LAYOUT=2"}), "B fragments").conflicts(), 0);
    EXPECT_GT(first_warp(with({"PREC=tf32", "LAYOUT=0"}), "B fragments").conflicts(), 0);
    // The whole launch at the defaults: no load and no store conflicts anywhere.
    const Variant& v = mma();
    const BankModel b = bank_model(v.shared_sites(with({}), test::size(4096, 4096, 4096)));
    EXPECT_EQ(b.load_conflicts, 0);
    EXPECT_EQ(b.store_conflicts, 0);
    EXPECT_GT(b.load_wavefronts, 0);
}

TEST(MmaModel, EachPrecisionNeedsItsArchitectureAndEachRefusalSaysWhy) {
    const Variant& v = mma();
    auto reason = [&](const std::vector<std::string>& sets, const char* preset) {
        const Target* t = find_target(preset);
        if (!t) throw std::runtime_error(std::string("no target preset ") + preset);
        return v.invalid_reason(with(sets), test::size(256, 256, 256), *t);
    };
    EXPECT_EQ(reason({"PREC=bf16"}, "h100"), "");
    EXPECT_EQ(reason({"PREC=fp16"}, "t4"), "");
    EXPECT_EQ(reason({"PREC=tf32", "WN=32"}, "a100"), "");
    EXPECT_NE(reason({"PREC=bf16"}, "t4").find("sm_80"), std::string::npos);
    EXPECT_NE(reason({"PREC=tf32"}, "t4"), "");
    EXPECT_NE(reason({"PREC=fp32"}, "h100"), "");
    EXPECT_NE(reason({"BK=8"}, "h100").find("32 bytes"), std::string::npos) << "8 BF16 elements are one piece";
    EXPECT_NE(reason({"WM=128", "WN=128", "BM=128", "BN=128"}, "h100"), "") << "512 accumulators a lane";
    const std::string smem = reason({"BN=256", "STAGES=4", "BK=64", "PREC=fp16"}, "t4");
    EXPECT_NE(smem.find("shared memory, more than the 65536 a block may have on"), std::string::npos) << smem;
}

// The kernel on the CPU at random valid configurations (every precision, layout, stage count,
// FRAGS and GROUP) and small odd sizes: validated, counted == model. Two mistakes fail: B's
// 16-bit fragments read without .trans, and a ring whose first wait leaves one copy group too
// many in flight (it reads a slice before its cp.async has landed).
TEST(MmaOnCpu, ValidatesCountsAsModelledAndCatchesAMissingTransposeAndAnEarlyRead) {
    for (const RunRequest& req : test::random_valid_requests(mma(), 6, 13, {.max_dim = 90, .align = 8, .aligned_every = 2})) {
        SCOPED_TRACE(format_problem(req.problem));
        test::expect_cpu_run_passes_with_the_models_counts(req, 3);
    }
    const std::string* source = embedded_source("matmul/mma.cuh");
    ASSERT_NE(source, nullptr);
    const RunRequest req{"matmul.mma", {{"PREC", int(ElementType::bf16)}, {"STAGES", 3}}, Problem{{72, 64, 96}}};
    EXPECT_EQ(test::cpu_status_of_text(req, *source), "passed");
    EXPECT_EQ(test::cpu_status_of_text(req, test::kernel_with("matmul/mma.cuh", "mma_ldmatrix_x4_trans(r, base", "mma_ldmatrix_x4(r, base")),
              "failed");
    // The ring's first wait leaves one group more in flight: slice 0 is read before it lands.
    const std::string text =
        test::kernel_with("matmul/mma.cuh", "tl_wait<STAGES - 2, kAsync>();\n        __syncthreads();\n        load_fragments(0, 0, 0);",
                          "tl_wait<STAGES - 1, kAsync>();\n        __syncthreads();\n        load_fragments(0, 0, 0);");
    const std::string status = test::cpu_status_of_text(req, text);
    EXPECT_TRUE(status == "failed" || status == "fault") << status;
}

// TF32 rounded by one integer add (ROUND = 1) is cvt.rna's rounding: the CPU run of the kernel
// with cvt.rna.tf32.f32 put back in its place ends with the same errors to the last bit. ROUND = 0
// (the bits as they are, truncated by the tensor cores) passes the same tolerance with larger
// errors; BF16 and FP16 ignore ROUND and share one kernel.
TEST(MmaOnCpu, Tf32RoundsAsCvtRnaDoesByOneAddAndTruncatesWithRoundZero) {
    auto cpu = [](const RunRequest& req, const std::string* text) { return test::cpu_check_of(req, text, 77); };
    RunRequest req{"matmul.mma", {{"PREC", int(ElementType::tf32)}, {"WN", 32}}, Problem{{72, 64, 96}}};
    const CpuCheck added = cpu(req, nullptr);
    ASSERT_TRUE(added.passed()) << added.status << added.message;
    const std::string cvt = test::kernel_with("matmul/mma.cuh", "return MmaKind<KIND>::kRound ? bits + 0x1000u : bits;",
                                              "unsigned t;\n    asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(t) : \"f\"(__uint_as_float(bits)));\n"
                                              "    return MmaKind<KIND>::kRound ? t : bits;");
    const CpuCheck converted = cpu(req, &cvt);
    ASSERT_TRUE(converted.passed()) << converted.status << converted.message;
    EXPECT_EQ(added.validation.max_abs_error, converted.validation.max_abs_error);
    EXPECT_EQ(added.validation.max_rel_error, converted.validation.max_rel_error);

    req.params["ROUND"] = 0;
    const CpuCheck truncated = cpu(req, nullptr);
    ASSERT_TRUE(truncated.passed()) << truncated.status << truncated.message;
    EXPECT_GT(truncated.validation.max_abs_error, added.validation.max_abs_error);
    EXPECT_EQ(truncated.validation.tolerance, added.validation.tolerance);

    const Variant& v = mma();
    EXPECT_EQ(v.kernel(with({"PREC=bf16", "ROUND=0"})).name_expression, v.kernel(with({"PREC=bf16"})).name_expression);
    EXPECT_NE(v.kernel(with({"PREC=tf32", "ROUND=0"})).name_expression, v.kernel(with({"PREC=tf32"})).name_expression);
}

}  // namespace
}  // namespace tilelab
