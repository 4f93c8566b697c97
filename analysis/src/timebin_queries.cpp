// EventGraph's queries: rows, columns, density, hit testing, control at an
// instant, aligned views and memory.
#include "timebin_control.hpp"

#include <cmath>
#include <limits>

namespace ltt {

using timebin::kIdlePid;
using timebin::markerRow;
using timebin::NullSink;

std::optional<std::size_t> EventGraph::rowOfPid(std::int32_t pid) const {
    if (pid == kIdlePid)
        return idleRow();
    if (const std::uint32_t row = pidRows_m.find(pid))
        return row - 1;
    return std::nullopt;
}

std::uint64_t EventGraph::columnStart(std::uint64_t begin, std::uint64_t end, unsigned columns,
                                      unsigned c) {
    if (columns == 0 || end <= begin)
        return begin;
    const unsigned __int128 span = end - begin;
    return begin + static_cast<std::uint64_t>(span * c / columns);
}

std::size_t EventGraph::binOf(std::uint64_t timeNs) const {
    const std::size_t nb = binCount();
    if (timeNs < start_m)
        return 0;
    const std::uint64_t b = (timeNs - start_m) / width_m;
    return b < nb ? std::size_t(b) : nb;
}

void EventGraph::bin(std::size_t row, std::uint64_t begin, std::uint64_t end, unsigned columns,
                     RowBins& out) const {
    std::vector<std::int32_t> slotOf(rows_m.size(), -1);
    slotOf.at(row) = 0;
    GraphSweep::columns(*this, begin, end, columns, slotOf, {&out}, true);
}

void EventGraph::binRows(const std::vector<std::size_t>& rows, std::uint64_t begin,
                         std::uint64_t end, unsigned columns, std::vector<RowBins>& out) const {
    out.resize(rows_m.size());
    std::vector<std::int32_t> slotOf(rows_m.size(), -1);
    std::vector<RowBins*> outs;
    for (std::size_t r : rows) {
        if (slotOf.at(r) >= 0)
            continue;
        slotOf[r] = std::int32_t(outs.size());
        outs.push_back(&out[r]);
    }
    GraphSweep::columns(*this, begin, end, columns, slotOf, outs, true);
}

std::vector<std::uint32_t> EventGraph::density(std::uint64_t begin, std::uint64_t end,
                                               unsigned columns) const {
    RowBins all;
    std::vector<std::int32_t> slotOf(rows_m.size(), 0);
    GraphSweep::columns(*this, begin, end, columns, slotOf, {&all}, false);
    return std::move(all.eventCount);
}

std::optional<GraphHit> EventGraph::nearestEvent(std::size_t row, std::uint64_t timeNs,
                                                 std::uint64_t maxDistNs) const {
    if (row >= rows_m.size() || rowMarkers_m[row] == 0)
        return std::nullopt;
    // The last marker before timeNs (the first of its instant) and the first
    // at or after it, within maxDistNs.
    const std::uint64_t lo = timeNs > maxDistNs ? timeNs - maxDistNs : 0;
    const std::uint64_t hi =
        timeNs + std::min(maxDistNs, std::numeric_limits<std::uint64_t>::max() - timeNs - 1) + 1;
    std::optional<GraphHit> before, after;
    GraphSweep s(*this);
    s.seek(binOf(lo));
    while (const GraphEventInput* ev = s.take(hi)) {
        if (ev->timeNs < lo)
            continue;
        auto kind = graphEventKindOf(ev->event, ev->subtype);
        if (!kind || markerRow(*kind, s.rowOf(ev->pid)) != row)
            continue;
        if (ev->timeNs >= timeNs) {
            after = GraphHit{ev->index, ev->timeNs, *kind};
            break;
        }
        if (!before || before->timeNs != ev->timeNs)
            before = GraphHit{ev->index, ev->timeNs, *kind};
    }
    std::optional<GraphHit> best;
    std::uint64_t bestDist = maxDistNs + 1;
    if (after && after->timeNs - timeNs < bestDist) {
        bestDist = after->timeNs - timeNs;
        best = after;
    }
    if (before && timeNs - before->timeNs < bestDist)
        best = before;
    return best;
}

bool EventGraph::hasControl(std::size_t row, std::uint64_t timeNs) const {
    if (row >= rows_m.size() || rows_m.empty())
        return false;
    GraphSweep s(*this);
    s.seek(binOf(timeNs));
    NullSink none;
    const std::uint64_t limit =
        timeNs == std::numeric_limits<std::uint64_t>::max() ? timeNs : timeNs + 1;
    while (const GraphEventInput* ev = s.take(limit))
        s.apply(*ev, none);
    return s.ctl.inControl[row] > 0;
}

std::pair<std::uint64_t, std::uint64_t> EventGraph::alignedView(std::uint64_t begin,
                                                                std::uint64_t end, unsigned columns,
                                                                bool cover) const {
    if (columns == 0 || end <= begin || binCount() == 0)
        return {begin, end};
    const std::uint64_t w = width_m;
    const double perColumn = double(end - begin) / double(columns);
    if (perColumn < double(w))
        return {begin, end};
    std::uint64_t m = cover ? std::uint64_t(std::ceil(perColumn / double(w)))
                            : std::uint64_t(std::llround(perColumn / double(w)));
    m = std::max<std::uint64_t>(m, 1);
    if (begin < start_m)
        begin = start_m;
    begin = start_m + (begin - start_m) / w * w;
    // Snapping begin down to its bin lengthens the range by up to w - 1:
    // covering it may take one more bin per column.
    while (cover && end > begin && m * w * columns < end - begin)
        ++m;
    return {begin, begin + m * w * columns};
}

std::size_t EventGraph::memoryBytes() const {
    auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return bytes(rows_m) + pidRows_m.memoryBytes() + bytes(rowMarkers_m) + bytes(lost_m) +
           bytes(entries_m) + bytes(binEntry_m) + bytes(binIndex_m) + bytes(ckCpu_m) +
           bytes(ckCpuAt_m) + bytes(ckSaved_m) + bytes(ckSavedAt_m);
}

} // namespace ltt
