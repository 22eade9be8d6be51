// The compiler of the client-only build (compiler.h, TILELAB_CUDA=OFF): this process has no
// NVRTC, so every compile goes to the compiler in another process that the host installed (the
// GPU worker's "compile" request, host/compile_in_worker_nocuda.cpp). None installed, or no
// worker to send it to: nothing compiles, and the engine gives the models only and says why.
#include "compile/compiler.h"
#include "tilelab/i18n.h"

namespace tilelab {

std::string compiler_version() {
    const OtherProcessCompiler c = other_process_compiler();
    return c.version ? c.version() : "";
}

// The worker adds its own include folders; the cache key holds the rest.
std::vector<std::string> compiler_options(const CompileRequest& req) { return base_compile_options(req); }

std::shared_ptr<CompileResult> compile_kernel(const CompileRequest& req, const std::vector<std::string>& opts) {
    const OtherProcessCompiler c = other_process_compiler();
    if (!c.kernel)
        throw CompilerUnavailable(say("This client-only build cannot compile kernels: compiling needs a GPU host (--gpu-host or --gpu-command).",
                                      "这个仅客户端的构建无法编译内核：编译需要一台 GPU 主机（--gpu-host 或 --gpu-command）。"));
    return c.kernel(req, opts);
}

}  // namespace tilelab
