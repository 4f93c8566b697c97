// The time-bin model behind traceview's event graph (paper §3.5, §5.1, Fig. 7).
//
// The graph has one row per process active during the trace, plus a kernel
// row and an idle row. On each CPU control is always in exactly one place:
// a process in user mode, the kernel, or the idle task. Horizontal lines show
// where control stays; vertical lines join the rows control moves between.
//
// EventGraphBuilder takes every event once, in time order, and keeps, per
// row, two sorted arrays: the instants control entered or left the row, and
// the row's event markers. A redraw then asks EventGraph::bin() for a visible
// time range split into N pixel columns: for every column boundary a binary
// search finds the first transition and the first marker at or after it, so
// the cost is O(columns × visible rows × log events), independent of how many
// events fall in the window (KernelShark's libkshark-model does the same).
//
// Memory is linear in events (about 17 bytes per event and 9 per control
// transition); that is the price of drawing any zoom level without touching
// the trace file again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ltt {

// What an event is, for the graph's colours and the legend.
enum class GraphEventKind : std::uint8_t {
    Syscall, // entry and exit
    Trap,    // entry and exit
    Irq,     // entry and exit
    SchedChange,
    KernelTimer,
    BottomHalf,  // soft IRQs and tasklets
    IoWaitStart, // file-system buffer wait and page wait starts
    IoWaitEnd,
    Process,    // fork, exit, wakeup, signal...
    FileSystem, // other file-system events
    Other,      // timer, memory, socket, IPC, network, custom
    Lost,       // events lost before this point
    Count
};
inline constexpr std::size_t kGraphEventKinds = static_cast<std::size_t>(GraphEventKind::Count);

// Human name of a kind ("System call", ...), for legends.
std::string_view graphEventKindName(GraphEventKind kind);
// Classifies a record by its event id and subtype (include/ltt/events.h).
// Structure records (block start/end, heartbeat) give std::nullopt: they are
// not drawn.
std::optional<GraphEventKind> graphEventKindOf(std::uint8_t event, std::uint8_t subtype);

enum class GraphRowKind : std::uint8_t { Kernel, Idle, Process };

struct GraphRow {
    GraphRowKind kind = GraphRowKind::Process;
    std::int32_t pid = 0; // Process rows only
};

// One event as the builder needs it; the caller fills it from the reader.
struct GraphEventInput {
    std::uint64_t index = 0;  // the event's number in the time-ordered trace
    std::uint64_t timeNs = 0; // since the trace start, non-decreasing
    std::uint16_t cpu = 0;
    std::int32_t pid = 0;   // task current on the CPU when the event happened
    std::uint8_t event = 0; // enum ltt_event_id
    std::uint8_t subtype = 0;
    std::int32_t schedIn = 0; // SCHEDCHANGE: incoming pid
    // IRQ_ENTRY with LTT_IRQ_IN_KERNEL, or TRAP_ENTRY at a kernel address:
    // the CPU was already in the kernel.
    bool fromKernel = false;
    // LOST: the events lost; BLOCK_START after a gap: the pid of block start.
    std::uint64_t lostCount = 0;
};

class TraceReader;
struct Event;
// The builder's input for one event read by a TraceReader (time, control
// details: incoming task, interrupted-kernel flags, lost count).
GraphEventInput graphEventInput(const TraceReader& reader, const Event& event, std::uint64_t index);

// Per-column answer of EventGraph::bin() for one row.
struct RowBins {
    // Bit flags per column.
    static constexpr std::uint8_t kControlAtStart = 1; // row had control at the column's start
    static constexpr std::uint8_t kControlChanges = 2; // control entered or left inside the column
    static constexpr std::uint8_t kControlAtEnd = 4;   // row has control at the column's end
    std::vector<std::uint8_t> control;
    std::vector<std::int64_t> firstEvent; // first marker's event index, -1 when none
    std::vector<GraphEventKind> firstKind;
    std::vector<std::uint32_t> eventCount; // markers in the column
};

struct LostMark {
    std::uint64_t timeNs = 0;
    std::uint16_t cpu = 0;
    std::uint64_t count = 0;
    std::uint64_t index = 0; // the LOST record's event index
};

struct GraphHit {
    std::uint64_t index = 0; // event index
    std::uint64_t timeNs = 0;
    GraphEventKind kind = GraphEventKind::Other;
};

class EventGraph {
public:
    EventGraph() = default;

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
    friend class EventGraphBuilder;
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
class EventGraphBuilder {
public:
    EventGraphBuilder() = default;
    void add(const GraphEventInput& ev);
    // Closes every open interval at `endNs` and returns the graph; the
    // builder is left empty.
    EventGraph finish(std::uint64_t endNs);

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

    EventGraph graph_m;
    std::vector<CpuState> cpus_m;
    std::vector<std::uint8_t> inControl_m; // per row: CPUs in control now
    std::unordered_map<std::int32_t, std::uint32_t> savedDepth_m;
    std::vector<std::uint32_t> pidRowFlat_m; // pid -> row + 1, 0: none
    bool first_m = true;
};

} // namespace ltt
