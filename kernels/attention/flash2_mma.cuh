// Lesson 16, FlashAttention-2 on tensor cores: the online softmax of lesson 15, with both products
// on mma.sync. A block owns BR query rows of one head and WARPS warps; warp w owns rows
// w·BR/WARPS .. +BR/WARPS (work split along the queries: no warp ever needs another's row state).
//  - Q's fragments are loaded once (ldmatrix from shared memory) and held in registers.
//  - K and V stream through shared memory BC rows at a time in 16-byte cp.async pieces, each row's
//    pieces XOR-swizzled (matmul/mma.cuh's mma_offset) so every ldmatrix phase is conflict-free.
//  - S = Q·K^T: a K row is a column of K^T, contiguous in shared memory, exactly what the B operand
//    of mma.sync.row.col wants: plain ldmatrix. Lane 4g+t holds S at rows g, g+8 of each 16-row
//    tile, columns 2t, 2t+1 of each 8-key tile.
//  - The softmax works on those registers: a row's maximum over its four lanes (two shuffles),
//    m' = max(m, tile max), α = 2^((m − m')·c), p = 2^(s·c − m'·c) with c = log2(e)/√d, o and the
//    lane's partial sum l rescaled by α. l is added across the four lanes once, at the end.
//  - P·V: the accumulator layout of two adjacent 8-key tiles is the A-fragment layout of one
//    16-deep step, so P goes from S's registers to the tensor cores without shared memory,
//    rounded to the input type (the only rounding the output sees, bounded in
//    families/attention/shape.cpp). V is row-major K×N for this product: ldmatrix.trans.
// STAGES 1: copy K and V, wait, compute. STAGES 2 (FlashAttention-2's order): V_t is copied while
// S = Q·K_t^T and the softmax run, K_{t+1} while O += P·V_t runs.
// Keys past N score −∞; rows past N compute on zero rows of Q and store nothing.
// CAUSAL 1: row i sees keys 0..i only. A block stops after the key tile holding its last row's
// key (the tiles past the diagonal are skipped whole), masks keys past each row in the tiles that
// cross the diagonal, and takes the row blocks from the last to the first, so the longest blocks
// start first and the short ones fill the tail. Key 0 is in the first tile: every row's maximum
// is finite from the first tile on.
// flash2_mma_attention lets ptxas choose the registers; flash2_mma_attention_minb<..., MINB, ...> caps them
// so that MINB blocks fit on an SM (__launch_bounds__' second argument), spilling if they must.
// KIND 1: BF16, 2: FP16 inputs; FP32 sums and output. Preconditions (the variant checks them):
// D = d, a power of two from 32 to 256 (the swizzle permutes whole 128-byte lines); BR a multiple of 16·WARPS; BC a multiple of 16; BR·D/8 and BC·D/8
// multiples of 32·WARPS (whole 16-byte pieces per thread). Dynamic shared memory: (BR + 2·BC)·D·2.
#pragma once
#include "common.cuh"
#include "matmul/mma.cuh"

// Two floats as one 32-bit register of two 16-bit values of kind KIND, `lo` in the low half (the
// order a fragment register holds consecutive columns in), rounded to nearest.
template <int KIND>
__device__ __forceinline__ unsigned flash2_pack(float lo, float hi) {
    if constexpr (KIND == 1) {
        const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<const unsigned*>(&v);
    } else {
        const __half2 v = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<const unsigned*>(&v);
    }
}

// 2^x in one instruction (ex2.approx: relative error below 2^-22, 2^-∞ = 0).
__device__ __forceinline__ float flash2_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int D, int BR, int BC, int WARPS, int STAGES, int KIND, int CAUSAL>
__device__ __forceinline__ void flash2_body(const typename MmaKind<KIND>::In* __restrict__ Q,
                                            const typename MmaKind<KIND>::In* __restrict__ K,
                                            const typename MmaKind<KIND>::In* __restrict__ V, float* __restrict__ O,
                                            int N, int d, int BH, unsigned long long* counters) {
    static_assert(KIND == 1 || KIND == 2, "BF16 or FP16 inputs");
    static_assert(D >= 32 && D <= 256 && (D & (D - 1)) == 0, "d a power of two from 32 to 256");
    static_assert(BC % 16 == 0 && BR % (16 * WARPS) == 0, "whole fragments");
    static_assert(STAGES == 1 || STAGES == 2, "one or two stages");
    using In = typename MmaKind<KIND>::In;
    constexpr int kThreads = 32 * WARPS;
    constexpr int kRowBytes = 2 * D, kPieces = D / 8;     // a row of 16-bit values, its 16-byte pieces
    constexpr int kTilesM = BR / WARPS / 16;              // 16-row tiles per warp
    constexpr int kStepsQK = D / 16, kTilesS = BC / 8;    // S = Q·K^T: depth steps, 8-key tiles
    constexpr int kStepsPV = BC / 16, kTilesO = D / 8;    // O += P·V: depth steps, 8-column tiles
    constexpr int kCopiesQ = BR * kPieces / kThreads, kCopiesKV = BC * kPieces / kThreads;
    static_assert(kCopiesQ * kThreads == BR * kPieces && kCopiesKV * kThreads == BC * kPieces,
                  "every thread copies the same number of pieces");
    constexpr bool kAsync = TL_CP_ASYNC != 0;
    TL_COUNTER(counters);
    (void)d;
    (void)BH;
    extern __shared__ __align__(1024) unsigned char flash2_smem[];
    const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(flash2_smem));
    const unsigned q_tile = sbase, k_tile = sbase + BR * kRowBytes, v_tile = k_tile + BC * kRowBytes;

    const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32;
    const int g = lane >> 2, t = lane & 3;
    const int block_row = CAUSAL ? int(gridDim.x) - 1 - int(blockIdx.x) : int(blockIdx.x);
    const int row0 = block_row * BR, warp_row = warp * (BR / WARPS);
    const size_t head = size_t(blockIdx.y) * size_t(N) * D;

    // `rows` rows of a head's matrix from row `first` on into a swizzled tile; zeros past N. Thread
    // tid copies piece tid mod (d/8) of rows tid/(d/8) + r·pass (pass = threads/(d/8) rows, a
    // whole swizzle period where one offset a thread serves every pass; else each copy works it out).
    // `copies` is one of the two constants above (the lambda is inlined: the loop unrolls).
    constexpr int kPass = kThreads / kPieces;
    constexpr bool kEvenPass = kThreads % kPieces == 0 && mma_shifts_evenly(2, kRowBytes, kPass);
    const int copy_row = tid / kPieces, copy_piece = tid % kPieces;
    const int copy_at = mma_offset<2, kRowBytes, false>(copy_row, copy_piece);
    auto copy_rows = [&](unsigned tile, const In* src, int first, int copies) {
        const In* from = src + head + size_t(first + copy_row) * D + 8 * copy_piece;
#pragma unroll
        for (int r = 0; r < copies; ++r) {
            const int e = tid + r * kThreads, row = kEvenPass ? copy_row + r * kPass : e / kPieces;
            const int at = kEvenPass ? copy_at + r * kPass * kRowBytes : mma_offset<2, kRowBytes, false>(row, e % kPieces);
            const bool inside = first + row < N;
            tl_copy16_shared<kAsync>(tile + at, inside ? (kEvenPass ? from + size_t(r) * kPass * D
                                                                    : src + head + size_t(first + row) * D + 8 * (e % kPieces))
                                                       : src,
                                     inside);
            TL_GLOAD(inside ? 8 : 0);
            TL_SSTORE(8);
        }
    };

    // Where this lane's ldmatrix rows are. Rows of 128 bytes or a power-of-two multiple of them
    // swizzle by XORing the byte offset's bits 4-6 with 16·(row mod 8); a row's pieces 2q and
    // 2q+1 sit at (16·(c XOR key)) XOR 32q, so one offset a lane serves every step q (one XOR an
    // ldmatrix), and 16 rows further on is 16 rows' bytes further (row mod 8 comes round again).
    // K: keys (lane mod 8) + 8·(lane/16), piece 2q + (lane/8 mod 2). V: keys lane mod 16, piece
    // 2p + lane/16. Other row lengths (d = 32) work the swizzle out each time.
    constexpr bool kXorSteps = kRowBytes >= 128 && (kRowBytes & (kRowBytes - 1)) == 0;
    const int k_row = (lane & 7) + ((lane >> 4) << 3), k_piece = (lane >> 3) & 1;
    const int v_row = lane & 15, v_piece = lane >> 4;
    const int k_lane = mma_offset<2, kRowBytes, false>(k_row, k_piece);
    const int v_lane = mma_offset<2, kRowBytes, false>(v_row, v_piece);
    auto k_at = [&](int p, int q) {   // two 8-key tiles 16p .. 16p+15, depth step q
        return kXorSteps ? 16 * p * kRowBytes + (k_lane ^ (32 * q))
                         : mma_offset<2, kRowBytes, false>(16 * p + k_row, 2 * q + k_piece);
    };
    auto v_at = [&](int k, int p) {   // keys 16k .. 16k+15, two 8-column tiles 16p .. 16p+15
        return kXorSteps ? 16 * k * kRowBytes + (v_lane ^ (32 * p))
                         : mma_offset<2, kRowBytes, false>(16 * k + v_row, 2 * p + v_piece);
    };

    const float scale = 1.4426950408889634f * rsqrtf(float(D));   // log2(e)/√d
    unsigned qf[kTilesM][kStepsQK][4];                            // Q's A fragments
    float o[kTilesM][kTilesO][4];                                 // O's accumulators
    float m[kTilesM][2], l[kTilesM][2];                           // rows g and g+8 of each tile
#pragma unroll
    for (int i = 0; i < kTilesM; ++i) {
#pragma unroll
        for (int j = 0; j < kTilesO; ++j) o[i][j][0] = o[i][j][1] = o[i][j][2] = o[i][j][3] = 0.f;
        m[i][0] = m[i][1] = __int_as_float(0xff800000);
        l[i][0] = l[i][1] = 0.f;
    }

    const int keys = CAUSAL ? min(N, row0 + BR) : N;   // the block's last key + 1
    const int tiles = (keys + BC - 1) / BC;
    copy_rows(q_tile, Q, row0, kCopiesQ);
    copy_rows(k_tile, K, 0, kCopiesKV);
    if constexpr (STAGES == 1) copy_rows(v_tile, V, 0, kCopiesKV);
    tl_commit<kAsync>();
    for (int tile = 0; tile < tiles; ++tile) {
        const int n0 = tile * BC;
        if constexpr (STAGES == 1) {
            if (tile > 0) {
                __syncthreads();   // every warp is done with the previous K and V
                copy_rows(k_tile, K, n0, kCopiesKV);
                copy_rows(v_tile, V, n0, kCopiesKV);
                tl_commit<kAsync>();
            }
            tl_wait<0, kAsync>();
            __syncthreads();
        } else {
            tl_wait<0, kAsync>();
            __syncthreads();   // K_t is in; every warp is done with V_{t−1}
            copy_rows(v_tile, V, n0, kCopiesKV);
            tl_commit<kAsync>();
        }
        if (tile == 0) {
#pragma unroll
            for (int i = 0; i < kTilesM; ++i)
#pragma unroll
                for (int q = 0; q < kStepsQK; ++q) {
                    mma_ldmatrix_x4(qf[i][q], q_tile + mma_offset<2, kRowBytes, false>(warp_row + 16 * i + (lane & 15),
                                                                                        2 * q + (lane >> 4)));
                    TL_SLOAD(8);
                }
        }

        // S = Q·K_t^T. One ldmatrix.x4 gives two 8-key tiles' B fragments at depth step q: lanes
        // 0-7 and 16-23 name keys 16p + 0..7 and + 8..15 at piece 2q, lanes 8-15 and 24-31 the
        // same keys at piece 2q+1.
        float s[kTilesM][kTilesS][4];
#pragma unroll
        for (int i = 0; i < kTilesM; ++i)
#pragma unroll
            for (int j = 0; j < kTilesS; ++j) s[i][j][0] = s[i][j][1] = s[i][j][2] = s[i][j][3] = 0.f;
        // EXERCISE-BEGIN: S = Q·K_t^T with ldmatrix (K rows as B's columns) and mma_16x8
#pragma unroll
        for (int q = 0; q < kStepsQK; ++q)
#pragma unroll
            for (int p = 0; p < kTilesS / 2; ++p) {
                unsigned b[4];
                mma_ldmatrix_x4(b, k_tile + k_at(p, q));
                TL_SLOAD(8);
                const unsigned b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
#pragma unroll
                for (int i = 0; i < kTilesM; ++i) {
                    mma_16x8<KIND>(s[i][2 * p], qf[i][q], b0);
                    mma_16x8<KIND>(s[i][2 * p + 1], qf[i][q], b1);
                }
            }
        // EXERCISE-END
        if (n0 + BC > N) {   // the last tile reaches past N: those keys weigh nothing
#pragma unroll
            for (int j = 0; j < kTilesS; ++j)
#pragma unroll
                for (int v = 0; v < 4; ++v)
                    if (n0 + 8 * j + 2 * t + (v & 1) >= N)
#pragma unroll
                        for (int i = 0; i < kTilesM; ++i) s[i][j][v] = __int_as_float(0xff800000);
        }
        if (CAUSAL && n0 + BC - 1 > row0 + warp_row) {   // the tile crosses this warp's diagonal
#pragma unroll
            for (int i = 0; i < kTilesM; ++i)
#pragma unroll
                for (int j = 0; j < kTilesS; ++j)
#pragma unroll
                    for (int v = 0; v < 4; ++v)
                        if (n0 + 8 * j + 2 * t + (v & 1) > row0 + warp_row + 16 * i + g + 8 * (v >> 1))
                            s[i][j][v] = __int_as_float(0xff800000);
        }

        // The online softmax on S's registers; P replaces S.
        // EXERCISE-BEGIN: the row maxima, α, p = 2^(s·c − m'·c) in s, l and o rescaled
#pragma unroll
        for (int i = 0; i < kTilesM; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float mx = m[i][h];
#pragma unroll
                for (int j = 0; j < kTilesS; ++j) mx = fmaxf(mx, fmaxf(s[i][j][2 * h], s[i][j][2 * h + 1]));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                const float alpha = flash2_exp2((m[i][h] - mx) * scale), shift = mx * scale;
                float sum = 0.f;
#pragma unroll
                for (int j = 0; j < kTilesS; ++j)
#pragma unroll
                    for (int v = 2 * h; v < 2 * h + 2; ++v) {
                        s[i][j][v] = flash2_exp2(fmaf(s[i][j][v], scale, -shift));
                        sum += s[i][j][v];
                    }
                l[i][h] = fmaf(l[i][h], alpha, sum);
#pragma unroll
                for (int j = 0; j < kTilesO; ++j) o[i][j][2 * h] *= alpha, o[i][j][2 * h + 1] *= alpha;
                m[i][h] = mx;
            }
        // EXERCISE-END

        if constexpr (STAGES == 2) {
            tl_wait<0, kAsync>();
            __syncthreads();   // V_t is in; every warp is done with K_t
            if (tile + 1 < tiles) copy_rows(k_tile, K, n0 + BC, kCopiesKV);
            tl_commit<kAsync>();
        }

        // O += P·V_t: 8-key tiles 2k and 2k+1 of P are the A fragment of depth step k; V's B
        // fragments come two 8-column tiles at a time through ldmatrix.trans.
        // EXERCISE-BEGIN: P's A fragments from s, then O += P·V_t with ldmatrix.trans
#pragma unroll
        for (int k = 0; k < kStepsPV; ++k) {
            unsigned pa[kTilesM][4];
#pragma unroll
            for (int i = 0; i < kTilesM; ++i) {
                pa[i][0] = flash2_pack<KIND>(s[i][2 * k][0], s[i][2 * k][1]);
                pa[i][1] = flash2_pack<KIND>(s[i][2 * k][2], s[i][2 * k][3]);
                pa[i][2] = flash2_pack<KIND>(s[i][2 * k + 1][0], s[i][2 * k + 1][1]);
                pa[i][3] = flash2_pack<KIND>(s[i][2 * k + 1][2], s[i][2 * k + 1][3]);
            }
#pragma unroll
            for (int p = 0; p < kTilesO / 2; ++p) {
                unsigned b[4];
                mma_ldmatrix_x4_trans(b, v_tile + v_at(k, p));
                TL_SLOAD(8);
                const unsigned b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
#pragma unroll
                for (int i = 0; i < kTilesM; ++i) {
                    mma_16x8<KIND>(o[i][2 * p], pa[i], b0);
                    mma_16x8<KIND>(o[i][2 * p + 1], pa[i], b1);
                }
            }
        }
        // EXERCISE-END
    }

    // O = o / l, l added across the row's four lanes first.
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float sum = l[i][h];
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            const int row = row0 + warp_row + 16 * i + g + 8 * h;
            if (row >= N) continue;
            const float inv = 1.f / sum;
            float* out = O + head + size_t(row) * D + 2 * t;
#pragma unroll
            for (int j = 0; j < kTilesO; ++j) {
                *reinterpret_cast<float2*>(out + 8 * j) = make_float2(o[i][j][2 * h] * inv, o[i][j][2 * h + 1] * inv);
                TL_GSTORE(2);
            }
        }
}

// ptxas picks the registers a thread gets (up to 255).
template <int D, int BR, int BC, int WARPS, int STAGES, int KIND, int CAUSAL = 0>
__global__ void __launch_bounds__(32 * WARPS)
flash2_mma_attention(const typename MmaKind<KIND>::In* __restrict__ Q, const typename MmaKind<KIND>::In* __restrict__ K,
                 const typename MmaKind<KIND>::In* __restrict__ V, float* __restrict__ O, int N, int d, int BH,
                 unsigned long long* counters) {
    flash2_body<D, BR, BC, WARPS, STAGES, KIND, CAUSAL>(Q, K, V, O, N, d, BH, counters);
}

// At most 65536 / (MINB·32·WARPS) registers a thread, so that MINB blocks fit on an SM.
template <int D, int BR, int BC, int WARPS, int STAGES, int MINB, int KIND, int CAUSAL = 0>
__global__ void __launch_bounds__(32 * WARPS, MINB)
flash2_mma_attention_minb(const typename MmaKind<KIND>::In* __restrict__ Q, const typename MmaKind<KIND>::In* __restrict__ K,
                      const typename MmaKind<KIND>::In* __restrict__ V, float* __restrict__ O, int N, int d, int BH,
                      unsigned long long* counters) {
    flash2_body<D, BR, BC, WARPS, STAGES, KIND, CAUSAL>(Q, K, V, O, N, d, BH, counters);
}
