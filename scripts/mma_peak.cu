// How fast can mma.sync go on this GPU when nothing else is in the way? Every warp issues
// mma.sync from registers only (no loads, no stores until the end), into ACC independent
// accumulators, with W warps on each SM. The best row is the ceiling lesson 13 works under:
// its matmul also loads, waits and stores, so it can only come close to it. cuBLAS at the same
// precision (4096^3, inputs BF16/FP16/FP32-with-TF32, FP32 out, as the matmul family's reference)
// is timed in the same process for the ratio.
// Build on the GPU machine: nvcc -O3 -arch=sm_90a -o mma_peak scripts/mma_peak.cu -lcublas
// Usage: mma_peak [SIZE]   (prints one Markdown table; SIZE for cuBLAS, default 4096)
#include <cublas_v2.h>
#include "gpu_yardstick.cuh"

#define CHECK_BLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    std::fprintf(stderr, "%s: status %d\n", #x, int(s_)); std::exit(1); } } while (0)

template <int KIND>
__device__ __forceinline__ void mma(float* c, const unsigned* a, const unsigned* b) {
    if constexpr (KIND == kBf16) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else if constexpr (KIND == kFp16) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

// Four sets of operands taken in turn, so that each mma.sync gets other bits than the one before.
template <int KIND, int ACC>
__global__ void mma_only(int iters, float* out) {
    constexpr int kSets = 4;
    unsigned a[kSets][4], b[kSets][2];
    const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
    for (int s = 0; s < kSets; ++s) {
        for (int i = 0; i < 4; ++i) a[s][i] = random_operand<KIND>(id * 64 + s * 8 + i);
        for (int i = 0; i < 2; ++i) b[s][i] = random_operand<KIND>(id * 64 + s * 8 + 4 + i);
    }
    float c[ACC][4] = {};
    for (int it = 0; it < iters; it += kSets) {
#pragma unroll
        for (int s = 0; s < kSets; ++s) {
#pragma unroll
            for (int j = 0; j < ACC; ++j) mma<KIND>(c[j], a[(s + j) % kSets], b[(s + j) % kSets]);
        }
    }
    float sum = 0;
#pragma unroll
    for (int j = 0; j < ACC; ++j) sum += c[j][0] + c[j][1] + c[j][2] + c[j][3];
    out[id] = sum;
}

struct Row { const char* prec; int warps_per_sm, acc; double tflops; };

template <int KIND, int ACC>
double time_mma(int sms, int warps_per_sm, float* out) {
    const int threads = std::min(warps_per_sm, 32) * 32;           // one block per SM, up to 32 warps
    const int blocks = sms * (warps_per_sm * 32 / threads);
    const int iters = (1 << 22) / (warps_per_sm * ACC);           // 4M mma.sync an SM, a few ms; a multiple of 4
    mma_only<KIND, ACC><<<blocks, threads>>>(64, out);              // warm-up
    CHECK(cudaGetLastError());
    const float ms = median_ms(5, [&] { mma_only<KIND, ACC><<<blocks, threads>>>(iters, out); });
    const double flop_per_mma = KIND == kTf32 ? 2.0 * 16 * 8 * 8 : 2.0 * 16 * 8 * 16;
    const double mmas = double(blocks) * (threads / 32) * iters * ACC;
    return mmas * flop_per_mma / (ms * 1e-3) / 1e12;
}

double cublas_tflops(int kind, int n) {
    cublasHandle_t h; CHECK_BLAS(cublasCreate(&h));
    const size_t elems = size_t(n) * n;
    const size_t in_bytes = kind == kTf32 ? 4 : 2;
    void *a, *b; float* c;
    CHECK(cudaMalloc(&a, elems * in_bytes)); CHECK(cudaMalloc(&b, elems * in_bytes)); CHECK(cudaMalloc(&c, elems * 4));
    fill_random(a, elems, kind); fill_random(b, elems, kind);   // zeros would run cooler, and faster
    const cudaDataType t = kind == kBf16 ? CUDA_R_16BF : kind == kFp16 ? CUDA_R_16F : CUDA_R_32F;
    const cublasComputeType_t ct = kind == kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const float one = 1, zero = 0;
    // The L2 is flushed before each timed call, as the lessons' reference timings do.
    const size_t flush_bytes = size_t(256) << 20;
    void* flush; CHECK(cudaMalloc(&flush, flush_bytes));
    auto gemm = [&] { CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, t, n, a, t, n, &zero, c,
                                              CUDA_R_32F, n, ct, CUBLAS_GEMM_DEFAULT)); };
    gemm(); gemm();
    const float ms = median_ms(20, gemm, flush, flush_bytes);
    CHECK(cudaFree(a)); CHECK(cudaFree(b)); CHECK(cudaFree(c)); CHECK(cudaFree(flush)); cublasDestroy(h);
    return 2.0 * n * double(n) * n / (ms * 1e-3) / 1e12;
}

template <int KIND>
void sweep(const char* prec, int sms, float* out, std::vector<Row>& rows) {
    for (int w : {4, 8, 16, 32}) {
        rows.push_back({prec, w, 1, time_mma<KIND, 1>(sms, w, out)});
        rows.push_back({prec, w, 2, time_mma<KIND, 2>(sms, w, out)});
        rows.push_back({prec, w, 4, time_mma<KIND, 4>(sms, w, out)});
        rows.push_back({prec, w, 8, time_mma<KIND, 8>(sms, w, out)});
    }
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    cudaDeviceProp prop; CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0; CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    float* out; CHECK(cudaMalloc(&out, size_t(prop.multiProcessorCount) * 1024 * sizeof(float)));
    std::vector<Row> rows;
    sweep<kBf16>("bf16", prop.multiProcessorCount, out, rows);
    sweep<kFp16>("fp16", prop.multiProcessorCount, out, rows);
    sweep<kTf32>("tf32", prop.multiProcessorCount, out, rows);
    const double ref[3] = {cublas_tflops(kBf16, n), cublas_tflops(kFp16, n), cublas_tflops(kTf32, n)};
    std::printf("%s, %d SMs, max clock %d MHz; mma.sync from registers only (median of 5 launches)\n\n",
                prop.name, prop.multiProcessorCount, clock_khz / 1000);
    std::printf("| prec | warps/SM | independent acc | TFLOP/s | %% of cuBLAS %d³ |\n| --- | ---: | ---: | ---: | ---: |\n", n);
    for (const Row& r : rows) {
        const int k = r.prec[0] == 'b' ? 0 : r.prec[0] == 'f' ? 1 : 2;
        std::printf("| %s | %d | %d | %.1f | %.1f |\n", r.prec, r.warps_per_sm, r.acc, r.tflops, 100 * r.tflops / ref[k]);
    }
    std::printf("\n| prec | cuBLAS %d³ TFLOP/s (median of 20, L2 flushed) |\n| --- | ---: |\n", n);
    for (int k = 0; k < 3; ++k) std::printf("| %s | %.1f |\n", k == 0 ? "bf16" : k == 1 ? "fp16" : "tf32", ref[k]);
    CHECK(cudaFree(out));
    return 0;
}
