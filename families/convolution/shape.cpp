// The convolution family's shape (family_shape.h): a W×H image (the first two sizes; the third is
// not used) and the options that say what it computes (shape.h). Its GPU half is gpu_cuda.cpp.
#include <fmt/format.h>
#include "../../kernels/convolution/filter_bank.cuh"
#include "model/family_shape.h"
#include "shape.h"
#include "tilelab/i18n.h"
#include "tilelab/registration.h"

namespace tilelab {
namespace {

int option(const FamilyOptions& o, const char* name) {
    const auto it = o.find(name);
    return it == o.end() ? -1 : it->second;
}

class ConvolutionShape final : public FamilyShape {
public:
    std::array<std::string, 3> dim_names() const override { return {"W", "H", "(unused)"}; }

    std::string problem_invalid_reason(const Problem& p) const override {
        const auto names = dim_names();
        for (int i = 0; i < 2; ++i)
            if (const std::string why = past_int_reason(p, i); !why.empty()) return why;
        if (p.dim[0] < 1 || p.dim[1] < 1) return trf("family.convolution.shape.empty", p.dim[0], p.dim[1]);
        if (double(p.dim[0]) * double(p.dim[1]) > kMaxBufferElements)
            return trf("family.convolution.shape.too_large", double(p.dim[0]) * double(p.dim[1]), kMaxBufferElements);
        return "";
    }

    std::string options_invalid_reason(const FamilyOptions& o) const override {
        const int r = option(o, "radius"), f = option(o, "filters"), lanes = option(o, "per_lane");
        if (o.size() != 3 || r < 1 || r > TL_CONV_MAX_RADIUS || f < 1 || f > TL_CONV_MAX_FILTERS || lanes < 0 || lanes > 1)
            return trf("family.convolution.shape.options", TL_CONV_MAX_RADIUS, TL_CONV_MAX_FILTERS, format_options(o));
        return "";
    }

    // Input, output and reference, and the bank.
    size_t device_bytes(const Problem& p, const Precision&, const FamilyOptions&) const override {
        return 3 * sizeof(float) * size_t(p.dim[0]) * size_t(p.dim[1]) + sizeof(float) * TL_CONV_MAX_FILTERS * TL_CONV_MAX_TAPS;
    }
    // The image is the work; the third size is not used.
    double work(const Problem& p) const override { return double(p.dim[0]) * double(p.dim[1]); }
    // Partial blocks on the right and at the bottom, a halo that crosses every edge.
    Problem cpu_problem() const override { return Problem{{70, 37, 1}}; }
    std::array<SizeRange, 3> test_sizes(TestSizes kind) const override {
        const SizeRange r = kind == TestSizes::small ? SizeRange{1, 200} : kind == TestSizes::large ? SizeRange{600, 2100}
                                                                                                    : SizeRange{1024, 4096};
        return {r, r, SizeRange{1, 700}};   // the third size is not used
    }
    Problem test_problem() const override { return Problem{{2048, 2048, 1}}; }
};

}  // namespace

ConvOptions conv_options(const FamilyOptions& o) {
    ConvOptions c;
    c.radius = std::max(1, option(o, "radius"));
    c.filters = std::max(1, option(o, "filters"));
    c.per_lane = option(o, "per_lane") == 1;
    return c;
}

std::vector<float> conv_bank(const ConvOptions& o) {
    std::vector<float> bank(size_t(o.taps()) * size_t(o.filters));
    for (int t = 0; t < o.taps(); ++t)
        for (int f = 0; f < o.filters; ++f) bank[size_t(t) * size_t(o.filters) + size_t(f)] = conv_filter_weight(f, t);
    return bank;
}

std::string conv_mismatch(size_t at, int w, float value, float expected, uint64_t bad, size_t n) {
    return trf("family.convolution.shape.mismatch", at % size_t(w), at / size_t(w), value, expected, kConvTolerance,
               bad, n);
}

std::unique_ptr<FamilyShape> make_convolution_shape() { return std::make_unique<ConvolutionShape>(); }
TILELAB_REGISTER_FAMILY("convolution", make_convolution_shape)

}  // namespace tilelab
