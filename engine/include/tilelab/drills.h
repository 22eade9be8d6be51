// Interview drills: "predict, then run". Each lesson brings its own in lessons/NN_slug/drills.json
// (English) and drills.zh.json (Chinese), embedded at build time; no list elsewhere names them.
// A drill asks for a number or a choice at a parameter state of its lesson and is checked against
// what the engine computes there: never against an answer written in the data.
//
//   {"drills": [
//     {"id": "loads", "step": 1, "set": "TILE=16", "size": "1024",
//      "ask": "global loads / thread", "tolerance": "exact",
//      "question": "...", "explanation": "..."},
//     {"id": "limiter", "step": 1, "ask": "limiter",
//      "choices": [{"label": "registers", "value": "registers"}, {"label": "warps", "value": "warps"}], ...},
//     {"id": "pad", "step": 4, "ask": "time", "pick": "min", "tolerance": "5%",
//      "choices": [{"label": "PAD 0", "set": "PAD=0"}, {"label": "PAD 1", "set": "PAD=1"}], ...}
//   ]}
//
// The state: the lesson's state at "step" (numbered from 1 as the app shows it; default 1), then
// "set" on top, at "size" (default: the step's size). Three kinds of drill:
//   - number: "ask" names a quantity (tilelab/quantities.h); the answer is right within
//     "tolerance": "exact" (the default) or "N%" of the engine's value.
//   - choice of a category: every choice has a "value"; "ask" names a category quantity
//     ("limiter"); the choice whose value the engine names is right (both, for a tie such as
//     "warps and registers").
//   - choice of a configuration: every choice has a "set" (on top of the drill's state); "pick"
//     "min" or "max" of the quantity over the choices is right, and so is any choice within
//     "tolerance" of it (a tie). "ask": "time" is the median time measured on this GPU: such a
//     drill needs a GPU. In model mode it is answered from lessons/NN_slug/drills.reference.json,
//     the values measured for it on a reference GPU by scripts/drill_references.sh (named with the
//     GPU and the date wherever the answer is shown); without one it says so and does not count.
// drills.zh.json has the same drills in the same order with the same ids, states, quantities,
// tolerances and choice values; only the texts differ (tests/cpu/test_drills.cpp).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "tilelab/engine.h"
#include "tilelab/i18n.h"
#include "tilelab/lesson.h"
#include "tilelab/quantities.h"
#include "tilelab/result.h"

namespace tilelab {

struct DrillChoice {
    std::string label;      // what the user sees
    std::string value;      // a category's name ("registers"), or ""
    ParamValues set;        // a configuration on top of the drill's state, or empty
    std::string set_text;   // as written ("PAD=1")
};

enum class DrillKind { number, category, configuration };

// A measured drill's values on a reference GPU: one per choice (one for a number drill).
struct DrillReference {
    std::string gpu, date;       // "NVIDIA H200", "2026-11-29"
    std::vector<double> values;
};

struct Drill {
    std::string id;
    int step = 1;                 // from 1, as the app numbers steps
    ParamValues set;
    std::string set_text;
    std::string size;             // "" = the step's
    std::string ask;              // the quantity
    std::string pick;             // configuration drills: "min" or "max"
    double tolerance = 0;         // relative, 0 = exact
    std::string tolerance_text;   // "exact", "5%"
    std::string question, explanation;
    std::vector<DrillChoice> choices;
    std::optional<DrillReference> reference;   // measured drills: from drills.reference.json

    DrillKind kind() const;
    bool needs_gpu() const { return quantity_needs_gpu(ask); }
};

// The drills of a lesson (by id or number prefix, as find_lesson) in `lang`; English where the
// Chinese file is missing. Empty for an unknown lesson or one without drills.
const std::vector<Drill>& lesson_drills(const std::string& lesson_id, Language lang);
const std::vector<Drill>& lesson_drills(const std::string& lesson_id);   // the current language
// Problems found reading the drill files, one line each ("02_matmul_smem_tiled/drills.json: ...").
const std::vector<std::string>& drill_file_problems();
// Parses one drills.json text; false (and why) when it is not one.
bool parse_drills(const std::string& text, std::vector<Drill>& out, std::string& error);
// The lesson ids that have a drills.json and a drills.zh.json.
std::vector<std::string> lessons_with_drills(Language lang);

// The category quantities. A number or configuration drill asks for a named quantity
// (quantity_value() in tilelab/quantities.h).
const std::vector<std::string>& drill_category_names();

// The requests a drill needs evaluated: one for a number or a category, one per choice for a
// configuration drill. False (and why, one sentence) when the lesson has no such step or a
// parameter does not exist.
bool drill_requests(const Lesson& lesson, const Drill& drill, std::vector<RunRequest>& out, std::string& error);

// A category of one result ("limiter"): false when it has none of that name.
bool drill_category(const RunResult& r, const std::string& name, std::string& out);

// The expected answer, computed from the results of drill_requests() (same order).
struct DrillKey {
    bool ok = false;
    bool needs_gpu = false;      // a measured drill and nothing measured: it does not count
    std::string error;           // why there is no key (a failed compile, an unknown quantity ...)
    double value = 0;            // number drills
    std::vector<double> values;  // configuration drills: one per choice
    std::string category;        // category drills: what the engine names
    std::vector<bool> right;     // choice drills: which choices are right
    std::string shown;           // the expected answer as the user reads it: "128", "PAD 1 (0.19 vs 0.31 ms)"
    std::string reference;       // answered from a reference GPU's values (no GPU here): "NVIDIA H200, 2026-11-29"
};
DrillKey drill_key(const Drill& drill, const std::vector<std::shared_ptr<const RunResult>>& results);

// What a drill is checked against, in one line of the current language: "blocks per SM at step
// 1, TILE=32, 1024; the model; tolerance: exact".
std::string drill_checked_against(const Lesson& lesson, const Drill& drill);

// The options a drill's requests run with: a measured drill is timed as any run (validated, L2
// flushed); nothing else a drill asks for needs counters or a reference time.
RunOptions drill_run_options();
// Evaluates a drill on the calling thread (the CLI, the tests; the app goes through its engine
// thread): each request analysed or, when the drill is measured and there is a GPU, run. A state
// the engine refuses comes back as the key's error. In the host library (host/drill_evaluate.cpp):
// it drives the engine.
DrillKey evaluate_drill(Engine& engine, const Lesson& lesson, const Drill& drill);

// The user's answer: a number ("1,024", "37.5", "1e6"), or a choice by its number from 1, its
// label or its value. False (and why) when it is neither.
struct DrillAnswer {
    double number = 0;
    int choice = -1;
};
bool parse_drill_answer(const Drill& drill, const std::string& text, DrillAnswer& out, std::string& error);
bool drill_answer_right(const Drill& drill, const DrillKey& key, const DrillAnswer& answer);

// ---- the score per lesson, kept between runs -------------------------------------------------
// The last outcome of every drill answered, by lesson slug (the lesson id without its number,
// "matmul_smem_tiled", so a renumbered lesson keeps its score) and drill id. Saved as JSON in
// $XDG_DATA_HOME/tilelab/drills.json (else ~/.local/share/tilelab/drills.json), atomically.
class DrillScores {
public:
    static std::string default_path();   // "" when neither XDG_DATA_HOME nor HOME is set
    static std::string slug(const std::string& lesson_id);

    // A missing file is an empty score; a file that does not parse is an error (and left as it is).
    // A file of a newer version (kVersion) is read as far as it can be, but load() returns false
    // with `error` saying so, and save() refuses to write over it.
    bool load(const std::string& path, std::string& error);
    // Writes the scores over what load() read, keeping everything it did not understand: other
    // top-level keys, entries that are not "right" or "wrong", lessons of other versions.
    bool save(const std::string& path, std::string& error) const;
    static constexpr int kVersion = 1;

    void record(const std::string& lesson_id, const std::string& drill_id, bool right);
    // -1 not answered, 0 wrong, 1 right.
    int outcome(const std::string& lesson_id, const std::string& drill_id) const;
    // Right answers among `drills` (their ids; drills not counted are left out by the caller).
    int right_count(const std::string& lesson_id, const std::vector<std::string>& drill_ids) const;
    void reset(const std::string& lesson_id);
    bool operator==(const DrillScores& o) const { return outcomes_ == o.outcomes_; }

private:
    std::map<std::string, std::map<std::string, bool>> outcomes_;
    std::string kept_;     // the file as load() read it (JSON text), "" when there was none
    int newer_ = 0;        // the file's version when newer than kVersion
};

}  // namespace tilelab
