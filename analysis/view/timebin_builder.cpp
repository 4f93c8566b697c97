// EventGraphBuilder: one pass over the events, in time order, filling the
// rows, the bounded summary (widened pairwise when the trace outgrows it) and
// a checkpoint per bin.
#include "timebin_control.hpp"

#include <numeric>

namespace ltt {

using timebin::Control;
using timebin::Cpu;
using timebin::kIdlePid;
using timebin::kIdleRow;

struct EventGraphBuilder::State {
    State() {
        g.ckCpuAt_m = {0};
        g.ckSavedAt_m = {0};
    }
    EventGraph g; // rows in first-seen order until finish()
    Control ctl;
    bool first = true;
    std::uint64_t nextIndex = 0; // index after the last event added
    std::size_t cur = 0;         // the open bin
    // The open bin, per row (touched rows only are non-zero).
    std::vector<std::uint32_t> count;
    std::vector<std::uint64_t> firstIndex;
    std::vector<GraphEventKind> kind;
    std::vector<std::uint8_t> changes;
    std::vector<std::uint16_t> kinds;
    std::vector<std::uint8_t> touched;
    // Per CPU: time of its last record (busy time runs from there).
    std::vector<std::uint64_t> lastNs;
    std::vector<std::uint32_t> touchedRows;

    void addRow(GraphRow r) {
        g.rows_m.push_back(r);
        g.rowMarkers_m.push_back(0);
        ctl.inControl.push_back(0);
        count.push_back(0);
        firstIndex.push_back(0);
        kind.push_back(GraphEventKind::Other);
        changes.push_back(0);
        kinds.push_back(0);
        touched.push_back(0);
    }
    void ensureRows() {
        if (!g.rows_m.empty())
            return;
        addRow({GraphRowKind::Kernel, 0});
        addRow({GraphRowKind::Idle, 0});
    }
    std::uint32_t rowFor(std::int32_t pid) {
        if (pid == kIdlePid)
            return kIdleRow;
        if (const std::uint32_t row = g.pidRows_m.find(pid)) [[likely]]
            return row - 1;
        const auto row = std::uint32_t(g.rows_m.size());
        addRow({GraphRowKind::Process, pid});
        g.pidRows_m.set(pid, row + 1);
        return row;
    }
    void touch(std::uint32_t row) {
        if (!touched[row]) {
            touched[row] = 1;
            touchedRows.push_back(row);
        }
    }
    // Checkpoint for the bin that opens now.
    void checkpoint() {
        for (const Cpu& c : ctl.cpus)
            g.ckCpu_m.push_back({c.row, c.pidRow, c.pid, c.depth, std::uint8_t(c.known)});
        g.ckCpuAt_m.push_back(std::uint32_t(g.ckCpu_m.size()));
        // Depth 1 is what a task never seen leaving resumes at: only the
        // others need saving (and the idle task's is never used).
        for (const auto& [pid, depth] : ctl.savedDepth)
            if (pid != kIdlePid && depth != 1)
                g.ckSaved_m.push_back({pid, depth});
        g.ckSavedAt_m.push_back(std::uint32_t(g.ckSaved_m.size()));
    }
    void openBin(std::uint64_t index) {
        g.binEntry_m.push_back(std::uint32_t(g.entries_m.size()));
        g.binIndex_m.push_back(index);
        g.busy_m.push_back(0);
        checkpoint();
    }
    void closeBin() {
        const std::uint64_t base = g.binIndex_m[cur];
        for (std::uint32_t r : touchedRows) {
            g.entries_m.push_back({r, count[r], count[r] ? std::uint32_t(firstIndex[r] - base) : 0,
                                   kind[r], changes[r], ctl.inControl[r], kinds[r]});
            count[r] = 0;
            changes[r] = 0;
            kinds[r] = 0;
            touched[r] = 0;
        }
        touchedRows.clear();
    }
    // The trace outgrew the bins: double their width, merging them pairwise.
    void widen() {
        auto& e = g.entries_m;
        std::vector<EventGraph::Entry> merged;
        merged.reserve(e.size());
        std::vector<std::uint32_t> binEntry{0};
        std::vector<std::int32_t> slot(g.rows_m.size(), -1);
        const std::size_t closedPairs = cur / 2;
        for (std::size_t k = 0; k < closedPairs; ++k) {
            const std::size_t first = merged.size();
            for (std::size_t half = 0; half < 2; ++half) {
                const std::size_t b = 2 * k + half;
                const std::uint64_t shift = g.binIndex_m[b] - g.binIndex_m[2 * k];
                for (std::uint32_t i = g.binEntry_m[b]; i < g.binEntry_m[b + 1]; ++i) {
                    EventGraph::Entry x = e[i];
                    x.firstOff += std::uint32_t(shift);
                    if (slot[x.row] < 0) {
                        slot[x.row] = std::int32_t(merged.size());
                        merged.push_back(x);
                        continue;
                    }
                    EventGraph::Entry& m = merged[std::size_t(slot[x.row])];
                    if (m.count == 0 && x.count) {
                        m.firstOff = x.firstOff;
                        m.kind = x.kind;
                    }
                    m.count += x.count;
                    m.changes |= x.changes;
                    m.kinds |= x.kinds;
                    m.endCount = x.endCount;
                }
            }
            for (std::size_t i = first; i < merged.size(); ++i)
                slot[merged[i].row] = -1;
            std::sort(merged.begin() + std::ptrdiff_t(first), merged.end(),
                      [](const auto& a, const auto& b) { return a.row < b.row; });
            binEntry.push_back(std::uint32_t(merged.size()));
        }
        if (cur % 2 == 1) {
            // The closed bin cur-1 joins the open one: fold it into the
            // open bin's counters (it comes first).
            const std::size_t b = cur - 1;
            for (std::uint32_t i = g.binEntry_m[b]; i < g.binEntry_m[b + 1]; ++i) {
                const EventGraph::Entry& x = e[i];
                const std::uint32_t r = x.row;
                if (x.count) {
                    firstIndex[r] = g.binIndex_m[b] + x.firstOff;
                    kind[r] = x.kind;
                }
                count[r] += x.count;
                changes[r] |= x.changes;
                kinds[r] |= x.kinds;
                touch(r);
            }
        }
        e = std::move(merged);
        g.binEntry_m = std::move(binEntry);
        // Keep every other bin start and checkpoint.
        const std::size_t bins = cur / 2 + 1;
        std::vector<std::uint64_t> binIndex(bins);
        std::vector<EventGraph::CpuCheckpoint> ckCpu;
        std::vector<std::uint32_t> ckCpuAt{0};
        std::vector<EventGraph::SavedDepth> ckSaved;
        std::vector<std::uint32_t> ckSavedAt{0};
        for (std::size_t k = 0; k < bins; ++k) {
            const std::size_t b = 2 * k;
            binIndex[k] = g.binIndex_m[b];
            ckCpu.insert(ckCpu.end(), g.ckCpu_m.begin() + g.ckCpuAt_m[b],
                         g.ckCpu_m.begin() + g.ckCpuAt_m[b + 1]);
            ckCpuAt.push_back(std::uint32_t(ckCpu.size()));
            ckSaved.insert(ckSaved.end(), g.ckSaved_m.begin() + g.ckSavedAt_m[b],
                           g.ckSaved_m.begin() + g.ckSavedAt_m[b + 1]);
            ckSavedAt.push_back(std::uint32_t(ckSaved.size()));
        }
        g.binIndex_m = std::move(binIndex);
        std::vector<std::uint64_t> busy(bins, 0);
        for (std::size_t b = 0; b < g.busy_m.size(); ++b)
            busy[b / 2] += g.busy_m[b];
        g.busy_m = std::move(busy);
        g.ckCpu_m = std::move(ckCpu);
        g.ckCpuAt_m = std::move(ckCpuAt);
        g.ckSaved_m = std::move(ckSaved);
        g.ckSavedAt_m = std::move(ckSavedAt);
        g.width_m *= 2;
        cur /= 2;
    }

    // Busy CPU time [from, to) into the bins it spans.
    void addBusy(std::uint64_t from, std::uint64_t to) {
        const std::uint64_t w = g.width_m;
        from = std::max(from, g.start_m);
        while (from < to) {
            const std::uint64_t b = (from - g.start_m) / w;
            if (b >= g.busy_m.size())
                break;
            const std::uint64_t binEnd = g.start_m + (b + 1) * w;
            const std::uint64_t upTo = std::min(to, binEnd);
            g.busy_m[b] += upTo - from;
            from = upTo;
        }
    }

    // Sink of the builder's control step: the open bin's counters.
    struct Sink {
        State& s;
        void transition(std::uint32_t row, std::uint64_t) {
            s.changes[row] = 1;
            s.touch(row);
        }
        void marker(std::uint32_t row, const GraphEventInput& ev, GraphEventKind k) {
            if (s.count[row]++ == 0) {
                s.firstIndex[row] = ev.index;
                s.kind[row] = k;
            }
            s.kinds[row] |= std::uint16_t(1u << unsigned(k));
            s.touch(row);
            ++s.g.rowMarkers_m[row];
            ++s.g.events_m;
        }
        void lost(const GraphEventInput& ev) {
            s.g.lost_m.push_back({ev.timeNs, ev.cpu, ev.lostCount, ev.index});
        }
    };
};

EventGraphBuilder::EventGraphBuilder() : s_m(std::make_unique<State>()) {}
EventGraphBuilder::~EventGraphBuilder() = default;

void EventGraphBuilder::add(const GraphEventInput& ev) {
    State& s = *s_m;
    EventGraph& g = s.g;
    if (s.first) {
        s.ensureRows();
        g.start_m = ev.timeNs;
        g.width_m = 1;
        s.first = false;
        s.cur = 0;
        s.openBin(ev.index);
    }
    g.end_m = std::max(g.end_m, ev.timeNs);
    const std::uint64_t t = std::max(ev.timeNs, g.start_m) - g.start_m;
    std::uint64_t b = t / g.width_m;
    while (b >= EventGraph::kSummaryBins) {
        s.widen();
        b = t / g.width_m;
    }
    while (s.cur < b) {
        s.closeBin();
        ++s.cur;
        s.openBin(ev.index);
    }
    if (ev.cpu >= LTT_MAX_CPUS)
        return; // a user stream's record (ltt::kUserCpu): in its bin, no CPU state
    // The time since the CPU's last record was busy unless the CPU was idle
    // (or its state unknown, or events were lost in between).
    if (ev.cpu < s.ctl.cpus.size()) {
        const Cpu& cpu = s.ctl.cpus[ev.cpu];
        if (cpu.known && cpu.row != kIdleRow && ev.event != LTT_EV_LOST)
            s.addBusy(s.lastNs[ev.cpu], ev.timeNs);
    }
    if (s.lastNs.size() <= ev.cpu)
        s.lastNs.resize(ev.cpu + 1u, 0);
    s.lastNs[ev.cpu] = std::max(s.lastNs[ev.cpu], ev.timeNs);
    State::Sink sink{s};
    s.ctl.step(
        ev, [&s](std::int32_t pid) { return s.rowFor(pid); }, sink);
    s.nextIndex = ev.index + 1;
}

EventGraph EventGraphBuilder::finish(std::uint64_t endNs,
                                     std::shared_ptr<const GraphEventSource> source) {
    State& s = *s_m;
    s.ensureRows();
    EventGraph& g = s.g;
    // A CPU running a task from its last record to the trace's end was busy
    // all that time too.
    for (std::size_t c = 0; !s.first && c < s.ctl.cpus.size() && c < s.lastNs.size(); ++c) {
        const Cpu& cpu = s.ctl.cpus[c];
        if (cpu.known && cpu.row != kIdleRow)
            s.addBusy(s.lastNs[c], std::max(g.end_m, endNs));
    }
    if (s.first) {
        // No events: no bins, one checkpoint (nothing known).
        s.openBin(0);
    } else {
        s.closeBin();
        // Past the last bin: its start and the final state.
        s.g.binEntry_m.push_back(std::uint32_t(g.entries_m.size()));
        s.g.binIndex_m.push_back(s.nextIndex);
        s.checkpoint();
    }
    g.end_m = std::max(g.end_m, endNs);
    // Sort process rows by pid, keeping kernel and idle first.
    const std::size_t n = g.rows_m.size();
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin() + 2, order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return g.rows_m[a].pid < g.rows_m[b].pid; });
    std::vector<std::uint32_t> newRow(n);
    for (std::uint32_t i = 0; i < n; ++i)
        newRow[order[i]] = i;
    EventGraph out;
    out.start_m = g.start_m;
    out.end_m = g.end_m;
    out.events_m = g.events_m;
    out.width_m = g.width_m;
    out.lost_m = std::move(g.lost_m);
    out.rows_m.reserve(n);
    out.rowMarkers_m.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        out.rows_m.push_back(g.rows_m[order[i]]);
        out.rowMarkers_m.push_back(g.rowMarkers_m[order[i]]);
    }
    out.pidRows_m = std::move(g.pidRows_m);
    out.pidRows_m.transform([&](std::uint32_t r) { return newRow[r - 1] + 1; });
    out.entries_m = std::move(g.entries_m);
    for (auto& e : out.entries_m)
        e.row = newRow[e.row];
    out.binEntry_m = std::move(g.binEntry_m);
    out.binIndex_m = std::move(g.binIndex_m);
    out.busy_m = std::move(g.busy_m);
    out.busy_m.resize(out.binCount(), 0);
    out.ckCpu_m = std::move(g.ckCpu_m);
    for (auto& c : out.ckCpu_m) {
        c.row = newRow[c.row];
        c.pidRow = newRow[c.pidRow];
    }
    out.ckCpuAt_m = std::move(g.ckCpuAt_m);
    out.ckSaved_m = std::move(g.ckSaved_m);
    out.ckSavedAt_m = std::move(g.ckSavedAt_m);
    out.source_m = std::move(source);
    out.entries_m.shrink_to_fit();
    out.ckCpu_m.shrink_to_fit();
    out.ckSaved_m.shrink_to_fit();
    s_m = std::make_unique<State>();
    return out;
}

} // namespace ltt
