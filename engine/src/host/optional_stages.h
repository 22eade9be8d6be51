// The counter pass and PC sampling are extras of a full run: a run keeps its validated time when
// either fails. When one of them loses the GPU's CUDA context (seen on an H100, 2026-12-05: every
// full run restarted the worker and the next drag waited seconds for a new one), the engine stops
// asking for it for the rest of the session and every later result says so (status "off").
#pragma once
#include <mutex>
#include <string>
#include "tilelab/result.h"

namespace tilelab {

class OptionalStages {
public:
    // What to ask the worker for: `wanted` less the stages turned off.
    RunOptions ask(const RunOptions& wanted) const;
    // After a run asked for with `wanted` came back as `m` (already applied to `r`): turns off a
    // stage that lost the context, and marks a stage that was wanted but left out as off.
    void learn(const RunOptions& wanted, const Measurement& m, RunResult& r);

private:
    mutable std::mutex mutex_;
    std::string counters_off_, stalls_off_;   // what happened, when off
};

}  // namespace tilelab
