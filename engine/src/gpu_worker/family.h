// Internal to the GPU worker (uses CUDA; TILELAB_CUDA=ON only). A problem family owns what is
// common to all its variants on the GPU: the buffers, random inputs, kernel arguments, the
// reference and validation, and the reference timing ("% of cuBLAS" / "% of copy bandwidth").
// Looked up by name. Its sizes and their limits are the family's shape (family_shape.h), which
// the client checks without CUDA.
#pragma once
#include <cuda_runtime.h>
#include <memory>
#include <string>
#include <vector>
#include "tilelab/result.h"

namespace tilelab {

class Family {
public:
    virtual ~Family() = default;
    // Allocate buffers and fill inputs with seeded random values (never zeros) of the kernel's
    // element types (FamilyShape::precision_invalid_reason has accepted them), and the reference
    // of what `options` ask (options_invalid_reason has accepted them). Throws on CUDA errors.
    virtual void setup(const Problem& p, const Precision& precision, const FamilyOptions& options, uint64_t seed) = 0;
    // Called after the cubin is loaded, e.g. to set __constant__ coefficients.
    virtual void on_library_loaded(cudaLibrary_t lib) { (void)lib; }
    // Fill the output with a poison value (NaN pattern) before each run.
    virtual void poison_output(cudaStream_t s) = 0;
    // Pointers to the kernel's arguments, in order (see variant.h for the conventions).
    virtual std::vector<void*> kernel_args(unsigned long long* counters) = 0;
    // Before launch `index` of the `count` that make one run (a variant of several passes, some
    // repeated): a family that chains launches points the arguments kernel_args gave at the
    // buffers this one reads and writes. Nothing for the others.
    virtual void before_launch(size_t index, size_t count) { (void)index, (void)count; }
    // Compare the output with the reference (computed once per setup).
    virtual Validation validate() = 0;
    // Time the reference at this size and precision: cuBLAS or a device copy. Returns ms, name set.
    virtual double reference_ms(std::string& name) = 0;
};

std::unique_ptr<Family> make_family(const std::string& name);

}  // namespace tilelab
