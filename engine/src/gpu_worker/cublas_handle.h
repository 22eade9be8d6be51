// Internal to the GPU worker: what the families that call cuBLAS share (their references and
// yardsticks, families/*/gpu_cuda.cpp) — an owned handle, and the CUDA data type of an element type.
#pragma once
#include <cublas_v2.h>
#include "device/cuda_check.h"
#include "tilelab/precision.h"

namespace tilelab {

class CublasHandle {
public:
    // pedantic: true FP32 throughout, no TF32 or other reduced-precision shortcuts, so that an FP32
    // reference and its "% of cuBLAS" compare like with like. Otherwise the default math mode, with
    // the compute type of each call saying what the tensor cores may do.
    explicit CublasHandle(bool pedantic) {
        TL_CUBLAS_CHECK(cublasCreate(&handle_));
        if (pedantic) TL_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH));
    }
    ~CublasHandle() { (void)cublasDestroy(handle_); }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_ = nullptr;
};

// BF16 and FP16 as themselves; FP32 and TF32 (which lives in a float) as CUDA_R_32F.
inline cudaDataType cuda_data_type(ElementType t) {
    return t == ElementType::bf16 ? CUDA_R_16BF : t == ElementType::f16 ? CUDA_R_16F : CUDA_R_32F;
}

}  // namespace tilelab
