// Event Graph tab: see event_graph_view.hpp.
#include "event_graph_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

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
    append(graphRow_m);
    append(hscroll_m);

    overview_m.set_content_height(44);
    overview_m.set_draw_func(sigc::mem_fun(*this, &EventGraphView::drawOverview));
    overview_m.set_tooltip_text("Overview of the whole trace: click or drag to move the view");
    append(overview_m);
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
}

void EventGraphView::setDocument(const TraceDocument* doc) {
    doc_m = doc;
    selected_m.reset();
    selectedTime_m.reset();
    selectedRow_m.reset();
    highlightRow_m.reset();
    firstRow_m = 0;
    densityWidth_m = -1;
    bins_m.clear();
    if (doc_m)
        zoomToFit();
    else
        area_m.queue_draw();
    overview_m.queue_draw();
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

std::size_t EventGraphView::rowOfEvent(const EventLine& line) const {
    const auto& g = doc_m->graph();
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
    return doc_m->graph().nearestEvent(*row, xToTime(x - kLabelWidth), 4 * nsPerPx);
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
    auto hit = hitAt(x, y);
    if (!hit || !doc_m->ready()) // selecting needs the random-access index
        return;
    selectEvent(hit->index);
    selectedSignal_m.emit(hit->index);
}

std::optional<std::string> EventGraphView::tooltipAt(double x, double y) const {
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

    // Bin every visible row once.
    g.binRows(visible, begin_m, end_m, columns, bins_m);

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

    // Event markers, one per column at most, grouped by colour.
    std::array<std::vector<std::pair<double, double>>, ltt::kGraphEventKinds> marks;
    for (std::size_t r : visible) {
        const auto& b = bins_m[r];
        double y = *yOfRow(r);
        double lastX = -10;
        for (unsigned c = 0; c < columns; ++c) {
            if (b.firstEvent[c] < 0 || c - lastX < 5)
                continue;
            lastX = c;
            marks[static_cast<std::size_t>(b.firstKind[c])].emplace_back(kLabelWidth + c, y);
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

    // Zoomed in far enough, label isolated events like LTT's graph did
    // ("SYSCALL : newstat"): the description's first field, where the next
    // marker of the row leaves room for it.
    if (doc_m->ready() && lastMarkers_m <= 400) {
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
                if (b.firstEvent[c] < 0 || b.eventCount[c] != 1)
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

    paintedSignal_m.emit(std::chrono::steady_clock::now() - t0);
}

void EventGraphView::drawOverview(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    cr->set_source_rgb(0.93, 0.93, 0.95);
    cr->paint();
    if (!doc_m || width <= 0)
        return;
    const auto& g = doc_m->graph();
    // The whole trace in whole summary bins per pixel (a little room may be
    // left at the right end): the density needs no pass over the trace.
    const auto [lo, hi] =
        g.alignedView(g.startNs(), std::max(g.endNs(), g.startNs() + 1), unsigned(width), true);
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
        cr->rectangle(x, 7, 8, 8);
        cr->fill();
        cr->set_source_rgb(0.1, 0.1, 0.1);
        cr->move_to(x + 11, 16);
        std::string name(ltt::graphEventKindName(kind));
        cr->show_text(name);
        Cairo::TextExtents ext;
        cr->get_text_extents(name, ext);
        x += 20 + ext.x_advance;
    }
}

} // namespace traceview
