// TMA tensor maps through the driver's entry point (tensor_maps.h).
#include "gpu_worker/tensor_maps.h"
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <stdexcept>

namespace tilelab {

static_assert(sizeof(EncodedTensorMap) == sizeof(CUtensorMap) && alignof(EncodedTensorMap) == alignof(CUtensorMap));

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
    static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* entry = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess)
            entry = nullptr;
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
    }();
    return fn;
}

CUtensorMapDataType data_type(int element_bytes) {
    switch (element_bytes) {
        case 1: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
        case 2: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
        case 4: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
        case 8: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
        default: throw std::runtime_error(fmt::format("a tensor map of {}-byte elements: TMA takes 1, 2, 4 or 8", element_bytes));
    }
}

CUtensorMapSwizzle swizzle_mode(int bytes) {
    switch (bytes) {
        case 0: return CU_TENSOR_MAP_SWIZZLE_NONE;
        case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
        case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
        case 128: return CU_TENSOR_MAP_SWIZZLE_128B;
        default: throw std::runtime_error(fmt::format("a tensor map swizzled by {} bytes: TMA swizzles by 0, 32, 64 or 128", bytes));
    }
}

std::string describe(const TensorMapSpec& s) {
    std::string dims, box;
    for (int d = 0; d < s.rank; ++d) {
        dims += fmt::format("{}{}", d ? "×" : "", s.dims[size_t(d)]);
        box += fmt::format("{}{}", d ? "×" : "", s.box[size_t(d)]);
    }
    return fmt::format("{} of {}-byte elements, box {}, swizzle {} B", dims, s.element_bytes, box, s.swizzle);
}

}  // namespace

std::vector<EncodedTensorMap> encode_tensor_maps(const std::vector<TensorMapSpec>& specs, const std::vector<void*>& args) {
    std::vector<EncodedTensorMap> maps(specs.size());
    if (specs.empty()) return maps;
    const auto encode = encoder();
    if (!encode) throw std::runtime_error("this driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 and an sm_90 GPU)");
    for (size_t i = 0; i < specs.size(); ++i) {
        const TensorMapSpec& s = specs[i];
        if (s.arg < 0 || size_t(s.arg) >= args.size() || s.rank < 1 || s.rank > 5)
            throw std::runtime_error(fmt::format("tensor map {} names argument {} of {} (rank {})", i, s.arg, args.size(), s.rank));
        void* address = *static_cast<void* const*>(args[size_t(s.arg)]);
        cuuint64_t dims[5], strides[4];
        cuuint32_t box[5], element_strides[5];
        for (int d = 0; d < 5; ++d) {
            dims[d] = s.dims[size_t(d)], box[d] = s.box[size_t(d)], element_strides[d] = 1;
            if (d < 4) strides[d] = s.strides[size_t(d)];
        }
        auto* out = reinterpret_cast<CUtensorMap*>(maps[i].bytes);
        const CUresult r = encode(out, data_type(s.element_bytes), cuuint32_t(s.rank), address, dims, strides, box,
                                  element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(s.swizzle),
                                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS)
            throw std::runtime_error(fmt::format("the driver refused tensor map {} ({}): CUresult {}", i, describe(s), int(r)));
    }
    return maps;
}

std::vector<void*> with_tensor_maps(const std::vector<void*>& args, const std::vector<EncodedTensorMap>& maps) {
    std::vector<void*> all = args;
    for (const EncodedTensorMap& m : maps) all.push_back(const_cast<unsigned char*>(m.bytes));
    return all;
}

}  // namespace tilelab
