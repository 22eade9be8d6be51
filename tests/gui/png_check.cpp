// Checks a screenshot: the expected size, and enough going on to be a drawn UI rather than a
// cleared framebuffer: many distinct colours and enough pixels that differ from the background.
//   tilelab_png_check FILE.png WIDTH HEIGHT    exit 0 when it passes
//   tilelab_png_check --self-test              a blank and a two-colour image must both fail
#include <stb_image.h>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

// A drawn UI at 1600x900 has thousands of colours (anti-aliased text); a blank one has 1.
constexpr size_t kMinDistinctColours = 64;
// At least this fraction of pixels differs from the most common colour (the background).
constexpr double kMinForegroundFraction = 0.02;

std::string check(const unsigned char* rgba, int w, int h) {
    std::set<unsigned> colours;
    std::map<unsigned, size_t> counts;
    for (size_t i = 0; i < size_t(w) * h; ++i) {
        const unsigned c = unsigned(rgba[4 * i]) << 16 | unsigned(rgba[4 * i + 1]) << 8 | rgba[4 * i + 2];
        colours.insert(c);
        ++counts[c];
    }
    size_t background = 0;
    for (const auto& [c, n] : counts) background = std::max(background, n);
    const double foreground = 1.0 - double(background) / (double(w) * h);
    char why[200];
    if (colours.size() < kMinDistinctColours) {
        std::snprintf(why, sizeof why, "only %zu distinct colours (need %zu)", colours.size(), kMinDistinctColours);
        return why;
    }
    if (foreground < kMinForegroundFraction) {
        std::snprintf(why, sizeof why, "only %.2f%% of pixels differ from the background (need %.0f%%)",
                      100 * foreground, 100 * kMinForegroundFraction);
        return why;
    }
    std::printf("%zu distinct colours, %.1f%% foreground\n", colours.size(), 100 * foreground);
    return "";
}

int self_test() {
    const int w = 64, h = 32;
    std::vector<unsigned char> blank(size_t(w) * h * 4, 30);
    std::vector<unsigned char> two = blank;
    for (int i = 0; i < w * h / 2; ++i) two[4 * size_t(i)] = 200;
    if (check(blank.data(), w, h).empty() || check(two.data(), w, h).empty()) {
        std::fprintf(stderr, "self-test: a trivial image passed the check\n");
        return 1;
    }
    std::printf("self-test: blank and two-colour images are rejected\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--self-test") == 0) return self_test();
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s FILE.png WIDTH HEIGHT | --self-test\n", argv[0]);
        return 2;
    }
    int w = 0, h = 0, channels = 0;
    unsigned char* rgba = stbi_load(argv[1], &w, &h, &channels, 4);
    if (!rgba) {
        std::fprintf(stderr, "%s: cannot read: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    int rc = 0;
    if (w != std::atoi(argv[2]) || h != std::atoi(argv[3])) {
        std::fprintf(stderr, "%s: %dx%d, expected %sx%s\n", argv[1], w, h, argv[2], argv[3]);
        rc = 1;
    } else if (std::string why = check(rgba, w, h); !why.empty()) {
        std::fprintf(stderr, "%s: looks blank: %s\n", argv[1], why.c_str());
        rc = 1;
    }
    stbi_image_free(rgba);
    return rc;
}
