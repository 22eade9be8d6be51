// The hardware-counter pass without a GPU: the metric table, the sentences for counters that
// cannot be read (a permission refusal simulated by its CUPTI code), the worker protocol's
// hardware object, and the CLI's JSON and CSV shape in model mode.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include "gpu_worker/hardware_counters.h"
#include "spawned_program.h"
#include "tilelab/hardware.h"
#include "protocol/worker_protocol.h"

namespace {

using namespace tilelab;
using nlohmann::json;

// The metrics issue #14 asks for, by their ncu names.
const char* const kRequired[] = {
    "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
    "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    // Issue 37: constant memory's LDC instructions and the requests they make (lesson 19).
    "smsp__inst_executed_op_ldc.sum", "idc__requests.sum"};

TEST(HardwareMetrics, TheTableHasEveryRequiredMetricOnceWithALabelUnitAndLevel) {
    std::set<std::string> names;
    for (const HardwareMetric& m : hardware_metrics()) {
        EXPECT_TRUE(names.insert(m.name).second) << m.name << " twice";
        EXPECT_NE(std::string(m.label), "") << m.name;
        EXPECT_NE(std::string(m.unit), "") << m.name;
        EXPECT_NE(std::string(m.help), "") << m.name;
        EXPECT_TRUE(std::set<std::string>({"DRAM", "L2", "L1", "shared", "constant", "SM"}).count(m.level)) << m.level;
        EXPECT_EQ(find_hardware_metric(m.name), &m);
    }
    for (const char* name : kRequired) EXPECT_TRUE(names.count(name)) << name << " is not collected";
    EXPECT_EQ(find_hardware_metric("dram__bytes.sum.per_second"), nullptr);
}

TEST(HardwareMetrics, ConflictWaysAreWavefrontsPerSharedInstruction) {
    HardwareCounters h;
    h.status = hardware_status::ok;
    EXPECT_FALSE(h.shared_ways(true));
    h.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] = 3200;
    h.metrics["smsp__inst_executed_op_shared_st.sum"] = 100;   // 32-way: every lane its own wavefront
    h.metrics["smsp__inst_executed_op_shared_ld.sum"] = 0;
    h.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] = 0;
    EXPECT_DOUBLE_EQ(*h.shared_ways(false), 32.0);
    EXPECT_FALSE(h.shared_ways(true)) << "no shared loads: no ratio, not a division by zero";
}

TEST(HardwareStatus, APermissionRefusalSaysHowToAllowTheCounters) {
    // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES = 35 (cupti_result.h): what a non-root user gets on a
    // driver that reserves the counters for administrators.
    const std::string status = hardware_status_for_cupti(35);
    EXPECT_EQ(status, hardware_status::insufficient_privileges);
    const std::string reason = hardware_reason(status, "cuptiProfilerInitialize: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
    EXPECT_NE(reason.find("ERR_NVGPUCTRPERM"), std::string::npos) << reason;
    EXPECT_NE(reason.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << reason;
    EXPECT_NE(reason.find("CAP_SYS_ADMIN"), std::string::npos) << reason;
    EXPECT_NE(reason.find("cuptiProfilerInitialize"), std::string::npos) << "the detail is kept: " << reason;
}

TEST(HardwareStatus, EachCuptiRefusalMapsToOneStatusWithOneSentence) {
    EXPECT_EQ(hardware_status_for_cupti(40), hardware_status::insufficient_privileges);   // vGPU
    EXPECT_EQ(hardware_status_for_cupti(39), hardware_status::profiler_busy);             // another subscriber
    EXPECT_EQ(hardware_status_for_cupti(26), hardware_status::profiler_busy);             // hardware busy
    EXPECT_EQ(hardware_status_for_cupti(43), hardware_status::unsupported);               // MIG
    EXPECT_EQ(hardware_status_for_cupti(27), hardware_status::unsupported);
    EXPECT_EQ(hardware_status_for_cupti(999), hardware_status::error);
    EXPECT_NE(hardware_reason(hardware_status::profiler_busy).find("Nsight"), std::string::npos);
    EXPECT_NE(hardware_reason(hardware_status::no_gpu).find("model mode"), std::string::npos);
    EXPECT_EQ(hardware_reason(hardware_status::ok), "");
    EXPECT_EQ(hardware_reason(hardware_status::skipped), "");
}

TEST(HardwareEmptying, EachPlaceEmptiesL2InThePassForTheGroupsItNames) {
    // The default splits by group: the DRAM and L1 counts after the profiler's start, L2's counts
    // and the ratios before it (hardware_counters.h); the two diagnostics put every group on one side.
    L2Emptying empty;
    EXPECT_TRUE(empty.in_pass_for(true));
    EXPECT_FALSE(empty.in_pass_for(false));
    empty.place = L2Emptying::Place::kAllBefore;
    EXPECT_FALSE(empty.in_pass_for(true));
    EXPECT_FALSE(empty.in_pass_for(false));
    empty.place = L2Emptying::Place::kAllInPass;
    EXPECT_TRUE(empty.in_pass_for(true));
    EXPECT_TRUE(empty.in_pass_for(false));
}

TEST(HardwareProtocol, TheHardwareObjectSurvivesTheWorkerChannel) {
    HardwareCounters h;
    h.status = hardware_status::ok;
    h.passes = 3;
    h.pass_ms = 12.5;
    for (const HardwareMetric& m : hardware_metrics()) h.metrics[m.name] = 1e9 + double(h.metrics.size());
    const json j = h;
    EXPECT_EQ(json::from_cbor(json::to_cbor(j)).get<HardwareCounters>(), h);

    json unknown = j;
    unknown["not_a_metric.sum"] = 1;
    EXPECT_EQ(unknown.get<HardwareCounters>(), h) << "names it does not know are dropped";
}

TEST(HardwareProtocol, RunOptionsCarryTheHardwareAndStallSwitchesAndAreCheckedBeforeUse) {
    RunOptions o;
    o.hardware_counters = false;
    EXPECT_FALSE(json(o).get<RunOptions>().hardware_counters);
    o.hardware_counters = true;
    EXPECT_TRUE(json(o).get<RunOptions>().hardware_counters);

    worker::MeasureJob job;
    job.family = "matmul";
    job.problem = Problem{{64, 64, 64}};
    auto kernel = std::make_shared<CompileResult>();
    kernel->cubin = {'c', 'u', 'b'};
    kernel->lowered_name = "k";
    job.kernel = kernel;
    json request = {{"id", 7}, {"op", "run"}, {"job", worker::job_to_json(job)}, {"options", json(o)}};
    EXPECT_EQ(worker::request_problem(request), "");
    request["options"]["hardware_counters"] = "yes";
    EXPECT_NE(worker::request_problem(request).find("hardware_counters"), std::string::npos);
    // The stall-sampling switch beside it (tilelab/stalls.h), checked the same way.
    request["options"] = json(o);
    request["options"]["stall_samples"] = 1;
    EXPECT_NE(worker::request_problem(request).find("stall_samples"), std::string::npos);
}

// ---- the CLI in model mode ------------------------------------------------------------------

test::Spawned run_model_mode(const std::vector<std::string>& args) {
    const auto dir = std::filesystem::temp_directory_path() / ("tilelab_hw_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto r = test::spawn(test::cli_path(), args, {"TILELAB_MODEL_MODE=1", "XDG_CACHE_HOME=" + (dir / "cache").string()},
                         120, dir.string());
    return r;
}

TEST(HardwareCli, RunJsonHasAHardwareObjectKeyedByNcuNamesThatSaysWhyItIsEmpty) {
    const auto r = run_model_mode({"run", "matmul.smem_tiled", "--size", "256", "--json"});
    ASSERT_EQ(r.exit_code, 3) << r.err;   // model mode: no GPU
    const json j = json::parse(r.out);
    ASSERT_TRUE(j.contains("hardware")) << r.out;
    const json& h = j.at("hardware");
    EXPECT_EQ(h.at("status"), "no_gpu");
    EXPECT_NE(h.at("reason").get<std::string>(), "");
    EXPECT_EQ(h.at("passes"), 0);
    for (const HardwareMetric& m : hardware_metrics()) {
        ASSERT_TRUE(h.contains(m.name)) << m.name;
        EXPECT_TRUE(h.at(m.name).is_null()) << m.name << ": nothing measured must not read as 0";
    }
    EXPECT_TRUE(j.at("gbps_dram").is_null());

    const auto skipped = run_model_mode({"run", "matmul.smem_tiled", "--size", "256", "--json", "--no-hardware"});
    EXPECT_EQ(json::parse(skipped.out).at("hardware").at("status"), "skipped");
}

TEST(HardwareCli, RunCsvHasAColumnPerMetricAndTheStatus) {
    const auto r = run_model_mode({"run", "matmul.smem_tiled", "--size", "256", "--csv"});
    ASSERT_EQ(r.exit_code, 3) << r.err;
    std::stringstream lines(r.out);
    std::string header, row;
    std::getline(lines, header);
    std::getline(lines, row);
    for (const HardwareMetric& m : hardware_metrics()) EXPECT_NE(header.find(m.name), std::string::npos) << m.name;
    EXPECT_NE(header.find("hardware_status"), std::string::npos);
    EXPECT_NE(row.find("no_gpu"), std::string::npos) << row;
}

TEST(HardwareCli, TheTableSaysWhyThereAreNoCounters) {
    const auto r = run_model_mode({"run", "matmul.smem_tiled", "--size", "256"});
    EXPECT_NE(r.out.find("Hardware counters"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not read (no_gpu)"), std::string::npos) << r.out;
}

// In Chinese the table, the reason and the device's reason come from the tables and say().
TEST(HardwareCli, TheTableSaysWhyInChinese) {
    const auto r = run_model_mode({"run", "matmul.smem_tiled", "--size", "256", "--lang", "zh"});
    EXPECT_NE(r.out.find("硬件计数器"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("未读取（no_gpu）"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("模型模式下没有硬件计数器"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("没有 GPU：按要求进入模型模式"), std::string::npos) << r.err;
}

// With counters (a fake worker replaying a counter pass), the CLI's table ends with the caveat the
// app's DRAM-read tooltip gives for a kernel that spills, and without spills says nothing of it.
TEST(HardwareCli, TheTableSaysWhenAKernelsSpillsMakeItsDramReadsLoose) {
    const test::Scratch scratch("hw-spills");
    json hardware = {{"status", "ok"}, {"reason", ""}, {"passes", 1}, {"pass_ms", 1.0}};
    for (const HardwareMetric& m : hardware_metrics()) hardware[m.name] = 1e6;
    const std::string replay = scratch.file("hardware.json", json{{"hardware", hardware}}.dump());
    const std::string worker = test::helper_path(test::kFakeGpuWorkerHelper) + " --stdio --count 1 --ms 5 --hardware " + replay;
    const auto run = [&](std::vector<std::string> sets) {
        std::vector<std::string> args = {"run", "matmul.register_2d", "--size", "256", "--gpu-command", worker};
        for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
        return test::spawn(test::cli_path(), args, {"XDG_CACHE_HOME=" + scratch.path("cache")}, 120, scratch.dir.string());
    };
    // A 16x8 thread tile with the next tiles prefetched: over 255 registers, hundreds of bytes spilled.
    const auto spills = run({"BM=128", "BN=32", "BK=8", "TM=16", "TN=8", "FLOAT4=0", "TRANSPOSE_A=0", "PAD=4", "DBUF=1"});
    ASSERT_EQ(spills.exit_code, 0) << spills.err;
    EXPECT_NE(spills.out.find("Hardware counters"), std::string::npos) << spills.out;
    EXPECT_NE(spills.out.find("bytes of spill loads a thread"), std::string::npos) << spills.out;
    EXPECT_NE(spills.out.find("order of magnitude"), std::string::npos) << spills.out;
    EXPECT_NE(spills.out.find("bytes of spill stores and loads a thread"), std::string::npos) << spills.out;
    const auto plain = run({});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_NE(plain.out.find("Hardware counters"), std::string::npos) << plain.out;
    EXPECT_EQ(plain.out.find("bytes of spill loads a thread"), std::string::npos) << plain.out;
    EXPECT_EQ(plain.out.find("bytes of spill stores and loads a thread"), std::string::npos) << plain.out;
}

TEST(HardwareRule, TheDramWriteCaseFollowsTheOutputAgainstL2) {
    const double l2 = 50.0 * 1024 * 1024;
    const std::string firm = dram_write_case(4 * l2, l2);
    EXPECT_NE(firm.find("4.0 times"), std::string::npos) << firm;
    EXPECT_NE(firm.find("within 2 %"), std::string::npos) << firm;
    const std::string loose = dram_write_case(3.9 * l2, l2);
    EXPECT_NE(loose.find("3.9 times"), std::string::npos) << loose;
    EXPECT_NE(loose.find("4.4 MB more"), std::string::npos) << loose;
    EXPECT_EQ(firm.find("spill"), std::string::npos) << firm;
    const std::string spilling = dram_write_case(4 * l2, l2, 584);
    EXPECT_EQ(spilling.find("within 2 %"), std::string::npos) << spilling;   // 1.6-5.9 % measured
    EXPECT_NE(spilling.find("584 bytes of spill stores a thread"), std::string::npos) << spilling;
    EXPECT_NE(spilling.find("within 10 %"), std::string::npos) << spilling;
    EXPECT_EQ(dram_write_case(4 * l2, 0), "");   // model mode: L2's size not known
    EXPECT_EQ(dram_write_case(0, l2), "");
}

TEST(HardwareRule, TheDramReadCaseNamesTheSpills) {
    EXPECT_EQ(dram_read_case(0), "");   // no spills: no caveat
    const std::string spills = dram_read_case(584);
    EXPECT_NE(spills.find("584 bytes of spill loads"), std::string::npos) << spills;
    EXPECT_NE(spills.find("order of magnitude"), std::string::npos) << spills;
}

TEST(HardwareRule, TheL2BytesCaseNamesTheSpills) {
    EXPECT_EQ(l2_bytes_case(0), "");   // no spills: no caveat
    const std::string spills = l2_bytes_case(1168);
    EXPECT_NE(spills.find("1168 bytes of spill stores and loads"), std::string::npos) << spills;
    EXPECT_NE(spills.find("about 10 %"), std::string::npos) << spills;
    EXPECT_NE(spills.find("hit L1"), std::string::npos) << spills;
}

TEST(HardwareRule, TheSharedConflictsCaseNamesTheSpills) {
    EXPECT_EQ(shared_conflicts_case(0), "");   // no spills: no caveat
    const std::string spills = shared_conflicts_case(1168);
    EXPECT_NE(spills.find("1168 bytes of spill stores and loads"), std::string::npos) << spills;
    EXPECT_NE(spills.find("about 15 %"), std::string::npos) << spills;
    EXPECT_NE(spills.find("follows the clock"), std::string::npos) << spills;
}

}  // namespace
