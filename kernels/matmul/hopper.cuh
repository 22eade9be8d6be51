// Hopper's tensor-core building blocks, shared by the sm_90a matmul lessons (compiled by NVRTC for
// sm_90a only: wgmma and TMA exist nowhere else):
//  - TMA: cp.async.bulk.tensor copies a box of a tensor, described by a tensor map the worker
//    encoded on the host (LaunchShape::tensor_maps), from global into shared memory, laid out in
//    the map's swizzle; out-of-range elements arrive as zeros. The copy reports its bytes to an
//    mbarrier ("complete_tx"): the barrier's phase completes when its arrivals are in and every
//    byte it was told to expect has landed.
//  - mbarrier: init, arrive-and-expect-bytes, wait on a phase's parity (phases alternate 0, 1).
//  - wgmma: the four warps of a warpgroup multiply a 64×16 tile of A by a 16×N tile of B into a
//    64×N tile of FP32 sums held in their registers; A and B are read straight from shared memory
//    through 64-bit descriptors (address, the two strides of the canonical layout, the swizzle).
//    Asynchronous: fence, issue, commit a group, wait until at most G groups are pending.
#pragma once
#include "common.cuh"

// The 128 bytes of a CUtensorMap, passed by value as a `const __grid_constant__` parameter.
struct alignas(64) TmaDescriptor {
    unsigned long long opaque[16];
};

namespace hopper {

__device__ __forceinline__ unsigned shared_address(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void barrier_init(unsigned long long* bar, unsigned arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}
// The inits visible to the other threads and to the copy engine (the async proxy).
__device__ __forceinline__ void barrier_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;" ::: "memory");
}
// One arrival that also tells the current phase to wait for `bytes` more bytes.
__device__ __forceinline__ void barrier_arrive_expect(unsigned long long* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes) : "memory");
}
// Until the phase of parity `phase` has completed.
__device__ __forceinline__ void barrier_wait(unsigned long long* bar, unsigned phase) {
    unsigned done = 0;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(shared_address(bar)), "r"(phase)
                     : "memory");
    } while (!done);
}

// The box of `map` at element coordinates (x innermost, y) into shared memory at `dst`, its bytes
// reported to `bar`.
__device__ __forceinline__ void tma_load_2d(void* dst, const TmaDescriptor* map, int x, int y, unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(shared_address(dst)), "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(shared_address(bar))
        : "memory");
}

// A wgmma operand's descriptor: the start address and both strides in 16-byte units, and the
// swizzle (bits 62–63: 1 = 128 bytes, 2 = 64, 3 = 32). `lead` is the byte step between
// swizzle-wide columns of the operand (MN-major operands wider than one swizzle row; unused
// for K-major ones), `stride` the step between groups of 8 rows.
template <int SWIZZLE>
__device__ __forceinline__ unsigned long long operand_descriptor(const void* p, unsigned lead, unsigned stride) {
    constexpr unsigned long long mode = SWIZZLE == 128 ? 1 : SWIZZLE == 64 ? 2 : 3;
    return (unsigned long long)((shared_address(p) & 0x3FFFF) >> 4) | (unsigned long long)((lead >> 4) & 0x3FFF) << 16 |
           (unsigned long long)((stride >> 4) & 0x3FFF) << 32 | mode << 62;
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
}

// The element types by name, for the instruction's text.
struct bf16_kind {};
struct f16_kind {};

// wgmma.mma_async m64nNk16 with FP32 sums, A K-major (row-major M×K) and B MN-major (row-major
// K×N: imm-trans-b = 1), both from descriptors; d holds the thread's N/2 sums and is added to.
template <int N, class Kind>
struct Wgmma;

// The sums' operands of an m64nNk16, N/2 a thread: "%0, ..." for the instruction's text and
// "+f"(d[0]), ... for the asm statement; each width extends the one before it.
#define TL_WGMMA_REGS_64 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define TL_WGMMA_REGS_128 \
    TL_WGMMA_REGS_64 ", " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define TL_WGMMA_REGS_256 \
    TL_WGMMA_REGS_128 ", " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define TL_WGMMA_SUMS_64 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define TL_WGMMA_SUMS_128 \
    TL_WGMMA_SUMS_64, \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define TL_WGMMA_SUMS_256 \
    TL_WGMMA_SUMS_128, \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// One specialisation: the sums are operands 0 .. N/2-1, A's descriptor DESC_A = N/2, B's N/2+1,
// and the scale-d flag (1: add to the sums) N/2+2.
#define TL_WGMMA(N, DESC_A, DESC_B, SCALE, TYPE)                                                           \
    template <> struct Wgmma<N, TYPE##_kind> {                                                             \
        static __device__ __forceinline__ void run(float* d, unsigned long long a, unsigned long long b) { \
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #SCALE ", 0;\n"                              \
                         "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." #TYPE "." #TYPE " {"            \
                         TL_WGMMA_REGS_##N "}, %" #DESC_A ", %" #DESC_B ", p, 1, 1, 0, 1;\n}\n"            \
                         : TL_WGMMA_SUMS_##N                                                               \
                         : "l"(a), "l"(b), "r"(1));                                                        \
        }                                                                                                  \
    };
TL_WGMMA(64, 32, 33, 34, bf16)
TL_WGMMA(64, 32, 33, 34, f16)
TL_WGMMA(128, 64, 65, 66, bf16)
TL_WGMMA(128, 64, 65, 66, f16)
TL_WGMMA(256, 128, 129, 130, bf16)
TL_WGMMA(256, 128, 129, 130, f16)
#undef TL_WGMMA
#undef TL_WGMMA_REGS_64
#undef TL_WGMMA_REGS_128
#undef TL_WGMMA_REGS_256
#undef TL_WGMMA_SUMS_64
#undef TL_WGMMA_SUMS_128
#undef TL_WGMMA_SUMS_256

// One arrival on `bar` (no bytes).
__device__ __forceinline__ void barrier_arrive(unsigned long long* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

// Thread-block clusters: this block's rank in its cluster; a barrier of every thread of the
// cluster (which also orders their shared-memory writes, mbarrier inits included, before what
// follows it); an arrival on the mbarrier at the same offset in the shared memory of block `cta`
// of the cluster (this one or another).
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void barrier_arrive_in(unsigned long long* bar, unsigned cta) {
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(shared_address(bar)), "r"(cta)
                 : "memory");
}
// One TMA read of the box into shared memory at `dst` in every block of `mask` (bit i: rank i),
// each block's bytes reported to its own mbarrier at `bar`'s offset.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const TmaDescriptor* map, int x, int y, unsigned long long* bar,
                                                      unsigned short mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(dst)), "l"(reinterpret_cast<unsigned long long>(map)),
        "r"(x), "r"(y), "r"(shared_address(bar)), "h"(mask)
        : "memory");
}

// setmaxnreg: the warpgroup gives registers back to the SM's pool (dec) or takes them (inc), to
// N a thread (a multiple of 8 from 24 to 256); every warp of the warpgroup executes it.
template <int N>
__device__ __forceinline__ void registers_down() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void registers_up() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}

// Named barriers 1..15 (0 is __syncthreads): `threads` arrivals complete one; sync waits for it,
// arrive only counts. Two warpgroups take turns with them (lesson 22's ping-pong).
__device__ __forceinline__ void named_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// KIND 1: BF16, KIND 2: FP16, as the kernels' template arguments name them.
template <int KIND> struct WgmmaKind;
template <> struct WgmmaKind<1> { using Name = bf16_kind; };
template <> struct WgmmaKind<2> { using Name = f16_kind; };

// The thread's elements of one warpgroup's 64×WGN sums that lie inside C (rows below M, columns
// left of N): wgmma's accumulator layout is mma.sync's 16×8 one repeated — warp w holds rows
// 16w .. 16w+15 of the 64; in each 8-wide column group c, lane 4g+t holds d[4c], d[4c+1] at row g,
// columns 2t, 2t+1, and d[4c+2], d[4c+3] at row g+8. f(at, e, pair): C's index of d[e], and
// whether d[e+1] is inside too (N is a multiple of 8 and the column even: an aligned pair).
template <int WGN, class F>
__device__ __forceinline__ void for_each_wgmma_sum(int M, int N, int row0, int col0, F&& f) {
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    const int r = row0 + 16 * warp + lane / 4;
#pragma unroll
    for (int c = 0; c < WGN / 8; ++c) {
        const int col = col0 + 8 * c + 2 * (lane % 4);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = r + 8 * h;
            if (row >= M || col >= N) continue;
            f(size_t(row) * N + col, 4 * c + 2 * h, col + 1 < N);
        }
    }
}

// The C tile of one warpgroup's sums into C. Returns the elements stored.
template <int WGN>
__device__ __forceinline__ int store_wgmma_tile(float* C, int M, int N, int row0, int col0, const float* d) {
    int stored = 0;
    for_each_wgmma_sum<WGN>(M, N, row0, col0, [&](size_t at, int e, bool pair) {
        if (pair) {
            *reinterpret_cast<float2*>(C + at) = make_float2(d[e], d[e + 1]);
            stored += 2;
        } else {
            C[at] = d[e];
            stored += 1;
        }
    });
    return stored;
}

// The partial sums a tile's tail left in C (store_wgmma_tile's elements, by the same threads),
// added to d; read from L2 (.cg): another SM wrote them. Returns the elements read. Where the
// whole 64×WGN tile lies inside C, the loads go out 16 at a time before the first add (one trip
// to L2 per 16, not one per load: PC samples showed the one-by-one loads as most of stream-K's
// cost); at C's edges, one by one.
template <int WGN>
__device__ __forceinline__ int add_wgmma_tile_from(const float* C, int M, int N, int row0, int col0, float* d) {
    if (row0 + 64 <= M && col0 + WGN <= N) {
        constexpr int kBatch = 8;   // column groups of 8 per batch: 16 float2 loads, 32 registers
        static_assert(WGN / 8 % kBatch == 0, "whole batches of column groups");
        const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
        const float* row = C + size_t(row0 + 16 * warp + lane / 4) * N + col0 + 2 * (lane % 4);
#pragma unroll
        for (int c0 = 0; c0 < WGN / 8; c0 += kBatch) {
            float2 v[kBatch][2];
#pragma unroll
            for (int c = 0; c < kBatch; ++c)
#pragma unroll
                for (int h = 0; h < 2; ++h) v[c][h] = __ldcg(reinterpret_cast<const float2*>(row + size_t(8 * h) * N + 8 * (c0 + c)));
#pragma unroll
            for (int c = 0; c < kBatch; ++c)
#pragma unroll
                for (int h = 0; h < 2; ++h) d[4 * (c0 + c) + 2 * h] += v[c][h].x, d[4 * (c0 + c) + 2 * h + 1] += v[c][h].y;
        }
        return WGN / 2;
    }
    int read = 0;
    for_each_wgmma_sum<WGN>(M, N, row0, col0, [&](size_t at, int e, bool pair) {
        if (pair) {
            const float2 v = __ldcg(reinterpret_cast<const float2*>(C + at));
            d[e] += v.x, d[e + 1] += v.y;
            read += 2;
        } else {
            d[e] += __ldcg(C + at);
            read += 1;
        }
    });
    return read;
}

// A flag in global memory between blocks on different SMs: set with release semantics (what the
// block wrote before is visible to whoever sees the flag), awaited (until it reaches a count)
// with acquire semantics.
__device__ __forceinline__ void flag_release(unsigned* flag, unsigned value) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
// A flag that stays down for 10 s means its writer never ran (blocks not all resident): the wait
// stops the kernel with a trap, an error the run reports, rather than hang the GPU.
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ void flag_wait(const unsigned* flag, unsigned at_least) {
    const unsigned long long start = global_ns();
    for (;;) {
        unsigned v;
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
        if (v >= at_least) return;
        if (global_ns() - start > 10000000000ull) __trap();
    }
}
// Generic-proxy accesses to global memory ordered with TMA's (the async proxy) that follow.
__device__ __forceinline__ void fence_global_to_async() { asm volatile("fence.proxy.async.global;" ::: "memory"); }

// TMA the other way: a box of shared memory, laid out in `map`'s swizzle, into the tensor at
// element coordinates (x innermost, y); the parts of the box outside the tensor are not written.
// Stores complete in bulk groups: commit, then wait until at most N groups are still reading
// shared memory (bulk_wait_read) or still writing at all (bulk_wait).
__device__ __forceinline__ void tma_store_2d(const TmaDescriptor* map, const void* src, int x, int y) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 ::"l"(reinterpret_cast<unsigned long long>(map)), "r"(shared_address(src)), "r"(x), "r"(y)
                 : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}
// The threads' shared-memory writes made visible to the async proxy (a TMA store reading them).
__device__ __forceinline__ void fence_shared_to_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// The same tile as store_wgmma_tile, through shared memory and TMA, each warp on its own: its 16
// rows, 32 columns at a time, into one of its two 2 KB buffers at `staging` (1024-aligned; 16 rows
// of 128 bytes in TMA's 128-byte swizzle: 16-byte chunk j of row r lives at chunk j ^ (r mod 8)),
// then its lane 0 asks TMA to store the box (`map_c`: FP32, boxes of 32×16). A buffer is written
// again only once the store before last has read it; no barrier wider than the warp. `boxes`
// counts the warp's boxes (it picks the buffer). Returns the elements of C stored, in lane 0 (the
// other lanes 0); rows at or past M store nothing.
template <int WGN>
__device__ __forceinline__ int store_wgmma_tile_tma(float* staging, const TmaDescriptor* map_c, int M, int N, int row0, int col0,
                                                    const float* d, int& boxes) {
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    const int wrow0 = row0 + 16 * warp;
    int stored = 0;
    if (wrow0 >= M) return 0;
#pragma unroll
    for (int q = 0; q < WGN / 32; ++q) {
        if (col0 + 32 * q >= N) break;
        float* buf = staging + (boxes & 1) * (16 * 32);
        if (lane == 0) bulk_wait_read<1>();
        __syncwarp();
#pragma unroll
        for (int c = 0; c < 4; ++c)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = lane / 4 + 8 * h, col = 8 * c + 2 * (lane % 4);
                float* at = buf + r * 32 + (((col / 4) ^ (r % 8)) * 4) + col % 4;
                *reinterpret_cast<float2*>(at) = make_float2(d[4 * (4 * q + c) + 2 * h], d[4 * (4 * q + c) + 2 * h + 1]);
            }
        fence_shared_to_async();
        __syncwarp();
        if (lane == 0) {
            tma_store_2d(map_c, buf, col0 + 32 * q, wrow0);
            bulk_commit();
            stored += min(16, M - wrow0) * min(32, N - col0 - 32 * q);
        }
        ++boxes;
    }
    return stored;
}

}  // namespace hopper
