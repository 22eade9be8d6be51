// Checked calls for the CUDA runtime and cuBLAS: a failing call throws a CudaError whose message
// names the call, says what went wrong and where, e.g.
//   "cudaLaunchKernel: too many resources requested for launch (runner_gpu.cpp:212)".
// The error code travels with the exception so the runner can tell a sticky fault (the context
// is lost and must be reset) from an ordinary failure.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tilelab {

class CudaError : public std::runtime_error {
public:
    CudaError(const std::string& message, cudaError_t code) : std::runtime_error(message), code_(code) {}
    // cudaSuccess when the failure did not come from the CUDA runtime (cuBLAS, NVRTC ...).
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

namespace detail {

// "cudaMalloc(&p, n)" -> "cudaMalloc": the message names the call, not its arguments.
inline std::string_view call_name(std::string_view expression) {
    const size_t paren = expression.find('(');
    std::string_view name = expression.substr(0, paren);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    return name;
}

inline std::string_view file_name(std::string_view path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

inline std::string where(const char* file, int line) {
    return std::string(file_name(file)) + ":" + std::to_string(line);
}

inline void check_cuda(cudaError_t status, const char* expression, const char* file, int line) {
    if (status == cudaSuccess) return;
    throw CudaError(std::string(call_name(expression)) + ": " + cudaGetErrorString(status) + " (" +
                        where(file, line) + ")",
                    status);
}

inline const char* cublas_status_text(cublasStatus_t s) {
    switch (s) {
        case CUBLAS_STATUS_NOT_INITIALIZED: return "cuBLAS not initialized";
        case CUBLAS_STATUS_ALLOC_FAILED: return "cuBLAS could not allocate memory";
        case CUBLAS_STATUS_INVALID_VALUE: return "invalid value";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "not supported on this architecture";
        case CUBLAS_STATUS_MAPPING_ERROR: return "memory mapping error";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "cuBLAS internal error";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "not supported";
        default: return "unknown cuBLAS status";
    }
}

inline void check_cublas(cublasStatus_t status, const char* expression, const char* file, int line) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    // A failed execution usually means the context is broken; report what the runtime says too.
    const cudaError_t runtime = status == CUBLAS_STATUS_EXECUTION_FAILED ? cudaPeekAtLastError() : cudaSuccess;
    throw CudaError(std::string(call_name(expression)) + ": " + cublas_status_text(status) + " (" +
                        where(file, line) + ")",
                    runtime);
}

}  // namespace detail
}  // namespace tilelab

#define TL_CUDA_CHECK(call) ::tilelab::detail::check_cuda((call), #call, __FILE__, __LINE__)
#define TL_CUBLAS_CHECK(call) ::tilelab::detail::check_cublas((call), #call, __FILE__, __LINE__)
