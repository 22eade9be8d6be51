// `exercise`: the lessons' exercises (list, one exercise's TODOs, its starting file), and the
// user's kernel file for `compile` and `run --source` (read, checked, errors at its lines).
#include <fmt/format.h>

#include <cstdio>

#include "commands.h"
#include "format_table.h"
#include "tilelab/i18n.h"
#include "tilelab/exercise.h"
#include "tilelab/result_json.h"

namespace tilelab::cli {

using json = nlohmann::ordered_json;

static void print(const std::string& s) { std::fputs(s.c_str(), stdout); }

// "02" from "02_matmul_smem_tiled": what the user types.
static std::string lesson_number(const Lesson& l) { return l.id.substr(0, l.id.find('_')); }

static json exercise_json(const Exercise& ex, bool with_text) {
    json todos = json::array();
    for (size_t i = 0; i < ex.blocks.size(); ++i)
        todos.push_back({{"todo", i + 1}, {"hint", ex.blocks[i].hint}, {"reference_lines", ex.blocks[i].lines.size()}});
    json j = {{"lesson", ex.lesson->id},        {"number", lesson_number(*ex.lesson)}, {"title", ex.lesson->title},
              {"variant", ex.lesson->variant},  {"kernel_file", ex.kernel_file},       {"kernel", ex.name_expression},
              {"todos", todos}};
    if (with_text) j["skeleton"] = ex.skeleton;
    return j;
}

static int exercise_list(const CliOptions& o) {
    const auto& exercises = all_exercises();
    if (o.format == OutputFormat::Json) {
        json list = json::array();
        for (const Exercise& ex : exercises) list.push_back(exercise_json(ex, false));
        print(list.dump(2) + "\n");
        return kExitOk;
    }
    if (o.format == OutputFormat::Csv) {
        print(csv_line({"number", "lesson", "title", "kernel_file", "kernel", "todos"}));
        for (const Exercise& ex : exercises)
            print(csv_line({lesson_number(*ex.lesson), ex.lesson->id, ex.lesson->title, ex.kernel_file,
                            ex.name_expression, std::to_string(ex.blocks.size())}));
        return kExitOk;
    }
    std::string out = "Exercises: each lesson's kernel with its key lines left as TODOs\n\n";
    for (const Exercise& ex : exercises)
        out += fmt::format("{}  {}  ({} TODOs, {})\n", lesson_number(*ex.lesson), ex.lesson->title, ex.blocks.size(),
                           ex.kernel_file);
    // A lesson without one is named, so a new lesson's missing markers do not go unnoticed.
    for (const Lesson& l : all_lessons())
        if (!find_exercise(l.id)) out += trf("cliex.no_exercise", lesson_number(l), exercise_missing_reason(l.id)) + "\n";
    out += "\n" + tr("cliex.how") + "\n";
    print(out);
    return kExitOk;
}

int cmd_exercise(const CliOptions& o) {
    if (o.exercise == "list") return exercise_list(o);
    const Exercise* ex = find_exercise(o.exercise);
    if (!ex) {
        const std::string why = exercise_missing_reason(o.exercise);
        throw usage_error(why.empty() ? trf("cliex.none_for", o.exercise) : trf("cliex.see_list", why));
    }
    if (o.skeleton) {
        print(ex->skeleton);
        return kExitOk;
    }
    if (o.format == OutputFormat::Json) {
        print(exercise_json(*ex, true).dump(2) + "\n");
        return kExitOk;
    }
    std::string out = fmt::format("Exercise {}: {}\nkernel: {} as {}\n\n", lesson_number(*ex->lesson), ex->lesson->title,
                                  ex->kernel_file, ex->name_expression);
    for (size_t i = 0; i < ex->blocks.size(); ++i)
        out += trf("cliex.todo", i + 1, ex->blocks[i].hint, ex->blocks[i].lines.size()) + "\n";
    out += "\n" + trf("cliex.next", lesson_number(*ex->lesson)) + "\n";
    print(out);
    return kExitOk;
}

UserKernel read_source_flag(const std::string& path) {
    UserKernel user;
    std::string error;
    if (!read_user_source(path, user.text, error)) throw usage_error(error);
    user.name = path;   // as given: compile errors then name a path the user can open
    return user;
}

// Every error and warning at the user's lines on stderr, as file:line:col: severity: message.
std::string report_user_compile_errors(const RunResult& r) {
    if (!r.compiled) return r.error;
    const std::vector<Diagnostic> diagnostics = parse_diagnostics(r.compiled->log);
    std::string first;
    int errors = 0;
    for (const Diagnostic& d : diagnostics) {
        std::fprintf(stderr, "%s\n", format_diagnostic(d).c_str());
        if (d.severity == "error" && errors++ == 0) first = format_diagnostic(d);
    }
    if (first.empty()) return r.error;
    return errors == 1 ? first : fmt::format("{} (and {} more errors above)", first, errors - 1);
}

}  // namespace tilelab::cli
