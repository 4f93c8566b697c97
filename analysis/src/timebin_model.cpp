// Time-bin model of the event graph: see timebin_model.hpp for the design.
#include <algorithm>
#include <ltt/events.h>
#include <ltt/timebin_model.hpp>
#include <ltt/trace_reader.hpp>
#include <numeric>

namespace ltt {

namespace {
constexpr std::int32_t kIdlePid = 0;

// First position at or after `from` whose value is >= `value`: exponential
// search from `from`, then binary search. Column boundaries move forward a
// little at a time, so this costs O(log distance), not O(log size).
std::size_t gallop(const std::vector<std::uint64_t>& v, std::size_t from, std::uint64_t value) {
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
std::size_t seek(const std::vector<std::uint64_t>& v, const std::vector<std::uint64_t>& sample,
                 std::size_t from, std::uint64_t value) {
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

std::vector<std::uint64_t> sampleOf(const std::vector<std::uint64_t>& v) {
    std::vector<std::uint64_t> s;
    s.reserve(v.size() / kSampleEvery + 1);
    for (std::size_t i = 0; i < v.size(); i += kSampleEvery)
        s.push_back(v[i]);
    return s;
}
} // namespace

std::string_view graphEventKindName(GraphEventKind kind) {
    switch (kind) {
    case GraphEventKind::Syscall:
        return "System call";
    case GraphEventKind::Trap:
        return "Trap";
    case GraphEventKind::Irq:
        return "IRQ";
    case GraphEventKind::SchedChange:
        return "Scheduling change";
    case GraphEventKind::KernelTimer:
        return "Kernel timer";
    case GraphEventKind::BottomHalf:
        return "Bottom half";
    case GraphEventKind::IoWaitStart:
        return "I/O wait start";
    case GraphEventKind::IoWaitEnd:
        return "I/O wait end";
    case GraphEventKind::Process:
        return "Process";
    case GraphEventKind::FileSystem:
        return "File system";
    case GraphEventKind::Other:
        return "Other";
    case GraphEventKind::Lost:
        return "Lost events";
    case GraphEventKind::Count:
        break;
    }
    return "?";
}

std::optional<GraphEventKind> graphEventKindOf(std::uint8_t event, std::uint8_t subtype) {
    switch (event) {
    case LTT_EV_SYSCALL_ENTRY:
    case LTT_EV_SYSCALL_EXIT:
        return GraphEventKind::Syscall;
    case LTT_EV_TRAP_ENTRY:
    case LTT_EV_TRAP_EXIT:
        return GraphEventKind::Trap;
    case LTT_EV_IRQ_ENTRY:
    case LTT_EV_IRQ_EXIT:
        return GraphEventKind::Irq;
    case LTT_EV_SCHEDCHANGE:
        return GraphEventKind::SchedChange;
    case LTT_EV_KERNEL_TIMER:
        return GraphEventKind::KernelTimer;
    case LTT_EV_SOFT_IRQ:
        return GraphEventKind::BottomHalf;
    case LTT_EV_PROCESS:
        return GraphEventKind::Process;
    case LTT_EV_FILE_SYSTEM:
        if (subtype == LTT_FS_BUF_WAIT_START)
            return GraphEventKind::IoWaitStart;
        if (subtype == LTT_FS_BUF_WAIT_END)
            return GraphEventKind::IoWaitEnd;
        return GraphEventKind::FileSystem;
    case LTT_EV_MEMORY:
        if (subtype == LTT_MEM_PAGE_WAIT_START)
            return GraphEventKind::IoWaitStart;
        if (subtype == LTT_MEM_PAGE_WAIT_END)
            return GraphEventKind::IoWaitEnd;
        return GraphEventKind::Other;
    case LTT_EV_LOST:
        return GraphEventKind::Lost;
    case LTT_EV_TRACE_START:
    case LTT_EV_BLOCK_START:
    case LTT_EV_BLOCK_END:
    case LTT_EV_HEARTBEAT:
        return std::nullopt;
    default:
        return GraphEventKind::Other;
    }
}

GraphEventInput graphEventInput(const TraceReader& reader, const Event& ev, std::uint64_t index) {
    GraphEventInput in;
    in.index = index;
    in.timeNs = reader.nsFromAnchor(ev.tsc);
    in.cpu = ev.cpu;
    in.pid = ev.pid;
    in.event = ev.id;
    in.subtype = ev.subtype;
    switch (ev.id) {
    case LTT_EV_SCHEDCHANGE:
        in.schedIn = ev.pid;
        break; // the reader's pid is the incoming one
    case LTT_EV_IRQ_ENTRY: {
        ltt_ev_irq_entry d;
        ev.copyDetails(d);
        in.fromKernel = d.flags & LTT_IRQ_IN_KERNEL;
        break;
    }
    case LTT_EV_TRAP_ENTRY: {
        // Kernel addresses are the upper half (docs/trace-format.md §3).
        ltt_ev_trap_entry d;
        if (ev.detailsAs(d))
            in.fromKernel = d.ip >= 0x0000800000000000ull;
        break;
    }
    case LTT_EV_LOST: {
        ltt_ev_lost d;
        ev.copyDetails(d);
        in.lostCount = d.count;
        break;
    }
    default:
        break;
    }
    return in;
}

// ---------------------------------------------------------------------------
// EventGraph queries

std::optional<std::size_t> EventGraph::rowOfPid(std::int32_t pid) const {
    if (pid == kIdlePid)
        return idleRow();
    auto it = pidRow_m.find(pid);
    if (it == pidRow_m.end())
        return std::nullopt;
    return it->second;
}

std::uint64_t EventGraph::columnStart(std::uint64_t begin, std::uint64_t end, unsigned columns,
                                      unsigned c) {
    if (columns == 0 || end <= begin)
        return begin;
    const unsigned __int128 span = end - begin;
    return begin + static_cast<std::uint64_t>(span * c / columns);
}

void EventGraph::bin(std::size_t row, std::uint64_t begin, std::uint64_t end, unsigned columns,
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

std::vector<std::uint32_t> EventGraph::density(std::uint64_t begin, std::uint64_t end,
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

std::optional<GraphHit> EventGraph::nearestEvent(std::size_t row, std::uint64_t timeNs,
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

bool EventGraph::hasControl(std::size_t row, std::uint64_t timeNs) const {
    const RowData& d = data_m.at(row);
    auto it = std::upper_bound(d.ctlTime.begin(), d.ctlTime.end(), timeNs);
    if (it == d.ctlTime.begin())
        return false;
    return d.ctlCount[static_cast<std::size_t>(it - d.ctlTime.begin()) - 1] > 0;
}

// ---------------------------------------------------------------------------
// Builder

void EventGraphBuilder::ensureRows() {
    if (!graph_m.rows_m.empty())
        return;
    graph_m.rows_m.push_back({GraphRowKind::Kernel, 0});
    graph_m.rows_m.push_back({GraphRowKind::Idle, 0});
    graph_m.data_m.resize(2);
    inControl_m.resize(2, 0);
}

std::size_t EventGraphBuilder::rowFor(std::int32_t pid) {
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

std::size_t EventGraphBuilder::placeOf(const CpuState& cpu) const {
    if (cpu.depth > 0)
        return graph_m.kernelRow();
    if (cpu.pid == kIdlePid)
        return graph_m.idleRow();
    return cpu.pidRow;
}

void EventGraphBuilder::moveControl(CpuState& cpu, std::size_t row, std::uint64_t timeNs) {
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

void EventGraphBuilder::add(const GraphEventInput& ev) {
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

EventGraph EventGraphBuilder::finish(std::uint64_t endNs) {
    ensureRows();
    graph_m.end_m = std::max(graph_m.end_m, endNs);
    // Sort process rows by pid, keeping kernel and idle first.
    std::vector<std::size_t> order(graph_m.rows_m.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin() + 2, order.end(), [&](std::size_t a, std::size_t b) {
        return graph_m.rows_m[a].pid < graph_m.rows_m[b].pid;
    });
    EventGraph out;
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
    graph_m = EventGraph{};
    cpus_m.clear();
    inControl_m.clear();
    savedDepth_m.clear();
    pidRowFlat_m.clear();
    first_m = true;
    return out;
}

} // namespace ltt
