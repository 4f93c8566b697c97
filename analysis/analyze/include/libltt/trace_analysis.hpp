// TraceAnalysis: LTT's "trace analysis procedure" (paper §3.5). One pass over
// the merged events rebuilds the process tree (from the .proc snapshot plus
// fork / kernel-thread / exec / exit events), follows which task is current
// on each CPU (block headers and schedchanges) and accumulates per-process
// and system-wide statistics.
//
// Time accounting: the time between two consecutive records of a CPU belongs
// to the task current on that CPU, in the mode the CPU was in (interrupt,
// trap, system call, user code, idle). Across a lost-events gap nothing is
// known, so that stretch is not charged, and every interval still open when
// any CPU lost events (a system call, a sleep, a wait to run) is dropped
// rather than reported with a wrong length (docs/analysis.md).
//
// Off-CPU time, as `perf sched timehist --state` splits it: a task switched
// out while runnable is *preempted* until it runs again; one switched out
// blocked *sleeps* (or *waits for I/O* when it blocked uninterruptibly or
// inside a file-system buffer wait) until its wakeup, then has *scheduling
// delay* until it runs.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <libltt/pid_table.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/user_events.hpp>
#include <ltt/module_events.h>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ltt {

// One system call's accounting within one process.
struct SyscallStats {
    std::uint32_t slot = 0;    // syscall number (TraceAnalysis::syscallSlotName)
    std::uint64_t count = 0;   // entries seen
    std::uint64_t timed = 0;   // entry/exit pairs not cut by a gap
    std::uint64_t totalNs = 0; // wall time from entry to exit, summed over `timed`
    std::uint64_t minNs = 0;
    std::uint64_t maxNs = 0;
    std::uint64_t errors = 0; // exits with a negative return value
};

// A process's system call accounting: one SyscallStats per system call it
// made, in slot order. Sparse, because a trace of a build holds tens of
// thousands of short-lived processes that each make a handful of the ~450
// system calls: memory grows with the calls a process really made (at most
// ~37 KB for one that made them all), not with the syscall table.
//
// Entries are found through a small open-addressing hash of slot numbers,
// hashed by their low bits (the common calls have small numbers) and at
// most a quarter full; each rebuild places the most used calls first, so
// they sit in their own cell and counting a call is one load, a compare and
// an increment. The entries stay sorted, so reports walk them in slot order.
class SyscallTable {
public:
    using const_iterator = std::vector<SyscallStats>::const_iterator;
    SyscallTable() = default;
    SyscallTable(const SyscallTable& o);
    SyscallTable& operator=(const SyscallTable& o);
    SyscallTable(SyscallTable&& o) noexcept;
    SyscallTable& operator=(SyscallTable&& o) noexcept;
    ~SyscallTable() = default;
    bool empty() const { return entries_m.empty(); }
    std::size_t size() const { return entries_m.size(); } // system calls made
    const_iterator begin() const { return entries_m.begin(); }
    const_iterator end() const { return entries_m.end(); }
    const SyscallStats* find(std::uint32_t slot) const; // null when never made

    // Where slot `slot`'s entry is (created with count 0 on first use), for
    // entry(). Creating an entry moves the positions of the entries after it.
    // `slot` < kMaxSlots.
    std::uint32_t use(std::uint32_t slot) {
        const std::uint32_t c = cells_m[slot & mask_m];
        if ((c >> 16) == slot + 1) [[likely]]
            return c & 0xffffu;
        return probe(slot);
    }
    SyscallStats& entry(std::uint32_t pos) { return entries_m[pos]; }
    static constexpr std::uint32_t kMaxSlots = 0xffff;

private:
    std::uint32_t probe(std::uint32_t slot);
    void rehash(std::uint32_t cells);
    std::vector<SyscallStats> entries_m; // sorted by slot
    // Cells: (slot + 1) << 16 | position in entries_m; 0 when empty. An
    // empty table has the one empty cell kNoCells, so use() needs no test.
    static constexpr std::uint32_t kNoCells[1] = {0};
    std::unique_ptr<std::uint32_t[]> owned_m;
    const std::uint32_t* cells_m = kNoCells;
    std::uint32_t mask_m = 0; // cells - 1
};

struct ProcessStats {
    std::uint64_t syscalls = 0;
    std::uint64_t traps = 0;
    std::uint64_t bytesRead = 0;
    std::uint64_t bytesWritten = 0;
    std::uint64_t userNs = 0;    // executing process code
    std::uint64_t runningNs = 0; // scheduled on a CPU, whatever the mode
    std::uint64_t syscallNs = 0; // on a CPU inside a system call
    std::uint64_t trapNs = 0;
    std::uint64_t irqNs = 0; // interrupts and soft IRQs taken while current
    std::uint64_t ioWaitNs = 0;
    std::uint64_t sleepNs = 0;
    std::uint64_t preemptedNs = 0;
    std::uint64_t schedDelayNs = 0;
    std::uint64_t maxDelayNs = 0; // longest preemption or scheduling delay
    std::uint64_t maxSliceNs = 0; // longest stretch on a CPU between switches
    std::uint64_t schedIn = 0;
    std::uint64_t wakeups = 0; // PROCESS WAKEUP events naming this task
    // The system calls made, by number; numbers the syscall table does not
    // know share its last slot ("unknown").
    SyscallTable syscallTable;
};

// Adds `from`'s figures to `into`: counts, times and system call accounting
// summed, the longest delay and slice as maxima (a selection of processes
// seen as one).
void addStats(ProcessStats& into, const ProcessStats& from);

// One task (thread) instance: a PID reused after an exit is a new Process.
struct Process {
    std::int32_t pid = 0;
    std::int32_t ppid = 0;
    std::int32_t tgid = 0;
    std::string name;
    bool kthread = false;
    bool fromSnapshot = false; // listed in the .proc file
    bool exited = false;
    std::uint64_t startNs = 0; // fork/kthread time (0 when from the snapshot)
    std::uint64_t exitNs = 0;
    std::vector<std::uint32_t> children; // indices into TraceAnalysis::processes()
    ProcessStats stats;
    // Application events the process logged (user streams), by type name:
    // counted for the thread group's leader (the record's tgid).
    std::map<std::string, std::uint64_t> userEvents;

    // Transient state of the walk.
    enum class OffCpu : std::uint8_t { None, Preempted, Sleeping, IoWait, Runnable };
    std::int32_t onCpu = -1;
    std::uint32_t currentOn = 0; // CPUs on which the walk has it current
    OffCpu off = OffCpu::None;
    bool woken = false;
    bool inSyscall = false;
    bool inBufWait = false;
    std::uint32_t trapDepth = 0;
    std::uint32_t syscallEntry = 0; // position of the open call in stats.syscallTable
    // idle << 3 | trapDepth != 0 << 2 | inSyscall << 1 | kthread: how time
    // on a CPU is charged to this task (TraceAnalysis keeps it up to date).
    std::uint8_t modeBits = 0;
    std::uint64_t offStartNs = 0, wokenNs = 0, syscallStartNs = 0, sliceStartNs = 0;
    std::uint64_t sliceGen = ~0ull; // ~0: no slice open
    std::uint64_t offGen = 0, syscallGen = 0;
};

struct CpuStats {
    std::uint64_t userNs = 0;
    std::uint64_t kernelNs = 0;
    std::uint64_t irqNs = 0;
    std::uint64_t idleNs = 0;
    std::uint64_t events = 0;
    std::uint64_t lost = 0;
    std::uint64_t firstNs = 0, lastNs = 0;
    bool seen = false;
};

// Which statistics the trace can support, from the masks in its header.
// A figure whose events were masked out at trace time is reported as such,
// never as zero.
struct Availability {
    bool syscalls = true;     // SYSCALL_ENTRY and EXIT
    bool syscallNames = true; // SYSCALL_ENTRY details
    bool traps = true;
    bool irqs = true;
    bool sched = true;                        // SCHEDCHANGE with details
    bool wakeups = true;                      // PROCESS (wakeup, fork, exit) with details
    bool fileIo = true;                       // FILE_SYSTEM with details
    std::vector<std::string> missing() const; // names of what is masked out
};

// A CONFIG record: the session's masks, filters or variables changed while
// it traced (include/ltt/module_events.h). `config` is the whole new
// configuration, `what` the part that changed (enum ltt_config_sub).
struct ConfigChange {
    std::uint64_t ns = 0;
    std::uint16_t cpu = 0;
    std::uint8_t what = 0;
    ltt_ev_config config{};
};

// Why the analysis could not tell which task an event belongs to
// (docs/analysis.md, "Attribution"). Such events are counted under the
// "unattributed" entry, never under a process.
enum class Unattributed : std::uint8_t {
    // The trace records neither scheduling changes nor CONTEXT records
    // there (event mask, at the start or from a CONFIG record on): which
    // task runs after a block's start is not known.
    NoContext,
    // A block whose header names no task (a negative pid).
    NoBlockTask,
    // Events only a task makes (a system call, a file operation) while
    // the trace showed the CPU idle, or, in a restricted trace, running a
    // task the session may not see: the task became visible without a
    // record saying so.
    HiddenTask,
    Count
};
// What the text and JSON reports say for each reason ("reason", and a key).
const char* unattributedReason(Unattributed why, bool restricted);
const char* unattributedKey(Unattributed why);
// The pid of the "unattributed" entry (TraceAnalysis::unattributed()).
inline constexpr std::int32_t kUnattributedPid = -1;

// A stretch of the trace, [fromNs, toNs].
struct TimeSpan {
    std::uint64_t fromNs = 0;
    std::uint64_t toNs = 0;
};

class TraceAnalysis {
public:
    // `snapshot` may be null (no .proc file): every process is then "unknown"
    // until an exec names it.
    TraceAnalysis(const TraceReader& reader, const ProcSnapshot* snapshot);
    // Not copyable: its CPU states and pid table point into its own storage.
    TraceAnalysis(const TraceAnalysis&) = delete;
    TraceAnalysis& operator=(const TraceAnalysis&) = delete;

    // Feeds one event; events must come in merged order (a TraceCursor walk).
    // After feeding events by hand, call finish() before reading results.
    void add(const Event& event);
    void finish();
    // Walks the whole trace: the fast path, for every front end (traceanalyze,
    // traceview). `progress` (may be empty) is called before the walk and
    // every 2^18 events with the fraction done; returning false cancels the
    // walk. Returns
    // false when the walk stopped on corruption (error() says where; the
    // statistics cover what came before) or was cancelled (cancelled();
    // the statistics are then partial and not finished).
    bool run(const std::function<bool(double)>& progress = {});
    const std::optional<TraceError>& error() const { return error_m; }
    bool cancelled() const { return cancelled_m; }

    const TraceReader& reader() const { return reader_m; }
    const Availability& availability() const { return avail_m; }
    // Where the module got the events (LTT_BACKEND_*): the TRACE_START
    // record's backend field, else the file header's
    // LTT_TRACE_F_TRACEPOINTS; traces that have neither came from the
    // patched kernel's facility.
    std::uint32_t backend() const { return backend_m; }
    // "facility" or "tracepoints" (docs/json.md).
    static const char* backendName(std::uint32_t backend);
    const std::deque<Process>& processes() const { return processes_m; }
    // Roots of the process tree (processes whose parent is unknown or 0),
    // pid 0 ("The All Mighty") first.
    std::vector<std::uint32_t> roots() const;
    const std::vector<CpuStats>& cpus() const { return cpus_m; }
    CpuStats total() const;
    const std::array<std::uint64_t, LTT_EV_COUNT + 1>& eventCounts() const { return counts_m; }
    std::uint64_t events() const { return events_m; }
    std::uint64_t lostEvents() const { return lost_m; }
    // Application events (user streams): the EVENT records that decode,
    // those lost (the producers' rings full), and the records that do not
    // decode (each with its offset and why; at most kMaxUserProblems kept,
    // userProblemCount() counts all). Their other records (declarations,
    // block frames) are in events() and eventCounts() with the CPUs'.
    std::uint64_t userEvents() const { return userEvents_m; }
    std::uint64_t userLostEvents() const { return reader_m.userLostEvents(); }
    bool hasUserStreams() const { return !reader_m.userStreams().empty(); }
    const std::vector<TraceError>& userProblems() const { return userProblems_m; }
    std::uint64_t userProblemCount() const { return userProblemCount_m; }
    static constexpr std::size_t kMaxUserProblems = 100;
    // The decoder of the trace's application events (null without user streams).
    const UserEvents* userDecoder() const { return user_m.get(); }
    // The trace's CONFIG records in time order (empty for a trace whose
    // configuration never changed).
    const std::vector<ConfigChange>& configChanges() const { return config_m; }
    // Where event `id` was not recorded because the event mask left it out:
    // from the header's mask and the CONFIG records, within [firstNs(),
    // lastNs()]. Empty when it was recorded throughout; one span covering
    // the whole trace when it never was.
    std::vector<TimeSpan> notRecorded(unsigned id) const;
    std::uint64_t firstNs() const { return firstNs_m; }
    std::uint64_t lastNs() const { return lastNs_m; }
    // Name of syscall table slot `slot` ("read", or "unknown").
    static std::string syscallSlotName(std::uint32_t slot);
    // What happened where the trace does not say which task was current
    // (docs/analysis.md, "Attribution"): a pseudo process (pid
    // kUnattributedPid, name "unattributed") holding those events'
    // figures, and the records counted per reason. Never part of
    // processes() or the tree.
    const Process& unattributed() const { return unattributedTotal_m; }
    std::uint64_t unattributedEvents() const;
    std::uint64_t unattributedEvents(Unattributed why) const {
        return unattributedEvents_m[static_cast<std::size_t>(why)];
    }
    bool restricted() const { return restricted_m; }

private:
    // Per-CPU state of the walk, with the CPU's figures: cpus_m and
    // counts_m are filled from these in finish().
    struct CpuState {
        Process* current = nullptr;
        std::uint64_t lastNs = 0;
        bool started = false;
        std::uint32_t irqDepth = 0;
        std::uint32_t softDepth = 0;
        std::uint8_t irqBit = 0; // 16 while irqDepth or softDepth
        // The largest record time seen before a later, smaller one: with
        // lastNs, the largest time of all (lastNs_m, in finish()).
        std::uint64_t peakNs = 0;
        // Time charged since the current task last changed, by charge()'s
        // table index (bit i of slotsUsed: slotNs[i] may be non-zero);
        // flush() moves it to the CPU's and the task's figures.
        std::array<std::uint64_t, 32> slotNs{};
        std::uint32_t slotsUsed = 0;
        // While current is this CPU's unattributed entry: why, and the
        // CPU's record count when it began.
        Unattributed why = Unattributed::NoContext;
        std::uint64_t unattributedFrom = 0;
        Process* unattributed = nullptr;         // this CPU's entry (unattributedCpu_m)
        CpuStats stats;                          // events: see counts
        std::array<std::uint64_t, 256> counts{}; // by event id, unknown ids too
    };
    // add(), inlined into run()'s walk. InRun: `event` is no barrier
    // (isBarrier()), so its CPU's first block has started. E: Event, or
    // the walk's EventOf<V>, whose copyDetails() knows the format.
    template <bool InRun, class E> void step(CpuState& s, const E& event); // s: the event's CPU's
    // run() walks with TraceCursor::forEachByCpu: these are its barriers
    // (the events that touch more than their CPU and its current task) and
    // the CPUs each one depends on.
    static constexpr bool isBarrier(const ltt_record_header& h) {
        return h.event == LTT_EV_SCHEDCHANGE || h.event == LTT_EV_PROCESS ||
               h.event == LTT_EV_BLOCK_START || h.event == LTT_EV_CONTEXT ||
               h.event == LTT_EV_CONFIG;
    }
    template <class E> std::uint32_t dependsOn(const E& e) const;
    template <class E> std::uint32_t cpusDependedOn(const E& e) const;
    std::uint32_t runningElsewhere(std::uint16_t cpu, const Process* a, const Process* b) const;
    // Every change of a CPU's current task goes through here, which counts
    // the tasks (the idle task aside) current on more than one CPU at once.
    // The idle task and the unattributed entries (pid <= 0) are left out.
    void setCurrent(CpuState& s, Process& p) {
        flush(s);
        Process& old = *s.current;
        if (&old == s.unattributed) [[unlikely]]
            endUnattributed(s);
        shared_m -= old.pid > 0 && old.currentOn-- == 2;
        s.current = &p;
        shared_m += p.pid > 0 && ++p.currentOn == 2;
    }
    // Makes the CPU's current task its unattributed entry, for `why`;
    // `trigger`: the record that showed it (already counted) is one of
    // its events.
    void unattribute(std::uint16_t cpu, Unattributed why, bool trigger);
    void endUnattributed(CpuState& s);
    static std::uint64_t recordsSoFar(const CpuState& s);
    // A task's event while the CPU shows the idle task (or a hidden one):
    // the CPU's current task becomes its unattributed entry.
    Process& taskWhileIdle(std::uint16_t cpu);
    void contextSwitch(std::uint16_t cpu, std::uint8_t sub, const ltt_ev_context& d);
    void configChange(const ConfigChange& c);
    std::uint32_t shared_m = 0;
    void processEvent(const Event& e, Process& cur, std::uint64_t ns);
    // A record of a user stream (event.isUser()): never a CPU's.
    void userEvent(const Event& e);
    void exec(const Event& e, Process& cur);
    static constexpr std::uint8_t kModeKthread = 1, kModeSyscall = 2, kModeTrap = 4;
    static void refreshMode(Process& p) {
        p.modeBits = static_cast<std::uint8_t>((p.pid == 0) << 3 | (p.trapDepth != 0) << 2 |
                                               p.inSyscall << 1 | p.kthread);
    }
    static void refreshIrq(CpuState& s) { s.irqBit = (s.irqDepth | s.softDepth) ? 16 : 0; }
    Process& live(std::int32_t pid);
    static bool adoptable(const Process& p);
    void adopt(std::uint32_t idx, const std::string& parentName);
    Process& create(std::int32_t pid, std::int32_t ppid, const std::string& name);
    template <bool Started> void charge(CpuState& s, std::uint64_t ns);
    static void flush(CpuState& s);
    void gap(std::uint16_t cpu, std::int32_t pid);
    void leaveCpu(std::uint16_t cpu);
    void switchTo(std::uint16_t cpu, Process& in, std::uint64_t ns);
    void switchOut(Process& out, std::uint32_t state, std::uint64_t ns);

    const TraceReader& reader_m;
    Availability avail_m;
    std::uint32_t backend_m = LTT_BACKEND_FACILITY;
    std::deque<Process> processes_m; // stable addresses
    // pid -> index of its live instance + 1 (0: none); memory follows the
    // pids the trace holds, not the largest one (see pid_table.hpp).
    PidTable livePids_m;
    std::uint32_t findLive(std::int32_t pid) const; // index + 1, 0 when none
    void setLive(std::int32_t pid, std::uint32_t index);
    std::uint32_t syscallSlots_m = 0;
    TscConverter tsc_m;
    std::vector<CpuState> state_m;
    std::vector<CpuStats> cpus_m;
    std::array<std::uint64_t, LTT_EV_COUNT + 1> counts_m{}; // last: unknown ids
    std::uint64_t events_m = 0, lost_m = 0;
    std::uint64_t firstNs_m = 0, lastNs_m = 0;
    std::uint64_t gen_m = 0;            // bumped at every lost-events gap
    std::vector<ConfigChange> config_m; // sorted by time in finish()
    std::optional<TraceError> error_m;
    bool cancelled_m = false;
    std::unique_ptr<UserEvents> user_m;
    std::uint64_t userEvents_m = 0, userProblemCount_m = 0;
    std::array<std::uint64_t, LTT_EV_COUNT + 1> userCounts_m{}; // user streams' records by id
    std::vector<TraceError> userProblems_m;
    // Attribution: whether the trace says which task is current after a
    // block's start (CONTEXT records, or scheduling changes recorded; a
    // CONFIG record may change the latter), and the unattributed entries,
    // one per CPU (their state is per CPU), summed in finish().
    bool contextFlag_m = false;
    bool context_m = true;
    bool restricted_m = false;
    std::deque<Process> unattributedCpu_m;
    Process unattributedTotal_m;
    std::array<std::uint64_t, static_cast<std::size_t>(Unattributed::Count)> unattributedEvents_m{},
        unattributedClosed_m{}; // those whose CPU's task became known again
};

// A process's name after an exec: the last component of the path the EXEC
// record carries (the path itself when it ends in '/').
std::string execName(const char* path, std::size_t len);

} // namespace ltt
