// Lessons: text in lessons/NN_slug/lesson.md (embedded at build time), in teaching order.
// The Chinese text is lessons/NN_slug/lesson.zh.md beside it: the same steps with the same
// directives (set, size, check, measured) in the same order and the same number of questions, so
// both languages open every step at the same state (tests/cpu/test_lesson_sync.cpp). A lesson
// without one is shown in English, marked (Lesson::translation_missing).
// A lesson.md begins with "# Title" and an HTML comment naming its variant:
//   <!-- variant: matmul.smem_tiled -->
// A lesson whose variant compiles another lesson's kernel says whose, by that kernel's name
// (the naming rule, README "How it is built"; tests/cpu/test_naming_rule.cpp):
//   <!-- kernel: register_2d -->      (kernels/matmul/register_2d.cuh, register_2d_matmul)
// Each level-2 heading ("## ...") starts a step. A step may preset parameters with
//   <!-- set: TILE=8 PAD=0 -->
// and the problem size with <!-- size: 1024 -->. A size before the first step is the lesson's
// default: every lesson declares one, small enough that its kernels run in a few milliseconds (a
// drag must redraw a validated result within ~50 ms), so no lesson inherits the size of the
// app or of the lesson before it.
//
// A step is a whole state (state_at): the variant's defaults, then the presets of every step up to
// it in lesson order, at the step's size. So a step looks the same however it is reached.
//
// Two directives keep the text honest (tests/cpu/test_lesson_text.cpp):
//   <!-- check: registers = 128 -->                 a number the text states, at the step's state
//   <!-- check: MAXREG=80 | occupancy % = 37.5 -->  ... at that state with some values changed
// The value must appear, as written, in the step's text (the intro's, for checks before the first
// step, which are evaluated at step 1's state), and must be what the model gives there.
//   <!-- measured: H200, 2026-11-22, 4096³ | TILE=32: 16.55 ms | TILE=32 PAD=1: 19.86 ms -->
// A "which is faster?" step's answer as measured on a reference GPU (copied from
// docs/benchmarks.md): shown where no GPU can measure it, labelled with the GPU and the date.
//   <!-- panel: Memory -->
// The tab the app shows when the step opens (before the first step: when the lesson opens), for a
// step about what that tab shows; the app names its tabs (a GUI test checks every lesson's).
#pragma once
#include <string>
#include <vector>
#include "tilelab/i18n.h"
#include "tilelab/params.h"

namespace tilelab {

// One number the text states, and where the model gives it (see the directive above).
struct LessonCheck {
    ParamValues set;        // values changed from the step's state ("" = none)
    std::string size;       // a different size, from "size=4096" among them ("" = the step's)
    std::string quantity;   // "registers", "occupancy %", or a formula or extra of the cost model
    std::string value;      // as written in the text: "37.5"
};

// A measured answer: where and when, and one time per configuration.
struct MeasuredAnswer {
    std::string where;                                  // "H200, 2026-11-22, 4096³"
    std::vector<std::pair<std::string, std::string>> times;   // ("TILE=32 PAD=1", "19.86 ms")
};

struct LessonStep {
    std::string title;
    std::string markdown;   // the step's text, heading included
    ParamValues set;        // parameters this step presets
    std::string size;       // problem size at this step: the last one named at or before it, else the
                            // lesson's default ("" only when neither exists)
    std::vector<LessonCheck> checks;
    std::vector<MeasuredAnswer> measured;
    std::string panel;      // "<!-- panel: -->": the tab to show when the step opens ("" = keep the current one)
};

// What a step opens at, however it is reached.
struct StepState {
    ParamValues params;     // every parameter of the variant
    std::string size;
    bool operator==(const StepState&) const = default;
};

struct Lesson {
    std::string id;         // folder name: "02_matmul_smem_tiled"
    std::string file;       // "lesson.md" or "lesson.zh.md"
    bool translation_missing = false;   // asked for in Chinese, shown in English (no lesson.zh.md)
    std::string title;
    std::string variant;    // variant id
    std::string kernel;     // "<!-- kernel: -->": the name of the kernel it reuses ("" = its own)
    std::string default_size;   // "<!-- size: ... -->" before the first step
    std::string cpu_size;       // "<!-- cpu size: ... -->": the small size the CPU run takes (engine/src/cpu)
    std::string intro;      // markdown before the first step
    std::vector<LessonStep> steps;
    std::vector<LessonCheck> intro_checks;   // checks before the first step
    std::string panel;      // "<!-- panel: -->" before the first step: the tab the lesson opens on

    // The tab to show when `step` opens: its own, or for the first step the lesson's; "" = keep.
    const std::string& panel_at(int step) const;

    // The variant's defaults, then the presets of steps 0..step in order; the step's size.
    // `step` is clamped to the steps there are.
    StepState state_at(int step) const;
};

// The lessons in the current language (tilelab/i18n.h); the same ids in the same order in
// every language, so an index into one list is valid in the other.
const std::vector<Lesson>& all_lessons();
const std::vector<Lesson>& all_lessons(Language lang);
// The embedded lesson.zh.md texts by lesson id (the font's glyph list, the sync tests).
const std::vector<std::pair<std::string, std::string>>& chinese_lesson_texts();
// By id, by its number prefix ("02"), or by a folder name it had before a rename (below).
const Lesson* find_lesson(const std::string& id);
// Lesson folders renamed to follow the naming rule, {old, new}: settings, drill scores and
// exercise files saved under the old name are read as the new one.
const std::vector<std::pair<std::string, std::string>>& renamed_lessons();
Lesson parse_lesson(const std::string& id, const std::string& markdown);
// "MAXREG=80 | occupancy % = 37.5" -> a check; false (and why) if it is not one.
bool parse_check(const std::string& text, LessonCheck& out, std::string& error);
// "H200, 2026-11-22, 4096³ | A: 1 ms | B: 2 ms" -> a measured answer; false if malformed.
bool parse_measured(const std::string& text, MeasuredAnswer& out, std::string& error);

}  // namespace tilelab
