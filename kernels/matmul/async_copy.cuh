// 16-byte copies from global to shared memory for the tensor-core kernels (wmma.cuh, mma.cuh):
// cp.async on sm_80 and later (the copy completes at the wait; nothing passes through registers),
// a plain load and store before that or when ASYNC is false; and the ring of stages they fill.
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TL_CP_ASYNC 1
#else
#define TL_CP_ASYNC 0
#endif

// One 16-byte copy to a 32-bit shared address (the shared window, as cp.async and ldmatrix take
// it); `inside` false: 16 zero bytes, nothing read (src must still be a valid address).
template <bool ASYNC>
__device__ __forceinline__ void tl_copy16_shared(unsigned dst, const void* src, bool inside) {
#if TL_CP_ASYNC
    if constexpr (ASYNC) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0));
        return;
    }
#endif
    const uint4 v = inside ? *static_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

// The same copy to a generic pointer into shared memory.
template <bool ASYNC>
__device__ __forceinline__ void tl_copy16(void* dst, const void* src, bool inside) {
    tl_copy16_shared<ASYNC>(static_cast<unsigned>(__cvta_generic_to_shared(dst)), src, inside);
}

// Closes the group of copies issued since the last commit.
template <bool ASYNC>
__device__ __forceinline__ void tl_commit() {
#if TL_CP_ASYNC
    if constexpr (ASYNC) asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most PENDING committed groups are still in flight.
template <int PENDING, bool ASYNC>
__device__ __forceinline__ void tl_wait() {
#if TL_CP_ASYNC
    if constexpr (ASYNC) asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}

// The copy ring over K: STAGES-1 slices in flight while one is computed (STAGES 1: copy, barrier,
// compute, barrier). copy(stage, k0) issues the copies of the slice at k0 into a stage, compute(stage)
// reads one; one commit per step keeps "all but the newest STAGES-2 groups" = "slice t".
template <int STAGES, bool ASYNC, class Copy, class Compute>
__device__ __forceinline__ void tl_copy_ring(int K, int BK, Copy&& copy, Compute&& compute) {
    const int steps = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < steps) copy(s, s * BK);
        tl_commit<ASYNC>();
    }
    for (int t = 0; t < steps; ++t) {
        if constexpr (STAGES == 1) {
            copy(0, t * BK);
            __syncthreads();
            compute(0);
            __syncthreads();
        } else {
            tl_wait<(STAGES > 1 ? STAGES - 2 : 0), ASYNC>();
            __syncthreads();   // slice t is in; everyone finished computing slice t-1
            const int next = t + STAGES - 1;
            if (next < steps) copy(next % STAGES, next * BK);
            tl_commit<ASYNC>();
            compute(t % STAGES);
        }
    }
    tl_wait<0, ASYNC>();
}
