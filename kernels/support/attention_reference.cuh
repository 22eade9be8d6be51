// The attention family's device helpers (families/attention/gpu_cuda.cpp), part of the runner's
// support library (checks.cuh includes this file): the double-precision reference's products and
// softmax, and the softmax of the unfused yardstick. The softmaxes stride over rows, so any grid is
// correct; the products take one block per 64×64 tile of C.
#pragma once

// The reference's pieces (families/attention/gpu_cuda.cpp runs them per chunk of heads or rows:
// S = Q·Kᵀ/√d, the softmax below, O = P·V), all in double from the floats the kernel reads.
//
// C (M×N per batch, row-major, ldc) = alpha · A·B in double, A M×K (lda), B K×N (ldb) or, with
// b_transposed, B stored N×K (ldb) and read as its transpose; batch blockIdx.z, each operand at
// its own stride. A block of 256 threads makes a 64×64 tile of C, each thread 4×4 of it (rows
// ty + 16i, columns tx + 16j, so a warp's shared reads are broadcasts or consecutive), K in steps
// of 16 through shared memory. Out-of-range elements load as zero; products in double.
template <class TA>
__device__ __forceinline__ void tl_dgemm_tile(const TA* A, const float* B, double* C, int M, int N, int K, long long lda,
                                              long long ldb, long long ldc, int b_transposed, double alpha) {
    __shared__ double As[16][64], Bs[16][64];
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    double acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = t; i < 64 * 16; i += 256) {
            const int r = i / 16, c = i % 16;   // A: row r, column k0 + c
            As[c][r] = m0 + r < M && k0 + c < K ? double(A[(long long)(m0 + r) * lda + k0 + c]) : 0.0;
            if (b_transposed) Bs[c][r] = n0 + r < N && k0 + c < K ? double(B[(long long)(n0 + r) * ldb + k0 + c]) : 0.0;
            const int kr = i / 64, nc = i % 64;   // B: row k0 + kr, column n0 + nc
            if (!b_transposed) Bs[kr][nc] = k0 + kr < K && n0 + nc < N ? double(B[(long long)(k0 + kr) * ldb + n0 + nc]) : 0.0;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            double a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[k][ty + 16 * i], b[i] = Bs[k][tx + 16 * i];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int r = m0 + ty + 16 * i, c = n0 + tx + 16 * j;
            if (r < M && c < N) C[(long long)r * ldc + c] = alpha * acc[i][j];
        }
}

// S = alpha · Q·Kᵀ (floats in, doubles out) and O = P·V (P in double, V floats).
extern "C" __global__ void __launch_bounds__(256) tl_dgemm_from_floats(const float* A, const float* B, double* C, int M, int N,
        int K, long long lda, long long ldb, long long ldc, long long stride_a, long long stride_b, long long stride_c,
        int b_transposed, double alpha) {
    const long long z = blockIdx.z;
    tl_dgemm_tile(A + z * stride_a, B + z * stride_b, C + z * stride_c, M, N, K, lda, ldb, ldc, b_transposed, alpha);
}
extern "C" __global__ void __launch_bounds__(256) tl_dgemm_from_doubles(const double* A, const float* B, double* C, int M,
        int N, int K, long long lda, long long ldb, long long ldc, long long stride_a, long long stride_b,
        long long stride_c, int b_transposed, double alpha) {
    const long long z = blockIdx.z;
    tl_dgemm_tile(A + z * stride_a, B + z * stride_b, C + z * stride_c, M, N, K, lda, ldb, ldc, b_transposed, alpha);
}

// One warp per row of S (rows × N doubles, scaled scores): its maximum, then e^(s − max) written
// in place and summed, then each divided by the sum (every exponent ≤ 0). The chunk holds
// rows_per_head consecutive query rows of each head, starting at query first_row; causal: query i
// weighs keys 0..i only, the rest of its row zero. Launched with whole warps (shuffles).
extern "C" __global__ void tl_softmax_rows_f64(double* S, unsigned long long rows, int N, int rows_per_head,
                                               int first_row, int causal) {
    const unsigned long long warps = (unsigned long long)gridDim.x * blockDim.x / 32;
    const int lane = threadIdx.x % 32;
    for (unsigned long long row = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows; row += warps) {
        double* s = S + row * N;
        const int keys = causal ? first_row + int(row % rows_per_head) + 1 : N;
        double top = -1.0 / 0.0, sum = 0;
        for (int j = lane; j < keys; j += 32) top = fmax(top, s[j]);
        for (int off = 16; off > 0; off /= 2) top = fmax(top, __shfl_xor_sync(0xffffffffu, top, off));
        for (int j = lane; j < keys; j += 32) {
            const double e = exp(s[j] - top);
            s[j] = e;
            sum += e;
        }
        for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
        for (int j = lane; j < N; j += 32) s[j] = j < keys ? s[j] / sum : 0.0;
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
