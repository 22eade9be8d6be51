// Hopper's tensor cores the way they are meant to be fed: TMA copies the block's A and B tiles into
// swizzled shared memory, and one warpgroup (4 warps, 128 threads) multiplies them with wgmma
// straight from shared memory — no ldmatrix, no fragments in registers, only the sums.
//
// A block computes C[by·BM .. +BM][bx·BN .. +BN]. Its K loop walks slices of BK; STAGES slices are
// in flight in a ring of shared stages, each with one mbarrier ("full"): thread 0 arrives on it
// telling it the stage's bytes, then asks TMA for the slice's boxes; the barrier's phase completes
// when they have landed. A is row-major M×K ("K-major"): its boxes are SPAN = SWIZZLE/2 elements of
// K by BM rows, each row one swizzle-wide line. B is row-major K×N ("MN-major", wgmma's transposed
// B): its boxes are SPAN columns of N by BK rows. The tensor maps (made on the host, kernels' last
// two parameters) swizzle each box as it lands: the 16-byte piece p of row r goes to p ⊕ (r mod 8)
// (128-byte swizzle; 64 and 32 bytes use fewer bits), the layout wgmma's descriptors name.
//
// Per slice, for each 16-deep step kk, the warpgroup issues (BM/64)·(BN/WGN) wgmma.m64nWGNk16, one
// per 64-row band i of A and WGN-wide band j of B, then commits them as a group. INFLIGHT = 0 waits
// for the group before the stage is refilled (the tensor cores idle while thread 0 asks for the next
// slice); INFLIGHT = 1 leaves this slice's group running and waits only for the previous one, whose
// stage is then refilled. A barrier of the block between the wait and the refill: all four warps
// must be done reading a stage before TMA overwrites it (the warp-specialised lesson replaces this
// with an "empty" mbarrier).
//
// Any M; K and N multiples of 8 (TMA's global rows are whole 16-byte units): boxes past the edge of
// A or B arrive zero-filled (the barrier still counts their full bytes), C is stored where inside.
//   KIND 1: BF16, KIND 2: FP16; sums in FP32.
#pragma once
#include "common.cuh"
#include "matmul/hopper.cuh"

template <int KIND, int BM, int BN, int BK, int WGN, int STAGES, int SWIZZLE, int INFLIGHT>
__global__ void __launch_bounds__(128)
tma_wgmma_matmul(const void* A, const void* B, float* C, int M, int N, int K, unsigned long long* counters,
                 const __grid_constant__ TmaDescriptor map_a, const __grid_constant__ TmaDescriptor map_b) {
    using Kind = typename hopper::WgmmaKind<KIND>::Name;
    constexpr int SPAN = SWIZZLE / 2;               // 2-byte elements in one swizzled row
    constexpr int A_BOX = BM * SWIZZLE;             // bytes of one A box: BM rows of SPAN elements of K
    constexpr int B_BOX = BK * SWIZZLE;             // bytes of one B box: BK rows of SPAN columns
    constexpr int A_BYTES = BK / SPAN * A_BOX;      // = 2·BM·BK
    constexpr int STAGE = A_BYTES + BN / SPAN * B_BOX;
    static_assert(BM % 64 == 0 && BN % WGN == 0 && WGN % SPAN == 0 && BK % SPAN == 0 && SPAN % 16 == 0, "tile shape");
    static_assert(INFLIGHT == 0 || STAGES >= 2, "a group left in flight needs a second stage to load into");
    (void)A, (void)B;
    TL_COUNTER(counters);

    // Every stage on a 1024-byte boundary: the swizzle pattern repeats every 8 rows of 128 bytes,
    // and wgmma's descriptors assume the pattern starts at the tile's start.
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<size_t>(smem_raw) + 1023) & ~size_t(1023));
    unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + STAGES * STAGE);

    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int slices = (K + BK - 1) / BK;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) hopper::barrier_init(&full[s], 1);
        hopper::barrier_init_fence();
    }
    __syncthreads();

    // Thread 0: slice t into stage t mod STAGES, BK/SPAN boxes of A and BN/SPAN of B.
    const auto load_slice = [&](int t) {
        unsigned char* a = smem + t % STAGES * STAGE;
        unsigned char* b = a + A_BYTES;
        hopper::barrier_arrive_expect(&full[t % STAGES], STAGE);
#pragma unroll
        for (int x = 0; x < BK / SPAN; ++x) hopper::tma_load_2d(a + x * A_BOX, &map_a, t * BK + x * SPAN, m0, &full[t % STAGES]);
#pragma unroll
        for (int x = 0; x < BN / SPAN; ++x) hopper::tma_load_2d(b + x * B_BOX, &map_b, n0 + x * SPAN, t * BK, &full[t % STAGES]);
        // Counted: the elements read inside A and B, and every element the boxes write (zeros too).
        const int k_in = min(BK, K - t * BK);
        TL_GLOAD(k_in * (min(BM, M - m0) + min(BN, N - n0)));
        TL_SSTORE(STAGE / 2);
    };
    if (threadIdx.x == 0)
        for (int t = 0; t < STAGES && t < slices; ++t) load_slice(t);

    float acc[BM / 64][BN / WGN][WGN / 2];
#pragma unroll
    for (int i = 0; i < BM / 64; ++i)
#pragma unroll
        for (int j = 0; j < BN / WGN; ++j)
#pragma unroll
            for (int e = 0; e < WGN / 2; ++e) acc[i][j][e] = 0.0f;

    for (int t = 0; t < slices; ++t) {
        const unsigned char* a = smem + t % STAGES * STAGE;
        const unsigned char* b = a + A_BYTES;
        hopper::barrier_wait(&full[t % STAGES], unsigned(t / STAGES) & 1u);
        hopper::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            // A: the box holding elements 16kk .. 16kk+15 of the slice, 32 bytes a step inside its
            // rows; band i starts 64 rows down. B: 16 rows a step; band j starts WGN/SPAN boxes on.
            const unsigned char* a_step = a;
            const unsigned char* b_step = b;
            // EXERCISE-BEGIN: where step kk starts in the A and B stages (A K-major: 32 bytes a step inside a box's rows; B MN-major: 16 rows of SWIZZLE bytes a step)
            a_step = a + 16 * kk / SPAN * A_BOX + 16 * kk % SPAN * 2;
            b_step = b + 16 * kk * SWIZZLE;
            // EXERCISE-END
#pragma unroll
            for (int i = 0; i < BM / 64; ++i)
#pragma unroll
                for (int j = 0; j < BN / WGN; ++j) {
                    const unsigned long long da = hopper::operand_descriptor<SWIZZLE>(a_step + i * 64 * SWIZZLE, 16, 8 * SWIZZLE);
                    const unsigned long long db =
                        hopper::operand_descriptor<SWIZZLE>(b_step + j * (WGN / SPAN) * B_BOX, B_BOX, 8 * SWIZZLE);
                    hopper::Wgmma<WGN, Kind>::run(acc[i][j], da, db);
                    if (threadIdx.x == 0) TL_SLOAD(64 * 16 + 16 * WGN);   // what this wgmma reads of A and B
                }
        }
        // EXERCISE-BEGIN: commit the group, wait until INFLIGHT groups remain, and (after a barrier of the block) have thread 0 refill the finished slice's stage with slice + STAGES
        hopper::wgmma_commit();
        hopper::wgmma_wait<INFLIGHT>();
        // The slice whose group has finished: t (INFLIGHT 0) or t − 1; its stage takes slice + STAGES.
        const int done = t - INFLIGHT, next = done + STAGES;
        if (done >= 0 && next < slices) {
            __syncthreads();
            if (threadIdx.x == 0) load_slice(next);
        }
        // EXERCISE-END
    }
    hopper::wgmma_wait<0>();

#pragma unroll
    for (int i = 0; i < BM / 64; ++i)
#pragma unroll
        for (int j = 0; j < BN / WGN; ++j) {
            const int stored = hopper::store_wgmma_tile<WGN>(C, M, N, m0 + 64 * i, n0 + j * WGN, acc[i][j]);
            TL_GSTORE(stored);
            (void)stored;
        }
}
