// libcupti and the context for the worker's CUPTI clients (cupti_library.h).
#include "gpu_worker/cupti_library.h"
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <cstring>

namespace tilelab {
namespace {

std::string version_suffix() {
    int runtime = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    // Appended rather than `"." + std::to_string(...)`: GCC 12 at -O3 reports a false -Wrestrict
    // in that operator+ (GCC bug 105329), which breaks -DCMAKE_BUILD_TYPE=Release with WERROR.
    std::string suffix;
    if (runtime > 0) suffix.append(".").append(std::to_string(runtime / 1000));
    return suffix;
}

}  // namespace

void* open_cupti(std::string& tried) {
    static void* handle = nullptr;
    if (handle) return handle;
    const std::string dir = TILELAB_CUDA_LIBRARY_DIR;
    for (const std::string& name : {"libcupti.so" + version_suffix(), std::string("libcupti.so"),
                                    dir + "/libcupti.so" + version_suffix(), dir + "/../extras/CUPTI/lib64/libcupti.so"}) {
        if ((handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) return handle;
        tried += (tried.empty() ? "" : ", ") + name;
    }
    return nullptr;
}

std::string bind_cupti(std::initializer_list<std::pair<const char*, void*>> name_and_slot) {
    std::string tried;
    void* library = open_cupti(tried);
    if (!library) return "libcupti could not be loaded (tried " + tried + ")";
    for (const auto& [name, slot] : name_and_slot) {
        void* entry = dlsym(library, name);
        if (!entry) return std::string("libcupti has no ") + name + " (too old)";
        std::memcpy(slot, &entry, sizeof entry);   // a function pointer, written as the bytes dlsym gave
    }
    return "";
}

CUcontext current_cuda_context() {
    if (cudaFree(nullptr) != cudaSuccess) return nullptr;   // makes the primary context current
    void* get_current = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get_current, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess || !get_current)
        return nullptr;
    CUcontext context = nullptr;
    if (reinterpret_cast<CUresult (*)(CUcontext*)>(get_current)(&context) != CUDA_SUCCESS) return nullptr;
    return context;
}

}  // namespace tilelab
