// GPU tests skip visibly where there is no GPU; they never pass silently.
#pragma once
#include <gtest/gtest.h>
#include "tilelab/engine.h"

namespace tilelab::testing {

// One engine for all tests of a process (the CUDA context and caches are shared).
inline Engine& shared_engine() {
    static Engine engine;
    return engine;
}

// Options for a test run: `warmup` and `repetitions` as asked, accesses counted when `count`, no
// reference timing, and no hardware-counter pass unless `hardware` (it replays the launch).
inline RunOptions test_run_options(int warmup, int repetitions, bool count, bool hardware = false) {
    return RunOptions{.warmup = warmup, .repetitions = repetitions, .count_accesses = count, .time_reference = false,
                      .hardware_counters = hardware};
}

}  // namespace tilelab::testing

#define TILELAB_REQUIRE_GPU()                                                              \
    do {                                                                                   \
        if (!::tilelab::testing::shared_engine().device().gpu)                             \
            GTEST_SKIP() << "no GPU: " << ::tilelab::testing::shared_engine().device().reason; \
    } while (0)
