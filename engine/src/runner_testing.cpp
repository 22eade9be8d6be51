// The hooks of engine_testing.h.
#include <mutex>
#include <vector>
#include "device_buffer.h"
#include "engine_testing.h"
#include "runner_device.h"

namespace tilelab::engine_testing {
namespace {

std::mutex test_variants_mutex;
std::vector<std::unique_ptr<Variant>> test_variants;   // stable addresses

}  // namespace

void add_test_variant(Variant v) {
    std::lock_guard lock(test_variants_mutex);
    for (auto& existing : test_variants)
        if (existing->id == v.id) {
            *existing = std::move(v);
            return;
        }
    test_variants.push_back(std::make_unique<Variant>(std::move(v)));
}

const Variant* find_test_variant(const std::string& id) {
    std::lock_guard lock(test_variants_mutex);
    for (auto& v : test_variants)
        if (v->id == id) return v.get();
    return nullptr;
}

int runtime_blocks_per_sm(const CompileResult& compiled, const LaunchShape& launch, std::string& error) {
    try {
        LoadedLibrary lib(compiled.cubin.data(), compiled.lowered_name.c_str());
        if (launch.dynamic_smem > 0)
            TL_CUDA_CHECK(cudaFuncSetAttribute(lib.entry(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               int(launch.dynamic_smem)));
        int blocks = 0;
        TL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, lib.entry(), int(launch.threads_per_block()),
                                                                    size_t(launch.dynamic_smem)));
        return blocks;
    } catch (const std::exception& e) {
        error = e.what();
        return -1;
    }
}

std::shared_ptr<void> occupy_device_memory(size_t leave_free_bytes, std::string& error) {
    auto held = std::make_shared<std::vector<DeviceBuffer>>();
    try {
        size_t free_bytes = 0, total_bytes = 0;
        device_memory(free_bytes, total_bytes);
        // Big pieces first, then smaller ones, until only the requested amount is left.
        for (size_t piece = size_t(1) << 34; piece >= (size_t(1) << 20); piece /= 2) {
            while (free_bytes > leave_free_bytes + piece) {
                try {
                    held->emplace_back(piece);
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
    return held;
}

}  // namespace tilelab::engine_testing
