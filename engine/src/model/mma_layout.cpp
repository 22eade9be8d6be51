// The mma.sync fragment layouts (tilelab/mma_layout.h). Lane = 4·g + t throughout: g = lane / 4
// (the "group"), t = lane mod 4 (the thread in the group).
#include "tilelab/mma_layout.h"

namespace tilelab {
namespace {

bool wide(int element_bytes) { return element_bytes == 4; }   // TF32: m16n8k8
int depth(int element_bytes) { return wide(element_bytes) ? 8 : 16; }

}  // namespace

int mma_rows(MmaOperand op, int element_bytes) { return op == MmaOperand::B ? depth(element_bytes) : 16; }
int mma_cols(MmaOperand op, int element_bytes) { return op == MmaOperand::A ? depth(element_bytes) : 8; }

int mma_per_register(MmaOperand op, int element_bytes) { return op == MmaOperand::C || wide(element_bytes) ? 1 : 2; }

int mma_registers(MmaOperand op, int element_bytes) {
    return mma_rows(op, element_bytes) * mma_cols(op, element_bytes) / (32 * mma_per_register(op, element_bytes));
}

MmaLaneElement mma_lane_of(MmaOperand op, int element_bytes, int row, int col) {
    MmaLaneElement e;
    switch (op) {
    case MmaOperand::A:
        // Row g or g+8 (register bit 0), columns in two halves of K (register bit 1).
        if (wide(element_bytes)) {   // a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
            e.lane = 4 * (row % 8) + col % 4;
            e.reg = row / 8 + 2 * (col / 4);
        } else {                     // a0 (g, 2t..2t+1), a1 (g+8, ...), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
            e.lane = 4 * (row % 8) + (col % 8) / 2;
            e.reg = row / 8 + 2 * (col / 8);
            e.half = col % 2;
        }
        break;
    case MmaOperand::B:
        // Column g; rows (K) run down the registers: b0 (2t..2t+1, g), b1 (2t+8.., g); TF32 b0 (t, g), b1 (t+4, g).
        if (wide(element_bytes)) {
            e.lane = 4 * col + row % 4;
            e.reg = row / 4;
        } else {
            e.lane = 4 * col + (row % 8) / 2;
            e.reg = row / 8;
            e.half = row % 2;
        }
        break;
    case MmaOperand::C:   // c0, c1 (g, 2t and 2t+1), c2, c3 (g+8, the same)
        e.lane = 4 * (row % 8) + col / 2;
        e.reg = 2 * (row / 8) + col % 2;
        break;
    }
    return e;
}

int64_t mma_swizzled_offset(int row_bytes, int row, int chunk, bool scalar_columns) {
    if (row_bytes >= 128) {
        const int key = scalar_columns ? (row & 3) << 1 : row & 7;
        return int64_t(row) * row_bytes + ((chunk ^ key) << 4);
    }
    const int rows_per_line = 128 / row_bytes, line = row / rows_per_line;
    const int piece = (row % rows_per_line) * (row_bytes / 16) + chunk;
    return int64_t(line) * 128 + ((piece ^ (line & 7)) << 4);
}

}  // namespace tilelab
