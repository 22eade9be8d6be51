// What the GPU worker's two CUPTI clients share (the counter pass, hardware_counters.h; PC
// sampling, pc_sampling.h): libcupti opened with dlopen (no binary links it) and the context.
#pragma once
#include <cuda.h>
#include <initializer_list>
#include <string>
#include <utility>

namespace tilelab {

// Opens libcupti: by soname (LD_LIBRARY_PATH, the loader cache), then in the toolkit this was
// built with. Null when none loads; `tried` lists what was tried. The handle is never closed:
// libcupti registers itself with the driver, which may call it until the process exits.
void* open_cupti(std::string& tried);

// Opens libcupti and looks up each entry point into its slot (the address of a function pointer
// of the entry's type; an X-macro list gives both). "" when every one was found, else one
// sentence: libcupti is missing, or too old to have one of them.
std::string bind_cupti(std::initializer_list<std::pair<const char*, void*>> name_and_slot);

// The device's primary context, made current first. Null when there is none (no driver entry
// point, no device).
CUcontext current_cuda_context();

}  // namespace tilelab
