// Basic 7-point stencil: one thread per grid cell, every operand straight from global memory.
// A BX×BY×BZ block covers a box of cells. An interior cell loads its 7 inputs (13 FLOPs over
// 28 bytes: 0.46 OP/B), a boundary cell loads itself and copies it. Neighbouring threads load
// the same inputs again; only the caches stand between that and seven times the DRAM traffic.
#pragma once
#include "stencil_common.cuh"

template <int BX, int BY, int BZ>
__global__ void __launch_bounds__(BX * BY * BZ)
basic_stencil(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
              unsigned long long* counters) {
    TL_COUNTER(counters);
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int z = blockIdx.z * BZ + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;  // the last blocks overhang the grid

    const size_t plane = size_t(nx) * ny;  // size_t: 512³ cells already pass 2^27
    const size_t at = size_t(z) * plane + size_t(y) * nx + x;
    const bool interior = x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1;
    if (interior) {
        out[at] = apply_stencil(in[at], in[at - 1], in[at + 1], in[at - nx], in[at + nx],
                                in[at - plane], in[at + plane]);
        TL_GLOAD(7);
    } else {
        out[at] = in[at];  // boundary condition: unchanged
        TL_GLOAD(1);
    }
    TL_GSTORE(1);
}
