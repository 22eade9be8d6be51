// Counts and sizes as TileLab writes them, the same in the GUI and the CLI.
#pragma once
#include <string>
#include "tilelab/precision.h"

namespace tilelab {

// Whole numbers exactly, digits grouped in threes; others to 4 significant digits:
// 2147483648 -> "2,147,483,648"; 0.5 -> "0.5".
std::string format_count(double v);
// Exact bytes below 10 KiB (shared memory per block, spills), else 4 significant digits of a
// binary unit: "8192 B", "48 KiB", "1.5 MiB", "80 GiB".
std::string format_bytes(double bytes);
// The element sizes counts of accesses are in: "fp32: 4 bytes", or "loads bf16: 2 bytes, stores
// fp32: 4 bytes" when the output type differs (loads and shared accesses are of the input type).
std::string format_element_sizes(const Precision& p);

}  // namespace tilelab
