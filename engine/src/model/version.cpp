// The build fills these in (cmake/package.cmake): TileLab's version, and the toolkit's version
// and library folder, or nothing in the client-only build.
#include "tilelab/version.h"

#include "tilelab/i18n.h"

#ifndef TILELAB_VERSION
#define TILELAB_VERSION "unknown"
#endif

namespace tilelab {

std::string version_text() {
#if defined(TILELAB_BUILT_WITH_CUDA) && defined(TILELAB_CUDA_LIBRARY_DIR)
    return say("TileLab {}, built with CUDA {}; it uses the toolkit's libraries in {}",
               "TileLab {}，用 CUDA {} 构建；运行时使用 {} 中的工具包库", TILELAB_VERSION, TILELAB_BUILT_WITH_CUDA,
               TILELAB_CUDA_LIBRARY_DIR);
#else
    return say("TileLab {}, the client-only build (no CUDA here; kernels compile and run in a GPU worker: --gpu-host)",
               "TileLab {}，仅客户端构建（本机没有 CUDA；内核在 GPU worker 中编译和运行：--gpu-host）", TILELAB_VERSION);
#endif
}

}  // namespace tilelab
