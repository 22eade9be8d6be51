// The hooks of engine_testing.h, client side: each asks the GPU worker (the GpuRunner methods in
// gpu_worker/runner_test_requests.cpp), because the engine's own process never touches the device.
#include <vector>
#include "testing/engine_testing.h"
#include "host/worker_client.h"

namespace tilelab::engine_testing {

int runtime_blocks_per_sm(const CompileResult& compiled, const LaunchShape& launch, std::string& error) {
    worker::json reply;
    const worker::json request = {{"op", "blocks_per_sm"},
                                  {"kernel", worker::cubin_to_json(compiled)},
                                  {"block", launch.block},
                                  {"dynamic_smem", launch.dynamic_smem}};
    if (!WorkerClient::instance().call(request, nullptr, reply, error)) return -1;
    error = reply.value("error", "");
    return reply.value("blocks", -1);
}

std::shared_ptr<void> occupy_device_memory(size_t leave_free_bytes, std::string& error) {
    WorkerClient& client = WorkerClient::instance();
    worker::json reply;
    if (!client.call({{"op", "occupy"}, {"leave_free_bytes", leave_free_bytes}}, nullptr, reply, error)) return nullptr;
    error = reply.value("error", "");
    const int handle = reply.value("handle", 0);
    const uint64_t generation = client.generation();
    // The memory goes back when the handle goes (or with the worker, if it was restarted since).
    return std::shared_ptr<void>(nullptr, [handle, generation](void*) {
        WorkerClient& c = WorkerClient::instance();
        if (c.generation() != generation) return;
        worker::json ignored;
        std::string ignored_error;
        c.call({{"op", "release"}, {"handle", handle}}, nullptr, ignored, ignored_error);
    });
}

bool support_sample(int M, int N, int K, int nx, int ny, int nz, uint64_t seed, const std::vector<float>& coefficients,
                    SupportSample& out, std::string& error) {
    worker::json reply;
    const worker::json request = {{"op", "support_sample"}, {"mnk", {M, N, K}}, {"grid", {nx, ny, nz}},
                                  {"seed", seed}, {"coefficients", coefficients}};
    if (!WorkerClient::instance().call(request, nullptr, reply, error)) return false;
    error = reply.value("error", "");
    if (!error.empty()) return false;
    out.a = reply.at("a").get<std::vector<float>>();
    out.b = reply.at("b").get<std::vector<float>>();
    out.product = reply.at("product").get<std::vector<double>>();
    out.grid = reply.at("grid").get<std::vector<float>>();
    out.sweep = reply.at("sweep").get<std::vector<float>>();
    return true;
}

}  // namespace tilelab::engine_testing
