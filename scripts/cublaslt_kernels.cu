// Which kernels does cuBLAS itself hold for one product, and how fast is each? Every algorithm
// cuBLASLt lists for C = A·B (SIZE³, inputs BF16, FP16 or FP32-as-TF32, FP32 out and sums, the
// matmul family's reference), with every tile and stage count it accepts, split-K off, is run on
// random inputs, checked against the default algorithm's result and timed (median of 7, the L2
// flushed before each, as the lessons' timings are). CUPTI's kernel activity names each
// configuration's kernel, untimed: cuBLAS's names say the instruction (sm80_xmma_..._tensor16x8x16
// kernels multiply with mma.sync, sm90_..._gmma with wgmma). The table answers issue 32's
// question: how close does NVIDIA's own best mma.sync kernel come to its wgmma one on this GPU?
// Build on the GPU machine: CUPTI=$(dirname $(find /usr/local/cuda/ -name libcupti.so | head -1));
//   nvcc -O3 -arch=sm_90a -o lt scripts/cublaslt_kernels.cu -lcublasLt -L$CUPTI -lcupti
//   (run with $CUPTI on LD_LIBRARY_PATH)
// Usage: lt [SIZE [bf16|fp16|tf32 [TOP]]]: prints the TOP fastest configurations of each family
// (default 8) as Markdown. LT_ONLY="ALGO,TILE,STAGES,SWIZZLE" runs only that configuration, once,
// untimed, for a profiler: e.g. ncu -k regex:Kernel2 -c 1 --metrics
// sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum lt 4096 bf16.
// LT_FAMILY=mma.sync checks and times only the configurations of that family (the others are
// named, then skipped): at 8192³ most of the minute goes to checking every result on the host.
#include <cublasLt.h>
#include <cupti.h>
#include <cmath>
#include <string>
#include "gpu_yardstick.cuh"

#define CHECK_LT(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    std::fprintf(stderr, "%s: status %d\n", #x, int(s_)); std::exit(1); } } while (0)
#define CHECK_CUPTI(x) do { CUptiResult r_ = (x); if (r_ != CUPTI_SUCCESS) { \
    std::fprintf(stderr, "%s: CUPTI %d\n", #x, int(r_)); std::exit(1); } } while (0)

namespace {

std::vector<std::string> g_names;   // kernels CUPTI reported since the last take_names()

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = size_t(1) << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            g_names.push_back(reinterpret_cast<CUpti_ActivityKernel10*>(record)->name);
    std::free(buffer);
}

std::string take_names() {
    CHECK_CUPTI(cuptiActivityFlushAll(1));
    std::string joined;
    for (const std::string& n : g_names) joined += (joined.empty() ? "" : " + ") + n;
    g_names.clear();
    return joined;
}

struct Config {
    int id = -1;
    unsigned tile = 0, stages = 0, swizzle = 0;
    std::string kernel;
    float ms = 0;
    double max_rel = 0;   // largest |C - C_default| / max |C_default|
};

// By name: Hopper's kernels (sm90_xmma_..., nvjet_sm90_...) multiply with wgmma; the Ampere ones
// cuBLAS also carries (sm80_xmma_..._tensor16x8x16, CUTLASS's cutlass_80_tensorop_s16816gemm /
// s1688gemm) with mma.sync of the shape they name. `ncu` confirms one (LT_ONLY, below).
std::string family(const std::string& kernel) {
    auto has = [&](const char* s) { return kernel.find(s) != std::string::npos; };
    if (has("sm90") || has("gmma")) return "wgmma (sm90)";
    if (has("sm80") || has("cutlass_80") || has("tensor16x8x") || has("s16816") || has("s1688")) return "mma.sync (sm80)";
    return "other";
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    const std::string prec = argc > 2 ? argv[2] : "bf16";
    const int top = argc > 3 ? std::atoi(argv[3]) : 8;
    const bool tf32 = prec == "tf32";
    const int kind = tf32 ? kTf32 : prec == "fp16" ? kFp16 : kBf16;
    const cudaDataType in = tf32 ? CUDA_R_32F : prec == "fp16" ? CUDA_R_16F : CUDA_R_16BF;
    const cublasComputeType_t compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const size_t elems = size_t(n) * n, in_bytes = tf32 ? 4 : 2;
    unsigned only[4] = {0, 0, 0, 0};
    const char* only_env = std::getenv("LT_ONLY");
    const bool just_one = only_env && std::sscanf(only_env, "%u,%u,%u,%u", &only[0], &only[1], &only[2], &only[3]) == 4;
    const char* only_family = std::getenv("LT_FAMILY");   // e.g. "mma.sync": check and time only that family

    // Kernel names from CUPTI's activity records, only around untimed launches; not at all under
    // a profiler (LT_ONLY), which brings its own CUPTI.
    if (!just_one) CHECK_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    auto trace = [&](bool on) {
        if (just_one) return;
        if (on) CHECK_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
        else CHECK_CUPTI(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    };
    cublasLtHandle_t lt; CHECK_LT(cublasLtCreate(&lt));
    void *a, *b; float *c, *ref;
    CHECK(cudaMalloc(&a, elems * in_bytes)); CHECK(cudaMalloc(&b, elems * in_bytes));
    CHECK(cudaMalloc(&c, elems * 4)); CHECK(cudaMalloc(&ref, elems * 4));
    fill_random(a, elems, kind); fill_random(b, elems, kind);   // zeros would run cooler, and faster
    const size_t ws_bytes = size_t(64) << 20, flush_bytes = size_t(256) << 20;
    void *ws, *flush; CHECK(cudaMalloc(&ws, ws_bytes)); CHECK(cudaMalloc(&flush, flush_bytes));

    // Column-major n×n everywhere (the family's row-major product is the same call with A and B swapped).
    cublasLtMatmulDesc_t op; CHECK_LT(cublasLtMatmulDescCreate(&op, compute, CUDA_R_32F));
    cublasLtMatrixLayout_t la, lb, lc;
    CHECK_LT(cublasLtMatrixLayoutCreate(&la, in, n, n, n)); CHECK_LT(cublasLtMatrixLayoutCreate(&lb, in, n, n, n));
    CHECK_LT(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, n, n, n));
    const float one = 1, zero = 0;
    auto run = [&](const cublasLtMatmulAlgo_t* algo, float* out) {
        return cublasLtMatmul(lt, op, &one, a, la, b, lb, &zero, out, lc, out, lc, algo, ws, ws_bytes, 0);
    };
    auto time_ms = [&](const cublasLtMatmulAlgo_t* algo) {
        return median_ms(7, [&] { CHECK_LT(run(algo, c)); }, flush, flush_bytes);
    };
    std::vector<float> host_ref(elems), host_c(elems);
    double scale = 0;   // max |C_default|, set once the default has run
    auto max_rel = [&]() {
        CHECK(cudaMemcpy(host_c.data(), c, elems * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t i = 0; i < elems; ++i) worst = std::max(worst, double(std::fabs(host_c[i] - host_ref[i])));
        return worst / (scale > 0 ? scale : 1);
    };

    // The default: what cublasLtMatmul picks itself (the heuristic's first answer), the yardstick.
    Config def;
    trace(true);
    CHECK_LT(run(nullptr, ref)); CHECK(cudaDeviceSynchronize());
    trace(false);
    if (!just_one) def.kernel = take_names();
    CHECK(cudaMemcpy(host_ref.data(), ref, elems * 4, cudaMemcpyDeviceToHost));
    for (float x : host_ref) scale = std::max(scale, double(std::fabs(x)));
    if (!just_one) def.ms = time_ms(nullptr);

    int ids[256], count = 0;
    CHECK_LT(cublasLtMatmulAlgoGetIds(lt, compute, CUDA_R_32F, in, in, CUDA_R_32F, CUDA_R_32F, 256, ids, &count));
    std::vector<Config> rows;
    int tried = 0, refused = 0;
    for (int k = 0; k < count; ++k) {
        cublasLtMatmulAlgo_t algo;
        if (cublasLtMatmulAlgoInit(lt, compute, CUDA_R_32F, in, in, CUDA_R_32F, CUDA_R_32F, ids[k], &algo) != CUBLAS_STATUS_SUCCESS) continue;
        auto cap_list = [&](cublasLtMatmulAlgoCapAttributes_t attr) {
            size_t bytes = 0;
            cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes);
            std::vector<unsigned> v(bytes / 4);
            if (!v.empty()) cublasLtMatmulAlgoCapGetAttribute(&algo, attr, v.data(), bytes, &bytes);
            if (v.empty()) v.push_back(0);   // undefined: the algorithm chooses
            return v;
        };
        for (unsigned tile : cap_list(CUBLASLT_ALGO_CAP_TILE_IDS))
            for (unsigned stages : cap_list(CUBLASLT_ALGO_CAP_STAGES_IDS))
                for (unsigned swizzle : {0u, 1u}) {
                    const int splitk = 1;
                    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile);
                    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages);
                    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk);
                    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle);
                    cublasLtMatmulHeuristicResult_t check{};
                    ++tried;
                    if (cublasLtMatmulAlgoCheck(lt, op, la, lb, lc, lc, &algo, &check) != CUBLAS_STATUS_SUCCESS ||
                        check.workspaceSize > ws_bytes) { ++refused; continue; }
                    Config row{ids[k], tile, stages, swizzle};
                    if (just_one) {
                        if (unsigned(ids[k]) != only[0] || tile != only[1] || stages != only[2] || swizzle != only[3]) continue;
                        CHECK_LT(run(&algo, c));
                        CHECK(cudaDeviceSynchronize());
                        std::printf("ran algo %u tile %u stages %u swizzle %u once\n", only[0], only[1], only[2], only[3]);
                        return 0;
                    }
                    trace(true);
                    const cublasStatus_t s = run(&algo, c);
                    CHECK(cudaDeviceSynchronize());
                    trace(false);
                    row.kernel = take_names();
                    if (s != CUBLAS_STATUS_SUCCESS) { ++refused; continue; }
                    if (only_family && family(row.kernel).find(only_family) == std::string::npos) continue;
                    row.max_rel = max_rel();
                    row.ms = time_ms(&algo);
                    rows.push_back(row);
                }
    }

    cudaDeviceProp prop; CHECK(cudaGetDeviceProperties(&prop, 0));
    const double flop = 2.0 * n * double(n) * n;
    auto tflops = [&](float ms) { return flop / (ms * 1e-3) / 1e12; };
    std::printf("%s, %d SMs; C = A·B at %d³, %s in, FP32 out; %d algorithm ids, %d configurations tried, %zu timed%s, %d refused\n",
                prop.name, prop.multiProcessorCount, n, prec.c_str(), count, tried, rows.size(),
                only_family ? (std::string(" (") + only_family + " only)").c_str() : "", refused);
    std::printf("default: %.4f ms, %.1f TFLOP/s, %s\n\n", def.ms, tflops(def.ms), def.kernel.c_str());
    std::sort(rows.begin(), rows.end(), [](const Config& x, const Config& y) { return x.ms < y.ms; });
    std::printf("| family | algo | tile | stages | swizzle | ms | TFLOP/s | %% of default | max rel diff | kernel |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (const char* fam : {"mma.sync (sm80)", "wgmma (sm90)", "other"}) {
        int shown = 0;
        for (const Config& r : rows) {
            if (family(r.kernel) != fam || shown++ >= top) continue;
            std::printf("| %s | %d | %u | %u | %u | %.4f | %.1f | %.1f | %.1e | %s |\n", fam, r.id, r.tile, r.stages, r.swizzle,
                        r.ms, tflops(r.ms), 100.0 * def.ms / r.ms, r.max_rel, r.kernel.c_str());
        }
    }
    return 0;
}
