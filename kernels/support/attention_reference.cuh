// The attention family's device helpers (families/attention/gpu_cuda.cpp), part of the runner's
// support library (checks.cuh includes this file): the double-precision reference and the
// softmax of the unfused yardstick. Grid-stride loops, so any grid is correct.
#pragma once

// O = softmax(Q·Kᵀ/√d)·V in double, one warp per (head, row): lane t holds columns t, t+32, ...
// (d ≤ 256: at most 8), each score is the warp's sum of its lanes' products. A first pass over
// the keys finds the scores' maximum, the second adds the weights e^(s − max) and the weighted
// rows of V (a safe softmax: every exponent ≤ 0). Q, K, V are the floats the kernel reads.
// Launched with a multiple of 32 threads per block, so every warp is whole for the shuffles.
__device__ __forceinline__ double tl_attention_score(const float* q, const float* k, int d, int lane) {
    double dot = 0;
    for (int c = lane; c < d; c += 32) dot += double(q[c]) * double(k[c]);
    for (int off = 16; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    return dot;
}

extern "C" __global__ void tl_attention_reference_f64(const float* Q, const float* K, const float* V, double* O, int N,
                                                      int d, int BH, int causal) {
    const unsigned long long rows = (unsigned long long)N * BH;
    const unsigned long long warps = (unsigned long long)gridDim.x * blockDim.x / 32;
    const int lane = threadIdx.x % 32;
    const double scale = 1.0 / sqrt(double(d));
    for (unsigned long long at = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; at < rows; at += warps) {
        const unsigned long long head = at / N;
        const float* q = Q + at * d;
        const float* k = K + head * N * d;
        const float* v = V + head * N * d;
        const int keys = causal ? int(at % N) + 1 : N;
        double top = -1.0 / 0.0;
        for (int j = 0; j < keys; ++j) top = fmax(top, tl_attention_score(q, k + (unsigned long long)j * d, d, lane) * scale);
        double o[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        double sum = 0;
        for (int j = 0; j < keys; ++j) {
            const double w = exp(tl_attention_score(q, k + (unsigned long long)j * d, d, lane) * scale - top);
            sum += w;
#pragma unroll
            for (int i = 0; i < 8; ++i)
                if (lane + 32 * i < d) o[i] += w * double(v[(unsigned long long)j * d + lane + 32 * i]);
        }
#pragma unroll
        for (int i = 0; i < 8; ++i)
            if (lane + 32 * i < d) O[at * d + lane + 32 * i] = o[i] / sum;
    }
}

// The unfused path's softmax, one warp per row of S (rows × N floats, scaled scores): three
// passes over the row in memory — its maximum, the sum of e^(s − max), then P = e^(s − max)/sum
// written as floats in place (kind 0), or as BF16 (1) / FP16 (2) into P (checks.cuh's tl_to_16bit).
// causal = 1: row r of a head runs over its first r + 1 scores; the rest of its P is zero.
extern "C" __global__ void tl_softmax_rows(float* S, unsigned short* P, unsigned long long rows, int N, int kind,
                                           int causal) {
    const unsigned long long warps = (unsigned long long)gridDim.x * blockDim.x / 32;
    const int lane = threadIdx.x % 32;
    for (unsigned long long row = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows; row += warps) {
        float* s = S + row * N;
        const int keys = causal ? int(row % N) + 1 : N;
        float top = -1.0f / 0.0f, sum = 0.f;
        for (int j = lane; j < keys; j += 32) top = fmaxf(top, s[j]);
        for (int off = 16; off > 0; off /= 2) top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, off));
        for (int j = lane; j < keys; j += 32) sum += __expf(s[j] - top);
        for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
        const float inv = 1.f / sum;
        for (int j = lane; j < N; j += 32) {
            const float p = j < keys ? __expf(s[j] - top) * inv : 0.f;
            if (kind == 0) s[j] = p;
            else P[row * N + j] = tl_to_16bit(p, kind);
        }
    }
}
