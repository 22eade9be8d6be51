#include "compile_memory.h"
#include <cmath>
#include "tilelab/i18n.h"

namespace tilelab::gui {

namespace {
constexpr double kWorthSayingMs = 1000;   // the heading counts seconds from 1 s on
}

void CompileMemory::record(const RunResult& r) {
    if (r.stages.compile_ms >= kWorthSayingMs && !r.stages.compile_cached) seconds_[r.request.variant] = r.stages.compile_ms / 1000;
}

std::optional<double> CompileMemory::last_seconds(const std::string& variant) const {
    const auto it = seconds_.find(variant);
    if (it == seconds_.end()) return std::nullopt;
    return it->second;
}

std::string CompilingLine(const std::string& activity, double seconds, std::optional<double> last) {
    if (!last) return trf("results.updating_for", activity, int(seconds));
    return trf("results.updating_for_last", activity, int(seconds), int(std::lround(*last)));
}

}  // namespace tilelab::gui
