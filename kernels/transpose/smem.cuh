// Lesson 3, transpose through a shared tile: out (W×H) = the transpose of in (in is H×W, row-major). A block moves
// one TILE×TILE tile: it reads TILE rows of `in` (coalesced), stores them as rows of a shared tile,
// then reads the tile by columns and writes TILE rows of `out` (coalesced again). Without shared
// memory one of the two global sides would be strided; with it, the stride moves into shared
// memory, where a column walk hits one bank 32 times unless the layout spreads it:
//   PAD      unused floats at the end of each shared row (row pitch TILE + PAD): row c starts
//            c·PAD banks further on, so a column walk visits different banks;
//   SWIZZLE  XOR the row's VEC-float chunk index with (row / VEC) mod (TILE / VEC): the same
//            spreading without wasted memory or misaligned rows;
//   VEC      floats per thread and access (1, 2, 4 = float, float2, float4): global loads and
//            stores and the shared row store are that wide; the column reads stay 4 bytes.
// A row store is a VEC-wide store only when every row starts aligned (PAD a multiple of VEC);
// otherwise it is VEC single floats (the compiler pairs them into float2 where it can prove it).
// Every thread takes part in every shared access (a tile past the edge is padded with zeros),
// so the bank pattern is the same in every block. Preconditions: TILE a power of two, 8 ≤ TILE
// ≤ 64, VEC divides TILE; for VEC > 1, W and H multiples of VEC (whole, aligned vectors).
#pragma once
#include "common.cuh"

template <int TILE, int VEC>
struct TransposeTile {
    static constexpr int kRows = 8;                      // threads along y; each covers TILE/8 rows
    static constexpr int kCols = TILE / VEC;             // threads along x; each moves VEC floats
    static constexpr int kChunks = TILE / VEC;           // VEC-float chunks per row
};

// Word offset of logical element (row, col) of the shared tile.
template <int TILE, int PAD, int SWIZZLE, int VEC>
__device__ __forceinline__ int transpose_tile_word(int row, int col) {
    constexpr int kChunks = TILE / VEC;
    const int chunk = SWIZZLE ? (col / VEC) ^ ((row / VEC) % kChunks) : col / VEC;
    return row * (TILE + PAD) + chunk * VEC + col % VEC;
}

template <int VEC> struct TransposeVector;
template <> struct TransposeVector<1> { using type = float; };
template <> struct TransposeVector<2> { using type = float2; };
template <> struct TransposeVector<4> { using type = float4; };

template <int TILE, int PAD, int SWIZZLE, int VEC>
__global__ void __launch_bounds__((TILE / VEC) * 8)
smem_transpose(const float* __restrict__ in, float* __restrict__ out, int W, int H,
               unsigned long long* counters) {
    static_assert(TILE >= 8 && TILE <= 64 && (TILE & (TILE - 1)) == 0, "TILE is a power of two in 8..64");
    static_assert(VEC == 1 || VEC == 2 || VEC == 4, "VEC is 1, 2 or 4 floats");
    using Vec = typename TransposeVector<VEC>::type;
    using Tile = TransposeTile<TILE, VEC>;
    TL_COUNTER(counters);
    __shared__ __align__(16) float tile[TILE * (TILE + PAD)];

    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    const int x0 = int(blockIdx.x) * TILE, y0 = int(blockIdx.y) * TILE;   // tile origin in `in`
    const int c = tx * VEC;                                                // first column of this thread

    // Rows of `in` -> rows of the tile. Neighbouring lanes take neighbouring VEC-float chunks of
    // one row: coalesced. Outside the matrix the tile gets zeros (they are never written out).
#pragma unroll
    for (int j = 0; j < TILE / Tile::kRows; ++j) {
        const int r = ty + j * Tile::kRows;
        Vec v{};
        if (y0 + r < H && x0 + c < W) {
            v = *reinterpret_cast<const Vec*>(in + size_t(y0 + r) * W + x0 + c);
            TL_GLOAD(VEC);
        }
        const float* parts = reinterpret_cast<const float*>(&v);
        float* at = tile + transpose_tile_word<TILE, PAD, SWIZZLE, VEC>(r, c);
        if constexpr (PAD % VEC == 0) {
            *reinterpret_cast<Vec*>(at) = v;   // the row starts aligned: one VEC-wide store
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i) at[i] = parts[i];
        }
        TL_SSTORE(VEC);
    }

    // Every row of the tile must be in place before any thread reads a column.
    // EXERCISE-BEGIN: wait until every row of the tile is in shared memory
    __syncthreads();
    // EXERCISE-END

    // Columns of the tile -> rows of `out`: output row x0 + r holds column r of the tile, so this
    // thread gathers VEC floats down column r (VEC 4-byte shared reads, one per row) and writes
    // them as one VEC-wide, coalesced store.
#pragma unroll
    for (int j = 0; j < TILE / Tile::kRows; ++j) {
        const int r = ty + j * Tile::kRows;
        Vec v;
        float* parts = reinterpret_cast<float*>(&v);
        // EXERCISE-BEGIN: gather VEC floats down column r of the tile into parts[] (transpose_tile_word gives the word)
#pragma unroll
        for (int i = 0; i < VEC; ++i) parts[i] = tile[transpose_tile_word<TILE, PAD, SWIZZLE, VEC>(c + i, r)];
        // EXERCISE-END
        TL_SLOAD(VEC);
        if (x0 + r < W && y0 + c < H) {
            *reinterpret_cast<Vec*>(out + size_t(x0 + r) * H + y0 + c) = v;
            TL_GSTORE(VEC);
        }
    }
}
