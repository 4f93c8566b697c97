// TraceAnalysis: see trace_analysis.hpp for the accounting rules. The hot
// path (add) touches only per-CPU state and the current task, found through
// a pointer, so it allocates nothing per event; memory grows with processes.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <libltt/event_format.hpp>
#include <libltt/event_schema.hpp>
#include <libltt/trace_analysis.hpp>

namespace ltt {

namespace {

using schema::kForkCloneThread;
constexpr std::uint32_t kTaskNoload = 0x0400;
const std::string kUnknownName = "unknown";

} // namespace

std::string execName(const char* path, std::size_t len) {
    std::string_view p(path, len);
    auto slash = p.rfind('/');
    if (slash != std::string_view::npos && slash + 1 < p.size())
        p.remove_prefix(slash + 1);
    return std::string(p);
}

std::vector<std::string> Availability::missing() const {
    std::vector<std::string> m;
    if (!syscalls)
        m.push_back("system calls");
    else if (!syscallNames)
        m.push_back("system call details");
    if (!traps)
        m.push_back("traps");
    if (!irqs)
        m.push_back("interrupts");
    if (!sched)
        m.push_back("scheduling changes");
    if (!wakeups)
        m.push_back("process events");
    if (!fileIo)
        m.push_back("file-system events");
    return m;
}

const char* unattributedReason(Unattributed why, bool restricted) {
    switch (why) {
    case Unattributed::NoContext:
        return "the trace records neither scheduling changes nor context records here: which "
               "task ran after each block's start is not known";
    case Unattributed::NoBlockTask:
        return "a block or context record names no task";
    case Unattributed::HiddenTask:
        return restricted ? "system calls or file operations while the trace showed the CPU "
                            "idle or running a task the session may not see (the task became "
                            "the owner's without a record saying so)"
                          : "system calls or file operations while the trace showed the CPU idle";
    case Unattributed::Count:
        break;
    }
    return "unknown";
}

const char* unattributedKey(Unattributed why) {
    switch (why) {
    case Unattributed::NoContext:
        return "no_context";
    case Unattributed::NoBlockTask:
        return "no_task";
    case Unattributed::HiddenTask:
        return "hidden_task";
    case Unattributed::Count:
        break;
    }
    return "unknown";
}

std::uint64_t TraceAnalysis::unattributedEvents() const {
    std::uint64_t n = 0;
    for (const std::uint64_t v : unattributedEvents_m)
        n += v;
    return n;
}

std::string TraceAnalysis::syscallSlotName(std::uint32_t slot) {
    auto n = syscallName(slot);
    return n.empty() ? (slot < syscallTableSize() ? "sys_" + std::to_string(slot) : "unknown")
                     : std::string(n);
}

SyscallTable::SyscallTable(const SyscallTable& o) : entries_m(o.entries_m) {
    if (!entries_m.empty())
        rehash(o.mask_m + 1);
}

SyscallTable& SyscallTable::operator=(const SyscallTable& o) {
    if (this != &o)
        *this = SyscallTable(o);
    return *this;
}

SyscallTable::SyscallTable(SyscallTable&& o) noexcept
    : entries_m(std::move(o.entries_m)), owned_m(std::move(o.owned_m)), cells_m(o.cells_m),
      mask_m(o.mask_m) {
    o.entries_m.clear();
    o.cells_m = kNoCells;
    o.mask_m = 0;
}

SyscallTable& SyscallTable::operator=(SyscallTable&& o) noexcept {
    if (this != &o) {
        entries_m = std::move(o.entries_m);
        owned_m = std::move(o.owned_m);
        cells_m = o.cells_m;
        mask_m = o.mask_m;
        o.entries_m.clear();
        o.cells_m = kNoCells;
        o.mask_m = 0;
    }
    return *this;
}

const SyscallStats* SyscallTable::find(std::uint32_t slot) const {
    auto it = std::lower_bound(entries_m.begin(), entries_m.end(), slot,
                               [](const SyscallStats& s, std::uint32_t n) { return s.slot < n; });
    return it != entries_m.end() && it->slot == slot ? &*it : nullptr;
}

// use() when `slot` is not in its own cell: the rest of the search, and on a
// miss the first call of that system call in this process. Its entry goes in
// slot order, so the entries after it move up one place and the cells are
// rebuilt. Rare (once per call per process, or a collision), so out of line.
[[gnu::noinline]] std::uint32_t SyscallTable::probe(std::uint32_t slot) {
    std::uint32_t h = slot & mask_m;
    for (std::uint32_t c = cells_m[h]; c; c = cells_m[h]) {
        if ((c >> 16) == slot + 1)
            return c & 0xffffu;
        h = (h + 1) & mask_m;
    }
    auto it = std::lower_bound(entries_m.begin(), entries_m.end(), slot,
                               [](const SyscallStats& s, std::uint32_t n) { return s.slot < n; });
    const auto pos = static_cast<std::uint32_t>(it - entries_m.begin());
    entries_m.insert(it, SyscallStats{.slot = slot});
    const std::uint32_t cells = owned_m ? mask_m + 1 : 16;
    rehash(entries_m.size() * 4 > cells ? cells * 2 : cells);
    return pos;
}

// Fills `cells` cells (a power of two) from the entries, the most used
// first: they get their own cell, the fast path of use().
void SyscallTable::rehash(std::uint32_t cells) {
    if (!owned_m || cells != mask_m + 1)
        owned_m = std::make_unique<std::uint32_t[]>(cells);
    else
        std::fill_n(owned_m.get(), cells, 0u);
    cells_m = owned_m.get();
    mask_m = cells - 1;
    std::vector<std::uint32_t> order(entries_m.size());
    for (std::uint32_t pos = 0; pos < order.size(); ++pos)
        order[pos] = pos;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return entries_m[a].count > entries_m[b].count;
    });
    for (const std::uint32_t pos : order) {
        const std::uint32_t slot = entries_m[pos].slot;
        std::uint32_t h = slot & mask_m;
        while (owned_m[h])
            h = (h + 1) & mask_m;
        owned_m[h] = (slot + 1) << 16 | pos;
    }
}

TraceAnalysis::TraceAnalysis(const TraceReader& reader, const ProcSnapshot* snapshot)
    : reader_m(reader), syscallSlots_m(std::min(syscallTableSize(), SyscallTable::kMaxSlots - 1)) {
    tsc_m = reader.tscConverter();
    auto ev = [&](unsigned id) { return reader.eventEnabled(id); };
    auto det = [&](unsigned id) { return reader.eventEnabled(id) && reader.detailsEnabled(id); };
    avail_m.syscalls = ev(LTT_EV_SYSCALL_ENTRY) && ev(LTT_EV_SYSCALL_EXIT);
    avail_m.syscallNames = det(LTT_EV_SYSCALL_ENTRY);
    avail_m.traps = ev(LTT_EV_TRAP_ENTRY) && ev(LTT_EV_TRAP_EXIT);
    avail_m.irqs = ev(LTT_EV_IRQ_ENTRY) && ev(LTT_EV_IRQ_EXIT);
    avail_m.sched = det(LTT_EV_SCHEDCHANGE);
    avail_m.wakeups = det(LTT_EV_PROCESS);
    avail_m.fileIo = det(LTT_EV_FILE_SYSTEM);
    if (reader.header().flags & LTT_TRACE_F_TRACEPOINTS)
        backend_m = LTT_BACKEND_TRACEPOINTS;

    Process& idle = create(0, 0, "The All Mighty");
    idle.fromSnapshot = true;
    idle.kthread = true;
    refreshMode(idle);
    if (snapshot) {
        for (const ProcTask& t : snapshot->tasks) {
            if (t.pid == 0)
                continue;
            Process& p = create(t.pid, t.ppid, t.name);
            p.tgid = t.tgid ? t.tgid : t.pid;
            p.kthread = t.kthread;
            refreshMode(p);
            p.fromSnapshot = true;
        }
    }
    // Link children once every snapshot task exists (parents may be listed
    // after their children).
    for (std::uint32_t i = 1; i < processes_m.size(); ++i) {
        const std::uint32_t parent = findLive(processes_m[i].ppid);
        if (parent && parent - 1 != i && processes_m[i].ppid != 0)
            processes_m[parent - 1].children.push_back(i);
    }
    state_m.resize(reader.ncpus());
    cpus_m.resize(reader.ncpus());
    contextFlag_m = reader.header().flags & LTT_TRACE_F_CONTEXT;
    context_m = reader.contextRecorded();
    restricted_m = reader.header().flags & LTT_TRACE_F_RESTRICTED;
    auto unattributedEntry = [](Process& u) {
        u.pid = u.ppid = u.tgid = kUnattributedPid;
        u.name = "unattributed";
        refreshMode(u);
    };
    unattributedEntry(unattributedTotal_m);
    for (auto& s : state_m) {
        s.current = &processes_m[0];
        s.unattributed = &unattributedCpu_m.emplace_back();
        unattributedEntry(*s.unattributed);
    }
    processes_m[0].currentOn = static_cast<std::uint32_t>(state_m.size());
}

// Inlined: every schedchange looks up pids twice (its dependencies, then
// the task switched in).
[[gnu::always_inline]] inline std::uint32_t TraceAnalysis::findLive(std::int32_t pid) const {
    return livePids_m.find(pid);
}

void TraceAnalysis::setLive(std::int32_t pid, std::uint32_t index) {
    livePids_m.set(pid, index + 1);
}

Process& TraceAnalysis::create(std::int32_t pid, std::int32_t ppid, const std::string& name) {
    const auto idx = static_cast<std::uint32_t>(processes_m.size());
    Process& p = processes_m.emplace_back();
    p.pid = pid;
    p.ppid = ppid;
    p.tgid = pid;
    p.name = name;
    refreshMode(p);
    setLive(pid, idx);
    return p;
}

// Whether a FORK or KTHREAD event naming the live task `p` describes `p`
// itself: `p` was not created by such an event (it came from the snapshot,
// or from its own events seen first) and has not exited.
bool TraceAnalysis::adoptable(const Process& p) {
    return !p.exited && (p.fromSnapshot || p.ppid == -1);
}

// Detaches process `idx` from the parent the snapshot gave it, before its
// FORK event gives it its real one. A placeholder name becomes the parent's,
// as for a new child (an exec seen before the fork has named it already).
void TraceAnalysis::adopt(std::uint32_t idx, const std::string& parentName) {
    Process& c = processes_m[idx];
    if (c.ppid >= 0) {
        if (std::uint32_t old = findLive(c.ppid)) {
            auto& kids = processes_m[old - 1].children;
            kids.erase(std::remove(kids.begin(), kids.end(), idx), kids.end());
        }
    }
    if (!c.fromSnapshot && c.name == "unknown")
        c.name = parentName;
}

// The live instance of `pid`, created as "unknown" when the trace mentions a
// task the snapshot did not list.
Process& TraceAnalysis::live(std::int32_t pid) {
    if (std::uint32_t i = findLive(pid))
        return processes_m[i - 1];
    return create(pid, -1, "unknown");
}

std::vector<std::uint32_t> TraceAnalysis::roots() const {
    // One pass over the children lists: a trace of a busy system holds tens
    // of thousands of tasks.
    std::vector<bool> isChild(processes_m.size(), false);
    for (const Process& p : processes_m)
        for (auto c : p.children)
            isChild[c] = true;
    std::vector<std::uint32_t> r{0};
    for (std::uint32_t i = 1; i < processes_m.size(); ++i)
        if (!isChild[i])
            r.push_back(i);
    return r;
}

const char* TraceAnalysis::backendName(std::uint32_t backend) {
    return backend == LTT_BACKEND_TRACEPOINTS ? "tracepoints" : "facility";
}

CpuStats TraceAnalysis::total() const {
    CpuStats t;
    for (const auto& c : cpus_m) {
        t.userNs += c.userNs;
        t.kernelNs += c.kernelNs;
        t.irqNs += c.irqNs;
        t.idleNs += c.idleNs;
        t.events += c.events;
        t.lost += c.lost;
    }
    t.firstNs = firstNs_m;
    t.lastNs = lastNs_m;
    t.seen = events_m > 0;
    return t;
}

namespace {

// Where charge() puts a stretch of time, by the CPU's mode (see charge()).
struct ChargeSlots {
    std::uint64_t CpuStats::*cpu;
    std::uint64_t ProcessStats::*proc;
    std::uint64_t procMask;    // ~0: charge `proc`; 0: add nothing there
    std::uint64_t runningMask; // ~0: the task was running
};

constexpr std::uint64_t kAll = ~0ull;

// Indexed by irq << 4 | idle << 3 | trap << 2 | syscall << 1 | kthread.
constexpr std::array<ChargeSlots, 32> kChargeSlots = [] {
    std::array<ChargeSlots, 32> t{};
    for (unsigned m = 0; m < 32; ++m) {
        const bool irq = m & 16, idle = m & 8, trap = m & 4, sys = m & 2, kthread = m & 1;
        ChargeSlots& c = t[m];
        c.proc = &ProcessStats::userNs; // with procMask 0 when nothing is charged
        if (irq) {
            c.cpu = &CpuStats::irqNs;
            c.proc = &ProcessStats::irqNs;
            c.procMask = c.runningMask = idle ? 0 : kAll;
        } else if (idle) {
            c.cpu = &CpuStats::idleNs;
        } else {
            c.runningMask = kAll;
            c.cpu = &CpuStats::kernelNs;
            c.procMask = kAll;
            if (trap)
                c.proc = &ProcessStats::trapNs;
            else if (sys)
                c.proc = &ProcessStats::syscallNs;
            else if (kthread)
                c.procMask = 0;
            else
                c.cpu = &CpuStats::userNs;
        }
    }
    return t;
}();

} // namespace

// Charges the time since the CPU's previous record to its current task:
// in an interrupt, to the CPU's interrupt time (and the task's, unless the
// CPU is idle); otherwise to the idle time, or to the task's trap, system
// call or user time (kernel threads: CPU kernel time only). Which of these
// applies changes from one record to the next, so it is a table lookup, not
// branches the CPU would mispredict. The current task only changes at a
// schedchange or a block start, so the time is summed per table slot and
// charged to the CPU and the task when it changes (flush(); finish()).
template <bool Started> inline void TraceAnalysis::charge(CpuState& s, std::uint64_t ns) {
    const std::uint64_t d = (Started || s.started) && ns > s.lastNs ? ns - s.lastNs : 0;
    const unsigned slot = s.irqBit | s.current->modeBits;
    s.slotNs[slot] += d;
    // A table, not 1u << slot: a shift by a variable count is three
    // micro-ops on x86 and this runs for every event.
    static constexpr auto kSlotBit = [] {
        std::array<std::uint32_t, 32> b{};
        for (unsigned i = 0; i < b.size(); ++i)
            b[i] = 1u << i;
        return b;
    }();
    s.slotsUsed |= kSlotBit[slot];
}

void TraceAnalysis::flush(CpuState& s) {
    Process& p = *s.current;
    for (std::uint32_t used = s.slotsUsed; used; used &= used - 1) {
        const unsigned slot = static_cast<unsigned>(std::countr_zero(used));
        const std::uint64_t d = s.slotNs[slot];
        s.slotNs[slot] = 0;
        const ChargeSlots& c = kChargeSlots[slot];
        s.stats.*c.cpu += d;
        p.stats.*c.proc += d & c.procMask;
        p.stats.runningNs += d & c.runningMask;
    }
    s.slotsUsed = 0;
}

// The CPU's current task leaves it at a moment the trace does not show.
void TraceAnalysis::leaveCpu(std::uint16_t cpu) {
    CpuState& s = state_m[cpu];
    Process* old = s.current;
    if ((old->pid > 0 && old->onCpu == cpu) || old == s.unattributed) {
        old->onCpu = -1;
        old->off = Process::OffCpu::None; // when it left is unknown
        old->trapDepth = 0;
        old->modeBits &= ~kModeTrap;
    }
    s.irqDepth = s.softDepth = 0;
    refreshIrq(s);
}

// A lost-events gap (or the CPU's first block): the CPU's state is unknown
// until the block's header says which task is current.
void TraceAnalysis::gap(std::uint16_t cpu, std::int32_t pid) {
    leaveCpu(cpu);
    Process& in = live(pid);
    in.off = Process::OffCpu::None;
    if (in.pid != 0)
        in.onCpu = cpu;
    setCurrent(state_m[cpu], in);
}

std::uint64_t TraceAnalysis::recordsSoFar(const CpuState& s) {
    std::uint64_t n = 0;
    for (const std::uint64_t c : s.counts)
        n += c;
    return n;
}

void TraceAnalysis::unattribute(std::uint16_t cpu, Unattributed why, bool trigger) {
    CpuState& s = state_m[cpu];
    if (s.current == s.unattributed)
        return; // the first reason stands
    leaveCpu(cpu);
    setCurrent(s, *s.unattributed);
    s.why = why;
    s.unattributedFrom = recordsSoFar(s) - (trigger ? 1 : 0);
}

// The CPU's current task is known again, from its latest record, which is
// not one of the unattributed events.
void TraceAnalysis::endUnattributed(CpuState& s) {
    const std::uint64_t n = recordsSoFar(s) - 1;
    unattributedClosed_m[static_cast<std::size_t>(s.why)] += n - std::min(n, s.unattributedFrom);
}

[[gnu::noinline]] Process& TraceAnalysis::taskWhileIdle(std::uint16_t cpu) {
    unattribute(cpu, Unattributed::HiddenTask, true);
    return *state_m[cpu].current;
}

// A CONTEXT record: the task it names is current from now on. Not a
// schedchange (no out state: what the task left does not count as a wait),
// but a switch, unless it says a restricted session's task became (or
// stopped being) the owner's where it was running.
[[gnu::noinline]] void TraceAnalysis::contextSwitch(std::uint16_t cpu, std::uint8_t sub,
                                                    const ltt_ev_context& d) {
    if (d.pid < 0)
        return unattribute(cpu, Unattributed::NoBlockTask, false);
    CpuState& s = state_m[cpu];
    Process& in = live(d.pid);
    if (&in == s.current)
        return;
    Process* old = s.current;
    if (old->pid > 0 && old->onCpu == cpu) {
        old->onCpu = -1;
        old->off = Process::OffCpu::None;
    }
    if (sub == LTT_CONTEXT_SWITCH) {
        s.irqDepth = s.softDepth = 0;
        refreshIrq(s);
    }
    if (in.pid > 0) {
        in.onCpu = cpu;
        in.off = Process::OffCpu::None;
        // A task the trace has not named gets its thread group here.
        if (!in.fromSnapshot && in.ppid == -1 && d.tgid > 0)
            in.tgid = d.tgid;
    }
    setCurrent(s, in);
}

// A CONFIG record: from its time on, a mask without scheduling changes
// (and no CONTEXT records) leaves every CPU's current task unknown until
// the trace says it again (a schedchange, a block's start).
void TraceAnalysis::configChange(const ConfigChange& c) {
    const bool now = contextFlag_m || ((c.config.event_mask >> LTT_EV_SCHEDCHANGE) & 1);
    if (context_m && !now)
        for (std::size_t cpu = 0; cpu < state_m.size(); ++cpu)
            if (state_m[cpu].started)
                unattribute(static_cast<std::uint16_t>(cpu), Unattributed::NoContext, false);
    context_m = now;
}

void TraceAnalysis::switchOut(Process& out, std::uint32_t state, std::uint64_t ns) {
    out.onCpu = -1;
    if (out.sliceGen == gen_m && ns >= out.sliceStartNs)
        out.stats.maxSliceNs = std::max(out.stats.maxSliceNs, ns - out.sliceStartNs);
    out.sliceGen = ~0ull;
    out.woken = false;
    out.offStartNs = ns;
    out.offGen = gen_m;
    if (state == LTT_TASK_RUNNING)
        out.off = Process::OffCpu::Preempted;
    else if (state & (LTT_TASK_DEAD | LTT_TASK_ZOMBIE))
        out.off = Process::OffCpu::None;
    else if (out.inBufWait || ((state & LTT_TASK_UNINTERRUPTIBLE) && !(state & kTaskNoload)))
        out.off = Process::OffCpu::IoWait;
    else
        out.off = Process::OffCpu::Sleeping;
}

void TraceAnalysis::switchTo(std::uint16_t cpu, Process& in, std::uint64_t ns) {
    setCurrent(state_m[cpu], in);
    if (in.pid == 0)
        return;
    in.onCpu = cpu;
    ++in.stats.schedIn;
    in.sliceStartNs = ns;
    in.sliceGen = gen_m;
    if (in.off != Process::OffCpu::None && in.offGen == gen_m && ns >= in.offStartNs) {
        ProcessStats& st = in.stats;
        std::uint64_t delay = 0;
        switch (in.off) {
        case Process::OffCpu::Preempted:
            delay = ns - in.offStartNs;
            st.preemptedNs += delay;
            break;
        case Process::OffCpu::Runnable:
            delay = ns - in.offStartNs;
            st.schedDelayNs += delay;
            break;
        case Process::OffCpu::Sleeping:
        case Process::OffCpu::IoWait: {
            const std::uint64_t until = in.woken && in.wokenNs >= in.offStartNs ? in.wokenNs : ns;
            (in.off == Process::OffCpu::IoWait ? st.ioWaitNs : st.sleepNs) += until - in.offStartNs;
            delay = ns - until;
            st.schedDelayNs += delay;
            break;
        }
        case Process::OffCpu::None:
            break;
        }
        st.maxDelayNs = std::max(st.maxDelayNs, delay);
    }
    in.off = Process::OffCpu::None;
    in.woken = false;
}

// PROCESS events (fork, kernel thread, exit, wakeup): rare next to system
// calls and scheduling, so kept out of step()'s hot loop.
[[gnu::noinline]] void TraceAnalysis::processEvent(const Event& e, Process& cur, std::uint64_t ns) {
    ltt_ev_process d;
    if (!e.detailsAs(d))
        return;
    switch (e.subtype) {
    case LTT_PROCESS_FORK:
    case LTT_PROCESS_KTHREAD: {
        // The parent is the task current on this CPU, not the live
        // instance of its pid: that pid may have been forked again since
        // (a missed EXIT), and the newer instance, current on another CPU,
        // changes in that CPU's runs (an exec renames it), which the walk
        // may feed before or after this barrier.
        Process& parent = cur;
        // The unattributed entry is no parent (nor a name).
        const bool knownParent = cur.pid >= 0;
        const std::string& parentName = knownParent ? parent.name : kUnknownName;
        std::uint32_t childIdx;
        if (std::uint32_t known = findLive(d.pid); known && adoptable(processes_m[known - 1])) {
            // The child is already known: its own events on another CPU
            // came first (equal times, ordered by CPU), or the snapshot
            // listed it. A PID cannot be forked while its task lives, so
            // this is the same task: give it its parent, keep what it did.
            childIdx = known - 1;
            adopt(childIdx, parentName);
        } else {
            childIdx = static_cast<std::uint32_t>(processes_m.size());
            Process& c = create(d.pid, cur.pid, parentName);
            // A new task is runnable from its creation: that wait is
            // scheduling delay, as perf counts it.
            c.off = Process::OffCpu::Runnable;
            c.offStartNs = ns;
            c.offGen = gen_m;
        }
        Process& c = processes_m[childIdx];
        c.ppid = cur.pid;
        c.kthread = c.kthread || e.subtype == LTT_PROCESS_KTHREAD || parent.kthread;
        refreshMode(c);
        c.tgid = (e.subtype == LTT_PROCESS_FORK && (d.arg & kForkCloneThread) && knownParent)
                     ? parent.tgid
                     : d.pid;
        c.startNs = ns;
        if (knownParent && (cur.pid != 0 || e.subtype == LTT_PROCESS_KTHREAD))
            parent.children.push_back(childIdx);
        break;
    }
    case LTT_PROCESS_EXIT: {
        Process& p = live(d.pid);
        p.exited = true;
        p.exitNs = ns;
        break;
    }
    case LTT_PROCESS_WAKEUP: {
        const std::uint32_t i = findLive(d.pid);
        if (!i)
            break;
        Process& p = processes_m[i - 1];
        ++p.stats.wakeups;
        if ((p.off == Process::OffCpu::Sleeping || p.off == Process::OffCpu::IoWait) && !p.woken) {
            p.woken = true;
            p.wokenNs = ns;
        }
        break;
    }
    default:
        break;
    }
}

// FILE_SYSTEM EXEC: the process takes the base name of the file it runs.
[[gnu::noinline]] void TraceAnalysis::exec(const Event& e, Process& cur) {
    if (cur.pid < 0)
        return; // unattributed: whose exec it was is not known
    ltt_ev_file_system x;
    const std::size_t n = e.copyDetails(x);
    std::size_t len = 0;
    const std::size_t room = n - LTT_EV_FS_FIXED;
    while (len < room && x.name[len])
        ++len;
    if (len)
        cur.name = execName(x.name, len);
}

template <bool InRun, class E>
[[gnu::always_inline]] inline void TraceAnalysis::step(CpuState& s, const E& e) {
    // The run step (InRun) leaves out what only these barriers need.
    static_assert(isBarrier({0, LTT_EV_BLOCK_START, 0, 8}) &&
                  isBarrier({0, LTT_EV_SCHEDCHANGE, 0, 8}) &&
                  isBarrier({0, LTT_EV_PROCESS, 0, 8}) && isBarrier({0, LTT_EV_CONTEXT, 0, 8}) &&
                  isBarrier({0, LTT_EV_CONFIG, 0, 8}));
    // A copy of the reader's converter: its header is a pointer chase away.
    const std::uint64_t ns = tsc_m.ns(e.tsc);
    CpuStats& cs = s.stats;
    // firstNs_m, lastNs_m, events_m, counts_m: from the CPUs' figures in
    // finish().
    if (ns < s.lastNs) [[unlikely]]
        s.peakNs = std::max(s.peakNs, s.lastNs);
    ++s.counts[e.id];
    // (A run's events follow their CPU's first block start, a barrier.)
    if (!InRun && !cs.seen) [[unlikely]] {
        cs.seen = true;
        cs.firstNs = ns;
    }

    if (!InRun && e.id == LTT_EV_BLOCK_START) {
        ltt_block_start bs;
        if (e.detailsAs(bs)) {
            const bool fresh = !s.started || bs.lost;
            if (bs.lost) {
                ++gen_m;
                lost_m += bs.lost;
                cs.lost += bs.lost;
            }
            if (!fresh)
                charge<false>(s, ns);
            s.started = true;
            s.lastNs = ns;
            if (bs.pid < 0 || !context_m) [[unlikely]] {
                // Nothing says which task runs after this record.
                if (fresh && s.current == s.unattributed)
                    leaveCpu(e.cpu);
                unattribute(e.cpu, bs.pid < 0 ? Unattributed::NoBlockTask : Unattributed::NoContext,
                            false);
            } else if (fresh || bs.pid != s.current->pid) {
                // A gap, or the block disagrees with what the events said:
                // the block header is authoritative.
                gap(e.cpu, bs.pid);
            }
            return;
        }
    }
    charge<InRun>(s, ns);
    s.lastNs = ns;
    Process& cur = *s.current;

    switch (e.id) {
    case LTT_EV_CONFIG: {
        if constexpr (InRun)
            break; // a barrier: never in a run
        ConfigChange c;
        if (e.copyDetails(c.config) < sizeof c.config)
            break; // malformed: -d shows it as such
        c.ns = ns;
        c.cpu = e.cpu;
        c.what = e.subtype;
        config_m.push_back(c);
        configChange(c);
        break;
    }
    case LTT_EV_CONTEXT: {
        if constexpr (InRun)
            break; // a barrier: never in a run
        ltt_ev_context d;
        if (e.detailsAs(d))
            contextSwitch(e.cpu, e.subtype, d);
        break;
    }
    case LTT_EV_TRACE_START: {
        // A TRACE_START that ends at details_mask predates the field; one
        // that ends at backend predates the variables and the session.
        ltt_ev_trace_start_ext d;
        if (e.copyDetails(d) >= offsetof(ltt_ev_trace_start_ext, backend) + sizeof d.backend)
            backend_m = d.backend;
        break;
    }
    case LTT_EV_SYSCALL_ENTRY: {
        // The idle task makes no system call: the trace did not say which
        // task did.
        Process& t = cur.pid == 0 ? taskWhileIdle(e.cpu) : cur;
        ltt_ev_syscall_entry d;
        std::uint32_t slot = syscallSlots_m;
        if (e.copyDetails(d) >= 12 && d.nr < syscallSlots_m)
            slot = d.nr;
        ++t.stats.syscalls;
        const std::uint32_t pos = t.stats.syscallTable.use(slot);
        ++t.stats.syscallTable.entry(pos).count;
        t.inSyscall = true;
        t.modeBits |= kModeSyscall;
        t.syscallEntry = pos;
        t.syscallStartNs = ns;
        t.syscallGen = gen_m;
        break;
    }
    case LTT_EV_SYSCALL_EXIT: {
        if (!cur.inSyscall)
            break; // the trace started inside this call
        cur.inSyscall = false;
        cur.modeBits &= ~kModeSyscall;
        SyscallStats& st = cur.stats.syscallTable.entry(cur.syscallEntry);
        ltt_ev_syscall_exit d;
        st.errors += e.detailsAs(d) && d.ret < 0;
        if (cur.syscallGen == gen_m && ns >= cur.syscallStartNs) {
            const std::uint64_t dur = ns - cur.syscallStartNs;
            st.minNs = st.timed ? std::min(st.minNs, dur) : dur;
            st.maxNs = std::max(st.maxNs, dur);
            st.totalNs += dur;
            ++st.timed;
        }
        break;
    }
    case LTT_EV_TRAP_ENTRY:
        if (cur.pid != 0)
            ++cur.stats.traps;
        ++cur.trapDepth;
        cur.modeBits |= kModeTrap;
        break;
    case LTT_EV_TRAP_EXIT:
        if (cur.trapDepth && --cur.trapDepth == 0)
            cur.modeBits &= ~kModeTrap;
        break;
    case LTT_EV_IRQ_ENTRY:
        ++s.irqDepth;
        refreshIrq(s);
        break;
    case LTT_EV_IRQ_EXIT:
        if (s.irqDepth)
            --s.irqDepth;
        refreshIrq(s);
        break;
    case LTT_EV_SOFT_IRQ:
        if (e.subtype == LTT_SOFTIRQ_ENTRY || e.subtype == LTT_TASKLET_ENTRY)
            ++s.softDepth;
        else if (s.softDepth)
            --s.softDepth;
        refreshIrq(s);
        break;
    case LTT_EV_SCHEDCHANGE: {
        if constexpr (InRun)
            break; // a barrier: never in a run
        ltt_ev_schedchange d;
        if (!e.detailsAs(d))
            break;
        if (cur.pid > 0)
            switchOut(cur, d.out_state, ns);
        // Interrupt nesting does not survive a context switch on this CPU.
        s.irqDepth = s.softDepth = 0;
        refreshIrq(s);
        switchTo(e.cpu, live(d.in), ns);
        break;
    }
    case LTT_EV_PROCESS: {
        if constexpr (InRun)
            break; // a barrier: never in a run
        // The out-of-line call gets a copy: passing `e` itself would make
        // the compiler keep every event in memory on the hot path too.
        const Event copy = e;
        processEvent(copy, cur, ns);
        break;
    }
    case LTT_EV_FILE_SYSTEM: {
        Process& t = cur.pid == 0 ? taskWhileIdle(e.cpu) : cur;
        // Only EXEC needs the name: copy the fixed part alone (a whole
        // ltt_ev_file_system is 272 bytes, too much for every read/write).
        struct {
            std::int32_t fd;
            std::uint32_t aux;
            std::int64_t arg;
        } d;
        static_assert(sizeof d == LTT_EV_FS_FIXED);
        if (e.copyDetails(d) < LTT_EV_FS_FIXED)
            break;
        if (e.subtype == LTT_FS_READ || e.subtype == LTT_FS_WRITE) {
            // The common case, without a second jump on the subtype.
            static constexpr std::uint64_t ProcessStats::*kBytes[2] = {&ProcessStats::bytesRead,
                                                                       &ProcessStats::bytesWritten};
            t.stats.*kBytes[e.subtype == LTT_FS_WRITE] +=
                d.arg > 0 ? static_cast<std::uint64_t>(d.arg) : 0;
            break;
        }
        if (e.subtype == LTT_FS_BUF_WAIT_START || e.subtype == LTT_FS_BUF_WAIT_END)
            t.inBufWait = e.subtype == LTT_FS_BUF_WAIT_START;
        else if (e.subtype == LTT_FS_EXEC)
            exec(e, t);
        break;
    }
    default:
        break;
    }
}

// The CPUs other than `cpu` on which `a` or `b` is current (the idle task,
// current on every idle CPU, excepted: nothing a CPU does to it between
// barriers is reported).
std::uint32_t TraceAnalysis::runningElsewhere(std::uint16_t cpu, const Process* a,
                                              const Process* b) const {
    const Process* here = state_m[cpu].current;
    auto elsewhere = [&](const Process* p) {
        return p && p->pid > 0 && p->currentOn > static_cast<std::uint32_t>(p == here);
    };
    if (!elsewhere(a) && !elsewhere(b)) [[likely]]
        return 0;
    std::uint32_t mask = 0;
    // (A mask for the walk's up to 16 CPUs; bit 31 is TraceCursor::kInOrder.)
    for (std::size_t c = 0; c < state_m.size() && c < 31; ++c) {
        const Process* cur = state_m[c].current;
        mask |= static_cast<std::uint32_t>((cur == a || cur == b) && cur->pid > 0 && c != cpu) << c;
    }
    return mask;
}

// Which CPUs' earlier events barrier `e` must follow: run()'s walk feeds
// each CPU's other events in runs, not interleaved by time. Those events
// touch only their CPU's state and its current task, so the answer is the
// CPUs where a task the barrier touches is current, and every CPU when the
// barrier opens a lost-events gap (which ends the intervals open on all of
// them). A wakeup or an exit of a running task commutes with what the task
// does meanwhile: it only counts, or marks the task exited. While a task is
// current on two CPUs at once (lost or masked schedchanges, clocks that
// disagree), the two CPUs' events touch it both: then every event must come
// in merged order (kInOrder).
template <class E>
[[gnu::always_inline]] inline std::uint32_t TraceAnalysis::dependsOn(const E& e) const {
    const std::uint32_t need = cpusDependedOn(e);
    return need || shared_m ? need | TraceCursor::kInOrder : 0;
}

template <class E>
[[gnu::always_inline]] inline std::uint32_t TraceAnalysis::cpusDependedOn(const E& e) const {
    const CpuState& s = state_m[e.cpu];
    auto find = [&](std::int32_t pid) -> const Process* {
        const std::uint32_t i = findLive(pid);
        return i ? &processes_m[i - 1] : nullptr;
    };
    switch (e.id) {
    case LTT_EV_SCHEDCHANGE: {
        ltt_ev_schedchange d;
        if (!e.detailsAs(d))
            return 0;
        return runningElsewhere(e.cpu, find(d.in), s.current);
    }
    case LTT_EV_PROCESS: {
        ltt_ev_process d;
        if ((e.subtype != LTT_PROCESS_FORK && e.subtype != LTT_PROCESS_KTHREAD) || !e.detailsAs(d))
            return 0;
        return runningElsewhere(e.cpu, find(d.pid), nullptr);
    }
    case LTT_EV_BLOCK_START: {
        ltt_block_start bs;
        if (!e.detailsAs(bs))
            return 0;
        if (bs.lost)
            return ~TraceCursor::kInOrder; // every CPU
        return runningElsewhere(e.cpu, find(bs.pid), s.current);
    }
    case LTT_EV_CONTEXT: {
        ltt_ev_context d;
        if (!e.detailsAs(d))
            return 0;
        return runningElsewhere(e.cpu, find(d.pid), s.current);
    }
    case LTT_EV_CONFIG:
        // It may end what every CPU knows of its current task.
        return ~TraceCursor::kInOrder;
    default:
        return 0;
    }
}

void TraceAnalysis::add(const Event& e) {
    if (e.cpu >= state_m.size()) [[unlikely]]
        return userEvent(e);
    step<false>(state_m[e.cpu], e);
}

void TraceAnalysis::userEvent(const Event& e) {
    if (!e.isUser())
        return; // (the reader gives no other CPU beyond ncpus)
    ++userCounts_m[std::min<std::size_t>(e.id, LTT_EV_COUNT)];
    auto problem = [&](TraceError err) {
        if (userProblems_m.size() < kMaxUserProblems)
            userProblems_m.push_back(std::move(err));
        ++userProblemCount_m;
    };
    if (!user_m) {
        // The declarations are read once, at the first user record; the
        // damaged ones are reported from there (not again at each record).
        user_m = std::make_unique<UserEvents>(reader_m);
        for (const TraceError& err : user_m->problems())
            problem(err);
    }
    const UserEvents::Type* type = nullptr;
    std::string why;
    if (user_m->check(e, &type, &why)) {
        ++userEvents_m;
        Process& p = live(static_cast<std::int32_t>(type->tgid));
        ++p.userEvents[type->name];
    } else if (!why.empty() && !(e.id == LTT_EV_USER && e.subtype == LTT_USER_DECLARE)) {
        problem({reader_m.path(), e.offset, why});
    }
}

void TraceAnalysis::finish() {
    // Events come in merged order, so the first one is the earliest of the
    // CPUs' first events.
    events_m = 0;
    firstNs_m = ~0ull;
    lastNs_m = 0;
    counts_m.fill(0);
    unattributedTotal_m.stats = ProcessStats{};
    std::array<std::uint64_t, static_cast<std::size_t>(Unattributed::Count)> open{};
    for (std::size_t i = 0; i < cpus_m.size(); ++i) {
        CpuState& s = state_m[i];
        flush(s);
        if (s.current == s.unattributed) {
            // Still unattributed at the end: its events so far.
            const std::uint64_t n = recordsSoFar(s);
            open[static_cast<std::size_t>(s.why)] += n - std::min(n, s.unattributedFrom);
        }
        addStats(unattributedTotal_m.stats, s.unattributed->stats);
        CpuStats& c = cpus_m[i];
        c = s.stats;
        c.lastNs = s.lastNs;
        c.events = 0;
        for (std::size_t id = 0; id < s.counts.size(); ++id) {
            c.events += s.counts[id];
            counts_m[std::min<std::size_t>(id, LTT_EV_COUNT)] += s.counts[id];
        }
        events_m += c.events;
        if (c.seen) {
            firstNs_m = std::min(firstNs_m, c.firstNs);
            lastNs_m = std::max({lastNs_m, s.lastNs, s.peakNs});
        }
    }
    for (std::size_t k = 0; k < open.size(); ++k)
        unattributedEvents_m[k] = unattributedClosed_m[k] + open[k];
    for (std::size_t id = 0; id < userCounts_m.size(); ++id) {
        counts_m[id] += userCounts_m[id];
        events_m += userCounts_m[id];
    }
    if (events_m == 0)
        firstNs_m = 0;
    // The walk goes CPU by CPU between barriers: put the changes in order.
    std::stable_sort(config_m.begin(), config_m.end(),
                     [](const ConfigChange& a, const ConfigChange& b) { return a.ns < b.ns; });
}

std::vector<TimeSpan> TraceAnalysis::notRecorded(unsigned id) const {
    std::vector<TimeSpan> out;
    if (id >= 64)
        return out;
    bool on = reader_m.eventEnabled(id);
    std::uint64_t offSince = firstNs_m;
    for (const ConfigChange& c : config_m) {
        const bool now = (c.config.event_mask >> id) & 1;
        if (on && !now)
            offSince = std::max(c.ns, firstNs_m);
        else if (!on && now && c.ns > offSince)
            out.push_back({offSince, c.ns});
        on = now;
    }
    if (!on)
        out.push_back({offSince, lastNs_m});
    return out;
}

namespace {
// Thrown by run()'s tick when its progress callback cancels: the walk has
// no stop of its own, and a cancellation, like the walk's end, leaves
// nothing of the cursor to keep.
struct WalkCancelled {};
} // namespace

bool TraceAnalysis::run(const std::function<bool(double)>& progress) {
    reader_m.adviseSequential();
    const std::uint64_t total = std::max<std::uint64_t>(reader_m.claimedEvents(), 1);
    constexpr std::uint64_t kTick = 0x3ffff;
    std::uint64_t ticks = 0;
    // A first call before the walk: a cancellation that came before it
    // ends it at once, however short the trace.
    if (progress && !progress(0.0)) {
        cancelled_m = true;
        return false;
    }
    TraceCursor c = reader_m.begin();
    try {
        c.forEachByCpu(
            [this](const auto& e) __attribute__((always_inline)) {
                // With user streams every event comes here (forEach).
                if (e.cpu >= state_m.size()) [[unlikely]]
                    return userEvent(e);
                step<false>(state_m[e.cpu], e);
            },
            [this](std::uint16_t cpu) __attribute__((always_inline)) {
                return [ this, &s = state_m[cpu] ](const auto& e) __attribute__((always_inline)) {
                    step<true>(s, e);
                };
            },
            [](const ltt_record_header& h) { return isBarrier(h); },
            [this](const auto& e) __attribute__((always_inline)) { return dependsOn(e); }, kTick,
            [&] {
                // Memory must not grow with the trace: give back the pages
                // every CPU has moved past.
                reader_m.releaseBefore(c.lowestOffset());
                if (progress && !progress(static_cast<double>(++ticks * (kTick + 1)) /
                                          static_cast<double>(total)))
                    throw WalkCancelled{};
            });
    } catch (const WalkCancelled&) {
        cancelled_m = true;
        return false;
    }
    error_m = c.error();
    finish();
    return !error_m;
}

void addStats(ProcessStats& into, const ProcessStats& from) {
    into.syscalls += from.syscalls;
    into.traps += from.traps;
    into.bytesRead += from.bytesRead;
    into.bytesWritten += from.bytesWritten;
    into.userNs += from.userNs;
    into.runningNs += from.runningNs;
    into.syscallNs += from.syscallNs;
    into.trapNs += from.trapNs;
    into.irqNs += from.irqNs;
    into.ioWaitNs += from.ioWaitNs;
    into.sleepNs += from.sleepNs;
    into.preemptedNs += from.preemptedNs;
    into.schedDelayNs += from.schedDelayNs;
    into.maxDelayNs = std::max(into.maxDelayNs, from.maxDelayNs);
    into.maxSliceNs = std::max(into.maxSliceNs, from.maxSliceNs);
    into.schedIn += from.schedIn;
    into.wakeups += from.wakeups;
    for (const SyscallStats& s : from.syscallTable) {
        SyscallStats& t = into.syscallTable.entry(into.syscallTable.use(s.slot));
        if (t.timed == 0) {
            t.minNs = s.minNs;
            t.maxNs = s.maxNs;
        } else if (s.timed) {
            t.minNs = std::min(t.minNs, s.minNs);
            t.maxNs = std::max(t.maxNs, s.maxNs);
        }
        t.slot = s.slot;
        t.count += s.count;
        t.timed += s.timed;
        t.totalNs += s.totalNs;
        t.errors += s.errors;
    }
}

} // namespace ltt
