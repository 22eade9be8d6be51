// Exercise: Shared-memory tiling (lesson 02_matmul_smem_tiled).
// The lesson's kernel (matmul/smem_tiled.cuh) with its key lines left as TODOs. Keep the kernel's name
// and template parameters: it is instantiated as smem_tiled_matmul<16, 0> and launched,
// validated and timed exactly as the lesson's kernel.
//   tilelab-cli compile 02 --source this.cu    compile: registers, spills, occupancy
//   tilelab-cli run 02 --source this.cu        run, validate, time (needs a GPU)
// Validation catches a missing barrier only where the race changes the result: a pass
// does not prove a race absent (compute-sanitizer --tool racecheck can).
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
        // TODO(1): load A[row][a_col] and B[b_row][col] (0 where outside A or B) into a_tile[ty][tx] and b_tile[ty][tx]
        a_tile[ty][tx] = qq;

        // Barrier 1: a thread is about to read elements that other threads stored; wait until
        // the whole tile is in shared memory.
        // TODO(2): barrier 1

        // TILE multiply-adds from shared memory. Within a warp a_tile[ty][k] is one address per
        // row (a broadcast) and b_tile[k][tx] is consecutive floats (one per bank), so this loop
        // is free of bank conflicts with or without PAD.
        // TODO(3): TILE multiply-adds from the tiles into sum

        // Barrier 2: the next iteration overwrites the tiles; wait until every thread has
        // finished reading this pair.
        // TODO(4): barrier 2
    }

    // TODO(5): store sum to C[row][col], for threads inside C only
}
