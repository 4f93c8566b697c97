// The event graph's control rules and the sweep that re-reads events from a
// bin's checkpoint: shared by the builder (timebin_builder.cpp), the column
// sweep (timebin_sweep.cpp) and the queries (timebin_queries.cpp), so that
// the builder and every re-read see exactly the same transitions and markers.
// Private to libltt.
#pragma once

#include <algorithm>
#include <cstdint>
#include <libltt/timebin_model.hpp>
#include <ltt/events.h>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ltt {

namespace timebin {
constexpr std::int32_t kIdlePid = 0;
constexpr std::uint32_t kKernelRow = 0;
constexpr std::uint32_t kIdleRow = 1;

inline bool isStructure(std::uint8_t event) {
    return event == LTT_EV_TRACE_START || event == LTT_EV_BLOCK_START ||
           event == LTT_EV_BLOCK_END || event == LTT_EV_HEARTBEAT;
}

// The row an event's marker goes to: interrupt-side events belong to the
// kernel row, the rest to the task's row.
inline std::uint32_t markerRow(GraphEventKind kind, std::uint32_t taskRow) {
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
        if (ev.cpu >= LTT_MAX_CPUS)
            return; // a user stream's record (ltt::kUserCpu): no CPU's control
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

} // namespace timebin

// A walk over the source from a bin's checkpoint, with the builder's control
// state, so that the transitions and markers it sees are the builder's.
struct GraphSweep {
    const EventGraph& g;
    timebin::Control ctl;
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
        if (pid == timebin::kIdlePid)
            return timebin::kIdleRow;
        const std::uint32_t row = g.pidRows_m.find(pid);
        return row ? row - 1 : timebin::kKernelRow;
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

} // namespace ltt
