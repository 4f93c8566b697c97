// GraphViewport, the Event Graph's geometry, without a display: the window
// stays inside the trace and snaps to whole summary bins when zoomed out,
// zooms keep the time under the pointer, time <-> x round-trips, rows and
// y positions are each other's inverse with the kernel and idle rows
// pinned, and a pointer picks the event drawn under it (never one of a
// hidden kind). On tests/gui/data/small.trace (the self test's trace).
#include "graph_viewport.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <memory>

namespace {

using traceview::GraphViewport;

constexpr int kWidth = GraphViewport::kLabelWidth + 1000; // 1000 graph pixels
constexpr int kHeight = GraphViewport::kAxisHeight + 12 * GraphViewport::kRowHeight;

class Viewport : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        traceview::Progress progress;
        std::string error;
        const std::string data = std::string(LTT_SOURCE_DIR) + "/tests/gui/data/";
        doc = traceview::TraceDocument::open(data + "small.trace", data + "small.proc", progress,
                                             error)
                  .release();
        ASSERT_TRUE(doc) << error;
        ASSERT_TRUE(doc->complete(progress));
    }
    static void TearDownTestSuite() {
        delete doc;
        doc = nullptr;
    }
    void SetUp() override {
        ASSERT_TRUE(doc);
        vp.setGraph(&doc->graph());
        vp.zoomToFit(kWidth);
    }
    const ltt::EventGraph& graph() const { return doc->graph(); }
    static traceview::TraceDocument* doc;
    GraphViewport vp;
};
traceview::TraceDocument* Viewport::doc = nullptr;

TEST_F(Viewport, StartsWithTheWholeTraceInWholeBins) {
    EXPECT_TRUE(vp.showsWholeTrace());
    EXPECT_EQ(vp.begin(), graph().startNs());
    EXPECT_GE(vp.end(), graph().endNs());
    // Whole summary bins per column: the aligned view is itself.
    const auto aligned = graph().alignedView(vp.begin(), vp.end(), 1000, true);
    EXPECT_EQ(aligned.first, vp.begin());
    EXPECT_EQ(aligned.second, vp.end());
    EXPECT_EQ((vp.end() - vp.begin()) % graph().binWidthNs(), 0u);
}

TEST_F(Viewport, WindowStaysInsideTheTraceAndAtLeast20ns) {
    const std::uint64_t lo = graph().startNs(), hi = graph().endNs();
    vp.setView(hi + 1000000, hi + 2000000, false, kWidth); // past the end
    EXPECT_GE(vp.begin(), lo);
    EXPECT_LT(vp.begin(), hi);
    EXPECT_LE(vp.end() - vp.begin(), 1000000 + 1000 * graph().binWidthNs());
    vp.setView(lo + 500, lo + 501, false, kWidth); // narrower than 20 ns
    EXPECT_EQ(vp.begin(), lo + 500);
    EXPECT_EQ(vp.end() - vp.begin(), GraphViewport::kMinSpan);
    vp.setView(0, ~0ull / 2, true, kWidth); // wider than the trace
    EXPECT_TRUE(vp.showsWholeTrace());
    EXPECT_EQ(vp.begin(), lo);
}

TEST_F(Viewport, ThreeZoomsDivideTheSpanByEight) {
    const double whole = double(vp.end() - vp.begin());
    for (int i = 0; i < 3; ++i)
        vp.zoom(2, kWidth);
    const double now = double(vp.end() - vp.begin());
    // Zoomed out, a zoom lands on whole bins per pixel: within one bin per
    // pixel of the exact eighth.
    EXPECT_LE(std::abs(now - whole / 8), double(graph().binWidthNs()) * 1000);
    EXPECT_FALSE(vp.showsWholeTrace());
}

TEST_F(Viewport, ZoomKeepsTheTimeUnderThePointer) {
    // Zoomed in below a bin per pixel, no snapping: the time at x stays
    // within a pixel.
    const std::uint64_t mid = (graph().startNs() + graph().endNs()) / 2;
    vp.setView(mid, mid + 200 * 1000, false, kWidth); // 200 ns per pixel
    ASSERT_LT(vp.nsPerPixel(kWidth), graph().binWidthNs());
    for (double x : {0.0, 250.0, 731.0, 999.0}) {
        const std::uint64_t before = vp.xToTime(x, kWidth);
        vp.zoomAt(2, x, kWidth);
        const std::uint64_t after = vp.xToTime(x, kWidth);
        EXPECT_LE(after > before ? after - before : before - after, vp.nsPerPixel(kWidth) * 2)
            << "x " << x;
    }
}

TEST_F(Viewport, TimeAndXRoundTrip) {
    const std::uint64_t mid = (graph().startNs() + graph().endNs()) / 2;
    vp.setView(mid, mid + 1000000, false, kWidth);
    const int gw = kWidth - GraphViewport::kLabelWidth;
    EXPECT_DOUBLE_EQ(vp.timeToX(vp.begin(), gw), 0);
    EXPECT_DOUBLE_EQ(vp.timeToX(vp.end(), gw), gw);
    for (double x : {0.0, 1.0, 333.5, 999.0}) {
        const std::uint64_t t = vp.xToTime(x, kWidth);
        EXPECT_NEAR(vp.timeToX(t, gw), x, 1e-3);
    }
    // Columns tile the window.
    EXPECT_EQ(vp.columnTimes(0, gw).first, vp.begin());
    EXPECT_EQ(vp.columnTimes(unsigned(gw - 1), gw).second, vp.end());
    EXPECT_EQ(vp.columnTimes(10, gw).second, vp.columnTimes(11, gw).first);
}

TEST_F(Viewport, ScrollAndShowTime) {
    const std::uint64_t lo = graph().startNs(), hi = graph().endNs();
    const std::uint64_t span = (hi - lo) / 20;
    vp.setView(lo + span, lo + 2 * span, false, kWidth);
    const std::uint64_t b = vp.begin(), s = vp.end() - vp.begin();
    vp.scrollBy(0.5, kWidth);
    EXPECT_NEAR(double(vp.begin()), double(b + s / 2), double(graph().binWidthNs()));
    vp.scrollBy(-100, kWidth); // clamped at the start
    EXPECT_EQ(vp.begin(), lo);
    const std::uint64_t t = lo + (hi - lo) / 2;
    vp.showTime(t, kWidth);
    const double centre = (double(vp.begin()) + double(vp.end())) / 2;
    EXPECT_NEAR(centre, double(t), double(graph().binWidthNs()));
}

TEST_F(Viewport, FitWidthRealignsOnResizeOnly) {
    EXPECT_FALSE(vp.fitWidth(kWidth - GraphViewport::kLabelWidth)); // same width
    EXPECT_TRUE(vp.fitWidth(640));
    EXPECT_FALSE(vp.fitWidth(640));
    EXPECT_TRUE(vp.showsWholeTrace()); // the whole trace still covered
}

TEST_F(Viewport, KeepWindowIsExact) {
    const std::uint64_t lo = graph().startNs();
    vp.keepWindow(lo + 12345, lo + 99999, kWidth);
    EXPECT_EQ(vp.begin(), lo + 12345);
    EXPECT_EQ(vp.end(), lo + 99999);
}

TEST_F(Viewport, RowsAndYAreInverse) {
    ASSERT_GT(vp.processRows(), 3u);
    const std::size_t page = vp.visibleProcessRows(kHeight);
    EXPECT_EQ(page, 10u); // 12 rows of room, two pinned
    const auto rows = vp.visibleRows(kHeight);
    EXPECT_EQ(rows.size(), std::min(vp.processRows(), page) + 2);
    for (std::size_t r : rows) {
        const auto y = vp.yOfRow(r, kHeight);
        ASSERT_TRUE(y);
        EXPECT_EQ(vp.rowAtY(*y, kHeight), r);
        EXPECT_EQ(vp.rowAtY(*y - GraphViewport::kRowHeight / 2.0 + 0.5, kHeight), r);
    }
    EXPECT_FALSE(vp.rowAtY(GraphViewport::kAxisHeight - 1, kHeight)); // the axis
    // Scrolled: kernel and idle stay, process rows move up.
    vp.setFirstRow(1);
    EXPECT_EQ(vp.rowAtY(*vp.yOfRow(0, kHeight), kHeight), 0u);
    EXPECT_EQ(vp.rowAtY(*vp.yOfRow(1, kHeight), kHeight), 1u);
    EXPECT_FALSE(vp.yOfRow(2, kHeight)); // the first process row scrolled off
    EXPECT_EQ(vp.yOfRow(3, kHeight), GraphViewport::kAxisHeight + 2.5 * GraphViewport::kRowHeight);
}

TEST_F(Viewport, ScrollingKeepsTheLastPageFull) {
    const std::size_t page = vp.visibleProcessRows(kHeight);
    const std::size_t procRows = vp.processRows();
    vp.setFirstRow(procRows + 10);
    vp.clampFirstRow(kHeight);
    EXPECT_EQ(vp.firstRow(), procRows > page ? procRows - page : 0);
    // A row off screen is brought to the middle of the page; one on screen
    // does not move it.
    vp.setFirstRow(0);
    EXPECT_FALSE(vp.bringRowIntoView(2, page));
    EXPECT_FALSE(vp.bringRowIntoView(0, page)); // pinned
    if (procRows > page) {
        const std::size_t row = 2 + procRows - 1;
        EXPECT_TRUE(vp.bringRowIntoView(row, page));
        EXPECT_TRUE(vp.yOfRow(row, kHeight));
    }
}

TEST_F(Viewport, APointerPicksTheEventUnderIt) {
    const auto all = std::uint16_t(0xffff);
    // Zoomed in around an event of a process row, the pointer at its x on
    // its row picks it (or another of the same row within 4 pixels).
    std::optional<std::uint64_t> target;
    std::size_t row = 0;
    for (std::uint64_t i = 0; i < doc->eventCount() && !target; ++i) {
        const auto line = doc->event(i);
        const std::size_t r = traceview::graphRowOfEvent(*doc, line);
        if (r >= 2 && r < 2 + vp.visibleProcessRows(kHeight) &&
            ltt::graphEventKindOf(line.id, line.subtype)) {
            target = i;
            row = r;
        }
    }
    ASSERT_TRUE(target);
    const auto line = doc->event(*target);
    vp.setView(line.timeNs > 50000 ? line.timeNs - 50000 : 0, line.timeNs + 50000, false, kWidth);
    const int gw = kWidth - GraphViewport::kLabelWidth;
    const double x = GraphViewport::kLabelWidth + vp.timeToX(line.timeNs, gw);
    const double y = *vp.yOfRow(row, kHeight);
    const auto hit = vp.hitAt(x, y, kWidth, kHeight, all);
    ASSERT_TRUE(hit);
    EXPECT_EQ(traceview::graphRowOfEvent(*doc, doc->event(hit->index)), row);
    EXPECT_LE(hit->timeNs > line.timeNs ? hit->timeNs - line.timeNs : line.timeNs - hit->timeNs,
              4 * vp.nsPerPixel(kWidth));
    // The label column picks nothing; a hidden kind is never picked.
    EXPECT_FALSE(vp.hitAt(GraphViewport::kLabelWidth - 1, y, kWidth, kHeight, all));
    const auto hidden = std::uint16_t(1u << unsigned(hit->kind));
    const auto other = vp.hitAt(x, y, kWidth, kHeight, std::uint16_t(~hidden));
    if (other) {
        EXPECT_NE(other->kind, hit->kind);
    }
}

TEST(ViewportFree, NearestUserMarkWithinFourPixels) {
    const std::vector<traceview::DrawnUserMark> drawn = {{7, 300, 50}, {9, 310, 50}};
    EXPECT_EQ(traceview::nearestUserMark(drawn, 301, 51), 7u);
    EXPECT_EQ(traceview::nearestUserMark(drawn, 308, 50), 9u);
    EXPECT_FALSE(traceview::nearestUserMark(drawn, 305, 56));
    EXPECT_FALSE(traceview::nearestUserMark({}, 300, 50));
}

TEST(ViewportFree, NoGraphNoView) {
    GraphViewport vp;
    vp.setView(10, 20, false, kWidth);
    EXPECT_EQ(vp.begin(), 0u); // unchanged
    EXPECT_TRUE(vp.showsWholeTrace());
    EXPECT_FALSE(vp.rowAtY(100, kHeight));
    EXPECT_FALSE(vp.hitAt(400, 100, kWidth, kHeight, 0xffff));
}

} // namespace
