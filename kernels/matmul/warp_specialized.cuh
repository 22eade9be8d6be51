// Warp specialisation: the block's warpgroups take roles. Warpgroup 0 is the producer: one of its
// threads does nothing but ask TMA for slices; warpgroups 1 .. CONSUMERS are consumers: they do
// nothing but wait for a slice, multiply it with wgmma and hand its stage back. No barrier of the
// whole block after the set-up: each stage has two mbarriers, "full" (the producer arrives telling
// it the stage's bytes, TMA completes them) and "empty" (lane 0 of every consumer warp arrives once
// its warp's wgmma have finished reading the stage). The producer waits on empty, the consumers on
// full, each on the phase parity of its own lap round the ring: slice n uses stage n mod STAGES on
// lap n / STAGES; the producer's first lap waits on parity 1, which a fresh barrier counts as done.
//
// Each consumer owns BMC = 128·128/BN rows of the tile (64 at BN = 256, 128 at BN = 128): its
// BMC×BN sums are 128 registers a thread. SETMAXNREG = 1 moves registers between the roles: the
// producer gives its warpgroup's down to 40 a thread, the consumers take theirs up to 232 (the
// launch gives every thread the same share, at most 65536 / threads). PERSISTENT = 1 launches as
// many blocks as stay resident and lets each walk tiles blockIdx.x, + gridDim.x, ...; the producer
// then loads the next tile's first slices while the consumers store this tile's sums. The tiles are
// numbered GROUP tile rows at a time (lesson 13's order), so the tiles in flight share A and B in L2;
// ORDER = 1 numbers them along a Hilbert curve instead (matmul/tile_order.cuh).
//
// CLUSTER = 2 or 4 launches the blocks in clusters that take CLUSTER tiles one above the other
// (same columns of B): each block's producer reads its own A box, but only every CLUSTER-th box of
// B, and multicasts it into the same stage of every block of the cluster, so L2 sends each slice of
// B once per cluster instead of once per block. A stage may then be refilled only when the
// consumers of every block have finished with it: each consumer warp arrives on the empty barrier
// of every block in the cluster, and a producer waits for all of them before leaving (its block's
// shared memory must outlive the others' arrivals). A cluster past the last tile row still loads
// its share of B for the others; its own sums are never stored.
//
// PINGPONG = 1 (two consumers) makes the consumers take turns instead of sharing a tile: the block
// tile is one consumer's BMC×BN, and a block's tiles go to consumer 1, 2, 1, 2, ... The producer
// loads their slices in that order, so while one consumer stores its sums, the other multiplies:
// the tensor cores no longer stand idle during the epilogue. Each slice is read by one consumer.
//
// EPILOGUE = 1 stores C the way A and B arrive: each consumer warp writes its 16 rows of sums, 32
// columns at a time, into one of its two 2 KB buffers of shared memory and its lane 0 asks TMA to
// store the box; the warp goes back to multiplying while TMA writes (a buffer is reused once the
// store before last has read it).
//
// STREAMK = R > 0 (persistent blocks, not in turns) shares the last R rounds of tiles out by K slices
// (matmul/stream_k.cuh): the parts of a cut tile after its head pass their partial sums on through
// C, counted by a flag in global memory; the block with the head waits for all of them, adds and
// stores C. The flags are this module's own (tl_stream_k_flags), zero at load; the head's block
// puts each back to zero, so every launch finds them as the last one left them.
//
// BK = 64 and the 128-byte swizzle (lesson 21's best); K and N multiples of 8, any M.
//   KIND 1: BF16, KIND 2: FP16; sums in FP32.
#pragma once
#include "common.cuh"
#include "matmul/hopper.cuh"
#include "matmul/tile_order.cuh"
#include "matmul/stream_k.cuh"

// One flag per cut tile and cluster rank: fewer than 2·gridDim.x (the host refuses larger grids).
constexpr int kStreamKFlags = 1024;
__device__ unsigned tl_stream_k_flags[kStreamKFlags];

// A consumer warp hands a stage back: to its own block, or to every block of its cluster (whose
// producers multicast into this block's copy of the stage).
template <int CLUSTER>
__device__ __forceinline__ void hand_back(unsigned long long* empty, int rank) {
    hopper::barrier_arrive(empty);
#pragma unroll
    for (int c = 1; c < CLUSTER; ++c) hopper::barrier_arrive_in(empty, unsigned(rank + c) % CLUSTER);
}

template <int KIND, int BN, int STAGES, int CONSUMERS, int SETMAXNREG, int PERSISTENT, int GROUP, int CLUSTER, int PINGPONG,
          int EPILOGUE, int ORDER, int STREAMK>
__global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1)
warp_specialized_matmul(const void* A, const void* B, float* C, int M, int N, int K, unsigned long long* counters,
                const __grid_constant__ TmaDescriptor map_a, const __grid_constant__ TmaDescriptor map_b,
                const __grid_constant__ TmaDescriptor map_c) {
    using Kind = typename hopper::WgmmaKind<KIND>::Name;
    constexpr int BK = 64, SWIZZLE = 128;
    constexpr int BMC = 128 * 128 / BN;                    // rows of C per consumer
    constexpr int BM = PINGPONG ? BMC : CONSUMERS * BMC;   // in turns, each consumer a whole tile
    constexpr int A_BYTES = BM * SWIZZLE;                  // one box: BM rows of 64 elements
    constexpr int B_BOX = BK * SWIZZLE;                    // one box: 64 rows of 64 columns
    constexpr int STAGE = A_BYTES + BN / 64 * B_BOX;
    static_assert(BN == 128 || BN == 256, "BN is 128 or 256");
    static_assert(BN / 64 % CLUSTER == 0, "each block of a cluster multicasts the same number of B's boxes");
    static_assert(!PINGPONG || CONSUMERS == 2, "two consumers take turns");
    static_assert(!(STREAMK && PINGPONG), "stream-K cuts tiles that the consumers share, not tiles in turns");
    constexpr int OWNERS = PINGPONG ? 1 : CONSUMERS;       // consumers that read each slice
    (void)A, (void)B, (void)PERSISTENT, (void)map_c;
    TL_COUNTER(counters);

    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<size_t>(smem_raw) + 1023) & ~size_t(1023));
    // EPILOGUE = 1: two 2 KB buffers a consumer warp after the stages, where C is staged for TMA.
    constexpr int WARP_STAGING = 2 * 16 * 32;              // floats: two 16×32 boxes
    float* staging = reinterpret_cast<float*>(smem + STAGES * STAGE);
    constexpr int STAGING = EPILOGUE ? CONSUMERS * 4 * WARP_STAGING * 4 : 0;   // bytes
    unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + STAGES * STAGE + STAGING);
    unsigned long long* empty = full + STAGES;

    // The cluster's tiles: CLUSTER tile rows by one column, rank r taking row CLUSTER·cm + r.
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int cluster_rows = (tiles_m + CLUSTER - 1) / CLUSTER, tiles = cluster_rows * tiles_n;
    const int first = blockIdx.x / CLUSTER, step = gridDim.x / CLUSTER;
    const int rank = CLUSTER > 1 ? int(hopper::cluster_rank()) : 0;
    const int slices = (K + BK - 1) / BK;
    const int role = threadIdx.x / 128;                    // 0 producer, 1 .. CONSUMERS consumers
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            hopper::barrier_init(&full[s], 1);
            hopper::barrier_init(&empty[s], 4 * OWNERS * CLUSTER);
        }
        hopper::barrier_init_fence();
    }
    if (CLUSTER > 1) hopper::cluster_sync();   // every block's barriers exist before any remote use
    else __syncthreads();

    if (role == 0) {
        if (SETMAXNREG) hopper::registers_down<40>();
        if (threadIdx.x != 0) return;
        // The producer: every slice of every tile of this block, in the consumers' order.
        int n = 0;
        StreamKSchedule work(tiles, step, first, slices, STREAMK);
        for (TileWork w; work.take(w);) {
            int tm, tn;
            ordered_tile<ORDER, GROUP>(w.tile, cluster_rows, tiles_n, tm, tn);
            const int m0 = (tm * CLUSTER + rank) * BM, n0 = tn * BN;
            for (int t = w.k_begin; t < w.k_end; ++t, ++n) {
                const int s = n % STAGES;
                // EXERCISE-BEGIN: wait until the consumers have handed stage s back (the parity of this lap's phase, flipped: the first lap passes at once), then tell full[s] the bytes to expect
                hopper::barrier_wait(&empty[s], (unsigned(n / STAGES) & 1u) ^ 1u);
                hopper::barrier_arrive_expect(&full[s], STAGE);
                // EXERCISE-END
                unsigned char* a = smem + s * STAGE;
                hopper::tma_load_2d(a, &map_a, t * BK, m0, &full[s]);
                int b_columns = 0;   // of the matrix, in the boxes this block reads
#pragma unroll
                for (int x = rank; x < BN / 64; x += CLUSTER) {
                    if (CLUSTER == 1) hopper::tma_load_2d(a + A_BYTES + x * B_BOX, &map_b, n0 + 64 * x, t * BK, &full[s]);
                    else hopper::tma_load_2d_multicast(a + A_BYTES + x * B_BOX, &map_b, n0 + 64 * x, t * BK, &full[s], (1u << CLUSTER) - 1);
                    b_columns += max(0, min(64, N - n0 - 64 * x));
                }
                const int k_in = min(BK, K - t * BK);
                TL_GLOAD(k_in * (max(0, min(BM, M - m0)) + b_columns));
                TL_SSTORE(STAGE / 2);
                (void)b_columns;
            }
        }
        // In a cluster: until every block's consumers have handed back every stage of this block.
        if (CLUSTER > 1)
            for (int i = 0; i < STAGES; ++i, ++n) hopper::barrier_wait(&empty[n % STAGES], (unsigned(n / STAGES) & 1u) ^ 1u);
        return;
    }

    // A consumer, BMC/64 bands of one m64nBNk16 each a step. Together (PINGPONG = 0): rows
    // (role − 1)·BMC .. of every tile. In turns (PINGPONG = 1): every other tile of the block, whole
    // (consumer 1 the block's 1st, 3rd, ... tile, consumer 2 the 2nd, 4th, ...); a consumer starts
    // multiplying only once the other has issued its tile's last wgmma (named barrier 1 or 2, by the
    // turn's parity), so one consumer's stores of C run while the other multiplies.
    if (SETMAXNREG) hopper::registers_up<232>();
    const int me = role - 1;
    const int band0 = PINGPONG ? 0 : me * BMC;
    const bool first_thread = threadIdx.x % 128 == 0;
    int n = 0, turn = 0, boxes = 0;
    StreamKSchedule work(tiles, step, first, slices, STREAMK);
    for (TileWork w; work.take(w); ++turn) {
        if (PINGPONG && turn % 2 != me) {   // the other consumer's tile: its slices pass by
            n += w.k_end - w.k_begin;
            continue;
        }
        if (PINGPONG && turn > 0) hopper::named_sync(1 + turn % 2, 256);
        int tm, tn;
        ordered_tile<ORDER, GROUP>(w.tile, cluster_rows, tiles_n, tm, tn);
        tm = tm * CLUSTER + rank;
        float acc[BMC / 64][BN / 2];
#pragma unroll
        for (int i = 0; i < BMC / 64; ++i)
#pragma unroll
            for (int e = 0; e < BN / 2; ++e) acc[i][e] = 0.0f;
        for (int t = w.k_begin; t < w.k_end; ++t, ++n) {
            const int s = n % STAGES;
            hopper::barrier_wait(&full[s], unsigned(n / STAGES) & 1u);
            const unsigned char* a = smem + s * STAGE + band0 * SWIZZLE;
            const unsigned char* b = smem + s * STAGE + A_BYTES;
            hopper::wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk)
#pragma unroll
                for (int i = 0; i < BMC / 64; ++i) {
                    const unsigned long long da = hopper::operand_descriptor<SWIZZLE>(a + i * 64 * SWIZZLE + 32 * kk, 16, 8 * SWIZZLE);
                    const unsigned long long db = hopper::operand_descriptor<SWIZZLE>(b + 16 * kk * SWIZZLE, B_BOX, 8 * SWIZZLE);
                    hopper::Wgmma<BN, Kind>::run(acc[i], da, db);
                    if (first_thread) TL_SLOAD(64 * 16 + 16 * BN);
                }
            hopper::wgmma_commit();
            // EXERCISE-BEGIN: wait until only this slice's group runs, then hand the previous slice's stage back (lane 0 of each warp: hand_back, which arrives on the empty barrier of every block of the cluster)
            hopper::wgmma_wait<1>();
            if (t > w.k_begin && threadIdx.x % 32 == 0) hand_back<CLUSTER>(&empty[(n - 1) % STAGES], rank);
            // EXERCISE-END
        }
        if (PINGPONG) {   // the next tile's turn, if the block has one
            StreamKSchedule ahead = work;
            TileWork next;
            if (ahead.take(next)) hopper::named_arrive(1 + (turn + 1) % 2, 256);
        }
        hopper::wgmma_wait<0>();
        if (w.k_end > w.k_begin && threadIdx.x % 32 == 0) hand_back<CLUSTER>(&empty[(n - 1) % STAGES], rank);
        if (STREAMK && is_cut(w, slices)) {
            // A part of a cut tile: the parts after it left their sums in C (a head or a middle
            // waits until the flag counts them and adds them); a tail or a middle passes its own
            // on through C and counts itself; the head goes on to store the tile.
            unsigned* flag = &tl_stream_k_flags[work.flag_of(w.tile) * CLUSTER + rank];
            const int after = work.parts_after(w);
            if (after > 0) {
                if (threadIdx.x == 128) hopper::flag_wait(flag, unsigned(after));
                hopper::named_sync(3, 128 * CONSUMERS);
#pragma unroll
                for (int i = 0; i < BMC / 64; ++i) {
                    const int read = hopper::add_wgmma_tile_from<BN>(C, M, N, tm * BM + band0 + 64 * i, tn * BN, acc[i]);
                    TL_GLOAD(2 * read);   // floats, counted in the operands' 2-byte elements
                    (void)read;
                }
            }
            if (w.k_begin > 0) {
#pragma unroll
                for (int i = 0; i < BMC / 64; ++i) {
                    const int stored = hopper::store_wgmma_tile<BN>(C, M, N, tm * BM + band0 + 64 * i, tn * BN, acc[i]);
                    TL_GSTORE(stored);
                    (void)stored;
                }
                __threadfence();
                hopper::named_sync(3, 128 * CONSUMERS);   // every consumer thread's sums are out (and read)
                if (threadIdx.x == 128) hopper::flag_release(flag, unsigned(after + 1));
                continue;
            }
            if (threadIdx.x == 128) *flag = 0u;   // the head: down again for the next launch
            if (EPILOGUE) hopper::fence_global_to_async();
        }
#pragma unroll
        for (int i = 0; i < BMC / 64; ++i) {
            const int row0 = tm * BM + band0 + 64 * i;
            if (EPILOGUE) {   // through shared memory and TMA: each warp goes on once its boxes are staged
                const int before = boxes;
                const int stored = hopper::store_wgmma_tile_tma<BN>(staging + (me * 4 + threadIdx.x / 32 % 4) * WARP_STAGING, &map_c, M, N,
                                                                     row0, tn * BN, acc[i], boxes);
                TL_GSTORE(stored);
                if (threadIdx.x % 32 == 0) TL_SSTORE(2 * 512 * (boxes - before));   // staged floats, in 2-byte elements
                if (threadIdx.x % 32 == 0) TL_SLOAD(2 * 512 * (boxes - before));    // read back by TMA
                (void)stored, (void)before;
            } else {
                const int stored = hopper::store_wgmma_tile<BN>(C, M, N, row0, tn * BN, acc[i]);
                TL_GSTORE(stored);
                (void)stored;
            }
        }
    }
    if (EPILOGUE && threadIdx.x % 32 == 0) hopper::bulk_wait<0>();   // every store of C written before the block ends
}
