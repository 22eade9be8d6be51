// Validation happens on the GPU (kernels/support/checks.cuh): the inputs are generated there, the
// references computed there, and the comparison reduces to a summary there. These tests earn the
// trust in that: the generator and both double-precision references equal a CPU walk bit for bit,
// and kernels with the classic mistakes (a wrong index, a forgotten boundary, a missing tail at odd
// sizes, a dropped product) are still refused, with the first mismatch named. They skip visibly
// where there is no GPU.
#include <fmt/format.h>
#include <cmath>
#include <string>
#include <vector>
#include "fixed_variant.h"
#include "testing/engine_testing.h"
#include "model/family_common.h"
#include "gpu.h"

using namespace tilelab;
using tilelab::testing::shared_engine;

namespace {

RunOptions validate_only() { return tilelab::testing::test_run_options(0, 1, false); }

// A test variant of one family with a fixed kernel and a 16×16(×1) block over the problem.
Variant test_variant(const std::string& id, const std::string& family, const std::string& file, const std::string& name) {
    const KernelInstance k{file, name};
    Variant v = tilelab::testing::fixed_variant({.id = id, .family = family}, [k, family](const ParamReader&) {
        return tilelab::testing::FixedKernel{k, [family](const Problem& p) { return tilelab::testing::blocks_of_16x16(family, p); }};
    });
    add_variant(v);
    return v;
}

RunResult run_refused(const Variant& v, const Problem& p) {
    const RunResult r = shared_engine().run({v.id, {}, p}, validate_only());
    EXPECT_FALSE(r.ok) << v.id << " at " << format_problem(p);
    EXPECT_EQ(r.stage, "validate") << r.error;
    EXPECT_TRUE(r.validation.checked);
    EXPECT_FALSE(r.validation.passed);
    EXPECT_FALSE(r.measured) << "an invalid result is never timed";
    return r;
}

}  // namespace

// [SECTION] The GPU's inputs and references equal a CPU walk ------------------------------------

TEST(ValidationGpu, InputsAndReferencesEqualACpuWalkBitForBit) {
    TILELAB_REQUIRE_GPU();
    const int M = 37, N = 29, K = 53, nx = 19, ny = 13, nz = 11;   // odd sizes: every edge case
    const uint64_t seed = 4242;
    const std::vector<float> coef = {0.40f, 0.11f, 0.09f, 0.12f, 0.08f, 0.13f, 0.07f};
    engine_testing::SupportSample s;
    std::string error;
    ASSERT_TRUE(engine_testing::support_sample(M, N, K, nx, ny, nz, seed, coef, s, error)) << error;
    ASSERT_EQ(s.a.size(), size_t(M) * K);
    ASSERT_EQ(s.product.size(), size_t(M) * N);
    ASSERT_EQ(s.sweep.size(), size_t(nx) * ny * nz);

    for (size_t i = 0; i < s.a.size(); ++i) ASSERT_EQ(s.a[i], seeded_uniform(seed, i)) << "A[" << i << "]";
    for (size_t i = 0; i < s.b.size(); ++i) ASSERT_EQ(s.b[i], seeded_uniform(seed + 1, i)) << "B[" << i << "]";
    for (size_t i = 0; i < s.grid.size(); ++i) ASSERT_EQ(s.grid[i], seeded_uniform(seed + 2, i)) << "grid[" << i << "]";

    // C = A·B in double, k ascending (products of floats are exact in double, so any FMA agrees).
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double acc = 0;
            for (int k = 0; k < K; ++k) acc += double(s.a[size_t(i) * K + k]) * double(s.b[size_t(k) * N + j]);
            ASSERT_EQ(s.product[size_t(i) * N + j], acc) << "C[" << i << "][" << j << "]";
        }

    // The sweep: c0·centre + c1·(x−1) + c2·(x+1) + c3·(y−1) + c4·(y+1) + c5·(z−1) + c6·(z+1) in
    // double, rounded to float; boundary cells are the input.
    const size_t plane = size_t(nx) * ny;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const size_t at = size_t(z) * plane + size_t(y) * nx + x;
                const auto& g = s.grid;
                float expected = g[at];
                if (x > 0 && y > 0 && z > 0 && x < nx - 1 && y < ny - 1 && z < nz - 1) {
                    double sum = double(coef[0]) * g[at];
                    sum += double(coef[1]) * g[at - 1];
                    sum += double(coef[2]) * g[at + 1];
                    sum += double(coef[3]) * g[at - nx];
                    sum += double(coef[4]) * g[at + nx];
                    sum += double(coef[5]) * g[at - plane];
                    sum += double(coef[6]) * g[at + plane];
                    expected = float(sum);
                }
                ASSERT_EQ(s.sweep[at], expected) << fmt::format("cell ({}, {}, {})", x, y, z);
            }
}

// [SECTION] Mistakes the GPU comparison must still catch ---------------------------------------

TEST(ValidationGpu, AStencilWithSwappedNeighboursIsRefused) {
    TILELAB_REQUIRE_GPU();
    const Variant v = test_variant("test.stencil_swapped", "stencil", "test/wrong_stencil.cuh", "wrong_stencil<1>");
    const RunResult r = run_refused(v, Problem{{67, 45, 23}});
    // Off by (c1 − c2)·(in[x+1] − in[x−1]) = 0.02·(a difference of two inputs in [-1, 1)):
    // far above the tolerance (1.9e-6) almost everywhere.
    EXPECT_NE(r.validation.message.find("interior"), std::string::npos) << r.validation.message;
    EXPECT_NE(r.validation.message.find("cells wrong"), std::string::npos) << r.validation.message;
    EXPECT_GT(r.validation.max_abs_error, 1e-3);
}

TEST(ValidationGpu, AStencilThatForgetsTheBoundaryIsRefused) {
    TILELAB_REQUIRE_GPU();
    const Variant v = test_variant("test.stencil_no_boundary", "stencil", "test/wrong_stencil.cuh", "wrong_stencil<2>");
    const RunResult r = run_refused(v, Problem{{33, 17, 9}});
    EXPECT_NE(r.validation.message.find("out(0, 0, 0)"), std::string::npos) << r.validation.message;
    EXPECT_NE(r.validation.message.find("boundary cell"), std::string::npos) << r.validation.message;
    EXPECT_TRUE(std::isnan(r.validation.max_abs_error)) << "unwritten cells are NaN";
}

TEST(ValidationGpu, AMissingTailIsCaughtAtOddSizesOnly) {
    TILELAB_REQUIRE_GPU();
    const Variant stencil = test_variant("test.stencil_tail", "stencil", "test/wrong_stencil.cuh", "wrong_stencil<3>");
    const Variant matmul = test_variant("test.matmul_tail", "matmul", "test/tail_matmul.cuh", "tail_matmul");
    // At multiples of 16 the tail is empty and the kernels are right ...
    for (const Variant* v : {&stencil, &matmul}) {
        const RunResult ok = shared_engine().run({v->id, {}, Problem{{64, 48, 32}}}, validate_only());
        EXPECT_TRUE(ok.ok && ok.validation.passed) << v->id << ": " << ok.error;
    }
    // ... at odd sizes the last x cells (stencil) and the last rows and columns (matmul) are not.
    const RunResult s = run_refused(stencil, Problem{{70, 20, 10}});
    EXPECT_NE(s.validation.message.find("out(64, 0, 0)"), std::string::npos) << s.validation.message;
    for (const Problem p : {Problem{{100, 90, 80}}, Problem{{700, 600, 500}}}) {   // double and cuBLAS reference
        const RunResult m = run_refused(matmul, p);
        EXPECT_NE(m.validation.message.find(fmt::format("C[0][{}]", p.dim[1] / 16 * 16)), std::string::npos)
            << m.validation.message;
        const int64_t bad = p.dim[0] * p.dim[1] - (p.dim[0] / 16 * 16) * (p.dim[1] / 16 * 16);
        EXPECT_NE(m.validation.message.find(fmt::format("{} of {} elements", bad, p.dim[0] * p.dim[1])),
                  std::string::npos) << m.validation.message;
        EXPECT_EQ(m.validation.reference, p.dim[0] == 100 ? "double (GPU)" : "cuBLAS FP32");
    }
}
