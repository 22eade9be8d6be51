// What the latency family's two halves share (shape.cpp, gpu_cuda.cpp, cpu.cpp), besides FamilyShape.
// The family: a grid of B blocks of `threads_per_block` threads (a family option the variant sets),
// each thread advancing kLatencyChains chains by FMAS/kLatencyChains steps x ← x·1 + c
// (kernels/latency/fma_chains.cuh). Chain j of thread t is element j·T + t (T threads in all).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "tilelab/params.h"

namespace tilelab {

inline constexpr int kLatencyChains = 8;          // as in the kernel
inline constexpr int64_t kLatencyMaxFmas = 1 << 22;   // per thread: every value stays below 2^24
inline constexpr int kLatencyStartRange = 1024;   // starts are integers in [0, 1024)
inline constexpr int kLatencyMaxIncrement = 8;    // increments are integers in [1, 8]

// Threads in the grid: blocks × the variant's threads per block (its family option).
uint64_t latency_threads(const Problem& p, const FamilyOptions& options);

// The starts and increments of every chain (integers held in floats), from the seed, and the
// exact result after `fmas` FMAs per thread: start + (fmas / kLatencyChains)·increment.
struct LatencyInputs {
    std::vector<float> start, increment, expected;
};
LatencyInputs latency_inputs(uint64_t seed, uint64_t threads, int64_t fmas);

// The first wrong element (chain j of thread t, at index j·T + t), as both halves report it.
std::string latency_mismatch(size_t at, uint64_t threads, float value, float expected, uint64_t bad, size_t n);

}  // namespace tilelab
