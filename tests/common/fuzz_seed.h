// The seed of a fuzz suite: fixed, so that a failure in CI reproduces; for a longer campaign with
// other inputs, TILELAB_FUZZ_SEED=N mixes N into it (scripts/fuzz_campaign.sh runs the suites
// over many N). The seed in use is printed once, so a failing campaign run names it.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace tilelab::test {

inline uint32_t fuzz_seed(uint32_t fixed) {
    const char* v = std::getenv("TILELAB_FUZZ_SEED");
    if (!v || !*v) return fixed;
    const uint32_t seed = fixed ^ uint32_t(std::strtoul(v, nullptr, 0)) * 0x9E3779B9u;
    std::fprintf(stderr, "fuzz: TILELAB_FUZZ_SEED=%s, seed 0x%08x instead of 0x%08x\n", v, seed, fixed);
    return seed;
}

}  // namespace tilelab::test
