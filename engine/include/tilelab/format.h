// Counts and sizes as TileLab writes them, the same in the GUI and the CLI.
#pragma once
#include <string>

namespace tilelab {

// Whole numbers exactly, digits grouped in threes; others to 4 significant digits:
// 2147483648 -> "2,147,483,648"; 0.5 -> "0.5".
std::string format_count(double v);
// Exact bytes below 10 KiB (shared memory per block, spills), else 4 significant digits of a
// binary unit: "8192 B", "48 KiB", "1.5 MiB", "80 GiB".
std::string format_bytes(double bytes);

}  // namespace tilelab
