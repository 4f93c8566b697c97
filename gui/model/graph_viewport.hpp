// GraphViewport: the Event Graph's geometry, without a toolkit. Which time
// window is shown (zoom, scroll, alignment to the model's summary bins),
// time <-> x, which rows are on screen and where, and what a pointer at
// (x, y) points at. The widget (gui/widgets/event_graph_view) owns one and
// passes the drawing area's size to each call; the painters
// (graph_painters) read it.
//
// Coordinates: x and y are the graph drawing area's, whose first
// kLabelWidth pixels hold the row labels and first kAxisHeight the time
// axis; "graph x" is x - kLabelWidth. Rows 0 and 1 (kernel, idle) are
// pinned at the top, process rows scroll (firstRow()).
#pragma once

#include "trace_document.hpp"

#include <cstddef>
#include <cstdint>
#include <libltt/timebin_model.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace traceview {

// An application event as the last paint drew it (for hit testing and
// tests): its event index and its place in the graph area.
struct DrawnUserMark {
    std::uint64_t index = 0;
    double x = 0, y = 0;
};

class GraphViewport {
public:
    static constexpr int kLabelWidth = 180;
    static constexpr int kAxisHeight = 24;
    static constexpr int kRowHeight = 22;
    static constexpr int kCpuRowHeight = 18;
    static constexpr int kCounterRowHeight = 30;
    // The narrowest window, in ns.
    static constexpr std::uint64_t kMinSpan = 20;

    // A new graph (or none): the row scroll goes back to the top; the
    // window is set by the caller (zoomToFit, keepWindow).
    void setGraph(const ltt::EventGraph* graph);
    const ltt::EventGraph* graph() const { return graph_m; }

    // The visible window, in ns since the trace start.
    std::uint64_t begin() const { return begin_m; }
    std::uint64_t end() const { return end_m; }
    // Shows at least 20 ns and at most the whole trace; with the graph
    // area `areaWidth` wide, zoomed out to a summary bin per pixel or
    // more, snapped to whole bins per column (EventGraph::alignedView;
    // `cover`: the snapped window holds all of [begin, end)).
    void setView(std::uint64_t begin, std::uint64_t end, bool cover, int areaWidth);
    // Zooms by `factor` (> 1 in) keeping the time at graph x `x` in place;
    // steps from the span last asked for, so rounding to whole bins does
    // not add up over several zooms.
    void zoomAt(double factor, double x, int areaWidth);
    void zoom(double factor, int areaWidth); // around the centre
    void zoomToFit(int areaWidth);
    void scrollBy(double fractionOfView, int areaWidth); // > 0: later
    void showTime(std::uint64_t timeNs, int areaWidth);  // centred, same zoom
    // Called at each paint with the graph width: when it changed (a
    // resize), the window is snapped to whole bins again; true then.
    bool fitWidth(int graphWidth);
    // The same trace grown (follow mode): exactly [begin, end) again, not
    // re-aligned to the grown trace's wider bins, so the axis stays put.
    void keepWindow(std::uint64_t begin, std::uint64_t end, int areaWidth);
    bool showsWholeTrace() const;

    double timeToX(std::uint64_t t, int graphWidth) const; // graph x
    std::uint64_t xToTime(double graphX, int areaWidth) const;
    // The first and the next column's start of graph column `col`.
    std::pair<std::uint64_t, std::uint64_t> columnTimes(unsigned col, int graphWidth) const;
    // ns per pixel, at least 1.
    std::uint64_t nsPerPixel(int areaWidth) const;

    // Rows.
    std::size_t processRows() const; // rows below the pinned two
    std::size_t firstRow() const { return firstRow_m; }
    void setFirstRow(std::size_t first) { firstRow_m = first; }
    std::size_t visibleProcessRows(int areaHeight) const;
    // Keeps the last page of rows filled (the scrollbar's range).
    void clampFirstRow(int areaHeight);
    // Scrolls a process row into the middle of `pageRows` rows when it is
    // off screen; true when the scroll changed.
    bool bringRowIntoView(std::size_t row, std::size_t pageRows);
    std::optional<double> yOfRow(std::size_t row, int areaHeight) const; // centre line
    std::optional<std::size_t> rowAtY(double y, int areaHeight) const;
    std::vector<std::size_t> visibleRows(int areaHeight) const;

    // The event a pointer at area (x, y) picks: the nearest on its row
    // within 4 pixels, of a kind in `shownKinds` (hidden kinds are not
    // drawn, so cannot be picked).
    std::optional<ltt::GraphHit> hitAt(double x, double y, int areaWidth, int areaHeight,
                                       std::uint16_t shownKinds) const;

private:
    const ltt::EventGraph* graph_m = nullptr;
    std::uint64_t begin_m = 0, end_m = 1;
    std::uint64_t wantSpan_m = 1; // span asked for before alignment
    int snapWidth_m = -1;         // graph width the view was last aligned for
    bool snapCover_m = false;     // that alignment had to cover the asked range
    std::size_t firstRow_m = 0;   // first process row shown
};

// The row an event is drawn on: an application event's thread (or its
// process), IRQs, timers, bottom halves and lost events the kernel's,
// everything else its task's.
std::size_t graphRowOfEvent(const TraceDocument& doc, const EventLine& line);
// An application event's row: its thread's, else its process's.
std::optional<std::size_t> graphRowOfUserMark(const ltt::EventGraph& graph, const UserMark& m);
// The drawn application event nearest (x, y), within 4 pixels.
std::optional<std::uint64_t> nearestUserMark(const std::vector<DrawnUserMark>& drawn, double x,
                                             double y);

} // namespace traceview
