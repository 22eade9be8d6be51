// Internal to the engine, no CUDA: a problem family's shape — the names of its sizes, which sizes
// it accepts (with the reason when not) and the device memory they need. The client checks a
// request with it before anything is compiled; the GPU worker sizes its buffers with it. The
// family's GPU half (buffers, reference, validation) is family.h. Looked up by name.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include "tilelab/params.h"
#include "tilelab/precision.h"
#include "tilelab/result.h"

namespace tilelab {

// The most elements one buffer of a family may hold: 2^30 floats is 4 GiB, and a family keeps
// about three such buffers (input, output, reference) on the device.
inline constexpr double kMaxBufferElements = double(int64_t(1) << 30);

class FamilyShape {
public:
    virtual ~FamilyShape() = default;
    virtual std::array<std::string, 3> dim_names() const = 0;   // {"M","N","K"}
    // Empty if the sizes are acceptable (positive, within int range, ...), else a sentence.
    virtual std::string problem_invalid_reason(const Problem& p) const = 0;
    // Empty if the family runs kernels of these element types; else a sentence. Default: FP32 only.
    virtual std::string precision_invalid_reason(const Precision& p) const;
    // Empty if the family computes what these options ask (tilelab/params.h); else a sentence.
    // Default: none taken.
    virtual std::string options_invalid_reason(const FamilyOptions& o) const;
    // Device memory all buffers need, in bytes (checked against free memory up front), for a
    // kernel of these types and options (accepted by the two checks above).
    virtual size_t device_bytes(const Problem& p, const Precision& precision, const FamilyOptions& options) const = 0;
    // The CPU run (engine/src/cpu/): the small problem it runs at — large enough for several blocks
    // and partial tiles at every edge, small enough for a verdict in about a second thread by
    // thread. The family's CPU half registers itself (TILELAB_REGISTER_CPU_FAMILY, cpu.cpp).
    virtual Problem cpu_problem() const { return {}; }
    // The elements a problem's kernel works through, for the lessons' size budgets (a default size
    // that redraws quickly, a CPU size that runs in a second): the product of the sizes, unless a
    // size is not work (the bandwidth family's first size is its grid).
    virtual double work(const Problem& p) const { return double(p.dim[0]) * double(p.dim[1]) * double(p.dim[2]); }

    // The sizes the GPU tests draw from, per dimension, inclusive: small (no multiple of any
    // tile), large (several blocks of the largest tiles), and the counter tests' (large enough
    // that DRAM traffic means something, small enough to stay quick); and one fixed size.
    enum class TestSizes { small, large, counters };
    struct SizeRange {
        int64_t lo = 1, hi = 1;
    };
    virtual std::array<SizeRange, 3> test_sizes(TestSizes kind) const;
    virtual Problem test_problem() const { return Problem{{1024, 1024, 1024}}; }

protected:
    // A sentence if size i of `p` is more than the kernels' int arguments hold, else "".
    std::string past_int_reason(const Problem& p, int i) const;
};

// nullptr for a name no family registered (TILELAB_REGISTER_FAMILY).
std::unique_ptr<FamilyShape> make_family_shape(const std::string& name);

}  // namespace tilelab
