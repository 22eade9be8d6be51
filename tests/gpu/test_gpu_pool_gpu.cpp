// Several GPUs on the GPU machine: the worker of each device reports its index and the host's
// count, a device number past the last is said in one sentence, and a pool over every GPU (two
// workers on one GPU where there is only one) runs each point once, validated, on one GPU.
#include <gtest/gtest.h>
#include <set>
#include "gpu.h"
#include "host/remote_link.h"
#include "host/worker_client.h"
#include "tilelab/gpu_pool.h"

namespace tilelab {
namespace {

TEST(GpuPoolGpu, EachWorkerGreetsWithItsDeviceAndAnIndexPastTheLastIsSaid) {
    TILELAB_REQUIRE_GPU();
    std::string failure;
    const std::string worker = find_gpu_worker(failure);
    ASSERT_FALSE(worker.empty()) << failure;
    const int count = testing::shared_engine().device().device_count;
    ASSERT_GE(count, 1);
    for (int device : {count - 1, count}) {
        GpuLocation where;
        where.command = worker + " --stdio";
        where.device = device;
        RemoteLink link(where);
        worker::json hello;
        ASSERT_TRUE(link.open(hello, failure)) << failure;
        const worker::json& d = hello.at("device");
        EXPECT_EQ(d.at("index").get<int>(), device);
        EXPECT_EQ(d.at("count").get<int>(), count);
        EXPECT_EQ(d.at("gpu").get<bool>(), device < count);
        if (device == count) {
            EXPECT_NE(d.at("reason").get<std::string>().find("there is no GPU " + std::to_string(count)), std::string::npos)
                << d.dump();
        }
    }
}

TEST(GpuPoolGpu, APoolOverEveryGpuRunsEachPointOnceValidated) {
    TILELAB_REQUIRE_GPU();
    const int count = testing::shared_engine().device().device_count;
    GpuSet set;
    ASSERT_EQ(parse_gpu_set(count > 1 ? "all" : "0,0", set), "");
    GpuPool pool;
    std::string failure;
    ASSERT_TRUE(pool.open({}, set, EngineConfig{}, failure)) << failure;
    EXPECT_EQ(pool.size(), size_t(std::max(count, 2)));
    std::vector<RunRequest> reqs;
    for (int tile : {8, 16, 32})
        for (int pad : {0, 1}) reqs.push_back(RunRequest{"matmul.smem_tiled", {{"TILE", tile}, {"PAD", pad}}, Problem{{512, 512, 512}}});
    const auto results = pool.run_all(reqs, testing::test_run_options(1, 3, false), nullptr);
    std::set<int> used;
    for (const PoolResult& r : results) {
        EXPECT_TRUE(r.result.ok && r.result.measured) << r.result.error;
        EXPECT_TRUE(r.result.validation.passed) << r.result.validation.message;
        ASSERT_GE(r.gpu, 0);
        used.insert(r.gpu);
    }
    EXPECT_GE(used.size(), 2u) << "six points on two workers: both took some";
}

}  // namespace
}  // namespace tilelab
