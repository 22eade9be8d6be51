// The compiler of the client-only build (compiler.h, TILELAB_CUDA=OFF): this process has no
// NVRTC, so every compile is a "compile" request to the GPU worker (worker_protocol.h), which
// needs no GPU for it; install_host_compilers() hands it to the compile library. Without a worker
// elsewhere (--gpu-host, --gpu-command) nothing compiles: the engine then gives the models only,
// and says why.
#include "compile/compiler.h"

#include "tilelab/i18n.h"
#include "host/host_compilers.h"
#include "host/worker_client.h"

namespace tilelab {

namespace {

// A compile in the GPU worker; `limit_ms` > 0 stops it there (a user's kernel).
std::shared_ptr<CompileResult> compile_in_worker(const CompileRequest& req, int limit_ms) {
    WorkerClient& client = WorkerClient::instance();
    if (!client.remote())
        throw CompilerUnavailable(say("This client-only build cannot compile kernels: compiling needs a GPU host (--gpu-host or --gpu-command).",
                                      "这个仅客户端的构建无法编译内核：编译需要一台 GPU 主机（--gpu-host 或 --gpu-command）。"));
    const worker::json request = {{"op", "compile"}, {"compile", worker::compile_request_to_json(req)},
                                  {"sources", sources_fingerprint()}};
    worker::json reply;
    std::string failure;
    bool timed_out = false;
    if (!client.call(request, nullptr, reply, failure, limit_ms, &timed_out)) {
        if (timed_out) {   // the text's fault, not the compiler's absence
            auto r = std::make_shared<CompileResult>();
            r->error = failure;
            return r;
        }
        throw CompilerUnavailable(say("The GPU worker could not compile the kernel: {}.", "GPU worker 无法编译该内核：{}。", failure));
    }
    try {
        return worker::compile_result_from_json(reply.at("compiled"));
    } catch (const std::exception&) {   // not reached: call() checked every field read here
        throw CompilerUnavailable(say("The GPU worker's compile reply could not be read.", "无法读取 GPU worker 的编译回复。"));
    }
}

}  // namespace

void install_host_compilers() {
    OtherProcessCompiler c;
    c.version = [] { return WorkerClient::instance().compiler_version(); };
    c.kernel = [](const CompileRequest& req, const std::vector<std::string>&) { return compile_in_worker(req, 0); };
    c.user_kernel = [](const CompileRequest& req, const std::vector<std::string>&) {
        return compile_in_worker(req, user_compile_limit_ms());
    };
    install_other_process_compiler(std::move(c));
}

}  // namespace tilelab
