// Lessons: text in lessons/NN_slug/lesson.md (embedded at build time), in teaching order.
// A lesson.md begins with "# Title" and an HTML comment naming its variant:
//   <!-- variant: matmul.smem_tiled -->
// Each level-2 heading ("## ...") starts a step. A step may preset parameters with
//   <!-- set: TILE=8 PAD=0 -->
// and the problem size with <!-- size: 1024 -->. A size before the first step is the lesson's
// default: every lesson declares one, small enough that its kernels run in a few milliseconds (a
// drag must redraw a validated result within ~50 ms), so no lesson inherits the size of the
// app or of the lesson before it.
#pragma once
#include <string>
#include <vector>
#include "tilelab/params.h"

namespace tilelab {

struct LessonStep {
    std::string title;
    std::string markdown;   // the step's text, heading included
    ParamValues set;        // parameters this step presets
    std::string size;       // problem size at this step: the last one named at or before it, else the
                            // lesson's default ("" only when neither exists)
};

struct Lesson {
    std::string id;         // folder name: "02_matmul_smem_tiled"
    std::string title;
    std::string variant;    // variant id
    std::string default_size;   // "<!-- size: ... -->" before the first step
    std::string intro;      // markdown before the first step
    std::vector<LessonStep> steps;
};

const std::vector<Lesson>& all_lessons();
const Lesson* find_lesson(const std::string& id);   // by id or by its number prefix ("02")
Lesson parse_lesson(const std::string& id, const std::string& markdown);

}  // namespace tilelab
