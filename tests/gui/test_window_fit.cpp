// WindowFitScale: the layout is designed at 1280x720; smaller windows draw everything smaller.
#include <gtest/gtest.h>
#include "ui_common.h"

namespace tilelab::gui {
namespace {

TEST(WindowFit, DesignSizeAndLargerKeepTheUserScale) {
    EXPECT_FLOAT_EQ(WindowFitScale(1280, 720), 1.0f);
    EXPECT_FLOAT_EQ(WindowFitScale(1600, 900), 1.0f);
    EXPECT_FLOAT_EQ(WindowFitScale(3840, 2160), 1.0f);   // never larger: Ctrl + is the user's
}

TEST(WindowFit, SmallerWindowsShrinkByTheNarrowerSide) {
    EXPECT_FLOAT_EQ(WindowFitScale(1024, 768), 0.8f);    // width decides
    EXPECT_FLOAT_EQ(WindowFitScale(1280, 648), 0.9f);    // height decides
    EXPECT_FLOAT_EQ(WindowFitScale(1270, 720), 0.95f);   // steps of 0.05, rounded down
}

TEST(WindowFit, TinyOrUnknownWindowsStayReadable) {
    EXPECT_FLOAT_EQ(WindowFitScale(400, 300), 0.7f);
    EXPECT_FLOAT_EQ(WindowFitScale(0, 0), 1.0f);          // the first frame, before a size is known
    EXPECT_FLOAT_EQ(WindowFitScale(-5, 720), 1.0f);
}

}  // namespace
}  // namespace tilelab::gui
