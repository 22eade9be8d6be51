// An engine that only models (force_model_mode: no GPU is asked for), for the tests that ask
// models, constraints and lesson text. One per test file, as each file had its own.
#pragma once
#include "tilelab/engine.h"

namespace tilelab::test {

static inline Engine& model_engine() {
    static Engine engine(EngineConfig{"", /*force_model_mode=*/true});
    return engine;
}

}  // namespace tilelab::test
