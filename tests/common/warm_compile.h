// NVRTC takes most of a GPU test's time, and the compile service is thread-safe: a test that runs
// many configurations compiles them all on every core first, so that its runs, one after another,
// find their kernels in the in-memory cache.
#pragma once
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>
#include "tilelab/engine.h"

namespace tilelab::testing {

// Compiles each request's kernel (analyze) and, with `counted`, the instrumented builds its run
// compiles (Engine::builds: the drawn problem's instance, sm_90a where needed, every pass's
// kernel). Until 2026-12-04 the warm-up derived the instrumented build itself, from the default
// problem at sm_90, and six variants' runs compiled their own one at a time.
inline void warm_compile_cache(Engine& engine, const std::vector<RunRequest>& requests, bool counted) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i = next++; i < requests.size(); i = next++) {
            const RunResult r = engine.analyze(requests[i]);
            if (!counted || !r.ok) continue;
            for (const CompileRequest& build : engine.builds(r.request, /*instrumented=*/true)) engine.compiler().compile(build);
        }
    };
    std::vector<std::thread> threads;
    const unsigned n = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
}

}  // namespace tilelab::testing
