// The GPU worker's side of engine_testing.h's hooks (the client's is testing/engine_testing_cuda.cpp).
#include <vector>
#include "gpu_worker/device_buffer.h"
#include "device/probe.h"
#include "gpu_worker/runner_gpu.h"
#include "gpu_worker/support_kernels.h"

namespace tilelab {

worker::json GpuRunner::support_sample(const worker::json& request) {
    try {
        const auto mnk = request.at("mnk").get<std::array<int, 3>>();
        const auto dims = request.at("grid").get<std::array<int, 3>>();
        const uint64_t seed = request.at("seed").get<uint64_t>();
        const auto coefficients = request.at("coefficients").get<std::vector<float>>();
        if (coefficients.size() != 7) return {{"error", "a 7-point sweep needs 7 coefficients"}};
        const int M = mnk[0], N = mnk[1], K = mnk[2];
        const size_t cells = size_t(dims[0]) * size_t(dims[1]) * size_t(dims[2]);
        const SupportKernels& support = support_kernels();
        DeviceBuffer a(sizeof(float) * size_t(M) * K), b(sizeof(float) * size_t(K) * N),
            c(sizeof(double) * size_t(M) * N), grid(sizeof(float) * cells), sweep(sizeof(float) * cells),
            coef(sizeof(float) * 7);
        support.fill_uniform(a.get<float>(), size_t(M) * K, seed);
        support.fill_uniform(b.get<float>(), size_t(K) * N, seed + 1);
        support.matmul_reference_f64(a.get<float>(), b.get<float>(), c.get<double>(), M, N, K);
        support.fill_uniform(grid.get<float>(), cells, seed + 2);
        TL_CUDA_CHECK(cudaMemcpy(coef.get(), coefficients.data(), coef.bytes(), cudaMemcpyHostToDevice));
        support.stencil7_reference(grid.get<float>(), sweep.get<float>(), dims[0], dims[1], dims[2], coef.get<float>());
        auto back = [](const DeviceBuffer& buffer, auto element) {
            std::vector<decltype(element)> host(buffer.bytes() / sizeof element);
            TL_CUDA_CHECK(cudaMemcpy(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
            return host;
        };
        return {{"a", back(a, 0.0f)}, {"b", back(b, 0.0f)}, {"product", back(c, 0.0)},
                {"grid", back(grid, 0.0f)}, {"sweep", back(sweep, 0.0f)}};
    } catch (const CudaError& e) {
        note_error(e.code());
        return {{"error", e.what()}};
    } catch (const std::exception& e) {
        return {{"error", e.what()}};
    }
}


int GpuRunner::runtime_blocks_per_sm(const CompileResult& compiled, const LaunchShape& launch, std::string& error) {
    try {
        const LoadedLibrary& lib = library_for(compiled);
        if (launch.dynamic_smem > 0)
            TL_CUDA_CHECK(cudaFuncSetAttribute(lib.entry(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               int(launch.dynamic_smem)));
        int blocks = 0;
        TL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, lib.entry(), int(launch.threads_per_block()),
                                                                    size_t(launch.dynamic_smem)));
        return blocks;
    } catch (const CudaError& e) {
        note_error(e.code());
        error = e.what();
        return -1;
    } catch (const std::exception& e) {
        error = e.what();
        return -1;
    }
}

int GpuRunner::occupy_memory(size_t leave_free_bytes, std::string& error) {
    const int handle = next_handle_++;
    std::vector<DeviceBuffer>& held = held_memory_[handle];
    try {
        families_.clear();   // cached buffers would otherwise count as taken
        size_t free_bytes = 0, total_bytes = 0;
        device_memory(free_bytes, total_bytes);
        // Big pieces first, then smaller ones, until only the requested amount is left.
        for (size_t piece = size_t(1) << 34; piece >= (size_t(1) << 20); piece /= 2) {
            while (free_bytes > leave_free_bytes + piece) {
                try {
                    held.emplace_back(piece);
                } catch (const CudaError&) {   // fragmented: go on with smaller pieces
                    (void)cudaGetLastError();
                    break;
                }
                device_memory(free_bytes, total_bytes);
            }
        }
    } catch (const std::exception& e) {
        (void)cudaGetLastError();
        error = e.what();
    }
    return handle;
}

void GpuRunner::release_memory(int handle) { held_memory_.erase(handle); }

}  // namespace tilelab
