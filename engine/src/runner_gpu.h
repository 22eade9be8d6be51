// The GPU side of Engine::run(): buffers, loading, launching, validating, timing and counting
// one analysed configuration; and the ceilings. Holds every piece of device state the engine
// keeps between runs, so that a fault can drop all of it at once and start afresh.
// Not thread-safe: the engine serializes calls with its GPU mutex.
#pragma once
#include <map>
#include <memory>
#include <string>
#include "device_buffer.h"
#include "family.h"
#include "runner_timing.h"
#include "tilelab/compile.h"
#include "tilelab/engine.h"

namespace tilelab {

class GpuRunner {
public:
    GpuRunner(CompileService& compiler, size_t l2_bytes);
    ~GpuRunner();
    GpuRunner(const GpuRunner&) = delete;
    GpuRunner& operator=(const GpuRunner&) = delete;

    // `r` comes from analyze() with ok == true; `arch` is the target's (90 for sm_90), for the
    // instrumented build. Fills the measured fields, or sets ok = false with the stage and a
    // one-line error. Never throws.
    void measure(RunResult& r, const Variant& v, int arch, const RunOptions& opt, const CancelFlag* cancel);

    // Device copy bandwidth and cuBLAS SGEMM at 4096³. Never throws (measured = false on error).
    Ceilings measure_ceilings();

private:
    struct FamilySlot {
        std::unique_ptr<Family> family;
        Problem problem;
        uint64_t seed = 0;
    };

    Family& family_for(const std::string& name, const Problem& p, uint64_t seed);
    void check_memory(const std::string& family_name, const Problem& p);
    const LoadedLibrary& library_for(const CompileResult& c);
    L2Flusher& flusher();
    // After a CUDA error: if the context is lost, reset the device and forget all device state.
    // Returns true if it reset.
    bool recover_if_broken(cudaError_t code);

    CompileService& compiler_;
    size_t l2_bytes_;
    std::map<std::string, FamilySlot> families_;                       // by family name
    std::map<std::string, std::unique_ptr<LoadedLibrary>> libraries_;  // by cubin hash and kernel name
    std::unique_ptr<L2Flusher> flusher_;
    std::map<std::string, std::pair<std::string, double>> reference_ms_;  // key -> (name, ms)
};

}  // namespace tilelab
