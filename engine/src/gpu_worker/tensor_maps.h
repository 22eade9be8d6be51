// TMA tensor maps for a launch (tilelab/variant.h's TensorMapSpec), encoded by the driver's
// cuTensorMapEncodeTiled, reached through cudaGetDriverEntryPointByVersion so that the worker
// still starts where there is no libcuda.
#pragma once
#include <vector>
#include "tilelab/variant.h"

namespace tilelab {

// One encoded CUtensorMap: 128 bytes, 128-byte aligned as cuda.h declares it.
struct alignas(128) EncodedTensorMap {
    unsigned char bytes[128];
};

// The maps of `specs` over the family's arguments as they stand (pointers to the argument
// values, Family::kernel_args). Throws std::runtime_error with the spec's numbers when the
// driver refuses one, or when the spec names an argument that is not there.
std::vector<EncodedTensorMap> encode_tensor_maps(const std::vector<TensorMapSpec>& specs, const std::vector<void*>& args);

// `args` followed by a pointer to each map (the kernel's parameters in order).
std::vector<void*> with_tensor_maps(const std::vector<void*>& args, const std::vector<EncodedTensorMap>& maps);

}  // namespace tilelab
