// The bandwidth family's shape (family_shape.h): B blocks (the first size) read N floats (the
// second); the third size is not used. Its GPU half is families/bandwidth/gpu_cuda.cpp.
#include <fmt/format.h>
#include <algorithm>
#include <cstring>
#include <future>
#include <vector>
#include "model/family_common.h"
#include "model/family_shape.h"
#include "shape.h"
#include "tilelab/i18n.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

constexpr int64_t kMaxBlocks = 2048;

class BandwidthShape final : public FamilyShape {
public:
    std::array<std::string, 3> dim_names() const override { return {"blocks", "N", "(unused)"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        if (p.dim[0] < 1 || p.dim[0] > kMaxBlocks) return trf("family.bandwidth.shape.blocks", p.dim[0], kMaxBlocks);
        if (p.dim[1] < 1 || p.dim[1] > kBandwidthMaxFloats)
            return trf("family.bandwidth.shape.floats", p.dim[1], kBandwidthMaxFloats);
        return "";
    }

    // The input, the sum, and half the input again for the copy the reference times.
    size_t device_bytes(const Problem& p, const Precision&, const FamilyOptions&) const override {
        return sizeof(float) * size_t(p.dim[1]) * 3 / 2 + sizeof(uint64_t) + 16;
    }
    // The floats read: the first size is the grid, the third is not used.
    double work(const Problem& p) const override { return double(p.dim[1]); }
    // Three blocks reading a few passes' worth, with a tail that no vector covers.
    Problem cpu_problem() const override { return Problem{{3, 5003, 1}}; }
    std::array<SizeRange, 3> test_sizes(TestSizes kind) const override {
        const SizeRange blocks = kind == TestSizes::large ? SizeRange{132, 1056} : SizeRange{1, 300};
        const SizeRange n = kind == TestSizes::small ? SizeRange{1, 200000} : SizeRange{1 << 22, 1 << 24};
        return {blocks, n, SizeRange{1, 700}};   // the third size is not used
    }
    Problem test_problem() const override { return Problem{{132, 1 << 24, 1}}; }
};

uint64_t sum_of_bits(uint64_t seed, int64_t from, int64_t to) {
    uint64_t s = 0;
    for (int64_t i = from; i < to; ++i) {
        const float v = seeded_uniform(seed, uint64_t(i));
        uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        s += bits;
    }
    return s;
}

}  // namespace

uint64_t bandwidth_expected_sum(uint64_t seed, int64_t n) {
    constexpr int64_t kPerTask = int64_t(1) << 22;
    if (n <= kPerTask) return sum_of_bits(seed, 0, n);
    std::vector<std::future<uint64_t>> parts;
    const int64_t tasks = std::min<int64_t>(16, (n + kPerTask - 1) / kPerTask);
    for (int64_t k = 0; k < tasks; ++k)
        parts.push_back(std::async(std::launch::async, sum_of_bits, seed, n * k / tasks, n * (k + 1) / tasks));
    uint64_t s = 0;
    for (auto& f : parts) s += f.get();
    return s;
}

std::string bandwidth_mismatch(uint64_t got, uint64_t expected, int64_t n) {
    return trf("family.bandwidth.shape.mismatch", got, expected, n);
}

std::unique_ptr<FamilyShape> make_bandwidth_shape() { return std::make_unique<BandwidthShape>(); }
TILELAB_REGISTER_FAMILY("bandwidth", make_bandwidth_shape)

}  // namespace tilelab
