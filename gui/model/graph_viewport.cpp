// GraphViewport: see graph_viewport.hpp.
#include "graph_viewport.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace traceview {

void GraphViewport::setGraph(const ltt::EventGraph* graph) {
    graph_m = graph;
    firstRow_m = 0;
}

void GraphViewport::setView(std::uint64_t begin, std::uint64_t end, bool cover, int areaWidth) {
    if (!graph_m)
        return;
    const auto& g = *graph_m;
    const std::uint64_t lo = g.startNs(), hi = std::max(g.endNs(), g.startNs() + 1);
    const std::uint64_t whole = hi - lo;
    std::uint64_t span = std::clamp<std::uint64_t>(end > begin ? end - begin : 1,
                                                   std::min<std::uint64_t>(kMinSpan, whole), whole);
    if (span == 0)
        span = 1;
    begin = std::clamp(begin, lo, hi - std::min(span, hi - lo));
    begin_m = begin;
    end_m = begin + span;
    wantSpan_m = span;
    // Zoomed out to a summary bin per pixel or more, whole bins per column:
    // the model then draws without re-reading the trace.
    snapCover_m = cover;
    snapWidth_m = areaWidth - kLabelWidth;
    if (snapWidth_m > 0)
        std::tie(begin_m, end_m) = g.alignedView(begin_m, end_m, unsigned(snapWidth_m), cover);
}

void GraphViewport::zoomAt(double factor, double x, int areaWidth) {
    if (!graph_m)
        return;
    const int w = std::max(1, areaWidth - kLabelWidth);
    const double f = std::clamp(x / w, 0.0, 1.0);
    const double span = double(end_m - begin_m);
    const double asked = double(std::max<std::uint64_t>(1, wantSpan_m));
    const double anchor = double(begin_m) + f * span;
    const double nspan = std::max(double(kMinSpan), asked / factor);
    const double nb = std::max(0.0, anchor - f * nspan);
    setView(static_cast<std::uint64_t>(nb), static_cast<std::uint64_t>(nb + nspan), false,
            areaWidth);
}

void GraphViewport::zoom(double factor, int areaWidth) {
    const int w = areaWidth - kLabelWidth;
    zoomAt(factor, w > 0 ? w / 2.0 : 0, areaWidth);
}

void GraphViewport::zoomToFit(int areaWidth) {
    if (!graph_m)
        return;
    setView(graph_m->startNs(), std::max(graph_m->endNs(), graph_m->startNs() + 1), true,
            areaWidth);
}

void GraphViewport::scrollBy(double fraction, int areaWidth) {
    const double span = double(end_m - begin_m);
    const double nb = std::max(0.0, double(begin_m) + fraction * span);
    setView(static_cast<std::uint64_t>(nb), static_cast<std::uint64_t>(nb + span), false,
            areaWidth);
}

void GraphViewport::showTime(std::uint64_t t, int areaWidth) {
    const std::uint64_t span = end_m - begin_m;
    const std::uint64_t b = t > span / 2 ? t - span / 2 : 0;
    setView(b, b + span, false, areaWidth);
}

bool GraphViewport::fitWidth(int graphWidth) {
    if (!graph_m || graphWidth == snapWidth_m || graphWidth <= 0)
        return false;
    snapWidth_m = graphWidth;
    std::tie(begin_m, end_m) =
        graph_m->alignedView(begin_m, end_m, unsigned(graphWidth), snapCover_m);
    return true;
}

void GraphViewport::keepWindow(std::uint64_t begin, std::uint64_t end, int areaWidth) {
    if (!graph_m)
        return;
    const std::uint64_t lo = graph_m->startNs(),
                        hi = std::max(graph_m->endNs(), graph_m->startNs() + 1);
    begin_m = std::clamp(begin, lo, hi - 1);
    end_m = std::max(begin_m + 1, end);
    wantSpan_m = end_m - begin_m;
    snapWidth_m = areaWidth - kLabelWidth;
    snapCover_m = false;
}

bool GraphViewport::showsWholeTrace() const {
    if (!graph_m)
        return true;
    return begin_m <= graph_m->startNs() && end_m >= graph_m->endNs();
}

double GraphViewport::timeToX(std::uint64_t t, int graphWidth) const {
    return (double(t) - double(begin_m)) / double(end_m - begin_m) * graphWidth;
}

std::uint64_t GraphViewport::xToTime(double x, int areaWidth) const {
    const int w = std::max(1, areaWidth - kLabelWidth);
    const double t = double(begin_m) + x / w * double(end_m - begin_m);
    return t <= 0 ? 0 : static_cast<std::uint64_t>(t);
}

std::pair<std::uint64_t, std::uint64_t> GraphViewport::columnTimes(unsigned col,
                                                                   int graphWidth) const {
    const auto w = unsigned(std::max(1, graphWidth));
    return {ltt::EventGraph::columnStart(begin_m, end_m, w, col),
            ltt::EventGraph::columnStart(begin_m, end_m, w, col + 1)};
}

std::uint64_t GraphViewport::nsPerPixel(int areaWidth) const {
    const int w = std::max(1, areaWidth - kLabelWidth);
    return std::max<std::uint64_t>(1, (end_m - begin_m) / std::uint64_t(w));
}

std::size_t GraphViewport::processRows() const {
    const std::size_t n = graph_m ? graph_m->rows().size() : 0;
    return n > 2 ? n - 2 : 0;
}

std::size_t GraphViewport::visibleProcessRows(int areaHeight) const {
    const int h = areaHeight - kAxisHeight - 2 * kRowHeight;
    return h > 0 ? static_cast<std::size_t>(h / kRowHeight) : 0;
}

void GraphViewport::clampFirstRow(int areaHeight) {
    const std::size_t procRows = processRows();
    const std::size_t page = std::max<std::size_t>(1, visibleProcessRows(areaHeight));
    firstRow_m = std::min(firstRow_m, procRows > page ? procRows - page : 0);
}

bool GraphViewport::bringRowIntoView(std::size_t row, std::size_t pageRows) {
    if (row < 2)
        return false;
    const std::size_t p = row - 2;
    if (p >= firstRow_m && p < firstRow_m + pageRows)
        return false;
    firstRow_m = p > pageRows / 2 ? p - pageRows / 2 : 0;
    return true;
}

std::optional<double> GraphViewport::yOfRow(std::size_t row, int areaHeight) const {
    if (row < 2)
        return kAxisHeight + row * kRowHeight + kRowHeight / 2.0;
    const std::size_t p = row - 2;
    if (p < firstRow_m || p >= firstRow_m + visibleProcessRows(areaHeight))
        return std::nullopt;
    return kAxisHeight + (2 + p - firstRow_m) * kRowHeight + kRowHeight / 2.0;
}

std::optional<std::size_t> GraphViewport::rowAtY(double y, int areaHeight) const {
    if (!graph_m || y < kAxisHeight)
        return std::nullopt;
    const auto slot = static_cast<std::size_t>((y - kAxisHeight) / kRowHeight);
    const std::size_t row = slot < 2 ? slot : slot + firstRow_m;
    if (slot >= 2 && slot - 2 >= visibleProcessRows(areaHeight))
        return std::nullopt;
    if (row >= graph_m->rows().size())
        return std::nullopt;
    return row;
}

std::vector<std::size_t> GraphViewport::visibleRows(int areaHeight) const {
    std::vector<std::size_t> out;
    const std::size_t n = graph_m ? graph_m->rows().size() : 0;
    for (std::size_t r = 0; r < n; ++r)
        if (yOfRow(r, areaHeight))
            out.push_back(r);
    return out;
}

std::optional<ltt::GraphHit> GraphViewport::hitAt(double x, double y, int areaWidth, int areaHeight,
                                                  std::uint16_t shownKinds) const {
    if (!graph_m || x < kLabelWidth)
        return std::nullopt;
    const auto row = rowAtY(y, areaHeight);
    if (!row)
        return std::nullopt;
    return graph_m->nearestEvent(*row, xToTime(x - kLabelWidth, areaWidth),
                                 4 * nsPerPixel(areaWidth), shownKinds);
}

std::optional<std::size_t> graphRowOfUserMark(const ltt::EventGraph& g, const UserMark& m) {
    auto row = g.rowOfPid(m.pid);
    return row ? row : g.rowOfPid(std::int32_t(m.tgid));
}

std::size_t graphRowOfEvent(const TraceDocument& doc, const EventLine& line) {
    const auto& g = doc.graph();
    if (line.user) {
        const auto& um = doc.userMarks();
        auto m = std::lower_bound(um.begin(), um.end(), line.index,
                                  [](const UserMark& u, std::uint64_t i) { return u.index < i; });
        if (m != um.end() && m->index == line.index)
            return graphRowOfUserMark(g, *m).value_or(g.kernelRow());
    }
    using ltt::GraphEventKind;
    auto kind = ltt::graphEventKindOf(line.id, line.subtype);
    if (kind && (*kind == GraphEventKind::Irq || *kind == GraphEventKind::KernelTimer ||
                 *kind == GraphEventKind::BottomHalf || *kind == GraphEventKind::Lost))
        return g.kernelRow();
    return g.rowOfPid(line.pid).value_or(g.kernelRow());
}

std::optional<std::uint64_t> nearestUserMark(const std::vector<DrawnUserMark>& drawn, double x,
                                             double y) {
    std::optional<std::uint64_t> best;
    double bestDist = 4.5;
    for (const auto& m : drawn) {
        const double d = std::max(std::abs(m.x - x), std::abs(m.y - y));
        if (d < bestDist) {
            bestDist = d;
            best = m.index;
        }
    }
    return best;
}

} // namespace traceview
