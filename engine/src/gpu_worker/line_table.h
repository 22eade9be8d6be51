// The source lines of a kernel's instructions, read from its cubin's DWARF line table
// (.debug_line, which NVRTC writes with -lineinfo) and charged as Nsight Compute's source view
// charges them. No CUDA here: the CPU tests read hand-made and NVRTC-made cubins.
#pragma once
#include <cstdint>
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

    // The lines of the instruction `offset` bytes into the function: every row at the greatest
    // address at or before it, in the program's order (charge_stall_lines counts a line once). Several rows at one
    // address are the statement that begins there, then the inlined calls it enters (DWARF
    // "views"): the last is the instruction's own line (what CUPTI's
    // cuptiGetSassToSourceCorrelation returns), the others the calls it was inlined through.
    // Nsight Compute's source view lists the instruction under each of them: for the lesson
    // defaults sampled on an H200 on 2026-12-04 this set is ncu's for every listed instruction
    // (matmul.mma 3,104 of 3,104, matmul.wmma 2,256, matmul.warp_specialized 1,048,
    // matmul.tma_wgmma 856, attention.flash2_mma 864, stencil.coarsened 688, docs/benchmarks.md).
    std::vector<SourceLine> lines_at(uint64_t offset) const;

    bool empty() const { return rows_.empty(); }
    size_t size() const { return rows_.size(); }

    struct Row {
        uint64_t address = 0;   // bytes from the function's first instruction
        uint32_t file = 0;      // index into files_
        int line = 0;
    };

private:
    std::vector<std::string> files_;
    std::vector<Row> rows_;   // by address
    friend struct LineProgram;
};

}  // namespace tilelab
