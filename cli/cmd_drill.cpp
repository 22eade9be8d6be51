// `drill`: a lesson's interview drills ("predict, then run"). `drill NN` lists them; `drill NN
// --answer K=VALUE` checks one against what the engine computes at the drill's state (exit 0
// right, 1 wrong, 2 unusable input, 3 a measured drill with no GPU, 5 the state did not compile);
// `drill NN --reveal` prints every drill's answer as the engine gives it here.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>

#include "commands.h"
#include "request.h"
#include "tilelab/drills.h"
#include "tilelab/i18n.h"
#include "tilelab/input_policy.h"
#include "tilelab/util.h"

namespace tilelab::cli {

namespace {

using json = nlohmann::ordered_json;

void print(const std::string& s) { std::fputs(s.c_str(), stdout); }

std::string kind_name(const Drill& d) {
    switch (d.kind()) {
    case DrillKind::number: return "number";
    case DrillKind::category: return "choice";
    case DrillKind::configuration: return "choice";
    }
    return "";
}

json drill_json(const Lesson& lesson, const Drill& d, size_t index) {
    json choices = json::array();
    for (size_t i = 0; i < d.choices.size(); ++i) {
        json c = {{"number", i + 1}, {"label", d.choices[i].label}};
        if (!d.choices[i].value.empty()) c["value"] = d.choices[i].value;
        if (!d.choices[i].set_text.empty()) c["set"] = d.choices[i].set_text;
        choices.push_back(c);
    }
    return {{"number", index + 1}, {"id", d.id}, {"kind", kind_name(d)}, {"question", d.question},
            {"ask", d.ask}, {"pick", d.pick}, {"step", d.step}, {"set", d.set_text},
            {"size", d.size.empty() ? lesson.state_at(d.step - 1).size : d.size}, {"tolerance", d.tolerance_text},
            {"needs_gpu", d.needs_gpu()}, {"choices", choices}};
}

std::string drill_text(const Lesson& lesson, const Drill& d, size_t index) {
    std::string out = fmt::format("{}. [{}] {}\n", index + 1, d.id, d.question);
    for (size_t i = 0; i < d.choices.size(); ++i) out += fmt::format("     {}) {}\n", i + 1, d.choices[i].label);
    out += "   " + trf("drill.checked_against", drill_checked_against(lesson, d)) + "\n";
    return out;
}

// "2=128", "blocks=128": the drill (by number from 1 or id) and the answer.
size_t find_drill(const std::vector<Drill>& drills, const std::string& key) {
    for (size_t i = 0; i < drills.size(); ++i)
        if (key == drills[i].id || key == std::to_string(i + 1)) return i;
    throw usage_error(trf("drill.no_such_drill", shortened(key), drills.size()));
}

void require_key(const DrillKey& key) {
    if (key.ok) return;
    if (key.needs_gpu) throw CliError(kExitNoGpu, tr("drill.needs_gpu") + " (" + key.error + ")");
    throw CliError(kExitCompile, key.error);
}

}  // namespace

int cmd_drill(const CliOptions& o) {
    const Lesson* lesson = find_lesson(o.variant);
    if (!lesson) throw usage_error(trf("drill.no_such_lesson", shortened(o.variant)));
    const std::vector<Drill>& drills = lesson_drills(lesson->id);
    if (drills.empty()) throw usage_error(trf("drill.no_drills", lesson->id));

    if (o.drill_answer.empty() && !o.drill_reveal) {
        if (o.format == OutputFormat::Json) {
            json list = json::array();
            for (size_t i = 0; i < drills.size(); ++i) list.push_back(drill_json(*lesson, drills[i], i));
            print(json{{"lesson", lesson->id}, {"drills", list}}.dump(2) + "\n");
            return kExitOk;
        }
        std::string out = trf("drill.heading", lesson->id.substr(0, 2), lesson->title) + "\n\n";
        for (size_t i = 0; i < drills.size(); ++i) out += drill_text(*lesson, drills[i], i) + "\n";
        out += tr("drill.usage") + "\n";
        print(out);
        return kExitOk;
    }

    auto engine = make_engine(o);
    apply_target(*engine, o.target);
    if (o.drill_reveal) {
        json list = json::array();
        std::string out;
        int worst = kExitOk;
        for (size_t i = 0; i < drills.size(); ++i) {
            const DrillKey key = evaluate_drill(*engine, *lesson, drills[i]);
            const std::string shown = key.ok ? key.shown : key.needs_gpu ? tr("drill.needs_gpu") : key.error;
            if (!key.ok && !key.needs_gpu) worst = kExitCompile;
            list.push_back({{"number", i + 1}, {"id", drills[i].id}, {"ok", key.ok}, {"needs_gpu", key.needs_gpu},
                            {"measured", drills[i].needs_gpu()}, {"values", key.values}, {"reference", key.reference},
                            {"answer", shown}});
            out += fmt::format("{}. [{}] {}\n", i + 1, drills[i].id, shown);
        }
        print(o.format == OutputFormat::Json ? list.dump(2) + "\n" : out);
        return worst;
    }

    const size_t eq = o.drill_answer.find('=');
    if (eq == std::string::npos) throw usage_error(trf("drill.answer_form", shortened(o.drill_answer)));
    const Drill& drill = drills[find_drill(drills, trim(o.drill_answer.substr(0, eq)))];
    DrillAnswer answer;
    std::string error;
    if (!parse_drill_answer(drill, o.drill_answer.substr(eq + 1), answer, error)) throw usage_error(error);
    const DrillKey key = evaluate_drill(*engine, *lesson, drill);
    require_key(key);
    const bool right = drill_answer_right(drill, key, answer);
    if (o.format == OutputFormat::Json) {
        print(json{{"lesson", lesson->id}, {"drill", drill.id}, {"right", right}, {"answer", key.shown},
                   {"tolerance", drill.tolerance_text}, {"explanation", drill.explanation}}
                  .dump(2) +
              "\n");
    } else {
        print(fmt::format("{} {}\n\n{}\n", right ? tr("drill.right") : tr("drill.wrong"),
                          trf("drill.the_answer_is", key.shown), drill.explanation));
    }
    return right ? kExitOk : kExitRuntime;
}

}  // namespace tilelab::cli
