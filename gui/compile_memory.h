// How long this lesson's kernels took to compile here: the Results heading, while the engine
// compiles, says the seconds so far and, where the variant's last compile on this machine was slow,
// how long that one took — a figure measured here (RunResult::stages.compile_ms), not a guess.
#pragma once
#include <map>
#include <optional>
#include <string>
#include "tilelab/result.h"

namespace tilelab::gui {

class CompileMemory {
public:
    // Keeps a result's compile time when NVRTC ran for long enough to be worth saying (cache hits
    // take milliseconds and leave the last slow figure in place).
    void record(const RunResult& r);
    // The variant's last slow compile here, in seconds; none yet.
    std::optional<double> last_seconds(const std::string& variant) const;

private:
    std::map<std::string, double> seconds_;
};

// "updating: compiling and analysing... 3 s", with "(the last compile of this lesson here took 7 s)"
// when `last` is known.
std::string CompilingLine(const std::string& activity, double seconds, std::optional<double> last);

}  // namespace tilelab::gui
