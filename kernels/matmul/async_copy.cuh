// 16-byte copies from global to shared memory for the tensor-core kernels (wmma.cuh, mma.cuh):
// cp.async on sm_80 and later (the copy completes at the wait; nothing passes through registers),
// a plain load and store before that or when ASYNC is false.
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TL_CP_ASYNC 1
#else
#define TL_CP_ASYNC 0
#endif

// One 16-byte copy; `inside` false: 16 zero bytes, nothing read (src must still be a valid
// address).
template <bool ASYNC>
__device__ __forceinline__ void tl_copy16(void* dst, const void* src, bool inside) {
#if TL_CP_ASYNC
    if constexpr (ASYNC) {
        const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src), "r"(inside ? 16 : 0));
        return;
    }
#endif
    *static_cast<uint4*>(dst) = inside ? *static_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
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
