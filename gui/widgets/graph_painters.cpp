// The Event Graph tab's painters: see graph_painters.hpp.
#include "graph_painters.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace traceview {

using ltt::GraphEventKind;
using ltt::RowBins;
constexpr int kLabelWidth = GraphViewport::kLabelWidth;
constexpr int kAxisHeight = GraphViewport::kAxisHeight;
constexpr int kRowHeight = GraphViewport::kRowHeight;
constexpr int kCpuRowHeight = GraphViewport::kCpuRowHeight;
constexpr int kCounterRowHeight = GraphViewport::kCounterRowHeight;

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

void sansFont(const Cairo::RefPtr<Cairo::Context>& cr) {
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
}

} // namespace

// ------------------------------------------------------------- graph area

void paintNoTrace(const Cairo::RefPtr<Cairo::Context>& cr) {
    cr->set_source_rgb(0.4, 0.4, 0.4);
    cr->move_to(20, 40);
    cr->show_text("No trace open: File → Open, or traceview TRACE PROC");
}

void paintRowLabels(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                    std::optional<std::size_t> selectedRow,
                    std::optional<std::size_t> highlightRow) {
    sansFont(cr);
    cr->set_font_size(11);
    for (std::size_t i = 0; i < s.visible.size(); ++i) {
        std::size_t r = s.visible[i];
        double yc = *s.view.yOfRow(r, s.height);
        double top = yc - kRowHeight / 2.0;
        if (i % 2 == 1) {
            cr->set_source_rgb(0.96, 0.96, 0.98);
            cr->rectangle(0, top, s.width, kRowHeight);
            cr->fill();
        }
        if (r == selectedRow || r == highlightRow) {
            cr->set_source_rgb(0.85, 0.90, 1.0);
            cr->rectangle(0, top, kLabelWidth, kRowHeight);
            cr->fill();
        }
        cr->set_source_rgb(0.1, 0.1, 0.1);
        cr->move_to(6, yc + 4);
        std::string label = s.doc.rowLabel(r);
        if (label.size() > 26)
            label = label.substr(0, 25) + "…";
        cr->show_text(label);
    }
    cr->set_source_rgb(0.6, 0.6, 0.6);
    cr->set_line_width(1);
    cr->move_to(kLabelWidth - 0.5, 0);
    cr->line_to(kLabelWidth - 0.5, s.height);
    cr->move_to(0, kAxisHeight + 2 * kRowHeight + 0.5);
    cr->line_to(s.width, kAxisHeight + 2 * kRowHeight + 0.5);
    cr->stroke();
}

void paintTimeAxis(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s) {
    const std::uint64_t begin = s.view.begin(), end = s.view.end();
    const double span = double(end - begin);
    const std::uint64_t step = niceStep(span / (s.graphWidth / 110.0));
    cr->set_font_size(10);
    for (std::uint64_t t = (begin / step) * step; t <= end; t += step) {
        if (t < begin)
            continue;
        double x = kLabelWidth + s.view.timeToX(t, s.graphWidth);
        cr->set_source_rgb(0.88, 0.88, 0.88);
        cr->move_to(std::floor(x) + 0.5, kAxisHeight);
        cr->line_to(std::floor(x) + 0.5, s.height);
        cr->stroke();
        cr->set_source_rgb(0.2, 0.2, 0.2);
        cr->move_to(x + 2, kAxisHeight - 8);
        cr->show_text(tickLabel(t, step));
    }
}

void paintControl(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                  GraphPaintStats& out) {
    const auto columns = unsigned(s.graphWidth);
    // Vertical lines: in each column, join the rows control moved between.
    cr->set_source_rgb(0.25, 0.25, 0.25);
    cr->set_line_width(1);
    for (unsigned c = 0; c < columns; ++c) {
        double ymin = 1e9, ymax = -1;
        for (std::size_t r : s.visible) {
            if (s.bins[r].control[c] & RowBins::kControlChanges) {
                double y = *s.view.yOfRow(r, s.height);
                ymin = std::min(ymin, y);
                ymax = std::max(ymax, y);
            }
        }
        if (ymax > ymin) {
            double x = kLabelWidth + c + 0.5;
            cr->move_to(x, ymin);
            cr->line_to(x, ymax);
            ++out.transitions;
        }
    }
    cr->stroke();

    // Horizontal lines: where each row holds control.
    const auto& g = s.doc.graph();
    cr->set_line_width(3);
    for (std::size_t r : s.visible) {
        const auto& b = s.bins[r];
        double y = *s.view.yOfRow(r, s.height);
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
}

void paintMarkers(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                  GraphPaintStats& out) {
    const auto columns = unsigned(s.graphWidth);
    // One per column at most, grouped by colour: the first marker's kind,
    // or when that kind is hidden the first shown kind the column holds; a
    // column holding only hidden kinds draws none.
    std::array<std::vector<std::pair<double, double>>, ltt::kGraphEventKinds> marks;
    const auto shown = std::uint16_t(~s.hiddenKinds);
    for (std::size_t r : s.visible) {
        const auto& b = s.bins[r];
        double y = *s.view.yOfRow(r, s.height);
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
        out.markers += marks[k].size();
    }
    for (std::size_t k = 0; k < marks.size(); ++k)
        out.byKind[k] = marks[k].size();
}

void paintEventLabels(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                      GraphPaintStats& out) {
    // Like LTT's graph ("SYSCALL : newstat"): the description's first
    // field, where the next marker of the row leaves room for it.
    constexpr double kRoom = 90;
    const auto columns = unsigned(s.graphWidth);
    const auto& g = s.doc.graph();
    cr->set_font_size(9);
    cr->set_source_rgb(0.25, 0.25, 0.25);
    for (std::size_t r : s.visible) {
        // The kernel row's labels would sit on the axis or the idle row.
        if (r == g.kernelRow())
            continue;
        const auto& b = s.bins[r];
        double y = *s.view.yOfRow(r, s.height);
        for (unsigned c = 0; c < columns; ++c) {
            if (b.firstEvent[c] < 0 || b.eventCount[c] != 1 || !s.kindShown(b.firstKind[c]))
                continue;
            unsigned n = c + 1;
            while (n < columns && b.firstEvent[n] < 0 && n - c < kRoom)
                ++n;
            if (n - c < kRoom)
                continue;
            EventLine line = s.doc.event(std::uint64_t(b.firstEvent[c]));
            std::string text = line.description.substr(0, line.description.find(';'));
            if (text.empty())
                text = line.event;
            if (text.size() > 18)
                text = text.substr(0, 17) + "…";
            cr->move_to(kLabelWidth + c + 4, y - 9);
            cr->show_text(text);
            ++out.labels;
        }
    }
}

void paintUserMarks(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                    GraphPaintStats& out) {
    out.userMarks.clear();
    out.userLabels = 0;
    const auto& um = s.doc.userMarks();
    if (um.empty())
        return;
    const auto& g = s.doc.graph();
    const std::uint64_t begin = s.view.begin(), end = s.view.end();
    std::unordered_map<std::size_t, double> lastX; // by row
    std::vector<const UserMark*> drawn;
    auto it = std::lower_bound(um.begin(), um.end(), begin,
                               [](const UserMark& m, std::uint64_t t) { return m.timeNs < t; });
    cr->set_source_rgb(kUserColour[0], kUserColour[1], kUserColour[2]);
    for (; it != um.end() && it->timeNs < end; ++it) {
        const auto row = graphRowOfUserMark(g, *it);
        const auto y = row ? s.view.yOfRow(*row, s.height) : std::nullopt;
        if (!y)
            continue;
        const double x = kLabelWidth + s.view.timeToX(it->timeNs, s.graphWidth);
        auto [last, fresh] = lastX.try_emplace(*row, x);
        if (!fresh && x - last->second < 1)
            continue;
        last->second = x;
        cr->move_to(x, *y - 5);
        cr->line_to(x + 5, *y);
        cr->line_to(x, *y + 5);
        cr->line_to(x - 5, *y);
        cr->close_path();
        out.userMarks.push_back({it->index, x, *y});
        drawn.push_back(&*it);
    }
    cr->fill();
    if (out.userMarks.size() > 400)
        return;
    cr->set_font_size(9);
    std::unordered_map<double, double> labelEnd; // by row's y
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        const auto& at = out.userMarks[i];
        const std::string& name = drawn[i]->name;
        Cairo::TextExtents ext;
        cr->get_text_extents(name, ext);
        auto [endX, fresh] = labelEnd.try_emplace(at.y, -1e9);
        if (at.x + 6 < endX->second + 4)
            continue;
        cr->move_to(at.x + 6, at.y + 9);
        cr->show_text(name);
        endX->second = at.x + 6 + ext.x_advance;
        ++out.userLabels;
    }
}

void paintLost(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s) {
    cr->set_source_rgb(1, 0, 0);
    cr->set_line_width(1.5);
    std::vector<double> dash{4, 3};
    cr->set_dash(dash, 0);
    for (const auto& lost : s.doc.graph().lost()) {
        if (lost.timeNs < s.view.begin() || lost.timeNs >= s.view.end())
            continue;
        double x = kLabelWidth + s.view.timeToX(lost.timeNs, s.graphWidth);
        cr->move_to(x, kAxisHeight);
        cr->line_to(x, s.height);
        cr->stroke();
        cr->move_to(x + 3, kAxisHeight + 10);
        cr->show_text("lost " + std::to_string(lost.count) + " (CPU " + std::to_string(lost.cpu) +
                      ")");
    }
    cr->unset_dash();
}

void paintSelection(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                    std::optional<std::uint64_t> selectedTime,
                    std::optional<std::size_t> selectedRow) {
    if (!selectedTime || *selectedTime < s.view.begin() || *selectedTime >= s.view.end())
        return;
    double x = kLabelWidth + s.view.timeToX(*selectedTime, s.graphWidth);
    cr->set_source_rgba(0.1, 0.3, 0.9, 0.8);
    cr->set_line_width(1);
    cr->move_to(std::floor(x) + 0.5, kAxisHeight);
    cr->line_to(std::floor(x) + 0.5, s.height);
    cr->stroke();
    if (selectedRow) {
        if (auto y = s.view.yOfRow(*selectedRow, s.height)) {
            cr->arc(x, *y, 6, 0, 2 * M_PI);
            cr->set_line_width(2);
            cr->stroke();
        }
    }
}

std::size_t paintCriticalPath(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s,
                              const ltt::CriticalPath& path) {
    std::size_t drawn = 0;
    const auto& g = s.doc.graph();
    const std::uint64_t vb = s.view.begin(), ve = s.view.end();
    std::optional<double> lastY;
    std::int32_t lastPid = -1;
    for (const ltt::CriticalSegment& seg : path.segments()) {
        std::optional<double> y;
        if (auto row = g.rowOfPid(seg.pid))
            y = s.view.yOfRow(*row, s.height);
        // Where the path moves to another task: a dashed line at the time
        // of the move between the two rows.
        if (y && lastY && seg.pid != lastPid && seg.startNs >= vb && seg.startNs < ve) {
            const double x = kLabelWidth + s.view.timeToX(seg.startNs, s.graphWidth);
            cr->set_source_rgba(0.1, 0.1, 0.1, 0.7);
            cr->set_line_width(1);
            const std::vector<double> dash{3.0, 2.0};
            cr->set_dash(dash, 0);
            cr->move_to(std::floor(x) + 0.5, *lastY);
            cr->line_to(std::floor(x) + 0.5, *y);
            cr->stroke();
            cr->unset_dash();
        }
        lastY = y;
        lastPid = seg.pid;
        if (!y || seg.endNs <= vb || seg.startNs >= ve)
            continue;
        const double x0 = kLabelWidth + s.view.timeToX(std::max(seg.startNs, vb), s.graphWidth);
        const double x1 = kLabelWidth + s.view.timeToX(std::min(seg.endNs, ve), s.graphWidth);
        double r, gr, b;
        criticalColour(seg.kind, r, gr, b);
        cr->set_source_rgba(r, gr, b, 0.6);
        cr->rectangle(x0, *y - 4, std::max(1.0, x1 - x0), 8);
        cr->fill();
        ++drawn;
    }
    // The legend.
    static const ltt::CriticalKind kKinds[] = {
        ltt::CriticalKind::Running,   ltt::CriticalKind::Runnable, ltt::CriticalKind::Timer,
        ltt::CriticalKind::Interrupt, ltt::CriticalKind::Io,       ltt::CriticalKind::Network,
        ltt::CriticalKind::Blocked};
    static const char* const kNames[] = {
        "running", "waiting for a CPU", "timer", "interrupt", "I/O",
        "network", "blocked / unknown"};
    const std::string title = "Critical path of " + path.name(path.options().pid) + " (" +
                              std::to_string(path.options().pid) + "):";
    cr->set_font_size(10);
    double x = kLabelWidth + 6;
    const double y = s.height - 8;
    Cairo::TextExtents e;
    cr->get_text_extents(title, e);
    cr->set_source_rgba(1, 1, 1, 0.85);
    cr->rectangle(x - 4, y - 11, s.graphWidth - 4, 15);
    cr->fill();
    cr->set_source_rgb(0.1, 0.1, 0.1);
    cr->move_to(x, y);
    cr->show_text(title);
    x += e.x_advance + 8;
    for (std::size_t i = 0; i < std::size(kKinds); ++i) {
        double r, gr, b;
        criticalColour(kKinds[i], r, gr, b);
        cr->set_source_rgba(r, gr, b, 0.8);
        cr->rectangle(x, y - 8, 14, 8);
        cr->fill();
        cr->set_source_rgb(0.1, 0.1, 0.1);
        cr->move_to(x + 18, y);
        cr->show_text(kNames[i]);
        cr->get_text_extents(kNames[i], e);
        x += 18 + e.x_advance + 10;
    }
    return drawn;
}

void paintDragBand(const Cairo::RefPtr<Cairo::Context>& cr, const GraphScene& s, double a,
                   double b) {
    cr->set_source_rgba(0.2, 0.4, 1.0, 0.2);
    cr->rectangle(a, kAxisHeight, b - a, s.height - kAxisHeight);
    cr->fill();
}

void paintRefining(const Cairo::RefPtr<Cairo::Context>& cr, int width) {
    cr->set_source_rgba(0.2, 0.2, 0.2, 0.8);
    cr->set_font_size(10);
    cr->move_to(width - 70, kAxisHeight - 8);
    cr->show_text("refining…");
}

// ------------------------------------------------- overview and utilisation

std::pair<std::uint64_t, std::uint64_t> overviewRange(const ltt::EventGraph& g, int width) {
    return g.alignedView(g.startNs(), std::max(g.endNs(), g.startNs() + 1), unsigned(width), true);
}

void paintOverview(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height,
                   const ltt::EventGraph& g, const std::vector<std::uint32_t>& density,
                   std::uint64_t begin, std::uint64_t end) {
    const auto [lo, hi] = overviewRange(g, width);
    std::uint32_t peak = 1;
    for (auto d : density)
        peak = std::max(peak, d);
    cr->set_source_rgb(0.45, 0.55, 0.70);
    for (int x = 0; x < width; ++x) {
        double h =
            std::log1p(double(density[std::size_t(x)])) / std::log1p(double(peak)) * (height - 4);
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
    double x0 = double(begin - lo) / double(hi - lo) * width;
    double x1 = double(end - lo) / double(hi - lo) * width;
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

void paintUtilisation(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height,
                      const ltt::EventGraph& g, const std::vector<std::uint64_t>& busy) {
    const auto [lo, hi] = overviewRange(g, width);
    const double cpus = double(std::max<std::size_t>(1, g.cpuCount()));
    cr->set_source_rgb(0.20, 0.60, 0.30);
    for (int x = 0; x < width; ++x) {
        const double colNs = double(ltt::EventGraph::columnStart(lo, hi, unsigned(width), x + 1) -
                                    ltt::EventGraph::columnStart(lo, hi, unsigned(width), x));
        const double f = std::clamp(double(busy[std::size_t(x)]) / (colNs * cpus), 0.0, 1.0);
        if (f > 0)
            cr->rectangle(x, height - 1 - f * (height - 2), 1, f * (height - 2));
    }
    cr->fill();
    sansFont(cr);
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

// ------------------------------------------------------------------ legend

void paintLegend(const Cairo::RefPtr<Cairo::Context>& cr, int width, std::uint16_t hiddenKinds,
                 bool hasUserMarks, bool userVisible) {
    cr->set_source_rgb(1, 1, 1);
    cr->paint();
    sansFont(cr);
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
        const bool on = !(hiddenKinds & (1u << unsigned(kind)));
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
    if (hasUserMarks && x < width) {
        cr->set_source_rgb(kUserColour[0], kUserColour[1], kUserColour[2]);
        cr->move_to(x + 4, 6.5);
        cr->line_to(x + 8.5, 11);
        cr->line_to(x + 4, 15.5);
        cr->line_to(x - 0.5, 11);
        cr->close_path();
        if (userVisible) {
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

// ---------------------------------------------------------------- CPU view

std::size_t paintCpus(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height,
                      const TraceDocument& doc, const GraphViewport& view, int gw,
                      const std::vector<std::vector<std::int32_t>>& cpuCols,
                      std::optional<std::uint64_t> selectedTime) {
    std::size_t labels = 0;
    sansFont(cr);
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
    for (std::size_t cpu = 0; cpu < cpuCols.size(); ++cpu) {
        const double y = top + double(cpu) * kCpuRowHeight;
        if (y + kCpuRowHeight > height + 1)
            break;
        cr->move_to(6, y + kCpuRowHeight - 5);
        cr->show_text("CPU " + std::to_string(cpu));
        const auto& col = cpuCols[cpu];
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
        const std::string name = doc.processName(pid) + " " + std::to_string(pid);
        Cairo::TextExtents ext;
        cr->get_text_extents(name, ext);
        if (ext.x_advance + 6 < st.w) {
            cr->move_to(st.x + 3, st.y + kCpuRowHeight - 6);
            cr->show_text(name);
            ++labels;
        }
    }
    // The selection, as in the graph.
    if (selectedTime && *selectedTime >= view.begin() && *selectedTime < view.end()) {
        const double x = kLabelWidth + view.timeToX(*selectedTime, gw);
        cr->set_source_rgba(0.1, 0.3, 0.9, 0.8);
        cr->move_to(std::floor(x) + 0.5, 0);
        cr->line_to(std::floor(x) + 0.5, height);
        cr->stroke();
    }
    return labels;
}

// ----------------------------------------------------------- counter strips

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

void paintCounters(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height,
                   const std::vector<ltt::VarSeries>& series, const GraphViewport& view, int gw) {
    sansFont(cr);
    cr->set_line_width(1);
    cr->set_source_rgb(0.6, 0.6, 0.6);
    cr->move_to(kLabelWidth - 0.5, 0);
    cr->line_to(kLabelWidth - 0.5, height);
    cr->stroke();
    std::vector<CounterColumn> cols(static_cast<std::size_t>(gw));
    for (std::size_t i = 0; i < series.size(); ++i) {
        const ltt::VarSeries& s = series[i];
        const double top = double(i) * kCounterRowHeight;
        if (top + kCounterRowHeight > height + 1)
            break;
        for (int x = 0; x < gw; ++x) {
            const auto [t0, t1] = view.columnTimes(unsigned(x), gw);
            cols[std::size_t(x)] = counterColumn(s, t0, t1);
        }
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
