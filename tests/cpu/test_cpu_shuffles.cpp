// Warp shuffles on the CPU run (engine/src/cpu/cpu_warp.cpp): kernels compiled by NVRTC to the CPU
// run's PTX (compute_80, where every __shfl_*_sync is shfl.sync), run by the machine, their
// results checked against what CUDA's documentation says each intrinsic returns — full warps, a
// partial last warp (its missing lanes give NaN bits), segments narrower than a warp, half warps
// shuffling on different instructions, a whole warp shuffling at two instructions (and lanes of
// another mode giving NaN bits) — and a warp whose lanes never all arrive, reported as the hang it
// would be on a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/cpu_machine.h"
#include "cpu/cpu_run.h"
#include "cpu/ptx.h"
#include "nvrtc_ptx.h"

namespace tilelab::cpu {
namespace {

std::string ptx_of(const std::string& source) {
    return test::nvrtc_ptx(source, "shuffles.cu", "compute_" + std::to_string(kCpuRunArch));
}

// Runs `name` from `source` as one block of `threads` threads over a buffer of `words` 32-bit
// words (NaN bits to start); the kernel's parameters are (unsigned* out, int n).
struct Ran {
    LaunchReport report;
    std::vector<uint32_t> out;
};
Ran run(const std::string& source, const std::string& name, unsigned threads, size_t words) {
    Ran r;
    const Module module = parse_ptx(ptx_of(source));
    const Kernel* kernel = module.kernel(name);
    if (!kernel) {
        ADD_FAILURE() << "no kernel " << name;
        return r;
    }
    EXPECT_EQ(kernel->needs_gpu, "") << "the CPU run should model every instruction of " << name;
    Machine machine(module, *kernel);
    const uint64_t out = machine.add_buffer(Buffer{"out", std::vector<uint8_t>(4 * words, 0xFF), 4});
    const int n = int(words);
    Launch launch;
    launch.block = {threads, 1, 1};
    launch.params.assign(kernel->param_bytes, 0);
    std::memcpy(launch.params.data() + kernel->params.at(0).offset, &out, sizeof out);
    std::memcpy(launch.params.data() + kernel->params.at(1).offset, &n, sizeof n);
    r.report = machine.launch(launch);
    r.out.resize(words);
    std::memcpy(r.out.data(), machine.buffer(0).bytes.data(), 4 * words);
    return r;
}

constexpr uint32_t kUndefined = 0xFFFFFFFFu;

const char* kShuffles = R"(
extern "C" __global__ void shuffles(unsigned* out, int n) {
    const unsigned t = threadIdx.x, lane = t % 32;
    const unsigned v = t * 7 + 1;
    out[t * 6 + 0] = __shfl_xor_sync(0xffffffffu, v, 5);
    out[t * 6 + 1] = __shfl_down_sync(0xffffffffu, v, 3);
    out[t * 6 + 2] = __shfl_up_sync(0xffffffffu, v, 2, 16);
    out[t * 6 + 3] = __shfl_sync(0xffffffffu, v, lane + 9, 16);
    float s = float(t) * 0.5f;
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    out[t * 6 + 4] = __float_as_uint(s);
    unsigned h;
    if (lane < 16) h = __shfl_xor_sync(0x0000ffffu, v, 1);
    else h = __shfl_down_sync(0xffff0000u, v, 1);
    out[t * 6 + 5] = h;
}

// The whole warp shuffling down at two instructions, as NVVM leaves it when it splits a loop on a
// per-lane condition: each lane gets its neighbour's operand at the neighbour's instruction. And a
// lane whose source lane is at a shuffle of another mode gets NaN bits.
extern "C" __global__ void split(unsigned* out, int n) {
    const unsigned t = threadIdx.x, lane = t % 32, v = t * 7 + 1;
    unsigned d, m;
    if (lane % 3 == 0) asm volatile("shfl.sync.down.b32 %0, %1, 1, 31, -1;" : "=r"(d) : "r"(2 * v));
    else asm volatile("shfl.sync.down.b32 %0, %1, 1, 31, -1;" : "=r"(d) : "r"(v + 5));
    if (lane < 8) asm volatile("shfl.sync.down.b32 %0, %1, 1, 31, -1;" : "=r"(m) : "r"(v));
    else asm volatile("shfl.sync.up.b32 %0, %1, 1, 0, -1;" : "=r"(m) : "r"(v));
    out[t * 2 + 0] = d;
    out[t * 2 + 1] = m;
}
)";

TEST(CpuShuffles, EachIntrinsicReturnsWhatCudaDocumentsAndMissingLanesGiveNan) {
    constexpr unsigned kThreads = 48;   // a full warp and a warp of 16 lanes
    const Ran r = run(kShuffles, "shuffles", kThreads, 6 * kThreads);
    ASSERT_TRUE(r.report.completed) << r.report.fault;
    auto v = [](unsigned t) { return t * 7 + 1; };
    auto from = [&](unsigned t, unsigned source_lane) {   // lane source_lane of t's warp, if it exists
        const unsigned s = t / 32 * 32 + source_lane;
        return s < kThreads ? v(s) : kUndefined;
    };
    for (unsigned t = 0; t < kThreads; ++t) {
        const unsigned lane = t % 32;
        const uint32_t* o = &r.out[6 * t];
        EXPECT_EQ(o[0], from(t, lane ^ 5)) << "xor 5, thread " << t;
        EXPECT_EQ(o[1], lane + 3 < 32 ? from(t, lane + 3) : v(t)) << "down 3, thread " << t;
        EXPECT_EQ(o[2], lane % 16 >= 2 ? from(t, lane - 2) : v(t)) << "up 2 within 16, thread " << t;
        EXPECT_EQ(o[3], from(t, lane / 16 * 16 + (lane + 9) % 16)) << "index lane + 9 within 16, thread " << t;
        float sum;
        std::memcpy(&sum, &o[4], 4);
        if (t < 32) EXPECT_EQ(sum, 0.5f * 496) << "butterfly sum of the full warp, thread " << t;
        else EXPECT_TRUE(std::isnan(sum)) << "the partial warp's sum reads missing lanes, thread " << t;
        const uint32_t half = lane < 16 ? from(t, lane ^ 1) : lane + 1 < 32 ? from(t, lane + 1) : v(t);
        EXPECT_EQ(o[5], half) << "half warps on different shuffles, thread " << t;
    }
}

TEST(CpuShuffles, LanesAtDifferentInstructionsExchangeWhenModeAndMaskAgree) {
    constexpr unsigned kThreads = 32;
    const Ran r = run(kShuffles, "split", kThreads, 2 * kThreads);
    ASSERT_TRUE(r.report.completed) << r.report.fault;
    auto v = [](unsigned t) { return t * 7 + 1; };
    auto operand = [&](unsigned t) { return t % 3 == 0 ? 2 * v(t) : v(t) + 5; };
    for (unsigned t = 0; t < kThreads; ++t) {
        EXPECT_EQ(r.out[2 * t], t + 1 < 32 ? operand(t + 1) : operand(t)) << "down 1 at two instructions, thread " << t;
        // Lanes 0–7 shuffle down, the others up: lane 7's source, lane 8, is at a shuffle up, and
        // lane 8's, lane 7, at a shuffle down — another mode, so NaN bits for both.
        const uint32_t m = t == 7 || t == 8 ? kUndefined : t < 8 ? v(t + 1) : v(t - 1);
        EXPECT_EQ(r.out[2 * t + 1], m) << "down for lanes 0-7, up for the rest, thread " << t;
    }
}

TEST(CpuShuffles, LanesWaitingForALaneAtABarrierAreReportedAsAHang) {
    const char* stuck = R"(
extern "C" __global__ void stuck(unsigned* out, int n) {
    unsigned v = threadIdx.x;
    if (threadIdx.x % 32 < 16) v = __shfl_xor_sync(0xffffffffu, v, 1);
    __syncthreads();
    out[threadIdx.x] = v;
}
)";
    const Ran r = run(stuck, "stuck", 64, 64);
    ASSERT_FALSE(r.report.completed);
    EXPECT_EQ(r.report.fault_kind, "shuffle");
    EXPECT_NE(r.report.fault.find("lanes 0, 1, 2"), std::string::npos) << r.report.fault;
    EXPECT_NE(r.report.fault.find("hangs"), std::string::npos) << r.report.fault;
}

TEST(CpuShuffles, VotesStillNeedAGpu) {
    const char* vote = R"(
extern "C" __global__ void vote(unsigned* out, int n) {
    out[threadIdx.x] = __ballot_sync(0xffffffffu, threadIdx.x < n);
}
)";
    const Module module = parse_ptx(ptx_of(vote));
    ASSERT_NE(module.kernel("vote"), nullptr);
    EXPECT_EQ(module.kernel("vote")->needs_gpu, "warp votes");
}

// mma.sync is warp-wide (.aligned): lanes that wait at it for lanes that branched around it, to
// a __syncthreads(), wait for good — reported as the hang it would be on a GPU, not run.
TEST(CpuShuffles, AWarpWideMmaHalfTheWarpSkipsIsReportedAsAHang) {
    const char* half = R"(
extern "C" __global__ void half(unsigned* out, int n) {
    unsigned x = threadIdx.x;
    if (threadIdx.x % 32 < 16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%0,%0,%0}, {%0,%0,%0,%0}, {%0,%0}, {%0,%0,%0,%0};"
                     : "+r"(x));
    __syncthreads();
    out[threadIdx.x] = x;
}
)";
    const Ran r = run(half, "half", 64, 64);
    ASSERT_FALSE(r.report.completed);
    EXPECT_EQ(r.report.fault_kind, "shuffle") << r.report.fault;
    EXPECT_NE(r.report.fault.find("hangs"), std::string::npos) << r.report.fault;
}

// bfi (bit-field insert), which NVVM writes for index arithmetic such as lesson 15's SPLIT lane
// layout: positions 0 to 36 with lengths 0 to 27 against PTX's definition (the low `len` bits of
// a into b at `pos`; nothing past bit 31; len 0 or pos past 31 leave b).
TEST(CpuBits, BitFieldInsertIsPtxs) {
    const char* inserts = R"(
extern "C" __global__ void inserts(unsigned* out, int n) {
    const unsigned t = threadIdx.x, a = 0x9E3779B9u * (t + 1), b = 0x7F4A7C15u ^ (t * 0x01000193u);
    unsigned d;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(t % 37), "r"(t / 37));
    out[t] = d;
}
)";
    const Ran r = run(inserts, "inserts", 1024, 1024);
    ASSERT_TRUE(r.report.completed) << r.report.fault;
    for (uint32_t t = 0; t < 1024; ++t) {
        const uint32_t a = 0x9E3779B9u * (t + 1), b = 0x7F4A7C15u ^ (t * 0x01000193u), pos = t % 37, len = t / 37;
        uint32_t want = b;
        for (uint32_t i = 0; i < len && pos + i <= 31; ++i) want = (want & ~(1u << (pos + i))) | (((a >> i) & 1u) << (pos + i));
        ASSERT_EQ(r.out[t], want) << "pos " << pos << " len " << len;
    }
}

}  // namespace
}  // namespace tilelab::cpu
