// The naming rule (README "How it is built"): one lesson, one name. For a lesson that teaches
// kernel <name> of family <family>:
//   folder    lessons/NN_<family>_<name>
//   id        <family>.<name>
//   kernel    kernels/<family>/<name>.cuh
//   template  <name>_<family>, or a form of it with a suffix (register_2d_matmul_bounded<...>)
// A lesson that compiles another lesson's kernel says so (<!-- kernel: register_2d -->), and then
// the kernel file and template are that lesson's. Walked over every registered variant.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tilelab/compile.h"
#include "tilelab/lesson.h"
#include "tilelab/variant.h"

using namespace tilelab;

namespace {

// What the rule looks at for one variant.
struct Names {
    std::string id{}, family{};
    std::string folder{};                // "" = no lesson teaches it
    std::string reused{};                // the lesson's <!-- kernel: --> ("" = its own)
    std::string source_file{}, name_expression{};
    std::vector<std::string> family_names{};   // the <name> of every variant of the family
};

// "" when `n` follows the rule, else one sentence naming the variant and what breaks it.
std::string rule_broken(const Names& n) {
    const std::string who = "variant " + n.id + ": ";
    const std::string prefix = n.family + ".";
    if (n.id.rfind(prefix, 0) != 0) return who + "its id does not start with its family, \"" + prefix + "\"";
    const std::string name = n.id.substr(prefix.size());
    if (!std::regex_match(name, std::regex("[a-z0-9]+(_[a-z0-9]+)*")))
        return who + "\"" + name + "\" is not a name of lower-case words joined by _";
    if (n.folder.empty()) return who + "no lesson teaches it (<!-- variant: " + n.id + " -->)";
    if (!std::regex_match(n.folder, std::regex("[0-9][0-9]_" + n.family + "_" + name)))
        return who + "its lesson folder is " + n.folder + ", not NN_" + n.family + "_" + name;
    std::string kernel = name;
    if (!n.reused.empty()) {
        if (n.reused == name) return who + "<!-- kernel: " + n.reused + " --> names its own kernel: leave it out";
        bool known = false;
        for (const std::string& other : n.family_names) known = known || other == n.reused;
        if (!known) return who + "<!-- kernel: " + n.reused + " --> is no other " + n.family + " lesson's kernel";
        kernel = n.reused;
    }
    const std::string file = n.family + "/" + kernel + ".cuh";
    if (n.source_file != file) return who + "its kernel file is kernels/" + n.source_file + ", not kernels/" + file;
    const std::string templ = kernel + "_" + n.family;
    const bool starts = n.name_expression.rfind(templ, 0) == 0;
    const char next = starts && n.name_expression.size() > templ.size() ? n.name_expression[templ.size()] : '\0';
    if (!starts || (next != '<' && next != '_'))
        return who + "its kernel template is " + n.name_expression + ", not " + templ + "<...> (or " + templ +
               "_<suffix><...>)";
    return "";
}

// The names of the registered variant `v`, with its kernel at the defaults and the lesson's size.
Names names_of(const Variant& v) {
    Names n{.id = v.id, .family = v.family};
    for (const Variant& other : all_variants())
        if (other.family == v.family && other.id.rfind(v.family + ".", 0) == 0)
            n.family_names.push_back(other.id.substr(v.family.size() + 1));
    Problem problem{{512, 512, 512}};
    for (const Lesson& l : all_lessons(Language::English))
        if (l.variant == v.id) {
            n.folder = l.id;
            n.reused = l.kernel;
            std::string error;
            if (!l.default_size.empty()) parse_problem(l.default_size, problem, error);
        }
    const KernelInstance k = kernel_for(v, with_defaults(v.params, {}), problem);
    n.source_file = k.source_file;
    n.name_expression = k.name_expression;
    return n;
}

Names good() {
    return {.id = "matmul.register_2d", .family = "matmul", .folder = "05_matmul_register_2d", .reused = "",
            .source_file = "matmul/register_2d.cuh", .name_expression = "register_2d_matmul<128, 128>",
            .family_names = {"naive", "register_2d", "register_pressure"}};
}

}  // namespace

TEST(NamingRule, EveryRegisteredVariantFollowsIt) {
    ASSERT_FALSE(all_variants().empty());
    for (const Variant& v : all_variants()) {
        const Names n = names_of(v);
        EXPECT_EQ(rule_broken(n), "");
        EXPECT_NE(embedded_source(n.source_file), nullptr) << v.id << ": kernels/" << n.source_file << " is not embedded";
    }
}

TEST(NamingRule, TheLessonThatReusesAKernelSaysWhose) {
    const Lesson* l = find_lesson("07_matmul_register_pressure");
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->kernel, "register_2d");
    EXPECT_EQ(find_lesson("05_matmul_register_2d")->kernel, "") << "a lesson's own kernel needs no directive";
    EXPECT_EQ(l->intro.find("<!--"), std::string::npos) << "the directive is not shown";
}

// The rule's own check refuses each way of breaking it, naming the variant.
TEST(NamingRule, ABrokenNameIsRefusedNamingTheVariant) {
    EXPECT_EQ(rule_broken(good()), "");
    Names suffixed = good();
    suffixed.name_expression = "register_2d_matmul_bounded<128, 2>";
    EXPECT_EQ(rule_broken(suffixed), "") << "a suffixed form of the template in the same file";
    const struct {
        std::string Names::*field;
        std::string value, said;
    } broken[] = {
        {&Names::folder, "05_registers_spills_occupancy",
         "variant matmul.register_2d: its lesson folder is 05_registers_spills_occupancy, not NN_matmul_register_2d"},
        {&Names::folder, "5_matmul_register_2d", "its lesson folder is 5_matmul_register_2d"},
        {&Names::folder, "", "variant matmul.register_2d: no lesson teaches it"},
        {&Names::source_file, "matmul/04_register_tiled_2d.cuh",
         "kernels/matmul/04_register_tiled_2d.cuh, not kernels/matmul/register_2d.cuh"},
        {&Names::name_expression, "register_2dmatmul<128>", "not register_2d_matmul<...>"},
        {&Names::name_expression, "tiled_2d_matmul<128>", "its kernel template is tiled_2d_matmul<128>"},
        {&Names::id, "transpose.register_2d", "does not start with its family, \"matmul.\""},
        {&Names::id, "matmul.Register2D", "is not a name of lower-case words"},
    };
    for (const auto& b : broken) {
        Names n = good();
        n.*b.field = b.value;
        EXPECT_NE(rule_broken(n).find(b.said), std::string::npos) << b.value << ": " << rule_broken(n);
    }
}

TEST(NamingRule, AReusedKernelMustBeAnotherLessonsOfTheFamily) {
    Names n = good();
    n.id = "matmul.register_pressure";
    n.folder = "07_matmul_register_pressure";
    n.reused = "register_2d";
    EXPECT_EQ(rule_broken(n), "");
    n.reused = "register_pressure";
    EXPECT_NE(rule_broken(n).find("names its own kernel"), std::string::npos);
    n.reused = "smem";
    EXPECT_NE(rule_broken(n).find("is no other matmul lesson's kernel"), std::string::npos);
    n.reused = "";
    EXPECT_NE(rule_broken(n).find("not kernels/matmul/register_pressure.cuh"), std::string::npos)
        << "without the directive the kernel must be its own";
}

// The lead's next lesson (lessons/12_matmul_wmma, kernels/matmul/wmma.cuh) fits the rule.
TEST(NamingRule, ANewTensorCoreLessonFits) {
    const Names n{.id = "matmul.wmma", .family = "matmul", .folder = "12_matmul_wmma", .reused = "",
                  .source_file = "matmul/wmma.cuh", .name_expression = "wmma_matmul<64, 64, 2>",
                  .family_names = {"naive", "wmma"}};
    EXPECT_EQ(rule_broken(n), "");
}
