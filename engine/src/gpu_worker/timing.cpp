#include "gpu_worker/timing.h"
#include <algorithm>

namespace tilelab {
namespace {
// The plan of the run in progress. GPU work is serialized by the engine's mutex, so one is enough.
const TimingPlan* current_reference_plan = nullptr;
}  // namespace

void summarize(Timing& out) {
    if (out.samples_ms.empty()) return;
    std::vector<double> sorted = out.samples_ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    out.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    out.min_ms = sorted.front();
    out.max_ms = sorted.back();
}

bool time_launches(const std::function<void()>& launch, const TimingPlan& plan, Timing& out) {
    out = {};
    for (int i = 0; i < plan.warmup; ++i) launch();
    TL_CUDA_CHECK(cudaDeviceSynchronize());

    CudaEvent start, stop;
    for (int rep = 0; rep < plan.repetitions; ++rep) {
        if (plan.cancel && plan.cancel->load()) {
            summarize(out);
            return false;
        }
        if (plan.flusher) plan.flusher->flush();
        TL_CUDA_CHECK(cudaEventRecord(start.get(), nullptr));
        launch();
        TL_CUDA_CHECK(cudaEventRecord(stop.get(), nullptr));
        out.samples_ms.push_back(elapsed_ms(start, stop));
    }
    summarize(out);
    return true;
}

double time_reference(const std::function<void()>& launch) {
    TimingPlan plan;
    if (current_reference_plan) plan = *current_reference_plan;
    plan.cancel = nullptr;   // a reference is short; finish it rather than report half a number
    plan.repetitions = std::max(plan.repetitions, 3);
    Timing t;
    time_launches(launch, plan, t);
    return t.median_ms;
}

ScopedReferencePlan::ScopedReferencePlan(const TimingPlan& plan) : previous_(current_reference_plan) {
    current_reference_plan = &plan;
}
ScopedReferencePlan::~ScopedReferencePlan() { current_reference_plan = previous_; }

}  // namespace tilelab
