// The warp-tiled kernel's own source (kernels/matmul/warp_tiled.cuh), compiled for the CPU and
// run with one std::thread per CUDA thread and a std::barrier for __syncthreads(): without a GPU,
// its index maps, zero-filled tails, STAGES-deep ring and barrier order are checked against a
// double-precision product, and its instrumented counters (TILELAB_COUNT=1) against the cost
// model. The host has no cp.async (TL_WARP_CP_ASYNC is 0 off the device), so the copies are the
// plain loads the kernel uses before sm_80: the asynchronous path itself is for the GPU tests
// (tests/gpu/test_warp_tiled_gpu.cpp) and compute-sanitizer (scripts/gpu_sanitize_warp.sh).
#define TILELAB_COUNT 1

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

// ---- just enough of CUDA for the kernel to compile and run on the host ----------------------
namespace cuda_on_cpu {
struct Dim3 {
    unsigned x = 0, y = 0, z = 0;
};
inline std::barrier<>* block_barrier = nullptr;
}  // namespace cuda_on_cpu

thread_local cuda_on_cpu::Dim3 threadIdx, blockIdx;
inline void __syncthreads() { cuda_on_cpu::block_barrier->arrive_and_wait(); }
inline unsigned long long atomicAdd(unsigned long long* address, unsigned long long value) {
    return std::atomic_ref<unsigned long long>(*address).fetch_add(value);
}
struct alignas(16) float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
// One block's dynamic shared memory (blocks run one after another): the largest a block may ask for.
alignas(16) float warp_tiled_smem[232448 / 4];

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#include "matmul/warp_tiled.cuh"
#undef __global__
#undef __device__
#undef __forceinline__
#undef __shared__
#undef __launch_bounds__
#undef __align__

#include "tilelab/variant.h"
#include "../../families/matmul/warp_tiled.h"

namespace tilelab {
namespace {

using KernelFn = void (*)(const float*, const float*, float*, int, int, int, unsigned long long*);

// Launches `kernel` over the grid of `c` at `p`, block by block, one host thread per CUDA thread.
void launch_on_cpu(KernelFn kernel, const matmul::WarpConfig& c, const Problem& p, const float* a, const float* b,
                   float* out, unsigned long long* counters) {
    const LaunchShape s = matmul::warp_launch(c, p);
    ASSERT_LE(s.dynamic_smem, sizeof(warp_tiled_smem));
    for (unsigned by = 0; by < s.grid[1]; ++by)
        for (unsigned bx = 0; bx < s.grid[0]; ++bx) {
            std::barrier<> barrier(std::ptrdiff_t(s.block[0]));
            cuda_on_cpu::block_barrier = &barrier;
            for (float& f : warp_tiled_smem) f = std::nanf("");   // nothing is read before it is written
            std::vector<std::thread> threads;
            for (unsigned t = 0; t < s.block[0]; ++t)
                threads.emplace_back([&, t] {
                    threadIdx = {t, 0, 0};
                    blockIdx = {bx, by, 0};
                    kernel(a, b, out, int(p.dim[0]), int(p.dim[1]), int(p.dim[2]), counters);
                });
            for (auto& th : threads) th.join();
        }
}

struct Case {
    matmul::WarpConfig config;
    KernelFn kernel;
    KernelFn exact;   // warp_tiled_matmul_exact: what the host launches at multiples of the block tile
};

matmul::WarpConfig config(int bm, int bn, int bk, int wm, int wn, int wniter, int tm, int tn, int stages, int min_blocks) {
    matmul::WarpConfig c;
    c.bm = bm; c.bn = bn; c.bk = bk; c.wm = wm; c.wn = wn; c.wniter = wniter; c.tm = tm; c.tn = tn;
    c.stages = stages; c.min_blocks = min_blocks;
    return c;
}

#define WARP_CASE(BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES)                                             \
    Case{config(BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, 2),                                          \
         &warp_tiled_matmul<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, 2>,                                \
         &warp_tiled_matmul_exact<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, 2>}

const std::vector<Case>& cases() {
    static const std::vector<Case> list = {
        WARP_CASE(128, 128, 16, 64, 32, 2, 8, 4, 3),   // the default
        WARP_CASE(128, 128, 16, 64, 32, 2, 8, 4, 1),   // synchronous copies
        WARP_CASE(64, 64, 8, 32, 32, 1, 8, 4, 2),      // WMITER = 1, 8 lanes along N
        WARP_CASE(64, 128, 32, 32, 64, 2, 4, 8, 4),
        WARP_CASE(32, 32, 4, 32, 32, 1, 4, 8, 3),      // one warp, BK below the 8-k copy run
        WARP_CASE(128, 64, 8, 64, 32, 1, 8, 4, 2),     // WMITER = 2
    };
    return list;
}

TEST(WarpTiledKernelOnCpu, TheKernelsOwnSourceComputesCAndCountsWhatTheModelSays) {
    const Variant* v = find_variant("matmul.warp_tiled");
    ASSERT_NE(v, nullptr);
    const Target* h100 = find_target("h100");
    ASSERT_NE(h100, nullptr);
    // Odd everything (4-byte B copies), N % 4 == 0 with odd M and K (16-byte copies, zero-filled
    // tails), one element, K shorter than one slice, and multiples of every case's block tile
    // (warp_tiled_matmul_exact, the body without bounds checks).
    const std::vector<Problem> sizes = {Problem{{67, 45, 37}}, Problem{{130, 132, 35}}, Problem{{1, 1, 1}},
                                        Problem{{33, 68, 3}}, Problem{{256, 128, 64}}};
    std::mt19937 gen(23);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (const Case& k : cases())
        for (const Problem& p : sizes) {
            const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
            const bool exact = matmul::warp_exact(k.config, p);
            SCOPED_TRACE(matmul::warp_kernel(k.config, exact).name_expression + " at " + format_problem(p));
            ASSERT_EQ(matmul::warp_invalid_reason(k.config, p, *h100), "");
            std::vector<float> a(size_t(M * K)), b(size_t(K * N)), out(size_t(M * N), std::nanf(""));
            for (float& x : a) x = dist(gen);
            for (float& x : b) x = dist(gen);
            unsigned long long counters[4] = {0, 0, 0, 0};
            launch_on_cpu(exact ? k.exact : k.kernel, k.config, p, a.data(), b.data(), out.data(), counters);

            double worst = 0;
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) {
                    double ref = 0;
                    for (int64_t kk = 0; kk < K; ++kk) ref += double(a[size_t(i * K + kk)]) * b[size_t(kk * N + j)];
                    const double got = out[size_t(i * N + j)];
                    worst = std::isnan(got) ? INFINITY : std::max(worst, std::abs(ref - got));
                }
            EXPECT_LT(worst, 1e-4 * double(K) + 1e-6) << "every element of C written, and right";

            const CostModel m = v->cost_model(
                {{"BM", k.config.bm}, {"BN", k.config.bn}, {"BK", k.config.bk}, {"WM", k.config.wm},
                 {"WN", k.config.wn}, {"WNITER", k.config.wniter}, {"TM", k.config.tm}, {"TN", k.config.tn},
                 {"STAGES", k.config.stages}, {"MINBLOCKS", k.config.min_blocks}},
                p);
            EXPECT_EQ(double(counters[0]), m.total.global_loads);
            EXPECT_EQ(double(counters[1]), m.total.global_stores);
            EXPECT_EQ(double(counters[2]), m.total.shared_loads);
            EXPECT_EQ(double(counters[3]), m.total.shared_stores);
        }
}

}  // namespace
}  // namespace tilelab
