// Compiling in the GPU worker (the "compile" request, worker_protocol.h), which a client-only
// build (TILELAB_CUDA=OFF) does for every kernel: the worker needs no GPU for it, answers with
// what the host's own compile gives, refuses a client built from other kernel sources, and the
// request is checked like every other. Runs in both builds; the client-only build's tests use the
// full build's worker (TILELAB_GPU_WORKER) and skip visibly without one.
#include <gtest/gtest.h>
#include <cstdlib>
#include "compile/compiler.h"
#include "host/worker_client.h"
#include "tilelab/compile.h"
#include "tilelab/engine.h"
#include "tilelab/variant.h"
#include "protocol/worker_protocol.h"

namespace tilelab {
namespace {

using worker::json;

// The worker to talk to over --stdio, or "" (the caller skips).
std::string stdio_worker() {
    std::string failure;
    return find_gpu_worker(failure);
}

// The smem-tiled matmul at its defaults, as the engine would ask for it on sm_90.
CompileRequest smem_tiled_request() {
    const Variant* v = find_variant("matmul.smem_tiled");
    EXPECT_NE(v, nullptr);
    const KernelInstance k = v->kernel(with_defaults(v->params, {}));
    return {.source_file = k.source_file, .name_expression = k.name_expression, .arch = 90};
}

// Connects the process's worker client to `worker --stdio`; undone when it goes.
struct StdioWorker {
    explicit StdioWorker(const std::string& path) {
        GpuLocation where;
        where.command = path + " --stdio";
        WorkerClient::instance().configure(where);
        json hello;
        connected = WorkerClient::instance().connect(hello, failure);
    }
    ~StdioWorker() { WorkerClient::instance().configure(GpuLocation{}); }
    bool connected = false;
    std::string failure;
};

json compile_call(const CompileRequest& req, const std::string& sources, bool& answered, std::string& failure) {
    json reply;
    answered = WorkerClient::instance().call(
        {{"op", "compile"}, {"compile", worker::compile_request_to_json(req)}, {"sources", sources}}, nullptr, reply, failure);
    return reply;
}

}  // namespace

TEST(WorkerCompile, TheWorkerCompilesWithoutAGpuAndGivesRegistersAndACubin) {
    const std::string path = stdio_worker();
    if (path.empty()) GTEST_SKIP() << "no tilelab-gpu-worker (a client-only build's tests need TILELAB_GPU_WORKER)";
    StdioWorker link(path);
    ASSERT_TRUE(link.connected) << link.failure;
    EXPECT_FALSE(WorkerClient::instance().compiler_version().empty());   // the greeting named its NVRTC
    bool answered = false;
    std::string failure;
    const json reply = compile_call(smem_tiled_request(), sources_fingerprint(), answered, failure);
    ASSERT_TRUE(answered) << failure;
    const auto r = worker::compile_result_from_json(reply.at("compiled"));
    EXPECT_TRUE(r->ok) << r->error;
    EXPECT_TRUE(r->ptxas.parsed) << r->log;
    EXPECT_GT(r->ptxas.registers, 0);
    EXPECT_GT(r->ptxas.smem_bytes, 0);   // the tiles of A and B
    EXPECT_FALSE(r->cubin.empty());
    EXPECT_FALSE(r->lowered_name.empty());
    EXPECT_NE(r->options.find("--gpu-architecture=sm_90"), std::string::npos) << r->options;
}

TEST(WorkerCompile, ACompileErrorIsAResultWithTheUsersLine) {
    const std::string path = stdio_worker();
    if (path.empty()) GTEST_SKIP() << "no tilelab-gpu-worker (a client-only build's tests need TILELAB_GPU_WORKER)";
    StdioWorker link(path);
    ASSERT_TRUE(link.connected) << link.failure;
    CompileRequest req = smem_tiled_request();
    req.source_text = "extern \"C\" __global__ void k() {\n  this is not C++;\n}\n";
    req.source_name = "mine.cu";
    req.name_expression = "k";
    bool answered = false;
    std::string failure;
    const json reply = compile_call(req, sources_fingerprint(), answered, failure);
    ASSERT_TRUE(answered) << failure;
    const auto r = worker::compile_result_from_json(reply.at("compiled"));
    EXPECT_FALSE(r->ok);
    EXPECT_NE(r->error.find("mine.cu(2)"), std::string::npos) << r->error;
}

TEST(WorkerCompile, AWorkerBuiltFromOtherKernelSourcesRefusesToCompile) {
    const std::string path = stdio_worker();
    if (path.empty()) GTEST_SKIP() << "no tilelab-gpu-worker (a client-only build's tests need TILELAB_GPU_WORKER)";
    StdioWorker link(path);
    ASSERT_TRUE(link.connected) << link.failure;
    bool answered = true;
    std::string failure;
    compile_call(smem_tiled_request(), "0123456789abcdef", answered, failure);
    EXPECT_FALSE(answered);
    EXPECT_NE(failure.find("other kernel sources"), std::string::npos) << failure;
}

TEST(WorkerCompile, AMalformedCompileRequestIsRefusedBeforeItIsRead) {
    json ok = {{"op", "compile"}, {"id", 1}, {"compile", worker::compile_request_to_json(smem_tiled_request())},
               {"sources", "x"}};
    EXPECT_EQ(worker::request_problem(ok), "");
    json no_sources = ok;
    no_sources.erase("sources");
    EXPECT_NE(worker::request_problem(no_sources), "");
    json bad_arch = ok;
    bad_arch["compile"]["arch"] = "sm_90";
    EXPECT_NE(worker::request_problem(bad_arch).find("arch"), std::string::npos) << worker::request_problem(bad_arch);
    json bad_define = ok;
    bad_define["compile"]["defines"] = json::array({1});
    EXPECT_NE(worker::request_problem(bad_define).find("defines"), std::string::npos);
}

TEST(WorkerCompile, TheResultSurvivesTheRoundTrip) {
    CompileResult r;
    r.ok = true;
    r.log = "ptxas info : Used 32 registers";
    r.lowered_name = "_Z1kv";
    r.cubin = {'\x7f', 'E', 'L', 'F', '\0', '\x01'};
    r.options = "--gpu-architecture=sm_90 -Xptxas=-v";
    r.ptxas = {32, 8, 4, 16, 8192, 380, true};
    const auto back = worker::compile_result_from_json(json::from_cbor(json::to_cbor(worker::compile_result_to_json(r))));
    EXPECT_EQ(back->cubin, r.cubin);
    EXPECT_EQ(back->lowered_name, r.lowered_name);
    EXPECT_EQ(back->options, r.options);
    EXPECT_EQ(back->log, r.log);
    EXPECT_EQ(back->ptxas.registers, 32);
    EXPECT_EQ(back->ptxas.spill_stores, 8);
    EXPECT_EQ(back->ptxas.spill_loads, 4);
    EXPECT_EQ(back->ptxas.smem_bytes, 8192);
    EXPECT_TRUE(back->ptxas.parsed);
}

}  // namespace tilelab
