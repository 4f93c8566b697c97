// Event Graph tab: see event_graph_view.hpp.
#include "event_graph_view.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace traceview {

using ltt::GraphEventKind;
using ltt::RowBins;

void kindColour(GraphEventKind kind, double& r, double& g, double& b) {
    struct Rgb {
        double r, g, b;
    };
    static constexpr Rgb table[] = {
        {0.12, 0.47, 0.71}, // Syscall: blue
        {0.90, 0.49, 0.13}, // Trap: orange
        {0.84, 0.15, 0.16}, // Irq: red
        {0.58, 0.40, 0.74}, // SchedChange: purple
        {0.55, 0.34, 0.29}, // KernelTimer: brown
        {0.89, 0.47, 0.76}, // BottomHalf: pink
        {0.09, 0.75, 0.81}, // IoWaitStart: cyan
        {0.00, 0.45, 0.45}, // IoWaitEnd: teal
        {0.74, 0.74, 0.13}, // Process: olive
        {0.17, 0.63, 0.17}, // FileSystem: green
        {0.50, 0.50, 0.50}, // Other: grey
        {1.00, 0.00, 0.00}, // Lost: bright red
    };
    auto i = static_cast<std::size_t>(kind);
    const Rgb& c = i < std::size(table) ? table[i] : table[10];
    r = c.r;
    g = c.g;
    b = c.b;
}

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
        auto span = end_m - begin_m;
        auto b = static_cast<std::uint64_t>(std::max(0.0, hadj_m->get_value()));
        setView(b, b + span);
    });
    vadj_m->signal_value_changed().connect([this] {
        if (updatingScroll_m)
            return;
        firstRow_m = static_cast<std::size_t>(std::max(0.0, vadj_m->get_value()));
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
        g->binRows(key.rows, key.begin, key.end, key.columns, out->bins);
        g->cpuTasks(key.begin, key.end, key.columns, out->cpus);
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
        g.binRows(key.rows, key.begin, key.end, key.columns, bins_m);
        g.cpuTasks(key.begin, key.end, key.columns, cpuCols_m);
        return colsExact_m = true;
    }
    // Too many events to re-read within a frame: the summary's bins (one
    // per coarse column, nothing re-read) stretched over the columns, until
    // the worker has the exact ones.
    const std::uint64_t w = g.binWidthNs(), lo = g.startNs();
    const std::uint64_t b0 = (std::max(key.begin, lo) - lo) / w;
    const std::uint64_t b1 = std::max(b0 + 1, (key.end - lo + w - 1) / w);
    const auto nb = unsigned(b1 - b0);
    const std::uint64_t cb = lo + b0 * w, ce = lo + b1 * w;
    std::vector<ltt::RowBins> coarse;
    std::vector<std::vector<std::int32_t>> coarseCpu;
    g.binRows(key.rows, cb, ce, nb, coarse);
    g.cpuTasks(cb, ce, nb, coarseCpu);
    bins_m.resize(coarse.size());
    for (std::size_t r : key.rows) {
        ltt::RowBins& o = bins_m[r];
        o.control.assign(key.columns, 0);
        o.firstEvent.assign(key.columns, -1);
        o.firstKind.assign(key.columns, GraphEventKind::Other);
        o.eventCount.assign(key.columns, 0);
        o.kinds.assign(key.columns, 0);
    }
    cpuCols_m.assign(coarseCpu.size(), std::vector<std::int32_t>(key.columns, -1));
    std::uint64_t last = ~0ull;
    for (unsigned c = 0; c < key.columns; ++c) {
        const std::uint64_t t = ltt::EventGraph::columnStart(key.begin, key.end, key.columns, c);
        const std::uint64_t j = std::min<std::uint64_t>(nb - 1, (std::max(t, cb) - cb) / w);
        const bool firstOfBin = j != last;
        last = j;
        for (std::size_t r : key.rows) {
            const ltt::RowBins& in = coarse[r];
            ltt::RowBins& o = bins_m[r];
            o.control[c] = in.control[j] & ~RowBins::kControlChanges;
            if (firstOfBin) {
                o.control[c] = in.control[j];
                o.firstEvent[c] = in.firstEvent[j];
                o.firstKind[c] = in.firstKind[j];
                o.eventCount[c] = in.eventCount[j];
                o.kinds[c] = in.kinds[j];
            }
        }
        for (std::size_t k = 0; k < coarseCpu.size(); ++k)
            cpuCols_m[k][c] = coarseCpu[k][j];
    }
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
    viewSignal_m.emit(begin_m, end_m);
}

void EventGraphView::setDocument(const TraceDocument* doc) {
    doc_m = doc;
    selected_m.reset();
    selectedTime_m.reset();
    selectedRow_m.reset();
    highlightRow_m.reset();
    firstRow_m = 0;
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
    const auto& g = doc_m->graph();
    const std::uint64_t lo = g.startNs(), hi = std::max(g.endNs(), g.startNs() + 1);
    const std::uint64_t whole = hi - lo;
    std::uint64_t span = std::clamp<std::uint64_t>(end > begin ? end - begin : 1,
                                                   std::min<std::uint64_t>(20, whole), whole);
    if (span == 0)
        span = 1;
    begin = std::clamp(begin, lo, hi - std::min(span, hi - lo));
    begin_m = begin;
    end_m = begin + span;
    wantSpan_m = span;
    // Zoomed out to a summary bin per pixel or more, whole bins per column:
    // the model then draws without re-reading the trace.
    snapCover_m = cover;
    snapWidth_m = area_m.get_width() - kLabelWidth;
    if (snapWidth_m > 0)
        std::tie(begin_m, end_m) = g.alignedView(begin_m, end_m, unsigned(snapWidth_m), cover);
    syncScrollbars();
    area_m.queue_draw();
    overview_m.queue_draw();
    viewChanged();
}

void EventGraphView::zoom(double factor) {
    int w = area_m.get_width() - kLabelWidth;
    zoomAt(factor, w > 0 ? w / 2.0 : 0);
}

void EventGraphView::zoomAt(double factor, double x) {
    if (!doc_m)
        return;
    int w = std::max(1, area_m.get_width() - kLabelWidth);
    double f = std::clamp(x / w, 0.0, 1.0);
    double span = double(end_m - begin_m);
    // Steps from the span asked for, not the aligned one, so that rounding
    // to whole summary bins does not add up over several zooms.
    const double asked = double(std::max<std::uint64_t>(1, wantSpan_m));
    double anchor = double(begin_m) + f * span;
    double nspan = std::max(20.0, asked / factor);
    double nb = std::max(0.0, anchor - f * nspan);
    setView(static_cast<std::uint64_t>(nb), static_cast<std::uint64_t>(nb + nspan));
}

void EventGraphView::zoomToFit() {
    if (!doc_m)
        return;
    const auto& g = doc_m->graph();
    setView(g.startNs(), std::max(g.endNs(), g.startNs() + 1), true);
}

void EventGraphView::scrollBy(double fraction) {
    double span = double(end_m - begin_m);
    double nb = std::max(0.0, double(begin_m) + fraction * span);
    setView(static_cast<std::uint64_t>(nb), static_cast<std::uint64_t>(nb + span));
}

void EventGraphView::showTime(std::uint64_t t) {
    std::uint64_t span = end_m - begin_m;
    setView(t > span / 2 ? t - span / 2 : 0, (t > span / 2 ? t - span / 2 : 0) + span);
}

std::optional<std::size_t> EventGraphView::rowOfUserMark(const UserMark& m) const {
    const auto& g = doc_m->graph();
    auto row = g.rowOfPid(m.pid);
    return row ? row : g.rowOfPid(std::int32_t(m.tgid));
}

std::size_t EventGraphView::rowOfEvent(const EventLine& line) const {
    const auto& g = doc_m->graph();
    if (line.user) {
        const auto& um = doc_m->userMarks();
        auto m = std::lower_bound(um.begin(), um.end(), line.index,
                                  [](const UserMark& u, std::uint64_t i) { return u.index < i; });
        if (m != um.end() && m->index == line.index)
            return rowOfUserMark(*m).value_or(g.kernelRow());
    }
    auto kind = ltt::graphEventKindOf(line.id, line.subtype);
    if (kind && (*kind == GraphEventKind::Irq || *kind == GraphEventKind::KernelTimer ||
                 *kind == GraphEventKind::BottomHalf || *kind == GraphEventKind::Lost))
        return g.kernelRow();
    return g.rowOfPid(line.pid).value_or(g.kernelRow());
}

void EventGraphView::selectEvent(std::optional<std::uint64_t> index) {
    selected_m = index;
    selectedTime_m.reset();
    selectedRow_m.reset();
    if (doc_m && doc_m->ready() && index && *index < doc_m->eventCount()) {
        EventLine line = doc_m->event(*index);
        selectedTime_m = line.timeNs;
        std::size_t row = rowOfEvent(line);
        selectedRow_m = row;
        if (line.timeNs < begin_m || line.timeNs >= end_m)
            showTime(line.timeNs);
        // Bring a process row into view.
        if (row >= 2) {
            std::size_t p = row - 2, n = visibleProcessRows();
            if (p < firstRow_m || p >= firstRow_m + n) {
                firstRow_m = p > n / 2 ? p - n / 2 : 0;
                syncScrollbars();
            }
        }
    }
    area_m.queue_draw();
    cpuArea_m.queue_draw(); // its selection line
}

std::size_t EventGraphView::visibleProcessRows() const {
    int h = area_m.get_height() - kAxisHeight - 2 * kRowHeight;
    return h > 0 ? static_cast<std::size_t>(h / kRowHeight) : 0;
}

void EventGraphView::syncScrollbars() {
    updatingScroll_m = true;
    if (doc_m) {
        const auto& g = doc_m->graph();
        double lo = double(g.startNs()), hi = double(std::max(g.endNs(), g.startNs() + 1));
        double span = double(end_m - begin_m);
        hadj_m->configure(double(begin_m), lo, hi, span / 10, span * 0.9, span);
        std::size_t procRows = g.rows().size() > 2 ? g.rows().size() - 2 : 0;
        std::size_t page = std::max<std::size_t>(1, visibleProcessRows());
        firstRow_m = std::min(firstRow_m, procRows > page ? procRows - page : 0);
        vadj_m->configure(double(firstRow_m), 0, double(std::max(procRows, page)), 1, double(page),
                          double(page));
    }
    updatingScroll_m = false;
}

std::optional<double> EventGraphView::yOfRow(std::size_t row) const {
    // Centre line of a row.
    if (row < 2)
        return kAxisHeight + row * kRowHeight + kRowHeight / 2.0;
    std::size_t p = row - 2;
    if (p < firstRow_m || p >= firstRow_m + visibleProcessRows())
        return std::nullopt;
    return kAxisHeight + (2 + p - firstRow_m) * kRowHeight + kRowHeight / 2.0;
}

std::optional<std::size_t> EventGraphView::rowAtY(double y) const {
    if (!doc_m || y < kAxisHeight)
        return std::nullopt;
    auto slot = static_cast<std::size_t>((y - kAxisHeight) / kRowHeight);
    std::size_t row = slot < 2 ? slot : slot + firstRow_m;
    if (slot >= 2 && slot - 2 >= visibleProcessRows())
        return std::nullopt;
    if (row >= doc_m->graph().rows().size())
        return std::nullopt;
    return row;
}

double EventGraphView::timeToX(std::uint64_t t, int graphWidth) const {
    return (double(t) - double(begin_m)) / double(end_m - begin_m) * graphWidth;
}

bool EventGraphView::showsWholeTrace() const {
    if (!doc_m)
        return true;
    const auto& g = doc_m->graph();
    return begin_m <= g.startNs() && end_m >= g.endNs();
}

void EventGraphView::replaceDocument(const TraceDocument* doc) {
    const bool whole = showsWholeTrace();
    const std::uint64_t begin = begin_m, end = end_m;
    const std::size_t firstRow = firstRow_m;
    setDocument(doc);
    if (!doc_m)
        return;
    firstRow_m = firstRow;
    if (whole)
        return; // setDocument showed the whole, grown trace
    // Exactly the window shown before, not re-aligned to the grown trace's
    // (wider) summary bins: the times on the axis stay put.
    const auto& g = doc_m->graph();
    const std::uint64_t lo = g.startNs(), hi = std::max(g.endNs(), g.startNs() + 1);
    begin_m = std::clamp(begin, lo, hi - 1);
    end_m = std::max(begin_m + 1, end);
    wantSpan_m = end_m - begin_m;
    snapWidth_m = area_m.get_width() - kLabelWidth;
    snapCover_m = false;
    syncScrollbars();
    area_m.queue_draw();
    overview_m.queue_draw();
    viewChanged();
}

std::uint64_t EventGraphView::xToTime(double x) const {
    int w = std::max(1, area_m.get_width() - kLabelWidth);
    double t = double(begin_m) + x / w * double(end_m - begin_m);
    return t <= 0 ? 0 : static_cast<std::uint64_t>(t);
}

std::optional<ltt::GraphHit> EventGraphView::hitAt(double x, double y) const {
    if (!doc_m || x < kLabelWidth)
        return std::nullopt;
    auto row = rowAtY(y);
    if (!row)
        return std::nullopt;
    int w = std::max(1, area_m.get_width() - kLabelWidth);
    auto nsPerPx = std::max<std::uint64_t>(1, (end_m - begin_m) / std::uint64_t(w));
    // Markers of hidden kinds are not drawn, so they cannot be picked.
    return doc_m->graph().nearestEvent(*row, xToTime(x - kLabelWidth), 4 * nsPerPx,
                                       std::uint16_t(~hiddenKinds_m));
}

void EventGraphView::showProcess(std::int32_t pid) {
    if (!doc_m)
        return;
    auto row = doc_m->graph().rowOfPid(pid);
    if (!row)
        return;
    highlightRow_m = row;
    if (*row >= 2) {
        std::size_t p = *row - 2, n = std::max<std::size_t>(1, visibleProcessRows());
        if (p < firstRow_m || p >= firstRow_m + n) {
            firstRow_m = p > n / 2 ? p - n / 2 : 0;
            syncScrollbars();
        }
    }
    area_m.queue_draw();
}

void EventGraphView::clickAt(double x, double y) {
    if (x < kLabelWidth) {
        if (auto row = rowAtY(y)) {
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
    auto y = yOfRow(rowOfEvent(line));
    int w = area_m.get_width() - kLabelWidth;
    if (!y || w <= 0 || line.timeNs < begin_m || line.timeNs >= end_m)
        return std::nullopt;
    return std::make_pair(kLabelWidth + timeToX(line.timeNs, w), *y);
}

std::vector<std::string> EventGraphView::visibleRowLabels() const {
    std::vector<std::string> out;
    if (!doc_m)
        return out;
    std::size_t n = doc_m->graph().rows().size();
    for (std::size_t r = 0; r < n; ++r)
        if (yOfRow(r))
            out.push_back(doc_m->rowLabel(r));
    return out;
}

namespace {

// A "nice" tick step (1, 2 or 5 × 10^k ns) close to `target`.
std::uint64_t niceStep(double target) {
    double p = std::pow(10.0, std::floor(std::log10(std::max(target, 1.0))));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (p * m >= target)
            return static_cast<std::uint64_t>(p * m);
    return static_cast<std::uint64_t>(p * 10);
}

std::string tickLabel(std::uint64_t ns, std::uint64_t step) {
    char buf[64];
    int digits = step >= 1000000000 ? 0 : step >= 1000000 ? 3 : step >= 1000 ? 6 : 9;
    std::snprintf(buf, sizeof buf, "%.*f s", digits, double(ns) / 1e9);
    return buf;
}

} // namespace

void EventGraphView::drawGraph(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    const auto t0 = std::chrono::steady_clock::now();
    cr->set_source_rgb(1, 1, 1);
    cr->paint();
    lastMarkers_m = lastTransitions_m = lastLabels_m = 0;
    lastByKind_m.fill(0);
    if (!doc_m) {
        cr->set_source_rgb(0.4, 0.4, 0.4);
        cr->move_to(20, 40);
        cr->show_text("No trace open: File → Open, or traceview TRACE PROC");
        return;
    }
    const auto& g = doc_m->graph();
    const int gw = width - kLabelWidth;
    if (gw <= 0)
        return;
    if (gw != snapWidth_m) {
        // Resized: columns of whole summary bins again.
        snapWidth_m = gw;
        std::tie(begin_m, end_m) = g.alignedView(begin_m, end_m, unsigned(gw), snapCover_m);
        overview_m.queue_draw();
        viewChanged();
    }
    syncScrollbars();
    const auto columns = static_cast<unsigned>(gw);

    // Which rows are on screen.
    std::vector<std::size_t> visible;
    for (std::size_t r = 0; r < g.rows().size(); ++r)
        if (yOfRow(r))
            visible.push_back(r);

    // Row stripes and labels.
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
    cr->set_font_size(11);
    for (std::size_t i = 0; i < visible.size(); ++i) {
        std::size_t r = visible[i];
        double yc = *yOfRow(r);
        double top = yc - kRowHeight / 2.0;
        if (i % 2 == 1) {
            cr->set_source_rgb(0.96, 0.96, 0.98);
            cr->rectangle(0, top, width, kRowHeight);
            cr->fill();
        }
        if (r == selectedRow_m || r == highlightRow_m) {
            cr->set_source_rgb(0.85, 0.90, 1.0);
            cr->rectangle(0, top, kLabelWidth, kRowHeight);
            cr->fill();
        }
        cr->set_source_rgb(0.1, 0.1, 0.1);
        cr->move_to(6, yc + 4);
        std::string label = doc_m->rowLabel(r);
        if (label.size() > 26)
            label = label.substr(0, 25) + "…";
        cr->show_text(label);
    }
    cr->set_source_rgb(0.6, 0.6, 0.6);
    cr->set_line_width(1);
    cr->move_to(kLabelWidth - 0.5, 0);
    cr->line_to(kLabelWidth - 0.5, height);
    cr->move_to(0, kAxisHeight + 2 * kRowHeight + 0.5);
    cr->line_to(width, kAxisHeight + 2 * kRowHeight + 0.5);
    cr->stroke();

    // Time axis.
    const double span = double(end_m - begin_m);
    const std::uint64_t step = niceStep(span / (gw / 110.0));
    cr->set_font_size(10);
    for (std::uint64_t t = (begin_m / step) * step; t <= end_m; t += step) {
        if (t < begin_m)
            continue;
        double x = kLabelWidth + timeToX(t, gw);
        cr->set_source_rgb(0.88, 0.88, 0.88);
        cr->move_to(std::floor(x) + 0.5, kAxisHeight);
        cr->line_to(std::floor(x) + 0.5, height);
        cr->stroke();
        cr->set_source_rgb(0.2, 0.2, 0.2);
        cr->move_to(x + 2, kAxisHeight - 8);
        cr->show_text(tickLabel(t, step));
    }

    cr->save();
    cr->rectangle(kLabelWidth, kAxisHeight, gw, height - kAxisHeight);
    cr->clip();

    // Bin every visible row once (or show the summary while the worker
    // re-reads a large window).
    lastRefining_m = !computeColumns({begin_m, end_m, columns, visible});
    refiningPaints_m += lastRefining_m;

    // Vertical lines: in each column, join the rows control moved between.
    cr->set_source_rgb(0.25, 0.25, 0.25);
    cr->set_line_width(1);
    for (unsigned c = 0; c < columns; ++c) {
        double ymin = 1e9, ymax = -1;
        for (std::size_t r : visible) {
            if (bins_m[r].control[c] & RowBins::kControlChanges) {
                double y = *yOfRow(r);
                ymin = std::min(ymin, y);
                ymax = std::max(ymax, y);
            }
        }
        if (ymax > ymin) {
            double x = kLabelWidth + c + 0.5;
            cr->move_to(x, ymin);
            cr->line_to(x, ymax);
            ++lastTransitions_m;
        }
    }
    cr->stroke();

    // Horizontal lines: where each row holds control.
    cr->set_line_width(3);
    for (std::size_t r : visible) {
        const auto& b = bins_m[r];
        double y = *yOfRow(r);
        switch (g.rows()[r].kind) {
        case ltt::GraphRowKind::Kernel:
            cr->set_source_rgb(0.80, 0.20, 0.15);
            break;
        case ltt::GraphRowKind::Idle:
            cr->set_source_rgb(0.65, 0.65, 0.65);
            break;
        case ltt::GraphRowKind::Process:
            cr->set_source_rgb(0.15, 0.55, 0.20);
            break;
        }
        unsigned c = 0;
        while (c < columns) {
            if (!b.control[c]) {
                ++c;
                continue;
            }
            unsigned e = c;
            while (e < columns && b.control[e])
                ++e;
            cr->move_to(kLabelWidth + c, y);
            cr->line_to(kLabelWidth + e, y);
            c = e;
        }
        cr->stroke();
    }

    // Event markers, one per column at most, grouped by colour: the first
    // marker's kind, or when that kind is hidden the first shown kind the
    // column holds; a column holding only hidden kinds draws none.
    std::array<std::vector<std::pair<double, double>>, ltt::kGraphEventKinds> marks;
    const auto shown = std::uint16_t(~hiddenKinds_m);
    for (std::size_t r : visible) {
        const auto& b = bins_m[r];
        double y = *yOfRow(r);
        double lastX = -10;
        for (unsigned c = 0; c < columns; ++c) {
            if (b.firstEvent[c] < 0 || c - lastX < 5 || !(b.kinds[c] & shown))
                continue;
            lastX = c;
            auto k = static_cast<std::size_t>(b.firstKind[c]);
            if (!(shown & (1u << k)))
                k = std::size_t(std::countr_zero(unsigned(b.kinds[c] & shown)));
            marks[k].emplace_back(kLabelWidth + c, y);
        }
    }
    for (std::size_t k = 0; k < marks.size(); ++k) {
        if (marks[k].empty())
            continue;
        double rr, gg, bb;
        kindColour(static_cast<GraphEventKind>(k), rr, gg, bb);
        cr->set_source_rgb(rr, gg, bb);
        for (auto [x, y] : marks[k])
            cr->rectangle(x - 2, y - 8, 5, 5);
        cr->fill();
        lastMarkers_m += marks[k].size();
    }
    for (std::size_t k = 0; k < marks.size(); ++k)
        lastByKind_m[k] = marks[k].size();

    // Zoomed in far enough, label isolated events like LTT's graph did
    // ("SYSCALL : newstat"): the description's first field, where the next
    // marker of the row leaves room for it.
    if (doc_m->ready() && !lastRefining_m && lastMarkers_m <= 400) {
        constexpr double kRoom = 90;
        cr->set_font_size(9);
        cr->set_source_rgb(0.25, 0.25, 0.25);
        for (std::size_t r : visible) {
            // The kernel row's labels would sit on the axis or the idle row.
            if (r == g.kernelRow())
                continue;
            const auto& b = bins_m[r];
            double y = *yOfRow(r);
            for (unsigned c = 0; c < columns; ++c) {
                if (b.firstEvent[c] < 0 || b.eventCount[c] != 1 || !kindVisible(b.firstKind[c]))
                    continue;
                unsigned n = c + 1;
                while (n < columns && b.firstEvent[n] < 0 && n - c < kRoom)
                    ++n;
                if (n - c < kRoom)
                    continue;
                EventLine line = doc_m->event(std::uint64_t(b.firstEvent[c]));
                std::string text = line.description.substr(0, line.description.find(';'));
                if (text.empty())
                    text = line.event;
                if (text.size() > 18)
                    text = text.substr(0, 17) + "…";
                cr->move_to(kLabelWidth + c + 4, y - 9);
                cr->show_text(text);
                ++lastLabels_m;
            }
        }
    }

    drawUserMarks(cr, gw);

    // Lost events: a red dashed line where they happened.
    cr->set_source_rgb(1, 0, 0);
    cr->set_line_width(1.5);
    std::vector<double> dash{4, 3};
    cr->set_dash(dash, 0);
    for (const auto& lost : g.lost()) {
        if (lost.timeNs < begin_m || lost.timeNs >= end_m)
            continue;
        double x = kLabelWidth + timeToX(lost.timeNs, gw);
        cr->move_to(x, kAxisHeight);
        cr->line_to(x, height);
        cr->stroke();
        cr->move_to(x + 3, kAxisHeight + 10);
        cr->show_text("lost " + std::to_string(lost.count) + " (CPU " + std::to_string(lost.cpu) +
                      ")");
    }
    cr->unset_dash();

    // Selection.
    if (selectedTime_m && *selectedTime_m >= begin_m && *selectedTime_m < end_m) {
        double x = kLabelWidth + timeToX(*selectedTime_m, gw);
        cr->set_source_rgba(0.1, 0.3, 0.9, 0.8);
        cr->set_line_width(1);
        cr->move_to(std::floor(x) + 0.5, kAxisHeight);
        cr->line_to(std::floor(x) + 0.5, height);
        cr->stroke();
        if (selectedRow_m) {
            if (auto y = yOfRow(*selectedRow_m)) {
                cr->arc(x, *y, 6, 0, 2 * M_PI);
                cr->set_line_width(2);
                cr->stroke();
            }
        }
    }
    // Drag-to-zoom rubber band.
    if (dragStart_m && dragNow_m) {
        double a = std::min(*dragStart_m, *dragNow_m), b = std::max(*dragStart_m, *dragNow_m);
        cr->set_source_rgba(0.2, 0.4, 1.0, 0.2);
        cr->rectangle(a, kAxisHeight, b - a, height - kAxisHeight);
        cr->fill();
    }
    cr->restore();
    if (lastRefining_m) {
        cr->set_source_rgba(0.2, 0.2, 0.2, 0.8);
        cr->set_font_size(10);
        cr->move_to(width - 70, kAxisHeight - 8);
        cr->show_text("refining…");
    }

    paintedSignal_m.emit(std::chrono::steady_clock::now() - t0);
}

// The overview strips' range: the whole trace in whole summary bins per
// pixel (a little room may be left at the right end).
static std::pair<std::uint64_t, std::uint64_t> overviewRange(const ltt::EventGraph& g, int width) {
    return g.alignedView(g.startNs(), std::max(g.endNs(), g.startNs() + 1), unsigned(width), true);
}

void EventGraphView::drawOverview(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    cr->set_source_rgb(0.93, 0.93, 0.95);
    cr->paint();
    if (!doc_m || width <= 0)
        return;
    const auto& g = doc_m->graph();
    // The density needs no pass over the trace (overviewRange()).
    const auto [lo, hi] = overviewRange(g, width);
    if (densityWidth_m != width) {
        density_m = g.density(lo, hi, static_cast<unsigned>(width));
        densityWidth_m = width;
    }
    std::uint32_t peak = 1;
    for (auto d : density_m)
        peak = std::max(peak, d);
    cr->set_source_rgb(0.45, 0.55, 0.70);
    for (int x = 0; x < width; ++x) {
        double h =
            std::log1p(double(density_m[std::size_t(x)])) / std::log1p(double(peak)) * (height - 4);
        if (h > 0)
            cr->rectangle(x, height - 2 - h, 1, h);
    }
    cr->fill();
    cr->set_source_rgb(1, 0, 0);
    for (const auto& lost : g.lost()) {
        double x = double(lost.timeNs - lo) / double(hi - lo) * width;
        cr->rectangle(x, 0, 1.5, height);
    }
    cr->fill();
    // The visible window (the "horizon").
    double x0 = double(begin_m - lo) / double(hi - lo) * width;
    double x1 = double(end_m - lo) / double(hi - lo) * width;
    if (x1 - x0 < 3) {
        x0 -= 1.5;
        x1 += 1.5;
    }
    cr->set_source_rgba(1.0, 0.75, 0.1, 0.35);
    cr->rectangle(x0, 0, x1 - x0, height);
    cr->fill();
    cr->set_source_rgb(0.85, 0.5, 0.0);
    cr->set_line_width(1.5);
    cr->rectangle(x0, 0.75, x1 - x0, height - 1.5);
    cr->stroke();
}

void EventGraphView::setUserEventsVisible(bool visible) {
    userVisible_m = visible;
    area_m.queue_draw();
    legend_m.queue_draw();
}

std::optional<std::uint64_t> EventGraphView::userMarkAt(double x, double y) const {
    if (!doc_m || x < kLabelWidth)
        return std::nullopt;
    std::optional<std::uint64_t> best;
    double bestDist = 4.5;
    for (const auto& m : lastUserDrawn_m) {
        const double d = std::max(std::abs(m.x - x), std::abs(m.y - y));
        if (d < bestDist) {
            bestDist = d;
            best = m.index;
        }
    }
    return best;
}

// Application events over the rows: a diamond on the logging thread's row
// (one per pixel column), then, when few enough are on screen, the event's
// name under it unless it would overlap the row's previous name. Nothing is
// done for a trace without them.
void EventGraphView::drawUserMarks(const Cairo::RefPtr<Cairo::Context>& cr, int gw) {
    lastUserDrawn_m.clear();
    lastUserLabels_m = 0;
    const auto& um = doc_m->userMarks();
    if (!userVisible_m || um.empty())
        return;
    std::unordered_map<std::size_t, double> lastX; // by row
    std::vector<const UserMark*> drawn;
    auto it = std::lower_bound(um.begin(), um.end(), begin_m,
                               [](const UserMark& m, std::uint64_t t) { return m.timeNs < t; });
    cr->set_source_rgb(kUserColour[0], kUserColour[1], kUserColour[2]);
    for (; it != um.end() && it->timeNs < end_m; ++it) {
        const auto row = rowOfUserMark(*it);
        const auto y = row ? yOfRow(*row) : std::nullopt;
        if (!y)
            continue;
        const double x = kLabelWidth + timeToX(it->timeNs, gw);
        auto [last, fresh] = lastX.try_emplace(*row, x);
        if (!fresh && x - last->second < 1)
            continue;
        last->second = x;
        cr->move_to(x, *y - 5);
        cr->line_to(x + 5, *y);
        cr->line_to(x, *y + 5);
        cr->line_to(x - 5, *y);
        cr->close_path();
        lastUserDrawn_m.push_back({it->index, x, *y});
        drawn.push_back(&*it);
    }
    cr->fill();
    if (lastUserDrawn_m.size() > 400)
        return;
    cr->set_font_size(9);
    std::unordered_map<double, double> labelEnd; // by row's y
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        const auto& at = lastUserDrawn_m[i];
        const std::string& name = drawn[i]->name;
        Cairo::TextExtents ext;
        cr->get_text_extents(name, ext);
        auto [end, fresh] = labelEnd.try_emplace(at.y, -1e9);
        if (at.x + 6 < end->second + 4)
            continue;
        cr->move_to(at.x + 6, at.y + 9);
        cr->show_text(name);
        end->second = at.x + 6 + ext.x_advance;
        ++lastUserLabels_m;
    }
}

void EventGraphView::drawLegend(const Cairo::RefPtr<Cairo::Context>& cr, int width, int) {
    cr->set_source_rgb(1, 1, 1);
    cr->paint();
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
    cr->set_font_size(10);
    double x = 6;
    auto line = [&](double r, double g, double b, const char* name) {
        cr->set_source_rgb(r, g, b);
        cr->set_line_width(3);
        cr->move_to(x, 12);
        cr->line_to(x + 14, 12);
        cr->stroke();
        cr->set_source_rgb(0.1, 0.1, 0.1);
        cr->move_to(x + 18, 16);
        cr->show_text(name);
        Cairo::TextExtents ext;
        cr->get_text_extents(name, ext);
        x += 26 + ext.x_advance;
    };
    line(0.15, 0.55, 0.20, "user mode");
    line(0.80, 0.20, 0.15, "kernel");
    line(0.65, 0.65, 0.65, "idle");
    for (std::size_t k = 0; k < ltt::kGraphEventKinds && x < width; ++k) {
        auto kind = static_cast<GraphEventKind>(k);
        double r, g, b;
        kindColour(kind, r, g, b);
        cr->set_source_rgb(r, g, b);
        // A hidden kind: an empty box and a grey name.
        const bool on = kindVisible(kind);
        cr->rectangle(x + 0.5, 7.5, 7, 7);
        if (on) {
            cr->fill();
        } else {
            cr->set_line_width(1);
            cr->stroke();
        }
        if (on)
            cr->set_source_rgb(0.1, 0.1, 0.1);
        else
            cr->set_source_rgb(0.6, 0.6, 0.6);
        cr->move_to(x + 11, 16);
        std::string name(ltt::graphEventKindName(kind));
        cr->show_text(name);
        Cairo::TextExtents ext;
        cr->get_text_extents(name, ext);
        x += 20 + ext.x_advance;
    }
    if (doc_m && !doc_m->userMarks().empty() && x < width) {
        cr->set_source_rgb(kUserColour[0], kUserColour[1], kUserColour[2]);
        cr->move_to(x + 4, 6.5);
        cr->line_to(x + 8.5, 11);
        cr->line_to(x + 4, 15.5);
        cr->line_to(x - 0.5, 11);
        cr->close_path();
        if (userVisible_m) {
            cr->fill();
            cr->set_source_rgb(0.1, 0.1, 0.1);
        } else {
            cr->set_line_width(1);
            cr->stroke();
            cr->set_source_rgb(0.6, 0.6, 0.6);
        }
        cr->move_to(x + 11, 16);
        cr->show_text("Application events");
    }
}

namespace {
// A colour per task, stable across paints: the pid's hash picks the hue.
void taskColour(std::int32_t pid, double& r, double& g, double& b) {
    std::uint32_t h = std::uint32_t(pid) * 2654435761u;
    const double hue = double(h >> 8 & 0xffff) / 65536.0 * 6.0;
    const double s = 0.45 + double(h & 0x3f) / 256.0, v = 0.85;
    const int i = int(hue);
    const double f = hue - i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    // HSV to RGB: the sextant of the hue picks which of v, p, q, t each
    // channel takes.
    const double rgb[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    r = rgb[i % 6][0];
    g = rgb[i % 6][1];
    b = rgb[i % 6][2];
}
} // namespace

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
    std::vector<std::size_t> visible;
    for (std::size_t r = 0; r < doc_m->graph().rows().size(); ++r)
        if (yOfRow(r))
            visible.push_back(r);
    computeColumns({begin_m, end_m, unsigned(gw), visible});
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
    cr->set_line_width(1);
    cr->set_source_rgb(0.6, 0.6, 0.6);
    cr->move_to(0, 0.5);
    cr->line_to(width, 0.5);
    cr->move_to(kLabelWidth - 0.5, 0);
    cr->line_to(kLabelWidth - 0.5, height);
    cr->stroke();
    // Stretches of one task, filled one colour at a time (zoomed out a row
    // changes task at most columns; a fill per stretch would cost more than
    // the graph's whole paint).
    const double top = 3;
    struct Stretch {
        double x, y, w;
    };
    std::unordered_map<std::int32_t, std::vector<Stretch>> byTask;
    std::vector<Stretch> idle;
    std::vector<std::pair<Stretch, std::int32_t>> named; // wide enough for a name
    cr->set_font_size(11);
    cr->set_source_rgb(0.1, 0.1, 0.1);
    for (std::size_t cpu = 0; cpu < cpuCols_m.size(); ++cpu) {
        const double y = top + double(cpu) * kCpuRowHeight;
        if (y + kCpuRowHeight > height + 1)
            break;
        cr->move_to(6, y + kCpuRowHeight - 5);
        cr->show_text("CPU " + std::to_string(cpu));
        const auto& col = cpuCols_m[cpu];
        unsigned c = 0;
        const auto n = unsigned(std::min<std::size_t>(col.size(), std::size_t(gw)));
        while (c < n) {
            const std::int32_t pid = col[c];
            unsigned e = c + 1;
            while (e < n && col[e] == pid)
                ++e;
            const Stretch st{double(kLabelWidth + c), y, double(e - c)};
            if (pid > 0) {
                byTask[pid].push_back(st);
                // No name fits in fewer than 40 pixels.
                if (e - c >= 40)
                    named.emplace_back(st, pid);
            } else if (pid == 0) {
                idle.push_back(st);
            }
            c = e;
        }
    }
    for (const auto& [pid, stretches] : byTask) {
        double r, g, b;
        taskColour(pid, r, g, b);
        cr->set_source_rgb(r, g, b);
        for (const auto& st : stretches)
            cr->rectangle(st.x, st.y + 1, st.w, kCpuRowHeight - 3);
        cr->fill();
    }
    cr->set_source_rgb(0.90, 0.90, 0.90);
    for (const auto& st : idle)
        cr->rectangle(st.x, st.y + kCpuRowHeight / 2.0 - 1, st.w, 2);
    cr->fill();
    // Zoomed in, the task's name where its stretch has room.
    cr->set_font_size(9);
    cr->set_source_rgb(0.05, 0.05, 0.05);
    for (const auto& [st, pid] : named) {
        const std::string name = doc_m->processName(pid) + " " + std::to_string(pid);
        Cairo::TextExtents ext;
        cr->get_text_extents(name, ext);
        if (ext.x_advance + 6 < st.w) {
            cr->move_to(st.x + 3, st.y + kCpuRowHeight - 6);
            cr->show_text(name);
            ++lastCpuLabels_m;
        }
    }
    // The selection, as in the graph.
    if (selectedTime_m && *selectedTime_m >= begin_m && *selectedTime_m < end_m) {
        const double x = kLabelWidth + timeToX(*selectedTime_m, gw);
        cr->set_source_rgba(0.1, 0.3, 0.9, 0.8);
        cr->move_to(std::floor(x) + 0.5, 0);
        cr->line_to(std::floor(x) + 0.5, height);
        cr->stroke();
    }
}

void EventGraphView::drawUtilisation(const Cairo::RefPtr<Cairo::Context>& cr, int width,
                                     int height) {
    cr->set_source_rgb(0.97, 0.97, 0.97);
    cr->paint();
    if (!doc_m || width <= 0)
        return;
    const auto& g = doc_m->graph();
    const auto [lo, hi] = overviewRange(g, width);
    if (busyWidth_m != width) {
        busy_m = g.busyNs(lo, hi, unsigned(width));
        busyWidth_m = width;
    }
    const double cpus = double(std::max<std::size_t>(1, g.cpuCount()));
    cr->set_source_rgb(0.20, 0.60, 0.30);
    for (int x = 0; x < width; ++x) {
        const double colNs = double(ltt::EventGraph::columnStart(lo, hi, unsigned(width), x + 1) -
                                    ltt::EventGraph::columnStart(lo, hi, unsigned(width), x));
        const double f = std::clamp(double(busy_m[std::size_t(x)]) / (colNs * cpus), 0.0, 1.0);
        if (f > 0)
            cr->rectangle(x, height - 1 - f * (height - 2), 1, f * (height - 2));
    }
    cr->fill();
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
    cr->set_font_size(9);
    const std::string title = "CPU utilisation (" + std::to_string(g.cpuCount()) + " CPUs)";
    Cairo::TextExtents ext;
    cr->get_text_extents(title, ext);
    cr->set_source_rgba(1, 1, 1, 0.85);
    cr->rectangle(2, 1, ext.x_advance + 6, 12);
    cr->fill();
    cr->set_source_rgb(0.2, 0.2, 0.2);
    cr->move_to(5, 10);
    cr->show_text(title);
}

// ----------------------------------------------------------- counter strips

namespace {

// A strip's title and how its values read.
std::string counterTitle(unsigned var) {
    switch (var) {
    case LTT_VAR_FREEMEM:
        return "Free memory";
    case LTT_VAR_TOTALMEM:
        return "Total memory";
    case LTT_VAR_PGFAULT:
        return "Page faults";
    case LTT_VAR_PGPGIN:
        return "Paged in";
    case LTT_VAR_PGPGOUT:
        return "Paged out";
    case LTT_VAR_PSWPIN:
        return "Swapped in";
    case LTT_VAR_PSWPOUT:
        return "Swapped out";
    case LTT_VAR_LOADAVG:
        return "Load average";
    default:
        return std::string(ltt::varName(var));
    }
}

// "1000 pages", "1.50", "120/s KiB" ...: a value of `var` as the strips show it
// (`rate`: per second, for a counter).
std::string counterValue(unsigned var, double v) {
    char buf[64];
    switch (var) {
    case LTT_VAR_FREEMEM:
    case LTT_VAR_TOTALMEM:
        std::snprintf(buf, sizeof buf, "%.0f pages", v);
        break;
    case LTT_VAR_LOADAVG:
        std::snprintf(buf, sizeof buf, "%.2f", v / double(1u << LTT_VAR_FSHIFT));
        break;
    case LTT_VAR_PGPGIN:
    case LTT_VAR_PGPGOUT:
        std::snprintf(buf, sizeof buf, "%.0f KiB/s", v);
        break;
    case LTT_VAR_PGFAULT:
        std::snprintf(buf, sizeof buf, "%.0f/s", v);
        break;
    default:
        std::snprintf(buf, sizeof buf, "%.0f pages/s", v);
        break;
    }
    return buf;
}

// What a strip shows over [t0, t1): a system-wide value's smallest, largest
// and last value; a counter's rate per second over the interval (all three).
struct CounterColumn {
    double lo = 0, hi = 0, last = 0;
};
CounterColumn counterColumn(const ltt::VarSeries& s, std::uint64_t t0, std::uint64_t t1) {
    t1 = std::max(t1, t0 + 1);
    if (s.counter) {
        const double rate =
            double(s.valueAt(t1 - 1) - s.valueAt(t0 == 0 ? 0 : t0 - 1)) * 1e9 / double(t1 - t0);
        return {rate, rate, rate};
    }
    const auto [lo, hi] = s.range(t0, t1);
    return {double(lo), double(hi), double(s.valueAt(t1 - 1))};
}

} // namespace

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
    const std::uint64_t t0 = ltt::EventGraph::columnStart(begin_m, end_m, unsigned(gw), col);
    const std::uint64_t t1 = ltt::EventGraph::columnStart(begin_m, end_m, unsigned(gw), col + 1);
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
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
    cr->set_line_width(1);
    cr->set_source_rgb(0.6, 0.6, 0.6);
    cr->move_to(kLabelWidth - 0.5, 0);
    cr->line_to(kLabelWidth - 0.5, height);
    cr->stroke();
    std::vector<CounterColumn> cols(static_cast<std::size_t>(gw));
    const auto& series = doc_m->varSeries();
    for (std::size_t i = 0; i < series.size(); ++i) {
        const ltt::VarSeries& s = series[i];
        const double top = double(i) * kCounterRowHeight;
        if (top + kCounterRowHeight > height + 1)
            break;
        for (int x = 0; x < gw; ++x)
            cols[std::size_t(x)] = counterColumn(
                s, ltt::EventGraph::columnStart(begin_m, end_m, unsigned(gw), unsigned(x)),
                ltt::EventGraph::columnStart(begin_m, end_m, unsigned(gw), unsigned(x) + 1));
        // Values are scaled to the whole trace's range (the strip keeps its
        // scale while zooming); rates from 0 to the largest in view.
        double floor = 0, scale = 0;
        if (s.counter) {
            for (const auto& c : cols)
                scale = std::max(scale, c.hi);
        } else {
            floor = double(*std::min_element(s.blockMin.begin(), s.blockMin.end()));
            scale = double(*std::max_element(s.blockMax.begin(), s.blockMax.end()));
        }
        cr->set_source_rgb(0.6, 0.6, 0.6);
        cr->move_to(0, top + 0.5);
        cr->line_to(width, top + 0.5);
        cr->stroke();
        cr->set_source_rgb(0.1, 0.1, 0.1);
        cr->set_font_size(11);
        cr->move_to(6, top + 13);
        cr->show_text(counterTitle(s.var) + (s.counter ? " (rate)" : ""));
        cr->set_font_size(9);
        cr->move_to(6, top + 25);
        cr->show_text(s.counter || floor == scale
                          ? "max " + counterValue(s.var, scale)
                          : counterValue(s.var, floor) + " – " + counterValue(s.var, scale));
        const double y0 = top + kCounterRowHeight - 3, span = kCounterRowHeight - 7;
        // A constant value is drawn at mid-height, a rate of zero at the bottom.
        const double flat = s.counter ? y0 : y0 - span / 2;
        auto yOf = [&](double v) {
            return scale > floor ? y0 - (v - floor) / (scale - floor) * span : flat;
        };
        cr->set_source_rgb(0.12, 0.47, 0.71);
        for (int x = 0; x < gw; ++x) {
            const auto& c = cols[std::size_t(x)];
            const double px = kLabelWidth + x;
            if (x == 0)
                cr->move_to(px, yOf(c.lo));
            cr->line_to(px, yOf(c.lo));
            cr->line_to(px, yOf(c.hi));
            cr->line_to(px, yOf(c.last));
            cr->line_to(px + 1, yOf(c.last));
        }
        cr->stroke();
    }
}

} // namespace traceview
