// Which lane of a warp holds which element of an mma.sync fragment: the thread-value layouts the
// PTX ISA states for mma.sync.aligned.m16n8k16 (16-bit A and B) and m16n8k8 (TF32), both with FP32
// C. lessons/13_matmul_mma's kernel relies on them (its epilogue stores C by them, its ldmatrix
// calls deliver A and B in them) and the Tiles panel draws them. No CUDA here.
#pragma once
#include <cstdint>

namespace tilelab {

enum class MmaOperand { A, B, C };

// One element's place: lane 0..31, the 32-bit register of the fragment (a0..a3, b0..b1, c0..c3),
// and the element's half of it (16-bit operands pack two; 0 for 32-bit ones).
struct MmaLaneElement {
    int lane = 0, reg = 0, half = 0;
    bool operator==(const MmaLaneElement&) const = default;
};

// The fragment's rows and columns: A is 16×K, B is K×8 (rows run along K), C is 16×8; K is 16 for
// 2-byte operands and 8 for TF32 (`element_bytes` 4).
int mma_rows(MmaOperand op, int element_bytes);
int mma_cols(MmaOperand op, int element_bytes);
// Registers a lane holds for the operand, and elements per register (2 for 16-bit A and B).
int mma_registers(MmaOperand op, int element_bytes);
int mma_per_register(MmaOperand op, int element_bytes);

// The lane, register and half holding element (row, col) of the operand's fragment.
MmaLaneElement mma_lane_of(MmaOperand op, int element_bytes, int row, int col);

// Byte offset of 16-byte piece `chunk` of row `row` in a shared tile of rows holding `row_bytes`,
// XOR-swizzled as kernels/matmul/mma.cuh's mma_offset<2, …> lays it out: rows of 128 bytes or more
// XOR the piece's place in its 128-byte line with row mod 8 (scalar_columns: 2·(row mod 4));
// shorter rows share a line and use the line's number.
int64_t mma_swizzled_offset(int row_bytes, int row, int chunk, bool scalar_columns = false);

}  // namespace tilelab
