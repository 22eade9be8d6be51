// Internal hooks for the GPU tests; not part of the public API, and nothing but tests call them.
// Declared without CUDA types so that a test needs no CUDA headers.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include "tilelab/compile.h"
#include "tilelab/variant.h"

namespace tilelab::engine_testing {

// What the CUDA runtime itself says: cudaOccupancyMaxActiveBlocksPerMultiprocessor for the
// compiled kernel loaded as the engine loads it (dynamic shared memory opted in as the engine
// does). Returns -1 and sets `error` on failure.
int runtime_blocks_per_sm(const CompileResult& compiled, const LaunchShape& launch, std::string& error);

// Allocates device memory until only about `leave_free_bytes` remain; freed when the returned
// handle goes. For testing the engine's "needs X GiB, Y GiB free" refusal.
std::shared_ptr<void> occupy_device_memory(size_t leave_free_bytes, std::string& error);

// The runner's device helpers (kernels/support/checks.cuh) run at a small size, with the results
// copied back so that a test can check them against a CPU walk: seeded inputs A (M×K, seed) and
// B (K×N, seed + 1), their product in double, a grid (nx×ny×nz, seed + 2) and its 7-point sweep
// with the given coefficients. Returns false and sets `error` on failure.
struct SupportSample {
    std::vector<float> a, b, grid, sweep;
    std::vector<double> product;
};
bool support_sample(int M, int N, int K, int nx, int ny, int nz, uint64_t seed, const std::vector<float>& coefficients,
                    SupportSample& out, std::string& error);

}  // namespace tilelab::engine_testing
