// Time-bin model of the event graph: see timebin_model.hpp for the design.
#include <algorithm>
#include <cmath>
#include <libltt/timebin_model.hpp>
#include <libltt/trace_reader.hpp>
#include <limits>
#include <ltt/events.h>
#include <numeric>
#include <unordered_map>

namespace ltt {

namespace {
constexpr std::int32_t kIdlePid = 0;
constexpr std::uint32_t kKernelRow = 0;
constexpr std::uint32_t kIdleRow = 1;

bool isStructure(std::uint8_t event) {
    return event == LTT_EV_TRACE_START || event == LTT_EV_BLOCK_START ||
           event == LTT_EV_BLOCK_END || event == LTT_EV_HEARTBEAT;
}

// The row an event's marker goes to: interrupt-side events belong to the
// kernel row, the rest to the task's row.
std::uint32_t markerRow(GraphEventKind kind, std::uint32_t taskRow) {
    switch (kind) {
    case GraphEventKind::Irq:
    case GraphEventKind::KernelTimer:
    case GraphEventKind::BottomHalf:
    case GraphEventKind::Lost:
        return kKernelRow;
    default:
        return taskRow;
    }
}

struct Cpu {
    bool known = false;
    std::int32_t pid = 0;
    std::uint32_t depth = 0;  // kernel nesting: 0 = user mode (or idle)
    std::uint32_t row = 0;    // row currently holding control
    std::uint32_t pidRow = 0; // row of `pid`
};

// The control rules, shared by the builder and by the sweeps that re-read
// events, so both see exactly the same transitions. `rowOf` maps a pid to
// its row; `sink` gets transition(row, t) for every row control enters or
// leaves, marker(row, event, kind) and lost(event).
struct Control {
    std::vector<Cpu> cpus;
    std::unordered_map<std::int32_t, std::uint32_t> savedDepth;
    std::vector<std::uint8_t> inControl; // per row: CPUs in control now

    template <class RowOf, class Sink>
    void step(const GraphEventInput& ev, RowOf&& rowOf, Sink& sink) {
        if (cpus.size() <= ev.cpu)
            cpus.resize(ev.cpu + 1u);
        const std::uint32_t evRow = rowOf(ev.pid);
        Cpu& cpu = cpus[ev.cpu];
        // Records the tracer writes for itself say nothing about control.
        if (isStructure(ev.event))
            return;
        if (!cpu.known || ev.event == LTT_EV_LOST) {
            // Unknown state (first event of the CPU, or after a gap): the CPU
            // is in the kernel on behalf of its current task (it is writing
            // this record), or idle; entries below resynchronise from there.
            if (ev.event == LTT_EV_LOST) {
                sink.lost(ev);
                if (cpu.known) {
                    // Drop the interval open across the gap.
                    --inControl[cpu.row];
                    sink.transition(cpu.row, ev.timeNs);
                    cpu.known = false;
                }
            }
            cpu.pid = ev.pid;
            cpu.pidRow = evRow;
            cpu.depth = ev.pid == kIdlePid ? 0 : 1;
        }
        // Entries resynchronise the nesting depth: a system call always comes
        // from user mode, and an IRQ or trap says whether it interrupted
        // kernel code. The idle loop's base level is 0 (its own row), a
        // task's is 1.
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
            savedDepth[cpu.pid] = cpu.depth;
            cpu.pid = ev.schedIn;
            cpu.pidRow = rowOf(cpu.pid);
            // The idle loop runs at depth 0 (its row stands for it); a task
            // resumes at the depth it was switched out at, and one never seen
            // leaving was switched out inside the kernel.
            if (cpu.pid == kIdlePid) {
                cpu.depth = 0;
            } else {
                auto it = savedDepth.find(cpu.pid);
                cpu.depth = it != savedDepth.end() ? it->second : 1;
            }
            break;
        }
        default:
            break;
        }
        const std::uint32_t place =
            cpu.depth > 0 ? kKernelRow : (cpu.pid == kIdlePid ? kIdleRow : cpu.pidRow);
        if (!cpu.known || cpu.row != place) {
            if (cpu.known) {
                if (inControl[cpu.row] > 0)
                    --inControl[cpu.row];
                sink.transition(cpu.row, ev.timeNs);
            }
            if (inControl[place] < 255)
                ++inControl[place];
            sink.transition(place, ev.timeNs);
            cpu.row = place;
            cpu.known = true;
        }
        if (auto kind = graphEventKindOf(ev.event, ev.subtype))
            sink.marker(markerRow(*kind, evRow), ev, *kind);
    }
};

struct NullSink {
    void transition(std::uint32_t, std::uint64_t) {}
    void marker(std::uint32_t, const GraphEventInput&, GraphEventKind) {}
    void lost(const GraphEventInput&) {}
};

class TraceSource final : public GraphEventSource {
public:
    explicit TraceSource(const TraceReader& reader) : reader_m(reader) {}
    std::unique_ptr<Walk> walkFrom(std::uint64_t index) const override {
        return std::make_unique<TraceWalk>(reader_m, reader_m.atIndex(index));
    }

private:
    class TraceWalk final : public Walk {
    public:
        TraceWalk(const TraceReader& reader, TraceCursor cursor)
            : reader_m(reader), cursor_m(std::move(cursor)) {}
        bool next(GraphEventInput& out) override {
            if (!first_m)
                cursor_m.next();
            first_m = false;
            if (!cursor_m.valid())
                return false;
            out = graphEventInput(reader_m, cursor_m.event(), cursor_m.index());
            return true;
        }

    private:
        const TraceReader& reader_m;
        TraceCursor cursor_m;
        bool first_m = true;
    };
    const TraceReader& reader_m;
};

class VectorSource final : public GraphEventSource {
public:
    explicit VectorSource(std::vector<GraphEventInput> events) : events_m(std::move(events)) {}
    std::unique_ptr<Walk> walkFrom(std::uint64_t index) const override {
        auto it =
            std::lower_bound(events_m.begin(), events_m.end(), index,
                             [](const GraphEventInput& e, std::uint64_t i) { return e.index < i; });
        return std::make_unique<VectorWalk>(events_m, std::size_t(it - events_m.begin()));
    }

private:
    class VectorWalk final : public Walk {
    public:
        VectorWalk(const std::vector<GraphEventInput>& events, std::size_t pos)
            : events_m(events), pos_m(pos) {}
        bool next(GraphEventInput& out) override {
            if (pos_m >= events_m.size())
                return false;
            out = events_m[pos_m++];
            return true;
        }

    private:
        const std::vector<GraphEventInput>& events_m;
        std::size_t pos_m;
    };
    std::vector<GraphEventInput> events_m;
};
} // namespace

std::shared_ptr<const GraphEventSource> traceGraphSource(const TraceReader& reader) {
    return std::make_shared<TraceSource>(reader);
}

std::shared_ptr<const GraphEventSource> vectorGraphSource(std::vector<GraphEventInput> events) {
    return std::make_shared<VectorSource>(std::move(events));
}

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
// Re-reading the trace from a checkpoint

// A walk over the source from a bin's checkpoint, with the builder's control
// state, so that the transitions and markers it sees are the builder's.
struct GraphSweep {
    const EventGraph& g;
    Control ctl;
    std::unique_ptr<GraphEventSource::Walk> walk;
    GraphEventInput pending;
    bool hasPending = false;
    bool done = true;
    std::uint64_t reread = 0;

    explicit GraphSweep(const EventGraph& graph) : g(graph) {}
    ~GraphSweep() { g.reread_m->fetch_add(reread, std::memory_order_relaxed); }
    GraphSweep(const GraphSweep&) = delete;
    GraphSweep& operator=(const GraphSweep&) = delete;

    std::uint32_t rowOf(std::int32_t pid) const {
        if (pid == kIdlePid)
            return kIdleRow;
        const std::uint32_t row = g.pidRows_m.find(pid);
        return row ? row - 1 : kKernelRow;
    }
    // The control state before the first event of bin b, without walking.
    void loadState(std::size_t b) {
        ctl.cpus.clear();
        ctl.inControl.assign(g.rows_m.size(), 0);
        for (std::uint32_t i = g.ckCpuAt_m[b]; i < g.ckCpuAt_m[b + 1]; ++i) {
            const auto& c = g.ckCpu_m[i];
            ctl.cpus.push_back({c.known != 0, c.pid, c.depth, c.row, c.pidRow});
            if (c.known && ctl.inControl[c.row] < 255)
                ++ctl.inControl[c.row];
        }
    }
    // Positions the walk at bin b's first event with the state before it.
    void seek(std::size_t b) {
        loadState(b);
        ctl.savedDepth.clear();
        for (std::uint32_t i = g.ckSavedAt_m[b]; i < g.ckSavedAt_m[b + 1]; ++i)
            ctl.savedDepth[g.ckSaved_m[i].pid] = g.ckSaved_m[i].depth;
        hasPending = false;
        done = !g.source_m;
        walk = done ? nullptr : g.source_m->walkFrom(g.binIndex_m[b]);
    }
    // The next event if it comes before `limit` (it stays pending otherwise).
    const GraphEventInput* take(std::uint64_t limit) {
        if (!hasPending) {
            if (done || !walk->next(pending)) {
                done = true;
                return nullptr;
            }
            hasPending = true;
            ++reread;
        }
        if (pending.timeNs >= limit)
            return nullptr;
        hasPending = false;
        return &pending;
    }
    template <class Sink> void apply(const GraphEventInput& ev, Sink& sink) {
        ctl.step(
            ev, [this](std::int32_t pid) { return rowOf(pid); }, sink);
    }

    // Fills outs[slotOf[row]] (rows with slot -1 are skipped) for [begin,
    // end) in `columns` columns. Bins wholly inside one column come from the
    // summary; the others are re-read. Without `control` only the markers
    // are counted (all rows may then share one slot).
    static void columns(const EventGraph& g, std::uint64_t begin, std::uint64_t end,
                        unsigned columns, const std::vector<std::int32_t>& slotOf,
                        const std::vector<RowBins*>& outs, bool control);
};

void GraphSweep::columns(const EventGraph& g, std::uint64_t begin, std::uint64_t end,
                         unsigned columns, const std::vector<std::int32_t>& slotOf,
                         const std::vector<RowBins*>& outs, bool control) {
    for (RowBins* o : outs) {
        o->control.assign(columns, 0);
        o->firstEvent.assign(columns, -1);
        o->firstKind.assign(columns, GraphEventKind::Other);
        o->eventCount.assign(columns, 0);
    }
    if (columns == 0 || end <= begin || g.rows_m.empty())
        return;
    std::vector<std::uint32_t> slotRow(outs.size(), 0);
    for (std::size_t r = 0; r < slotOf.size(); ++r)
        if (slotOf[r] >= 0)
            slotRow[std::size_t(slotOf[r])] = std::uint32_t(r);

    GraphSweep s(g);
    const std::size_t nb = g.binCount();
    const std::uint64_t w = g.width_m;
    unsigned c = 0;
    std::uint64_t hi = EventGraph::columnStart(begin, end, columns, 1);
    bool loaded = false, started = false;
    std::vector<std::uint8_t> on(outs.size(), 0);
    auto start = [&] {
        if (started)
            return;
        started = true;
        if (control)
            for (std::size_t k = 0; k < outs.size(); ++k)
                on[k] = s.ctl.inControl[slotRow[k]] > 0;
    };
    // Closes every column that ends at or before t (all events before t
    // have been applied, none in [its end, t) remains).
    auto closeTo = [&](std::uint64_t t) {
        while (c < columns && hi <= t) {
            if (control) {
                for (std::size_t k = 0; k < outs.size(); ++k) {
                    const bool now = s.ctl.inControl[slotRow[k]] > 0;
                    std::uint8_t& f = outs[k]->control[c];
                    f |=
                        (on[k] ? RowBins::kControlAtStart : 0) | (now ? RowBins::kControlAtEnd : 0);
                    on[k] = now;
                }
            }
            ++c;
            hi = c + 1 >= columns ? end : EventGraph::columnStart(begin, end, columns, c + 1);
        }
    };
    struct Sink {
        const std::vector<std::int32_t>& slotOf;
        const std::vector<RowBins*>& outs;
        const unsigned& c;
        std::uint64_t begin;
        bool control;
        void transition(std::uint32_t row, std::uint64_t t) {
            if (!control || t < begin)
                return;
            if (const std::int32_t k = slotOf[row]; k >= 0)
                outs[std::size_t(k)]->control[c] |= RowBins::kControlChanges;
        }
        void marker(std::uint32_t row, const GraphEventInput& ev, GraphEventKind kind) {
            if (ev.timeNs < begin)
                return;
            if (const std::int32_t k = slotOf[row]; k >= 0) {
                RowBins& o = *outs[std::size_t(k)];
                if (o.eventCount[c]++ == 0) {
                    o.firstEvent[c] = std::int64_t(ev.index);
                    o.firstKind[c] = kind;
                }
            }
        }
        void lost(const GraphEventInput&) {}
    } sink{slotOf, outs, c, begin, control};

    std::size_t b = g.binOf(begin);
    bool contiguous = false; // the walk is at bin b's first event
    for (; b < nb; ++b) {
        const std::uint64_t eb = g.start_m + b * w, eb1 = eb + w;
        if (eb >= end)
            break;
        if (eb >= begin && eb1 <= end) {
            if (!loaded) {
                s.loadState(b);
                loaded = true;
            }
            start();
            closeTo(eb);
            if (eb1 <= hi) {
                // The whole bin is inside column c: the summary answers.
                for (std::uint32_t i = g.binEntry_m[b]; i < g.binEntry_m[b + 1]; ++i) {
                    const EventGraph::Entry& e = g.entries_m[i];
                    if (const std::int32_t k = slotOf[e.row]; k >= 0) {
                        RowBins& o = *outs[std::size_t(k)];
                        if (control && e.changes)
                            o.control[c] |= RowBins::kControlChanges;
                        if (e.count) {
                            if (o.eventCount[c] == 0) {
                                o.firstEvent[c] = std::int64_t(g.binIndex_m[b] + e.firstOff);
                                o.firstKind[c] = e.kind;
                            }
                            o.eventCount[c] += e.count;
                        }
                    }
                    s.ctl.inControl[e.row] = e.endCount;
                }
                contiguous = false;
                continue;
            }
        }
        // A column boundary cuts the bin (or the bin starts before begin):
        // re-read it.
        if (!contiguous) {
            s.seek(b);
            loaded = contiguous = true;
        }
        const std::uint64_t limit = std::min(eb1, end);
        while (const GraphEventInput* ev = s.take(limit)) {
            if (ev->timeNs >= begin) {
                start();
                closeTo(ev->timeNs);
            }
            s.apply(*ev, sink);
        }
    }
    if (!loaded)
        s.loadState(std::min(b, nb));
    start();
    closeTo(std::numeric_limits<std::uint64_t>::max());
}

// ---------------------------------------------------------------------------
// EventGraph queries

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
    if (cover && m * w * columns < end - begin)
        ++m;
    if (begin < start_m)
        begin = start_m;
    begin = start_m + (begin - start_m) / w * w;
    return {begin, begin + m * w * columns};
}

std::size_t EventGraph::memoryBytes() const {
    auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return bytes(rows_m) + pidRows_m.memoryBytes() + bytes(rowMarkers_m) + bytes(lost_m) +
           bytes(entries_m) + bytes(binEntry_m) + bytes(binIndex_m) + bytes(ckCpu_m) +
           bytes(ckCpuAt_m) + bytes(ckSaved_m) + bytes(ckSavedAt_m);
}

// ---------------------------------------------------------------------------
// Builder

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
    std::vector<std::uint8_t> touched;
    std::vector<std::uint32_t> touchedRows;

    void addRow(GraphRow r) {
        g.rows_m.push_back(r);
        g.rowMarkers_m.push_back(0);
        ctl.inControl.push_back(0);
        count.push_back(0);
        firstIndex.push_back(0);
        kind.push_back(GraphEventKind::Other);
        changes.push_back(0);
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
        checkpoint();
    }
    void closeBin() {
        const std::uint64_t base = g.binIndex_m[cur];
        for (std::uint32_t r : touchedRows) {
            g.entries_m.push_back({r, count[r], count[r] ? std::uint32_t(firstIndex[r] - base) : 0,
                                   kind[r], changes[r], ctl.inControl[r]});
            count[r] = 0;
            changes[r] = 0;
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
        g.ckCpu_m = std::move(ckCpu);
        g.ckCpuAt_m = std::move(ckCpuAt);
        g.ckSaved_m = std::move(ckSaved);
        g.ckSavedAt_m = std::move(ckSavedAt);
        g.width_m *= 2;
        cur /= 2;
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
