// The latency family's shape (family_shape.h): B blocks (the first size), each thread doing FMAS
// fused multiply-adds (the second) on kLatencyChains chains; the threads per block come from the
// variant (the family option "threads_per_block"). Its GPU half is families/latency/gpu_cuda.cpp.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include "model/family_common.h"
#include "model/family_shape.h"
#include "shape.h"
#include "tilelab/i18n.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

// 2048 blocks of 1024 threads, 8 chains: 2^24 floats a buffer (the host builds the inputs and
// the expected values: 192 MB at most).
constexpr int64_t kMaxBlocks = 2048;

class LatencyShape final : public FamilyShape {
public:
    std::array<std::string, 3> dim_names() const override { return {"blocks", "FMAs / thread", "(unused)"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        if (p.dim[0] < 1 || p.dim[0] > kMaxBlocks) return trf("family.latency.shape.blocks", p.dim[0], kMaxBlocks);
        const int64_t f = p.dim[1];
        if (f < kLatencyChains || f > kLatencyMaxFmas || f % kLatencyChains != 0)
            return trf("family.latency.shape.fmas", f, kLatencyChains, kLatencyMaxFmas);
        return "";
    }

    std::string options_invalid_reason(const FamilyOptions& o) const override {
        const auto it = o.find("threads_per_block");
        if (o.size() != 1 || it == o.end() || it->second < 1 || it->second > 1024)
            return trf("family.latency.shape.options", format_options(o));
        return "";
    }

    // Starts, increments, the output and the expected values: four floats a chain.
    size_t device_bytes(const Problem& p, const Precision&, const FamilyOptions& options) const override {
        return 4 * sizeof(float) * kLatencyChains * size_t(latency_threads(p, options));
    }
    // Three blocks, 64 FMAs a thread (eight steps a chain): quick thread by thread.
    Problem cpu_problem() const override { return Problem{{3, 64, 1}}; }
    // Blocks 1-300 (132-1056 large) and FMAs/thread 8-4096 (draws that are not multiples of 8 are
    // refused and drawn again).
    std::array<SizeRange, 3> test_sizes(TestSizes kind) const override {
        const SizeRange blocks = kind == TestSizes::large ? SizeRange{132, 1056} : SizeRange{1, 300};
        return {blocks, SizeRange{8, 4096}, SizeRange{1, 700}};   // the third size is not used
    }
    Problem test_problem() const override { return Problem{{132, 4096, 1}}; }
};

}  // namespace

uint64_t latency_threads(const Problem& p, const FamilyOptions& options) {
    const auto it = options.find("threads_per_block");
    return uint64_t(std::max<int64_t>(0, p.dim[0])) * uint64_t(it == options.end() ? 0 : std::max(0, it->second));
}

// Starts from seed, increments from seed + 1: integers, so the chains are exact in float.
LatencyInputs latency_inputs(uint64_t seed, uint64_t threads, int64_t fmas) {
    const size_t n = size_t(threads) * kLatencyChains;
    const float steps = float(fmas / kLatencyChains);
    LatencyInputs in;
    in.start.resize(n), in.increment.resize(n), in.expected.resize(n);
    for (size_t i = 0; i < n; ++i) {
        // seeded_uniform is in [-1, 1): (u + 1)/2 in [0, 1).
        in.start[i] = std::floor((seeded_uniform(seed, i) + 1.0f) * 0.5f * kLatencyStartRange);
        in.increment[i] = 1.0f + std::floor((seeded_uniform(seed + 1, i) + 1.0f) * 0.5f * kLatencyMaxIncrement);
        in.expected[i] = in.start[i] + steps * in.increment[i];   // below 2^24: exact
    }
    return in;
}

std::string latency_mismatch(size_t at, uint64_t threads, float value, float expected, uint64_t bad, size_t n) {
    return trf("family.latency.shape.mismatch", at / threads, at % threads, value, expected, bad, n);
}

std::unique_ptr<FamilyShape> make_latency_shape() { return std::make_unique<LatencyShape>(); }
TILELAB_REGISTER_FAMILY("latency", make_latency_shape)

}  // namespace tilelab
