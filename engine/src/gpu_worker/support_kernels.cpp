#include "gpu_worker/support_kernels.h"
#include <fmt/format.h>
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include "device/cuda_check.h"
#include "gpu_worker/device_buffer.h"
#include "gpu_worker/runner_gpu.h"
#include "tilelab/compile.h"

namespace tilelab {
namespace {

constexpr unsigned kThreads = 256;   // a multiple of 32: the comparison reduces whole warps
constexpr unsigned kFmaPeakThreads = 256;   // the FMA yardstick's block

int device_attribute(cudaDeviceAttr attr) {
    int device = 0, value = 0;
    TL_CUDA_CHECK(cudaGetDevice(&device));
    TL_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
    return value;
}

// The raw layout the comparison kernels write.
struct RawSummary {
    unsigned long long bad, first_bad, max_abs_bits, max_rel_bits, nan_seen;
};

double from_bits(unsigned long long bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

// The `kind` argument of the helpers that write 16-bit values (checks.cuh's tl_to_16bit): 1 BF16,
// 2 FP16, 0 any other type (floats).
int sixteen_bit_kind(ElementType type) { return type == ElementType::bf16 ? 1 : type == ElementType::f16 ? 2 : 0; }

}  // namespace

struct SupportKernels::Impl {
    cudaLibrary_t library = nullptr;
    cudaKernel_t fill = nullptr, round16 = nullptr, matmul_ref = nullptr, stencil_ref = nullptr, transpose_ref = nullptr, conv_ref = nullptr, product_ff = nullptr, product_df = nullptr, softmax_f64 = nullptr, softmax = nullptr, fma_peak = nullptr, cmp_f32 = nullptr, cmp_f64 = nullptr, discard = nullptr;
    unsigned max_blocks = 0;
    unsigned fma_peak_blocks = 0;   // as many of the yardstick's blocks as the SMs hold
    int arch = 0;
    DeviceBuffer summary{sizeof(RawSummary)};

    ~Impl() {
        if (library) (void)cudaLibraryUnload(library);
    }

    cudaKernel_t kernel(const char* name) {
        cudaKernel_t k = nullptr;
        TL_CUDA_CHECK(cudaLibraryGetKernel(&k, library, name));
        return k;
    }

    // Enough blocks to fill the GPU a few times over; the kernels stride over the rest.
    dim3 grid_for(uint64_t n) const {
        const uint64_t blocks = std::max<uint64_t>(1, (n + kThreads - 1) / kThreads);
        return dim3(unsigned(std::min<uint64_t>(blocks, max_blocks)));
    }

    void launch(cudaKernel_t k, uint64_t n, void** args) const {
        TL_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(k), grid_for(n), dim3(kThreads), args, 0, nullptr));
    }

    CompareSummary finish_compare() const {
        RawSummary raw{};
        TL_CUDA_CHECK(cudaMemcpy(&raw, summary.get(), sizeof raw, cudaMemcpyDeviceToHost));
        CompareSummary s;
        s.bad = raw.bad;
        s.first_bad = raw.first_bad;
        s.max_abs_error = raw.nan_seen ? NAN : from_bits(raw.max_abs_bits);
        s.max_rel_error = raw.nan_seen ? NAN : from_bits(raw.max_rel_bits);
        return s;
    }

    void reset_summary() const {
        const RawSummary start{0, ~0ull, 0, 0, 0};
        TL_CUDA_CHECK(cudaMemcpy(summary.get(), &start, sizeof start, cudaMemcpyHostToDevice));
    }
};

SupportKernels::SupportKernels() : impl_(std::make_unique<Impl>()) {
    const int arch = device_attribute(cudaDevAttrComputeCapabilityMajor) * 10 +
                     device_attribute(cudaDevAttrComputeCapabilityMinor);
    impl_->max_blocks = unsigned(std::max(1, device_attribute(cudaDevAttrMultiProcessorCount))) * 16;
    impl_->fma_peak_blocks = unsigned(std::max(1, device_attribute(cudaDevAttrMultiProcessorCount)) *
                                      std::max(1, device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor) / int(kFmaPeakThreads)));
    CompileService compiler(default_cache_dir());
    const auto compiled = compiler.compile({"support/checks.cuh", "tl_fill_uniform", arch, 0, {}});
    if (!compiled->ok)
        throw std::runtime_error(fmt::format("the runner's support kernels did not compile for sm_{}: {}", arch,
                                             compiled->error));
    TL_CUDA_CHECK(cudaLibraryLoadData(&impl_->library, compiled->cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    impl_->fill = impl_->kernel("tl_fill_uniform");
    impl_->round16 = impl_->kernel("tl_round_to_16bit");
    impl_->matmul_ref = impl_->kernel("tl_matmul_reference_f64");
    impl_->stencil_ref = impl_->kernel("tl_stencil7_reference");
    impl_->transpose_ref = impl_->kernel("tl_transpose_reference");
    impl_->conv_ref = impl_->kernel("tl_conv2d_reference");
    impl_->product_ff = impl_->kernel("tl_dgemm_from_floats");
    impl_->product_df = impl_->kernel("tl_dgemm_from_doubles");
    impl_->softmax_f64 = impl_->kernel("tl_softmax_rows_f64");
    impl_->softmax = impl_->kernel("tl_softmax_rows");
    impl_->fma_peak = impl_->kernel("tl_fma_peak");
    impl_->cmp_f32 = impl_->kernel("tl_compare_to_f32");
    impl_->cmp_f64 = impl_->kernel("tl_compare_to_f64");
    impl_->discard = impl_->kernel("tl_discard_l2");
    impl_->arch = arch;
}

int SupportKernels::resident_clusters(unsigned cluster) const {
    const void* entry = reinterpret_cast<const void*>(impl_->discard);
    // Half an SM's shared memory: with the 1 KB the hardware reserves for each block, two such
    // blocks never fit on one SM, and one is well within what a block may ask for.
    const int smem = std::min(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor) / 2,
                              device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
    TL_CUDA_CHECK(cudaFuncSetAttribute(entry, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const unsigned sms = unsigned(std::max(1, device_attribute(cudaDevAttrMultiProcessorCount)));
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = cluster_launch(dim3((sms + cluster - 1) / cluster * cluster), dim3(kThreads), unsigned(smem),
                                                     cluster, attribute);
    int clusters = 0;
    TL_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, entry, &config));
    TL_CUDA_CHECK(cudaFuncSetAttribute(entry, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));   // as discard_l2 launches it
    return clusters;
}

bool SupportKernels::discard_l2(const void* p, uint64_t bytes) const {
    if (impl_->arch < 80) return false;
    const char* lines_start = static_cast<const char*>(p);
    unsigned long long lines = bytes / 128;
    void* args[] = {&lines_start, &lines};
    impl_->launch(impl_->discard, lines, args);
    return true;
}

SupportKernels::~SupportKernels() = default;

void SupportKernels::fill_uniform(float* out, uint64_t n, uint64_t seed) const {
    unsigned long long count = n, s = seed;
    void* args[] = {&out, &count, &s};
    impl_->launch(impl_->fill, n, args);
}

void SupportKernels::round_to_16bit(float* values, void* typed, uint64_t n, ElementType type) const {
    if (type != ElementType::bf16 && type != ElementType::f16)
        throw std::logic_error(fmt::format("round_to_16bit: {} is not a 16-bit type", element_name(type)));
    unsigned long long count = n;
    int kind = sixteen_bit_kind(type);
    void* args[] = {&values, &typed, &count, &kind};
    impl_->launch(impl_->round16, n, args);
}

void SupportKernels::matmul_reference_f64(const float* A, const float* B, double* C, int M, int N, int K) const {
    void* args[] = {&A, &B, &C, &M, &N, &K};
    impl_->launch(impl_->matmul_ref, uint64_t(M) * uint64_t(N), args);
}

void SupportKernels::stencil7_reference(const float* in, float* ref, int nx, int ny, int nz, const float* coef,
                                        int radius) const {
    void* args[] = {&in, &ref, &nx, &ny, &nz, &coef, &radius};
    impl_->launch(impl_->stencil_ref, uint64_t(nx) * uint64_t(ny) * uint64_t(nz), args);
}

void SupportKernels::transpose_reference(const float* in, float* out, int W, int H) const {
    void* args[] = {&in, &out, &W, &H};
    impl_->launch(impl_->transpose_ref, uint64_t(W) * uint64_t(H), args);
}

void SupportKernels::conv2d_reference(const float* in, const float* bank, float* ref, int w, int h, int r, int filters,
                                      bool per_lane) const {
    int lanes = per_lane ? 1 : 0;
    void* args[] = {&in, &bank, &ref, &w, &h, &r, &filters, &lanes};
    impl_->launch(impl_->conv_ref, uint64_t(w) * uint64_t(h), args);
}

uint64_t SupportKernels::fma_peak_threads() const { return uint64_t(impl_->fma_peak_blocks) * kFmaPeakThreads; }

void SupportKernels::fma_peak(float* out, int fmas) const {
    float m = 1.0f;
    void* args[] = {&out, &m, &fmas};
    TL_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(impl_->fma_peak), dim3(impl_->fma_peak_blocks),
                                   dim3(kFmaPeakThreads), args, 0, nullptr));
}

namespace {
void launch_product(cudaKernel_t kernel, const void* A, const float* B, double* C, const SupportKernels::Product& s) {
    const dim3 grid(unsigned((s.N + 63) / 64), unsigned((s.M + 63) / 64), unsigned(s.batch));
    int M = s.M, N = s.N, K = s.K, transposed = s.b_transposed ? 1 : 0;
    long long lda = s.lda, ldb = s.ldb, ldc = s.ldc, sa = s.stride_a, sb = s.stride_b, sc = s.stride_c;
    double alpha = s.alpha;
    void* args[] = {&A, &B, &C, &M, &N, &K, &lda, &ldb, &ldc, &sa, &sb, &sc, &transposed, &alpha};
    TL_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, dim3(256), args, 0, nullptr));
}
}  // namespace

void SupportKernels::product_f64(const float* A, const float* B, double* C, const Product& shape) const {
    launch_product(impl_->product_ff, A, B, C, shape);
}

void SupportKernels::product_f64(const double* A, const float* B, double* C, const Product& shape) const {
    launch_product(impl_->product_df, A, B, C, shape);
}

void SupportKernels::softmax_rows_f64(double* S, uint64_t rows, int N, int rows_per_head, int first_row,
                                      bool causal) const {
    unsigned long long count = rows;
    int mask = causal ? 1 : 0;
    void* args[] = {&S, &count, &N, &rows_per_head, &first_row, &mask};
    impl_->launch(impl_->softmax_f64, rows * 32, args);
}

void SupportKernels::softmax_rows(float* S, void* P, uint64_t rows, int N, ElementType type, bool causal) const {
    unsigned long long count = rows;
    int kind = sixteen_bit_kind(type), mask = causal ? 1 : 0;
    void* args[] = {&S, &P, &count, &N, &kind, &mask};
    impl_->launch(impl_->softmax, rows * 32, args);
}

CompareSummary SupportKernels::compare(const float* got, const float* expected, uint64_t n, double tolerance, int nx,
                                       int ny, int nz) const {
    impl_->reset_summary();
    unsigned long long count = n;
    void* out = impl_->summary.get();
    void* args[] = {&got, &expected, &count, &tolerance, &nx, &ny, &nz, &out};
    impl_->launch(impl_->cmp_f32, n, args);
    return impl_->finish_compare();
}

CompareSummary SupportKernels::compare(const float* got, const double* expected, uint64_t n, double tolerance) const {
    impl_->reset_summary();
    unsigned long long count = n;
    void* out = impl_->summary.get();
    void* args[] = {&got, &expected, &count, &tolerance, &out};
    impl_->launch(impl_->cmp_f64, n, args);
    return impl_->finish_compare();
}

void SupportKernels::prefer_carveout(int percent) const {
    for (cudaKernel_t k : {impl_->cmp_f32, impl_->discard})
        TL_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributePreferredSharedMemoryCarveout, percent));
}

const SupportKernels& support_kernels() {
    static const SupportKernels instance;
    return instance;
}

}  // namespace tilelab
