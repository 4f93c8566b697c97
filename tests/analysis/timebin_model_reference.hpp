// The event graph's time-bin model as it was before the bounded summary:
// every control transition and every marker kept per row, bin() by binary
// search. Memory is linear in events; the tests keep it as the reference the
// bounded model (analysis/src/timebin_model.cpp) must agree with exactly.
#pragma once

#include <algorithm>
#include <libltt/timebin_model.hpp>
#include <ltt/events.h>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ltt_ref {

using ltt::GraphEventInput;
using ltt::GraphEventKind;
using ltt::graphEventKindOf;
using ltt::GraphHit;
using ltt::GraphRow;
using ltt::GraphRowKind;
using ltt::LostMark;
using ltt::RowBins;

class RefGraph {
public:
    RefGraph() = default;

    // Rows in display order: kernel, idle, then processes by pid.
    const std::vector<GraphRow>& rows() const { return rows_m; }
    std::optional<std::size_t> rowOfPid(std::int32_t pid) const;
    std::size_t kernelRow() const { return 0; }
    std::size_t idleRow() const { return 1; }

    std::uint64_t startNs() const { return start_m; }
    std::uint64_t endNs() const { return end_m; }
    std::uint64_t eventCount() const { return events_m; }
    const std::vector<LostMark>& lost() const { return lost_m; }

    // Start time of column `c` of `columns` over [begin, end): exact integer
    // split, so that column c covers [columnStart(c), columnStart(c+1)).
    static std::uint64_t columnStart(std::uint64_t begin, std::uint64_t end, unsigned columns,
                                     unsigned c);
    // Fills `out` for `row` over [begin, end) split into `columns` columns.
    // O(columns × log(row size)). Reuses out's storage.
    void bin(std::size_t row, std::uint64_t begin, std::uint64_t end, unsigned columns,
             RowBins& out) const;
    // Markers of all rows per column (the overview's density strip).
    std::vector<std::uint32_t> density(std::uint64_t begin, std::uint64_t end,
                                       unsigned columns) const;
    // The marker of `row` nearest to `timeNs`, if one is within `maxDistNs`.
    std::optional<GraphHit> nearestEvent(std::size_t row, std::uint64_t timeNs,
                                         std::uint64_t maxDistNs) const;
    // Whether `row` has control at `timeNs` (on at least one CPU).
    bool hasControl(std::size_t row, std::uint64_t timeNs) const;
    // Markers in `row` (for tests and counts).
    std::size_t markerCount(std::size_t row) const { return data_m.at(row).markTime.size(); }
    std::size_t transitionCount(std::size_t row) const { return data_m.at(row).ctlTime.size(); }

private:
    friend class RefBuilder;
    struct RowData {
        std::vector<std::uint64_t> ctlTime;   // instants control entered or left
        std::vector<std::uint8_t> ctlCount;   // CPUs in control right after each
        std::vector<std::uint64_t> markTime;  // markers, sorted by time
        std::vector<std::uint64_t> markIndex; // their event indices
        std::vector<GraphEventKind> markKind;
        // Every 64th ctlTime / markTime: the first level of bin()'s search.
        std::vector<std::uint64_t> ctlSample;
        std::vector<std::uint64_t> markSample;
    };
    std::vector<GraphRow> rows_m;
    std::vector<RowData> data_m;
    std::unordered_map<std::int32_t, std::size_t> pidRow_m;
    std::vector<LostMark> lost_m;
    std::uint64_t start_m = 0;
    std::uint64_t end_m = 0;
    std::uint64_t events_m = 0;
};

// Builds an EventGraph in one pass. Control follows the rules of
// docs/trace-format.md §3 ("Control events"): system calls, traps and IRQs
// that interrupt user mode move control into the kernel, and their exits move
// it back when the CPU's kernel nesting depth returns to zero; SCHEDCHANGE
// hands the CPU to another task, which resumes at the depth it left with.
// After lost events a CPU's state is unknown: it restarts in the kernel on
// behalf of the block's task.
class RefBuilder {
public:
    RefBuilder() = default;
    void add(const GraphEventInput& ev);
    // Closes every open interval at `endNs` and returns the graph; the
    // builder is left empty.
    RefGraph finish(std::uint64_t endNs);

private:
    struct CpuState {
        bool known = false;
        std::int32_t pid = 0;
        std::uint32_t depth = 0; // kernel nesting: 0 = user mode (or idle)
        std::size_t row = 0;     // row currently holding control
        std::size_t pidRow = 0;  // row of `pid`
    };
    static constexpr std::int32_t kFlatPids = 1 << 22; // Linux's PID_MAX_LIMIT
    std::size_t rowFor(std::int32_t pid);
    void moveControl(CpuState& cpu, std::size_t row, std::uint64_t timeNs);
    std::size_t placeOf(const CpuState& cpu) const;
    void ensureRows();

    RefGraph graph_m;
    std::vector<CpuState> cpus_m;
    std::vector<std::uint8_t> inControl_m; // per row: CPUs in control now
    std::unordered_map<std::int32_t, std::uint32_t> savedDepth_m;
    std::vector<std::uint32_t> pidRowFlat_m; // pid -> row + 1, 0: none
    bool first_m = true;
};

namespace detail {
constexpr std::int32_t kIdlePid = 0;

// First position at or after `from` whose value is >= `value`: exponential
// search from `from`, then binary search. Column boundaries move forward a
// little at a time, so this costs O(log distance), not O(log size).
inline std::size_t gallop(const std::vector<std::uint64_t>& v, std::size_t from,
                          std::uint64_t value) {
    const std::size_t n = v.size();
    if (from >= n || v[from] >= value)
        return from;
    std::size_t lo = from, step = 1; // v[lo] < value
    while (lo + step < n && v[lo + step] < value) {
        lo += step;
        step *= 2;
    }
    const std::size_t hi = std::min(n, lo + step);
    return static_cast<std::size_t>(
        std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(lo + 1),
                         v.begin() + static_cast<std::ptrdiff_t>(hi), value) -
        v.begin());
}

constexpr std::size_t kSampleEvery = 64;

// Same answer as gallop(v, from, value), through `sample` (every
// kSampleEvery-th value of v): a far target is found in the small sample
// array, which stays in cache, and then in one 64-value block of v. At coarse
// zoom this saves most of the cache misses of galloping through v itself.
inline std::size_t seek(const std::vector<std::uint64_t>& v,
                        const std::vector<std::uint64_t>& sample, std::size_t from,
                        std::uint64_t value) {
    const std::size_t n = v.size();
    if (from >= n || v[from] >= value)
        return from;
    const std::size_t nearEnd = std::min(n, from + 8);
    if (nearEnd == n || v[nearEnd - 1] >= value)
        return static_cast<std::size_t>(
            std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(from + 1),
                             v.begin() + static_cast<std::ptrdiff_t>(nearEnd), value) -
            v.begin());
    // Every sample before k is < value, sample k (if any) is >= value.
    const std::size_t k = gallop(sample, from / kSampleEvery + 1, value);
    const std::size_t lo = std::max(from + 1, (k - 1) * kSampleEvery);
    const std::size_t hi = std::min(n, k * kSampleEvery);
    return static_cast<std::size_t>(std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(lo),
                                                     v.begin() + static_cast<std::ptrdiff_t>(hi),
                                                     value) -
                                    v.begin());
}

inline std::vector<std::uint64_t> sampleOf(const std::vector<std::uint64_t>& v) {
    std::vector<std::uint64_t> s;
    s.reserve(v.size() / kSampleEvery + 1);
    for (std::size_t i = 0; i < v.size(); i += kSampleEvery)
        s.push_back(v[i]);
    return s;
}
} // namespace detail
using namespace detail;

// ---------------------------------------------------------------------------
// EventGraph queries

inline std::optional<std::size_t> RefGraph::rowOfPid(std::int32_t pid) const {
    if (pid == kIdlePid)
        return idleRow();
    auto it = pidRow_m.find(pid);
    if (it == pidRow_m.end())
        return std::nullopt;
    return it->second;
}

inline std::uint64_t RefGraph::columnStart(std::uint64_t begin, std::uint64_t end, unsigned columns,
                                           unsigned c) {
    if (columns == 0 || end <= begin)
        return begin;
    const unsigned __int128 span = end - begin;
    return begin + static_cast<std::uint64_t>(span * c / columns);
}

inline void RefGraph::bin(std::size_t row, std::uint64_t begin, std::uint64_t end, unsigned columns,
                          RowBins& out) const {
    const RowData& d = data_m.at(row);
    out.control.assign(columns, 0);
    out.firstEvent.assign(columns, -1);
    out.firstKind.assign(columns, GraphEventKind::Other);
    out.eventCount.assign(columns, 0);
    if (columns == 0 || end <= begin)
        return;

    // Both searches move forward only: each boundary's position is at or
    // after the previous one, so search [previous, end).
    auto ctlPos = static_cast<std::size_t>(
        std::lower_bound(d.ctlTime.begin(), d.ctlTime.end(), begin) - d.ctlTime.begin());
    auto markPos = static_cast<std::size_t>(
        std::lower_bound(d.markTime.begin(), d.markTime.end(), begin) - d.markTime.begin());
    bool inControl = ctlPos > 0 && d.ctlCount[ctlPos - 1] > 0;
    for (unsigned c = 0; c < columns; ++c) {
        const std::uint64_t next = columnStart(begin, end, columns, c + 1);
        const std::uint64_t limit = (c + 1 == columns) ? end : next;
        const std::size_t ctlNext = seek(d.ctlTime, d.ctlSample, ctlPos, limit);
        const std::size_t markNext = seek(d.markTime, d.markSample, markPos, limit);
        std::uint8_t flags = inControl ? RowBins::kControlAtStart : 0;
        if (ctlNext > ctlPos) {
            flags |= RowBins::kControlChanges;
            inControl = d.ctlCount[ctlNext - 1] > 0;
        }
        if (inControl)
            flags |= RowBins::kControlAtEnd;
        out.control[c] = flags;
        if (markNext > markPos) {
            out.firstEvent[c] = static_cast<std::int64_t>(d.markIndex[markPos]);
            out.firstKind[c] = d.markKind[markPos];
            out.eventCount[c] = static_cast<std::uint32_t>(markNext - markPos);
        }
        ctlPos = ctlNext;
        markPos = markNext;
    }
}

inline std::vector<std::uint32_t> RefGraph::density(std::uint64_t begin, std::uint64_t end,
                                                    unsigned columns) const {
    std::vector<std::uint32_t> sum(columns, 0);
    RowBins bins;
    for (std::size_t r = 0; r < rows_m.size(); ++r) {
        bin(r, begin, end, columns, bins);
        for (unsigned c = 0; c < columns; ++c)
            sum[c] += bins.eventCount[c];
    }
    return sum;
}

inline std::optional<GraphHit> RefGraph::nearestEvent(std::size_t row, std::uint64_t timeNs,
                                                      std::uint64_t maxDistNs) const {
    const RowData& d = data_m.at(row);
    if (d.markTime.empty())
        return std::nullopt;
    auto it = std::lower_bound(d.markTime.begin(), d.markTime.end(), timeNs);
    std::size_t best = d.markTime.size();
    std::uint64_t bestDist = maxDistNs + 1;
    auto consider = [&](std::size_t i) {
        std::uint64_t t = d.markTime[i];
        std::uint64_t dist = t > timeNs ? t - timeNs : timeNs - t;
        if (dist < bestDist) {
            bestDist = dist;
            best = i;
        }
    };
    auto i = static_cast<std::size_t>(it - d.markTime.begin());
    if (i < d.markTime.size())
        consider(i);
    if (i > 0) {
        // The first of several markers at the same instant.
        std::uint64_t t = d.markTime[i - 1];
        auto first = std::lower_bound(d.markTime.begin(), d.markTime.end(), t);
        consider(static_cast<std::size_t>(first - d.markTime.begin()));
    }
    if (best == d.markTime.size())
        return std::nullopt;
    return GraphHit{d.markIndex[best], d.markTime[best], d.markKind[best]};
}

inline bool RefGraph::hasControl(std::size_t row, std::uint64_t timeNs) const {
    const RowData& d = data_m.at(row);
    auto it = std::upper_bound(d.ctlTime.begin(), d.ctlTime.end(), timeNs);
    if (it == d.ctlTime.begin())
        return false;
    return d.ctlCount[static_cast<std::size_t>(it - d.ctlTime.begin()) - 1] > 0;
}

// ---------------------------------------------------------------------------
// Builder

inline void RefBuilder::ensureRows() {
    if (!graph_m.rows_m.empty())
        return;
    graph_m.rows_m.push_back({GraphRowKind::Kernel, 0});
    graph_m.rows_m.push_back({GraphRowKind::Idle, 0});
    graph_m.data_m.resize(2);
    inControl_m.resize(2, 0);
}

inline std::size_t RefBuilder::rowFor(std::int32_t pid) {
    if (pid == kIdlePid)
        return graph_m.idleRow();
    // Called for every event: a flat table for ordinary pids, the map for
    // the rest.
    const bool flat = pid > 0 && pid < kFlatPids;
    if (flat && static_cast<std::size_t>(pid) < pidRowFlat_m.size() && pidRowFlat_m[pid])
        return pidRowFlat_m[pid] - 1;
    auto [it, inserted] = graph_m.pidRow_m.try_emplace(pid, graph_m.rows_m.size());
    if (inserted) {
        graph_m.rows_m.push_back({GraphRowKind::Process, pid});
        graph_m.data_m.emplace_back();
        inControl_m.push_back(0);
    }
    if (flat) {
        if (pidRowFlat_m.size() <= static_cast<std::size_t>(pid))
            pidRowFlat_m.resize(std::max<std::size_t>(pid + 1, pidRowFlat_m.size() * 2), 0);
        pidRowFlat_m[pid] = static_cast<std::uint32_t>(it->second + 1);
    }
    return it->second;
}

inline std::size_t RefBuilder::placeOf(const CpuState& cpu) const {
    if (cpu.depth > 0)
        return graph_m.kernelRow();
    if (cpu.pid == kIdlePid)
        return graph_m.idleRow();
    return cpu.pidRow;
}

inline void RefBuilder::moveControl(CpuState& cpu, std::size_t row, std::uint64_t timeNs) {
    if (cpu.known && cpu.row == row)
        return;
    auto record = [&](std::size_t r) {
        auto& d = graph_m.data_m[r];
        // Several transitions at one instant collapse into the last one.
        if (!d.ctlTime.empty() && d.ctlTime.back() == timeNs) {
            d.ctlCount.back() = inControl_m[r];
        } else {
            d.ctlTime.push_back(timeNs);
            d.ctlCount.push_back(inControl_m[r]);
        }
    };
    if (cpu.known) {
        if (inControl_m[cpu.row] > 0)
            --inControl_m[cpu.row];
        record(cpu.row);
    }
    if (inControl_m[row] < 255)
        ++inControl_m[row];
    record(row);
    cpu.row = row;
    cpu.known = true;
}

inline void RefBuilder::add(const GraphEventInput& ev) {
    if (first_m) {
        ensureRows();
        graph_m.start_m = ev.timeNs;
        first_m = false;
    }
    graph_m.end_m = std::max(graph_m.end_m, ev.timeNs);
    if (cpus_m.size() <= ev.cpu)
        cpus_m.resize(ev.cpu + 1u);
    CpuState& cpu = cpus_m[ev.cpu];
    // Rows exist for every task seen, even one that never leaves the kernel.
    const std::size_t evRow = rowFor(ev.pid);

    // Records the tracer writes for itself say nothing about control.
    if (ev.event == LTT_EV_TRACE_START || ev.event == LTT_EV_BLOCK_START ||
        ev.event == LTT_EV_BLOCK_END || ev.event == LTT_EV_HEARTBEAT)
        return;

    if (!cpu.known || ev.event == LTT_EV_LOST) {
        // Unknown state (first event of the CPU, or after a gap): the CPU is
        // in the kernel on behalf of its current task (it is writing this
        // record), or idle; entries below resynchronise from there.
        if (ev.event == LTT_EV_LOST) {
            graph_m.lost_m.push_back({ev.timeNs, ev.cpu, ev.lostCount, ev.index});
            if (cpu.known) {
                // Drop the interval open across the gap.
                --inControl_m[cpu.row];
                auto& d = graph_m.data_m[cpu.row];
                d.ctlTime.push_back(ev.timeNs);
                d.ctlCount.push_back(inControl_m[cpu.row]);
                cpu.known = false;
            }
        }
        cpu.pid = ev.pid;
        cpu.pidRow = evRow;
        cpu.depth = ev.pid == kIdlePid ? 0 : 1;
    }

    // Entries resynchronise the nesting depth: a system call always comes
    // from user mode, and an IRQ or trap says whether it interrupted kernel
    // code. The idle loop's base level is 0 (its own row), a task's is 1.
    const std::uint32_t kernelBase = cpu.pid == kIdlePid ? 0 : 1;
    switch (ev.event) {
    case LTT_EV_SYSCALL_ENTRY:
        cpu.depth = 1;
        break;
    case LTT_EV_TRAP_ENTRY:
    case LTT_EV_IRQ_ENTRY:
        cpu.depth = ev.fromKernel ? std::max(cpu.depth, kernelBase) + 1 : 1;
        break;
    case LTT_EV_SYSCALL_EXIT:
    case LTT_EV_TRAP_EXIT:
    case LTT_EV_IRQ_EXIT:
        if (cpu.depth > 0)
            --cpu.depth;
        break;
    case LTT_EV_SCHEDCHANGE: {
        savedDepth_m[cpu.pid] = cpu.depth;
        cpu.pid = ev.schedIn;
        cpu.pidRow = rowFor(cpu.pid);
        // The idle loop runs at depth 0 (its row stands for it); a task
        // resumes at the depth it was switched out at, and one never seen
        // leaving was switched out inside the kernel.
        if (cpu.pid == kIdlePid) {
            cpu.depth = 0;
        } else {
            auto it = savedDepth_m.find(cpu.pid);
            cpu.depth = it != savedDepth_m.end() ? it->second : 1;
        }
        break;
    }
    default:
        break;
    }
    moveControl(cpu, placeOf(cpu), ev.timeNs);

    auto kind = graphEventKindOf(ev.event, ev.subtype);
    if (kind) {
        // Interrupt-side events belong to the kernel row; the rest to the task.
        std::size_t row;
        switch (*kind) {
        case GraphEventKind::Irq:
        case GraphEventKind::KernelTimer:
        case GraphEventKind::BottomHalf:
        case GraphEventKind::Lost:
            row = graph_m.kernelRow();
            break;
        default:
            row = evRow;
        }
        auto& d = graph_m.data_m[row];
        d.markTime.push_back(ev.timeNs);
        d.markIndex.push_back(ev.index);
        d.markKind.push_back(*kind);
        ++graph_m.events_m;
    }
}

inline RefGraph RefBuilder::finish(std::uint64_t endNs) {
    ensureRows();
    graph_m.end_m = std::max(graph_m.end_m, endNs);
    // Sort process rows by pid, keeping kernel and idle first.
    std::vector<std::size_t> order(graph_m.rows_m.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin() + 2, order.end(), [&](std::size_t a, std::size_t b) {
        return graph_m.rows_m[a].pid < graph_m.rows_m[b].pid;
    });
    RefGraph out;
    out.start_m = graph_m.start_m;
    out.end_m = graph_m.end_m;
    out.events_m = graph_m.events_m;
    out.lost_m = std::move(graph_m.lost_m);
    for (std::size_t newRow = 0; newRow < order.size(); ++newRow) {
        std::size_t old = order[newRow];
        out.rows_m.push_back(graph_m.rows_m[old]);
        out.data_m.push_back(std::move(graph_m.data_m[old]));
        auto& d = out.data_m.back();
        d.ctlSample = sampleOf(d.ctlTime);
        d.markSample = sampleOf(d.markTime);
        if (out.rows_m.back().kind == GraphRowKind::Process)
            out.pidRow_m[out.rows_m.back().pid] = newRow;
    }
    graph_m = RefGraph{};
    cpus_m.clear();
    inControl_m.clear();
    savedDepth_m.clear();
    pidRowFlat_m.clear();
    first_m = true;
    return out;
}

} // namespace ltt_ref
