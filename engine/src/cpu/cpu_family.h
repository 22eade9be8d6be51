// Internal to the engine, no CUDA: a problem family's CPU half, for the CPU run (cpu_run.h) — the
// same buffers, seeded inputs (family_common.h's seeded_uniform, bit for bit the GPU's), kernel
// arguments, reference and validation as its GPU half (gpu_worker/family.h), on the host, at the small size
// its shape names (FamilyShape::cpu_problem). A family's shape hands it out (FamilyShape::make_cpu).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include "cpu/cpu_machine.h"
#include "model/element_bits.h"
#include "model/family_common.h"
#include "tilelab/result.h"

namespace tilelab {

class CpuFamily {
public:
    virtual ~CpuFamily() = default;
    // Adds the buffers to `m` (inputs seeded, the output all 0xFF bytes: NaN), sets the module's
    // variables (the stencil's coefficients) and returns the kernel's arguments in order: buffer
    // addresses, sizes, and 0 for the counters pointer (the CPU run counts by itself). The reference
    // computes what `options` ask (FamilyShape::options_invalid_reason has accepted them).
    virtual std::vector<uint64_t> prepare(cpu::Machine& m, const Problem& p, const Precision& precision,
                                          const FamilyOptions& options, uint64_t seed) = 0;
    // Sets the module's variables in `m` (the stencil's __constant__ coefficients), as the GPU
    // half's on_library_loaded does: called for each kernel's machine of a run of several, after
    // prepare (which sets the first one's).
    virtual void set_module_variables(cpu::Machine& m) { (void)m; }
    // The arguments of launch `index` of the `count` that make one run: `args` (prepare's) for
    // most families; a family that chains launches (Family::before_launch) points them at the
    // buffers that launch reads and writes.
    virtual std::vector<uint64_t> args_for_launch(const std::vector<uint64_t>& args, size_t index, size_t count) {
        (void)index, (void)count;
        return args;
    }
    // Compares the output with the reference, as the GPU half does (same tolerance, same message).
    virtual Validation validate(cpu::Machine& m) = 0;
    // Whether prepare() lays out inputs of these element types as the GPU half does. FP32 unless
    // the family says more (the attention family's BF16 and FP16 inputs).
    virtual bool takes(const Precision& precision) const { return precision.plain_fp32(); }
};

// What comparing an output with its reference found (the GPU's CompareSummary, on the host).
struct HostComparison {
    uint64_t bad = 0, first_bad = ~uint64_t(0);
    double max_abs = 0, max_rel = 0;
};

// |got − expected| / max(1, |expected|) ≤ tolerance, NaN failing; `exact(i)` marks elements that
// must be equal bit for bit (a stencil's boundary cells).
template <class Expected, class Exact>
HostComparison compare_on_host(const float* got, const Expected* expected, size_t n, double tolerance, Exact exact) {
    HostComparison c;
    for (size_t i = 0; i < n; ++i) {
        const double g = double(got[i]), e = double(expected[i]);
        const double err = std::fabs(g - e), scaled = err / std::fmax(1.0, std::fabs(e));
        const bool ok = exact(i) ? g == e : scaled <= tolerance;
        if (!ok && c.bad++ == 0) c.first_bad = i;
        if (!std::isnan(err)) c.max_abs = std::fmax(c.max_abs, err), c.max_rel = std::fmax(c.max_rel, scaled);
    }
    return c;
}

// Copies the comparison into v; returns v.passed.
inline bool record_host_comparison(Validation& v, const HostComparison& c) {
    v.max_abs_error = c.max_abs;
    v.max_rel_error = c.max_rel;
    v.passed = c.bad == 0;
    return v.passed;
}

// A buffer holding `values` (an input), or `count` floats of all-ones bytes, NaN (an output the
// kernel must write).
inline cpu::Buffer float_buffer(const char* name, const std::vector<float>& values) {
    cpu::Buffer b{name, std::vector<uint8_t>(values.size() * sizeof(float)), int(sizeof(float))};
    std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
    return b;
}
inline cpu::Buffer poisoned_buffer(const char* name, size_t count) {
    return {name, std::vector<uint8_t>(count * sizeof(float), 0xFF), int(sizeof(float))};
}

// `n` seeded values rounded to `type` as the GPU's fill does: the floats the kernel reads, and the
// buffer that holds them in memory (4 or 2 bytes an element).
struct SeededInput {
    std::vector<float> values;
    cpu::Buffer buffer;
};

inline SeededInput seeded_input(const char* name, uint64_t seed, size_t n, ElementType type, float scale = 1.0f) {
    SeededInput in;
    in.values.resize(n);
    for (size_t i = 0; i < n; ++i) in.values[i] = seeded_uniform(seed, i) * scale;   // a power of two: exact
    if (element_bytes(type) == 4) {
        in.buffer = float_buffer(name, in.values);
        return in;
    }
    in.buffer = cpu::Buffer{name, std::vector<uint8_t>(2 * n), 2};
    for (size_t i = 0; i < n; ++i) {
        const bool bf16 = type == ElementType::bf16;
        const uint16_t h = bf16 ? cpu::float_to_bf16(in.values[i]) : cpu::float_to_half(in.values[i]);
        in.values[i] = bf16 ? cpu::bf16_to_float(h) : cpu::half_to_float(h);
        std::memcpy(in.buffer.bytes.data() + 2 * i, &h, 2);
    }
    return in;
}

// The floats of buffer i.
inline const float* floats_of(cpu::Machine& m, size_t i) { return reinterpret_cast<const float*>(m.buffer(i).bytes.data()); }

}  // namespace tilelab
