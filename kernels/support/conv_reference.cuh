// The convolution family's reference (families/convolution/gpu_cuda.cpp): every output in double,
// taps in the kernels' order (row by row of the window), zeros outside the image, rounded to
// float once. Output (x, y) uses filter (per_lane ? x : y) mod F of the tap-major bank.
#pragma once

extern "C" __global__ void tl_conv2d_reference(const float* in, const float* bank, float* ref, int w, int h, int r,
                                               int filters, int per_lane) {
    const unsigned long long total = (unsigned long long)w * h;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const int d = 2 * r + 1;
    for (unsigned long long at = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; at < total; at += stride) {
        const int x = int(at % w), y = int(at / w), f = (per_lane ? x : y) % filters;
        double sum = 0;
        for (int k = 0; k < d * d; ++k) {
            const int gx = x + k % d - r, gy = y + k / d - r;
            if (gx < 0 || gx >= w || gy < 0 || gy >= h) continue;
            sum = __dadd_rn(sum, __dmul_rn(double(bank[k * filters + f]), double(in[(unsigned long long)gy * w + gx])));
        }
        ref[at] = float(sum);
    }
}
