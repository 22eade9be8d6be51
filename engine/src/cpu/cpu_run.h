// Internal to the engine, no CUDA: the CPU run — a verdict without a GPU (RunResult::cpu).
//
// The analysed request's kernel (the lesson's, or the user's file) is compiled by NVRTC to PTX for
// compute_80 (kCpuRunArch: the paths the measured GPUs take, cp.async and tensor cores included) and
// executed thread by thread on the CPU (cpu_machine.h) at the small size its lesson declares
// ("<!-- cpu size: -->", else FamilyShape::cpu_problem), with the family's seeded inputs, reference and tolerance
// (cpu_family.h). It reports a pass, the first mismatch, or the fault (an out-of-bounds access, a
// race on shared memory, the time limit) with the thread and the source line, and the elements
// the kernel moved beside the cost model at that size.
#pragma once
#include <cstdint>
#include <optional>
#include "tilelab/result.h"

namespace tilelab {

class CompileService;

// The virtual architecture the CPU run compiles for: sm_80's PTX, so that the kernels take the
// paths they take on the GPUs TileLab measures (cp.async, BF16 and TF32 tensor cores), which the
// CPU run models (cpu_tensor.cpp).
inline constexpr int kCpuRunArch = 80;
// How long one CPU run may take before it is stopped (an endless loop), in seconds.
inline constexpr double kCpuRunTimeLimitS = 5.0;

// Never throws: every failure is a CpuCheck with status "error" and a sentence.
// `problem`, where given, replaces the lesson's size.
CpuCheck run_on_cpu(const RunResult& analysed, CompileService& compiler, uint64_t seed,
                    double time_limit_s = kCpuRunTimeLimitS, const std::optional<Problem>& problem = std::nullopt);

}  // namespace tilelab
