// RAII owners for device memory, events and loaded libraries. Each frees what it owns on
// destruction and ignores errors there: after a sticky fault every call fails, and the runner
// resets the device anyway.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <utility>
#include "device/cuda_check.h"

namespace tilelab {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
        if (bytes) TL_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    template <class T = void>
    T* get() const { return static_cast<T*>(ptr_); }
    size_t bytes() const { return bytes_; }
    explicit operator bool() const { return ptr_ != nullptr; }

private:
    void release() {
        if (ptr_) (void)cudaFree(ptr_);
        ptr_ = nullptr;
        bytes_ = 0;
    }
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

class CudaEvent {
public:
    CudaEvent() { TL_CUDA_CHECK(cudaEventCreate(&event_)); }
    ~CudaEvent() {
        if (event_) (void)cudaEventDestroy(event_);
    }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

// Milliseconds between two recorded events, after waiting for the second one.
inline float elapsed_ms(const CudaEvent& start, const CudaEvent& stop) {
    TL_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0;
    TL_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

// A cubin loaded through the runtime's library API (no libcuda link needed) and its one kernel.
class LoadedLibrary {
public:
    LoadedLibrary(const void* cubin, const char* kernel_name) {
        TL_CUDA_CHECK(cudaLibraryLoadData(&library_, cubin, nullptr, nullptr, 0, nullptr, nullptr, 0));
        try {
            TL_CUDA_CHECK(cudaLibraryGetKernel(&kernel_, library_, kernel_name));
        } catch (...) {
            (void)cudaLibraryUnload(library_);
            throw;
        }
    }
    ~LoadedLibrary() {
        if (library_) (void)cudaLibraryUnload(library_);
    }
    LoadedLibrary(const LoadedLibrary&) = delete;
    LoadedLibrary& operator=(const LoadedLibrary&) = delete;

    cudaLibrary_t library() const { return library_; }
    cudaKernel_t kernel() const { return kernel_; }
    // The form cudaLaunchKernel, cudaFuncSetAttribute and the occupancy API accept.
    const void* entry() const { return reinterpret_cast<const void*>(kernel_); }

private:
    cudaLibrary_t library_ = nullptr;
    cudaKernel_t kernel_ = nullptr;
};

}  // namespace tilelab
