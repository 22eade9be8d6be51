// Timing on the GPU, the same way for every kernel and every reference: warm-up launches, then
// repetitions each bracketed by CUDA events, the L2 cache flushed before each one (unless turned
// off) so that no repetition finds the previous one's data on chip; median, min and max.
#pragma once
#include <cuda_runtime.h>
#include <functional>
#include "gpu_worker/device_buffer.h"
#include "tilelab/device.h"
#include "tilelab/result.h"

namespace tilelab {

// Writes a buffer twice the size of L2, which evicts whatever the last launch left there.
class L2Flusher {
public:
    explicit L2Flusher(size_t l2_bytes) : buffer_(2 * l2_bytes) {}
    void flush() {
        // A different byte each time, so no level of the memory system can skip the writes.
        TL_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), ++pattern_ & 0xff, buffer_.bytes(), nullptr));
    }
    size_t bytes() const { return buffer_.bytes(); }
    const float* data() const { return static_cast<const float*>(buffer_.get()); }

private:
    DeviceBuffer buffer_;
    int pattern_ = 0;
};

struct TimingPlan {
    int warmup = 2;
    int repetitions = 10;
    L2Flusher* flusher = nullptr;         // nullptr: no flush between repetitions
    const CancelFlag* cancel = nullptr;   // checked before each repetition
};

// Times `launch` (which enqueues one kernel on the default stream and checks its launch error).
// Returns false if cancelled; `out` then holds the repetitions done so far.
bool time_launches(const std::function<void()>& launch, const TimingPlan& plan, Timing& out);

// Median, min and max of out.samples_ms.
void summarize(Timing& out);

// For the families' reference_ms(): times `launch` like the kernel of the run in progress (same
// warm-up, repetitions and flush), and returns the median in ms. The runner sets the plan for
// the duration of a run with ScopedReferencePlan.
double time_reference(const std::function<void()>& launch);

class ScopedReferencePlan {
public:
    explicit ScopedReferencePlan(const TimingPlan& plan);
    ~ScopedReferencePlan();
    ScopedReferencePlan(const ScopedReferencePlan&) = delete;
    ScopedReferencePlan& operator=(const ScopedReferencePlan&) = delete;

private:
    const TimingPlan* previous_;
};

}  // namespace tilelab
