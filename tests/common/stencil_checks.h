// What the stencil model tests look up (test_stencil_models.cpp, test_stencil_figures.cpp): a
// registered variant, a grid size, and the engine's whole check of a request on a target.
#pragma once
#include <gtest/gtest.h>
#include <cstdint>
#include <string>
#include "cpu_checks.h"
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

}  // namespace tilelab::test
