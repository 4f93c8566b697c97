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
                                                 std::uint64_t maxDistNs,
                                                 std::uint16_t kinds) const {
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
        if (!kind || !(kinds & (1u << unsigned(*kind))) ||
            markerRow(*kind, s.rowOf(ev->pid)) != row)
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

std::size_t EventGraph::cpuCount() const {
    // The last checkpoint holds every CPU seen.
    const std::size_t n = ckCpuAt_m.size();
    return n >= 2 ? ckCpuAt_m[n - 1] - ckCpuAt_m[n - 2] : 0;
}

void EventGraph::cpuTasks(std::uint64_t begin, std::uint64_t end, unsigned columns,
                          std::vector<std::vector<std::int32_t>>& out) const {
    std::size_t ncpu = cpuCount();
    out.assign(ncpu, std::vector<std::int32_t>(columns, -1));
    if (columns == 0 || end <= begin || ckCpuAt_m.size() < 2)
        return;
    std::vector<std::int32_t> pid(ncpu, -1);
    auto load = [&](std::size_t b) {
        std::fill(pid.begin(), pid.end(), -1);
        for (std::uint32_t i = ckCpuAt_m[b]; i < ckCpuAt_m[b + 1]; ++i) {
            const CpuCheckpoint& c = ckCpu_m[i];
            if (c.known)
                pid[i - ckCpuAt_m[b]] = c.pid;
        }
    };
    // The CPU rule of the control step (timebin_control.hpp): a CPU whose
    // state is unknown (first record, lost events) takes the record's task;
    // a SCHEDCHANGE hands it to the incoming one.
    auto apply = [&](const GraphEventInput& ev) {
        if (timebin::isStructure(ev.event) || ev.cpu >= LTT_MAX_CPUS)
            return; // (LTT_MAX_CPUS and up: a user stream's record)
        if (ev.cpu >= ncpu) {
            ncpu = ev.cpu + 1u;
            pid.resize(ncpu, -1);
            out.resize(ncpu, std::vector<std::int32_t>(columns, -1));
        }
        if (pid[ev.cpu] < 0 || ev.event == LTT_EV_LOST)
            pid[ev.cpu] = ev.pid;
        if (ev.event == LTT_EV_SCHEDCHANGE)
            pid[ev.cpu] = ev.schedIn;
    };
    std::unique_ptr<GraphEventSource::Walk> walk;
    GraphEventInput pending;
    bool has = false, done = true;
    std::uint64_t reread = 0;
    auto peek = [&] {
        if (!has && !done) {
            has = walk->next(pending);
            done = !has;
            reread += has;
        }
        return has;
    };
    for (unsigned c = 0; c < columns; ++c) {
        const std::uint64_t t = columnStart(begin, end, columns, c);
        const std::size_t b = binOf(t);
        const std::uint64_t bStart = start_m + std::uint64_t(b) * width_m;
        // Go on with the walk if it has passed bin b's start; otherwise
        // restart from b's checkpoint (the state before its first event).
        const bool goOn = walk && (!peek() || pending.timeNs >= bStart);
        if (!goOn) {
            load(b);
            walk.reset();
            has = false;
            done = true;
            if (t > bStart && b < binCount() && source_m) {
                walk = source_m->walkFrom(binIndex_m[b]);
                done = false;
            }
        }
        while (walk && peek() && pending.timeNs < t) {
            apply(pending);
            has = false;
        }
        for (std::size_t k = 0; k < ncpu; ++k)
            out[k][c] = pid[k];
    }
    reread_m->fetch_add(reread, std::memory_order_relaxed);
}

std::int32_t EventGraph::taskAt(std::uint16_t cpu, std::uint64_t timeNs) const {
    std::vector<std::vector<std::int32_t>> out;
    const std::uint64_t t =
        timeNs == std::numeric_limits<std::uint64_t>::max() ? timeNs : timeNs + 1;
    cpuTasks(t, t + 1, 1, out);
    return cpu < out.size() ? out[cpu][0] : -1;
}

std::vector<std::uint64_t> EventGraph::busyNs(std::uint64_t begin, std::uint64_t end,
                                              unsigned columns) const {
    std::vector<std::uint64_t> out(columns, 0);
    if (columns == 0 || end <= begin || busy_m.empty())
        return out;
    const std::uint64_t w = width_m;
    for (unsigned c = 0; c < columns; ++c) {
        const std::uint64_t lo = std::max(columnStart(begin, end, columns, c), start_m);
        const std::uint64_t hi = c + 1 == columns ? end : columnStart(begin, end, columns, c + 1);
        double sum = 0;
        for (std::size_t b = binOf(lo); b < busy_m.size(); ++b) {
            const std::uint64_t b0 = start_m + b * w, b1 = b0 + w;
            if (b0 >= hi)
                break;
            const std::uint64_t overlap = std::min(hi, b1) - std::max(lo, b0);
            sum +=
                overlap == w ? double(busy_m[b]) : double(busy_m[b]) * double(overlap) / double(w);
        }
        out[c] = std::uint64_t(std::llround(sum));
    }
    return out;
}

std::uint64_t EventGraph::rereadEstimate(std::uint64_t begin, std::uint64_t end,
                                         unsigned columns) const {
    const std::size_t nb = binCount();
    if (columns == 0 || end <= begin || nb == 0 || !source_m)
        return 0;
    const std::uint64_t w = width_m;
    if (begin >= start_m && (begin - start_m) % w == 0 &&
        (end - begin) % (std::uint64_t(columns) * w) == 0)
        return 0; // whole bins per column: the summary answers
    const std::size_t b0 = binOf(begin);
    const std::size_t b1 = std::min(nb, binOf(end == 0 ? 0 : end - 1) + 1);
    return b1 > b0 ? binIndex_m[b1] - binIndex_m[b0] : 0;
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
           bytes(ckCpuAt_m) + bytes(ckSaved_m) + bytes(ckSavedAt_m) + bytes(busy_m);
}

} // namespace ltt
