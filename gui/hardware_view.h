// What the panels show of the hardware counters (tilelab/hardware.h): the Memory panel's table by
// level, the one sentence when there are none, and the figures the Results, Occupancy and
// roofline views take from them. Reads the RunResult only; nothing here knows CUPTI.
#pragma once
#include <optional>
#include <string>
#include "app_state.h"

namespace tilelab::gui {

// Model FLOPs per measured DRAM byte (the roofline's honest point); nullopt without counters.
std::optional<double> DramIntensity(const RunResult& r);
// Achieved occupancy, 0..1 (sm__warps_active as a share of the SM's maximum); nullopt without counters.
std::optional<double> AchievedOccupancy(const RunResult& r);
// The tensor pipe's busy share of the SMs' active cycles (0..1), measured; nullopt without counters.
std::optional<double> TensorPipeBusy(const RunResult& r);

// One sentence on why this result has no counters ("" when it has them): still measuring, a quick
// run, turned off in the Run menu, model mode, no permission (and how to allow it) ...
std::string HardwareMissingReason(const RunResult& r);

// Memory panel: model, counted and hardware bytes by level (L1 global, L2, DRAM) and shared
// memory's requests, wavefronts and conflict ways; the note on model vs DRAM bytes; or the
// sentence on why there are no counters.
void DrawHardwareTable(const RunResult& r);

}  // namespace tilelab::gui
