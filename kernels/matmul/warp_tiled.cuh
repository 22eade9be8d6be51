// Warp tiling with multi-stage asynchronous copies. What changed from the 2D register-tiled
// kernel (04): the block tile is cut into warp tiles of WM×WN, and a warp walks its tile in
// WMITER×WNITER steps of 32 lanes × TM×TN; a lane's fragments are float4 reads that 2×2 quads of
// lanes share pairwise (each read takes the least wavefronts a warp-wide float4 read can), and a
// thread's addresses are one base plus constants. B's slices travel to shared memory by cp.async
// (sm_80+), STAGES slices in flight, without staging registers. A is transposed on the way
// (As[k][m]), which a copy cannot do: each thread loads 4 consecutive k of a row (one float4)
// into registers before the compute and stores them as 4 floats after it, so the load's
// latency hides behind the compute as well. STAGES=1 copies synchronously (load, store,
// barrier). Trades shared memory (STAGES buffers) for hidden latency. Before sm_80 B's copies
// are plain loads and stores (the same schedule, nothing overlaps). Any M, N, K: out-of-range
// elements are zero-filled (cp.async's src-size 0), never read; C is stored where inside.
// Stores to C are single floats (see the end of the body: registers).
#pragma once
#include "common.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TL_WARP_CP_ASYNC 1
#else
#define TL_WARP_CP_ASYNC 0
#endif

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
struct WarpTile {
    static constexpr int kWarps = (BM / WM) * (BN / WN);
    static constexpr int kThreads = 32 * kWarps;
    static constexpr int kWarpsN = BN / WN;                       // warps along N
    static constexpr int kWMIter = (WM * WN) / (32 * TM * TN * WNITER);
    static constexpr int kSubM = WM / kWMIter;                    // rows one warp step covers
    static constexpr int kSubN = WN / WNITER;                     // columns one warp step covers
    static constexpr int kLanesN = kSubN / TN;                    // lanes along N in a step
    // Shared layouts, per stage: As[k][m] (A transposed; rows padded by 4 floats, which keeps the
    // fragment reads 16-byte aligned and spreads a warp's transposed stores of A over the banks:
    // 2-way conflicts at BK=16, none at BK ≤ 8) and Bs[k][n].
    static constexpr int kLdA = BM + 4;
    static constexpr int kLdB = BN;
    static constexpr int kSizeA = BK * kLdA;
    static constexpr int kStageFloats = kSizeA + BK * kLdB;
    // A goes through registers in slots of 4 consecutive k of one row (a float4 where K % 4 == 0),
    // BK/4 lanes per row, so that a warp reads whole 32-byte sectors; see a_slot. B goes 16 bytes
    // at a time (4 where N or K % 4 ≠ 0).
    static constexpr int kSlotsA = BM * BK / 4 / kThreads;
    static constexpr int kCopiesB4 = BK * BN / 4 / kThreads;
    static constexpr int kCopiesB1 = BK * BN / kThreads;
    static constexpr bool kAsync = STAGES > 1 && TL_WARP_CP_ASYNC;

    static_assert(BM % WM == 0 && BN % WN == 0, "the warp tile must divide the block tile");
    static_assert(kWMIter >= 1 && kWMIter * 32 * TM * TN * WNITER == WM * WN,
                  "a warp tile must be WMITER x WNITER steps of 32 lanes x TM x TN");
    static_assert(WM % kWMIter == 0 && kSubM % TM == 0 && WN % WNITER == 0 && kSubN % TN == 0,
                  "each warp step must split into whole thread tiles");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as float4");
    static_assert(kLanesN >= 2 && kLanesN <= 16, "the lanes of a step form 2×2 quads");
    static_assert(BK % 4 == 0 && (BM * BK / 4) % kThreads == 0 && (BK * BN / 4) % kThreads == 0,
                  "each thread must copy the same number of slots of each tile");

    // A's slot e (of BM·BK/4): its row m and its first k (a multiple of 4). Cheap on purpose: a
    // mapping with conflict-free stores (2 lanes per row) needed more index arithmetic per step
    // than its stores saved, and measured 2 % slower on an H100.
    __device__ static void a_slot(int e, int& m, int& k) {
        m = e / (BK / 4);
        k = 4 * (e % (BK / 4));
    }
    static_assert(STAGES >= 1 && STAGES <= 4, "1 to 4 stages");
};

// One copy of BYTES (4 or 16) from global to shared memory; `inside` false: BYTES zeros, nothing
// read (src must still be a valid address). ASYNC: cp.async (completes at cp_async_wait).
template <int BYTES, bool ASYNC>
__device__ __forceinline__ void warp_tiled_copy(float* dst, const float* src, bool inside) {
#if TL_WARP_CP_ASYNC
    if constexpr (ASYNC) {
        const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
        const int src_bytes = inside ? BYTES : 0;   // the rest of BYTES is filled with zeros
        if constexpr (BYTES == 16)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src), "r"(src_bytes));
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(src), "r"(src_bytes));
        return;
    }
#endif
    if constexpr (BYTES == 16) {
        *reinterpret_cast<float4*>(dst) =
            inside ? *reinterpret_cast<const float4*>(src) : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
        *dst = inside ? *src : 0.f;
    }
}

template <bool ASYNC>
__device__ __forceinline__ void warp_tiled_commit() {
#if TL_WARP_CP_ASYNC
    if constexpr (ASYNC) asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most PENDING of this thread's committed copy groups are still in flight.
template <int PENDING, bool ASYNC>
__device__ __forceinline__ void warp_tiled_wait() {
#if TL_WARP_CP_ASYNC
    if constexpr (ASYNC) asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}

// The kernel's body for one width of global accesses: VEC (N % 4 == 0 and K % 4 == 0: rows of A
// and B start on 16-byte boundaries) float4 loads of A and 16-byte copies of B, else 4 bytes.
// EXACT (M, N and K multiples of BM, BN and BK; implies VEC): every copy is inside the matrices,
// so the copies need no bounds checks and no zero fill, and each thread's source addresses are a
// per-thread offset, computed once, from the step's corner of A or B.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES, bool VEC, bool EXACT>
__device__ __forceinline__ void warp_tiled_body(const float* __restrict__ A, const float* __restrict__ B,
                                                float* __restrict__ C, int M, int N, int K,
                                                unsigned long long* counters) {
    using Tile = WarpTile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
    constexpr bool kAsync = Tile::kAsync;
    TL_COUNTER(counters);
    extern __shared__ __align__(16) float warp_tiled_smem[];   // STAGES × (As, Bs), dynamic

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int warp_row = (warp / Tile::kWarpsN) * WM;         // the warp's tile inside the block's
    const int warp_col = (warp % Tile::kWarpsN) * WN;
    // The lane's micro-tile inside a step. Lanes go in 2×2 quads (lanes 4q..4q+3): the hardware
    // serves a float4 read per quad of lanes, and a quad spanning 2 rows and 2 columns fetches 32
    // bytes of A and 32 of B, so a half-warp needs 128 bytes of each: one wavefront.
    const int quad = lane / 4, in_quad = lane % 4;
    const int lane_row = (2 * (quad / (Tile::kLanesN / 2)) + in_quad / 2) * TM;
    const int lane_col = (2 * (quad % (Tile::kLanesN / 2)) + in_quad % 2) * TN;
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;

    // EXACT: each copy's offset from the step's corner of A (row block_row, column k0) or of B
    // (row k0, column block_col), and its place in a shared stage, the same every step.
    int a_offset[Tile::kSlotsA] = {}, b_offset[Tile::kCopiesB4] = {}, b_place[Tile::kCopiesB4] = {};
    const float* const a_block = A + size_t(block_row) * K;
    const float* const b_block = B + block_col;
    if constexpr (EXACT) {
#pragma unroll
        for (int r = 0; r < Tile::kSlotsA; ++r) {
            int m, k;
            Tile::a_slot(tid + r * Tile::kThreads, m, k);
            a_offset[r] = m * K + k;
        }
#pragma unroll
        for (int r = 0; r < Tile::kCopiesB4; ++r) {
            const int e = tid + r * Tile::kThreads;
            b_offset[r] = (e / (BN / 4)) * N + (e % (BN / 4)) * 4;
            b_place[r] = Tile::kSizeA + (e / (BN / 4)) * Tile::kLdB + (e % (BN / 4)) * 4;
        }
    }

    // B's tile at k0 -> shared stage `stage`. Every thread issues the same copies every step;
    // out-of-range ones fill zeros so that the compute loop needs no checks.
    auto copy_b = [&](int stage, int k0) {
        float* bs = warp_tiled_smem + stage * Tile::kStageFloats + Tile::kSizeA;
        if constexpr (EXACT) {
            const float* corner = b_block + size_t(k0) * N;
            float* stage_base = warp_tiled_smem + stage * Tile::kStageFloats;
#pragma unroll
            for (int r = 0; r < Tile::kCopiesB4; ++r) {
                warp_tiled_copy<16, kAsync>(stage_base + b_place[r], corner + b_offset[r], true);
                TL_GLOAD(4);
                TL_SSTORE(4);
            }
        } else if constexpr (VEC) {
#pragma unroll
            for (int r = 0; r < Tile::kCopiesB4; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int k = e / (BN / 4), n = (e % (BN / 4)) * 4;
                const int row = k0 + k, col = block_col + n;
                const bool inside = row < K && col < N;   // N % 4 == 0: all 4 or none
                warp_tiled_copy<16, kAsync>(bs + k * Tile::kLdB + n, inside ? B + size_t(row) * N + col : B, inside);
                TL_GLOAD(inside ? 4 : 0);
                TL_SSTORE(4);
            }
        } else {
#pragma unroll
            for (int r = 0; r < Tile::kCopiesB1; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int k = e / BN, n = e % BN;
                const int row = k0 + k, col = block_col + n;
                const bool inside = row < K && col < N;
                warp_tiled_copy<4, kAsync>(bs + k * Tile::kLdB + n, inside ? B + size_t(row) * N + col : B, inside);
                TL_GLOAD(inside ? 1 : 0);
                TL_SSTORE(1);
            }
        }
    };

    // A's tile at k0 -> registers (before the compute), then -> shared stage `stage`, transposed
    // (after it). Zeros where outside A.
    float4 a_stage[Tile::kSlotsA];
    auto load_a = [&](int k0) {
        if constexpr (EXACT) {
            const float* corner = a_block + k0;
#pragma unroll
            for (int r = 0; r < Tile::kSlotsA; ++r) {
                a_stage[r] = *reinterpret_cast<const float4*>(corner + a_offset[r]);
                TL_GLOAD(4);
            }
            return;
        }
#pragma unroll
        for (int r = 0; r < Tile::kSlotsA; ++r) {
            int m, k;
            Tile::a_slot(tid + r * Tile::kThreads, m, k);
            const int row = block_row + m, col = k0 + k;
            const float* src = A + size_t(row) * K + col;
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if constexpr (VEC) {
                if (row < M && col < K) { v = *reinterpret_cast<const float4*>(src); TL_GLOAD(4); }   // K % 4 == 0: all 4 or none
            } else if (row < M) {
                if (col < K) { v.x = src[0]; TL_GLOAD(1); }
                if (col + 1 < K) { v.y = src[1]; TL_GLOAD(1); }
                if (col + 2 < K) { v.z = src[2]; TL_GLOAD(1); }
                if (col + 3 < K) { v.w = src[3]; TL_GLOAD(1); }
            }
            a_stage[r] = v;
        }
    };
    auto store_a = [&](int stage) {
        float* as = warp_tiled_smem + stage * Tile::kStageFloats;
#pragma unroll
        for (int r = 0; r < Tile::kSlotsA; ++r) {
            int m, k;
            Tile::a_slot(tid + r * Tile::kThreads, m, k);
            as[(k + 0) * Tile::kLdA + m] = a_stage[r].x;
            as[(k + 1) * Tile::kLdA + m] = a_stage[r].y;
            as[(k + 2) * Tile::kLdA + m] = a_stage[r].z;
            as[(k + 3) * Tile::kLdA + m] = a_stage[r].w;
            TL_SSTORE(4);
        }
    };

    float acc[Tile::kWMIter][WNITER][TM][TN];
#pragma unroll
    for (int wm = 0; wm < Tile::kWMIter; ++wm)
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[wm][wn][i][j] = 0.f;

    // One BK slice: per k, each lane reads its WMITER·TM values of A and WNITER·TN of B as float4
    // (lanes of a warp with the same lane_row read the same A words: a broadcast) and does
    // WMITER·WNITER outer products. All addresses are a per-thread base plus constants.
    auto compute_stage = [&](int stage) {
        const float* as = warp_tiled_smem + stage * Tile::kStageFloats + warp_row + lane_row;
        const float* bs = warp_tiled_smem + stage * Tile::kStageFloats + Tile::kSizeA + warp_col + lane_col;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a_frag[Tile::kWMIter][TM], b_frag[WNITER][TN];
#pragma unroll
            for (int wm = 0; wm < Tile::kWMIter; ++wm)
#pragma unroll
                for (int g = 0; g < TM / 4; ++g) {
                    const float4 v = *reinterpret_cast<const float4*>(as + k * Tile::kLdA + wm * Tile::kSubM + 4 * g);
                    a_frag[wm][4 * g] = v.x; a_frag[wm][4 * g + 1] = v.y;
                    a_frag[wm][4 * g + 2] = v.z; a_frag[wm][4 * g + 3] = v.w;
                    TL_SLOAD(4);
                }
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int g = 0; g < TN / 4; ++g) {
                    const float4 v = *reinterpret_cast<const float4*>(bs + k * Tile::kLdB + wn * Tile::kSubN + 4 * g);
                    b_frag[wn][4 * g] = v.x; b_frag[wn][4 * g + 1] = v.y;
                    b_frag[wn][4 * g + 2] = v.z; b_frag[wn][4 * g + 3] = v.w;
                    TL_SLOAD(4);
                }
            // The outer products row by row, each row of the lane's WNITER·TN columns walked forwards
            // then the next one backwards: consecutive FMAs share a register operand (a_frag[wm][i]
            // along a row, a b value at each turn), which the SM's operand reuse cache serves
            // without a register-file read. Same sums and instructions as any order; on an H100 at
            // 4096³ it ran 128×256 tiles in 2.716 ms against 2.816 for wm, wn, i, j, the dispatch
            // stalls Nsight Compute counts down from 0.23 to 0.15 per instruction (docs/benchmarks.md).
            // EXERCISE-BEGIN: the warp step's outer products: acc[wm][wn][i][j] += a_frag[wm][i] · b_frag[wn][j] for every wm, wn, i < TM, j < TN
#pragma unroll
            for (int wm = 0; wm < Tile::kWMIter; ++wm)
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int q = 0; q < WNITER * TN; ++q) {
                        const int col = i % 2 == 0 ? q : WNITER * TN - 1 - q;   // forwards, then back
                        acc[wm][col / TN][i][col % TN] += a_frag[wm][i] * b_frag[col / TN][col % TN];
                    }
            // EXERCISE-END
        }
    };

    const int steps = (K + BK - 1) / BK;
    if constexpr (STAGES == 1) {
        // Synchronous: copy, barrier (the tiles are complete), compute, barrier (everyone is done
        // reading before the next copy overwrites them).
        for (int t = 0; t < steps; ++t) {
            copy_b(0, t * BK);
            load_a(t * BK);
            store_a(0);
            __syncthreads();
            compute_stage(0);
            __syncthreads();
        }
    } else {
        // A ring of STAGES buffers: STAGES-1 slices of B are in flight while one is computed. Each
        // step commits one copy group (empty near the end) so that "all but the newest
        // STAGES-2 groups complete" always means "slice t of B has arrived". A's slice for a
        // buffer is loaded before the compute of the step that frees the buffer and stored after
        // it, so the next barrier publishes it, STAGES-2 steps before it is computed.
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < steps) {
                copy_b(s, s * BK);
                load_a(s * BK);
                store_a(s);
            }
            warp_tiled_commit<kAsync>();
        }
        for (int t = 0; t < steps; ++t) {
            // EXERCISE-BEGIN: one step of the ring: wait for slice t (all but the newest STAGES-2 groups), barrier, copy B's slice t+STAGES-1 (if any) into the buffer slice t-1 used and load A's into registers, commit, compute buffer t % STAGES, store A's slice to its buffer
            warp_tiled_wait<STAGES - 2, kAsync>();   // this thread's copies of slice t are done
            __syncthreads();   // everyone's are, and everyone has finished computing slice t-1
            const int next = t + STAGES - 1;       // goes where slice t-1 was
            const bool more = next < steps;
            if (more) {
                copy_b(next % STAGES, next * BK);
                load_a(next * BK);
            }
            warp_tiled_commit<kAsync>();
            compute_stage(t % STAGES);
            if (more) store_a(next % STAGES);
            // EXERCISE-END
        }
        warp_tiled_wait<0, kAsync>();
    }

    // The lane's micro-tiles to C, one float at a time: with float4 stores ptxas kept the
    // accumulators in aligned quads and needed 165 registers instead of 127 at the defaults
    // (sm_90), one block per SM instead of two. The stores of a warp still fill whole sectors.
#pragma unroll
    for (int wm = 0; wm < Tile::kWMIter; ++wm)
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = block_row + warp_row + wm * Tile::kSubM + lane_row + i;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
                const int col0 = block_col + warp_col + wn * Tile::kSubN + lane_col;
#pragma unroll
                for (int j = 0; j < TN; ++j) {
                    const int col = col0 + j;
                    // EXERCISE-BEGIN: store acc[wm][wn][i][j] to C[row][col] where inside C
                    if (row < M && col < N) { C[size_t(row) * N + col] = acc[wm][wn][i][j]; TL_GSTORE(1); }
                    // EXERCISE-END
                }
            }
        }
}

// MIN_BLOCKS: __launch_bounds__'s minimum blocks per SM; 2 caps registers at 65536/(2·threads)
// (128 at 256 threads) so that two blocks fit an SM.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES, int MIN_BLOCKS>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN), MIN_BLOCKS)
    warp_tiled_matmul(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                      int M, int N, int K, unsigned long long* counters) {
    // One branch for the whole kernel, the same for every thread: each body keeps only its own
    // addresses live (a branch per copy would keep both widths' addresses in registers).
    if (N % 4 == 0 && K % 4 == 0)
        warp_tiled_body<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, true, false>(A, B, C, M, N, K, counters);
    else
        warp_tiled_body<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, false, false>(A, B, C, M, N, K, counters);
}

// For M, N and K multiples of BM, BN and BK (the host checks; families/matmul/warp_tiled.h warp_exact()):
// only the body without bounds checks or zero fills, one instantiation instead of two, so NVRTC
// compiles it faster too (255 ms against 656). On an H100 at 4096³ it ran the defaults 1.3 % faster
// (2.942 against 2.981 ms; docs/benchmarks.md).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES, int MIN_BLOCKS>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN), MIN_BLOCKS)
    warp_tiled_matmul_exact(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                            int M, int N, int K, unsigned long long* counters) {
    warp_tiled_body<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, true, true>(A, B, C, M, N, K, counters);
}
