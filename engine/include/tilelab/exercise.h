// Exercises ("write it yourself"): every lesson's own kernel with its key lines left as TODOs.
//
// The lesson's kernel file (kernels/...) marks those lines itself:
//     // EXERCISE-BEGIN: load this thread's element of A and of B into the tiles
//     ... the reference lines ...
//     // EXERCISE-END
// and the starting file is that file with each marked block replaced by one line
// "// TODO(n): <hint>" at the block's indentation, under a short header. So the starting file and
// the reference never drift apart: the starting file with every TODO filled by its block's lines
// (fill_in) is the reference, which is what the lesson compiles. The exercise is the lesson's
// variant at the lesson's state (defaults plus step presets), so the user's kernel gets the same
// entry name, instantiation, launch and validation as the lesson's kernel.
#pragma once
#include <string>
#include <vector>
#include "tilelab/lesson.h"

namespace tilelab {

// One marked block of the reference: its lines (without the markers) and its hint.
struct ExerciseBlock {
    std::string hint;
    std::string indent;                 // the marker's leading white space
    std::vector<std::string> lines;     // the reference lines the TODO stands for
};

struct Exercise {
    const Lesson* lesson = nullptr;
    std::string kernel_file;            // embedded path of the reference kernel, e.g. "matmul/smem_tiled.cuh"
    std::string name_expression;        // its instantiation at the lesson's first step
    std::string header;                 // the comment lines the starting file begins with
    std::string reference;              // the kernel file as the lesson compiles it (markers included)
    std::string skeleton;               // header + the reference with each block replaced by its TODO
    std::vector<ExerciseBlock> blocks;
};

// Splits a reference into the text with TODOs and its blocks. False, with `error` naming the
// line, when the markers do not pair up (a BEGIN without END, an END without BEGIN, nesting, an
// empty block or hint).
bool make_skeleton(const std::string& reference, std::string& skeleton, std::vector<ExerciseBlock>& blocks,
                   std::string& error);
// The reference without its marker lines.
std::string strip_markers(const std::string& reference);
// `text` with every "// TODO(n): ..." line of the exercise replaced by block n's lines. Used by
// the tests ("the starting file completed with the reference lines passes validation").
std::string fill_in(const std::string& text, const Exercise& ex);

// One exercise per lesson that has a variant whose kernel file has markers, in lesson order.
const std::vector<Exercise>& all_exercises();
// By lesson id or number ("02"); nullptr if that lesson has no exercise.
const Exercise* find_exercise(const std::string& lesson_key);
// Why a lesson has no exercise (no lesson, no variant, no markers, malformed markers), in a sentence.
std::string exercise_missing_reason(const std::string& lesson_key);

// ---- the user's file --------------------------------------------------------------------------

// A user's kernel file is refused beyond this size, as is one that is not text.
inline constexpr size_t kMaxUserSourceBytes = 256 * 1024;
// Empty if `text` can be a kernel source; else one sentence why not (NUL bytes or invalid UTF-8:
// "binary"; too large; empty).
std::string user_source_problem(const std::string& name, const std::string& text);
// Reads `path` as a user's kernel file (a regular file, within the size limit, text). False with
// one sentence in `error` otherwise.
bool read_user_source(const std::string& path, std::string& text, std::string& error);

// ---- compile errors at the user's lines ---------------------------------------------------------

struct Diagnostic {
    std::string file;        // as NVRTC names it: the user's file, or an embedded header
    int line = 0;            // from 1
    int column = 0;          // from 1, from the caret line NVRTC prints; 0 when it printed none
    std::string severity;    // "error", "warning"
    std::string message;
};
// The "file(line): error: message" entries of an NVRTC log, with the column of the caret under the
// quoted source line when there is one.
std::vector<Diagnostic> parse_diagnostics(const std::string& log);
// "my.cu:12:14: error: identifier "qq" is undefined" (":col" left out when unknown).
std::string format_diagnostic(const Diagnostic& d);

}  // namespace tilelab
