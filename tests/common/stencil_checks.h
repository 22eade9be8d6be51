// What the stencil model tests look up (test_stencil_models.cpp, test_stencil_figures.cpp): a
// registered variant, a grid size, and the engine's whole check of a request on a target.
#pragma once
#include <gtest/gtest.h>
#include <cstdint>
#include <string>
#include "lookups.h"
#include "model_engine.h"
#include "test_target.h"
#include "tilelab/engine.h"

namespace tilelab::test {

inline const Variant& variant(const std::string& id) { return registered_variant(id); }

inline Problem grid(int64_t nx, int64_t ny, int64_t nz) { return Problem{{nx, ny, nz}}; }

// The whole check, as the engine makes it on `t`: the family's, the variant's own and the launch
// limits every variant shares (threads and sides of a block, the grid, shared memory).
inline std::string engine_invalid_reason(const std::string& id, const ParamValues& p, const Problem& pr,
                                         const Target& t = testing::test_target()) {
    static Engine engine(EngineConfig{"", /*force_model_mode=*/true});
    engine.set_target(t);
    return engine.invalid_reason(RunRequest{id, p, pr});
}

// The kernel's PTX run on the CPU at the request's problem (engine/src/cpu/): validated, and every
// access it counted (global and shared, loads and stores) equal to the model's.
inline void expect_cpu_run_passes_with_the_models_counts(const RunRequest& req, uint64_t seed) {
    RunOptions o;
    o.cpu_check = true;
    o.seed = seed;
    o.cpu_problem = req.problem;
    const RunResult r = model_engine().run(req, o);
    ASSERT_TRUE(r.cpu.has_value()) << r.stage << ": " << r.error;
    const CpuCheck& c = *r.cpu;
    EXPECT_EQ(c.status, "passed") << c.message << c.validation.message;
    EXPECT_EQ(c.counted.global_loads, c.model.global_loads);
    EXPECT_EQ(c.counted.global_stores, c.model.global_stores);
    EXPECT_EQ(c.counted.shared_loads, c.model.shared_loads);
    EXPECT_EQ(c.counted.shared_stores, c.model.shared_stores);
}

}  // namespace tilelab::test
