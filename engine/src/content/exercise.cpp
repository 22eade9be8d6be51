// Exercises: starting files made from the lessons' kernels by their EXERCISE markers, the checks
// a user's file passes before it is compiled, and NVRTC's errors at the user's lines. The format
// is in tilelab/exercise.h.
#include "tilelab/exercise.h"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "tilelab/compile.h"
#include "tilelab/i18n.h"
#include "tilelab/input_policy.h"
#include "tilelab/safe_file.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

constexpr const char* kBegin = "// EXERCISE-BEGIN:";
constexpr const char* kEnd = "// EXERCISE-END";

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

std::string leading_space(const std::string& line) { return line.substr(0, line.find_first_not_of(" \t")); }

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string todo_line(size_t n, const ExerciseBlock& b) { return fmt::format("{}// TODO({}): {}", b.indent, n, b.hint); }

std::string header_for(const Lesson& lesson, const std::string& kernel_file, const std::string& name_expression,
                       bool has_barriers) {
    const std::string barriers =
        has_barriers ? "// Validation catches a missing barrier only where the race changes the result: a pass\n"
                       "// does not prove a race absent (compute-sanitizer --tool racecheck can).\n"
                     : "";
    return fmt::format(
        "// Exercise: {} (lesson {}).\n"
        "// The lesson's kernel ({}) with its key lines left as TODOs. Keep the kernel's name\n"
        "// and template parameters: it is instantiated as {} and launched,\n"
        "// validated and timed exactly as the lesson's kernel.\n"
        "//   tilelab-cli compile {} --source this.cu    compile: registers, spills, occupancy\n"
        "//   tilelab-cli run {} --source this.cu        run, validate, time (needs a GPU)\n",
        lesson.title, lesson.id, kernel_file, name_expression, lesson.id.substr(0, lesson.id.find('_')),
        lesson.id.substr(0, lesson.id.find('_'))) + barriers;
}

// Builds the exercise of `lesson`, or says why there is none.
bool build_exercise(const Lesson& lesson, Exercise& ex, std::string& why) {
    const Variant* v = find_variant(lesson.variant);
    if (!v || !v->defined()) {
        why = fmt::format("Lesson {} names no variant with a kernel.", lesson.id);
        return false;
    }
    const KernelInstance k = v->kernel(lesson.state_at(0).params);
    const std::string* text = embedded_source(k.source_file);
    if (!text) {
        why = fmt::format("Lesson {}'s kernel file {} is not embedded.", lesson.id, k.source_file);
        return false;
    }
    ex.lesson = &lesson;
    ex.kernel_file = k.source_file;
    ex.name_expression = k.name_expression;
    ex.reference = *text;
    std::string body, error;
    if (!make_skeleton(*text, body, ex.blocks, error)) {
        why = fmt::format("The markers in {} do not pair up: {}.", k.source_file, error);
        return false;
    }
    if (ex.blocks.empty()) {
        why = fmt::format("Lesson {}'s kernel ({}) marks no lines as an exercise.", lesson.id, k.source_file);
        return false;
    }
    ex.header = header_for(lesson, k.source_file, k.name_expression, text->find("__syncthreads") != std::string::npos);
    ex.skeleton = ex.header + body;
    return true;
}

}  // namespace

bool make_skeleton(const std::string& reference, std::string& skeleton, std::vector<ExerciseBlock>& blocks,
                   std::string& error) {
    skeleton.clear();
    blocks.clear();
    bool inside = false;
    int line_no = 0, opened_at = 0;
    for (const std::string& line : lines_of(reference)) {
        ++line_no;
        const std::string t = trim(line);
        if (starts_with(t, kBegin)) {
            if (inside) {
                error = fmt::format("line {} opens a block inside the block opened before it", line_no);
                return false;
            }
            ExerciseBlock b;
            b.hint = trim(t.substr(std::string(kBegin).size()));
            b.indent = leading_space(line);
            if (b.hint.empty()) {
                error = fmt::format("the block opened at line {} has no hint", line_no);
                return false;
            }
            blocks.push_back(b);
            skeleton += todo_line(blocks.size(), blocks.back()) + "\n";
            inside = true;
            opened_at = line_no;
        } else if (starts_with(t, kEnd)) {
            if (!inside) {
                error = fmt::format("line {} closes a block that was never opened", line_no);
                return false;
            }
            if (blocks.back().lines.empty()) {
                error = fmt::format("the block closed at line {} is empty", line_no);
                return false;
            }
            inside = false;
        } else if (inside) {
            blocks.back().lines.push_back(line);
        } else {
            skeleton += line + "\n";
        }
    }
    if (inside) {
        error = fmt::format("the block opened at line {} is never closed", opened_at);
        return false;
    }
    return true;
}

std::string strip_markers(const std::string& reference) {
    std::string out;
    for (const std::string& line : lines_of(reference)) {
        const std::string t = trim(line);
        if (starts_with(t, kBegin) || starts_with(t, kEnd)) continue;
        out += line + "\n";
    }
    return out;
}

std::string fill_in(const std::string& text, const Exercise& ex) {
    std::string out;
    for (const std::string& line : lines_of(text)) {
        bool replaced = false;
        for (size_t i = 0; i < ex.blocks.size() && !replaced; ++i) {
            if (line != todo_line(i + 1, ex.blocks[i])) continue;
            for (const std::string& l : ex.blocks[i].lines) out += l + "\n";
            replaced = true;
        }
        if (!replaced) out += line + "\n";
    }
    return out;
}

const std::vector<Exercise>& all_exercises() {
    static const std::vector<Exercise> exercises = [] {
        std::vector<Exercise> out;
        for (const Lesson& lesson : all_lessons()) {
            Exercise ex;
            std::string why;
            if (build_exercise(lesson, ex, why)) out.push_back(std::move(ex));
        }
        return out;
    }();
    return exercises;
}

const Exercise* find_exercise(const std::string& lesson_key) {
    const Lesson* lesson = find_lesson(lesson_key);
    if (!lesson) return nullptr;
    for (const Exercise& ex : all_exercises())
        if (ex.lesson == lesson) return &ex;
    return nullptr;
}

std::string exercise_missing_reason(const std::string& lesson_key) {
    const Lesson* lesson = find_lesson(lesson_key);
    if (!lesson) return say("There is no lesson '{}'.", "没有课程“{}”。", shortened(lesson_key));
    Exercise ex;
    std::string why;
    return build_exercise(*lesson, ex, why) ? "" : why;
}

namespace {

std::string too_large(const std::string& name, uintmax_t bytes) {
    return say("{} is {} bytes; a kernel file may have at most {} (is it the right file?).",
               "{} 有 {} 字节；内核文件最多 {} 字节（是不是选错了文件？）。", name, bytes, kMaxUserSourceBytes);
}

}  // namespace

std::string user_source_problem(const std::string& name, const std::string& text) {
    if (text.empty()) return say("{} is empty: there is no kernel in it.", "{} 是空的：里面没有内核。", name);
    if (text.size() > kMaxUserSourceBytes) return too_large(name, text.size());
    if (text.find('\0') != std::string::npos || !valid_utf8(text))
        return say("{} is not a text file (it holds NUL bytes or invalid UTF-8); give a .cu source.",
                   "{} 不是文本文件（含有 NUL 字节或无效的 UTF-8）；请给出 .cu 源文件。", name);
    return "";
}

bool read_user_source(const std::string& path, std::string& text, std::string& error) {
    std::string why;
    // The size first, so a huge file gets the same sentence as huge text (and is never read).
    std::error_code ec;
    if (std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) {
        const auto bytes = std::filesystem::file_size(path, ec);
        if (!ec && bytes > kMaxUserSourceBytes) {
            error = too_large(shortened(path), bytes);
            return false;
        }
    }
    // One byte over the limit is read, so a file over it is told apart from one at it.
    switch (read_regular_file(path, kMaxUserSourceBytes + 1, text, why)) {
    case ReadOutcome::ok: break;
    case ReadOutcome::missing: error = say("There is no file {}.", "没有文件 {}。", shortened(path)); return false;
    default:
        error = say("{} cannot be read as a kernel file: {}.", "{} 无法作为内核文件读取：{}。", shortened(path), why);
        return false;
    }
    error = user_source_problem(shortened(path), text);
    return error.empty();
}

std::vector<Diagnostic> parse_diagnostics(const std::string& log) {
    std::vector<Diagnostic> out;
    const std::vector<std::string> lines = lines_of(log);
    for (size_t i = 0; i < lines.size(); ++i) {
        // file(line): severity: message
        const std::string& l = lines[i];
        const size_t open = l.find('('), close = l.find("): ");
        if (open == std::string::npos || close == std::string::npos || close < open) continue;
        const std::string number = l.substr(open + 1, close - open - 1);
        if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos || number.size() > 9) continue;
        const std::string rest = l.substr(close + 3);
        const size_t colon = rest.find(": ");
        if (colon == std::string::npos) continue;
        Diagnostic d;
        d.file = l.substr(0, open);
        d.line = std::stoi(number);
        d.severity = rest.substr(0, colon);
        if (d.severity.find(' ') != std::string::npos) continue;   // not "error", "warning", ...
        d.message = trim(rest.substr(colon + 2));
        // NVRTC quotes the source line (indented by two) and puts a caret under the column.
        if (i + 2 < lines.size()) {
            const std::string& caret = lines[i + 2];
            const size_t at = caret.find('^');
            if (at != std::string::npos && trim(caret) == "^" && at >= 2) d.column = int(at) - 1;
        }
        out.push_back(d);
    }
    return out;
}

std::string format_diagnostic(const Diagnostic& d) {
    if (d.column > 0) return fmt::format("{}:{}:{}: {}: {}", d.file, d.line, d.column, d.severity, d.message);
    return fmt::format("{}:{}: {}: {}", d.file, d.line, d.severity, d.message);
}

}  // namespace tilelab
