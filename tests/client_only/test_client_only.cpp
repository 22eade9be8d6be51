// The client-only build (TILELAB_CUDA=OFF): no CUDA here, so without a GPU worker the engine and
// the CLI give the models only and say in one sentence that compiling needs a GPU host; with the
// full build's worker over --stdio on a machine without a GPU, model mode has registers, spills
// and occupancy from the worker's compile. Built only into the client-only build's tests.
#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <string>
#include "host/worker_client.h"
#include "spawned_program.h"
#include "tilelab/engine.h"
#include "tilelab/input_policy.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;

struct Scratch : test::Scratch {
    Scratch() : test::Scratch("client-only-test") {}
};

std::string stdio_worker() {
    std::string failure;
    return find_gpu_worker(failure);
}

const RunRequest kSmemTiled{"matmul.smem_tiled", {}, Problem{{256, 256, 256}}};

}  // namespace

TEST(ClientOnly, WithoutAWorkerTheModelsStandAndTheCompileSaysWhy) {
    Engine engine{EngineConfig{}};
    const DeviceStatus d = engine.device();
    EXPECT_FALSE(d.gpu);
    EXPECT_NE(d.reason.find("client-only build"), std::string::npos) << d.reason;
    const RunResult r = engine.run(kSmemTiled, RunOptions{});
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_FALSE(r.measured);
    EXPECT_GT(r.model.total.global_loads, 0);   // the model stands
    ASSERT_TRUE(r.compiled);
    EXPECT_FALSE(r.compiled->ok);
    EXPECT_TRUE(r.compiled->compiler_unavailable);
    EXPECT_NE(r.compiled->error.find("compiling needs a GPU host (--gpu-host"), std::string::npos) << r.compiled->error;
    EXPECT_EQ(r.compiled->error.find('\n'), std::string::npos);
    EXPECT_EQ(r.no_gpu_reason, r.compiled->error);
}

TEST(ClientOnly, TheCliSaysCompilingNeedsAGpuHostInBothLanguages) {
    Scratch s;
    const test::Spawned en = test::spawn(test::cli_path(), {"run", "02"}, {"TILELAB_GPU_WORKER="}, 60, s.dir.string());
    EXPECT_EQ(en.exit_code, kExitNoGpu) << en.out << en.err;
    EXPECT_NE((en.out + en.err).find("compiling needs a GPU host (--gpu-host"), std::string::npos) << en.out << en.err;
    const test::Spawned zh = test::spawn(test::cli_path(), {"--lang", "zh", "run", "02"}, {}, 60, s.dir.string());
    EXPECT_NE((zh.out + zh.err).find("编译需要一台 GPU 主机"), std::string::npos) << zh.out << zh.err;
}

TEST(ClientOnly, OverTheFullBuildsWorkerModelModeHasRegistersAndOccupancy) {
    const std::string path = stdio_worker();
    if (path.empty()) GTEST_SKIP() << "no full build's tilelab-gpu-worker (TILELAB_GPU_WORKER)";
    {
        EngineConfig cfg;
        cfg.gpu.command = path + " --stdio";
        Engine engine(cfg);
        const RunResult r = engine.analyze(kSmemTiled);
        ASSERT_TRUE(r.ok) << r.error;
        ASSERT_TRUE(r.compiled && r.compiled->ok) << (r.compiled ? r.compiled->error : "");
        EXPECT_GT(r.compiled->ptxas.registers, 0);
        EXPECT_GT(r.occupancy.blocks_per_sm, 0);
        EXPECT_FALSE(r.occupancy.steps.empty());
    }
    WorkerClient::instance().configure(GpuLocation{});
    Scratch s;
    const test::Spawned cli = test::spawn(test::cli_path(), {"run", "02", "--gpu-command", path + " --stdio"}, {}, 120, s.dir.string());
    EXPECT_NE(cli.out.find("registers/thread"), std::string::npos) << cli.out << cli.err;
}

}  // namespace tilelab
