// The source lines of a kernel's instructions, read from its cubin's DWARF line table
// (.debug_line, which NVRTC writes with -lineinfo) and charged as Nsight Compute's source view
// charges them. No CUDA here: the CPU tests read hand-made and NVRTC-made cubins.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilelab {

struct SourceLine {
    std::string file;   // the line table's file name, without its directory (as CUPTI gives it)
    int line = 0;
};

class CubinLineTable {
public:
    // The rows for `function` (the kernel's lowered name: its section is ".text." + the name).
    // Empty when the cubin has no line table, no rows for the function, or bytes that do not
    // parse; it never reads outside `cubin`.
    static CubinLineTable read(std::string_view cubin, std::string_view function);

    // The line the instruction `offset` bytes into the function is charged to: of the rows at
    // the greatest address at or before it, the first. Several rows at one address are the
    // statement that begins there, then the inlined calls it enters (DWARF "views"). Nsight
    // Compute's source view charges the instruction to the first row; CUPTI's
    // cuptiGetSassToSourceCorrelation to the last, the innermost inlined line. For matmul.mma at
    // its defaults the first row is the line of ncu's source page (an H200 run, 2026-12-04,
    // docs/benchmarks.md) for 3,100 of the 3,104 instructions, the last row for 3,021.
    std::optional<SourceLine> at(uint64_t offset) const;

    bool empty() const { return rows_.empty(); }
    size_t size() const { return rows_.size(); }

    struct Row {
        uint64_t address = 0;   // bytes from the function's first instruction
        uint32_t file = 0;      // index into files_
        int line = 0;
    };

private:
    std::vector<std::string> files_;
    std::vector<Row> rows_;   // the first row at each address, by address
    friend struct LineProgram;
};

}  // namespace tilelab
