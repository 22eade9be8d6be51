// The lessons' code blocks on a grid of cells: a translated comment keeps its column.
#include <gtest/gtest.h>
#include "code_grid.h"

namespace tilelab::gui {
namespace {

TEST(CodeGrid, CjkTakesTwoCellsEverythingElseOne) {
    EXPECT_EQ(DisplayCells("sum = 0"), 7);
    EXPECT_EQ(DisplayCells("两次全局加载"), 12);
    EXPECT_EQ(DisplayCells("（一次）"), 8);           // full-width parentheses are wide too
    EXPECT_EQ(DisplayCells("a·b ≥ ⌈K/T⌉"), 11);        // symbols are one cell
    EXPECT_EQ(DisplayCells("\xff"), 1);                 // a malformed byte counts once
}

TEST(CodeGrid, TwoSpacesStartAColumnOneSpaceDoesNot) {
    const auto segments = CodeGridLine("    sum += A[row][k] · B[k][col]    (two global loads)");
    ASSERT_EQ(segments.size(), 2u);
    EXPECT_EQ(segments[0].text, "sum += A[row][k] · B[k][col]");
    EXPECT_EQ(segments[0].column, 4);
    EXPECT_EQ(segments[1].text, "(two global loads)");
    EXPECT_EQ(segments[1].column, 36);
}

TEST(CodeGrid, ColumnsAfterChineseCountItTwice) {
    // Aligned by an editor that shows CJK two cells wide: the comment after it starts at cell 20.
    const auto segments = CodeGridLine("本线程的 C 元素     （注释）");
    ASSERT_EQ(segments.size(), 2u);
    EXPECT_EQ(segments[0].text, "本线程的 C 元素");
    EXPECT_EQ(segments[1].column, 20);
}

TEST(CodeGrid, BlankAndTrailingSpaces) {
    EXPECT_TRUE(CodeGridLine("").empty());
    EXPECT_TRUE(CodeGridLine("     ").empty());
    const auto segments = CodeGridLine("barrier   ");
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].text, "barrier");
}

}  // namespace
}  // namespace tilelab::gui
