// The GPU machine's time is scarce (30 minutes a session): a sanitizer run in a GPU script that asks
// for a configuration the lesson refuses wastes a run and reads as a failure. Every explicit
// `sanitize VARIANT TOOL SIZE K=V...` line of the attention script must be a configuration the
// engine accepts, checked here without a GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "model_engine.h"
#include "tilelab/input_policy.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

TEST(GpuScripts, EverySanitizerRunOfTheAttentionScriptIsAValidConfiguration) {
    const std::string path = std::string(TILELAB_SOURCE_DIR) + "/scripts/gpu_attention_check.sh";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    const std::regex line(R"(^\s*sanitize\s+(attention\.\w+)\s+(memcheck|racecheck|synccheck)\s+(\S+)\s*(.*)$)");
    int runs = 0;
    for (std::string text; std::getline(in, text);) {
        std::smatch m;
        if (!std::regex_match(text, m, line)) continue;
        ++runs;
        RunRequest req;
        req.variant = m[1];
        std::string error;
        ASSERT_TRUE(parse_problem(m[3], req.problem, error)) << text << ": " << error;
        const Variant* v = find_variant(req.variant);
        ASSERT_NE(v, nullptr) << text;
        std::istringstream words(m[4].str());
        std::vector<std::string> sets;
        for (std::string kv; words >> kv;) sets.push_back(kv);
        try {
            req.params = parse_sets(*v, sets);
        } catch (const std::exception& e) {
            ADD_FAILURE() << text << ": " << e.what();
            continue;
        }
        EXPECT_EQ(test::model_engine().invalid_reason(req), "") << text;
    }
    EXPECT_GE(runs, 20) << "the script's sanitize lines were not found";
}

}  // namespace
}  // namespace tilelab
