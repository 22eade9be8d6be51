// The latency family's yardstick (families/latency/gpu_cuda.cpp): FP32 FMAs at the rate this GPU
// reaches when nothing is latency-bound — eight independent chains a thread, every SM full of
// warps, the step loop unrolled 16 times. Each thread does `fmas` FMAs (a multiple of 8) and
// writes the sum of its chains, so no FMA can be dropped. m is 1.0 from the host, unknown here.
#pragma once

extern "C" __global__ void __launch_bounds__(256) tl_fma_peak(float* out, float m, int fmas) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    float x[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) x[j] = float((t + j) & 1023);
#pragma unroll 16
    for (int s = 0; s < fmas / 8; ++s) {
#pragma unroll
        for (int j = 0; j < 8; ++j) x[j] = fmaf(x[j], m, float(j + 1));
    }
    float sum = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) sum += x[j];
    out[t] = sum;
}
