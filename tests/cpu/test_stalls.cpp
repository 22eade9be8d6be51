// Stall samples without a GPU: the device's reason names in the ten groups, the counts, the
// JSON that crosses the worker channel and reaches the CLI (checked before it is read), the
// sentences, and the CLI's section in model mode (tilelab/stalls.h).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>
#include <filesystem>
#include <fmt/format.h>
#include "host/worker_replies.h"
#include "spawned_program.h"
#include "tilelab/i18n.h"
#include "tilelab/result_json.h"
#include "tilelab/stalls.h"

namespace {

using namespace tilelab;
using nlohmann::json;

TEST(StallGroups, EveryDeviceReasonFallsInOneGroup) {
    // Names as CUPTI gives them on an H200 (CUDA 13.0), with the prefix, and bare.
    EXPECT_EQ(stall_group_of("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), StallGroup::global_memory);
    EXPECT_EQ(stall_group_of("smsp__pcsamp_warps_issue_stalled_short_scoreboard"), StallGroup::shared_memory);
    EXPECT_EQ(stall_group_of("smsp__pcsamp_warps_issue_stalled_selected"), StallGroup::issuing);
    EXPECT_EQ(stall_group_of("smsp__pcsamp_warps_issue_stalled_barrier"), StallGroup::barrier);
    EXPECT_EQ(stall_group_of("smsp__pcsamp_warps_issue_stalled_math_pipe_throttle"), StallGroup::math_pipe);
    EXPECT_EQ(stall_group_of("tensor_pipe_throttle"), StallGroup::math_pipe);
    EXPECT_EQ(stall_group_of("smsp__pcsamp_warps_issue_stalled_lg_throttle"), StallGroup::memory_throttle);
    EXPECT_EQ(stall_group_of("mio_throttle"), StallGroup::memory_throttle);
    EXPECT_EQ(stall_group_of("tex_throttle"), StallGroup::memory_throttle);
    EXPECT_EQ(stall_group_of("not_selected"), StallGroup::not_selected);
    EXPECT_EQ(stall_group_of("no_instructions"), StallGroup::branch);
    EXPECT_EQ(stall_group_of("branch_resolving"), StallGroup::branch);
    EXPECT_EQ(stall_group_of("wait"), StallGroup::wait);
    EXPECT_EQ(stall_group_of("membar"), StallGroup::other);
    EXPECT_EQ(stall_group_of("smsp__pcsamp_warps_issue_stalled_something_new"), StallGroup::other);
}

TEST(StallGroups, TheNotIssuedCopiesAreRecognisedSoNoSampleCountsTwice) {
    EXPECT_TRUE(is_not_issued_duplicate("smsp__pcsamp_warps_issue_stalled_barrier_not_issued"));
    EXPECT_FALSE(is_not_issued_duplicate("smsp__pcsamp_warps_issue_stalled_barrier"));
    EXPECT_FALSE(is_not_issued_duplicate("smsp__pcsamp_warps_issue_stalled_not_selected"));
    EXPECT_FALSE(is_not_issued_duplicate("_not_issued"));
}

TEST(StallGroups, EachGroupHasAKeyANameAndASentenceInBothLanguages) {
    std::set<std::string> keys;
    for (int g = 0; g < kStallGroups; ++g) {
        const std::string key = stall_group_key(StallGroup(g));
        EXPECT_TRUE(keys.insert(key).second) << key;
        for (Language lang : {Language::English, Language::Chinese})
            for (const char* part : {"name", "help"}) {
                const std::string k = fmt::format("stall.{}.{}", key, part);
                EXPECT_TRUE(string_table(lang).count(k)) << k << " in " << language_code(lang);
            }
    }
}

TEST(StallCounts, TotalsTopAndSums) {
    StallCounts a, b;
    EXPECT_EQ(a.total(), 0u);
    a[StallGroup::barrier] = 5;
    a[StallGroup::global_memory] = 7;
    b[StallGroup::barrier] = 4;
    a += b;
    EXPECT_EQ(a.total(), 16u);
    EXPECT_EQ(a.top(), StallGroup::barrier);
    EXPECT_DOUBLE_EQ(stall_share(4, 16), 25.0);
    EXPECT_DOUBLE_EQ(stall_share(4, 0), 0.0);
}

TEST(StallFiles, ALineTableNameMatchesTheKernelFileAtAFolderBoundary) {
    EXPECT_TRUE(stall_file_matches("smem_tiled.cuh", "matmul/smem_tiled.cuh"));   // NVRTC's header name
    EXPECT_TRUE(stall_file_matches("matmul/smem_tiled.cuh", "matmul/smem_tiled.cuh"));
    EXPECT_TRUE(stall_file_matches("/tmp/x/mine.cu", "mine.cu"));
    EXPECT_FALSE(stall_file_matches("tiled.cuh", "matmul/smem_tiled.cuh"));
    EXPECT_FALSE(stall_file_matches("common.cuh", "matmul/smem_tiled.cuh"));
    EXPECT_FALSE(stall_file_matches("", "matmul/smem_tiled.cuh"));
    EXPECT_FALSE(stall_file_matches("smem_tiled.cuh", ""));
}

StallSamples sample() {
    StallSamples s;
    s.status = stall_status::ok;
    s.period_log2 = 11;
    s.launches = 14;
    StallLine hot{"smem_tiled.cuh", 44, {}};
    hot.counts[StallGroup::global_memory] = 600;
    hot.counts[StallGroup::issuing] = 100;
    StallLine cool{"smem_tiled.cuh", 66, {}};
    cool.counts[StallGroup::shared_memory] = 300;
    s.lines = {hot, cool};
    s.pcs = {StallPc{0x120, 0, hot.counts, "LDG.E R4, desc[UR4][R2.64]", {1}}, StallPc{0x200, 1, cool.counts, "LDS R5, [R9]", {}},
             StallPc{0x10, -1, {}, {}, {}}};
    s.counts = hot.counts;
    s.counts += cool.counts;
    s.total = s.counts.total();
    return s;
}

TEST(StallLines, AnInstructionWhereInlinedCallsBeginCountsOnEachOfTheirLines) {
    const auto of = [](StallGroup g, uint64_t n) {
        StallCounts c;
        c[g] = n;
        return c;
    };
    const std::vector<SampledPc> sampled = {
        {0x40, of(StallGroup::shared_memory, 3), {{"k.cuh", 30}, {"k.cuh", 30}}},   // a line twice counts once
        {0x10, of(StallGroup::global_memory, 10), {{"k.cuh", 20}, {"helper.cuh", 5}}},   // the call, then its own line
        {0x20, of(StallGroup::barrier, 4), {{"k.cuh", 30}}},
        {0x30, of(StallGroup::issuing, 1), {}},   // no line information
    };
    StallSamples s;
    charge_stall_lines(sampled, s);
    EXPECT_EQ(s.total, 18u) << "each sample once in the whole";
    ASSERT_EQ(s.lines.size(), 3u);
    EXPECT_EQ(s.lines[0].file + ":" + std::to_string(s.lines[0].line), "helper.cuh:5");
    EXPECT_EQ(s.lines[1].file + ":" + std::to_string(s.lines[1].line), "k.cuh:20");
    EXPECT_EQ(s.lines[0].counts.total(), 10u);
    EXPECT_EQ(s.lines[1].counts.total(), 10u) << "the call's line has its inlined instruction's samples too";
    EXPECT_EQ(s.lines[2].counts.total(), 7u);
    ASSERT_EQ(s.pcs.size(), 4u);
    EXPECT_EQ(s.pcs[0].offset, 0x10u) << "instructions by offset";
    EXPECT_EQ(s.pcs[0].line, 0) << "its own line";
    EXPECT_EQ(s.pcs[0].calls, std::vector<int>{1}) << "the call it begins";
    EXPECT_EQ(s.pcs[2].line, -1);
    EXPECT_TRUE(s.pcs[2].calls.empty());
    EXPECT_EQ(s.pcs[3].line, 2);
    EXPECT_TRUE(s.pcs[3].calls.empty());
}

TEST(StallSummary, NamesTheTopGroupItsShareAndItsLine) {
    set_language(Language::English);
    EXPECT_EQ(stall_summary(sample(), "matmul/smem_tiled.cuh"), "60% of samples: Global memory, most on line 44");
    EXPECT_EQ(stall_summary(sample(), "matmul/wmma.cuh"), "60% of samples: Global memory, most at smem_tiled.cuh:44")
        << "a line of another file is named with its file";
    EXPECT_EQ(stall_summary(StallSamples{}, "k.cuh"), "") << "no samples, no sentence";
    EXPECT_EQ(stall_reason(stall_status::ok), "");
    for (const char* status : {stall_status::no_gpu, stall_status::overflow, stall_status::unsupported,
                               stall_status::insufficient_privileges, stall_status::error})
        EXPECT_NE(stall_reason(status), "") << status;
    EXPECT_NE(stall_reason(stall_status::insufficient_privileges).find("ERR_NVGPUCTRPERM"), std::string::npos);
}

TEST(StallProtocol, SamplesSurviveTheWorkerChannelAndTheResultJson) {
    const StallSamples s = sample();
    const json j = s;
    EXPECT_EQ(j.at("counts").at("global_memory"), 600);
    EXPECT_EQ(json::from_cbor(json::to_cbor(j)).get<StallSamples>(), s);
    Measurement m;
    m.ok = true;
    m.stalls = s;
    EXPECT_EQ(json(m).get<Measurement>().stalls, s);
    RunOptions o;
    EXPECT_FALSE(o.stall_samples) << "the CLI samples only with --stalls";
    o.stall_samples = true;
    EXPECT_TRUE(json(o).get<RunOptions>().stall_samples);
    EXPECT_FALSE(quick_protocol(o).stall_samples) << "a drag's quick run is never sampled";
}

TEST(StallProtocol, AReplyWithBadSamplesIsRefusedBeforeItIsRead) {
    Measurement m;
    m.ok = true;
    m.stalls = sample();
    json reply = {{"id", 1}, {"result", json(m)}};
    EXPECT_EQ(reply_fields_problem("run", reply), "");
    json bad_line = reply;
    bad_line["result"]["stalls"]["lines"][1]["line"] = "forty-four";
    EXPECT_NE(reply_fields_problem("run", bad_line).find("stalls.lines[1].line"), std::string::npos)
        << reply_fields_problem("run", bad_line);
    json bad_count = reply;
    bad_count["result"]["stalls"]["pcs"][0]["counts"]["barrier"] = -1.5;
    EXPECT_NE(reply_fields_problem("run", bad_count), "");
    json bad_call = reply;
    bad_call["result"]["stalls"]["pcs"][0]["calls"][0] = "line 66";
    EXPECT_NE(reply_fields_problem("run", bad_call).find("stalls.pcs[0].calls[0]"), std::string::npos)
        << reply_fields_problem("run", bad_call);
    json without = reply;
    without["result"].erase("stalls");
    EXPECT_EQ(reply_fields_problem("run", without), "") << "an older worker's reply has no samples";
    json no_calls = reply;
    no_calls["result"]["stalls"]["pcs"][0].erase("calls");
    EXPECT_EQ(reply_fields_problem("run", no_calls), "") << "nor, before 2026-12-04, the calls an instruction begins";
    json one_period = reply;
    for (const char* key : {"last_period_log2", "left_out_period_log2", "period_spread"}) one_period["result"]["stalls"].erase(key);
    EXPECT_EQ(reply_fields_problem("run", one_period), "") << "nor, before 2026-12-05, a second sampling period";
    json bad_spread = reply;
    bad_spread["result"]["stalls"]["period_spread"] = "wide";
    EXPECT_NE(reply_fields_problem("run", bad_spread).find("stalls.period_spread"), std::string::npos);
}

// ---- the CLI in model mode ------------------------------------------------------------------

test::Spawned run_model_mode(const std::vector<std::string>& args) {
    const auto dir = std::filesystem::temp_directory_path() / ("tilelab_stall_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return test::spawn(test::cli_path(), args, {"TILELAB_MODEL_MODE=1", "XDG_CACHE_HOME=" + (dir / "cache").string()}, 120,
                       dir.string());
}

TEST(StallCli, RunStallsSaysWhyThereAreNoSamplesInTextAndJson) {
    const auto text = run_model_mode({"run", "matmul.smem_tiled", "--size", "256", "--stalls"});
    EXPECT_NE(text.out.find("Where the warps wait"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("not sampled (no_gpu)"), std::string::npos) << text.out;
    const auto zh = run_model_mode({"run", "matmul.smem_tiled", "--size", "256", "--stalls", "--lang", "zh"});
    EXPECT_NE(zh.out.find("未采样（no_gpu）"), std::string::npos) << zh.out;
    EXPECT_NE(zh.out.find("模型模式下没有停顿采样"), std::string::npos) << zh.out;

    const auto j = run_model_mode({"run", "matmul.smem_tiled", "--size", "256", "--stalls", "--json"});
    ASSERT_EQ(j.exit_code, 3) << j.err;
    const json r = json::parse(j.out);
    EXPECT_EQ(r.at("stalls").at("status"), "no_gpu");
    EXPECT_EQ(r.at("stalls").at("lines"), json::array());
    EXPECT_EQ(r.at("compile").at("kernel_file"), "matmul/smem_tiled.cuh");

    const auto plain = run_model_mode({"run", "matmul.smem_tiled", "--size", "256", "--json"});
    EXPECT_EQ(json::parse(plain.out).at("stalls").at("status"), "skipped");
    const auto plain_text = run_model_mode({"run", "matmul.smem_tiled", "--size", "256"});
    EXPECT_EQ(plain_text.out.find("Where the warps wait"), std::string::npos) << "not asked, not shown";
}

}  // namespace

// nvdisasm's listing (-c: code sections only), as it prints a cubin with two kernels: the
// offsets of the asked-for function, its instructions without the ';' and the encodings.
TEST(SassListing, TakesOneFunctionsInstructionsByOffset) {
    const std::string listing =
        "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
        "\t.section\t.text._Z5otherPf,\"ax\",@progbits\n"
        "_Z5otherPf:\n"
        ".text._Z5otherPf:\n"
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */\n"
        "\t.section\t.text._Z5naivePKfS0_Pfiii,\"ax\",@progbits\n"
        "\t.sectionflags\t@\"SHF_BARRIERS=1\"\n"
        "_Z5naivePKfS0_Pfiii:\n"
        ".text._Z5naivePKfS0_Pfiii:\n"
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */\n"
        "                                                                          /* 0x000fe40000000800 */\n"
        "        /*0010*/                   S2R R0, SR_TID.X ;\n"
        ".L_x_0:\n"
        "        /*0080*/              @!P0 LDG.E R2, desc[UR4][R2.64] ;\n"
        "        /*0090*/                   BRA `(.L_x_0) ;\n"
        "\t.section\t.nv.shared._Z5naivePKfS0_Pfiii,\"aw\",@nobits\n"
        "        /*00a0*/                   EXIT ;\n";
    const auto code = parse_sass_listing(listing, "_Z5naivePKfS0_Pfiii");
    ASSERT_EQ(code.size(), 4u);
    EXPECT_EQ(code.at(0x0), "LDC R1, c[0x0][0x28]");
    EXPECT_EQ(code.at(0x10), "S2R R0, SR_TID.X");
    EXPECT_EQ(code.at(0x80), "@!P0 LDG.E R2, desc[UR4][R2.64]");
    EXPECT_EQ(code.at(0x90), "BRA `(.L_x_0)");
    EXPECT_EQ(parse_sass_listing(listing, "_Z5otherPf").size(), 1u);
    EXPECT_TRUE(parse_sass_listing(listing, "_Z5naive").empty()) << "a prefix of a name is not the name";
    EXPECT_TRUE(parse_sass_listing("", "_Z5naivePKfS0_Pfiii").empty());
}
