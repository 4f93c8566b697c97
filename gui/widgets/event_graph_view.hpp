// The Event Graph tab (paper §5.1, Figure 7): process, kernel and idle rows
// on the left, time flowing left to right; horizontal lines where control
// stays, vertical lines where it moves, a coloured marker per event kind, an
// overview ("horizon") strip of the whole trace showing the visible window.
//
// All drawing comes from ltt::EventGraph::bin(), one call per row per redraw,
// so a redraw costs O(pixel columns × rows) whatever the number of events.
//
// Under the process rows, the CPU view (as KernelShark's and Trace Compass's
// Resources view): one row per CPU, coloured by the task current on it
// (EventGraph::cpuTasks), with the task's name where it fits. Under the
// overview, a strip of CPU utilisation over the whole trace (EventGraph::
// busyNs).
//
// Under the CPU view, when the trace holds VARS records, a counter strip per
// memory, paging and load variable (TraceDocument::varSeries): free and total
// memory and the load average as step lines, the paging counters as rates per
// column, each scaled to its strip.
//
// The geometry (zoom, scroll, time <-> x, rows, hit testing) is a
// GraphViewport (gui/model, no toolkit), the drawing is the painters'
// (graph_painters.hpp); this widget holds the drawing areas, the input
// handlers, the caches and the worker below.
//
// A view that would re-read more than kSyncReread events from the trace
// (zoomed just below one summary bin per column, the whole window is cut
// bins) is not computed while a frame is painted: the frame shows the
// summary's bins stretched over the columns, marked "refining", and a worker
// thread computes the exact columns, after which the view is redrawn exact.
#pragma once

#include "graph_columns.hpp"
#include "graph_painters.hpp"
#include "graph_viewport.hpp"
#include "trace_document.hpp"

#include <array>
#include <chrono>
#include <gtkmm.h>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace traceview {

class EventGraphView : public Gtk::Box {
public:
    EventGraphView();
    ~EventGraphView() override;

    void setDocument(const TraceDocument* doc);
    // The same trace, grown (traceview --follow): keeps the row scroll, the
    // hidden kinds and, unless it showed the whole trace, the visible
    // window; a view of the whole trace grows with it. The selection is
    // the window's to restore (selectEvent) once the new document is ready.
    void replaceDocument(const TraceDocument* doc);
    // Whether the visible window holds the whole trace.
    bool showsWholeTrace() const;
    // Visible window, in ns since the trace start.
    // With `cover`, the view shows at least [begin, end) (zoom to fit).
    void setView(std::uint64_t begin, std::uint64_t end, bool cover = false);
    std::uint64_t viewBegin() const { return vp_m.begin(); }
    std::uint64_t viewEnd() const { return vp_m.end(); }
    const GraphViewport& viewport() const { return vp_m; }
    void zoom(double factor);             // > 1 zooms in, around the centre
    void zoomAt(double factor, double x); // around graph-area x
    void zoomToFit();
    void scrollBy(double fractionOfView);                 // > 0 moves later in time
    void showTime(std::uint64_t timeNs);                  // centres it, keeping the zoom
    void selectEvent(std::optional<std::uint64_t> index); // from another view
    std::optional<std::uint64_t> selected() const { return selected_m; }

    // Brings the row of `pid` into view and highlights its label.
    void showProcess(std::int32_t pid);
    // Emitted when the user clicks a row's label (with the row's pid; the
    // kernel row gives -1).
    sigc::signal<void(std::int32_t)>& signalRowClicked() { return rowSignal_m; }
    // Emitted when the user picks an event in the graph.
    sigc::signal<void(std::uint64_t)>& signalEventSelected() { return selectedSignal_m; }
    // Emitted after every paint with the time the paint took.
    sigc::signal<void(std::chrono::nanoseconds)>& signalPainted() { return paintedSignal_m; }
    // Emitted when the worker's exact columns arrive, with the time from
    // the request (the summary was on screen meanwhile).
    sigc::signal<void(std::chrono::nanoseconds)>& signalRefined() { return refinedSignal_m; }
    // Emitted whenever the visible window changes (begin, end).
    sigc::signal<void(std::uint64_t, std::uint64_t)>& signalViewChanged() { return viewSignal_m; }

    // A critical path drawn over the graph (graph_painters.hpp's
    // paintCriticalPath); nullptr: none.
    void setCriticalPath(std::shared_ptr<const ltt::CriticalPath> path);
    const ltt::CriticalPath* criticalPath() const { return critical_m.get(); }
    // For tests: the path's segments the last paint drew.
    std::size_t lastCriticalSegments() const { return lastCritical_m; }

    // Event kinds shown (LTT: "select events to present and ignore"): a
    // hidden kind draws no marker and no label; control lines are unchanged.
    void setKindVisible(ltt::GraphEventKind kind, bool visible);
    bool kindVisible(ltt::GraphEventKind kind) const {
        return !(hiddenKinds_m & (1u << unsigned(kind)));
    }
    // Application events (TraceDocument::userMarks): a diamond of their own
    // on the logging thread's row, named where the row's previous name
    // leaves room; shown or hidden as one kind.
    void setUserEventsVisible(bool visible);
    bool userEventsVisible() const { return userVisible_m; }
    // For tests: the application events the last paint drew (one per pixel
    // column of a row), and the names it wrote beside them.
    using DrawnUserMark = traceview::DrawnUserMark; // in the graph area
    const std::vector<DrawnUserMark>& lastUserMarks() const { return last_m.userMarks; }
    std::size_t lastUserLabelCount() const { return last_m.userLabels; }
    // For tests: markers drawn by the last paint, by the kind of the marker.
    const std::array<std::size_t, ltt::kGraphEventKinds>& lastMarkersByKind() const {
        return last_m.byKind;
    }
    // The CPU view. For tests: the task its last paint drew for `cpu` at
    // graph-area x (-1: none), and the number of task names it wrote.
    std::int32_t cpuTaskAtX(std::size_t cpu, double x) const;
    std::size_t lastCpuLabelCount() const { return lastCpuLabels_m; }
    std::size_t lastCpuRows() const { return cpuCols_m.size(); }
    // Whether the last paint showed the summary while the exact columns are
    // computed (see the top of this file), and whether that work is pending.
    bool lastPaintRefining() const { return lastRefining_m; }
    bool refining() const { return exactBusy_m; }
    // Paints that showed the summary while the worker computed (statistics).
    std::size_t refiningPaints() const { return refiningPaints_m; }
    Gtk::DrawingArea& cpuArea() { return cpuArea_m; }
    // The counter strips (hidden without VARS records). For tests: the
    // number of strips, the text the pointer at (x, y) of the strips' area
    // shows ("Free memory: 1000 pages at 0.000123456 s"), and the value a
    // strip shows at time `t` (the rate per second for a counter).
    Gtk::DrawingArea& counterArea() { return counters_m; }
    std::size_t counterStrips() const;
    std::optional<std::string> counterTextAt(double x, double y) const;
    static constexpr int kCounterRowHeight = GraphViewport::kCounterRowHeight;
    Gtk::DrawingArea& utilisationArea() { return util_m; }
    // The utilisation strip's figures: busy CPU time per column over the
    // whole trace, as drawn (for tests).
    const std::vector<std::uint64_t>& utilisationBusy() const { return busy_m; }
    // Events past which a paint hands the re-read to the worker thread
    // (settable for tests).
    static constexpr std::uint64_t kSyncReread = 15000;
    void setSyncReread(std::uint64_t events) {
        syncReread_m = events;
        colsKey_m.reset();
        area_m.queue_draw();
    }

    // For tests: the labels of the rows currently drawn, and the markers and
    // transitions drawn by the last paint.
    std::vector<std::string> visibleRowLabels() const;
    std::size_t lastMarkerCount() const { return last_m.markers; }
    std::size_t lastTransitionCount() const { return last_m.transitions; }
    std::size_t lastLabelCount() const { return last_m.labels; }
    // Simulated input, for the self test.
    void clickAt(double x, double y);
    std::optional<std::string> tooltipAt(double x, double y) const;
    std::optional<std::pair<double, double>> positionOf(std::uint64_t index) const;
    Gtk::DrawingArea& area() { return area_m; }

    static constexpr int kLabelWidth = GraphViewport::kLabelWidth;
    static constexpr int kAxisHeight = GraphViewport::kAxisHeight;
    static constexpr int kRowHeight = GraphViewport::kRowHeight;
    static constexpr int kCpuRowHeight = GraphViewport::kCpuRowHeight;

private:
    // The columns one paint draws: exact (from the model or the worker) or
    // the summary's bins stretched while the worker computes them.
    using ExactKey = GraphColumnsKey;
    using ExactColumns = GraphColumns;
    // Fills bins_m and cpuCols_m for the view; false when they are the
    // stretched summary (the exact ones are being computed).
    bool computeColumns(const ExactKey& key);
    void requestExact(const ExactKey& key);
    void exactFinished();
    void stopExact();
    void drawCpus(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void drawUtilisation(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void drawCounters(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void viewChanged();
    void drawGraph(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void drawOverview(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void drawLegend(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    // After the viewport changed: scrollbars, redraws, signalViewChanged.
    void viewMoved();
    void syncScrollbars();
    std::uint64_t xToTime(double x) const { return vp_m.xToTime(x, area_m.get_width()); }
    std::size_t visibleProcessRows() const { return vp_m.visibleProcessRows(area_m.get_height()); }
    std::optional<double> yOfRow(std::size_t row) const {
        return vp_m.yOfRow(row, area_m.get_height());
    }
    std::optional<ltt::GraphHit> hitAt(double x, double y) const;
    // The application event drawn nearest graph-area (x, y), within 4 px.
    std::optional<std::uint64_t> userMarkAt(double x, double y) const;

    const TraceDocument* doc_m = nullptr;
    std::shared_ptr<const ltt::CriticalPath> critical_m;
    std::size_t lastCritical_m = 0;
    GraphViewport vp_m;
    std::optional<std::uint64_t> selected_m;
    std::optional<std::uint64_t> selectedTime_m;
    std::optional<std::size_t> selectedRow_m;
    double pointerX_m = 0;
    std::optional<double> dragStart_m, dragNow_m;
    bool updatingScroll_m = false;

    Gtk::Box graphRow_m{Gtk::Orientation::HORIZONTAL};
    Gtk::DrawingArea area_m;
    Gtk::Scrollbar vscroll_m;
    Gtk::Scrollbar hscroll_m;
    Gtk::DrawingArea overview_m;
    Gtk::DrawingArea legend_m;
    Glib::RefPtr<Gtk::Adjustment> hadj_m, vadj_m;
    std::vector<std::uint32_t> density_m; // overview cache
    int densityWidth_m = -1;

    std::vector<ltt::RowBins> bins_m;                 // reused between paints
    std::vector<std::vector<std::int32_t>> cpuCols_m; // CPU view: task per CPU per column
    std::optional<ExactKey> colsKey_m;                // what bins_m / cpuCols_m hold
    bool colsExact_m = false;
    GraphPaintStats last_m; // what the last paint of the graph drew
    std::uint16_t hiddenKinds_m = 0;
    bool userVisible_m = true;
    bool lastRefining_m = false;
    std::size_t refiningPaints_m = 0;
    std::uint64_t syncReread_m = kSyncReread;
    std::size_t lastCpuLabels_m = 0;
    Gtk::Paned split_m{Gtk::Orientation::VERTICAL};
    Gtk::DrawingArea cpuArea_m;
    Gtk::Box lower_m{Gtk::Orientation::VERTICAL}; // CPU view and counter strips
    Gtk::DrawingArea counters_m;
    Gtk::DrawingArea util_m;
    std::vector<std::uint64_t> busy_m; // utilisation cache, by util_m's width
    int busyWidth_m = -1;
    // The worker computing exact columns (one at a time; the latest request
    // waits in exactWanted_m).
    std::thread exactThread_m;
    std::mutex exactLock_m;
    std::shared_ptr<ExactColumns> exactDone_m; // from the worker, under exactLock_m
    std::shared_ptr<ExactColumns> exact_m;     // the last exact columns (UI thread)
    std::optional<ExactKey> exactWanted_m;
    bool exactBusy_m = false;
    std::chrono::steady_clock::time_point exactStart_m;
    sigc::signal<void(std::chrono::nanoseconds)> refinedSignal_m;
    Glib::Dispatcher exactDispatch_m;
    sigc::signal<void(std::uint64_t, std::uint64_t)> viewSignal_m;
    sigc::signal<void(std::uint64_t)> selectedSignal_m;
    sigc::signal<void(std::int32_t)> rowSignal_m;
    std::optional<std::size_t> highlightRow_m;
    sigc::signal<void(std::chrono::nanoseconds)> paintedSignal_m;
};

} // namespace traceview
