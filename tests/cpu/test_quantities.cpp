// One table of named quantities (issue 29): drills, lesson check lines, the CLI and the Compare tab
// read the same names with the same values.
#include <gtest/gtest.h>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spawned_program.h"
#include "tilelab/drills.h"
#include "tilelab/quantities.h"

using namespace tilelab;

// Every name drills and check lines used before the table stays a quantity.
TEST(Quantities, NamesOfDrillsAndChecksAreKept) {
    const char* drill_names[] = {"registers", "spill stores (bytes)", "spill loads (bytes)", "blocks per SM", "occupancy %",
                                 "active warps / SM", "threads / block", "shared bytes / block",
                                 "blocks per SM by registers", "blocks per SM by shared memory", "blocks per SM by warps",
                                 "global loads per thread", "shared loads per thread", "arithmetic intensity",
                                 "global bytes (total)", "shared wavefronts", "bank conflicts", "load ways", "store ways",
                                 "time"};
    const char* check_names[] = {"spill bytes", "register file KB / SM", "registers / SM", "global loads, total"};
    for (const char* n : drill_names) EXPECT_NE(find_quantity(n), nullptr) << n;
    for (const char* n : check_names) EXPECT_NE(find_quantity(n), nullptr) << n;
    std::set<std::string> unique;
    for (const Quantity& q : quantities()) EXPECT_TRUE(unique.insert(q.name).second) << "twice: " << q.name;
    EXPECT_EQ(quantity_names().size(), quantities().size());
    EXPECT_EQ(find_quantity("no such quantity"), nullptr);
}

TEST(Quantities, OnlyMeasuredOnesNeedAGpu) {
    for (const Quantity& q : quantities()) {
        const std::string n = q.name;
        EXPECT_EQ(q.needs_gpu, n == "time" || n == "GFLOP/s" || n.rfind("stall share: ", 0) == 0) << n;
        EXPECT_EQ(quantity_needs_gpu(n), q.needs_gpu) << n;
    }
    Drill d;
    d.ask = "time";
    EXPECT_TRUE(d.needs_gpu());
    d.ask = "blocks per SM";
    EXPECT_FALSE(d.needs_gpu());
}

// A stall share is a measured quantity: the share of the run's samples in one group, none
// without samples.
TEST(Quantities, StallSharesAreTheSamplesOfOneGroup) {
    RunResult r;
    double v = 0;
    EXPECT_FALSE(quantity_value(r, "stall share: barrier", v)) << "no samples, no share";
    r.stalls.status = stall_status::ok;
    r.stalls.lines = {StallLine{"k.cuh", 3, {}}};
    r.stalls.counts[StallGroup::barrier] = 30;
    r.stalls.counts[StallGroup::issuing] = 70;
    r.stalls.total = 100;
    ASSERT_TRUE(quantity_value(r, "stall share: barrier", v));
    EXPECT_DOUBLE_EQ(v, 30.0);
    ASSERT_TRUE(quantity_value(r, "stall share: issuing", v));
    EXPECT_DOUBLE_EQ(v, 70.0);
    for (int g = 0; g < kStallGroups; ++g)
        EXPECT_TRUE(find_quantity(std::string("stall share: ") + stall_group_key(StallGroup(g)))) << stall_group_key(StallGroup(g));
}

TEST(Quantities, ValuesOfOneResult) {
    RunResult r;
    r.occupancy.blocks_per_sm = 3;
    r.occupancy.occupancy = 0.375;
    r.occupancy.limit_registers = 3;
    r.occupancy.limit_smem = std::numeric_limits<int>::max();
    r.target.regs_per_sm = 65536;
    r.model.intensity = 4.5;
    r.model.extras.push_back(Formula{"mma_sync, total", "M·N·K / 4096", 512});
    double v = -1;
    ASSERT_TRUE(quantity_value(r, "blocks per SM", v));
    EXPECT_EQ(v, 3);
    ASSERT_TRUE(quantity_value(r, "occupancy %", v));
    EXPECT_DOUBLE_EQ(v, 37.5);
    ASSERT_TRUE(quantity_value(r, "blocks per SM by registers", v));
    EXPECT_EQ(v, 3);
    EXPECT_FALSE(quantity_value(r, "blocks per SM by shared memory", v)) << "no limit, no answer";
    ASSERT_TRUE(quantity_value(r, "register file KB / SM", v));
    EXPECT_EQ(v, 256);
    ASSERT_TRUE(quantity_value(r, "arithmetic intensity", v));
    EXPECT_EQ(v, 4.5);
    ASSERT_TRUE(quantity_value(r, "mma_sync, total", v)) << "an extra of the model by its name";
    EXPECT_EQ(v, 512);
    EXPECT_FALSE(quantity_value(r, "registers", v)) << "nothing compiled";
    EXPECT_FALSE(quantity_value(r, "load ways", v)) << "no shared site";
    EXPECT_FALSE(quantity_value(r, "no such quantity", v));

    EXPECT_FALSE(quantity_value(r, "time", v)) << "nothing measured";
    r.ok = r.measured = true;
    r.timing.median_ms = 1.25;
    r.gflops = 800;
    r.validation.checked = true;
    EXPECT_FALSE(quantity_value(r, "time", v)) << "a wrong output has no time";
    r.validation.passed = true;
    ASSERT_TRUE(quantity_value(r, "time", v));
    EXPECT_EQ(v, 1.25);
    ASSERT_TRUE(quantity_value(r, "GFLOP/s", v));
    EXPECT_EQ(v, 800);
}

// The CLI prints a quantity by the same name with the same value as its full report.
TEST(Quantities, TheCliPrintsOneByItsName) {
    const std::string dir = ::testing::TempDir();
    const std::vector<std::string> env = {"TILELAB_MODEL_MODE=1"};
    const test::Spawned full = test::spawn(test::cli_path(), {"compile", "02", "--json"}, env, 120, dir);
    ASSERT_EQ(full.exit_code, 0) << full.err;
    const test::Spawned one =
        test::spawn(test::cli_path(), {"compile", "02", "--json", "--quantity", "threads / block"}, env, 120, dir);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const auto report = nlohmann::json::parse(full.out), j = nlohmann::json::parse(one.out);
    EXPECT_EQ(j.at("quantity"), "threads / block");
    EXPECT_EQ(j.at("value").get<double>(), report.at("threads_per_block").get<double>());
    EXPECT_EQ(j.at("needs_gpu"), false);

    const test::Spawned text = test::spawn(test::cli_path(), {"compile", "02", "--quantity", "occupancy %"}, env, 120, dir);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.out.rfind("occupancy % = ", 0), 0u) << text.out;

    const test::Spawned time = test::spawn(test::cli_path(), {"run", "02", "--quantity", "time"}, env, 120, dir);
    EXPECT_EQ(time.exit_code, 3) << "no GPU: the run's own exit, not a usage error\n" << time.out << time.err;
    EXPECT_EQ(time.out, "") << "no report in place of the quantity";

    const test::Spawned none = test::spawn(test::cli_path(), {"compile", "02", "--quantity", "no such"}, env, 120, dir);
    EXPECT_EQ(none.exit_code, 2) << none.out;
    EXPECT_NE(none.err.find("blocks per SM"), std::string::npos) << "it names the quantities: " << none.err;
}
