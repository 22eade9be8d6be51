// Tensor cores through mma.sync, ldmatrix and a swizzled shared layout. What changed from the
// WMMA kernel: nothing is opaque any more. A warp's WM×WN tile of C is (WM/16)×(WN/8) tiles of
// 16×8, each held by the warp as 4 floats per lane in a layout the PTX ISA states (lane = 4·g + t
// holds rows g and g+8, columns 2t and 2t+1); one `mma.sync.aligned.m16n8k16` (BF16, FP16) or
// `m16n8k8` (TF32) multiplies a 16×FK fragment of A by an FK×8 fragment of B into it. The
// fragments come from shared memory through `ldmatrix`: each lane names one 16-byte row of an
// 8×8 matrix of 16-bit elements and receives a 4-byte piece of every matrix back, exactly where
// mma.sync wants it (`.trans` transposes B's 8×8 matrices on the way, so B stays row-major K×N).
// One ldmatrix.x4 is four phases of eight 16-byte rows: a phase is free of bank conflicts when its
// eight rows fall in eight different 16-byte columns of the 128-byte bank line. LAYOUT says how the
// shared tiles are laid out: 0 plain (rows packed: 64-byte rows put 4 rows of a phase on the same
// banks), 1 padded (every row 16 bytes longer), 2 swizzled (no padding: the 16-byte column is
// XORed with the row, so the 8 rows of any phase land in 8 different columns).
// TF32's B fragment holds single 32-bit elements down a column, which ldmatrix cannot transpose:
// it is read with plain 4-byte loads (its swizzle spreads those over all 32 banks instead).
// STAGES slices in flight through cp.async (sm_80+); GROUP > 1 walks the blocks GROUP block rows
// at a time, column by column, so the B columns a wave of blocks reads are shared in L2.
// Any M, N, K: out-of-range operands are zero-filled in shared memory, C is stored where inside.
//   KIND 0: TF32, operands are floats in memory, rounded to TF32 (to nearest) after the load;
//   KIND 1: BF16 and KIND 2: FP16 operands, exact. Accumulation is FP32.
#pragma once
#include "common.cuh"
#include "matmul/async_copy.cuh"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <int KIND> struct MmaKind;
template <> struct MmaKind<0> { using In = float; using Raw = unsigned; static constexpr int kFK = 8; };
template <> struct MmaKind<1> { using In = __nv_bfloat16; using Raw = unsigned short; static constexpr int kFK = 16; };
template <> struct MmaKind<2> { using In = __half; using Raw = unsigned short; static constexpr int kFK = 16; };

// Byte offset of the 16-byte piece `chunk` of row `row` in a tile whose rows hold ROW_BYTES of
// data. Plain: packed rows. Padded: rows ROW_BYTES + 16 apart. Swizzled: packed, the piece's place
// among the 8 pieces of its 128-byte line XORed with a key from the row: rows of 128 bytes or more
// use row mod 8 (TF32's B: 2·(row mod 4), see above); shorter rows share a line, and the line's
// number is the key, so 8 consecutive rows still reach 8 different places.
template <int LAYOUT, int ROW_BYTES, bool SCALAR_COLUMNS>
__device__ __forceinline__ int mma_offset(int row, int chunk) {
    // EXERCISE-BEGIN: the three layouts (plain, padded by 16 bytes, XOR-swizzled)
    if constexpr (LAYOUT == 0) {
        return row * ROW_BYTES + chunk * 16;
    } else if constexpr (LAYOUT == 1) {
        return row * (ROW_BYTES + 16) + chunk * 16;
    } else if constexpr (ROW_BYTES >= 128) {
        const int key = SCALAR_COLUMNS ? (row & 3) << 1 : row & 7;
        return row * ROW_BYTES + ((chunk ^ key) << 4);
    } else {
        constexpr int kRowsPerLine = 128 / ROW_BYTES;
        const int line = row / kRowsPerLine;
        const int piece = (row % kRowsPerLine) * (ROW_BYTES / 16) + chunk;
        return line * 128 + ((piece ^ (line & 7)) << 4);
    }
    // EXERCISE-END
}

template <int KIND, int BM, int BN, int BK, int WM, int WN, int STAGES, int LAYOUT>
struct MmaTile {
    using In = typename MmaKind<KIND>::In;
    static constexpr int kBytes = int(sizeof(In));
    static constexpr int kVec = 16 / kBytes;                 // elements in a 16-byte piece
    static constexpr int kFK = MmaKind<KIND>::kFK;           // one mma's depth
    static constexpr int kRowA = BK * kBytes, kRowB = BN * kBytes;
    static constexpr int kPad = LAYOUT == 1 ? 16 : 0;
    static constexpr int kBytesA = BM * (kRowA + kPad);
    static constexpr int kStageBytes = kBytesA + BK * (kRowB + kPad);
    static constexpr int kWarpsN = BN / WN;
    static constexpr int kThreads = 32 * (BM / WM) * kWarpsN;
    static constexpr int kTilesM = WM / 16, kTilesN = WN / 8;
    static constexpr int kCopiesA = BM * BK / kVec / kThreads, kCopiesB = BK * BN / kVec / kThreads;
    static constexpr int kScalarA = BM * BK / kThreads, kScalarB = BK * BN / kThreads;

    static_assert(BM % WM == 0 && BN % WN == 0, "the warp tile must divide the block tile");
    static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % kFK == 0, "whole fragments per warp tile and slice");
    static_assert(kRowA >= 32 && kRowB >= 32, "rows of at least two 16-byte pieces");
    static_assert((BM * BK / kVec) % kThreads == 0 && (BK * BN / kVec) % kThreads == 0,
                  "each thread copies the same number of 16-byte pieces of each tile");
    static_assert(STAGES >= 1 && STAGES <= 4, "1 to 4 stages");
};

__device__ __forceinline__ void mma_ldmatrix_x4(unsigned (&r)[4], const void* p) {
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

__device__ __forceinline__ void mma_ldmatrix_x4_trans(unsigned (&r)[4], const void* p) {
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

// A float's bits rounded to TF32 (10 mantissa bits, to nearest); TF32 needs sm_80.
__device__ __forceinline__ unsigned mma_tf32(unsigned bits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned t;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(__uint_as_float(bits)));
    return t;
#else
    return bits;
#endif
}

// d += a·b for one 16×8 tile: a 16×FK, b FK×8, d 16×8 floats (4 per lane).
template <int KIND>
__device__ __forceinline__ void mma_16x8(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    if constexpr (KIND == 0) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else if constexpr (KIND == 1) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
        // sm_75 has the 8-deep FP16 shape only: k 0..7 (a0, a1; b0), then k 8..15 (a2, a3; b1).
        for (int h = 0; h < 2; ++h)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                         "{%0, %1, %2, %3};\n"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                         : "r"(a[2 * h]), "r"(a[2 * h + 1]), "r"(b[h]));
#endif
    }
}

// VEC: K and N multiples of a 16-byte piece's elements (8; TF32 4), 16-byte copies; else one
// element at a time (the host picks: lessons/13_matmul_mma, kernel_at).
template <int KIND, int BM, int BN, int BK, int WM, int WN, int STAGES, int LAYOUT, int GROUP, bool VEC>
__device__ __forceinline__ void mma_body(const typename MmaKind<KIND>::In* __restrict__ A,
                                         const typename MmaKind<KIND>::In* __restrict__ B, float* __restrict__ C,
                                         int M, int N, int K, unsigned long long* counters) {
    using Tile = MmaTile<KIND, BM, BN, BK, WM, WN, STAGES, LAYOUT>;
    using Raw = typename MmaKind<KIND>::Raw;
    constexpr int EB = Tile::kBytes, VW = Tile::kVec, FK = Tile::kFK;
    constexpr bool kAsync = VEC && STAGES > 1 && TL_CP_ASYNC;
    TL_COUNTER(counters);
    extern __shared__ __align__(1024) unsigned char mma_smem[];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int warp_row = (warp / Tile::kWarpsN) * WM, warp_col = (warp % Tile::kWarpsN) * WN;
    // The block's tile: in launch order, or GROUP block rows at a time, column by column.
    int bx = blockIdx.x, by = blockIdx.y;
    if constexpr (GROUP > 1) {
        const int id = blockIdx.y * gridDim.x + blockIdx.x, per_group = GROUP * gridDim.x;
        const int first = id / per_group * GROUP, rows = min(int(gridDim.y) - first, GROUP);
        by = first + id % per_group % rows;
        bx = id % per_group / rows;
    }
    const int block_row = by * BM, block_col = bx * BN;

    auto copy_slice = [&](int stage, int k0) {
        unsigned char* as = mma_smem + stage * Tile::kStageBytes;
        unsigned char* bs = as + Tile::kBytesA;
        if constexpr (VEC) {
#pragma unroll
            for (int r = 0; r < Tile::kCopiesA; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int m = e / (BK / VW), c = e % (BK / VW);
                const int row = block_row + m, col = k0 + c * VW;
                const bool inside = row < M && col < K;
                tl_copy16<kAsync>(as + mma_offset<LAYOUT, Tile::kRowA, false>(m, c),
                                  inside ? A + size_t(row) * K + col : A, inside);
                TL_GLOAD(inside ? VW : 0);
                TL_SSTORE(VW);
            }
#pragma unroll
            for (int r = 0; r < Tile::kCopiesB; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int k = e / (BN / VW), c = e % (BN / VW);
                const int row = k0 + k, col = block_col + c * VW;
                const bool inside = row < K && col < N;
                tl_copy16<kAsync>(bs + mma_offset<LAYOUT, Tile::kRowB, KIND == 0>(k, c),
                                  inside ? B + size_t(row) * N + col : B, inside);
                TL_GLOAD(inside ? VW : 0);
                TL_SSTORE(VW);
            }
        } else {
            const Raw* a = reinterpret_cast<const Raw*>(A);
            const Raw* b = reinterpret_cast<const Raw*>(B);
#pragma unroll 1
            for (int r = 0; r < Tile::kScalarA; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int m = e / BK, k = e % BK;
                const int row = block_row + m, col = k0 + k;
                const bool inside = row < M && col < K;
                *reinterpret_cast<Raw*>(as + mma_offset<LAYOUT, Tile::kRowA, false>(m, k / VW) + k % VW * EB) =
                    inside ? a[size_t(row) * K + col] : Raw(0);
                TL_GLOAD(inside ? 1 : 0);
                TL_SSTORE(1);
            }
#pragma unroll 1
            for (int r = 0; r < Tile::kScalarB; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int k = e / BN, n = e % BN;
                const int row = k0 + k, col = block_col + n;
                const bool inside = row < K && col < N;
                *reinterpret_cast<Raw*>(bs + mma_offset<LAYOUT, Tile::kRowB, KIND == 0>(k, n / VW) + n % VW * EB) =
                    inside ? b[size_t(row) * N + col] : Raw(0);
                TL_GLOAD(inside ? 1 : 0);
                TL_SSTORE(1);
            }
        }
    };

    float acc[Tile::kTilesM][Tile::kTilesN][4];
#pragma unroll
    for (int i = 0; i < Tile::kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < Tile::kTilesN; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    // One slice, FK deep at a time: the warp's column of A fragments (ldmatrix.x4: lanes 0-15
    // name rows 0-15 of the first 16-byte column, lanes 16-31 the same rows of the second), its
    // row of B fragments (ldmatrix.x4.trans: two 8-wide tiles per call; TF32: 4-byte loads of
    // rows t and t+4, column g), then every pair through the tensor cores.
    auto compute_slice = [&](int stage) {
        const unsigned char* as = mma_smem + stage * Tile::kStageBytes;
        const unsigned char* bs = as + Tile::kBytesA;
#pragma unroll
        for (int kk = 0; kk < BK; kk += FK) {
            unsigned a[Tile::kTilesM][4], b[Tile::kTilesN][2];
            // EXERCISE-BEGIN: load the warp's A and B fragments for this kk, then acc[i][j] += a[i]·b[j] with mma_16x8
#pragma unroll
            for (int i = 0; i < Tile::kTilesM; ++i) {
                const int row = warp_row + i * 16 + (lane & 15), chunk = kk / VW + (lane >> 4);
                mma_ldmatrix_x4(a[i], as + mma_offset<LAYOUT, Tile::kRowA, false>(row, chunk));
                TL_SLOAD(VW);
                if constexpr (KIND == 0)
#pragma unroll
                    for (int v = 0; v < 4; ++v) a[i][v] = mma_tf32(a[i][v]);
            }
            if constexpr (KIND == 0) {
                const int g = lane >> 2, t = lane & 3;
#pragma unroll
                for (int j = 0; j < Tile::kTilesN; ++j)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int k = kk + t + 4 * h, n = warp_col + j * 8 + g;
                        b[j][h] = mma_tf32(*reinterpret_cast<const unsigned*>(
                            bs + mma_offset<LAYOUT, Tile::kRowB, true>(k, n / VW) + n % VW * 4));
                        TL_SLOAD(1);
                    }
            } else {
#pragma unroll
                for (int j = 0; j < Tile::kTilesN; j += 2) {
                    unsigned r[4];
                    const int k = kk + (lane & 15), chunk = (warp_col + j * 8) / VW + (lane >> 4);
                    mma_ldmatrix_x4_trans(r, bs + mma_offset<LAYOUT, Tile::kRowB, false>(k, chunk));
                    TL_SLOAD(VW);
                    b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
                }
            }
#pragma unroll
            for (int i = 0; i < Tile::kTilesM; ++i)
#pragma unroll
                for (int j = 0; j < Tile::kTilesN; ++j) mma_16x8<KIND>(acc[i][j], a[i], b[j]);
            // EXERCISE-END
        }
    };

    // The copy ring (matmul/async_copy.cuh): STAGES-1 slices in flight while one is computed.
    tl_copy_ring<STAGES, kAsync>(K, BK, copy_slice, compute_slice);

    // C straight from the accumulators: lane 4g+t holds rows g and g+8, columns 2t and 2t+1 of
    // each 16×8 tile; two floats at once where both are inside and 8-byte aligned (N even).
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < Tile::kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < Tile::kTilesN; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = block_row + warp_row + i * 16 + g + 8 * h;
                const int col = block_col + warp_col + j * 8 + 2 * t;
                if (row >= M) continue;
                float* out = C + size_t(row) * N + col;
                if (col + 1 < N && N % 2 == 0) {
                    *reinterpret_cast<float2*>(out) = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                    TL_GSTORE(2);
                } else {
                    if (col < N) { out[0] = acc[i][j][2 * h]; TL_GSTORE(1); }
                    if (col + 1 < N) { out[1] = acc[i][j][2 * h + 1]; TL_GSTORE(1); }
                }
            }
}

template <int KIND, int BM, int BN, int BK, int WM, int WN, int STAGES, int LAYOUT, int GROUP, bool VEC>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN))
    mma_matmul(const typename MmaKind<KIND>::In* __restrict__ A, const typename MmaKind<KIND>::In* __restrict__ B,
               float* __restrict__ C, int M, int N, int K, unsigned long long* counters) {
    mma_body<KIND, BM, BN, BK, WM, WN, STAGES, LAYOUT, GROUP, VEC>(A, B, C, M, N, K, counters);
}
