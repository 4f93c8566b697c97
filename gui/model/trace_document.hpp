// TraceDocument: everything traceview shows about one open trace, taken from
// libltt. The widgets ask it for events, rows, processes and statistics;
// they never look at the trace file themselves.
//
// Loading, filtering and searching walk the whole trace, so they take a
// Progress that the caller's worker thread updates and the UI thread polls
// (and can cancel).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <libltt/critical_path.hpp>
#include <libltt/event_query.hpp>
#include <libltt/latency.hpp>
#include <libltt/process_report.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/timebin_model.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace traceview {

// Shared between a worker thread and the UI thread.
struct Progress {
    std::atomic<double> fraction{0.0};
    std::atomic<bool> cancel{false};
    bool cancelled() const { return cancel.load(std::memory_order_relaxed); }
    void set(double f) { fraction.store(f, std::memory_order_relaxed); }
};

// One line of the raw trace list.
struct EventLine {
    std::uint64_t index = 0;
    unsigned cpu = 0;
    std::uint8_t id = 0; // enum ltt_event_id
    std::uint8_t subtype = 0;
    std::string event;        // "Syscall entry"
    std::uint64_t timeNs = 0; // since the trace start
    std::int32_t pid = 0;
    unsigned size = 0;       // record bytes
    std::string description; // "SYSCALL : write; IP : 0x..."
    bool lost = false;
    // A record of a user stream (an application's events): `cpu` is
    // ltt::kUserCpu, `stream` the stream's number, and an application
    // event's description is UserEvents' text (`ltt_mark text="..."`).
    bool user = false;
    std::uint16_t stream = 0;
};

// One application event (a USER EVENT that decodes), for the event graph's
// markers and the search: its place, its logging thread and process, its
// type's name and UserEvents' text of it.
struct UserMark {
    std::uint64_t index = 0;
    std::uint64_t timeNs = 0; // since the trace start
    std::int32_t pid = 0;     // the thread that logged it
    std::uint32_t tgid = 0;
    std::uint16_t stream = 0;
    std::string name;
    std::string text; // `name field=value ...`
};

using EventFilter = ltt::EventFilter;
using SearchQuery = ltt::SearchQuery;
using ReportLine = ltt::ReportLine;
using SyscallLine = ltt::SyscallAccount;

// One process instance of the tree (a pid reused after an exit is another).
struct ProcessInfo {
    std::int64_t id = 0;      // 0: the root, pid 0
    std::int64_t parent = -1; // id of the parent, -1 for the root
    std::int32_t pid = 0;
    std::string name;
    std::uint64_t syscalls = 0;
    std::uint64_t runningNs = 0;
};

// The "unattributed" entry (docs/analysis.md, "Attribution"): the events
// the trace does not attribute to any task, counted apart from the
// processes and never in the tree, by reason. In processReport(),
// syscalls() and the selections it is the id kUnattributedId.
struct UnattributedInfo {
    struct Reason {
        std::string key;  // no_context, no_task, hidden_task (--json's keys)
        std::string text; // what traceanalyze's warning says
        std::uint64_t events = 0;
    };
    std::uint64_t events = 0;
    std::vector<Reason> reasons; // those with events, in the report's order
    std::uint64_t syscalls = 0;
    std::uint64_t runningNs = 0;
};
inline constexpr std::int64_t kUnattributedId = -2;

class TraceDocument {
public:
    // Opens and indexes a trace (runs on a worker thread). Returns nullptr
    // and sets `error` on failure or cancellation.
    static std::unique_ptr<TraceDocument> open(const std::string& tracePath,
                                               const std::string& procPath, Progress& progress,
                                               std::string& error);
    // Second stage (worker thread): the process analysis and the index for
    // random access. Until it has returned true, only the graph, the counts
    // and the snapshot's names may be used. False when cancelled.
    bool complete(Progress& progress);
    bool ready() const;
    ~TraceDocument();
    TraceDocument(const TraceDocument&) = delete;
    TraceDocument& operator=(const TraceDocument&) = delete;

    const std::string& tracePath() const { return trace_m; }
    const std::string& procPath() const { return proc_m; }
    std::string summary() const; // one line for the status bar
    std::vector<std::string> warnings() const;

    std::uint64_t eventCount() const;
    EventLine event(std::uint64_t index) const;
    std::uint64_t eventTimeNs(std::uint64_t index) const;
    // First event at or after timeNs (eventCount() when none).
    std::uint64_t eventAtTime(std::uint64_t timeNs) const;
    // The first event of `cpu` at or after `timeNs` (within a few thousand
    // events of the first event at that time); nullopt when none.
    std::optional<std::uint64_t> eventOnCpuAt(unsigned cpu, std::uint64_t timeNs) const;
    std::uint64_t totalLost() const;
    std::uint64_t realtimeAnchorNs() const;
    unsigned cpuCount() const;

    const ltt::EventGraph& graph() const;
    // The application events, by event index (empty without user
    // streams); available from open(), like the graph.
    const std::vector<UserMark>& userMarks() const;
    // The memory, paging and load variables the trace's VARS records hold,
    // as series over time (ns since the trace start; libltt's
    // VarSeriesBuilder, computed while the graph is built); empty without
    // VARS records.
    const std::vector<ltt::VarSeries>& varSeries() const;
    // For a SYSCALL_ENTRY whose arguments were recorded, the call
    // (`openat(AT_FDCWD, "/etc/passwd", O_RDONLY)`); for its SYSCALL_EXIT,
    // the call and its return value (` = 3`), as traceanalyze -d appends
    // it (libltt's SyscallTracker). Empty otherwise, and until ready().
    std::string_view syscallText(std::uint64_t index) const;
    std::string rowLabel(std::size_t row) const;
    std::string processName(std::int32_t pid) const;

    // The choices of the event-type menus (filter, search): every event by
    // its name, then the groups of libltt's event-name vocabulary (SYSCALL,
    // CORE, ...), each with its mask (event_names.hpp).
    struct EventChoice {
        std::string label;
        std::uint64_t mask = 0;
    };
    static std::vector<EventChoice> eventTypes();
    // The menu label of a mask (empty when it is none of the choices).
    static std::string eventTypeLabel(std::uint64_t mask);

    std::vector<ProcessInfo> processes() const;
    // The unattributed entry; nullopt when the trace attributes every
    // event (and until ready()).
    std::optional<UnattributedInfo> unattributed() const;
    // CPU time out of the idle task (user, kernel, interrupts) over all
    // CPUs, from the process analysis (TraceAnalysis::total()).
    std::uint64_t busyCpuNs() const;
    // By ProcessInfo::id; the root (id 0) gives the system-wide figures,
    // kUnattributedId the unattributed entry's (its events and reasons
    // first, then the characteristics a process has).
    std::vector<ReportLine> processReport(std::int64_t id) const;
    std::vector<SyscallLine> syscalls(std::int64_t id) const;
    // A selection of several processes (ProcessInfo ids) seen as one: the
    // same characteristics and system call accounting, each figure the sum
    // over the selection (longest delay and slice: the maximum); the
    // process's own lines (PID, parent, start, exit) are replaced by the
    // number of processes. The root (id 0) in a selection stands for pid 0,
    // kUnattributedId for the unattributed entry.
    std::vector<ReportLine> selectionReport(const std::vector<std::int64_t>& ids) const;
    std::vector<SyscallLine> selectionSyscalls(const std::vector<std::int64_t>& ids) const;
    // `id` and every process below it in the tree.
    std::vector<std::int64_t> withDescendants(std::int64_t id) const;
    // Where the selection's time went, from libltt's figures of the same
    // names (ProcessStats): user = executing process code, system = in
    // system calls and traps, then interrupts, waiting for I/O, preempted,
    // sleeping and waiting to run. A lone root (id 0) gives every process
    // but the idle task.
    struct TimeBreakdown {
        std::array<std::uint64_t, 7> ns{};
        static constexpr std::array<const char*, 7> kNames = {
            "user", "system", "interrupts", "I/O wait", "preempted", "sleeping", "waiting to run"};
    };
    TimeBreakdown timeBreakdown(const std::vector<std::int64_t>& ids) const;
    // Why the system call accounting is empty or nameless ("masked out at
    // trace time"), as traceanalyze says it; empty when complete.
    std::string syscallNote() const;

    // The latency distributions of the whole trace (libltt's
    // LatencyAnalysis, what traceanalyze --latency prints): computed once
    // by computeLatency() on a worker thread after ready(), kept for the
    // document; nullptr until then. False when cancelled.
    bool computeLatency(Progress& progress);
    const ltt::LatencyAnalysis* latency() const;
    // The critical path of task `pid` over the whole trace (libltt's
    // CriticalPath, traceanalyze --critical-path; worker thread).
    std::shared_ptr<const ltt::CriticalPath> criticalPath(std::int32_t pid) const;
    // Whether the trace was taken with stacks (tracedaemon -S): the off-CPU
    // flame graph (gui/widgets/flame_view.hpp) has something to show.
    bool stacksRecorded() const;

    // Indices of matching events, in order (worker thread).
    std::optional<std::vector<std::uint64_t>> filter(const EventFilter& f,
                                                     Progress& progress) const;
    // Next (or previous) match strictly after (before) `from` (worker thread).
    std::optional<std::uint64_t> search(const SearchQuery& q, std::uint64_t from, bool forward,
                                        Progress& progress) const;

private:
    struct Impl;
    TraceDocument(std::string trace, std::string proc, std::unique_ptr<Impl> impl);
    std::string trace_m;
    std::string proc_m;
    std::unique_ptr<Impl> impl_m;
};

std::string formatTime(std::uint64_t ns); // "1.234567890 s"
std::string formatDuration(std::uint64_t ns);

} // namespace traceview
