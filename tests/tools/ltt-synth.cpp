// ltt-synth: writes a synthetic trace (PREFIX.trace + PREFIX.proc) with known
// content, and with --expect prints the figures an exact analysis must find,
// in traceanalyze's --json schema (docs/json.md).
//
// The model: each CPU runs its own set of processes (no migration) and is
// simulated independently; the CPUs advance in time order so their blocks
// interleave in the file like a real trace's. Processes make syscalls (reads
// and writes with byte counts, failing opens, forks and exits), block for
// I/O and are woken by interrupts, get preempted and take page faults.
//
// The expected figures are computed on the records as they are written,
// with the rule the format prescribes (docs/trace-format.md §2.3): time
// between two records of a CPU belongs to the task current on it, except
// across a lost-events gap, which is dropped. Without --lost this equals the
// sum of the scheduling intervals the simulation chose.
//
// Corruptions (--corrupt KIND) are applied to the finished file at a known
// offset, which --expect reports, so tests can check the reader's message.
//
// With --vars LIST, a VARS record (kernel-state variables, as tracedaemon
// -V records them) follows every event whose variables changed: the
// system call's arguments after each entry, the task's pid, ppid, pgid
// (its pid), uid (1000), minflt (its page faults so far), prev and next at
// each schedchange, and the other variables as constants.
//
// With --user-events N (format 2 only), three application threads log
// about N typed events in user streams (user blocks, as tracedaemon writes
// what libltt-user logs): worker-0's threads 100 and 7100 (streams 0 and
// 3) a "request" type with all four field types, a string that needs
// escapes among them, and an ltt_mark "phase 2 begins" halfway; worker-1's
// thread 101 (stream 1) a "tick" type, with 3 events lost before its first
// block. Their blocks follow the CPUs' at the end of the file, their times
// spread over the trace.
//
// Traces are written in format version 2 (what the module writes), or 1
// with --format 1. --recode-v2 IN OUT is a tool of its own: it writes OUT,
// the version 2 encoding of the version 1 trace IN (the same blocks, records
// and times, each record with the code a version 2 producer would pick), so
// tests can check that both versions of a trace read the same.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <getopt.h>
#include <libltt/block_codec.hpp>
#include <libltt/private_file.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/trace_writer.hpp>
#include <libltt/user_events.hpp>
#include <ltt/abi.h>
#include <ltt/module_events.h>
#include <map>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::uint64_t kTscKhz = 3000000; // 3 GHz: 3 ticks per ns, exact
constexpr std::uint64_t kAnchorTsc = 1000000000ull;
constexpr std::uint64_t kAnchorRealtime = 1700000000000000000ull;
constexpr std::uint32_t kBlockBytes = 16384;
constexpr std::int32_t kFirstWorker = 100;

struct Options {
    std::uint64_t events = 10000;
    unsigned cpus = 2;
    unsigned processes = 4;
    std::uint64_t seed = 1;
    std::uint64_t lost = 0;
    std::string corrupt;
    std::string prefix;
    std::string recodeIn, recodeOut;
    bool expect = false;
    unsigned format = LTT_FILE_VERSION;
    std::uint32_t vars = 0;       // --vars: LTT_VAR_BIT()s
    std::uint64_t userEvents = 0; // --user-events
    bool stacks = false;          // --stacks: STACK records at blocking switches
};

struct Expected {
    std::int32_t pid = 0, ppid = 0;
    std::string name;
    std::uint64_t syscalls = 0, traps = 0, bytesRead = 0, bytesWritten = 0, runningNs = 0;
    std::uint64_t schedIn = 0;
};

enum class TaskState { Runnable, Running, Blocked, Dead };

struct Task {
    std::int32_t pid;
    TaskState state = TaskState::Runnable;
    int actionsLeft = -1; // children exit after this many actions
    bool inSyscall = false;
    bool execPending = false;
};

struct CpuSim {
    unsigned cpu = 0;
    std::uint64_t ns = 0; // simulated time
    std::int32_t current = 0;
    std::vector<Task> tasks;
    ltt::BlockBuilder block; // the block being filled
    std::uint32_t sequence = 0;
    std::uint64_t lastTsc = 0;
    std::uint64_t pendingLost = 0, pendingLostTsc = 0;
    bool dropping = false; // inside the simulated buffer overflow
    std::uint64_t dropLeft = 0;
    // expectation bookkeeping (on written records)
    bool haveLast = false;
    std::uint64_t lastNs = 0;
    std::int32_t acctCurrent = 0;
    // --vars: the values this CPU last recorded, as the module keeps them
    std::uint32_t varsKnown = 0;
    std::uint64_t varsLast[LTT_VAR_COUNT] = {};
};

class Synth {
public:
    Synth(const Options& o, ltt::TraceWriter& w) : opt_m(o), rng_m(o.seed), writer_m(w) {}

    void run();
    // --user-events: the user streams' blocks, after the CPUs'.
    void writeUserStreams();
    void printExpect(const char* corruptKind, std::uint64_t corruptOffset) const;
    ltt::ProcSnapshot snapshot() const;
    unsigned format() const { return opt_m.format; }
    // Offsets the corruption step uses.
    std::vector<std::uint64_t> blockOffsets;
    std::uint64_t midRecordOffset = 0; // a record inside a middle block

private:
    Expected& exp(std::int32_t pid) { return expected_m[pid]; }
    Expected& known(std::int32_t pid) {
        auto [it, fresh] = expected_m.try_emplace(pid);
        if (fresh)
            it->second = Expected{pid, -1, "unknown"};
        return it->second;
    }
    std::uint64_t tsc(std::uint64_t ns) const { return kAnchorTsc + ns * 3; }
    // The largest delta a record holds; a heartbeat goes before one further
    // from its base (version 2: the previous record).
    std::uint64_t maxDelta() const {
        return opt_m.format == LTT_FORMAT_V1 ? 0xffffffffull : LTT_LONG_DELTA_MAX;
    }
    void startBlock(CpuSim& c);
    void closeBlock(CpuSim& c, bool final);
    void emit(CpuSim& c, std::uint8_t event, std::uint8_t subtype, const void* details,
              std::size_t len);
    template <class T> void emitT(CpuSim& c, std::uint8_t ev, std::uint8_t sub, const T& d) {
        emit(c, ev, sub, &d, sizeof d);
    }
    void account(CpuSim& c, std::uint8_t event, const void* details, std::uint64_t ns);
    void step(CpuSim& c);
    void advance(CpuSim& c, std::uint64_t lo, std::uint64_t hi) {
        c.ns += std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng_m);
    }
    unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_m); }
    Task* task(CpuSim& c, std::int32_t pid) {
        for (auto& t : c.tasks)
            if (t.pid == pid)
                return &t;
        return nullptr;
    }
    void schedule(CpuSim& c, std::uint32_t outState);
    void syscall(CpuSim& c, std::uint32_t nr, std::int64_t ret);
    void irq(CpuSim& c, bool wake);
    void emitVars(CpuSim& c, std::uint8_t event, const void* details);
    void emitStacks(CpuSim& c);

    const Options& opt_m;
    std::mt19937_64 rng_m;
    ltt::TraceWriter& writer_m;
    std::vector<CpuSim> cpus_m;
    std::map<std::int32_t, Expected> expected_m;
    std::uint64_t records_m = 0, lost_m = 0;
    std::uint64_t counts_m[LTT_EV_COUNT] = {};
    std::int32_t nextPid_m = 1000;
    std::uint64_t forks_m = 0;
    std::uint64_t firstNs_m = UINT64_MAX, lastNs_m = 0;
    bool lostDone_m = false;
};

void Synth::account(CpuSim& c, std::uint8_t event, const void* details, std::uint64_t ns) {
    if (c.haveLast && ns >= c.lastNs && c.acctCurrent != 0)
        known(c.acctCurrent).runningNs += ns - c.lastNs;
    if (event == LTT_EV_SCHEDCHANGE) {
        ltt_ev_schedchange d;
        std::memcpy(&d, details, sizeof d);
        c.acctCurrent = d.in;
        if (d.in != 0)
            ++known(d.in).schedIn;
    }
    c.haveLast = true;
    c.lastNs = ns;
    firstNs_m = std::min(firstNs_m, ns);
    lastNs_m = std::max(lastNs_m, ns);
}

void Synth::emit(CpuSim& c, std::uint8_t event, std::uint8_t subtype, const void* details,
                 std::size_t len) {
    if (c.dropping) {
        // Simulated full buffers: the event happens but is not stored.
        ++c.pendingLost;
        if (c.pendingLost == 1)
            c.pendingLostTsc = tsc(c.ns);
        if (--c.dropLeft == 0)
            c.dropping = false;
        return;
    }
    // At most: a compact record is smaller than this.
    const std::size_t align = ltt::recordAlign(opt_m.format);
    const std::size_t size = (sizeof(ltt_record_header) + len + align - 1) & ~(align - 1);
    if (c.block.empty() || c.block.size() + size + 24 + 48 > kBlockBytes) {
        if (!c.block.empty())
            closeBlock(c, false);
        startBlock(c);
    }
    std::uint64_t t = tsc(c.ns);
    if (t - c.block.base() > maxDelta()) {
        const ltt_ev_heartbeat hb{t};
        c.block.heartbeat(t);
        ++counts_m[LTT_EV_HEARTBEAT];
        account(c, LTT_EV_HEARTBEAT, &hb, c.ns);
    }
    c.block.record(t, event, subtype, details, len);
    ++counts_m[event];
    c.lastTsc = t;
    // Expected figures, from what was written: a process whose fork was
    // lost is known only as "unknown" once a written record names it.
    if (event == LTT_EV_PROCESS && subtype == LTT_PROCESS_FORK) {
        ltt_ev_process d;
        std::memcpy(&d, details, sizeof d);
        Expected& e = exp(d.pid);
        e.pid = d.pid;
        e.ppid = c.current;
        e.name = known(c.current).name;
    } else if (event == LTT_EV_FILE_SYSTEM && subtype == LTT_FS_EXEC) {
        known(c.current).name = "child-" + std::to_string(c.current);
    } else if (event == LTT_EV_SCHEDCHANGE) {
        known(c.current);
    }
    if (c.current != 0) {
        if (event == LTT_EV_SYSCALL_ENTRY)
            ++known(c.current).syscalls;
        else if (event == LTT_EV_TRAP_ENTRY)
            ++known(c.current).traps;
        else if (event == LTT_EV_FILE_SYSTEM &&
                 (subtype == LTT_FS_READ || subtype == LTT_FS_WRITE)) {
            ltt_ev_file_system d;
            std::memcpy(&d, details, LTT_EV_FS_FIXED);
            (subtype == LTT_FS_READ ? known(c.current).bytesRead : known(c.current).bytesWritten) +=
                static_cast<std::uint64_t>(d.arg);
        }
    }
    account(c, event, details, c.ns);
    if (opt_m.vars && !((LTT_EV_MASK_STRUCTURE | LTT_EV_BIT(LTT_EV_VARS)) & LTT_EV_BIT(event)))
        emitVars(c, event, details);
}

// The VARS record after `event`, as the module composes it: the arguments
// after a system call entry, then each selected variable that changed on
// this CPU. One lost with the buffers full makes the next one whole.
void Synth::emitVars(CpuSim& c, std::uint8_t event, const void* details) {
    if (c.dropping) {
        c.varsKnown = 0;
        return;
    }
    ltt_ev_vars v{};
    unsigned n = 0;
    std::uint8_t nargs = 0;
    if ((opt_m.vars & LTT_VAR_BIT(LTT_VAR_ARGS)) && event == LTT_EV_SYSCALL_ENTRY) {
        ltt_ev_syscall_entry se;
        std::memcpy(&se, details, sizeof se);
        v.changed |= LTT_VAR_BIT(LTT_VAR_ARGS);
        v.nr = se.nr;
        // The calls the simulation makes, with plausible arguments.
        switch (se.nr) {
        case 0: // read(3, buf, 4096)
        case 1: // write(3, buf, 4096)
            v.values[n++] = 3;
            v.values[n++] = 0x7ffc0000;
            v.values[n++] = 4096;
            break;
        case 2: // open(path, O_RDONLY)
            v.values[n++] = 0x7ffc1000;
            v.values[n++] = 0;
            v.values[n++] = 0;
            break;
        case 59: // execve(path, argv, envp)
            v.values[n++] = 0x7ffc2000;
            v.values[n++] = 0x7ffc2100;
            v.values[n++] = 0x7ffc2200;
            break;
        case 231: // exit_group(0)
            v.values[n++] = 0;
            break;
        default:
            break;
        }
        nargs = static_cast<std::uint8_t>(n);
    }
    for (unsigned i = LTT_VAR_PID; i < LTT_VAR_COUNT; ++i) {
        if (!(opt_m.vars & LTT_VAR_BIT(i)))
            continue;
        std::uint64_t val = 0;
        switch (i) {
        case LTT_VAR_PID:
        case LTT_VAR_PGID:
            val = static_cast<std::uint64_t>(c.current);
            break;
        case LTT_VAR_PPID:
            val = static_cast<std::uint64_t>(std::max(known(c.current).ppid, 0));
            break;
        case LTT_VAR_UID:
            val = 1000;
            break;
        case LTT_VAR_MINFLT:
            val = c.current ? known(c.current).traps : 0;
            break;
        case LTT_VAR_TOTALMEM:
            val = 262144;
            break;
        case LTT_VAR_PREV:
        case LTT_VAR_NEXT: {
            if (event != LTT_EV_SCHEDCHANGE)
                continue;
            ltt_ev_schedchange sc;
            std::memcpy(&sc, details, sizeof sc);
            val = static_cast<std::uint64_t>(i == LTT_VAR_PREV ? sc.out : sc.in);
            break;
        }
        default:
            break;
        }
        if ((c.varsKnown & LTT_VAR_BIT(i)) && c.varsLast[i] == val)
            continue;
        c.varsKnown |= LTT_VAR_BIT(i);
        c.varsLast[i] = val;
        v.changed |= LTT_VAR_BIT(i);
        v.values[n++] = val;
    }
    if (v.changed)
        emit(c, LTT_EV_VARS, nargs, &v, LTT_EV_VARS_FIXED + n * 8);
}

void Synth::startBlock(CpuSim& c) {
    c.block.start(static_cast<std::uint16_t>(c.cpu), c.sequence++, tsc(c.ns), c.current,
                  c.pendingLost, c.pendingLostTsc);
    ++counts_m[LTT_EV_BLOCK_START];
    if (c.pendingLost) {
        // The gap: nothing is known about this CPU since its last record.
        c.haveLast = false;
        lost_m += c.pendingLost;
        ++counts_m[LTT_EV_LOST];
        c.pendingLost = 0;
    }
    c.acctCurrent = c.current;
    if (c.current != 0)
        known(c.current);
    account(c, LTT_EV_BLOCK_START, nullptr, c.ns);
    if (counts_m[LTT_EV_LOST] && c.block.records() == 2)
        account(c, LTT_EV_LOST, nullptr, c.ns);
}

void Synth::closeBlock(CpuSim& c, bool final) {
    const std::uint64_t end = tsc(c.ns);
    if (end - c.block.base() > maxDelta()) {
        // Keep the delta representable even for an idle stretch.
        const ltt_ev_heartbeat hb{end};
        c.block.heartbeat(end);
        ++counts_m[LTT_EV_HEARTBEAT];
        account(c, LTT_EV_HEARTBEAT, &hb, c.ns);
    }
    ++counts_m[LTT_EV_BLOCK_END];
    account(c, LTT_EV_BLOCK_END, nullptr, c.ns);
    const std::uint32_t records = c.block.records() + 1;
    const std::span<const std::byte> block = c.block.finish(end, final ? LTT_BLOCK_F_FINAL : 0);
    blockOffsets.push_back(writer_m.bytesWritten());
    if (blockOffsets.size() == 3)
        midRecordOffset = writer_m.bytesWritten() + ltt::kBlockStartRecord +
                          (block[ltt::kBlockStartRecord + 4] == std::byte{LTT_EV_LOST} ? 24 : 0);
    writer_m.append(block);
    records_m += records;
    c.block.clear();
}

void Synth::syscall(CpuSim& c, std::uint32_t nr, std::int64_t ret) {
    ltt_ev_syscall_entry se{0x7f0000001000ull + nr * 16ull, nr, 0};
    emitT(c, LTT_EV_SYSCALL_ENTRY, 0, se);
    advance(c, 200, 2000);
    if (nr == 0 || nr == 1) {
        ltt_ev_file_system fs{};
        fs.fd = 3;
        fs.arg = ret;
        emit(c, LTT_EV_FILE_SYSTEM, nr == 0 ? LTT_FS_READ : LTT_FS_WRITE, &fs, LTT_EV_FS_FIXED);
        advance(c, 100, 1000);
    }
    ltt_ev_syscall_exit sx{ret};
    emitT(c, LTT_EV_SYSCALL_EXIT, 0, sx);
}

// Picks the next task to run on this CPU (idle when none is runnable) and
// switches to it, the outgoing task leaving in `outState`.
void Synth::schedule(CpuSim& c, std::uint32_t outState) {
    std::vector<std::int32_t> runnable;
    for (auto& t : c.tasks)
        if (t.state == TaskState::Runnable && t.pid != c.current)
            runnable.push_back(t.pid);
    std::int32_t in = runnable.empty() ? 0 : runnable[pick(unsigned(runnable.size()))];
    if (in == c.current)
        return;
    if (Task* out = task(c, c.current); out && out->state == TaskState::Running)
        out->state = outState == LTT_TASK_RUNNING ? TaskState::Runnable : TaskState::Blocked;
    ltt_ev_schedchange sc{in, c.current, outState, 0};
    if (opt_m.stacks && c.current > 0 && outState != LTT_TASK_RUNNING)
        emitStacks(c);
    c.current = in;
    if (Task* t = task(c, in))
        t->state = TaskState::Running;
    emitT(c, LTT_EV_SCHEDCHANGE, 0, sc);
}

// --stacks: the kernel and user stacks of the task blocking on `c`, as
// the module writes them before the switch: one of four code paths, 14
// kernel frames and 8 user frames (addresses no kallsyms names).
void Synth::emitStacks(CpuSim& c) {
    const unsigned path = pick(4);
    ltt_ev_stack s{};
    s.pid = c.current;
    s.nr = 14;
    for (unsigned i = 0; i < s.nr; ++i)
        s.ip[i] = 0xffffffff81000020ull + path * 0x10000 + i * 0x100;
    emit(c, LTT_EV_STACK, LTT_STACK_KERNEL, &s, LTT_EV_STACK_FIXED + 8 * s.nr);
    s.nr = 8;
    for (unsigned i = 0; i < s.nr; ++i)
        s.ip[i] = 0x401010 + path * 0x1000 + i * 0x40;
    emit(c, LTT_EV_STACK, LTT_STACK_USER, &s, LTT_EV_STACK_FIXED + 8 * s.nr);
}

void Synth::irq(CpuSim& c, bool wake) {
    ltt_ev_irq_entry ie{static_cast<std::uint32_t>(wake ? 14 : 0),
                        c.current == 0 || pick(2) ? LTT_IRQ_IN_KERNEL : 0u};
    emitT(c, LTT_EV_IRQ_ENTRY, 0, ie);
    advance(c, 500, 3000);
    if (wake) {
        for (auto& t : c.tasks) {
            if (t.state == TaskState::Blocked) {
                ltt_ev_process p{t.pid, 0, LTT_TASK_UNINTERRUPTIBLE};
                t.state = TaskState::Runnable;
                emitT(c, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, p);
                advance(c, 100, 500);
                break;
            }
        }
    } else {
        emit(c, LTT_EV_KERNEL_TIMER, 0, nullptr, 0);
    }
    emit(c, LTT_EV_IRQ_EXIT, 0, nullptr, 0);
    if (pick(3) == 0) {
        ltt_ev_soft_irq s{1};
        emitT(c, LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_ENTRY, s);
        advance(c, 200, 1500);
        emitT(c, LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_EXIT, s);
    }
}

// One action of the current task (or of the idle CPU).
void Synth::step(CpuSim& c) {
    advance(c, 1000, 20000);
    if (c.current == 0) {
        // Idle: wait for an interrupt that wakes a blocked task, or a tick.
        bool anyBlocked = std::any_of(c.tasks.begin(), c.tasks.end(),
                                      [](const Task& t) { return t.state == TaskState::Blocked; });
        irq(c, anyBlocked);
        schedule(c, LTT_TASK_RUNNING);
        return;
    }
    Task* t = task(c, c.current);
    if (t->inSyscall) {
        // Back from a blocking read: the I/O completed while it slept.
        ltt_ev_file_system fs{};
        emit(c, LTT_EV_FILE_SYSTEM, LTT_FS_BUF_WAIT_END, &fs, LTT_EV_FS_FIXED);
        advance(c, 500, 2000);
        fs.fd = 3;
        fs.arg = 4096;
        emit(c, LTT_EV_FILE_SYSTEM, LTT_FS_READ, &fs, LTT_EV_FS_FIXED);
        ltt_ev_syscall_exit sx{4096};
        emitT(c, LTT_EV_SYSCALL_EXIT, 0, sx);
        t->inSyscall = false;
        return;
    }
    if (t->execPending) {
        // A fresh child: it execs first.
        t->execPending = false;
        ltt_ev_syscall_entry se{0x7f00000020a0ull, 59, 0};
        emitT(c, LTT_EV_SYSCALL_ENTRY, 0, se);
        advance(c, 1000, 5000);
        ltt_ev_file_system fs{};
        std::snprintf(fs.name, sizeof fs.name, "/usr/bin/child-%d", t->pid);
        emit(c, LTT_EV_FILE_SYSTEM, LTT_FS_EXEC, &fs, LTT_EV_FS_FIXED + std::strlen(fs.name) + 1);
        advance(c, 1000, 5000);
        ltt_ev_syscall_exit sx{0};
        emitT(c, LTT_EV_SYSCALL_EXIT, 0, sx);
        return;
    }
    if (t->actionsLeft == 0) {
        ltt_ev_syscall_entry se{0x7f0000003000ull, 231, 0};
        emitT(c, LTT_EV_SYSCALL_ENTRY, 0, se);
        advance(c, 1000, 4000);
        ltt_ev_process p{t->pid, 0, 0};
        emitT(c, LTT_EV_PROCESS, LTT_PROCESS_EXIT, p);
        t->state = TaskState::Dead;
        schedule(c, LTT_TASK_DEAD); // to another task or idle
        std::erase_if(c.tasks, [](const Task& x) { return x.state == TaskState::Dead; });
        return;
    }
    if (t->actionsLeft > 0)
        --t->actionsLeft;
    switch (pick(16)) {
    case 0:
    case 1:
    case 2:
    case 3:
        syscall(c, 0, std::uniform_int_distribution<std::int64_t>(0, 8192)(rng_m));
        break;
    case 4:
    case 5:
    case 6:
        syscall(c, 1, std::uniform_int_distribution<std::int64_t>(1, 4096)(rng_m));
        break;
    case 7:
        syscall(c, 2, -2);
        break; // open: ENOENT
    case 8:
        syscall(c, 39, t->pid);
        break; // getpid
    case 9: {  // blocking read
        ltt_ev_syscall_entry se{0x7f0000001000ull, 0, 0};
        emitT(c, LTT_EV_SYSCALL_ENTRY, 0, se);
        advance(c, 500, 2000);
        ltt_ev_file_system fs{};
        emit(c, LTT_EV_FILE_SYSTEM, LTT_FS_BUF_WAIT_START, &fs, LTT_EV_FS_FIXED);
        t->inSyscall = true;
        t->state = TaskState::Running;
        schedule(c, LTT_TASK_UNINTERRUPTIBLE); // to another task or idle
        break;
    }
    case 10:
    case 11:
        schedule(c, LTT_TASK_RUNNING);
        break; // preempted
    case 12:
        irq(c, std::any_of(c.tasks.begin(), c.tasks.end(),
                           [](const Task& x) { return x.state == TaskState::Blocked; }));
        break;
    case 13: { // page fault
        ltt_ev_trap_entry te{0x55550000100ull, 0x7ffd0000ull + pick(4096), LTT_TRAP_PAGE_FAULT, 6};
        emitT(c, LTT_EV_TRAP_ENTRY, 0, te);
        advance(c, 500, 3000);
        emit(c, LTT_EV_TRAP_EXIT, 0, nullptr, 0);
        break;
    }
    case 14: { // fork
        if (forks_m >= 50 + 10 * opt_m.processes || c.tasks.size() >= 12) {
            syscall(c, 39, t->pid);
            break;
        }
        std::int32_t child = nextPid_m++;
        ++forks_m;
        std::int32_t parent = t->pid;
        ltt_ev_syscall_entry se{0x7f0000004000ull, 56, 0};
        emitT(c, LTT_EV_SYSCALL_ENTRY, 0, se);
        advance(c, 2000, 8000);
        ltt_ev_process p{child, 0, 0x01200011};
        emitT(c, LTT_EV_PROCESS, LTT_PROCESS_FORK, p);
        advance(c, 500, 2000);
        ltt_ev_syscall_exit sx{child};
        emitT(c, LTT_EV_SYSCALL_EXIT, 0, sx);
        Task nt{child};
        nt.actionsLeft = 5 + static_cast<int>(pick(20));
        nt.execPending = true;
        c.tasks.push_back(nt); // invalidates t
        (void)parent;
        break;
    }
    default:
        syscall(c, 228, 0);
        break; // clock_gettime
    }
}

void Synth::writeUserStreams() {
    using ltt::UserEvents;
    using ltt::UserValue;
    const std::uint64_t first = firstNs_m == UINT64_MAX ? 0 : firstNs_m;
    const std::uint64_t span = lastNs_m > first ? lastNs_m - first : 1;
    struct Stream {
        std::uint16_t number;
        std::int32_t tid, tgid;
        std::uint64_t lost;
        bool request; // the "request" type; else "tick"
    };
    std::vector<Stream> streams = {{0, kFirstWorker, kFirstWorker, 0, true},
                                   {3, kFirstWorker + 7000, kFirstWorker, 0, true}};
    if (opt_m.processes > 1)
        streams.push_back({1, kFirstWorker + 1, kFirstWorker + 1, 3, false});
    const std::vector<UserEvents::Field> request = {{"id", LTT_USER_U64},
                                                    {"delta", LTT_USER_I64},
                                                    {"ratio", LTT_USER_F64},
                                                    {"path", LTT_USER_STR}};
    const std::vector<UserEvents::Field> mark = {{"text", LTT_USER_STR}};
    const std::vector<UserEvents::Field> tick = {{"count", LTT_USER_I64}};
    const std::uint64_t per = std::max<std::uint64_t>(1, opt_m.userEvents / streams.size());
    for (std::size_t si = 0; si < streams.size(); ++si) {
        const Stream& st = streams[si];
        ltt::BlockBuilder b(LTT_FORMAT_V2);
        std::uint32_t sequence = 0;
        std::uint64_t ns = first + 11 * (si + 1);
        bool declared = false;
        auto add = [&](std::uint8_t sub, const std::vector<std::byte>& d) {
            if (!b.empty() && b.size() + d.size() + 8 + 16 + 24 > kBlockBytes) {
                writer_m.append(b.finish(tsc(ns), LTT_BLOCK_F_USER));
                b.clear();
            }
            if (b.empty()) {
                b.start(st.number, sequence, tsc(ns), st.tid, sequence == 0 ? st.lost : 0,
                        tsc(first));
                ++sequence;
            }
            b.extRecord(tsc(ns), LTT_EV_USER, sub, d.data(), d.size());
        };
        for (std::uint64_t k = 0; k < per; ++k) {
            ns = first + 11 * (si + 1) + span * (k + 1) / (per + 2);
            if (!declared) {
                // Each stream declares what it logs before its first event
                // (the type ids are the process's: the same in both of
                // worker-0's streams).
                if (st.request) {
                    add(LTT_USER_DECLARE, ltt::userDeclareDetails(0, st.tgid, "request", request));
                    add(LTT_USER_DECLARE, ltt::userDeclareDetails(1, st.tgid, "ltt_mark", mark));
                } else {
                    add(LTT_USER_DECLARE, ltt::userDeclareDetails(0, st.tgid, "tick", tick));
                }
                declared = true;
            }
            if (st.request && si == 0 && k == per / 2)
                add(LTT_USER_EVENT,
                    ltt::userEventDetails(1, st.tgid, {{LTT_USER_STR, 0, 0, 0, "phase 2 begins"}}));
            std::vector<UserValue> v;
            if (st.request) {
                v = {{LTT_USER_U64, 0, 1000 * si + k, 0, {}},
                     {LTT_USER_I64, -static_cast<std::int64_t>(k * 7) + 3, 0, 0, {}},
                     {LTT_USER_F64, 0, 0, static_cast<double>(k) / 3.0 + 0.1, {}},
                     {LTT_USER_STR, 0, 0, 0,
                      k % 5 == 2 ? std::string("/srv/\"quoted\" a\\b\n\ttab")
                                 : "/srv/item-" + std::to_string(k)}};
            } else {
                v = {{LTT_USER_I64, static_cast<std::int64_t>(k), 0, 0, {}}};
            }
            add(LTT_USER_EVENT, ltt::userEventDetails(0, st.tgid, v));
        }
        if (!b.empty())
            writer_m.append(b.finish(tsc(ns + 5), LTT_BLOCK_F_USER | LTT_BLOCK_F_FINAL));
    }
}

void Synth::run() {
    cpus_m.resize(opt_m.cpus);
    for (auto& c : cpus_m)
        c.block = ltt::BlockBuilder(opt_m.format);
    exp(1) = Expected{1, 0, "init"};
    exp(2) = Expected{2, 0, "kthreadd"};
    for (unsigned i = 0; i < opt_m.processes; ++i) {
        std::int32_t pid = kFirstWorker + static_cast<std::int32_t>(i);
        exp(pid) = Expected{pid, 1, "worker-" + std::to_string(i)};
        cpus_m[i % opt_m.cpus].tasks.push_back(Task{pid});
    }
    for (unsigned i = 0; i < opt_m.cpus; ++i) {
        CpuSim& c = cpus_m[i];
        c.cpu = i;
        c.ns = 1000 + i * 37;
        c.current = c.tasks.empty() ? 0 : c.tasks[0].pid;
        if (Task* t = task(c, c.current))
            t->state = TaskState::Running;
        c.acctCurrent = c.current;
    }
    // The trace-start record opens CPU 0's first block.
    {
        ltt_ev_trace_start ts{kTscKhz, kAnchorTsc, kAnchorRealtime, LTT_EV_MASK_ALL,
                              LTT_EV_MASK_ALL};
        if (opt_m.vars) {
            // The module's form, which says what the VARS records hold.
            ltt_ev_trace_start_ext ext{ts, LTT_BACKEND_FACILITY, opt_m.vars, 0, 0};
            emitT(cpus_m[0], LTT_EV_TRACE_START, 0, ext);
        } else {
            emitT(cpus_m[0], LTT_EV_TRACE_START, 0, ts);
        }
    }
    const std::uint64_t budget = opt_m.events > 200 ? opt_m.events - 100 : opt_m.events;
    const std::uint64_t lostAt = budget / 2;
    for (;;) {
        std::uint64_t written = records_m;
        for (auto& c : cpus_m)
            written += c.block.records();
        if (written + lost_m >= budget)
            break;
        if (opt_m.lost && !lostDone_m && written >= lostAt) {
            // CPU 0's buffers overflow for the next `lost` events.
            CpuSim& c = cpus_m[0];
            closeBlock(c, false);
            c.dropping = true;
            c.dropLeft = opt_m.lost;
            lostDone_m = true;
        }
        auto it = std::min_element(cpus_m.begin(), cpus_m.end(),
                                   [](const CpuSim& a, const CpuSim& b) { return a.ns < b.ns; });
        step(*it);
    }
    for (auto& c : cpus_m) {
        if (c.dropping || c.pendingLost) {
            c.dropping = false;
            startBlock(c);
        }
        if (c.block.empty())
            startBlock(c);
        advance(c, 100, 1000);
        closeBlock(c, true);
    }
    if (opt_m.userEvents)
        writeUserStreams();
}

ltt::ProcSnapshot Synth::snapshot() const {
    ltt::ProcSnapshot s;
    auto task = [](std::int32_t pid, std::int32_t ppid, bool kthread, std::string name) {
        ltt::ProcTask t;
        t.pid = pid;
        t.ppid = ppid;
        t.tgid = pid;
        t.pgrp = kthread ? 0 : pid;
        t.uid = 0;
        t.gid = 0;
        t.state = 'S';
        t.kthread = kthread;
        t.name = std::move(name);
        return t;
    };
    s.tasks.push_back(task(1, 0, false, "init"));
    s.tasks.push_back(task(2, 0, true, "kthreadd"));
    for (unsigned i = 0; i < opt_m.processes; ++i)
        s.tasks.push_back(
            task(kFirstWorker + std::int32_t(i), 1, false, "worker-" + std::to_string(i)));
    s.irqs.push_back({"0", "timer"});
    s.irqs.push_back({"14", "ata_piix"});
    s.irqs.push_back({"LOC", "Local timer interrupts"});
    return s;
}

void Synth::printExpect(const char* corruptKind, std::uint64_t corruptOffset) const {
    std::uint64_t start = firstNs_m == UINT64_MAX ? 0 : firstNs_m;
    std::printf("{\n  \"trace\": {\"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
                ", \"duration_ns\": %" PRIu64 ", \"cpus\": %u, \"events\": %" PRIu64
                ", \"lost_events\": %" PRIu64 "},\n",
                start, lastNs_m, lastNs_m - start, opt_m.cpus, records_m, lost_m);
    if (corruptKind)
        std::printf("  \"corrupt\": {\"kind\": \"%s\", \"offset\": %" PRIu64 "},\n", corruptKind,
                    corruptOffset);
    static const char* keys[LTT_EV_COUNT] = {
        "trace_start", "syscall_entry", "syscall_exit", "trap_entry", "trap_exit", "irq_entry",
        "irq_exit",    "schedchange",   "kernel_timer", "soft_irq",   "process",   "file_system",
        "timer",       "memory",        "socket",       "ipc",        "network",   "block_start",
        "block_end",   "heartbeat",     "lost",         "custom",     "vars"};
    std::printf("  \"event_counts\": {");
    bool first = true;
    for (unsigned i = 0; i < LTT_EV_COUNT; ++i) {
        if (!counts_m[i] || !keys[i])
            continue;
        std::printf("%s\"%s\": %" PRIu64, first ? "" : ", ", keys[i], counts_m[i]);
        first = false;
    }
    std::printf("},\n  \"processes\": [\n");
    first = true;
    for (const auto& [pid, e] : expected_m) {
        if (pid == 0)
            continue;
        std::printf("%s    {\"pid\": %d, \"ppid\": %d, \"name\": \"%s\", \"syscalls\": %" PRIu64
                    ", \"traps\": %" PRIu64 ", \"bytes_read\": %" PRIu64
                    ", \"bytes_written\": %" PRIu64 ", \"time_running_ns\": %" PRIu64
                    ", \"sched_in\": %" PRIu64 "}",
                    first ? "" : ",\n", e.pid, e.ppid, e.name.c_str(), e.syscalls, e.traps,
                    e.bytesRead, e.bytesWritten, e.runningNs, e.schedIn);
        first = false;
    }
    std::printf("\n  ]\n}\n");
}

// Damages the finished file at a known place; returns the offset the
// reader's message must name.
bool corruptFile(const std::string& path, const std::string& kind, const Synth& s,
                 std::uint64_t* offset, std::string* why) {
    int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *why = std::strerror(errno);
        return false;
    }
    auto put = [&](std::uint64_t off, const void* p, std::size_t n) {
        return ::pwrite(fd, p, n, static_cast<off_t>(off)) == static_cast<ssize_t>(n);
    };
    static const char* const kinds[] = {"magic", "version",     "block-magic", "block-length",
                                        "cpu",   "record-size", "block-end",   "truncate"};
    if (std::find(std::begin(kinds), std::end(kinds), kind) == std::end(kinds)) {
        *why = "unknown corruption kind \"" + kind +
               "\" (magic, version, block-magic, block-length, cpu, record-size, block-end, "
               "truncate)";
        ::close(fd);
        return false;
    }
    if (s.blockOffsets.size() < 3) {
        *why = "trace too small to corrupt (need 3 blocks)";
        ::close(fd);
        return false;
    }
    const std::uint64_t b1 = s.blockOffsets[1];
    bool ok = true;
    if (kind == "magic") {
        *offset = 0;
        ok = put(0, "NOTATRAC", 8);
    } else if (kind == "version") {
        std::uint16_t v = 99;
        *offset = offsetof(ltt_file_header, version);
        ok = put(*offset, &v, 2);
    } else if (kind == "block-magic") {
        std::uint32_t m = 0xdeadbeef;
        *offset = b1 + 8 + offsetof(ltt_block_start, magic);
        ok = put(*offset, &m, 4);
    } else if (kind == "block-length") {
        std::uint32_t l = 77;
        *offset = b1 + 8 + offsetof(ltt_block_start, length);
        ok = put(*offset, &l, 4);
    } else if (kind == "cpu") {
        std::uint16_t cpu = 63;
        *offset = b1 + 8 + offsetof(ltt_block_start, cpu);
        ok = put(*offset, &cpu, 2);
    } else if (kind == "record-size") {
        // Version 1: size 12, not a multiple of 8. Version 2: the record
        // becomes an EXT record of size 6, smaller than its two words.
        std::uint16_t sz = s.format() == LTT_FORMAT_V1 ? 12 : 6;
        const std::uint32_t ext = LTT_CODE_EXT;
        ok = s.format() == LTT_FORMAT_V1 || put(s.midRecordOffset, &ext, 4);
        *offset = s.midRecordOffset + 6;
        ok = ok && put(*offset, &sz, 2);
    } else if (kind == "block-end") {
        // The block's last record is no longer a BLOCK_END.
        std::uint32_t len = 0;
        ok = ::pread(fd, &len, 4, static_cast<off_t>(b1 + 8 + 4)) == 4;
        std::uint8_t ev = LTT_EV_SYSCALL_EXIT;
        *offset = b1 + len - 24 + 4;
        ok = ok && put(*offset, &ev, 1);
    } else if (kind == "truncate") {
        // Cut the file inside its last block, as a killed producer would.
        std::uint64_t last = s.blockOffsets.back();
        *offset = last;
        ok = ::ftruncate(fd, static_cast<off_t>(last + 100)) == 0;
    }
    ::close(fd);
    if (!ok)
        *why = std::strerror(errno);
    return ok;
}

void usage(std::FILE* f) {
    std::fprintf(f,
                 "usage: ltt-synth --events N --cpus C --processes P [--seed S] [--lost K]\n"
                 "                 [--format 1|2] [--corrupt KIND] [--vars LIST] [--expect]\n"
                 "                 [--user-events N] [--stacks]\n"
                 "                 -o PREFIX\n"
                 "       ltt-synth --recode-v2 IN OUT\n"
                 "Writes PREFIX.trace and PREFIX.proc, a synthetic trace of about N events.\n"
                 "  --expect        print the figures an exact analysis must find (JSON)\n"
                 "  --lost K        CPU 0 loses K events halfway through\n"
                 "  --format V      trace format version 1 or 2 (default 2)\n"
                 "  --vars LIST     record kernel-state variables (tracedaemon -V names)\n"
                 "  --user-events N about N application events in user streams (format 2)\n"
                 "  --stacks        STACK records before each blocking switch\n"
                 "  --corrupt KIND  damage the file: magic, version, block-magic, block-length,\n"
                 "                  cpu, record-size, block-end, truncate\n"
                 "  --recode-v2     write OUT, the version 1 trace IN in format version 2 (the\n"
                 "                  same blocks, records and times; its whole blocks only)\n");
}

// --recode-v2: each whole block of IN rebuilt record by record with a
// version 2 BlockBuilder, which picks each record's code as the module does.
int recodeV2(const std::string& in, const std::string& out) {
    ltt::TraceError e;
    auto r = ltt::TraceReader::open(in, &e);
    if (!r) {
        std::fprintf(stderr, "ltt-synth: %s\n", e.str().c_str());
        return 1;
    }
    if (r->header().version != LTT_FORMAT_V1) {
        std::fprintf(stderr, "ltt-synth: %s: format version %u, not 1\n", in.c_str(),
                     unsigned{r->header().version});
        return 1;
    }
    ltt_file_header h = r->header();
    h.version = LTT_FORMAT_V2;
    ltt::TraceWriter w(out, h);
    const auto bytes = r->bytes();
    ltt::BlockBuilder b(LTT_FORMAT_V2);
    for (const ltt::BlockInfo& info : r->blocks()) {
        const auto block = bytes.subspan(info.offset, info.length);
        // The LOST record right after BLOCK_START (where a block with lost
        // events has it) gives the time of the first event lost.
        ltt_ev_lost lost{};
        if (info.lost)
            std::memcpy(&lost, block.data() + ltt::kBlockStartRecord + sizeof(ltt_record_header),
                        sizeof lost);
        b.start(info.cpu, info.sequence, info.startTsc, info.pid, info.lost, lost.first_tsc);
        std::uint64_t endTsc = info.endTsc, endRecordTsc = info.endTsc;
        const ltt::RecordFault f = ltt::walkBlock(block, info, [&](const ltt::BlockRecord& rec) {
            const auto d = rec.details();
            const std::uint8_t ev = rec.header.event;
            if (ev == LTT_EV_BLOCK_START ||
                (ev == LTT_EV_LOST && info.lost && rec.offset == ltt::kBlockStartRecord))
                return; // written by start()
            if (ev == LTT_EV_BLOCK_END) {
                std::memcpy(&endTsc, d.data(), sizeof endTsc);
                endRecordTsc = rec.tsc;
            } else if (ev == LTT_EV_HEARTBEAT && d.size() == sizeof(ltt_ev_heartbeat)) {
                b.heartbeat(rec.tsc);
            } else {
                b.record(rec.tsc, ev, rec.header.subtype, d.data(), d.size());
            }
        });
        if (f.kind != ltt::RecordFault::None) {
            std::fprintf(stderr, "ltt-synth: %s: offset %llu: %s\n", in.c_str(),
                         static_cast<unsigned long long>(info.offset) + f.at, f.message().c_str());
            return 1;
        }
        w.append(b.finish(endTsc, info.flags, endRecordTsc));
    }
    w.close();
    return 0;
}

bool parseU64(const char* s, std::uint64_t& out) {
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s, &end, 0);
    if (errno || !end || *end || *s == '-')
        return false;
    out = v;
    return true;
}

} // namespace

int main(int argc, char** argv) {
    Options opt;
    static const option longopts[] = {{"events", required_argument, nullptr, 'n'},
                                      {"cpus", required_argument, nullptr, 'c'},
                                      {"processes", required_argument, nullptr, 'p'},
                                      {"seed", required_argument, nullptr, 's'},
                                      {"lost", required_argument, nullptr, 'l'},
                                      {"corrupt", required_argument, nullptr, 'k'},
                                      {"format", required_argument, nullptr, 'f'},
                                      {"recode-v2", required_argument, nullptr, 'r'},
                                      {"expect", no_argument, nullptr, 'e'},
                                      {"vars", required_argument, nullptr, 'v'},
                                      {"user-events", required_argument, nullptr, 'u'},
                                      {"stacks", no_argument, nullptr, 'S'},
                                      {"output", required_argument, nullptr, 'o'},
                                      {"help", no_argument, nullptr, 'h'},
                                      {"version", no_argument, nullptr, 'V'},
                                      {nullptr, 0, nullptr, 0}};
    int ch;
    std::uint64_t v = 0;
    while ((ch = getopt_long(argc, argv, "n:c:p:s:l:k:f:r:ev:u:o:hV", longopts, nullptr)) != -1) {
        auto num = [&](const char* what) {
            if (!parseU64(optarg, v)) {
                std::fprintf(stderr, "ltt-synth: bad %s \"%s\"\n", what, optarg);
                std::exit(2);
            }
            return v;
        };
        switch (ch) {
        case 'n':
            opt.events = num("--events");
            break;
        case 'c':
            opt.cpus = static_cast<unsigned>(num("--cpus"));
            break;
        case 'p':
            opt.processes = static_cast<unsigned>(num("--processes"));
            break;
        case 's':
            opt.seed = num("--seed");
            break;
        case 'l':
            opt.lost = num("--lost");
            break;
        case 'k':
            opt.corrupt = optarg;
            break;
        case 'f':
            if (std::strcmp(optarg, "1") != 0 && std::strcmp(optarg, "2") != 0) {
                std::fprintf(stderr, "ltt-synth: bad --format \"%s\" (1 or 2)\n", optarg);
                return 2;
            }
            opt.format = optarg[0] == '1' ? LTT_FORMAT_V1 : LTT_FORMAT_V2;
            break;
        case 'r':
            opt.recodeIn = optarg;
            break;
        case 'e':
            opt.expect = true;
            break;
        case 'v': {
            std::string bad;
            auto m = ltt::parseVarList(optarg, &bad);
            if (!m) {
                std::fprintf(stderr, "ltt-synth: unknown variable \"%s\" in --vars (known: %s)\n",
                             bad.c_str(), ltt::varNames().c_str());
                return 2;
            }
            opt.vars = *m;
            break;
        }
        case 'S':
            opt.stacks = true;
            break;
        case 'u':
            opt.userEvents = num("--user-events");
            break;
        case 'o':
            opt.prefix = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            std::printf("ltt-synth %s\n", LTT_VERSION_STRING);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (!opt.recodeIn.empty()) {
        if (optind + 1 != argc) {
            std::fprintf(stderr, "ltt-synth: --recode-v2 IN OUT: %s\n",
                         optind == argc ? "OUT is required" : "unexpected argument");
            return 2;
        }
        try {
            return recodeV2(opt.recodeIn, argv[optind]);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "ltt-synth: %s\n", e.what());
            return 1;
        }
    }
    if (optind != argc || opt.prefix.empty()) {
        std::fprintf(stderr, "ltt-synth: %s\n",
                     opt.prefix.empty() ? "-o PREFIX is required" : "unexpected argument");
        usage(stderr);
        return 2;
    }
    if (opt.cpus == 0 || opt.cpus > LTT_MAX_CPUS) {
        std::fprintf(stderr, "ltt-synth: --cpus must be 1..%d\n", LTT_MAX_CPUS);
        return 2;
    }
    if (opt.userEvents && opt.format == LTT_FORMAT_V1) {
        std::fprintf(stderr, "ltt-synth: --user-events needs format 2\n");
        return 2;
    }
    if (opt.processes == 0 || opt.processes > 100000) {
        std::fprintf(stderr, "ltt-synth: --processes must be 1..100000\n");
        return 2;
    }
    try {
        ltt_trace_info info{};
        info.abi_version = LTT_ABI_VERSION;
        info.ncpus = opt.cpus;
        info.tsc_khz = kTscKhz;
        info.anchor_tsc = kAnchorTsc;
        info.anchor_realtime_ns = kAnchorRealtime;
        info.anchor_monotonic_ns = 5000000000ull;
        info.flags = LTT_TRACE_F_TSC_RELIABLE;
        info.max_block = kBlockBytes;
        info.config.event_mask = LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE;
        info.config.details_mask = LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE;
        if (opt.stacks) {
            info.config.event_mask |= LTT_EV_BIT(LTT_EV_STACK);
            info.config.details_mask |= LTT_EV_BIT(LTT_EV_STACK);
        }
        info.config.buffer_size = kBlockBytes;
        info.config.pid = info.config.pgrp = -1;
        ltt_file_header h =
            ltt::makeFileHeader(info, std::string("ltt-synth ") + LTT_VERSION_STRING, opt.format);
        // Fixed identity so committed golden traces do not depend on the host.
        std::memset(h.release, 0, sizeof h.release);
        std::memset(h.hostname, 0, sizeof h.hostname);
        std::strcpy(h.release, "6.1.0-synthetic");
        std::strcpy(h.hostname, "synth");
        // Both files private (libltt/private_file.hpp), both checked before the
        // run; the .proc appears whole, by rename.
        ltt::ReplacementFile proc(opt.prefix + ".proc");
        ltt::TraceWriter w(opt.prefix + ".trace", h);
        Synth s(opt, w);
        s.run();
        w.close();
        ltt::writeProcFile(proc.fd(), proc.tempPath(), s.snapshot());
        proc.commit();
        std::uint64_t off = 0;
        if (!opt.corrupt.empty()) {
            std::string why;
            if (!corruptFile(opt.prefix + ".trace", opt.corrupt, s, &off, &why)) {
                std::fprintf(stderr, "ltt-synth: cannot corrupt %s.trace: %s\n", opt.prefix.c_str(),
                             why.c_str());
                return 1;
            }
        }
        if (opt.expect)
            s.printExpect(opt.corrupt.empty() ? nullptr : opt.corrupt.c_str(), off);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ltt-synth: %s\n", e.what());
        return 1;
    }
    return 0;
}
