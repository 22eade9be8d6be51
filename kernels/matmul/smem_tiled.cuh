// Lesson 2, shared-memory tiled matrix multiply: a TILE×TILE block computes a TILE×TILE piece of C.
// Changed from naive: the block first copies a TILE×TILE tile of A and one of B into shared memory
// (one element each per thread), then every thread reads them TILE times from there. Global loads
// drop by a factor of TILE (2·M·N·K/TILE in all) for 2·TILE·(TILE+PAD)·4 bytes of shared memory.
// PAD adds one unused column to each tile, shifting rows across banks (cost: 2·TILE·4 bytes).
// Preconditions: TILE·TILE threads fit in a block; any M, N, K (outside elements load as 0).
#pragma once
#include "common.cuh"

template <int TILE, int PAD>
__global__ void __launch_bounds__(TILE * TILE)
smem_tiled_matmul(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                  int M, int N, int K, unsigned long long* counters) {
    TL_COUNTER(counters);

    __shared__ float a_tile[TILE][TILE + PAD];   // A[row block][k-tile], one row per threadIdx.y
    __shared__ float b_tile[TILE][TILE + PAD];   // B[k-tile][column block], one column per threadIdx.x

    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    const int row = int(blockIdx.y) * TILE + ty;   // threadIdx.x walks columns: lanes coalesce
    const int col = int(blockIdx.x) * TILE + tx;

    // Threads outside C must stay: every thread of the block is needed to load the tiles and
    // to reach each __syncthreads(). They only skip the final store.
    float sum = 0.0f;
    const int k_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < k_tiles; ++t) {
        const int a_col = t * TILE + tx;
        const int b_row = t * TILE + ty;

        // Each thread brings one element of each tile. A lane's neighbour loads the next float of
        // the same row (a_col and col both follow tx), so a warp's loads coalesce. Elements past
        // the edge of A or B are not loaded at all; the tile gets 0, which adds nothing to sum.
        // EXERCISE-BEGIN: load A[row][a_col] and B[b_row][col] (0 where outside A or B) into a_tile[ty][tx] and b_tile[ty][tx]
        float a = 0.0f, b = 0.0f;
        if (row < M && a_col < K) {
            a = A[size_t(row) * K + a_col];
            TL_GLOAD(1);
        }
        if (b_row < K && col < N) {
            b = B[size_t(b_row) * N + col];
            TL_GLOAD(1);
        }
        a_tile[ty][tx] = a;
        TL_SSTORE(1);
        b_tile[ty][tx] = b;
        TL_SSTORE(1);
        // EXERCISE-END

        // Barrier 1: a thread is about to read elements that other threads stored; wait until
        // the whole tile is in shared memory.
        // EXERCISE-BEGIN: barrier 1
        __syncthreads();
        // EXERCISE-END

        // TILE multiply-adds from shared memory. Within a warp a_tile[ty][k] is one address per
        // row (a broadcast) and b_tile[k][tx] is consecutive floats (one per bank), so this loop
        // is free of bank conflicts with or without PAD.
        // EXERCISE-BEGIN: TILE multiply-adds from the tiles into sum
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            const float a_k = a_tile[ty][k];
            TL_SLOAD(1);
            const float b_k = b_tile[k][tx];
            TL_SLOAD(1);
            sum += a_k * b_k;
        }
        // EXERCISE-END

        // Barrier 2: the next iteration overwrites the tiles; wait until every thread has
        // finished reading this pair.
        // EXERCISE-BEGIN: barrier 2
        __syncthreads();
        // EXERCISE-END
    }

    // EXERCISE-BEGIN: store sum to C[row][col], for threads inside C only
    if (row < M && col < N) {
        C[size_t(row) * N + col] = sum;
        TL_GSTORE(1);
    }
    // EXERCISE-END
}
