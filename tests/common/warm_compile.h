// NVRTC takes most of a GPU test's time, and the compile service is thread-safe: a test that runs
// many configurations compiles them all on every core first, so that its runs, one after another,
// find their kernels in the in-memory cache.
#pragma once
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>
#include "tilelab/engine.h"
#include "tilelab/kernel_build.h"
#include "tilelab/variant.h"

namespace tilelab::testing {

// Compiles each request's kernel (analyze) and, with `counted`, its instrumented build: the
// instance the run builds (kernel_for: where the problem picks the instantiation, the default
// problem's would be another kernel) through the engine's own request (kernel_build: sm_90a for
// the kernels that need it). Until 2026-12-04 the warm-up built the default problem's instance at
// sm_90, and six variants' runs compiled their own one at a time.
inline void warm_compile_cache(Engine& engine, const std::vector<RunRequest>& requests, bool counted) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i = next++; i < requests.size(); i = next++) {
            const RunResult r = engine.analyze(requests[i]);
            const Variant* v = find_variant(requests[i].variant);
            if (!counted || !r.ok || !v) continue;
            const KernelInstance k = kernel_for(*v, r.request.params, r.request.problem);
            engine.compiler().compile(kernel_build(k, engine.target().arch(), /*instrumented=*/true));
        }
    };
    std::vector<std::thread> threads;
    const unsigned n = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
}

}  // namespace tilelab::testing
