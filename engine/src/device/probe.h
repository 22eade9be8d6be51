// Finding the GPU: whether there is one (and if not, why), and the Target read from it.
#pragma once
#include <cstddef>
#include "tilelab/device.h"
#include "tilelab/target.h"

namespace tilelab {

struct DeviceProbe {
    DeviceStatus status;
    Target target;          // filled only when status.gpu (target.l2_bytes: for flushing L2 between repetitions)
    int device = 0;         // the CUDA device index probed
    int device_count = 0;   // how many devices this host has (0 in model mode)
};

// Looks for device `device` (0: the first) without creating a CUDA context; an index past the
// last device is model mode with a sentence saying how many there are. Model mode when forced (argument or TILELAB_MODEL_MODE=1), when there is no
// driver, no device, or a driver too old for this runtime; status.reason then says which.
DeviceProbe probe_device(bool force_model_mode, int device = 0);

// FP32 lanes per SM of an architecture (the datasheet's "CUDA cores per SM"); 0 if unknown.
int fp32_lanes_per_sm(int sm_major, int sm_minor);

// Dense tensor-core FLOP per clock per SM with FP32 accumulation, by input type; 0 where the
// architecture has no such instruction (or is not in the table).
struct TensorRates {
    int tf32 = 0, bf16 = 0, fp16 = 0;
};
TensorRates tensor_flop_per_clock_per_sm(int sm_major, int sm_minor);

// Free and total device memory now (creates the context if there is none: GPU worker only).
void device_memory(size_t& free_bytes, size_t& total_bytes);

}  // namespace tilelab
