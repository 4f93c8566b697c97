// The time-bin model behind traceview's event graph (paper §3.5, §5.1, Fig. 7).
//
// The graph has one row per process active during the trace, plus a kernel
// row and an idle row. On each CPU control is always in exactly one place:
// a process in user mode, the kernel, or the idle task. Horizontal lines show
// where control stays; vertical lines join the rows control moves between.
//
// Memory does not grow with events. EventGraphBuilder takes every event once,
// in time order, and keeps
//   - the rows (one per process: grows with processes), found by pid in a
//     PidTable (16 KB pages for the pids seen, not a table up to the
//     largest pid);
//   - a summary over at most kSummaryBins time bins of equal width (the width
//     doubles, merging bins pairwise, whenever the trace outgrows them): per
//     bin and per row active in it, the markers' count, the first marker's
//     event index and kind, whether control entered or left the row, and how
//     many CPUs held the row at the bin's end;
//   - a checkpoint at every bin start: each CPU's task, kernel depth and row,
//     the saved depths of tasks not running (only those that differ from the
//     default), and the index of the bin's first event.
// EventGraph::bin() sweeps the requested columns: a bin that lies wholly
// inside one column is answered from the summary; a bin that a column
// boundary cuts is re-read from the trace (GraphEventSource: the reader's
// mapping), starting at its checkpoint and replaying the builder's control
// rules, so every answer is exact, the same as keeping every transition and
// marker. A view whose columns are whole bins (EventGraph::alignedView)
// reads nothing; a view zoomed in below one bin per column re-reads only its
// own window (at most columns × one bin's events).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <libltt/pid_table.hpp>
#include <memory>
#include <optional>
#include <string_view>
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
    // Bit k set: the column holds a marker of GraphEventKind k (the graph's
    // event-kind filter draws a column whose markers are all hidden as empty).
    std::vector<std::uint16_t> kinds;
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

// Where EventGraph re-reads events: the same events, in the same order, as
// the builder was given, from any event index on.
class GraphEventSource {
public:
    class Walk {
    public:
        virtual ~Walk() = default;
        // The next event; false at the end.
        virtual bool next(GraphEventInput& out) = 0;
    };
    virtual ~GraphEventSource() = default;
    // A walk starting at the event numbered `index`.
    virtual std::unique_ptr<Walk> walkFrom(std::uint64_t index) const = 0;
};

// A source over a TraceReader's mapping (random access through its
// checkpoint index). The reader must outlive the source.
std::shared_ptr<const GraphEventSource> traceGraphSource(const TraceReader& reader);
// A source over events held in memory (tests).
std::shared_ptr<const GraphEventSource> vectorGraphSource(std::vector<GraphEventInput> events);

class EventGraph {
public:
    // Upper bound on the summary's time bins.
    static constexpr std::uint32_t kSummaryBins = 16384;

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
    // Reuses out's storage.
    void bin(std::size_t row, std::uint64_t begin, std::uint64_t end, unsigned columns,
             RowBins& out) const;
    // The same for several rows in one sweep: out[r] for every r in `rows`
    // (out is resized to rows().size(); other entries are left alone).
    void binRows(const std::vector<std::size_t>& rows, std::uint64_t begin, std::uint64_t end,
                 unsigned columns, std::vector<RowBins>& out) const;
    // Markers of all rows per column (the overview's density strip).
    std::vector<std::uint32_t> density(std::uint64_t begin, std::uint64_t end,
                                       unsigned columns) const;
    // The marker of `row` nearest to `timeNs`, if one is within `maxDistNs`,
    // among the kinds whose bit (1 << GraphEventKind) is set in `kinds`.
    std::optional<GraphHit> nearestEvent(std::size_t row, std::uint64_t timeNs,
                                         std::uint64_t maxDistNs,
                                         std::uint16_t kinds = 0xffff) const;
    // Whether `row` has control at `timeNs` (on at least one CPU).
    bool hasControl(std::size_t row, std::uint64_t timeNs) const;

    // CPUs the trace's events name (0 .. cpuCount() - 1).
    std::size_t cpuCount() const;
    // The CPU view: out[cpu][c] is the task current on `cpu` at the start of
    // column c (before the events at that instant; -1 while the CPU's state
    // is unknown). Columns starting on a bin boundary come from the
    // checkpoints; the others walk from the checkpoint of their bin (at most
    // one bin's events, a walk shared by the columns of one bin).
    void cpuTasks(std::uint64_t begin, std::uint64_t end, unsigned columns,
                  std::vector<std::vector<std::int32_t>>& out) const;
    // The task current on `cpu` once every event at or before `timeNs` has
    // happened (a SCHEDCHANGE at `timeNs` counts); -1 when unknown.
    std::int32_t taskAt(std::uint16_t cpu, std::uint64_t timeNs) const;
    // CPU time spent out of the idle task (user, kernel, interrupts) per
    // column, summed over the CPUs: the summary keeps it per bin and a column
    // that cuts a bin gets the bin's share by overlap. Time across a
    // lost-events gap is not counted.
    std::vector<std::uint64_t> busyNs(std::uint64_t begin, std::uint64_t end,
                                      unsigned columns) const;
    // Events a bin()/binRows() over this view would re-read from the trace
    // (an upper bound: the events of the bins the columns cut).
    std::uint64_t rereadEstimate(std::uint64_t begin, std::uint64_t end, unsigned columns) const;
    // Markers in `row` (for tests and counts).
    std::size_t markerCount(std::size_t row) const { return rowMarkers_m.at(row); }

    // The summary's resolution: bin b covers [startNs() + b*w, startNs() + (b+1)*w).
    std::uint64_t binWidthNs() const { return width_m; }
    std::size_t binCount() const { return binIndex_m.empty() ? 0 : binIndex_m.size() - 1; }
    // A view of `columns` columns showing about [begin, end) whose columns
    // are whole summary bins, when columns are at least one bin wide: the
    // range bin() answers without reading the trace. Otherwise [begin, end).
    // With `cover`, the result covers at least [begin, end).
    std::pair<std::uint64_t, std::uint64_t> alignedView(std::uint64_t begin, std::uint64_t end,
                                                        unsigned columns, bool cover = false) const;
    // Heap bytes held by the model (rows, summary, checkpoints).
    std::size_t memoryBytes() const;
    // Events re-read from the source since the graph was built (statistics).
    std::uint64_t eventsReread() const { return reread_m ? reread_m->load() : 0; }

private:
    friend class EventGraphBuilder;
    friend struct GraphSweep;
    struct Entry {
        std::uint32_t row = 0;
        std::uint32_t count = 0;    // markers in the bin
        std::uint32_t firstOff = 0; // first marker's index - the bin's first index
        GraphEventKind kind = GraphEventKind::Other;
        std::uint8_t changes = 0;  // control entered or left the row in the bin
        std::uint8_t endCount = 0; // CPUs holding the row at the bin's end
        std::uint16_t kinds = 0;   // bit k: a marker of kind k in the bin
    };
    struct CpuCheckpoint {
        std::uint32_t row = 0;
        std::uint32_t pidRow = 0;
        std::int32_t pid = 0;
        std::uint32_t depth = 0;
        std::uint8_t known = 0;
    };
    struct SavedDepth {
        std::int32_t pid = 0;
        std::uint32_t depth = 0;
    };
    std::size_t binOf(std::uint64_t timeNs) const; // clamped to [0, binCount()]

    std::vector<GraphRow> rows_m;
    // pid -> row + 1 (0: none), looked up for every event; memory follows
    // the pids the trace holds, not the largest one (see pid_table.hpp).
    PidTable pidRows_m;
    std::vector<std::size_t> rowMarkers_m;
    std::vector<LostMark> lost_m;
    std::uint64_t start_m = 0;
    std::uint64_t end_m = 0;
    std::uint64_t events_m = 0;
    std::uint64_t width_m = 1;
    // Summary, bin-major: bin b's entries are entries_m[binEntry_m[b] ..
    // binEntry_m[b+1]). binIndex_m[b]: index of the first event at or after
    // the bin's start (binCount() + 1 values: the last is past the end).
    std::vector<Entry> entries_m;
    std::vector<std::uint32_t> binEntry_m;
    std::vector<std::uint64_t> binIndex_m;
    // busy_m[b]: CPU time out of the idle task in bin b, summed over CPUs.
    std::vector<std::uint64_t> busy_m;
    // Checkpoint b (b = 0 .. binCount()): the builder's state before the
    // first event at or after bin b's start; ckCpu_m[ckCpuAt_m[b] ..
    // ckCpuAt_m[b+1]) and ckSaved_m[ckSavedAt_m[b] .. ckSavedAt_m[b+1]).
    std::vector<CpuCheckpoint> ckCpu_m;
    std::vector<std::uint32_t> ckCpuAt_m;
    std::vector<SavedDepth> ckSaved_m;
    std::vector<std::uint32_t> ckSavedAt_m;
    std::shared_ptr<const GraphEventSource> source_m;
    std::shared_ptr<std::atomic<std::uint64_t>> reread_m =
        std::make_shared<std::atomic<std::uint64_t>>(0);
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
    EventGraphBuilder();
    ~EventGraphBuilder();
    EventGraphBuilder(const EventGraphBuilder&) = delete;
    EventGraphBuilder& operator=(const EventGraphBuilder&) = delete;
    void add(const GraphEventInput& ev);
    // Closes the summary at `endNs` and returns the graph, which re-reads
    // events from `source` (the same events as given to add()); the builder
    // is left empty.
    EventGraph finish(std::uint64_t endNs, std::shared_ptr<const GraphEventSource> source);

private:
    struct State;
    std::unique_ptr<State> s_m;
};

} // namespace ltt
