// Test only: 7-point stencils with the mistakes validation must catch (tests/gpu/test_validation_gpu.cpp).
//   MISTAKE 1: x−1 and x+1 swapped (a wrong index: off by c1−c2 times a difference of inputs)
//   MISTAKE 2: boundary cells left unwritten (they must be copies of the input)
//   MISTAKE 3: only whole 16-wide blocks along x are written (a missing tail at odd sizes)
#pragma once
#include "stencil_common.cuh"

template <int MISTAKE>
__global__ void wrong_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                              unsigned long long* counters) {
    (void)counters;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z * blockDim.z + threadIdx.z;
    const int x_end = MISTAKE == 3 ? nx / 16 * 16 : nx;
    if (x >= x_end || y >= ny || z >= nz) return;
    const size_t plane = size_t(nx) * ny;
    const size_t at = size_t(z) * plane + size_t(y) * nx + x;
    const bool interior = x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1;
    if (interior) {
        const float left = MISTAKE == 1 ? in[at + 1] : in[at - 1];
        const float right = MISTAKE == 1 ? in[at - 1] : in[at + 1];
        out[at] = apply_stencil(in[at], left, right, in[at - nx], in[at + nx], in[at - plane], in[at + plane]);
    } else if (MISTAKE != 2) {
        out[at] = in[at];
    }
}
