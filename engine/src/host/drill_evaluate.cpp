// A drill's answer key, measured or modelled by the engine (tilelab/drills.h): the drill's states
// (drill_requests) run as the CLI and the app run them, then read by drill_key. In the host, not
// in content/, because it drives the engine; the drills themselves are content.
#include <fmt/format.h>
#include <memory>
#include <vector>
#include "tilelab/drills.h"
#include "tilelab/engine.h"
#include "tilelab/i18n.h"
#include "tilelab/lesson.h"

namespace tilelab {

DrillKey evaluate_drill(Engine& engine, const Lesson& lesson, const Drill& drill) {
    DrillKey key;
    std::vector<RunRequest> reqs;
    if (!drill_requests(lesson, drill, reqs, key.error)) return key;
    std::vector<std::shared_ptr<const RunResult>> results;
    for (const RunRequest& req : reqs) {
        if (const std::string why = engine.invalid_reason(req); !why.empty()) {
            key.error = say("Drill '{}' asks for a state this target cannot run: {}", "练习“{}”要求的状态在这个目标上无法运行：{}",
                            drill.id, why);
            return key;
        }
        results.push_back(std::make_shared<const RunResult>(
            drill.needs_gpu() ? engine.run(req, drill_run_options()) : engine.analyze(req)));
    }
    return drill_key(drill, results);
}

}  // namespace tilelab
