// tilelab-cli end to end, in model mode: the binary is spawned with TILELAB_MODEL_MODE=1 and its
// exit code, stdout and stderr are checked. Tests that need a written variant skip visibly while
// the variant is still a placeholder; list, targets and the usage errors always run.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "spawned_program.h"

#include "tilelab/engine.h"
#include "tilelab/lesson.h"
#include "tilelab/variant.h"
#include "test_folder.h"

namespace {

using nlohmann::json;
using namespace tilelab;

struct CliRun {
    int exit_code = -1;
    std::string out, err;
};

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

CliRun run_cli(const std::vector<std::string>& args) {
    const auto dir = test::folder_of_this_test("cli_test");
    std::filesystem::create_directories(dir);
    std::string cmd = "TILELAB_MODEL_MODE=1 ";
    cmd += shell_quote(test::cli_path());
    // Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on "x" + std::string&&.
    for (const auto& a : args) {
        cmd += ' ';
        cmd += shell_quote(a);
    }
    cmd += " >";
    cmd += shell_quote((dir / "out").string());
    cmd += " 2>";
    cmd += shell_quote((dir / "err").string());
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(dir / "out");
    r.err = read_file(dir / "err");
    std::filesystem::remove_all(dir);
    return r;
}

// Usage errors are one line on stderr, prefixed with the program's name.
void expect_one_line_error(const CliRun& r, int code) {
    EXPECT_EQ(r.exit_code, code) << "stdout:\n" << r.out << "stderr:\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("tilelab-cli: ", 0), 0u) << r.err;
}

// `args` is a usage error (exit 2, one line) that names `named`.
void expect_usage_error_naming(const std::vector<std::string>& args, const std::string& named) {
    const CliRun r = run_cli(args);
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) lines.push_back(line);
    return lines;
}

bool is_written(const Variant& v) { return v.defined(); }

// The variant tests prefer (the tiled matmul is the one with an interesting parameter space),
// or any written one; nullptr while every variant is a placeholder.
const Variant* written_variant() {
    if (const Variant* v = find_variant("matmul.smem_tiled"); v && is_written(*v) && !v->params.empty()) return v;
    for (const auto& v : all_variants())
        if (is_written(v) && !v.params.empty()) return &v;
    return nullptr;
}

#define REQUIRE_WRITTEN_VARIANT(v)                                                             \
    const Variant* v = written_variant();                                                       \
    if (v == nullptr) GTEST_SKIP() << "every variant is still a placeholder (no kernel/launch/" \
                                      "cost model declared yet)"

// ---- list and targets -----------------------------------------------------------------------

TEST(Cli, ListNamesEveryVariantAndLesson) {
    const CliRun r = run_cli({"list"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& v : all_variants()) EXPECT_NE(r.out.find(v.id), std::string::npos) << v.id;
    for (const auto& l : all_lessons()) EXPECT_NE(r.out.find(l.id), std::string::npos) << l.id;
}

TEST(Cli, ListJsonCarriesParameterRangesDefaultsAndHelp) {
    const CliRun r = run_cli({"list", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json j = json::parse(r.out);
    ASSERT_EQ(j["variants"].size(), all_variants().size());
    EXPECT_EQ(j["lessons"].size(), all_lessons().size());
    for (size_t i = 0; i < all_variants().size(); ++i) {
        const Variant& v = all_variants()[i];
        const json& jv = j["variants"][i];
        EXPECT_EQ(jv["id"], v.id);
        EXPECT_EQ(jv["family"], v.family);
        EXPECT_EQ(jv["title"], v.title);
        ASSERT_EQ(jv["params"].size(), v.params.size()) << v.id;
        for (size_t k = 0; k < v.params.size(); ++k) {
            const json& p = jv["params"][k];
            EXPECT_EQ(p["name"], v.params[k].name);
            EXPECT_EQ(p["min"], v.params[k].min);
            EXPECT_EQ(p["max"], v.params[k].max);
            EXPECT_EQ(p["default"], v.params[k].def);
            EXPECT_EQ(p["help"], v.params[k].help);
            EXPECT_EQ(p["values"].get<std::vector<int>>(), v.params[k].values());
        }
    }
}

TEST(Cli, ListCsvHasAHeaderAndARowPerParameter) {
    const CliRun r = run_cli({"list", "--csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0], "variant,family,title,param,label,kind,min,max,step,default,values,help");
    size_t rows = 0;
    for (const auto& v : all_variants()) rows += std::max<size_t>(1, v.params.size());
    EXPECT_EQ(lines.size(), rows + 1);
}

TEST(Cli, TargetsListsEveryPresetInModelMode) {
    const CliRun r = run_cli({"targets"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Model mode"), std::string::npos) << r.out;
    for (const auto& t : target_presets()) {
        EXPECT_NE(r.out.find(t.name), std::string::npos) << t.name;
        EXPECT_NE(r.out.find(t.arch_name()), std::string::npos) << t.arch_name();
    }
}

TEST(Cli, TargetsJsonSaysModelModeWhyAndWhichPresetIsUsed) {
    const CliRun r = run_cli({"targets", "--json", "--target", "t4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["mode"], "model");
    EXPECT_EQ(j["device"]["gpu"], false);
    EXPECT_FALSE(j["device"]["reason"].get<std::string>().empty());
    EXPECT_EQ(j["presets"].size(), target_presets().size());
    EXPECT_EQ(j["current"]["preset"], "t4");
    EXPECT_EQ(j["current"]["arch"], "sm_75");
}

TEST(Cli, CeilingsNeedAGpu) {
    const CliRun r = run_cli({"ceilings"});
    expect_one_line_error(r, 3);
    EXPECT_NE(r.err.find("no GPU:"), std::string::npos) << r.err;
}

// ---- invalid input: exit 2, one line --------------------------------------------------------

TEST(Cli, UnknownVariantIsAUsageError) { expect_usage_error_naming({"compile", "matmul.no_such_thing"}, "matmul.no_such_thing"); }

TEST(Cli, UnknownParameterIsAUsageError) {
    expect_usage_error_naming({"compile", all_variants().front().id, "--set", "NO_SUCH_PARAM=4"}, "NO_SUCH_PARAM");
}

TEST(Cli, MalformedAssignmentIsAUsageError) {
    const CliRun r = run_cli({"compile", all_variants().front().id, "--set", "TILE"});
    expect_one_line_error(r, 2);
}

TEST(Cli, BadSizeIsAUsageError) {
    for (const char* size : {"10x", "0", "12x34", "big"})
        expect_usage_error_naming({"compile", all_variants().front().id, "--size", size}, "--size");
}

TEST(Cli, UnknownTargetIsAUsageError) {
    expect_usage_error_naming({"compile", all_variants().front().id, "--target", "sm_12"}, "sm_12");
}

TEST(Cli, UnknownFlagOrMissingSubcommandIsAUsageError) {
    expect_one_line_error(run_cli({}), 2);
    expect_one_line_error(run_cli({"frobnicate"}), 2);
    expect_one_line_error(run_cli({"list", "--no-such-flag"}), 2);
    expect_one_line_error(run_cli({"run", all_variants().front().id, "--reps", "0"}), 2);
    expect_one_line_error(run_cli({"list", "--json", "--csv"}), 2);
}

TEST(Cli, ValueOutOfRangeGivesTheDeclaredReason) {
    REQUIRE_WRITTEN_VARIANT(v);
    const ParamSpec& spec = v->params.front();
    const int bad = spec.kind == ParamKind::Bool ? 2 : spec.max + 1;
    ASSERT_FALSE(spec.range_reason(bad).empty());
    const CliRun r = run_cli({"compile", v->id, "--set", spec.name + "=" + std::to_string(bad)});
    expect_one_line_error(r, 2);
    EXPECT_EQ(r.err, "tilelab-cli: " + spec.range_reason(bad) + "\n");
}

// Finds a combination the engine refuses on its default model-mode target, if any.
bool find_invalid_combination(const Variant& v, const Problem& problem, RunRequest& out, std::string& reason) {
    EngineConfig cfg;
    cfg.force_model_mode = true;
    Engine engine(cfg);
    std::vector<std::vector<int>> axes;
    for (const auto& p : v.params) axes.push_back(p.values());
    std::vector<size_t> index(axes.size(), 0);
    constexpr int kMaxTries = 20000;   // the declared spaces are far smaller; this only bounds a bug
    for (int tries = 0; tries < kMaxTries; ++tries) {
        RunRequest req{v.id, {}, problem};
        for (size_t i = 0; i < axes.size(); ++i) req.params[v.params[i].name] = axes[i][index[i]];
        reason = engine.invalid_reason(req);
        if (!reason.empty()) {
            out = req;
            return true;
        }
        size_t i = 0;
        while (i < axes.size() && ++index[i] == axes[i].size()) index[i++] = 0;
        if (i == axes.size()) return false;
    }
    return false;
}

TEST(Cli, InvalidCombinationGivesTheEnginesReason) {
    Problem problem;
    std::string error;
    ASSERT_TRUE(parse_problem("1000", problem, error)) << error;
    for (const auto& v : all_variants()) {
        if (!is_written(v)) continue;
        RunRequest bad;
        std::string reason;
        if (!find_invalid_combination(v, problem, bad, reason)) continue;
        std::vector<std::string> args = {"compile", v.id, "--size", "1000"};
        for (const auto& [name, value] : bad.params) {
            args.push_back("--set");
            args.push_back(name + "=" + std::to_string(value));
        }
        const CliRun r = run_cli(args);
        expect_one_line_error(r, 2);
        EXPECT_EQ(r.err, "tilelab-cli: " + reason + "\n");
        return;
    }
    GTEST_SKIP() << "no written variant has an invalid combination at size 1000 yet";
}

// ---- compile and run in model mode ----------------------------------------------------------

TEST(Cli, CompileJsonHasTheDocumentedKeysWithSaneValues) {
    REQUIRE_WRITTEN_VARIANT(v);
    const CliRun r = run_cli({"compile", v->id, "--json", "--size", "512"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const json j = json::parse(r.out);
    for (const char* key : {"variant", "params", "problem", "target", "registers", "spill_stores", "spill_loads",
                            "smem_bytes", "threads_per_block", "blocks_per_sm", "occupancy", "limiter", "flops",
                            "global_loads", "global_stores", "shared_loads", "shared_stores", "shared_wavefronts",
                            "bank_conflicts", "launch", "model", "compile", "occupancy_detail"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["variant"], v->id);
    EXPECT_EQ(j["status"], "ok");
    EXPECT_GT(j["registers"].get<int>(), 0);
    EXPECT_GE(j["spill_stores"].get<int>(), 0);
    EXPECT_GE(j["blocks_per_sm"].get<int>(), 1);
    EXPECT_GT(j["occupancy"].get<double>(), 0.0);
    EXPECT_LE(j["occupancy"].get<double>(), 1.0);
    EXPECT_FALSE(j["limiter"].get<std::string>().empty());
    const auto block = j["launch"]["block"].get<std::vector<long>>();
    EXPECT_EQ(j["threads_per_block"].get<long>(), block[0] * block[1] * block[2]);

    // The numbers are the variant's own model at the defaults the JSON reports.
    const ParamValues params = j["params"].get<ParamValues>();
    EXPECT_EQ(params, with_defaults(v->params, {}));
    Problem problem;
    std::string error;
    ASSERT_TRUE(parse_problem("512", problem, error));
    const CostModel model = v->cost_model(params, problem);
    EXPECT_DOUBLE_EQ(j["flops"].get<double>(), model.flops);
    EXPECT_DOUBLE_EQ(j["global_loads"].get<double>(), model.total.global_loads);
    EXPECT_DOUBLE_EQ(j["global_stores"].get<double>(), model.total.global_stores);
    EXPECT_DOUBLE_EQ(j["shared_loads"].get<double>(), model.total.shared_loads);
    EXPECT_DOUBLE_EQ(j["shared_stores"].get<double>(), model.total.shared_stores);
    EXPECT_EQ(j["model"]["formulas"].size(), model.formulas.size());
    // The bank model's totals, beside the access counts.
    // null where the kernel uses shared memory the bank model does not cover yet.
    const BankModel banks = full_cost_model(*v, params, problem).banks;
    EXPECT_EQ(banks.modelled, v->declares_shared_sites);
    if (banks.modelled || j["smem_bytes"].get<int>() == 0) {
        EXPECT_DOUBLE_EQ(j["shared_wavefronts"].get<double>(), banks.wavefronts());
        EXPECT_DOUBLE_EQ(j["bank_conflicts"].get<double>(), banks.conflicts());
    } else {
        EXPECT_TRUE(j["shared_wavefronts"].is_null());
        EXPECT_TRUE(j["bank_conflicts"].is_null());
    }
    EXPECT_EQ(j["model"]["banks"]["sites"].size(), banks.sites.size());
    EXPECT_FALSE(j["compile"].contains("log"));   // only with --log
}

TEST(Cli, CompileTableShowsPtxasOccupancyAndTheModel) {
    REQUIRE_WRITTEN_VARIANT(v);
    const CliRun r = run_cli({"compile", v->id, "--size", "512", "--target", "a100", "--log"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    for (const char* text : {"ptxas", "registers/thread", "Occupancy", "limited by", "step by step",
                             "global loads", "A100", "sm_80", "Compile log"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST(Cli, CompileCsvIsAHeaderAndOneRow) {
    REQUIRE_WRITTEN_VARIANT(v);
    const CliRun r = run_cli({"compile", v->id, "--csv", "--size", "512"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(lines[0].rfind("variant,", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find(",registers,spill_stores,spill_loads,smem_bytes,threads_per_block,blocks_per_sm,"
                            "occupancy,limiter,flops,global_loads,global_stores,shared_loads,shared_stores"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(lines[1].rfind(v->id + ",", 0), 0u) << lines[1];
}

TEST(Cli, RunWithoutGpuPrintsTheAnalysisThenExits3) {
    REQUIRE_WRITTEN_VARIANT(v);
    const CliRun r = run_cli({"run", v->id, "--size", "512"});
    expect_one_line_error(r, 3);
    EXPECT_NE(r.err.find("no GPU:"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("Occupancy"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no GPU"), std::string::npos) << r.out;
}

TEST(Cli, RunJsonWithoutGpuSaysNotMeasuredAndWhy) {
    REQUIRE_WRITTEN_VARIANT(v);
    const CliRun r = run_cli({"run", v->id, "--size", "512", "--json"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["measured"], false);
    EXPECT_FALSE(j["no_gpu_reason"].get<std::string>().empty());
    EXPECT_TRUE(j["median_ms"].is_null());
    EXPECT_TRUE(j["validation"].is_null());
    EXPECT_TRUE(j["counted"].is_null());
    for (const char* key : {"min_ms", "max_ms", "gflops", "gbps_model", "gbps_effective", "reference_name",
                            "reference_ms", "pct_of_reference", "registers", "occupancy", "flops"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_GT(j["registers"].get<int>(), 0);   // the static analysis is still there
}

// ---- sweep ----------------------------------------------------------------------------------

// A parameter of `v` with more than one value, to sweep.
const ParamSpec* sweepable(const Variant& v, const ParamSpec* other = nullptr) {
    for (const auto& p : v.params)
        if (p.values().size() > 1 && &p != other) return &p;
    return nullptr;
}

TEST(Cli, SweepCsvHasARowPerValueAndSkippedPointsSayWhy) {
    REQUIRE_WRITTEN_VARIANT(v);
    const ParamSpec* p = sweepable(*v);
    if (p == nullptr) GTEST_SKIP() << v->id << " has no parameter with several values";
    const CliRun r = run_cli({"sweep", v->id, "--param", p->name, "--csv", "--size", "512"});
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), p->values().size() + 1) << r.out;
    EXPECT_EQ(lines[0].rfind("variant,", 0), 0u);
    for (size_t i = 1; i < lines.size(); ++i) {
        const bool skipped = lines[i].find(",skipped,") != std::string::npos;
        if (skipped) {
            EXPECT_EQ(lines[i].find(",skipped,,"), std::string::npos) << "no reason: " << lines[i];
        } else {
            EXPECT_NE(lines[i].find(",ok,"), std::string::npos) << lines[i];
        }
    }
}

TEST(Cli, SweepOfTwoParametersDrawsAnOccupancyGrid) {
    REQUIRE_WRITTEN_VARIANT(v);
    const ParamSpec* p1 = sweepable(*v);
    const ParamSpec* p2 = p1 ? sweepable(*v, p1) : nullptr;
    if (p2 == nullptr) GTEST_SKIP() << v->id << " has fewer than two parameters with several values";
    const CliRun r = run_cli({"sweep", v->id, "--param", p1->name, "--param2", p2->name, "--size", "512"});
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.err;
    EXPECT_NE(r.out.find("occupancy: rows " + p1->name + ", columns " + p2->name), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(p1->name + " \\ " + p2->name), std::string::npos) << r.out;
}

TEST(Cli, SweepRejectsAnUnknownOrDoubledParameter) {
    const std::string id = all_variants().front().id;
    expect_one_line_error(run_cli({"sweep", id, "--param", "NO_SUCH_PARAM"}), 2);
    REQUIRE_WRITTEN_VARIANT(v);
    const std::string name = v->params.front().name;
    expect_one_line_error(run_cli({"sweep", v->id, "--param", name, "--param2", name}), 2);
}

}  // namespace

// --step N opens a lesson's step as the app does, numbered from 1 as the app shows it: the same
// whole state (Lesson::state_at(N - 1)), whichever steps came before; --set and --size apply on
// top. 0, the first step of the old numbering from 0, is step 1.
TEST(Cli, StepGivesTheLessonsStateAtThatStep) {
    const Lesson* lesson = find_lesson("07");
    ASSERT_NE(lesson, nullptr);
    for (int step = 0; step <= int(lesson->steps.size()); ++step) {
        const CliRun r = run_cli({"compile", "07", "--step", std::to_string(step), "--json"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const json j = json::parse(r.out);
        const StepState want = lesson->state_at(std::max(step, 1) - 1);
        for (const auto& [name, value] : want.params) EXPECT_EQ(j["params"][name], value) << "step " << step << " " << name;
        Problem p;
        std::string error;
        ASSERT_TRUE(parse_problem(want.size, p, error));
        EXPECT_EQ(j["problem"]["dim"], (std::vector<int64_t>{p.dim[0], p.dim[1], p.dim[2]})) << "step " << step;
    }
    const CliRun over = run_cli({"compile", "07", "--step", "3", "--set", "MINBLOCKS=2", "--size", "1024", "--json"});
    ASSERT_EQ(over.exit_code, 0) << over.err;
    EXPECT_EQ(json::parse(over.out)["params"]["MINBLOCKS"], 2);
    const CliRun past = run_cli({"compile", "07", "--step", "99"});
    EXPECT_EQ(past.exit_code, 2);
    EXPECT_NE(past.err.find("there is no step 99"), std::string::npos) << past.err;
    const CliRun variant = run_cli({"compile", "matmul.naive", "--step", "1"});
    EXPECT_EQ(variant.exit_code, 2);
    EXPECT_NE(variant.err.find("--step needs a lesson"), std::string::npos) << variant.err;
}
