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
// STAGES slices in flight through cp.async (sm_80+); FRAGS = 2 keeps a second set of fragment
// registers so the next step's ldmatrix runs while this step's mma.sync do (FRAGS = 1: load,
// then multiply); GROUP > 1 walks the blocks GROUP block rows at a time, column by column, so the
// B columns a wave of blocks reads are shared in L2.
// Any M, N, K: out-of-range operands are zero-filled in shared memory, C is stored where inside.
//   KIND 0: TF32, operands are floats in memory, rounded to TF32 (to nearest, mma_tf32) after the load;
//   KIND 3: TF32 with the floats' bits passed as they are, the tensor cores truncating them;
//   KIND 1: BF16 and KIND 2: FP16 operands, exact. Accumulation is FP32.
#pragma once
#include "common.cuh"
#include "matmul/async_copy.cuh"
#include "matmul/tile_order.cuh"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <int KIND> struct MmaKind;
template <> struct MmaKind<0> {
    using In = float;
    using Raw = unsigned;
    static constexpr int kFK = 8;
    static constexpr bool kRound = true;   // mma_tf32 rounds (KIND 3: it does not)
};
template <> struct MmaKind<1> { using In = __nv_bfloat16; using Raw = unsigned short; static constexpr int kFK = 16; };
template <> struct MmaKind<2> { using In = __half; using Raw = unsigned short; static constexpr int kFK = 16; };
template <> struct MmaKind<3> : MmaKind<0> { static constexpr bool kRound = false; };
template <int KIND> constexpr bool kMmaTf32 = MmaKind<KIND>::kFK == 8;   // 32-bit operands: m16n8k8

// Byte offset of the 16-byte piece `chunk` of row `row` in a tile whose rows hold ROW_BYTES of
// data. Plain: packed rows. Padded: rows ROW_BYTES + 16 apart. Swizzled: packed, the piece's place
// among the 8 pieces of its 128-byte line XORed with a key from the row: rows of 128 bytes or more
// use row mod 8 (TF32's B: 2·(row mod 4), see above); shorter rows share a line, and the line's
// number is the key, so 8 consecutive rows still reach 8 different places.
template <int LAYOUT, int ROW_BYTES, bool SCALAR_COLUMNS>
__device__ __forceinline__ int mma_offset(int row, int chunk) {
    int offset = 0;
    // EXERCISE-BEGIN: the three layouts (plain, padded by 16 bytes, XOR-swizzled)
    if constexpr (LAYOUT == 0) {
        offset = row * ROW_BYTES + chunk * 16;
    } else if constexpr (LAYOUT == 1) {
        offset = row * (ROW_BYTES + 16) + chunk * 16;
    } else if constexpr (ROW_BYTES >= 128) {
        const int key = SCALAR_COLUMNS ? (row & 3) << 1 : row & 7;
        offset = row * ROW_BYTES + ((chunk ^ key) << 4);
    } else {
        constexpr int kRowsPerLine = 128 / ROW_BYTES;
        const int line = row / kRowsPerLine;
        const int piece = (row % kRowsPerLine) * (ROW_BYTES / 16) + chunk;
        offset = line * 128 + ((piece ^ (line & 7)) << 4);
    }
    // EXERCISE-END
    return offset;
}

// True when moving `rows` rows down moves every piece by the same number of bytes (rows times the
// row's length): always without the swizzle; with it, when the key of a row (its 128-byte line's
// number mod 8, or the row mod 8) comes round again. Then one offset per lane serves all such rows.
__host__ __device__ constexpr bool mma_shifts_evenly(int layout, int row_bytes, int rows) {
    return layout != 2 || (row_bytes >= 128 ? rows % 8 == 0 : rows * row_bytes % 1024 == 0);
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
    static constexpr int kSteps = BK / kFK;                  // mma steps per slice
    // 16-byte copies: a thread copies piece (tid mod pieces) of rows tid/pieces + r·pass.
    static constexpr int kPiecesA = BK / kVec, kPassA = kThreads / kPiecesA;
    static constexpr int kPiecesB = BN / kVec, kPassB = kThreads / kPiecesB;

    static_assert(BM % WM == 0 && BN % WN == 0, "the warp tile must divide the block tile");
    static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % kFK == 0, "whole fragments per warp tile and slice");
    static_assert(kRowA >= 32 && kRowB >= 32, "rows of at least two 16-byte pieces");
    static_assert((BM * BK / kVec) % kThreads == 0 && (BK * BN / kVec) % kThreads == 0,
                  "each thread copies the same number of 16-byte pieces of each tile");
    static_assert(STAGES >= 1 && STAGES <= 6, "1 to 6 stages");
    static_assert(kThreads % kPiecesA == 0 && kThreads % kPiecesB == 0, "whole rows per copy pass");
};

// ldmatrix at a 32-bit shared address (the shared window, as cp.async takes it too).
__device__ __forceinline__ void mma_ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

__device__ __forceinline__ void mma_ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

// A float's bits rounded to TF32 (10 mantissa bits) to nearest, ties away from zero: half of
// TF32's last place (bit 12) added to the bits; mma.sync then reads the top 19 bits and ignores
// the low 13. That is cvt.rna.tf32.f32's result for every finite float, in one integer add:
// an H100 ran this kernel (4096³, FRAGS = 1) in 1.02 ms with cvt.rna, 0.85 ms with the add and
// 0.73 ms not rounding at all (2026-12-06). A NaN whose mantissa bits above bit 12 are all ones
// would wrap to zero (the lesson's inputs are finite); ±∞ stays ±∞. KIND 3 passes the bits as
// they are: the tensor core truncates, as cuBLAS's wgmma does with floats read from shared memory.
template <int KIND>
__device__ __forceinline__ unsigned mma_tf32(unsigned bits) { return MmaKind<KIND>::kRound ? bits + 0x1000u : bits; }

// d += a·b for one 16×8 tile: a 16×FK, b FK×8, d 16×8 floats (4 per lane).
template <int KIND>
__device__ __forceinline__ void mma_16x8(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    if constexpr (kMmaTf32<KIND>) {
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
// element at a time (the host picks: lessons/13_matmul_mma, kernel_at). FRAGS: 1, a step's
// fragments are loaded and then multiplied; 2, the next step's load while this step multiplies.
template <int KIND, int BM, int BN, int BK, int WM, int WN, int STAGES, int FRAGS, int LAYOUT, int GROUP, bool VEC>
__device__ __forceinline__ void mma_body(const typename MmaKind<KIND>::In* __restrict__ A,
                                         const typename MmaKind<KIND>::In* __restrict__ B, float* __restrict__ C,
                                         int M, int N, int K, unsigned long long* counters) {
    using Tile = MmaTile<KIND, BM, BN, BK, WM, WN, STAGES, LAYOUT>;
    using In = typename Tile::In;
    using Raw = typename MmaKind<KIND>::Raw;
    constexpr int EB = Tile::kBytes, VW = Tile::kVec, FK = Tile::kFK, RA = Tile::kRowA, RB = Tile::kRowB;
    constexpr bool kAsync = VEC && STAGES > 1 && TL_CP_ASYNC;
    static_assert(FRAGS == 1 || FRAGS == 2, "one or two sets of fragment registers");
    TL_COUNTER(counters);
    extern __shared__ __align__(1024) unsigned char mma_smem[];
    const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(mma_smem));

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int warp_row = (warp / Tile::kWarpsN) * WM, warp_col = (warp % Tile::kWarpsN) * WN;
    // The block's tile: in launch order, or GROUP block rows at a time, column by column.
    int bx = blockIdx.x, by = blockIdx.y;
    if constexpr (GROUP > 1) grouped_tile<GROUP>(blockIdx.y * gridDim.x + blockIdx.x, gridDim.y, gridDim.x, by, bx);
    const int block_row = by * BM, block_col = bx * BN;

    // The copies' fixed part, worked out once: this thread's piece and first row of each operand
    // and where they go in a stage; pass r is r·pass rows further on.
    const int a_m = tid / Tile::kPiecesA, a_c = tid % Tile::kPiecesA;
    const int b_k = tid / Tile::kPiecesB, b_c = tid % Tile::kPiecesB;
    const int sa = mma_offset<LAYOUT, RA, false>(a_m, a_c);
    const int sb = Tile::kBytesA + mma_offset<LAYOUT, RB, kMmaTf32<KIND>>(b_k, b_c);
    const size_t pass_a = size_t(Tile::kPassA) * K, pass_b = size_t(Tile::kPassB) * N;
    unsigned rows_a = 0;   // bit r: row a_m + r·pass of A is inside M
#pragma unroll
    for (int r = 0; r < Tile::kCopiesA; ++r) rows_a |= unsigned(block_row + a_m + r * Tile::kPassA < M) << r;
    const bool cols_b = block_col + b_c * VW < N;
    auto copy_slice = [&](int stage, int k0) {
        const unsigned base = sbase + stage * Tile::kStageBytes;
        if constexpr (VEC) {
            const In* ga = A + size_t(block_row + a_m) * K + a_c * VW;
            const In* gb = B + size_t(b_k) * N + block_col + b_c * VW;
            const int left = K - k0;   // columns of A, rows of B still inside K
#pragma unroll
            for (int r = 0; r < Tile::kCopiesA; ++r) {
                const bool inside = (rows_a >> r & 1) && a_c * VW < left;
                const int to = mma_shifts_evenly(LAYOUT, RA, Tile::kPassA)
                                   ? sa + r * Tile::kPassA * (RA + Tile::kPad)
                                   : mma_offset<LAYOUT, RA, false>(a_m + r * Tile::kPassA, a_c);
                tl_copy16_shared<kAsync>(base + to, inside ? ga + k0 + r * pass_a : A, inside);
                TL_GLOAD(inside ? VW : 0);
                TL_SSTORE(VW);
            }
#pragma unroll
            for (int r = 0; r < Tile::kCopiesB; ++r) {
                const int k = b_k + r * Tile::kPassB;
                const bool inside = cols_b && k < left;
                const int to = mma_shifts_evenly(LAYOUT, RB, Tile::kPassB)
                                   ? sb + r * Tile::kPassB * (RB + Tile::kPad)
                                   : Tile::kBytesA + mma_offset<LAYOUT, RB, kMmaTf32<KIND>>(k, b_c);
                tl_copy16_shared<kAsync>(base + to, inside ? gb + size_t(k0) * N + r * pass_b : B, inside);
                TL_GLOAD(inside ? VW : 0);
                TL_SSTORE(VW);
            }
        } else {
            // One element at a time: element e = tid + r·threads of a tile `cols` wide whose corner
            // is (row0, col0) of an ld-wide matrix; zero outside rows_in × cols_in.
            auto copy_elements = [&](unsigned char* tile, const Raw* src, int count, int cols, int row0, int col0,
                                     int rows_in, int cols_in, int ld, auto at) {
#pragma unroll 1
                for (int r = 0; r < count; ++r) {
                    const int e = tid + r * Tile::kThreads, i = e / cols, j = e % cols;
                    const bool inside = row0 + i < rows_in && col0 + j < cols_in;
                    *reinterpret_cast<Raw*>(tile + at(i, j)) = inside ? src[size_t(row0 + i) * ld + col0 + j] : Raw(0);
                    TL_GLOAD(inside ? 1 : 0);
                    TL_SSTORE(1);
                }
            };
            unsigned char* as = mma_smem + stage * Tile::kStageBytes;
            copy_elements(as, reinterpret_cast<const Raw*>(A), Tile::kScalarA, BK, block_row, k0, M, K, K,
                          [](int m, int k) { return mma_offset<LAYOUT, RA, false>(m, k / VW) + k % VW * EB; });
            copy_elements(as + Tile::kBytesA, reinterpret_cast<const Raw*>(B), Tile::kScalarB, BN, k0, block_col, K, N, N,
                          [](int k, int n) { return mma_offset<LAYOUT, RB, kMmaTf32<KIND>>(k, n / VW) + n % VW * EB; });
        }
    };

    float acc[Tile::kTilesM][Tile::kTilesN][4];
#pragma unroll
    for (int i = 0; i < Tile::kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < Tile::kTilesN; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    // Where this lane's ldmatrix rows are inside a stage. A at step q: rows warp_row + 16i +
    // lane mod 16, piece 2q + lane/16 (lanes 0-15 the first 16-byte column of the 16×FK fragment,
    // 16-31 the second). B at step q: rows FK·q + lane mod 16, pieces of columns warp_col + 16p
    // (two 8-wide tiles per ldmatrix.x4.trans). Worked out once per lane where the 16 rows between
    // fragments shift every piece evenly, else each time.
    constexpr bool kEvenA = mma_shifts_evenly(LAYOUT, RA, 16), kEvenB = mma_shifts_evenly(LAYOUT, RB, 16);
    int a_off[Tile::kSteps], b_off[Tile::kTilesN / 2];
#pragma unroll
    for (int q = 0; q < Tile::kSteps; ++q)
        a_off[q] = mma_offset<LAYOUT, RA, false>(warp_row + (lane & 15), 2 * q + (lane >> 4));
#pragma unroll
    for (int p = 0; p < Tile::kTilesN / 2; ++p)
        b_off[p] = Tile::kBytesA + mma_offset<LAYOUT, RB, false>(lane & 15, (warp_col + 16 * p) / VW + (lane >> 4));
    auto a_at = [&](int i, int q) {
        return kEvenA ? a_off[q] + i * 16 * (RA + Tile::kPad)
                      : mma_offset<LAYOUT, RA, false>(warp_row + 16 * i + (lane & 15), 2 * q + (lane >> 4));
    };
    auto b_at = [&](int p, int q) {
        return kEvenB ? b_off[p] + q * 16 * (RB + Tile::kPad)
                      : Tile::kBytesA + mma_offset<LAYOUT, RB, false>(16 * q + (lane & 15),
                                                                       (warp_col + 16 * p) / VW + (lane >> 4));
    };

    unsigned a[FRAGS][Tile::kTilesM][4], b[FRAGS][Tile::kTilesN][2];
    // Step q's fragments of the slice in `stage` into register set f: the warp's column of A
    // tiles (one ldmatrix.x4 each), its row of B tiles (one ldmatrix.x4.trans per two; TF32:
    // 4-byte loads of rows t and t+4, column g, see above).
    auto load_fragments = [&](int f, int stage, int q) {
        const unsigned base = sbase + stage * Tile::kStageBytes;
        // EXERCISE-BEGIN: load step q's A and B fragments into a[f] and b[f] (ldmatrix at a_at, b_at)
#pragma unroll
        for (int i = 0; i < Tile::kTilesM; ++i) {
            mma_ldmatrix_x4(a[f][i], base + a_at(i, q));
            TL_SLOAD(VW);
            if constexpr (kMmaTf32<KIND>)
#pragma unroll
                for (int v = 0; v < 4; ++v) a[f][i][v] = mma_tf32<KIND>(a[f][i][v]);
        }
        if constexpr (kMmaTf32<KIND>) {
            const unsigned char* bs = mma_smem + stage * Tile::kStageBytes + Tile::kBytesA;
            const int g = lane >> 2, t = lane & 3;
#pragma unroll
            for (int j = 0; j < Tile::kTilesN; ++j)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int k = FK * q + t + 4 * h, n = warp_col + j * 8 + g;
                    b[f][j][h] = mma_tf32<KIND>(
                        *reinterpret_cast<const unsigned*>(bs + mma_offset<LAYOUT, RB, true>(k, n / VW) + n % VW * 4));
                    TL_SLOAD(1);
                }
        } else {
#pragma unroll
            for (int p = 0; p < Tile::kTilesN / 2; ++p) {
                unsigned r[4];
                mma_ldmatrix_x4_trans(r, base + b_at(p, q));
                TL_SLOAD(VW);
                b[f][2 * p][0] = r[0], b[f][2 * p][1] = r[1], b[f][2 * p + 1][0] = r[2], b[f][2 * p + 1][1] = r[3];
            }
        }
        // EXERCISE-END
    };
    // Every pair of fragments in set f through the tensor cores.
    auto multiply = [&](int f) {
        // EXERCISE-BEGIN: acc[i][j] += a[f][i]·b[f][j] for every i, j with mma_16x8
#pragma unroll
        for (int i = 0; i < Tile::kTilesM; ++i)
#pragma unroll
            for (int j = 0; j < Tile::kTilesN; ++j) mma_16x8<KIND>(acc[i][j], a[f][i], b[f][j]);
        // EXERCISE-END
    };

    constexpr int S = Tile::kSteps;
    if constexpr (FRAGS == 2 && kAsync && S % 2 == 0) {
        // The ring with the fragments one step ahead, across slices too: the last step of slice t
        // waits for slice t+1 and loads its first fragments before it multiplies. The barrier there
        // also ends every read of the stage that slice t+STAGES-1 is copied into next.
        const int steps = (K + BK - 1) / BK;
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < steps) copy_slice(s, s * BK);
            tl_commit<kAsync>();
        }
        tl_wait<STAGES - 2, kAsync>();
        __syncthreads();
        load_fragments(0, 0, 0);
        int stage = 0, fill = STAGES - 1;
        for (int t = 0; t < steps; ++t) {
            const int next_stage = stage + 1 == STAGES ? 0 : stage + 1;
#pragma unroll
            for (int q = 0; q < S; ++q) {
                if (q == 0) {
                    if (t + STAGES - 1 < steps) copy_slice(fill, (t + STAGES - 1) * BK);
                    tl_commit<kAsync>();
                    fill = fill + 1 == STAGES ? 0 : fill + 1;
                }
                if (q + 1 < S) {
                    load_fragments((q + 1) & 1, stage, q + 1);
                } else {
                    tl_wait<STAGES - 2, kAsync>();
                    __syncthreads();
                    if (t + 1 < steps) load_fragments(0, next_stage, 0);
                }
                multiply(q & 1);
            }
            stage = next_stage;
        }
        tl_wait<0, kAsync>();
    } else {
        // The copy ring (matmul/async_copy.cuh): STAGES-1 slices in flight while one is computed;
        // with FRAGS = 2 the fragments run one step ahead inside the slice.
        auto compute_slice = [&](int stage) {
            if constexpr (FRAGS == 2) load_fragments(0, stage, 0);
#pragma unroll
            for (int q = 0; q < S; ++q) {
                if constexpr (FRAGS == 1) load_fragments(0, stage, q);
                else if (q + 1 < S) load_fragments((q + 1) & 1, stage, q + 1);
                multiply(FRAGS == 1 ? 0 : q & 1);
            }
        };
        tl_copy_ring<STAGES, kAsync>(K, BK, copy_slice, compute_slice);
    }

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

template <int KIND, int BM, int BN, int BK, int WM, int WN, int STAGES, int FRAGS, int LAYOUT, int GROUP, bool VEC>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN))
    mma_matmul(const typename MmaKind<KIND>::In* __restrict__ A, const typename MmaKind<KIND>::In* __restrict__ B,
               float* __restrict__ C, int M, int N, int K, unsigned long long* counters) {
    mma_body<KIND, BM, BN, BK, WM, WN, STAGES, FRAGS, LAYOUT, GROUP, VEC>(A, B, C, M, N, K, counters);
}
