// Internal hooks for the GPU tests; not part of the public API, and nothing but tests call them.
// Declared without CUDA types so that a test needs no CUDA headers.
#pragma once
#include <memory>
#include <string>
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

}  // namespace tilelab::engine_testing
