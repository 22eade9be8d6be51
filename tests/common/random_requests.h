// Random valid configurations of a variant for the model tests: every parameter drawn from its
// values, the sizes odd (1..max_dim) or, every `aligned_every`-th one, multiples of `align` (where
// a kernel's vector copies and whole-tile stores run), kept only when the model engine accepts them.
#pragma once
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "model_engine.h"
#include "tilelab/format.h"
#include "tilelab/result.h"
#include "tilelab/variant.h"

namespace tilelab::test {

struct RandomSizes {
    int64_t max_dim = 300;   // odd sizes: 1..max_dim
    int64_t align = 8;       // aligned sizes: align·(1..max_dim/align)
    int aligned_every = 3;   // every this many accepted requests is aligned
};

inline std::vector<RunRequest> random_valid_requests(const Variant& v, int count, uint32_t seed, RandomSizes sizes = {}) {
    std::mt19937 rng(seed);
    std::vector<RunRequest> out;
    for (int attempt = 0; attempt < 200 * count && int(out.size()) < count; ++attempt) {
        RunRequest req;
        req.variant = v.id;
        for (const ParamSpec& s : v.params) {
            const auto values = s.values();
            req.params[s.name] = values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
        }
        const bool aligned = out.size() % size_t(sizes.aligned_every) == 0;
        for (auto& d : req.problem.dim)
            d = aligned ? sizes.align * std::uniform_int_distribution<int64_t>(1, sizes.max_dim / sizes.align)(rng)
                        : std::uniform_int_distribution<int64_t>(1, sizes.max_dim)(rng);
        if (model_engine().invalid_reason(req).empty()) out.push_back(req);
    }
    if (int(out.size()) < count)
        throw std::runtime_error(v.id + ": only " + std::to_string(out.size()) + " valid random configurations found");
    return out;
}

// A model test's loop: for each random valid request, its full parameter values, its problem and
// the variant's cost model handed to `check`, under a trace naming the kernel and the size.
template <class Check>
void for_random_models(const Variant& v, int count, uint32_t seed, RandomSizes sizes, Check check) {
    for (const RunRequest& req : random_valid_requests(v, count, seed, sizes)) {
        const ParamValues values = with_defaults(v.params, req.params);
        SCOPED_TRACE(v.kernel(values).name_expression + " at " + format_problem(req.problem));
        check(values, req.problem, v.cost_model(values, req.problem));
    }
}

}  // namespace tilelab::test
