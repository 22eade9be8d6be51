// Tensor cores through WMMA (nvcuda::wmma). What changed from the warp-tiled kernel: a warp no
// longer computes its WM×WN tile with FMAs lane by lane; it cuts it into 16×16 fragments of C and
// asks the tensor cores for each one: C_frag += A_frag (16×FK) · B_frag (FK×16), one mma_sync per
// fragment per FK-deep slice (FK = 16 for BF16/FP16, 8 for TF32). A fragment is opaque: the warp
// loads it from shared memory together (load_matrix_sync), and which lane holds which element is
// the library's business. The block stages BM×BK of A and BK×BN of B in shared memory, in the
// input type, STAGES slices in flight (cp.async on sm_80+, 16 bytes at a time); rows are padded by
// 16 bytes so fragment loads stay aligned and spread over the banks. Accumulation is FP32.
//   KIND 0: TF32, operands are floats in memory, rounded to TF32 (to nearest) after the load;
//   KIND 1: BF16 and KIND 2: FP16 operands in memory, converted by the tensor cores exactly.
// Any M, N, K: out-of-range operands are zero-filled in shared memory (never read from global);
// C fragments wholly inside C (and N % 8 == 0, so rows stay 32-byte aligned) are stored straight
// to global memory, the others through a per-warp 16×16 scratch tile, element by element.
#pragma once
#include "common.cuh"
#include "matmul/async_copy.cuh"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>


// The three operand kinds: what A and B are in memory, what the fragments are declared as, the
// fragment's depth FK, and the raw bits a copy moves.
// TF32 and BF16 fragments exist from sm_80 on (mma.h declares them only there); the host never
// asks for them on older targets (lessons/12_matmul_wmma: invalid_reason).
template <int KIND> struct WmmaKind;
template <> struct WmmaKind<2> {
    using In = __half;
    using Frag = __half;
    using Raw = unsigned short;
    static constexpr int kFK = 16;
};
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
template <> struct WmmaKind<0> {
    using In = float;
    using Frag = nvcuda::wmma::precision::tf32;
    using Raw = unsigned;
    static constexpr int kFK = 8;
};
template <> struct WmmaKind<1> {
    using In = __nv_bfloat16;
    using Frag = __nv_bfloat16;
    using Raw = unsigned short;
    static constexpr int kFK = 16;
};
#endif

// A float rounded to TF32 (10 mantissa bits, to nearest, as wmma::__float_to_tf32 does), still
// stored as a float.
__device__ __forceinline__ float wmma_round_tf32(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned t;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
    return __uint_as_float(t);
#else
    return x;
#endif
}

template <int KIND, int BM, int BN, int BK, int WM, int WN, int STAGES>
struct WmmaTile {
    using Kind = WmmaKind<KIND>;
    using In = typename Kind::In;
    using Raw = typename Kind::Raw;
    static constexpr int kFM = 16, kFN = 16, kFK = Kind::kFK;   // one fragment product
    static constexpr int kVec = 16 / int(sizeof(In));            // elements in one 16-byte copy
    static constexpr int kLdA = BK + kVec;                       // As[m][k], rows padded by 16 bytes
    static constexpr int kLdB = BN + kVec;                       // Bs[k][n], rows padded by 16 bytes
    static constexpr int kSizeA = BM * kLdA;
    static constexpr int kStage = kSizeA + BK * kLdB;            // elements of one stage
    static constexpr int kWarpsN = BN / WN;
    static constexpr int kThreads = 32 * (BM / WM) * kWarpsN;
    static constexpr int kFragsM = WM / kFM, kFragsN = WN / kFN;
    static constexpr int kCopiesA = BM * BK / kVec / kThreads, kCopiesB = BK * BN / kVec / kThreads;
    static constexpr int kScalarA = BM * BK / kThreads, kScalarB = BK * BN / kThreads;
    static constexpr int kScratchBytes = kFM * kFN * 4;          // one warp's edge tile of C

    static_assert(BM % WM == 0 && BN % WN == 0, "the warp tile must divide the block tile");
    static_assert(WM % kFM == 0 && WN % kFN == 0 && BK % kFK == 0, "whole fragments per warp tile and slice");
    static_assert((BM * BK / kVec) % kThreads == 0 && (BK * BN / kVec) % kThreads == 0,
                  "each thread copies the same number of 16-byte pieces of each tile");
    static_assert(STAGES >= 1 && STAGES <= 4, "1 to 4 stages");
};

// VEC (K % kVec == 0 and N % kVec == 0: rows start on 16-byte boundaries): 16-byte copies, each
// wholly inside or outside; else one element at a time.
template <int KIND, int BM, int BN, int BK, int WM, int WN, int STAGES, bool VEC>
__device__ __forceinline__ void wmma_body(const typename WmmaKind<KIND>::In* __restrict__ A,
                                          const typename WmmaKind<KIND>::In* __restrict__ B,
                                          float* __restrict__ C, int M, int N, int K,
                                          unsigned long long* counters) {
    namespace wmma = nvcuda::wmma;
    using Tile = WmmaTile<KIND, BM, BN, BK, WM, WN, STAGES>;
    using In = typename Tile::In;
    using Raw = typename Tile::Raw;
    using FragT = typename Tile::Kind::Frag;
    constexpr int FM = Tile::kFM, FN = Tile::kFN, FK = Tile::kFK, VW = Tile::kVec;
    constexpr bool kAsync = VEC && STAGES > 1 && TL_CP_ASYNC;
    TL_COUNTER(counters);
    extern __shared__ __align__(128) unsigned char wmma_smem[];   // STAGES × (As, Bs), then scratch
    In* const smem = reinterpret_cast<In*>(wmma_smem);

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int warp_row = (warp / Tile::kWarpsN) * WM, warp_col = (warp % Tile::kWarpsN) * WN;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    // Slice k0 of A (BM×BK) and of B (BK×BN) -> stage `stage`. Every thread issues the same
    // copies every slice; out-of-range ones fill zeros, so the fragments need no checks.
    auto copy_slice = [&](int stage, int k0) {
        In* as = smem + stage * Tile::kStage;
        In* bs = as + Tile::kSizeA;
        if constexpr (VEC) {
#pragma unroll
            for (int r = 0; r < Tile::kCopiesA; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int m = e / (BK / VW), k = (e % (BK / VW)) * VW;
                const int row = block_row + m, col = k0 + k;
                const bool inside = row < M && col < K;
                tl_copy16<kAsync>(as + m * Tile::kLdA + k, inside ? A + size_t(row) * K + col : A, inside);
                TL_GLOAD(inside ? VW : 0);
                TL_SSTORE(VW);
            }
#pragma unroll
            for (int r = 0; r < Tile::kCopiesB; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int k = e / (BN / VW), n = (e % (BN / VW)) * VW;
                const int row = k0 + k, col = block_col + n;
                const bool inside = row < K && col < N;
                tl_copy16<kAsync>(bs + k * Tile::kLdB + n, inside ? B + size_t(row) * N + col : B, inside);
                TL_GLOAD(inside ? VW : 0);
                TL_SSTORE(VW);
            }
        } else {
            const Raw* a = reinterpret_cast<const Raw*>(A);
            const Raw* b = reinterpret_cast<const Raw*>(B);
            // Not unrolled: unrolled, the element-wise addresses took every register (255 and
            // spills at the defaults, sm_90); rolled, the odd sizes' kernel fits in far fewer.
#pragma unroll 1
            for (int r = 0; r < Tile::kScalarA; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int m = e / BK, k = e % BK;
                const int row = block_row + m, col = k0 + k;
                const bool inside = row < M && col < K;
                reinterpret_cast<Raw*>(as)[m * Tile::kLdA + k] = inside ? a[size_t(row) * K + col] : Raw(0);
                TL_GLOAD(inside ? 1 : 0);
                TL_SSTORE(1);
            }
#pragma unroll 1
            for (int r = 0; r < Tile::kScalarB; ++r) {
                const int e = tid + r * Tile::kThreads;
                const int k = e / BN, n = e % BN;
                const int row = k0 + k, col = block_col + n;
                const bool inside = row < K && col < N;
                reinterpret_cast<Raw*>(bs)[k * Tile::kLdB + n] = inside ? b[size_t(row) * N + col] : Raw(0);
                TL_GLOAD(inside ? 1 : 0);
                TL_SSTORE(1);
            }
        }
    };

    wmma::fragment<wmma::accumulator, FM, FN, FK, float> acc[Tile::kFragsM][Tile::kFragsN];
#pragma unroll
    for (int i = 0; i < Tile::kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < Tile::kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    // One slice: for each FK-deep step, the warp loads its column of A fragments and its row of
    // B fragments and multiplies every pair into its accumulator fragment.
    auto compute_slice = [&](int stage) {
        const In* as = smem + stage * Tile::kStage;
        const In* bs = as + Tile::kSizeA;
#pragma unroll
        for (int kk = 0; kk < BK; kk += FK) {
            wmma::fragment<wmma::matrix_a, FM, FN, FK, FragT, wmma::row_major> a[Tile::kFragsM];
            wmma::fragment<wmma::matrix_b, FM, FN, FK, FragT, wmma::row_major> b[Tile::kFragsN];
#pragma unroll
            for (int i = 0; i < Tile::kFragsM; ++i) {
                wmma::load_matrix_sync(a[i], as + (warp_row + i * FM) * Tile::kLdA + kk, Tile::kLdA);
                TL_SLOAD(FM * FK / 32);
                if constexpr (KIND == 0)
#pragma unroll
                    for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma_round_tf32(a[i].x[t]);
            }
#pragma unroll
            for (int j = 0; j < Tile::kFragsN; ++j) {
                wmma::load_matrix_sync(b[j], bs + kk * Tile::kLdB + warp_col + j * FN, Tile::kLdB);
                TL_SLOAD(FK * FN / 32);
                if constexpr (KIND == 0)
#pragma unroll
                    for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma_round_tf32(b[j].x[t]);
            }
            // EXERCISE-BEGIN: acc[i][j] += a[i] · b[j] for every fragment pair of the warp tile
#pragma unroll
            for (int i = 0; i < Tile::kFragsM; ++i)
#pragma unroll
                for (int j = 0; j < Tile::kFragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
            // EXERCISE-END
        }
    };

    // The copy ring (matmul/async_copy.cuh): STAGES-1 slices in flight while one is computed.
    tl_copy_ring<STAGES, kAsync>(K, BK, copy_slice, compute_slice);

    // C: whole fragments straight to global memory; edge fragments through the warp's scratch
    // tile (after the stages), element by element where inside C. The scratch's shared traffic is
    // the epilogue's, not the tiling's, and is not counted.
    float* scratch = reinterpret_cast<float*>(wmma_smem + size_t(STAGES) * Tile::kStage * sizeof(In)) + warp * FM * FN;
#pragma unroll
    for (int i = 0; i < Tile::kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < Tile::kFragsN; ++j) {
            const int row0 = block_row + warp_row + i * FM, col0 = block_col + warp_col + j * FN;
            if (row0 + FM <= M && col0 + FN <= N && N % 8 == 0) {
                // EXERCISE-BEGIN: store the whole fragment acc[i][j] to C at (row0, col0), rows N apart, and count its 256 floats as 8 per lane
                wmma::store_matrix_sync(C + size_t(row0) * N + col0, acc[i][j], N, wmma::mem_row_major);
                TL_GSTORE(FM * FN / 32);
                // EXERCISE-END
            } else if (row0 < M && col0 < N) {
                // Shared accesses count in the input's elements: a float is kFloat of them.
                constexpr int kFloat = int(sizeof(float) / sizeof(In));
                wmma::store_matrix_sync(scratch, acc[i][j], FN, wmma::mem_row_major);
                TL_SSTORE(FM * FN / 32 * kFloat);
                __syncwarp();
                for (int e = lane; e < FM * FN; e += 32) {
                    const int row = row0 + e / FN, col = col0 + e % FN;
                    if (row < M && col < N) {
                        C[size_t(row) * N + col] = scratch[e];
                        TL_GSTORE(1);
                        TL_SLOAD(kFloat);
                    }
                }
                __syncwarp();
            }
        }
}

// VEC: K and N multiples of 16 bytes' worth of elements (8; TF32 4), 16-byte copies; else one
// element at a time. The host picks (lessons/12_matmul_wmma: kernel_at), so that each
// instantiation holds one body: the element-wise copies need far more registers for addresses.
template <int KIND, int BM, int BN, int BK, int WM, int WN, int STAGES, bool VEC>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN))
    wmma_matmul(const typename WmmaKind<KIND>::In* __restrict__ A, const typename WmmaKind<KIND>::In* __restrict__ B,
                float* __restrict__ C, int M, int N, int K, unsigned long long* counters) {
    wmma_body<KIND, BM, BN, BK, WM, WN, STAGES, VEC>(A, B, C, M, N, K, counters);
}
