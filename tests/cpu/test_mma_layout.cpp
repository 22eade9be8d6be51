// The mma.sync fragment layouts (tilelab/mma_layout.h): each operand's elements fill every lane's
// registers exactly once, C agrees with the lesson-13 kernel's epilogue (row g + 8h, columns 2t and
// 2t+1 from c[2h], c[2h+1]), A agrees with what ldmatrix.x4 delivers when lanes 0-15 name rows 0-15
// of the first 16-byte column and lanes 16-31 those of the second, and the lesson's examples hold.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "tilelab/mma_layout.h"

namespace tilelab {
namespace {

TEST(MmaLayout, EveryOperandFillsEachLanesRegistersExactlyOnce) {
    for (const int bytes : {2, 4})
        for (const MmaOperand op : {MmaOperand::A, MmaOperand::B, MmaOperand::C}) {
            SCOPED_TRACE(testing::Message() << "operand " << int(op) << ", " << bytes << "-byte elements");
            const int rows = mma_rows(op, bytes), cols = mma_cols(op, bytes);
            std::set<std::tuple<int, int, int>> seen;
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) {
                    const MmaLaneElement e = mma_lane_of(op, bytes, r, c);
                    EXPECT_GE(e.lane, 0);
                    EXPECT_LT(e.lane, 32);
                    EXPECT_LT(e.reg, mma_registers(op, bytes));
                    EXPECT_LT(e.half, mma_per_register(op, bytes));
                    EXPECT_TRUE(seen.insert({e.lane, e.reg, e.half}).second) << r << "," << c;
                }
            EXPECT_EQ(int(seen.size()), 32 * mma_registers(op, bytes) * mma_per_register(op, bytes));
        }
    EXPECT_EQ(mma_registers(MmaOperand::A, 2), 4);
    EXPECT_EQ(mma_registers(MmaOperand::B, 2), 2);
    EXPECT_EQ(mma_registers(MmaOperand::A, 4), 4);
    EXPECT_EQ(mma_registers(MmaOperand::B, 4), 2);
    EXPECT_EQ(mma_registers(MmaOperand::C, 2), 4);
}

TEST(MmaLayout, CIsWhereTheKernelsEpilogueStoresIt) {
    for (int lane = 0; lane < 32; ++lane)
        for (int h = 0; h < 2; ++h)
            for (int v = 0; v < 2; ++v) {
                const int g = lane / 4, t = lane % 4;
                EXPECT_EQ(mma_lane_of(MmaOperand::C, 2, g + 8 * h, 2 * t + v), (MmaLaneElement{lane, 2 * h + v, 0}));
            }
    EXPECT_EQ(mma_lane_of(MmaOperand::C, 2, 10, 5), (MmaLaneElement{10, 3, 0})) << "lesson 13, step 2";
    EXPECT_EQ(mma_lane_of(MmaOperand::C, 2, 13, 6), (MmaLaneElement{23, 2, 0})) << "lesson 13, question 2";
}

// ldmatrix.x4: lane L names row L mod 8 of matrix L / 8; lane 4g+t receives row g, 16-bit elements
// 2t and 2t+1 (TF32: 32-bit element t) of each matrix i in register i. The kernel points lanes
// 0-15 at rows 0-15 of piece 0 and lanes 16-31 at rows 0-15 of piece 1, so matrix i covers rows
// 8·(i mod 2) .. +8 and the columns of piece i / 2.
TEST(MmaLayout, AIsWhatLdmatrixDeliversFromTheKernelsAddresses) {
    for (const int bytes : {2, 4}) {
        const int per_piece = 16 / bytes;
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < 4; ++i)
                for (int e = 0; e < 4 / bytes; ++e) {
                    const int g = lane / 4, t = lane % 4;
                    const int row = 8 * (i % 2) + g, col = per_piece * (i / 2) + (4 / bytes) * t + e;
                    EXPECT_EQ(mma_lane_of(MmaOperand::A, bytes, row, col), (MmaLaneElement{lane, i, bytes == 2 ? e : 0}))
                        << bytes << "-byte, lane " << lane << ", matrix " << i;
                }
    }
}

// ldmatrix.x4.trans on B (K×N row-major in shared memory): lanes 0-15 name rows k = 0..15 of the
// 8 columns of tile j, lanes 16-31 those of tile j+1; .trans hands lane 4g+t column g, rows 2t and
// 2t+1 of each 8×8 matrix: matrix 0 (k 0-7) and 1 (k 8-15) are b0 and b1 of tile j.
TEST(MmaLayout, BIsWhatTheTransposingLdmatrixDelivers) {
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 2; ++i)
            for (int e = 0; e < 2; ++e) {
                const int g = lane / 4, t = lane % 4;
                EXPECT_EQ(mma_lane_of(MmaOperand::B, 2, 8 * i + 2 * t + e, g), (MmaLaneElement{lane, i, e}));
            }
    // TF32: each lane reads B[t][g] and B[t + 4][g] itself (4-byte loads).
    for (int lane = 0; lane < 32; ++lane)
        for (int h = 0; h < 2; ++h)
            EXPECT_EQ(mma_lane_of(MmaOperand::B, 4, lane % 4 + 4 * h, lane / 4), (MmaLaneElement{lane, h, 0}));
}

}  // namespace
}  // namespace tilelab
