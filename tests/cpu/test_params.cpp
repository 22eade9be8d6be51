// Parameters, problem sizes and NAME=VALUE assignments: what the CLI and the GUI accept, and
// the one-sentence reasons for what they refuse.
#include <gtest/gtest.h>

#include "tilelab/params.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

using namespace tilelab;

namespace {

ParamSpec tile_spec() {
    ParamSpec s;
    s.name = "TILE";
    s.kind = ParamKind::Pow2;
    s.min = 4;
    s.max = 32;
    s.def = 16;
    return s;
}

}  // namespace

TEST(Params, Pow2ValuesAreThePowersOfTwoInRange) {
    EXPECT_EQ(tile_spec().values(), (std::vector<int>{4, 8, 16, 32}));
    ParamSpec odd = tile_spec();
    odd.min = 3, odd.max = 100;
    EXPECT_EQ(odd.values(), (std::vector<int>{4, 8, 16, 32, 64}));
}

TEST(Params, IntValuesStepFromMin) {
    ParamSpec s{"COARSEN", "Coarsening", ParamKind::Int, 2, 11, 3, 2, ""};
    EXPECT_EQ(s.values(), (std::vector<int>{2, 5, 8, 11}));
    EXPECT_EQ(s.range_reason(8), "");
    EXPECT_EQ(s.range_reason(6), "COARSEN=6 is not one of 2, 5, ... 11 (steps of 3).");
    EXPECT_EQ(s.range_reason(14), "COARSEN=14 is not between 2 and 11.");
}

TEST(Params, BoolIsZeroOrOne) {
    ParamSpec s{"FLOAT4", "float4 loads", ParamKind::Bool, 0, 1, 1, 0, ""};
    EXPECT_EQ(s.values(), (std::vector<int>{0, 1}));
    EXPECT_EQ(s.range_reason(1), "");
    EXPECT_EQ(s.range_reason(2), "FLOAT4=2 must be 0 or 1.");
}

TEST(Params, RangeReasonSaysWhyInOneSentence) {
    ParamSpec s = tile_spec();
    for (int v : s.values()) EXPECT_EQ(s.range_reason(v), "") << v;
    EXPECT_EQ(s.range_reason(7), "TILE=7 is not a power of two between 4 and 32.");
    EXPECT_EQ(s.range_reason(64), "TILE=64 is not a power of two between 4 and 32.");
    EXPECT_EQ(s.range_reason(2), "TILE=2 is not a power of two between 4 and 32.");
    EXPECT_NE(s.range_reason(0), "");
    EXPECT_NE(s.range_reason(-8), "");
}

// `text` reads as the problem `dim`, which is written back as `written` (unless that is empty).
static void expect_problem(const std::string& text, std::array<int64_t, 3> dim, const std::string& written) {
    Problem p;
    std::string error;
    ASSERT_TRUE(parse_problem(text, p, error)) << error;
    EXPECT_EQ(p.dim, dim) << text;
    if (!written.empty()) {
        EXPECT_EQ(format_problem(p), written);
    }
}

TEST(Params, ProblemOneNumberMeansACube) { expect_problem("4096", {4096, 4096, 4096}, "4096"); }

TEST(Params, ProblemThreeNumbers) {
    expect_problem("1000x2000x300", {1000, 2000, 300}, "1000x2000x300");
    expect_problem(" 8 X 16 x 32 ", {8, 16, 32}, "");
}

// What an input method's full-width mode types, and the × of the lessons' own text, read as ASCII.
TEST(Params, ProblemTypedInFullWidthFormsOrWithTimes) {
    expect_problem("\uFF11\uFF10\uFF12\uFF14", {1024, 1024, 1024}, "1024");                // １０２４
    expect_problem("1024\u00D7512\u00D764", {1024, 512, 64}, "1024x512x64");                  // 1024×512×64
    expect_problem("\uFF18\uFF58\uFF11\uFF16\u3000\uFF38\u3000\uFF13\uFF12", {8, 16, 32}, "");  // ８ｘ１６　Ｘ　３２
    Problem p;
    std::string error;
    EXPECT_FALSE(parse_problem("\uFF11\uFF0E\uFF15", p, error));   // １．５
    EXPECT_EQ(error, "Size '1.5' is not a number.") << "the message quotes the ASCII it read";
}

TEST(Params, AsciiFormsKeepWhatIsNotFullWidth) {
    EXPECT_EQ(ascii_forms("\uFF01\uFF5E\uFF21\uFF41\u3000"), "!~Aa ");
    EXPECT_EQ(ascii_forms("\uFF00\uFF5F\uFF61\u4E2D\u00D7"), "\uFF00\uFF5F\uFF61\u4E2D\u00D7");   // outside the block
    const std::string broken = "\xEF\xBC\xEF\xBD\x41\xE3\x80";   // cut sequences stay bytes
    EXPECT_EQ(ascii_forms(broken), broken);
    EXPECT_EQ(ascii_forms(""), "");
}

TEST(Params, ProblemFormatParsesBack) {
    for (const char* text : {"1", "512", "1000x2000x300", "7x7x8"}) {
        Problem p, q;
        std::string error;
        ASSERT_TRUE(parse_problem(text, p, error)) << error;
        ASSERT_TRUE(parse_problem(format_problem(p), q, error)) << error;
        EXPECT_EQ(p, q) << text;
    }
}

TEST(Params, ProblemErrorsAreSentences) {
    Problem p;
    std::string error;
    EXPECT_FALSE(parse_problem("12x", p, error));
    EXPECT_EQ(error, "Size '12x' needs one number (4096) or three (1000x2000x300).");
    EXPECT_FALSE(parse_problem("12xax3", p, error));
    EXPECT_EQ(error, "Size '12xax3' is not a number.");
    EXPECT_FALSE(parse_problem("1.5", p, error));
    EXPECT_EQ(error, "Size '1.5' is not a number.");
    EXPECT_FALSE(parse_problem("0", p, error));
    EXPECT_EQ(error, "Size '0' must be positive.");
    EXPECT_FALSE(parse_problem("-4", p, error));
    EXPECT_FALSE(parse_problem("", p, error));
    EXPECT_FALSE(parse_problem("4x4", p, error));
    EXPECT_FALSE(parse_problem("99999999999999999999999", p, error));
}

TEST(Params, AssignmentParses) {
    std::string name, error;
    int value = 0;
    ASSERT_TRUE(parse_assignment("TILE=32", name, value, error)) << error;
    EXPECT_EQ(name, "TILE");
    EXPECT_EQ(value, 32);
    ASSERT_TRUE(parse_assignment(" BM = 64 ", name, value, error)) << error;
    EXPECT_EQ(name, "BM");
    EXPECT_EQ(value, 64);
    ASSERT_TRUE(parse_assignment("FLOAT4=on", name, value, error)) << error;
    EXPECT_EQ(value, 1);
    ASSERT_TRUE(parse_assignment("PAD=false", name, value, error)) << error;
    EXPECT_EQ(value, 0);
    ASSERT_TRUE(parse_assignment("\uFF34\uFF29\uFF2C\uFF25\uFF1D\uFF13\uFF12", name, value, error)) << error;   // ＴＩＬＥ＝３２
    EXPECT_EQ(name, "TILE");
    EXPECT_EQ(value, 32);
}

TEST(Params, AssignmentErrorsAreSentences) {
    std::string name, error;
    int value = 0;
    EXPECT_FALSE(parse_assignment("TILE32", name, value, error));
    EXPECT_EQ(error, "'TILE32' is not of the form NAME=VALUE (e.g. TILE=32).");
    EXPECT_FALSE(parse_assignment("TILE=3x", name, value, error));
    EXPECT_EQ(error, "TILE=3x: '3x' is not a whole number.");
    EXPECT_FALSE(parse_assignment("=3", name, value, error));
    EXPECT_FALSE(parse_assignment("9A=3", name, value, error));
    EXPECT_FALSE(parse_assignment("TILE=", name, value, error));
}

TEST(Params, DefaultsFillWhatIsNotOverridden) {
    std::vector<ParamSpec> specs = {tile_spec(), {"PAD", "Padding", ParamKind::Bool, 0, 1, 1, 1, ""}};
    ParamValues v = with_defaults(specs, {{"TILE", 8}});
    EXPECT_EQ(v.at("TILE"), 8);
    EXPECT_EQ(v.at("PAD"), 1);
    // Unknown names survive, so that the caller can say they are unknown.
    EXPECT_EQ(with_defaults(specs, {{"BOGUS", 3}}).count("BOGUS"), 1u);
}

// Every parameter any variant declares is self-consistent: its default is one of its values.
TEST(Params, EveryVariantDefaultIsInRange) {
    for (const auto& v : all_variants()) {
        for (const auto& p : v.params) {
            EXPECT_FALSE(p.values().empty()) << v.id << " " << p.name;
            EXPECT_EQ(p.range_reason(p.def), "") << v.id << " " << p.name;
            EXPECT_FALSE(p.label.empty()) << v.id << " " << p.name;
            EXPECT_FALSE(p.help.empty()) << v.id << " " << p.name;
        }
    }
}

// A parameter that picks one of several things is shown, refused and typed by its words.
TEST(Params, ChoicesAreShownRefusedAndTypedByName) {
    ParamSpec s{.name = "WHERE", .kind = ParamKind::Int, .min = 0, .max = 2, .def = 0, .choices = {"here", "there", "away"}};
    EXPECT_EQ(s.value_text(1), "there");
    EXPECT_EQ(s.value_text(7), "7");
    EXPECT_EQ(s.range_reason(2), "");
    EXPECT_EQ(s.range_reason(3), "WHERE=3 is not one of here, there, away.");
    // Lesson 19's words, through the registry, wherever NAME=VALUE is parsed.
    std::string name, error;
    int value = -1;
    ASSERT_TRUE(parse_assignment("FILTER_IN=shared", name, value, error)) << error;
    EXPECT_EQ(value, 3);
    ASSERT_TRUE(parse_assignment("INDEX=per_lane", name, value, error)) << error;
    EXPECT_EQ(value, 1);
    ASSERT_TRUE(parse_assignment("FILTER_IN=2", name, value, error)) << error;   // the number still works
    EXPECT_EQ(value, 2);
    EXPECT_FALSE(parse_assignment("TILE=shared", name, value, error));   // a word of another parameter
    EXPECT_FALSE(parse_assignment("FILTER_IN=texture", name, value, error));
}

// Every variant's choice words: one per value, lowercase identifiers, and the same words wherever
// a parameter name is used (parse_assignment looks them up by name across the registry).
TEST(Params, ChoiceWordsAreWholeAndAgreeAcrossVariants) {
    std::map<std::string, std::vector<std::string>> words;
    for (const auto& v : all_variants())
        for (const auto& p : v.params) {
            if (p.choices.empty()) continue;
            EXPECT_EQ(p.kind, ParamKind::Int) << v.id << " " << p.name;
            EXPECT_EQ(int(p.choices.size()), p.max - p.min + 1) << v.id << " " << p.name;
            EXPECT_EQ(p.step, 1) << v.id << " " << p.name;
            for (const std::string& w : p.choices) {
                EXPECT_FALSE(w.empty());
                for (char c : w) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9')) << w;
                EXPECT_FALSE(w == "on" || w == "off" || w == "yes" || w == "no" || w == "true" || w == "false") << w;
            }
            const auto [it, fresh] = words.emplace(p.name, p.choices);
            if (!fresh) {
                EXPECT_EQ(it->second, p.choices) << p.name << " has other words in " << v.id;
            }
        }
    EXPECT_FALSE(words.empty()) << "no variant declares choices: the test above checks nothing";
}
