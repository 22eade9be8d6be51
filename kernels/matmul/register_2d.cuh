// 2D register tiling. A block computes a BM×BN tile of C, stepping through K in slices of BK;
// each of its (BM/TM)·(BN/TN) threads computes a TM×TN micro-tile held in registers, as a sum of
// outer products: per k, a column of TM values of A and a row of TN values of B are read from
// shared memory into registers and give TM·TN multiply-adds. Shared reads per FMA fall from 2
// (one output per thread) to (TM+TN)/(TM·TN); the price is TM·TN accumulator registers.
// Toggles: VEC loads A and B from global memory as float4 (needs K and N multiples of 4),
// TRANS_A keeps A transposed in shared memory (As[k][m]) so a thread's TM values of A are
// contiguous and can be read as float4, PAD widens shared rows against bank conflicts, DBUF
// prefetches the next tiles into registers during the compute (two shared buffers, one barrier
// per step). Any M, N, K: out-of-range elements are neither loaded nor stored; shared memory
// gets zeros there so the inner loop needs no checks.
//
// A thread's rows are ty·4 + {0..3} + g·(BM/TM)·4 for g < TM/4 (when TM is a multiple of 4;
// otherwise TM contiguous rows), likewise its columns: a warp's float4 reads of B then cover
// consecutive 16-byte words (no bank conflicts) and its float4 stores of C are coalesced.
#pragma once
#include "common.cuh"

template <int BM, int BN, int BK, int TM, int TN, int VEC, int TRANS_A, int PAD, int DBUF,
          int UNROLL>
struct Register2dTile {
    static constexpr int kThreadCols = BN / TN;          // threads along N
    static constexpr int kThreadRows = BM / TM;          // threads along M
    static constexpr int kThreads = kThreadCols * kThreadRows;
    // A thread's TM rows come in groups of kGroupM consecutive rows (4 = one float4).
    static constexpr int kGroupM = (TM % 4 == 0) ? 4 : TM;
    static constexpr int kGroupN = (TN % 4 == 0) ? 4 : TN;
    // Shared layouts: As[k][m] (transposed) or As[m][k]; Bs[k][n]. Leading dimensions padded.
    static constexpr int kLdA = TRANS_A ? BM + PAD : BK + PAD;
    static constexpr int kLdB = BN + PAD;
    static constexpr int kSizeA = TRANS_A ? BK * kLdA : BM * kLdA;
    static constexpr int kSizeB = BK * kLdB;
    static constexpr int kStages = DBUF ? 2 : 1;
    // Elements each thread moves from global to shared memory per K step.
    static constexpr int kLoadsA = BM * BK / kThreads;
    static constexpr int kLoadsB = BK * BN / kThreads;
    // float4 reads of the register fragments need 4 aligned consecutive floats in shared memory.
    static constexpr bool kVecFragA = TRANS_A && kGroupM == 4 && kLdA % 4 == 0;
    static constexpr bool kVecFragB = kGroupN == 4 && kLdB % 4 == 0;
    // How many k of a slice one unrolled pass of the k loop holds (UNROLL = 2): all of BK up to
    // kUnrolledProducts multiply-adds, else fewer. NVRTC's time grows with the unrolled body —
    // BK = 64 with an 8×16 micro-tile (8,192 products) took 18.6 s to compile; capped, the loop
    // runs BK / kUnrollK times around a body still long enough to hide its one branch.
    static constexpr int kUnrolledProducts = 1024;
    static constexpr int kUnrollK = TM * TN * BK <= kUnrolledProducts ? BK : kUnrolledProducts / (TM * TN);

    static_assert(BM % TM == 0 && BN % TN == 0, "the thread tile must divide the block tile");
    static_assert((BM * BK) % kThreads == 0 && (BK * BN) % kThreads == 0,
                  "each thread must load the same number of elements of each tile");
    static_assert(!VEC || (BK % 4 == 0 && BN % 4 == 0 && kLoadsA % 4 == 0 && kLoadsB % 4 == 0),
                  "float4 loads need BK and BN multiples of 4 and whole float4s per thread");

    __device__ static int row_in_tile(int ty, int i) {
        return (i / kGroupM) * (kThreadRows * kGroupM) + ty * kGroupM + i % kGroupM;
    }
    __device__ static int col_in_tile(int tx, int j) {
        return (j / kGroupN) * (kThreadCols * kGroupN) + tx * kGroupN + j % kGroupN;
    }
};

// The body shared by both entry points (with and without __launch_bounds__).
template <int BM, int BN, int BK, int TM, int TN, int VEC, int TRANS_A, int PAD, int DBUF,
          int UNROLL>
__device__ __forceinline__ void register_2d_matmul_body(const float* __restrict__ A,
                                                        const float* __restrict__ B,
                                                        float* __restrict__ C, int M, int N, int K,
                                                        unsigned long long* counters) {
    using Tile = Register2dTile<BM, BN, BK, TM, TN, VEC, TRANS_A, PAD, DBUF, UNROLL>;
    TL_COUNTER(counters);
    __shared__ __align__(16) float As[Tile::kStages][Tile::kSizeA];
    __shared__ __align__(16) float Bs[Tile::kStages][Tile::kSizeB];

    const int tid = threadIdx.x;
    const int tx = tid % Tile::kThreadCols;
    const int ty = tid / Tile::kThreadCols;
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;

    // Staging registers: the next tiles travel global -> registers -> shared memory.
    float a_stage[Tile::kLoadsA];
    float b_stage[Tile::kLoadsB];

    // Global -> registers. Out-of-range elements become 0 and are not loaded (nor counted).
    auto load_tiles = [&](int k0) {
        if constexpr (VEC) {
#pragma unroll
            for (int r = 0; r < Tile::kLoadsA / 4; ++r) {
                const int e = tid + r * Tile::kThreads;          // float4 index in the A tile
                const int m = e / (BK / 4), k = (e % (BK / 4)) * 4;
                const int row = block_row + m, col = k0 + k;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (row < M && col < K) {                        // K % 4 == 0: all 4 or none
                    v = *reinterpret_cast<const float4*>(A + size_t(row) * K + col);
                    TL_GLOAD(4);
                }
                a_stage[4 * r + 0] = v.x; a_stage[4 * r + 1] = v.y;
                a_stage[4 * r + 2] = v.z; a_stage[4 * r + 3] = v.w;
            }
#pragma unroll
            for (int r = 0; r < Tile::kLoadsB / 4; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int k = e / (BN / 4), n = (e % (BN / 4)) * 4;
                const int row = k0 + k, col = block_col + n;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (row < K && col < N) {                        // N % 4 == 0: all 4 or none
                    v = *reinterpret_cast<const float4*>(B + size_t(row) * N + col);
                    TL_GLOAD(4);
                }
                b_stage[4 * r + 0] = v.x; b_stage[4 * r + 1] = v.y;
                b_stage[4 * r + 2] = v.z; b_stage[4 * r + 3] = v.w;
            }
        } else {
#pragma unroll
            for (int r = 0; r < Tile::kLoadsA; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int row = block_row + e / BK, col = k0 + e % BK;
                float v = 0.f;
                if (row < M && col < K) { v = A[size_t(row) * K + col]; TL_GLOAD(1); }
                a_stage[r] = v;
            }
#pragma unroll
            for (int r = 0; r < Tile::kLoadsB; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int row = k0 + e / BN, col = block_col + e % BN;
                float v = 0.f;
                if (row < K && col < N) { v = B[size_t(row) * N + col]; TL_GLOAD(1); }
                b_stage[r] = v;
            }
        }
    };

    // Registers -> shared buffer `stage`, in the same element order as load_tiles.
    auto store_tiles = [&](int stage) {
        float* as = As[stage];
        float* bs = Bs[stage];
        constexpr int kVecWidth = VEC ? 4 : 1;
#pragma unroll
        for (int r = 0; r < Tile::kLoadsA / kVecWidth; ++r) {
            const int e = tid + r * Tile::kThreads;
            const int m = e / (BK / kVecWidth), k = (e % (BK / kVecWidth)) * kVecWidth;
#pragma unroll
            for (int i = 0; i < kVecWidth; ++i) {
                if constexpr (TRANS_A) as[(k + i) * Tile::kLdA + m] = a_stage[kVecWidth * r + i];
                else as[m * Tile::kLdA + k + i] = a_stage[kVecWidth * r + i];
            }
            TL_SSTORE(kVecWidth);
        }
#pragma unroll
        for (int r = 0; r < Tile::kLoadsB / kVecWidth; ++r) {
            const int e = tid + r * Tile::kThreads;
            const int k = e / (BN / kVecWidth), n = (e % (BN / kVecWidth)) * kVecWidth;
            if constexpr (VEC && Tile::kLdB % 4 == 0) {
                *reinterpret_cast<float4*>(bs + k * Tile::kLdB + n) =
                    make_float4(b_stage[4 * r], b_stage[4 * r + 1], b_stage[4 * r + 2],
                                b_stage[4 * r + 3]);
            } else {
#pragma unroll
                for (int i = 0; i < kVecWidth; ++i) bs[k * Tile::kLdB + n + i] = b_stage[kVecWidth * r + i];
            }
            TL_SSTORE(kVecWidth);
        }
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

    // One BK slice from shared buffer `stage`: per k an outer product of a column of A (TM
    // values) and a row of B (TN values), both read once into registers and reused TN and TM
    // times. UNROLL: 2 unrolls everything (the k loop kUnrollK at a time); 1 keeps the k loop
    // rolled; 0 rolls the micro-tile loops too, so acc/a/b are indexed at run time and must live
    // in local memory (the stack).
    auto compute_tile = [&](int stage) {
        const float* as = As[stage];
        const float* bs = Bs[stage];
#pragma unroll(UNROLL >= 2 ? Tile::kUnrollK : 1)
        for (int k = 0; k < BK; ++k) {
            float a_frag[TM], b_frag[TN];
            if constexpr (Tile::kVecFragA) {
#pragma unroll
                for (int g = 0; g < TM / 4; ++g) {
                    const float4 v = *reinterpret_cast<const float4*>(
                        as + k * Tile::kLdA + Tile::row_in_tile(ty, 4 * g));
                    a_frag[4 * g] = v.x; a_frag[4 * g + 1] = v.y;
                    a_frag[4 * g + 2] = v.z; a_frag[4 * g + 3] = v.w;
                }
            } else {
#pragma unroll(UNROLL >= 1 ? TM : 1)
                for (int i = 0; i < TM; ++i) {
                    const int m = Tile::row_in_tile(ty, i);
                    a_frag[i] = TRANS_A ? as[k * Tile::kLdA + m] : as[m * Tile::kLdA + k];
                }
            }
            if constexpr (Tile::kVecFragB) {
#pragma unroll
                for (int g = 0; g < TN / 4; ++g) {
                    const float4 v = *reinterpret_cast<const float4*>(
                        bs + k * Tile::kLdB + Tile::col_in_tile(tx, 4 * g));
                    b_frag[4 * g] = v.x; b_frag[4 * g + 1] = v.y;
                    b_frag[4 * g + 2] = v.z; b_frag[4 * g + 3] = v.w;
                }
            } else {
#pragma unroll(UNROLL >= 1 ? TN : 1)
                for (int j = 0; j < TN; ++j) b_frag[j] = bs[k * Tile::kLdB + Tile::col_in_tile(tx, j)];
            }
            TL_SLOAD(TM + TN);
            // EXERCISE-BEGIN: the outer product: acc[i][j] += a_frag[i] · b_frag[j] for every i < TM, j < TN
#pragma unroll(UNROLL >= 1 ? TM : 1)
            for (int i = 0; i < TM; ++i)
#pragma unroll(UNROLL >= 1 ? TN : 1)
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
            // EXERCISE-END
        }
    };

    const int steps = (K + BK - 1) / BK;
    if constexpr (DBUF) {
        // Prefetch: while the block computes on one buffer, the next tiles are already in
        // flight from global memory; they go to the other buffer afterwards. One barrier per
        // step suffices because nobody writes the buffer being read.
        load_tiles(0);
        store_tiles(0);
        __syncthreads();
        for (int t = 0; t < steps; ++t) {
            // EXERCISE-BEGIN: double buffering: load the next tiles (if any) while computing on buffer t & 1, store them to the other buffer, then one barrier
            const bool more = t + 1 < steps;
            if (more) load_tiles((t + 1) * BK);
            compute_tile(t & 1);
            if (more) store_tiles((t + 1) & 1);
            __syncthreads();
            // EXERCISE-END
        }
    } else {
        for (int t = 0; t < steps; ++t) {
            // EXERCISE-BEGIN: one K step: load the tiles, store them to buffer 0, barrier, compute, barrier
            load_tiles(t * BK);
            store_tiles(0);
            __syncthreads();   // the tiles are complete before anyone reads them
            compute_tile(0);
            __syncthreads();   // everyone is done reading before the next tiles overwrite them
            // EXERCISE-END
        }
    }

    // Write the micro-tile. With VEC, each group of 4 columns is one float4 store (N % 4 == 0,
    // so a group is entirely inside or entirely outside the matrix).
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + Tile::row_in_tile(ty, i);
        if constexpr (VEC && Tile::kGroupN == 4) {
#pragma unroll
            for (int g = 0; g < TN / 4; ++g) {
                const int col = block_col + Tile::col_in_tile(tx, 4 * g);
                if (row < M && col < N) {
                    *reinterpret_cast<float4*>(C + size_t(row) * N + col) =
                        make_float4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2],
                                    acc[i][4 * g + 3]);
                    TL_GSTORE(4);
                }
            }
        } else {
#pragma unroll
            for (int j = 0; j < TN; ++j) {
                const int col = block_col + Tile::col_in_tile(tx, j);
                // EXERCISE-BEGIN: store acc[i][j] to C[row][col] where inside C
                if (row < M && col < N) { C[size_t(row) * N + col] = acc[i][j]; TL_GSTORE(1); }
                // EXERCISE-END
            }
        }
    }
}

// No __launch_bounds__: ptxas then honours -maxrregcount (it ignores it for bounded kernels).
template <int BM, int BN, int BK, int TM, int TN, int VEC, int TRANS_A, int PAD, int DBUF,
          int UNROLL>
__global__ void register_2d_matmul(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K,
                                   unsigned long long* counters) {
    register_2d_matmul_body<BM, BN, BK, TM, TN, VEC, TRANS_A, PAD, DBUF, UNROLL>(A, B, C, M, N, K,
                                                                              counters);
}

// __launch_bounds__(threads, MIN_BLOCKS): ptxas keeps registers low enough for MIN_BLOCKS
// blocks of this size per SM, spilling if it must.
template <int BM, int BN, int BK, int TM, int TN, int VEC, int TRANS_A, int PAD, int DBUF,
          int UNROLL, int MIN_BLOCKS>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), MIN_BLOCKS)
    register_2d_matmul_bounded(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ C, int M, int N, int K,
                               unsigned long long* counters) {
    register_2d_matmul_body<BM, BN, BK, TM, TN, VEC, TRANS_A, PAD, DBUF, UNROLL>(A, B, C, M, N, K,
                                                                              counters);
}
