// Lesson 12's cost model against a CPU walk of kernels/matmul/wmma.cuh (compiled into the test
// binary from the lesson's folder: tests/CMakeLists.txt takes lessons/*/test_*.cpp). The walk
// runs every thread's copies of every slice with the kernel's index maps and branches (16-byte
// copies where K and N allow them, else one element at a time), every warp's fragment loads, and
// every C fragment's store (whole, or through the warp's shared scratch element by element at the
// edges), counting where the instrumented kernel counts. Counts must be exact at random valid
// configurations and odd sizes; the kernel itself also runs on the CPU (cpu_tensor.cpp models WMMA).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "cpu_checks.h"
#include "exercise_edits.h"
#include "tilelab/compile.h"
#include "tilelab/engine.h"
#include "tilelab/precision.h"
#include "tilelab/target.h"
#include "tilelab/variant.h"
#include "lookups.h"
#include "model_engine.h"
#include "random_requests.h"

namespace tilelab {
namespace {

using test::model_engine;

struct Walked {
    AccessCounts total;
    double mmas = 0;
};

Walked walk(const ParamValues& v, const Problem& p) {
    const auto input = ElementType(v.at("PREC"));
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    const int bm = v.at("BM"), bn = v.at("BN"), bk = v.at("BK"), wm = v.at("WM"), wn = v.at("WN");
    const int fk = input == ElementType::tf32 ? 8 : 16, vw = 16 / element_bytes(input);
    const int warps_n = bn / wn, threads = 32 * (bm / wm) * warps_n;
    const bool vec = K % vw == 0 && N % vw == 0;
    const int64_t gx = (N + bn - 1) / bn, gy = (M + bm - 1) / bm, steps = (K + bk - 1) / bk;
    Walked w;
    for (int64_t by = 0; by < gy; ++by)
        for (int64_t bx = 0; bx < gx; ++bx) {
            const int64_t row0 = by * bm, col0 = bx * bn;
            for (int64_t t = 0; t < steps; ++t) {
                const int64_t k0 = t * bk;
                const int width = vec ? vw : 1;
                for (int e = 0; e < bm * bk / width; ++e) {   // A: every thread's copies together
                    const int64_t row = row0 + e / (bk / width), col = k0 + (e % (bk / width)) * width;
                    if (row < M && col < K) w.total.global_loads += width;
                    w.total.shared_stores += width;
                }
                for (int e = 0; e < bk * bn / width; ++e) {
                    const int64_t row = k0 + e / (bn / width), col = col0 + (e % (bn / width)) * width;
                    if (row < K && col < N) w.total.global_loads += width;
                    w.total.shared_stores += width;
                }
                for (int warp = 0; warp < threads / 32; ++warp)
                    for (int kk = 0; kk < bk; kk += fk) {
                        w.total.shared_loads += double(wm / 16) * 16 * fk + double(wn / 16) * fk * 16;
                        w.mmas += double(wm / 16) * (wn / 16);
                    }
            }
            for (int warp = 0; warp < threads / 32; ++warp)
                for (int i = 0; i < wm / 16; ++i)
                    for (int j = 0; j < wn / 16; ++j) {
                        const int64_t r = row0 + (warp / warps_n) * wm + 16 * i, c = col0 + (warp % warps_n) * wn + 16 * j;
                        if (r + 16 <= M && c + 16 <= N && N % 8 == 0) {
                            w.total.global_stores += 256;
                        } else if (r < M && c < N) {   // through the warp's scratch, floats in input elements
                            const double floats = 4.0 / element_bytes(input);
                            w.total.shared_stores += 256 * floats;
                            for (int e = 0; e < 256; ++e)
                                if (r + e / 16 < M && c + e % 16 < N) w.total.global_stores += 1, w.total.shared_loads += floats;
                        }
                    }
        }
    return w;
}

const Variant& wmma() { return test::registered_variant("matmul.wmma"); }

TEST(WmmaModel, CountsEqualTheWalkAtRandomConfigurationsAndOddSizes) {
    const Variant& v = wmma();
    test::for_random_models(v, 40, 20261128, {.max_dim = 400, .align = 16, .aligned_every = 4},
                            [&](const ParamValues& values, const Problem& problem, const CostModel& m) {
        const Walked w = walk(values, problem);
        EXPECT_EQ(m.total, w.total);
        EXPECT_DOUBLE_EQ(test::extra_value(m, "mma_sync, total"), w.mmas);
        EXPECT_EQ(m.load_element_bytes, element_bytes(ElementType(values.at("PREC"))));
        EXPECT_EQ(m.store_element_bytes, 4);
    });
}

TEST(WmmaModel, EachPrecisionNeedsItsArchitecture) {
    const Variant& v = wmma();
    auto reason = [&](const char* prec, const char* preset) {
        std::string name, error;
        int value = 0;
        EXPECT_TRUE(parse_assignment(std::string("PREC=") + prec, name, value, error)) << error;
        const Target* t = find_target(preset);
        if (!t) throw std::runtime_error(std::string("no target preset ") + preset);
        return v.invalid_reason(with_defaults(v.params, {{name, value}}), Problem{{256, 256, 256}}, *t);
    };
    EXPECT_EQ(reason("bf16", "h100"), "");
    EXPECT_EQ(reason("fp16", "t4"), "");
    EXPECT_EQ(reason("tf32", "a100"), "");
    EXPECT_NE(reason("bf16", "t4"), "");
    EXPECT_NE(reason("tf32", "t4"), "");
    EXPECT_NE(reason("fp32", "h100"), "");
    // The shared-memory refusal names the limit and the GPU in that order, in both languages.
    ParamValues big = with_defaults(v.params, {{"STAGES", 4}, {"BK", 64}, {"BN", 256}});
    big["PREC"] = int(ElementType::f16);
    const Target* t4 = find_target("t4");
    ASSERT_NE(t4, nullptr);
    const std::string smem = v.invalid_reason(big, Problem{{256, 256, 256}}, *t4);
    EXPECT_NE(smem.find("more than the 65536 a block may have on"), std::string::npos) << smem;
}

// The kernel on the CPU (engine/src/cpu/cpu_tensor.cpp models WMMA with fragments of its own
// layout, which no correct kernel can tell from the GPU's): validated and counted == model in each
// input type, at sizes whose edge fragments go through the warp's scratch. Without the
// __syncwarp() between the scratch's store and its reads, lanes read what other lanes wrote with
// nothing ordering them: reported as the race it is on a GPU.
TEST(WmmaOnCpu, ValidatesCountsAsModelledAndNeedsTheSyncwarpAtTheEdges) {
    for (const ElementType prec : {ElementType::f16, ElementType::bf16, ElementType::tf32}) {
        const RunRequest req{"matmul.wmma", {{"PREC", int(prec)}, {"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}},
                             Problem{{70, 56, 40}}};
        ASSERT_EQ(model_engine().invalid_reason(req), "") << element_label(prec);
        test::expect_cpu_run_passes_with_the_models_counts(req, 7);
    }
    const std::string* source = embedded_source("matmul/wmma.cuh");
    ASSERT_NE(source, nullptr);
    const std::string text = test::kernel_with("matmul/wmma.cuh", "                __syncwarp();\n                for (int e = lane;",
                                               "                for (int e = lane;");
    const RunRequest req{"matmul.wmma", {{"PREC", int(ElementType::f16)}}, Problem{{70, 56, 40}}};
    EXPECT_EQ(test::cpu_status_of_text(req, *source), "passed");
    EXPECT_EQ(test::cpu_status_of_text(req, text), "fault");
}

}  // namespace
}  // namespace tilelab
