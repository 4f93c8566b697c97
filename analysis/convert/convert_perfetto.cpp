// ltt trace -> Perfetto protobuf trace (docs/convert.md, "Perfetto").
//
// The output is a perfetto.protos.Trace: a stream of TracePackets, all on
// one packet sequence. What the converter writes, in file order:
//   clock_snapshot   BOOTTIME, MONOTONIC and REALTIME at the trace's anchor;
//                    BOOTTIME is the trace clock (ftrace's default domain)
//   system_info      utsname from the trace header (machine x86_64: the
//                    syscall numbers are x86_64's), the number of CPUs
//   process_tree     the .proc snapshot: processes and threads with tgid
//   ftrace_stats     START_OF_TRACE, every CPU's overrun 0
//   ftrace_events    FtraceEventBundles, one per CPU that had events, for
//                    each window of kWindowEvents merged events
//   process_tree     the tasks the trace created (forks), with their parent
//                    and the file they exec-ed
//   ftrace_stats     END_OF_TRACE, each CPU's overrun = events the tracer
//                    lost on it, so trace processor's overrun delta = lost
//
// Event timestamps are the traced machine's CLOCK_MONOTONIC in ns (the
// header's anchor_monotonic_ns + the TSC's ns since the anchor), stated to
// trace processor as BOOTTIME: the two differ only by time suspended.
//
// Every event read is either written as one ftrace event or dropped by the
// rule in droppedKind(); the tracer's lost events set the lost_events flag
// of the CPU's next bundle and are counted in ftrace_stats.
//
// Streaming: the merged walk feeds per-CPU bundle buffers that are written
// out together every kWindowEvents events, so memory is bounded by the
// window and the number of tasks, never by the number of events; the
// trace's mapping is released behind the walk.
#include "convert_output.hpp"
#include "convert_perfetto_proto.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <libltt/convert.hpp>
#include <libltt/event_schema.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace ltt::convert {
namespace {

// Field numbers from Perfetto's protos (protos/perfetto/trace/...; the
// subset is kept with its upstream numbers in tests/convert/perfetto/).
namespace trace {
constexpr std::uint32_t kPacket = 1;
}
namespace packet {
constexpr std::uint32_t kFtraceEvents = 1, kProcessTree = 2, kClockSnapshot = 6, kTimestamp = 8,
                        kSequenceId = 10, kFtraceStats = 34, kSystemInfo = 45;
}
namespace bundle {
constexpr std::uint32_t kCpu = 1, kEvent = 2, kLostEvents = 3;
}
namespace ftrace { // FtraceEvent: common fields, then the oneof's members
constexpr std::uint32_t kTimestamp = 1, kPid = 2;
constexpr std::uint32_t kSchedSwitch = 4, kSchedWaking = 20, kSoftirqEntry = 24, kSoftirqExit = 25,
                        kIrqHandlerEntry = 36, kIrqHandlerExit = 37, kTaskNewtask = 235,
                        kTaskRename = 236, kSchedProcessExit = 238, kSysEnter = 329, kSysExit = 330;
} // namespace ftrace
namespace sched_switch {
constexpr std::uint32_t kPrevComm = 1, kPrevPid = 2, kPrevState = 4, kNextComm = 5, kNextPid = 6;
}
namespace sched_waking {
constexpr std::uint32_t kComm = 1, kPid = 2, kSuccess = 4;
}
namespace process_exit {
constexpr std::uint32_t kComm = 1, kPid = 2, kTgid = 3;
}
namespace newtask {
constexpr std::uint32_t kPid = 1, kComm = 2, kCloneFlags = 3;
}
namespace rename {
constexpr std::uint32_t kPid = 1, kOldComm = 2, kNewComm = 3;
}
namespace irq {
constexpr std::uint32_t kIrq = 1, kName = 2, kRet = 2; // entry's name, exit's ret
constexpr std::uint32_t kVec = 1;                      // softirq
} // namespace irq
namespace syscall {
constexpr std::uint32_t kId = 1, kRet = 2;
}
namespace tree {
constexpr std::uint32_t kProcesses = 1, kThreads = 2;
constexpr std::uint32_t kProcPid = 1, kProcPpid = 2, kProcCmdline = 3, kProcUid = 5,
                        kProcIsKthread = 8, kProcCmdlineIsComm = 9;
constexpr std::uint32_t kThreadTid = 1, kThreadName = 2, kThreadTgid = 3;
} // namespace tree
namespace clock {
constexpr std::uint32_t kClocks = 1, kPrimaryTraceClock = 2, kClockId = 1, kClockTimestamp = 2;
constexpr std::uint32_t kRealtime = 1, kMonotonic = 3, kBoottime = 6; // BuiltinClock
} // namespace clock
namespace sysinfo {
constexpr std::uint32_t kUtsname = 1, kNumCpus = 8;
constexpr std::uint32_t kSysname = 1, kRelease = 3, kMachine = 4;
} // namespace sysinfo
namespace stats {
constexpr std::uint32_t kPhase = 1, kCpuStats = 2, kCpu = 1, kOverrun = 3;
constexpr std::uint32_t kStartOfTrace = 1, kEndOfTrace = 2;
} // namespace stats

constexpr std::uint32_t kSequenceId = 1;      // the converter's one packet sequence
constexpr std::uint64_t kWindowEvents = 4096; // merged events per window of bundles
using schema::kForkCloneThread;
// What kthreadd passes to kernel_thread() for a new kthread (CLONE_FS |
// CLONE_FILES | SIGCHLD): a process of its own, not a thread.
constexpr std::uint64_t kKthreadCloneFlags = 0x611;
constexpr std::size_t kMaxIrqNesting = 32;

// prev_state of sched_switch as a 4.14+ kernel reports it (TASK_REPORT bit
// per state, 0x80 TASK_REPORT_IDLE, 0x100 TASK_REPORT_MAX for a preempted
// task), from the kernel's __state bits ltt records.
std::int64_t reportedState(std::uint32_t s) {
    if (s == LTT_TASK_RUNNING)
        return 0x100; // preempted: still runnable
    if ((s & LTT_TASK_IDLE) == LTT_TASK_IDLE)
        return 0x80;
    if (s & LTT_TASK_DEAD)
        return 0x10; // EXIT_DEAD's report bit
    // INTERRUPTIBLE 1, UNINTERRUPTIBLE 2, STOPPED 4, TRACED 8, ZOMBIE 0x20
    // have the same bits in the report.
    return s & 0x2f;
}

std::string_view baseName(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The C string in a fixed-size field of the file header.
template <std::size_t N> std::string_view fixedString(const char (&s)[N]) {
    return {s, strnlen(s, N)};
}

struct Task {
    std::string comm;
    std::string cmdline; // the file exec-ed, for tasks the trace created
    std::int32_t tgid = 0;
    std::int32_t ppid = -1;
    std::int64_t syscall = -1;    // the system call it is in (for sys_exit's id)
    std::uint64_t syscallTsc = 0; // its entry's time and CPU
    std::uint16_t syscallCpu = 0;
    bool created = false; // by a FORK or KTHREAD event of the trace
};

struct CpuBundle {
    ProtoWriter events; // encoded FtraceEvent fields (bundle field 2)
    bool lostBefore = false;
    bool lossSeen = false;
    std::uint64_t lossTsc = 0; // time of the CPU's last loss (its BLOCK_START)
    bool lostSince(std::uint64_t tsc) const { return lossSeen && lossTsc >= tsc; }
    std::vector<std::int32_t> irqs; // IRQ_ENTRY numbers not yet exited
    std::int32_t current = 0;       // the task current on the CPU (kUnknownPid: unknown)
};

class OutputFile {
public:
    // Created private to its owner, never through a link (the same rule as
    // the CTF output's files): the output holds what the trace holds.
    explicit OutputFile(const std::string& path) : path_m(path) {
        UniqueFd fd = createOutputFile(path, "Perfetto output");
        file_m = ::fdopen(fd.get(), "wb");
        if (!file_m)
            throw Error("cannot write " + path + ": " + std::strerror(errno));
        fd.release(); // the FILE owns it now
        std::setvbuf(file_m, nullptr, _IOFBF, 1 << 20);
    }
    ~OutputFile() {
        if (file_m) { // not closed: the conversion failed, leave no partial file
            std::fclose(file_m);
            std::remove(path_m.c_str());
        }
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void packet(const ProtoWriter& p) {
        const std::string head = ProtoWriter::header(trace::kPacket, p.size());
        if (std::fwrite(head.data(), 1, head.size(), file_m) != head.size() ||
            std::fwrite(p.bytes().data(), 1, p.size(), file_m) != p.size())
            fail();
    }
    void close() {
        std::FILE* f = file_m;
        file_m = nullptr;
        const bool bad = std::ferror(f) != 0;
        if (std::fclose(f) != 0 || bad) {
            const int err = errno;
            std::remove(path_m.c_str());
            throw Error("cannot write " + path_m + ": " + std::strerror(err));
        }
    }

private:
    [[noreturn]] void fail() {
        throw Error("cannot write " + path_m + ": " + std::strerror(errno));
    }
    std::string path_m;
    std::FILE* file_m = nullptr;
};

class PerfettoConverter {
public:
    PerfettoConverter(const TraceReader& reader, const ProcSnapshot* snapshot, OutputFile& out)
        : reader_m(reader), snapshot_m(snapshot), out_m(out), cpus_m(reader.ncpus()) {
        const auto& h = reader.header();
        monotonicAnchor_m = h.anchor_monotonic_ns;
        if (snapshot)
            for (const ProcTask& t : snapshot->tasks) {
                Task& k = tasks_m[t.pid];
                k.comm = t.name;
                k.tgid = t.tgid ? t.tgid : t.pid;
                k.ppid = t.ppid;
            }
        if (snapshot)
            for (const ProcIrq& i : snapshot->irqs) {
                char* end = nullptr;
                const long n = std::strtol(i.irq.c_str(), &end, 10);
                if (!i.irq.empty() && end && !*end)
                    irqNames_m.emplace(static_cast<std::int32_t>(n), i.name);
            }
    }

    void writeHeader() {
        const auto& h = reader_m.header();
        // clock_snapshot
        ProtoWriter snap, c;
        for (auto [id, ts] : {std::pair{clock::kBoottime, h.anchor_monotonic_ns},
                              std::pair{clock::kMonotonic, h.anchor_monotonic_ns},
                              std::pair{clock::kRealtime, h.anchor_realtime_ns}}) {
            c.clear();
            c.varint(clock::kClockId, id);
            c.varint(clock::kClockTimestamp, ts);
            snap.message(clock::kClocks, c);
        }
        snap.varint(clock::kPrimaryTraceClock, clock::kBoottime);
        emit(packet::kClockSnapshot, snap);

        // system_info
        ProtoWriter uts, info;
        uts.string(sysinfo::kSysname, fixedString(h.sysname));
        uts.string(sysinfo::kRelease, fixedString(h.release));
        uts.string(sysinfo::kMachine, "x86_64");
        info.message(sysinfo::kUtsname, uts);
        info.varint(sysinfo::kNumCpus, h.ncpus);
        emit(packet::kSystemInfo, info);

        // process_tree from the snapshot
        if (snapshot_m && !snapshot_m->tasks.empty()) {
            ProtoWriter t, item;
            for (const ProcTask& task : snapshot_m->tasks) {
                const std::int32_t tgid = task.tgid ? task.tgid : task.pid;
                if (tgid != task.pid)
                    continue;
                item.clear();
                item.signedVarint(tree::kProcPid, task.pid);
                item.signedVarint(tree::kProcPpid, task.ppid);
                item.string(tree::kProcCmdline, task.name);
                if (task.uid >= 0)
                    item.signedVarint(tree::kProcUid, task.uid);
                item.varint(tree::kProcIsKthread, task.kthread);
                item.varint(tree::kProcCmdlineIsComm, 1);
                t.message(tree::kProcesses, item);
            }
            for (const ProcTask& task : snapshot_m->tasks) {
                item.clear();
                item.signedVarint(tree::kThreadTid, task.pid);
                item.string(tree::kThreadName, task.name);
                item.signedVarint(tree::kThreadTgid, task.tgid ? task.tgid : task.pid);
                t.message(tree::kThreads, item);
            }
            emit(packet::kProcessTree, t, ns(reader_m.firstTsc()));
        }
        writeStats(stats::kStartOfTrace);
    }

    // One event of the merged walk.
    void event(const Event& e) {
        ++result_m.eventsRead;
        // Application events (user streams, Event::isUser()) are not
        // converted: dropped and counted by id.
        if (e.cpu >= cpus_m.size()) {
            ++droppedById_m[e.id];
            return;
        }
        CpuBundle& b = cpus_m[e.cpu];
        body_m.clear();
        std::uint32_t kind = 0;
        std::int32_t pid = e.pid;
        // A task the trace does not name (the reader's kUnknownPid) keeps
        // its system call per CPU: two CPUs' unknown tasks are not one.
        const std::int32_t key =
            e.pid >= 0 ? e.pid : std::numeric_limits<std::int32_t>::min() + e.cpu;
        switch (e.id) {
        case LTT_EV_BLOCK_START: {
            b.current = e.pid;
            ltt_block_start bs;
            if (e.detailsAs(bs) && bs.lost) {
                // The events after this point follow a loss: they go into a
                // bundle of their own that says so.
                if (!b.events.empty())
                    flush();
                b.lostBefore = true;
                // A system call's entry or exit may be among the lost: no
                // exit on this CPU, nor of a call entered on it, takes its
                // number from an entry before this point.
                b.lossTsc = e.tsc;
                b.lossSeen = true;
                lostPerCpu_m.resize(cpus_m.size());
                lostPerCpu_m[e.cpu] += bs.lost;
                result_m.lost += bs.lost;
            }
            break;
        }
        case LTT_EV_SCHEDCHANGE: {
            ltt_ev_schedchange d;
            if (!e.detailsAs(d))
                break;
            kind = ftrace::kSchedSwitch;
            pid = d.out;
            comm(sched_switch::kPrevComm, d.out, e.cpu);
            body_m.signedVarint(sched_switch::kPrevPid, d.out);
            body_m.signedVarint(sched_switch::kPrevState, reportedState(d.out_state));
            comm(sched_switch::kNextComm, d.in, e.cpu);
            body_m.signedVarint(sched_switch::kNextPid, d.in);
            b.current = d.in;
            break;
        }
        case LTT_EV_CONTEXT: {
            // The task now current (docs/trace-format.md, CONTEXT): a
            // switch from the one before, whose state is not recorded
            // (shown as runnable).
            ltt_ev_context d;
            if (!e.detailsAs(d) || d.pid == b.current)
                break;
            kind = ftrace::kSchedSwitch;
            pid = b.current;
            comm(sched_switch::kPrevComm, b.current, e.cpu);
            body_m.signedVarint(sched_switch::kPrevPid, b.current);
            body_m.signedVarint(sched_switch::kPrevState, reportedState(LTT_TASK_RUNNING));
            comm(sched_switch::kNextComm, d.pid, e.cpu);
            body_m.signedVarint(sched_switch::kNextPid, d.pid);
            b.current = d.pid;
            break;
        }
        case LTT_EV_SYSCALL_ENTRY: {
            ltt_ev_syscall_entry d;
            if (!e.detailsAs(d))
                break;
            kind = ftrace::kSysEnter;
            body_m.signedVarint(syscall::kId, d.nr);
            Task& t = tasks_m[key];
            t.syscall = d.nr;
            t.syscallTsc = e.tsc;
            t.syscallCpu = e.cpu;
            break;
        }
        case LTT_EV_SYSCALL_EXIT: {
            ltt_ev_syscall_exit d;
            if (!e.detailsAs(d))
                break;
            kind = ftrace::kSysExit;
            auto it = tasks_m.find(key);
            if (it != tasks_m.end() && it->second.syscall >= 0) {
                const Task& t = it->second;
                if (!b.lostSince(t.syscallTsc) && !cpus_m[t.syscallCpu].lostSince(t.syscallTsc))
                    body_m.signedVarint(syscall::kId, t.syscall);
                it->second.syscall = -1;
            }
            body_m.signedVarint(syscall::kRet, d.ret);
            break;
        }
        case LTT_EV_IRQ_ENTRY: {
            ltt_ev_irq_entry d;
            if (!e.detailsAs(d))
                break;
            kind = ftrace::kIrqHandlerEntry;
            const auto n = static_cast<std::int32_t>(d.irq);
            body_m.signedVarint(irq::kIrq, n);
            if (d.flags & LTT_IRQ_VECTOR) {
                body_m.string(irq::kName, "vector " + std::to_string(d.irq));
            } else if (auto it = irqNames_m.find(n); it != irqNames_m.end()) {
                body_m.string(irq::kName, it->second);
            }
            if (b.irqs.size() < kMaxIrqNesting)
                b.irqs.push_back(n);
            break;
        }
        case LTT_EV_IRQ_EXIT:
            kind = ftrace::kIrqHandlerExit;
            if (!b.irqs.empty()) {
                body_m.signedVarint(irq::kIrq, b.irqs.back());
                b.irqs.pop_back();
            }
            body_m.signedVarint(irq::kRet, 1); // IRQ_HANDLED
            break;
        case LTT_EV_SOFT_IRQ: {
            ltt_ev_soft_irq d;
            if ((e.subtype != LTT_SOFTIRQ_ENTRY && e.subtype != LTT_SOFTIRQ_EXIT) ||
                !e.detailsAs(d))
                break;
            kind = e.subtype == LTT_SOFTIRQ_ENTRY ? ftrace::kSoftirqEntry : ftrace::kSoftirqExit;
            body_m.varint(irq::kVec, static_cast<std::uint32_t>(d.id));
            break;
        }
        case LTT_EV_PROCESS:
            kind = process(e);
            break;
        case LTT_EV_FILE_SYSTEM:
            if (e.subtype == LTT_FS_EXEC)
                kind = exec(e);
            break;
        default:
            break;
        }
        if (!kind) {
            ++droppedById_m[e.id];
            return;
        }
        event_m.clear();
        event_m.varint(ftrace::kTimestamp, ns(e.tsc));
        event_m.varint(ftrace::kPid, static_cast<std::uint32_t>(pid));
        event_m.message(kind, body_m);
        b.events.message(bundle::kEvent, event_m);
        ++result_m.eventsWritten;
        if (++pending_m >= kWindowEvents)
            flush();
    }

    void finish() {
        flush();
        // The tasks the trace created, with what the trace told of them, by
        // pid (the map's order is not the same on every library).
        std::vector<std::int32_t> created;
        for (const auto& [pid, task] : tasks_m)
            if (task.created)
                created.push_back(pid);
        std::sort(created.begin(), created.end());
        ProtoWriter t, item;
        for (const std::int32_t pid : created) {
            const Task& task = tasks_m[pid];
            if (task.tgid != pid)
                continue;
            item.clear();
            item.signedVarint(tree::kProcPid, pid);
            item.signedVarint(tree::kProcPpid, task.ppid);
            item.string(tree::kProcCmdline, task.cmdline.empty() ? task.comm : task.cmdline);
            if (task.cmdline.empty())
                item.varint(tree::kProcCmdlineIsComm, 1);
            t.message(tree::kProcesses, item);
        }
        for (const std::int32_t pid : created) {
            const Task& task = tasks_m[pid];
            item.clear();
            item.signedVarint(tree::kThreadTid, pid);
            if (!task.comm.empty())
                item.string(tree::kThreadName, task.comm);
            item.signedVarint(tree::kThreadTgid, task.tgid);
            t.message(tree::kThreads, item);
        }
        if (!t.empty())
            emit(packet::kProcessTree, t, ns(reader_m.lastTsc()));
        writeStats(stats::kEndOfTrace);
    }

    Result result() const {
        Result r = result_m;
        for (const std::uint64_t n : droppedById_m)
            r.eventsDropped += n;
        r.droppedByEvent.assign(droppedById_m.begin(), droppedById_m.end());
        return r;
    }

private:
    std::uint64_t ns(std::uint64_t tsc) const {
        return monotonicAnchor_m + reader_m.nsFromAnchor(tsc);
    }

    void emit(std::uint32_t field, const ProtoWriter& payload,
              std::optional<std::uint64_t> timestamp = std::nullopt) {
        packet_m.clear();
        if (timestamp)
            packet_m.varint(packet::kTimestamp, *timestamp);
        packet_m.message(field, payload);
        packet_m.varint(packet::kSequenceId, kSequenceId);
        out_m.packet(packet_m);
    }

    // Writes every CPU's pending events as one bundle each.
    void flush() {
        for (std::size_t cpu = 0; cpu < cpus_m.size(); ++cpu) {
            CpuBundle& b = cpus_m[cpu];
            if (b.events.empty())
                continue;
            bundle_m.clear();
            bundle_m.varint(bundle::kCpu, cpu);
            bundle_m.append(b.events);
            if (b.lostBefore)
                bundle_m.varint(bundle::kLostEvents, 1);
            emit(packet::kFtraceEvents, bundle_m);
            b.events.clear();
            b.lostBefore = false;
        }
        pending_m = 0;
    }

    void writeStats(std::uint32_t phase) {
        ProtoWriter s, c;
        s.varint(stats::kPhase, phase);
        for (std::size_t cpu = 0; cpu < cpus_m.size(); ++cpu) {
            c.clear();
            c.varint(stats::kCpu, cpu);
            const std::uint64_t lost =
                phase == stats::kEndOfTrace && cpu < lostPerCpu_m.size() ? lostPerCpu_m[cpu] : 0;
            c.varint(stats::kOverrun, lost);
            s.message(stats::kCpuStats, c);
        }
        emit(packet::kFtraceStats, s);
    }

    // The task's name as a comm field, when known; the idle task is
    // "swapper/CPU" as in the kernel.
    void comm(std::uint32_t field, std::int32_t pid, std::uint16_t cpu) {
        if (pid == 0) {
            body_m.string(field, "swapper/" + std::to_string(cpu));
            return;
        }
        auto it = tasks_m.find(pid);
        if (it != tasks_m.end() && !it->second.comm.empty())
            body_m.string(field, it->second.comm);
    }

    std::uint32_t process(const Event& e) {
        ltt_ev_process d;
        if (!e.detailsAs(d))
            return 0;
        switch (e.subtype) {
        case LTT_PROCESS_FORK:
        case LTT_PROCESS_KTHREAD: {
            const bool fork = e.subtype == LTT_PROCESS_FORK;
            const std::uint64_t flags = fork ? d.arg : kKthreadCloneFlags;
            Task parent;
            if (auto it = tasks_m.find(e.pid); it != tasks_m.end())
                parent = it->second;
            const std::int32_t parentTgid = parent.tgid ? parent.tgid : e.pid;
            Task& child = tasks_m[d.pid];
            child = Task{};
            child.comm = parent.comm;
            child.created = true;
            child.tgid = (flags & kForkCloneThread) ? parentTgid : d.pid;
            child.ppid = (flags & kForkCloneThread) ? parent.ppid : parentTgid;
            body_m.signedVarint(newtask::kPid, d.pid);
            if (!parent.comm.empty())
                body_m.string(newtask::kComm, parent.comm);
            body_m.varint(newtask::kCloneFlags, flags);
            return ftrace::kTaskNewtask;
        }
        case LTT_PROCESS_EXIT: {
            body_m.string(process_exit::kComm, tasks_m[d.pid].comm);
            body_m.signedVarint(process_exit::kPid, d.pid);
            const std::int32_t tgid = tasks_m[d.pid].tgid;
            body_m.signedVarint(process_exit::kTgid, tgid ? tgid : d.pid);
            return ftrace::kSchedProcessExit;
        }
        case LTT_PROCESS_WAKEUP:
            comm(sched_waking::kComm, d.pid, e.cpu);
            body_m.signedVarint(sched_waking::kPid, d.pid);
            body_m.signedVarint(sched_waking::kSuccess, 1);
            return ftrace::kSchedWaking;
        default:
            return 0;
        }
    }

    // FILE_SYSTEM EXEC: the task takes the base name of the file as its
    // comm (task_rename), and a created process the file as its cmdline.
    std::uint32_t exec(const Event& e) {
        ltt_ev_file_system x;
        const std::size_t n = e.copyDetails(x);
        if (n <= LTT_EV_FS_FIXED)
            return 0;
        const std::string_view file(x.name, strnlen(x.name, n - LTT_EV_FS_FIXED));
        if (file.empty() || e.pid < 0)
            return 0; // no name for a task the trace does not name
        Task& t = tasks_m[e.pid];
        if (!t.tgid)
            t.tgid = e.pid;
        body_m.signedVarint(rename::kPid, e.pid);
        if (!t.comm.empty())
            body_m.string(rename::kOldComm, t.comm);
        t.comm = baseName(file);
        body_m.string(rename::kNewComm, t.comm);
        t.cmdline = file;
        return ftrace::kTaskRename;
    }

    const TraceReader& reader_m;
    const ProcSnapshot* snapshot_m;
    OutputFile& out_m;
    std::vector<CpuBundle> cpus_m;
    std::vector<std::uint64_t> lostPerCpu_m;
    std::unordered_map<std::int32_t, Task> tasks_m;
    std::unordered_map<std::int32_t, std::string> irqNames_m;
    std::uint64_t monotonicAnchor_m = 0;
    std::uint64_t pending_m = 0;
    std::array<std::uint64_t, 256> droppedById_m{};
    ProtoWriter body_m, event_m, bundle_m, packet_m;
    Result result_m;
};

} // namespace

Result toPerfetto(const std::string& tracePath, const std::string& procPath,
                  const std::string& outFile, const Options& options) {
    TraceError err;
    auto reader = TraceReader::open(tracePath, &err);
    if (!reader)
        throw Error(err.str());
    std::optional<ProcSnapshot> snapshot;
    if (!procPath.empty()) {
        ProcParseError perr;
        std::optional<ProcParseError> cut;
        snapshot = readProcFile(procPath, &perr, &cut);
        if (!snapshot)
            throw Error(perr.str());
        if (cut && options.log)
            std::fprintf(options.log, "traceconvert: warning: %s\n", cut->str().c_str());
    }
    const bool truncated = reader->truncation().has_value();
    if (options.log) {
        if (reader->truncation())
            std::fprintf(options.log, "traceconvert: warning: %s\n",
                         reader->truncation()->str().c_str());
        if (reader->unfinished())
            std::fprintf(options.log, "traceconvert: warning: %s\n",
                         reader->unfinished()->str().c_str());
    }

    OutputFile out(outFile);
    PerfettoConverter conv(*reader, snapshot ? &*snapshot : nullptr, out);
    conv.writeHeader();
    reader->adviseSequential();
    constexpr std::uint64_t kTick = 0xffff;
    const std::uint64_t total = std::max<std::uint64_t>(reader->claimedEvents(), 1);
    std::uint64_t ticks = 0;
    TraceCursor c = reader->begin();
    c.forEach([&conv](const auto& e) { conv.event(e); }, kTick,
              [&] {
                  reader->releaseBefore(c.lowestOffset());
                  // One line rewritten in place (the CLI asks for it on a
                  // terminal only), ended before anything else is printed.
                  if (options.progress && options.log)
                      std::fprintf(options.log, "\rtraceconvert: %3d%%",
                                   static_cast<int>(std::min<std::uint64_t>(
                                       100, ++ticks * (kTick + 1) * 100 / total)));
              });
    if (ticks && options.progress && options.log)
        std::fputc('\n', options.log);
    if (c.error())
        throw Error(c.error()->str());
    conv.finish();
    out.close();
    Result r = conv.result();
    r.truncated = truncated;
    return r;
}

} // namespace ltt::convert
