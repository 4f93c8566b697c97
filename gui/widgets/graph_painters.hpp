// The Event Graph tab's painters: each draws one part of the tab with cairo
// from what it is given (the document, the viewport, the columns the widget
// computed) and reports what it drew, for the tests. They keep no state and
// handle no input; gui/widgets/event_graph_view.cpp owns the drawing areas,
// the caches and the worker, and calls them from its draw functions.
#pragma once

#include "graph_viewport.hpp"
#include "latency_model.hpp"
#include "trace_document.hpp"

#include <array>
#include <cairomm/context.h>
#include <optional>
#include <string>
#include <vector>

namespace traceview {

// Colours of the event kinds, shared by the graph and its legend.
void kindColour(ltt::GraphEventKind kind, double& r, double& g, double& b);
// The application events' colour (their diamonds and legend entry).
inline constexpr double kUserColour[3] = {0.55, 0.15, 0.75};
// A colour per task, stable across paints: the pid's hash picks the hue.
void taskColour(std::int32_t pid, double& r, double& g, double& b);

// What one paint of the graph area works from.
struct GraphScene {
    const TraceDocument& doc;
    const GraphViewport& view;
    int width = 0, height = 0;               // the drawing area
    int graphWidth = 0;                      // width - kLabelWidth
    const std::vector<std::size_t>& visible; // rows on screen, top to bottom
    const std::vector<ltt::RowBins>& bins;   // by row, one entry per column
    std::uint16_t hiddenKinds = 0;           // bit per ltt::GraphEventKind
    bool kindShown(ltt::GraphEventKind k) const { return !(hiddenKinds & (1u << unsigned(k))); }
};

// What a paint of the graph area drew (for tests and statistics).
struct GraphPaintStats {
    std::size_t markers = 0, transitions = 0, labels = 0;
    std::array<std::size_t, ltt::kGraphEventKinds> byKind{};
    std::vector<DrawnUserMark> userMarks;
    std::size_t userLabels = 0;
};

// The graph area with no trace open.
void paintNoTrace(const Cairo::RefPtr<Cairo::Context>& cr);
// Row stripes and labels (the selected or highlighted row's label marked),
// the label column's and the pinned rows' separators.
void paintRowLabels(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                    std::optional<std::size_t> selectedRow,
                    std::optional<std::size_t> highlightRow);
// The time axis: ticks at a "nice" step, labelled in seconds.
void paintTimeAxis(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s);
// Where control is: vertical lines joining the rows control moved between
// in each column, horizontal lines where each row holds it.
void paintControl(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                  GraphPaintStats& out);
// Event markers, one per column at most (5 px apart), coloured by the
// first shown kind the column holds.
void paintMarkers(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                  GraphPaintStats& out);
// Zoomed in, the description's first field beside isolated events.
void paintEventLabels(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                      GraphPaintStats& out);
// Application events: a diamond per pixel column of a row, named where the
// row's previous name leaves room (at most 400 on screen).
void paintUserMarks(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                    GraphPaintStats& out);
// Lost events: a red dashed line with their count and CPU.
void paintLost(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s);
// The selected event: a line at its time, a circle on its row.
void paintSelection(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                    std::optional<std::uint64_t> selectedTime,
                    std::optional<std::size_t> selectedRow);
// A critical path (libltt's CriticalPath) over the graph: a band per
// segment on the row of its task, coloured by kind (latency_model.hpp's
// criticalColour), a dashed line where the path moves to another task's
// row, and a legend in the bottom left corner. Returns the segments drawn.
std::size_t paintCriticalPath(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                              const ltt::CriticalPath& path);
// The drag-to-zoom band between area x `a` and `b`.
void paintDragBand(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s, double a,
                   double b);
// "refining…" in the corner while the worker computes the exact columns.
void paintRefining(const Cairo::RefPtr<Cairo::Context>& cr, int width);

// The overview strips' range: the whole trace in whole summary bins per
// pixel (a little room may be left at the right end).
std::pair<std::uint64_t, std::uint64_t> overviewRange(const ltt::EventGraph& g, int width);
// The overview: the whole trace's density, lost events, the visible window.
void paintOverview(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height,
                   const ltt::EventGraph& g, const std::vector<std::uint32_t>& density,
                   std::uint64_t begin, std::uint64_t end);
// CPU utilisation over the whole trace, from the busy time per column.
void paintUtilisation(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height,
                      const ltt::EventGraph& g, const std::vector<std::uint64_t>& busy);
// The legend: control lines, the event kinds (hidden ones greyed), the
// application events when the trace has them.
void paintLegend(const Cairo::RefPtr<Cairo::Context>& cr, int width, std::uint16_t hiddenKinds,
                 bool hasUserMarks, bool userVisible);
// The CPU view: a row per CPU coloured by the task on it per column
// (`cpuCols`), names where a stretch has room, the selection line. Returns
// the number of names written.
std::size_t paintCpus(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height,
                      const TraceDocument& doc, const GraphViewport& view, int graphWidth,
                      const std::vector<std::vector<std::int32_t>>& cpuCols,
                      std::optional<std::uint64_t> selectedTime);
// The counter strips, one per series.
void paintCounters(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height,
                   const std::vector<ltt::VarSeries>& series, const GraphViewport& view,
                   int graphWidth);

// How the counter strips read: a strip's title, a value ("1000 pages",
// "1.50", "120/s"), and what a column over [t0, t1) shows (a value's
// smallest, largest and last; a counter's rate per second, all three).
std::string counterTitle(unsigned var);
std::string counterValue(unsigned var, double v);
struct CounterColumn {
    double lo = 0, hi = 0, last = 0;
};
CounterColumn counterColumn(const ltt::VarSeries& s, std::uint64_t t0, std::uint64_t t1);

} // namespace traceview
