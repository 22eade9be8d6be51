// The engine <-> GPU worker protocol without a GPU: frames survive a socket, every measured field
// of a RunResult (and a job with its cubin bytes, the options, the ceilings) comes back equal,
// broken frames are errors rather than messages, and the worker binary is found, starts, and
// answers (on a machine without a GPU, with a reply saying so).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <thread>
#include "host/worker_client.h"
#include "protocol/worker_protocol.h"

using namespace tilelab;
using worker::json;

namespace {

// Both ends of a connected socket, closed at the end of the test.
struct SocketPair {
    int fd[2] = {-1, -1};
    SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
    ~SocketPair() {
        for (int f : fd)
            if (f >= 0) ::close(f);
    }
    void close_end(int i) {
        ::close(fd[i]);
        fd[i] = -1;
    }
};

json through_socket(const json& message) {
    SocketPair s;
    std::string error;
    json received;
    // A writer thread: a large frame does not fit the socket buffer while nobody reads.
    std::thread writer([&] { EXPECT_TRUE(worker::write_frame(s.fd[0], message, error)) << error; });
    EXPECT_EQ(worker::read_frame(s.fd[1], received, error), worker::ReadStatus::message) << error;
    writer.join();
    return received;
}

Measurement sample_measurement() {
    Measurement m;
    m.ok = false;
    m.stage = "validate";
    m.error = "Output differs: max error 0.5 — first: C[3,4]";
    m.timing.samples_ms = {0.25, 0.125, 1.0 / 3.0, 1e-300};
    m.timing.median_ms = 0.2;
    m.timing.min_ms = 1e-300;
    m.timing.max_ms = 1.0 / 3.0;
    m.validation = {true, false, 0.5, 0.25, 1e-5, "cuBLAS FP32", "C[3,4] = 1 (expected 2)"};
    m.counted = AccessCounts{1e12, 3, 4096, 0};
    m.reference_ms = 7.5;
    m.reference_name = "cuBLAS SGEMM";
    m.stages.setup_ms = 41.5;
    m.stages.validate_ms = 1.0 / 3.0;
    m.stages.timing_ms = 2.25;
    m.stages.count_ms = 0.125;
    m.stages.reference_ms = 1e-3;
    return m;
}

}  // namespace

TEST(GpuWorkerProtocol, MeasuredFieldsSurviveTheRoundTrip) {
    const Measurement sent = sample_measurement();
    const Measurement got = through_socket(json(sent)).get<Measurement>();
    EXPECT_EQ(got.ok, sent.ok);
    EXPECT_EQ(got.stage, sent.stage);
    EXPECT_EQ(got.error, sent.error);
    EXPECT_TRUE(got.timing == sent.timing);           // every sample, bit for bit
    EXPECT_TRUE(got.validation == sent.validation);
    ASSERT_TRUE(got.counted.has_value());
    EXPECT_EQ(*got.counted, *sent.counted);
    EXPECT_EQ(got.reference_ms, sent.reference_ms);
    EXPECT_EQ(got.reference_name, sent.reference_name);
    EXPECT_TRUE(got.stages == sent.stages);

    // No counts sent: none received.
    Measurement uncounted = sent;
    uncounted.counted.reset();
    EXPECT_FALSE(through_socket(json(uncounted)).get<Measurement>().counted.has_value());
}

// The worker sends times and counts; the host derives every rate from them and the model, and
// keeps what it analysed and timed itself.
TEST(GpuWorkerProtocol, TheHostDerivesTheRatesFromTheModel) {
    RunResult r;
    r.target.name = "kept";
    r.model.flops = 2e9;
    r.model.global_bytes = 3e8;
    r.model.compulsory_bytes = 1e8;
    r.stages.compile_ms = 230;
    r.stages.count_compile_ms = 210;
    r.stages.worker_ms = 60;
    Measurement m = sample_measurement();
    m.ok = true;
    m.stage.clear();
    m.error.clear();
    m.timing.median_ms = 0.5;
    r.apply(m);
    EXPECT_TRUE(r.ok);
    EXPECT_TRUE(r.measured);
    EXPECT_EQ(r.target.name, "kept");
    EXPECT_DOUBLE_EQ(r.gflops, 2e9 / 0.5e-3 / 1e9);
    EXPECT_DOUBLE_EQ(r.gbps_model, 3e8 / 0.5e-3 / 1e9);
    EXPECT_DOUBLE_EQ(r.gbps_effective, 1e8 / 0.5e-3 / 1e9);
    EXPECT_DOUBLE_EQ(r.pct_of_reference, 7.5 / 0.5 * 100);
    EXPECT_EQ(r.stages.setup_ms, m.stages.setup_ms);
    EXPECT_EQ(r.stages.compile_ms, 230);
    EXPECT_EQ(r.stages.count_compile_ms, 210);
    EXPECT_EQ(r.stages.worker_ms, 60);

    // A failed measurement carries its stage and error, and no rate.
    r.apply(sample_measurement());
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.measured);
    EXPECT_EQ(r.stage, "validate");
    EXPECT_EQ(r.gflops, 0);
    EXPECT_EQ(r.pct_of_reference, 0);
    EXPECT_FALSE(r.validation.passed);
}

TEST(GpuWorkerProtocol, JobWithCubinBytesAndOptionsSurvive) {
    auto kernel = std::make_shared<CompileResult>();
    for (int i = 0; i < 300000; ++i) kernel->cubin.push_back(char(i * 7));   // every byte value, zeros included
    kernel->lowered_name = "_Z10kernelILi32EEvPKfS1_Pfiiiy";
    worker::MeasureJob job{"stencil", Precision{ElementType::bf16, ElementType::f32, ElementType::f32}, {{"causal", 1}},
                           Problem{{1, 70000, 3000000000}}, LaunchShape{{5, 6, 7}, {32, 4, 1}, 49152}, kernel, nullptr, {}};
    const worker::MeasureJob got = worker::job_from_json(through_socket(worker::job_to_json(job)));
    EXPECT_EQ(got.family, job.family);
    EXPECT_EQ(got.precision, job.precision);
    EXPECT_EQ(got.options, job.options);
    EXPECT_EQ(got.problem, job.problem);
    EXPECT_EQ(got.launch.grid, job.launch.grid);
    EXPECT_EQ(got.launch.block, job.launch.block);
    EXPECT_EQ(got.launch.dynamic_smem, job.launch.dynamic_smem);
    ASSERT_TRUE(got.kernel);
    EXPECT_EQ(got.kernel->cubin, kernel->cubin);
    EXPECT_EQ(got.kernel->lowered_name, kernel->lowered_name);
    EXPECT_FALSE(got.counting) << "no counting build was sent";

    job.counting = kernel;
    EXPECT_TRUE(worker::job_from_json(through_socket(worker::job_to_json(job))).counting);
    EXPECT_TRUE(got.passes.empty()) << "one kernel: no passes";

    // A job of several kernels: each pass's cubin, launch and counting build, in order.
    auto second = std::make_shared<CompileResult>();
    second->cubin = {'x', '\0', 'y'};
    second->lowered_name = "_Z6secondv";
    job.passes = {{kernel, nullptr, LaunchShape{{1, 2, 3}, {64, 1, 1}, 0}}, {second, second, LaunchShape{{9, 1, 1}, {128, 1, 1}, 16}}};
    const worker::MeasureJob passes = worker::job_from_json(through_socket(worker::job_to_json(job)));
    ASSERT_EQ(passes.passes.size(), 2u);
    EXPECT_EQ(passes.passes[0].kernel->cubin, kernel->cubin);
    EXPECT_FALSE(passes.passes[0].counting);
    EXPECT_EQ(passes.passes[0].launch.grid, (std::array<unsigned, 3>{1, 2, 3}));
    EXPECT_EQ(passes.passes[1].kernel->lowered_name, "_Z6secondv");
    ASSERT_TRUE(passes.passes[1].counting);
    EXPECT_EQ(passes.passes[1].counting->cubin, second->cubin);
    EXPECT_EQ(passes.passes[1].launch.dynamic_smem, 16u);
    job.passes.clear();

    RunOptions opt;
    opt.warmup = 0;
    opt.repetitions = 1000000;
    opt.flush_l2 = false;
    opt.count_accesses = false;
    opt.time_reference = true;
    opt.quick = true;
    opt.seed = 0xFFFFFFFFFFFFFFFFull;
    // Every field, those added later included: what comes back serialises to what went out.
    const RunOptions o = through_socket(json(opt)).get<RunOptions>();
    EXPECT_EQ(json(o), json(opt));
    EXPECT_EQ(o.repetitions, 1000000);
    EXPECT_EQ(o.seed, 0xFFFFFFFFFFFFFFFFull);

    const Ceilings c{true, 3012.5, 51234.25, "copy: 1024 MiB"};
    const Ceilings cg = through_socket(json(c)).get<Ceilings>();
    EXPECT_EQ(json(cg), json(c));
    EXPECT_EQ(cg.sgemm_gflops, 51234.25);
}

// A launch's TMA tensor maps (lesson 21) and cluster (lesson 22) travel with the job, every field;
// a request whose maps or cluster are malformed is refused before anything runs, with the field named.
TEST(GpuWorkerProtocol, TensorMapsTravelWithTheJobAndMalformedOnesAreRefused) {
    auto kernel = std::make_shared<CompileResult>();
    kernel->cubin = {'c', 'u', 'b', 'i', 'n'};
    kernel->lowered_name = "_Z1kv";
    LaunchShape launch{{32, 32, 1}, {128, 1, 1}, 99352};
    launch.tensor_maps = {{.arg = 0, .element_bytes = 2, .rank = 2, .dims = {4096, 4096}, .strides = {8192}, .box = {64, 128},
                           .swizzle = 128},
                          {.arg = 1, .element_bytes = 2, .rank = 2, .dims = {4096, 4096}, .strides = {8192}, .box = {64, 64},
                           .swizzle = 64}};
    launch.cluster = 2;
    launch.resident_per_sm = 1;
    const worker::MeasureJob job{"matmul", {}, {}, Problem{{4096, 4096, 4096}}, launch, kernel, nullptr, {}};
    const worker::MeasureJob got = worker::job_from_json(through_socket(worker::job_to_json(job)));
    EXPECT_EQ(got.launch.tensor_maps, launch.tensor_maps);
    EXPECT_EQ(got.launch.cluster, 2u) << "the cluster (lesson 22) travels too";
    EXPECT_EQ(got.launch.resident_per_sm, 1) << "and that it is persistent (the worker cuts its grid to the clusters that fit)";

    json request = {{"op", "run"}, {"id", 7}, {"job", worker::job_to_json(job)}, {"options", RunOptions{}}};
    EXPECT_EQ(worker::request_problem(request), "");
    const auto refused = [&](const char* field, const json& value) {
        json r = request;
        r["job"]["launch"]["tensor_maps"][1][field] = value;
        return worker::request_problem(r);
    };
    EXPECT_NE(refused("box", json::array({300, 64, 0, 0, 0})).find("tensor_maps[1]: \"box\" holds a value out of range"), std::string::npos);
    EXPECT_NE(refused("dims", json::array({1, 2})).find("\"dims\" is not a list of 5 numbers"), std::string::npos);
    EXPECT_NE(refused("rank", 9).find("\"rank\" is out of range"), std::string::npos);
    EXPECT_NE(refused("arg", "A").find("\"arg\" is not an integer"), std::string::npos);
    json cluster = request;
    cluster["job"]["launch"]["cluster"] = 3;
    EXPECT_NE(worker::request_problem(cluster).find("not a multiple of \"cluster\""), std::string::npos);
    cluster["job"]["launch"]["cluster"] = 16;
    EXPECT_NE(worker::request_problem(cluster).find("\"cluster\" is out of range"), std::string::npos);
    json many = request;
    many["job"]["launch"]["tensor_maps"] = json::array({1, 2, 3, 4, 5});
    EXPECT_NE(worker::request_problem(many).find("more than 4"), std::string::npos);
}

TEST(GpuWorkerProtocol, FramesFollowEachOtherAndBrokenOnesAreErrors) {
    SocketPair s;
    std::string error;
    ASSERT_TRUE(worker::write_frame(s.fd[0], {{"op", "a"}}, error)) << error;
    ASSERT_TRUE(worker::write_frame(s.fd[0], {{"op", "b"}}, error)) << error;
    json m;
    ASSERT_EQ(worker::read_frame(s.fd[1], m, error), worker::ReadStatus::message);
    EXPECT_EQ(m["op"], "a");
    ASSERT_EQ(worker::read_frame(s.fd[1], m, error), worker::ReadStatus::message);
    EXPECT_EQ(m["op"], "b");

    // A length that cannot be a message.
    const uint8_t huge[4] = {0xff, 0xff, 0xff, 0xff};
    ASSERT_EQ(::write(s.fd[0], huge, 4), 4);
    EXPECT_EQ(worker::read_frame(s.fd[1], m, error), worker::ReadStatus::error);
    EXPECT_NE(error.find("frame length"), std::string::npos) << error;

    // A whole frame whose CBOR claims an array of 2^64 - 1 elements: an error, not an exception,
    // found on the bytes before anything is parsed.
    const uint8_t absurd[13] = {9, 0, 0, 0, 0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    ASSERT_EQ(::write(s.fd[0], absurd, sizeof absurd), ssize_t(sizeof absurd));
    EXPECT_EQ(worker::read_frame(s.fd[1], m, error), worker::ReadStatus::error);
    EXPECT_NE(error.find("cannot be read: a list claims"), std::string::npos) << error;
    // Well-formed CBOR that is not a message of ours (a reserved simple value): not valid CBOR.
    const uint8_t reserved[5] = {1, 0, 0, 0, 0xf8};
    ASSERT_EQ(::write(s.fd[0], reserved, sizeof reserved), ssize_t(sizeof reserved));
    EXPECT_EQ(worker::read_frame(s.fd[1], m, error), worker::ReadStatus::error);
    EXPECT_TRUE(error.find("not valid CBOR") != std::string::npos || error.find("cannot be read") != std::string::npos) << error;

    // A frame cut short by the writer going away; then a clean end.
    SocketPair cut;
    const uint8_t partial[6] = {10, 0, 0, 0, 0xa1, 0x61};
    ASSERT_EQ(::write(cut.fd[0], partial, 6), 6);
    cut.close_end(0);
    EXPECT_EQ(worker::read_frame(cut.fd[1], m, error), worker::ReadStatus::error);
    EXPECT_NE(error.find("middle of a message"), std::string::npos) << error;
    EXPECT_EQ(worker::read_frame(cut.fd[1], m, error), worker::ReadStatus::closed);

    // Writing to a closed peer fails instead of killing the process with SIGPIPE.
    SocketPair gone;
    gone.close_end(1);
    EXPECT_FALSE(worker::write_frame(gone.fd[0], {{"op", "x"}}, error));
    EXPECT_FALSE(error.empty());
}

TEST(GpuWorkerProtocol, AMissingWorkerIsNamedInTheFailure) {
    const char* saved = std::getenv("TILELAB_GPU_WORKER");
    const std::string previous = saved ? saved : "";
    setenv("TILELAB_GPU_WORKER", "/nonexistent/tilelab-gpu-worker", 1);
    std::string failure;
    EXPECT_EQ(find_gpu_worker(failure), "");
    EXPECT_NE(failure.find("/nonexistent/tilelab-gpu-worker"), std::string::npos) << failure;
    EXPECT_NE(failure.find("TILELAB_GPU_WORKER"), std::string::npos) << failure;
    if (saved) setenv("TILELAB_GPU_WORKER", previous.c_str(), 1);
    else unsetenv("TILELAB_GPU_WORKER");
}

// The real worker binary, found next to the tests' folder, started and asked for its memory: on
// a GPU machine it answers with the device's memory, elsewhere with a reply saying why not.
TEST(GpuWorkerProtocol, TheWorkerStartsAndAnswers) {
    std::string failure;
    const std::string path = find_gpu_worker(failure);
    ASSERT_FALSE(path.empty()) << failure;
    json reply;
    if (WorkerClient::instance().call({{"op", "memory"}}, nullptr, reply, failure)) {
        EXPECT_GT(reply.at("total_bytes").get<size_t>(), 0u);
        EXPECT_LE(reply.at("free_bytes").get<size_t>(), reply.at("total_bytes").get<size_t>());
    } else {
        EXPECT_NE(failure.find("GPU worker found no usable device"), std::string::npos) << failure;
        // And a second call starts a fresh worker and gets the same answer, not a broken channel.
        std::string again;
        EXPECT_FALSE(WorkerClient::instance().call({{"op", "memory"}}, nullptr, reply, again));
        EXPECT_EQ(again, failure);
    }
}
