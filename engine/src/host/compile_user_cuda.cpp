// Users' kernels in the full build (compiler.h), installed by install_host_compilers(): compiled
// by NVRTC in a compile-only worker process (tilelab-gpu-worker --compile-only, no CUDA context), which is stopped when the compile
// passes its deadline. NVRTC reads whatever the text #includes, so an include of a FIFO or of a
// 4 GiB file, or macros that double 24 times, would otherwise hold the engine's thread for good.
#include "compile/compiler.h"

#include "tilelab/i18n.h"
#include "host/host_compilers.h"
#include "host/worker_client.h"

namespace tilelab {

namespace {

std::shared_ptr<CompileResult> compile_in_compile_only_worker(const CompileRequest& req, const std::vector<std::string>& opts) {
    std::string failure;
    // No worker installed next to this program (a binary copied alone): in this process, as
    // before, without a deadline.
    if (find_gpu_worker(failure).empty()) return compile_kernel(req, opts);
    static WorkerClient compiler(/*compile_only=*/true);
    const worker::json request = {{"op", "compile"}, {"compile", worker::compile_request_to_json(req)},
                                  {"sources", sources_fingerprint()}};
    worker::json reply;
    bool timed_out = false;
    if (compiler.call(request, nullptr, reply, failure, user_compile_limit_ms(), &timed_out)) {
        return worker::compile_result_from_json(reply.at("compiled"));   // its fields were checked by call()
    }
    // Past the deadline, or the compiler died on this text: a failed compile of this text.
    auto r = std::make_shared<CompileResult>();
    r->error = timed_out ? failure : say("The compiler stopped on this source: {}.", "编译器处理这段源码时停止了：{}。", failure);
    return r;
}

}  // namespace

void install_host_compilers() {
    OtherProcessCompiler c;
    c.user_kernel = compile_in_compile_only_worker;
    install_other_process_compiler(std::move(c));
}

}  // namespace tilelab
