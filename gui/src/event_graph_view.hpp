// The Event Graph tab (paper §5.1, Figure 7): process, kernel and idle rows
// on the left, time flowing left to right; horizontal lines where control
// stays, vertical lines where it moves, a coloured marker per event kind, an
// overview ("horizon") strip of the whole trace showing the visible window.
//
// All drawing comes from ltt::EventGraph::bin(), one call per row per redraw,
// so a redraw costs O(pixel columns × rows) whatever the number of events.
#pragma once

#include "trace_document.hpp"

#include <chrono>
#include <gtkmm.h>
#include <optional>

namespace traceview {

class EventGraphView : public Gtk::Box {
public:
    EventGraphView();

    void setDocument(const TraceDocument* doc);
    // Visible window, in ns since the trace start.
    // With `cover`, the view shows at least [begin, end) (zoom to fit).
    void setView(std::uint64_t begin, std::uint64_t end, bool cover = false);
    std::uint64_t viewBegin() const { return begin_m; }
    std::uint64_t viewEnd() const { return end_m; }
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

    // For tests: the labels of the rows currently drawn, and the markers and
    // transitions drawn by the last paint.
    std::vector<std::string> visibleRowLabels() const;
    std::size_t lastMarkerCount() const { return lastMarkers_m; }
    std::size_t lastTransitionCount() const { return lastTransitions_m; }
    std::size_t lastLabelCount() const { return lastLabels_m; }
    // Simulated input, for the self test.
    void clickAt(double x, double y);
    std::optional<std::string> tooltipAt(double x, double y) const;
    std::optional<std::pair<double, double>> positionOf(std::uint64_t index) const;
    Gtk::DrawingArea& area() { return area_m; }

    static constexpr int kLabelWidth = 180;
    static constexpr int kAxisHeight = 24;
    static constexpr int kRowHeight = 22;

private:
    void drawGraph(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void drawOverview(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void drawLegend(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void syncScrollbars();
    std::optional<std::size_t> rowAtY(double y) const;
    std::optional<double> yOfRow(std::size_t row) const;
    double timeToX(std::uint64_t t, int graphWidth) const;
    std::uint64_t xToTime(double x) const;
    std::size_t visibleProcessRows() const;
    std::optional<ltt::GraphHit> hitAt(double x, double y) const;
    std::size_t rowOfEvent(const EventLine& line) const;

    const TraceDocument* doc_m = nullptr;
    std::uint64_t begin_m = 0, end_m = 1;
    std::uint64_t wantSpan_m = 1; // span asked for before alignment
    int snapWidth_m = -1;         // graph width the view was last aligned for
    bool snapCover_m = false;     // that alignment had to cover the asked range
    std::size_t firstRow_m = 0;   // first process row shown (rows 0, 1 are pinned)
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

    std::vector<ltt::RowBins> bins_m; // reused between paints
    std::size_t lastMarkers_m = 0, lastTransitions_m = 0, lastLabels_m = 0;
    sigc::signal<void(std::uint64_t)> selectedSignal_m;
    sigc::signal<void(std::int32_t)> rowSignal_m;
    std::optional<std::size_t> highlightRow_m;
    sigc::signal<void(std::chrono::nanoseconds)> paintedSignal_m;
};

// Colours of the event kinds, shared by the graph and its legend.
void kindColour(ltt::GraphEventKind kind, double& r, double& g, double& b);

} // namespace traceview
