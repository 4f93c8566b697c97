// Event Graph tab: see event_graph_view.hpp. The geometry is the
// GraphViewport's, the drawing the painters' (graph_painters.cpp); here are
// the drawing areas, their input, the caches and the exact-columns worker.
#include "event_graph_view.hpp"

#include <algorithm>
#include <cmath>

namespace traceview {

using ltt::GraphEventKind;
using ltt::RowBins;

EventGraphView::EventGraphView() : Gtk::Box(Gtk::Orientation::VERTICAL) {
    hadj_m = Gtk::Adjustment::create(0, 0, 1, 1, 1, 1);
    vadj_m = Gtk::Adjustment::create(0, 0, 1, 1, 1, 1);
    hscroll_m.set_orientation(Gtk::Orientation::HORIZONTAL);
    hscroll_m.set_adjustment(hadj_m);
    vscroll_m.set_orientation(Gtk::Orientation::VERTICAL);
    vscroll_m.set_adjustment(vadj_m);

    area_m.set_hexpand(true);
    area_m.set_vexpand(true);
    area_m.set_focusable(true);
    area_m.set_draw_func(sigc::mem_fun(*this, &EventGraphView::drawGraph));
    graphRow_m.append(area_m);
    graphRow_m.append(vscroll_m);
    // The CPU view shares the graph's time axis and label column.
    cpuArea_m.set_hexpand(true);
    cpuArea_m.set_content_height(4 * kCpuRowHeight + 6);
    cpuArea_m.set_draw_func(sigc::mem_fun(*this, &EventGraphView::drawCpus));
    cpuArea_m.set_has_tooltip(true);
    cpuArea_m.signal_query_tooltip().connect(
        [this](int x, int y, bool, const Glib::RefPtr<Gtk::Tooltip>& tip) {
            if (!doc_m || x < kLabelWidth || y < 3)
                return false;
            const auto cpu = std::size_t((y - 3) / kCpuRowHeight);
            const std::int32_t pid = cpuTaskAtX(cpu, x - kLabelWidth);
            if (pid < 0)
                return false;
            tip->set_text("CPU " + std::to_string(cpu) + ": " +
                          (pid == 0 ? std::string("idle") : doc_m->processName(pid)) + " (" +
                          std::to_string(pid) + ")");
            return true;
        },
        false);
    // A click on a CPU row selects that CPU's first event at or after the
    // time clicked, as a click in the graph does.
    auto cpuClick = Gtk::GestureClick::create();
    cpuClick->signal_released().connect([this](int, double x, double y) {
        if (!doc_m || !doc_m->ready() || x < kLabelWidth || y < 3)
            return;
        const auto cpu = unsigned((y - 3) / kCpuRowHeight);
        if (auto idx = doc_m->eventOnCpuAt(cpu, xToTime(x - kLabelWidth))) {
            selectEvent(*idx);
            selectedSignal_m.emit(*idx);
        }
    });
    cpuArea_m.add_controller(cpuClick);
    // The counter strips share the time axis too; the pointer's value shows
    // in the tooltip.
    counters_m.set_hexpand(true);
    counters_m.set_visible(false);
    counters_m.set_draw_func(sigc::mem_fun(*this, &EventGraphView::drawCounters));
    counters_m.set_has_tooltip(true);
    counters_m.signal_query_tooltip().connect(
        [this](int x, int y, bool, const Glib::RefPtr<Gtk::Tooltip>& tip) {
            auto text = counterTextAt(x, y);
            if (!text)
                return false;
            tip->set_text(*text);
            return true;
        },
        false);
    lower_m.append(cpuArea_m);
    lower_m.append(counters_m);
    split_m.set_start_child(graphRow_m);
    split_m.set_end_child(lower_m);
    split_m.set_resize_end_child(false);
    split_m.set_shrink_end_child(true);
    split_m.set_vexpand(true);
    append(split_m);
    append(hscroll_m);

    overview_m.set_content_height(44);
    overview_m.set_draw_func(sigc::mem_fun(*this, &EventGraphView::drawOverview));
    overview_m.set_tooltip_text("Overview of the whole trace: click or drag to move the view");
    append(overview_m);
    util_m.set_content_height(28);
    util_m.set_draw_func(sigc::mem_fun(*this, &EventGraphView::drawUtilisation));
    util_m.set_tooltip_text("CPU utilisation over the whole trace (share of the CPUs' time out "
                            "of the idle task)");
    append(util_m);
    legend_m.set_content_height(24);
    legend_m.set_draw_func(sigc::mem_fun(*this, &EventGraphView::drawLegend));
    append(legend_m);

    hadj_m->signal_value_changed().connect([this] {
        if (updatingScroll_m || !doc_m)
            return;
        auto span = vp_m.end() - vp_m.begin();
        auto b = static_cast<std::uint64_t>(std::max(0.0, hadj_m->get_value()));
        setView(b, b + span);
    });
    vadj_m->signal_value_changed().connect([this] {
        if (updatingScroll_m)
            return;
        vp_m.setFirstRow(static_cast<std::size_t>(std::max(0.0, vadj_m->get_value())));
        area_m.queue_draw();
    });

    // Wheel: zoom around the pointer; Shift+wheel: scroll in time;
    // Ctrl+wheel: scroll the rows.
    auto scroll = Gtk::EventControllerScroll::create();
    scroll->set_flags(Gtk::EventControllerScroll::Flags::VERTICAL |
                      Gtk::EventControllerScroll::Flags::DISCRETE);
    scroll->signal_scroll().connect(
        [this, s = scroll.get()](double, double dy) {
            auto state = s->get_current_event_state();
            if ((state & Gdk::ModifierType::SHIFT_MASK) == Gdk::ModifierType::SHIFT_MASK) {
                scrollBy(dy * 0.2);
            } else if ((state & Gdk::ModifierType::CONTROL_MASK) ==
                       Gdk::ModifierType::CONTROL_MASK) {
                vadj_m->set_value(vadj_m->get_value() + dy * 3);
            } else {
                zoomAt(dy < 0 ? 2.0 : 0.5, pointerX_m - kLabelWidth);
            }
            return true;
        },
        false);
    area_m.add_controller(scroll);

    auto motion = Gtk::EventControllerMotion::create();
    motion->signal_motion().connect([this](double x, double) { pointerX_m = x; });
    area_m.add_controller(motion);

    // Drag a range to zoom into it; a click selects the nearest event.
    auto drag = Gtk::GestureDrag::create();
    drag->set_button(GDK_BUTTON_PRIMARY);
    drag->signal_drag_begin().connect([this](double x, double) {
        area_m.grab_focus();
        dragStart_m = x;
        dragNow_m = x;
    });
    drag->signal_drag_update().connect([this](double dx, double) {
        if (dragStart_m) {
            dragNow_m = *dragStart_m + dx;
            area_m.queue_draw();
        }
    });
    drag->signal_drag_end().connect([this, d = drag.get()](double dx, double dy) {
        if (!dragStart_m)
            return;
        double x0 = *dragStart_m;
        dragStart_m.reset();
        dragNow_m.reset();
        if (std::abs(dx) > 4 && x0 >= kLabelWidth) {
            double a = std::min(x0, x0 + dx), b = std::max(x0, x0 + dx);
            auto t0 = xToTime(std::max(a, double(kLabelWidth)) - kLabelWidth);
            auto t1 = xToTime(b - kLabelWidth);
            if (t1 > t0)
                setView(t0, t1);
        } else {
            double sx = 0, sy = 0;
            d->get_start_point(sx, sy);
            clickAt(sx, sy + dy);
        }
        area_m.queue_draw();
    });
    area_m.add_controller(drag);

    area_m.set_has_tooltip(true);
    area_m.signal_query_tooltip().connect(
        [this](int x, int y, bool, const Glib::RefPtr<Gtk::Tooltip>& tip) {
            auto text = tooltipAt(x, y);
            if (!text)
                return false;
            tip->set_text(*text);
            return true;
        },
        false);

    // The overview moves the visible window.
    auto odrag = Gtk::GestureDrag::create();
    auto moveTo = [this](double x) {
        if (!doc_m || overview_m.get_width() <= 0)
            return;
        const auto& g = doc_m->graph();
        double f = std::clamp(x / overview_m.get_width(), 0.0, 1.0);
        showTime(g.startNs() + static_cast<std::uint64_t>(f * double(g.endNs() - g.startNs())));
    };
    odrag->signal_drag_begin().connect([moveTo](double x, double) { moveTo(x); });
    odrag->signal_drag_update().connect([moveTo, o = odrag.get()](double dx, double) {
        double sx = 0, sy = 0;
        o->get_start_point(sx, sy);
        moveTo(sx + dx);
    });
    overview_m.add_controller(odrag);
    exactDispatch_m.connect(sigc::mem_fun(*this, &EventGraphView::exactFinished));
}

EventGraphView::~EventGraphView() {
    stopExact();
}

void EventGraphView::stopExact() {
    // The worker reads the document's graph: wait for it (at most one
    // window's re-read) before the document goes.
    if (exactThread_m.joinable())
        exactThread_m.join();
    std::lock_guard lock(exactLock_m);
    exactDone_m.reset();
    exact_m.reset();
    exactWanted_m.reset();
    exactBusy_m = false;
}

void EventGraphView::requestExact(const ExactKey& key) {
    exactWanted_m = key;
    if (exactBusy_m)
        return; // exactFinished() starts the latest request
    if (exactThread_m.joinable())
        exactThread_m.join();
    exactBusy_m = true;
    exactStart_m = std::chrono::steady_clock::now();
    exactWanted_m.reset();
    const ltt::EventGraph* g = &doc_m->graph();
    exactThread_m = std::thread([this, g, key] {
        auto out = std::make_shared<ExactColumns>();
        out->key = key;
        exactColumns(*g, key, out->bins, out->cpus);
        {
            std::lock_guard lock(exactLock_m);
            exactDone_m = std::move(out);
        }
        exactDispatch_m.emit();
    });
}

void EventGraphView::exactFinished() {
    if (exactThread_m.joinable())
        exactThread_m.join();
    {
        std::lock_guard lock(exactLock_m);
        if (exactDone_m)
            exact_m = std::move(exactDone_m);
    }
    exactBusy_m = false;
    refinedSignal_m.emit(std::chrono::steady_clock::now() - exactStart_m);
    if (exactWanted_m && !(exact_m && exact_m->key == *exactWanted_m)) {
        auto want = *exactWanted_m;
        requestExact(want);
    }
    exactWanted_m.reset();
    colsKey_m.reset();
    area_m.queue_draw();
    cpuArea_m.queue_draw();
}

bool EventGraphView::computeColumns(const ExactKey& key) {
    if (colsKey_m && *colsKey_m == key)
        return colsExact_m;
    const auto& g = doc_m->graph();
    colsKey_m = key;
    if (exact_m && exact_m->key == key) {
        bins_m = exact_m->bins;
        cpuCols_m = exact_m->cpus;
        return colsExact_m = true;
    }
    if (g.rereadEstimate(key.begin, key.end, key.columns) <= syncReread_m) {
        exactColumns(g, key, bins_m, cpuCols_m);
        return colsExact_m = true;
    }
    // Too many events to re-read within a frame: the summary's bins (one
    // per coarse column, nothing re-read) stretched over the columns, until
    // the worker has the exact ones.
    stretchedSummary(g, key, bins_m, cpuCols_m);
    requestExact(key);
    return colsExact_m = false;
}

void EventGraphView::setKindVisible(GraphEventKind kind, bool visible) {
    const auto bit = std::uint16_t(1u << unsigned(kind));
    hiddenKinds_m =
        visible ? std::uint16_t(hiddenKinds_m & ~bit) : std::uint16_t(hiddenKinds_m | bit);
    area_m.queue_draw();
    legend_m.queue_draw();
}

std::int32_t EventGraphView::cpuTaskAtX(std::size_t cpu, double x) const {
    if (cpu >= cpuCols_m.size() || x < 0)
        return -1;
    const auto c = std::size_t(x);
    return c < cpuCols_m[cpu].size() ? cpuCols_m[cpu][c] : -1;
}

void EventGraphView::viewChanged() {
    cpuArea_m.queue_draw();
    counters_m.queue_draw();
    viewSignal_m.emit(vp_m.begin(), vp_m.end());
}

void EventGraphView::viewMoved() {
    syncScrollbars();
    area_m.queue_draw();
    overview_m.queue_draw();
    viewChanged();
}

void EventGraphView::setDocument(const TraceDocument* doc) {
    doc_m = doc;
    critical_m.reset(); // another trace's path
    vp_m.setGraph(doc_m ? &doc_m->graph() : nullptr);
    selected_m.reset();
    selectedTime_m.reset();
    selectedRow_m.reset();
    highlightRow_m.reset();
    densityWidth_m = -1;
    busyWidth_m = -1;
    stopExact();
    colsKey_m.reset();
    bins_m.clear();
    cpuCols_m.clear();
    if (doc_m) {
        const auto cpus = int(std::max<std::size_t>(1, doc_m->graph().cpuCount()));
        cpuArea_m.set_content_height(std::min(cpus, 16) * kCpuRowHeight + 6);
    }
    const std::size_t strips = counterStrips();
    counters_m.set_visible(strips > 0);
    if (strips)
        counters_m.set_content_height(int(strips) * kCounterRowHeight + 1);
    counters_m.queue_draw();
    if (doc_m)
        zoomToFit();
    else
        area_m.queue_draw();
    overview_m.queue_draw();
    util_m.queue_draw();
    cpuArea_m.queue_draw();
}

void EventGraphView::setView(std::uint64_t begin, std::uint64_t end, bool cover) {
    if (!doc_m)
        return;
    vp_m.setView(begin, end, cover, area_m.get_width());
    viewMoved();
}

void EventGraphView::zoom(double factor) {
    if (!doc_m)
        return;
    vp_m.zoom(factor, area_m.get_width());
    viewMoved();
}

void EventGraphView::zoomAt(double factor, double x) {
    if (!doc_m)
        return;
    vp_m.zoomAt(factor, x, area_m.get_width());
    viewMoved();
}

void EventGraphView::zoomToFit() {
    if (!doc_m)
        return;
    vp_m.zoomToFit(area_m.get_width());
    viewMoved();
}

void EventGraphView::scrollBy(double fraction) {
    if (!doc_m)
        return;
    vp_m.scrollBy(fraction, area_m.get_width());
    viewMoved();
}

void EventGraphView::showTime(std::uint64_t t) {
    if (!doc_m)
        return;
    vp_m.showTime(t, area_m.get_width());
    viewMoved();
}

void EventGraphView::selectEvent(std::optional<std::uint64_t> index) {
    selected_m = index;
    selectedTime_m.reset();
    selectedRow_m.reset();
    if (doc_m && doc_m->ready() && index && *index < doc_m->eventCount()) {
        EventLine line = doc_m->event(*index);
        selectedTime_m = line.timeNs;
        std::size_t row = graphRowOfEvent(*doc_m, line);
        selectedRow_m = row;
        if (line.timeNs < vp_m.begin() || line.timeNs >= vp_m.end())
            showTime(line.timeNs);
        // Bring a process row into view.
        if (vp_m.bringRowIntoView(row, visibleProcessRows()))
            syncScrollbars();
    }
    area_m.queue_draw();
    cpuArea_m.queue_draw(); // its selection line
}

void EventGraphView::syncScrollbars() {
    updatingScroll_m = true;
    if (doc_m) {
        const auto& g = doc_m->graph();
        double lo = double(g.startNs()), hi = double(std::max(g.endNs(), g.startNs() + 1));
        double span = double(vp_m.end() - vp_m.begin());
        hadj_m->configure(double(vp_m.begin()), lo, hi, span / 10, span * 0.9, span);
        std::size_t procRows = vp_m.processRows();
        std::size_t page = std::max<std::size_t>(1, visibleProcessRows());
        vp_m.clampFirstRow(area_m.get_height());
        vadj_m->configure(double(vp_m.firstRow()), 0, double(std::max(procRows, page)), 1,
                          double(page), double(page));
    }
    updatingScroll_m = false;
}

bool EventGraphView::showsWholeTrace() const {
    return !doc_m || vp_m.showsWholeTrace();
}

void EventGraphView::replaceDocument(const TraceDocument* doc) {
    const bool whole = showsWholeTrace();
    const std::uint64_t begin = vp_m.begin(), end = vp_m.end();
    const std::size_t firstRow = vp_m.firstRow();
    setDocument(doc);
    if (!doc_m)
        return;
    vp_m.setFirstRow(firstRow);
    if (whole)
        return; // setDocument showed the whole, grown trace
    // Exactly the window shown before, not re-aligned to the grown trace's
    // (wider) summary bins: the times on the axis stay put.
    vp_m.keepWindow(begin, end, area_m.get_width());
    viewMoved();
}

std::optional<ltt::GraphHit> EventGraphView::hitAt(double x, double y) const {
    if (!doc_m)
        return std::nullopt;
    return vp_m.hitAt(x, y, area_m.get_width(), area_m.get_height(), std::uint16_t(~hiddenKinds_m));
}

void EventGraphView::showProcess(std::int32_t pid) {
    if (!doc_m)
        return;
    auto row = doc_m->graph().rowOfPid(pid);
    if (!row)
        return;
    highlightRow_m = row;
    if (vp_m.bringRowIntoView(*row, std::max<std::size_t>(1, visibleProcessRows())))
        syncScrollbars();
    area_m.queue_draw();
}

void EventGraphView::clickAt(double x, double y) {
    if (x < kLabelWidth) {
        if (auto row = vp_m.rowAtY(y, area_m.get_height())) {
            const auto& r = doc_m->graph().rows()[*row];
            highlightRow_m = row;
            area_m.queue_draw();
            rowSignal_m.emit(r.kind == ltt::GraphRowKind::Kernel ? -1 : r.pid);
        }
        return;
    }
    if (!doc_m->ready()) // selecting needs the random-access index
        return;
    if (auto index = userMarkAt(x, y)) {
        selectEvent(*index);
        selectedSignal_m.emit(*index);
        return;
    }
    auto hit = hitAt(x, y);
    if (!hit)
        return;
    selectEvent(hit->index);
    selectedSignal_m.emit(hit->index);
}

std::optional<std::string> EventGraphView::tooltipAt(double x, double y) const {
    if (auto index = userMarkAt(x, y)) {
        const auto& um = doc_m->userMarks();
        auto m = std::lower_bound(um.begin(), um.end(), *index,
                                  [](const UserMark& u, std::uint64_t i) { return u.index < i; });
        return "#" + std::to_string(m->index) + "  application event\n" + formatTime(m->timeNs) +
               "   stream u" + std::to_string(m->stream) + "   PID " + std::to_string(m->pid) +
               "\n" + m->text;
    }
    auto hit = hitAt(x, y);
    if (!hit)
        return std::nullopt;
    if (!doc_m->ready())
        return "#" + std::to_string(hit->index) + "  " +
               std::string(ltt::graphEventKindName(hit->kind)) + "\n" + formatTime(hit->timeNs) +
               "\n(details once indexing is done)";
    EventLine line = doc_m->event(hit->index);
    std::string text = "#" + std::to_string(line.index) + "  " + line.event + "\n" +
                       formatTime(line.timeNs) + "   CPU " + std::to_string(line.cpu) + "   PID " +
                       std::to_string(line.pid);
    if (!line.description.empty())
        text += "\n" + line.description;
    return text;
}

std::optional<std::pair<double, double>> EventGraphView::positionOf(std::uint64_t index) const {
    if (!doc_m || !doc_m->ready() || index >= doc_m->eventCount())
        return std::nullopt;
    EventLine line = doc_m->event(index);
    auto y = yOfRow(graphRowOfEvent(*doc_m, line));
    int w = area_m.get_width() - kLabelWidth;
    if (!y || w <= 0 || line.timeNs < vp_m.begin() || line.timeNs >= vp_m.end())
        return std::nullopt;
    return std::make_pair(kLabelWidth + vp_m.timeToX(line.timeNs, w), *y);
}

std::vector<std::string> EventGraphView::visibleRowLabels() const {
    std::vector<std::string> out;
    if (!doc_m)
        return out;
    for (std::size_t r : vp_m.visibleRows(area_m.get_height()))
        out.push_back(doc_m->rowLabel(r));
    return out;
}

void EventGraphView::setCriticalPath(std::shared_ptr<const ltt::CriticalPath> path) {
    critical_m = std::move(path);
    area_m.queue_draw();
}

void EventGraphView::drawGraph(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    const auto t0 = std::chrono::steady_clock::now();
    cr->set_source_rgb(1, 1, 1);
    cr->paint();
    last_m.markers = last_m.transitions = last_m.labels = 0;
    last_m.byKind.fill(0);
    if (!doc_m) {
        paintNoTrace(cr);
        return;
    }
    const int gw = width - kLabelWidth;
    if (gw <= 0)
        return;
    if (vp_m.fitWidth(gw)) {
        // Resized: columns of whole summary bins again.
        overview_m.queue_draw();
        viewChanged();
    }
    syncScrollbars();
    const auto columns = static_cast<unsigned>(gw);
    const std::vector<std::size_t> visible = vp_m.visibleRows(height);
    const GraphScene scene{*doc_m, vp_m, width, height, gw, visible, bins_m, hiddenKinds_m};

    paintRowLabels(cr, scene, selectedRow_m, highlightRow_m);
    paintTimeAxis(cr, scene);

    cr->save();
    cr->rectangle(kLabelWidth, kAxisHeight, gw, height - kAxisHeight);
    cr->clip();

    // Bin every visible row once (or show the summary while the worker
    // re-reads a large window).
    lastRefining_m = !computeColumns({vp_m.begin(), vp_m.end(), columns, visible});
    refiningPaints_m += lastRefining_m;

    paintControl(cr, scene, last_m);
    paintMarkers(cr, scene, last_m);
    // Zoomed in far enough, isolated events are labelled.
    if (doc_m->ready() && !lastRefining_m && last_m.markers <= 400)
        paintEventLabels(cr, scene, last_m);
    if (userVisible_m) {
        paintUserMarks(cr, scene, last_m);
    } else {
        last_m.userMarks.clear();
        last_m.userLabels = 0;
    }
    paintLost(cr, scene);
    lastCritical_m = critical_m ? paintCriticalPath(cr, scene, *critical_m) : 0;
    paintSelection(cr, scene, selectedTime_m, selectedRow_m);
    if (dragStart_m && dragNow_m)
        paintDragBand(cr, scene, std::min(*dragStart_m, *dragNow_m),
                      std::max(*dragStart_m, *dragNow_m));
    cr->restore();
    if (lastRefining_m)
        paintRefining(cr, width);

    paintedSignal_m.emit(std::chrono::steady_clock::now() - t0);
}

void EventGraphView::drawOverview(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    cr->set_source_rgb(0.93, 0.93, 0.95);
    cr->paint();
    if (!doc_m || width <= 0)
        return;
    const auto& g = doc_m->graph();
    // The density needs no pass over the trace (overviewRange()).
    if (densityWidth_m != width) {
        const auto [lo, hi] = overviewRange(g, width);
        density_m = g.density(lo, hi, static_cast<unsigned>(width));
        densityWidth_m = width;
    }
    paintOverview(cr, width, height, g, density_m, vp_m.begin(), vp_m.end());
}

void EventGraphView::setUserEventsVisible(bool visible) {
    userVisible_m = visible;
    area_m.queue_draw();
    legend_m.queue_draw();
}

std::optional<std::uint64_t> EventGraphView::userMarkAt(double x, double y) const {
    if (!doc_m || x < kLabelWidth)
        return std::nullopt;
    return nearestUserMark(last_m.userMarks, x, y);
}

void EventGraphView::drawLegend(const Cairo::RefPtr<Cairo::Context>& cr, int width, int) {
    paintLegend(cr, width, hiddenKinds_m, doc_m && !doc_m->userMarks().empty(), userVisible_m);
}

void EventGraphView::drawCpus(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    cr->set_source_rgb(1, 1, 1);
    cr->paint();
    lastCpuLabels_m = 0;
    if (!doc_m)
        return;
    const int gw = area_m.get_width() - kLabelWidth;
    if (gw <= 0)
        return;
    // The graph's paint computes the columns; the CPU view draws the same
    // window (a paint of its own only when the graph has not painted it).
    computeColumns({vp_m.begin(), vp_m.end(), unsigned(gw), vp_m.visibleRows(area_m.get_height())});
    lastCpuLabels_m = paintCpus(cr, width, height, *doc_m, vp_m, gw, cpuCols_m, selectedTime_m);
}

void EventGraphView::drawUtilisation(const Cairo::RefPtr<Cairo::Context>& cr, int width,
                                     int height) {
    cr->set_source_rgb(0.97, 0.97, 0.97);
    cr->paint();
    if (!doc_m || width <= 0)
        return;
    const auto& g = doc_m->graph();
    if (busyWidth_m != width) {
        const auto [lo, hi] = overviewRange(g, width);
        busy_m = g.busyNs(lo, hi, unsigned(width));
        busyWidth_m = width;
    }
    paintUtilisation(cr, width, height, g, busy_m);
}

std::size_t EventGraphView::counterStrips() const {
    return doc_m ? doc_m->varSeries().size() : 0;
}

std::optional<std::string> EventGraphView::counterTextAt(double x, double y) const {
    if (!doc_m || x < kLabelWidth || y < 0)
        return std::nullopt;
    const auto& series = doc_m->varSeries();
    const auto strip = std::size_t(y / kCounterRowHeight);
    if (strip >= series.size())
        return std::nullopt;
    const ltt::VarSeries& s = series[strip];
    const int gw = std::max(1, area_m.get_width() - kLabelWidth);
    const auto col = unsigned(std::clamp(int(x) - kLabelWidth, 0, gw - 1));
    const auto [t0, t1] = vp_m.columnTimes(col, gw);
    // A value: the one holding at the column's start; a counter: its rate
    // over the column.
    const double v = s.counter ? counterColumn(s, t0, t1).last : double(s.valueAt(t0));
    return counterTitle(s.var) + ": " + counterValue(s.var, v) + " at " + formatTime(t0);
}

void EventGraphView::drawCounters(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    cr->set_source_rgb(1, 1, 1);
    cr->paint();
    if (!doc_m)
        return;
    const int gw = area_m.get_width() - kLabelWidth;
    if (gw <= 0)
        return;
    paintCounters(cr, width, height, doc_m->varSeries(), vp_m, gw);
}

} // namespace traceview
