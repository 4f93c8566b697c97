// toCtf: an ltt trace as a CTF 1.8 trace laid out as an LTTng 2.13 kernel
// trace, for babeltrace2 and Trace Compass (docs/convert.md has the
// mapping). One merged walk over the trace (TraceCursor::forEach) writes
// each event into its CPU's stream (CtfStream: fixed-size packets, so
// memory does not grow with events); the metadata, which declares only the
// events used, is written last.
//
// The events follow lttng-modules' names and field names and types, so the
// kernel analyses of Trace Compass (control flow, resources, CPU usage)
// work: sched_switch, sched_wakeup, sched_process_fork/exec/exit/wait,
// syscall_entry_NAME / syscall_exit_NAME, irq_handler_entry/exit, the x86
// IRQ vector events, irq_softirq_entry/exit, and the .proc snapshot as
// lttng_statedump_* events at the start. Every other ltt event (and an
// event whose details were masked out at trace time) is ltt_KEY, with the
// subtype and the ltt detail structure as fields.
//
// Task names (the 16-byte comm fields) follow libltt's process model as
// the walk goes (TraceAnalysis names processes the same way): the .proc
// snapshot's names, a forked task takes its parent's, an exec the base
// name of the file run, a task nobody named is "unknown", and the idle
// task is "swapper/CPU" as in the kernel.
#include "convert_ctf_stream.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <libltt/convert.hpp>
#include <libltt/event_format.hpp>
#include <libltt/event_schema.hpp>
#include <libltt/pid_table.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>
#include <limits>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <utility>
#include <vector>

namespace ltt::convert {

namespace {

// ------------------------------------------------------------ event ids

// CTF event ids. The fixed ones first; ltt_KEY is kLtt + the ltt event id;
// syscall_entry_NAME and syscall_exit_NAME are kSysEntry / kSysExit + nr.
enum : std::uint16_t {
    kSchedSwitch,
    kSchedWakeup,
    kProcessFork,
    kProcessExec,
    kProcessExit,
    kProcessWait,
    kIrqEntry,
    kIrqExit,
    kSoftirqEntry,
    kSoftirqExit,
    kSyscallEntryUnknown,
    kSyscallExitUnknown,
    kStatedumpStart,
    kStatedumpEnd,
    kStatedumpProcess,
    kStatedumpInterrupt,
    kVectorEntry = 32, // + index in kVectors
    kVectorExit = 48,
    kLtt = 64,                       // + ltt event id
    kLttUnknown = kLtt + LTT_EV_MAX, // ids this version does not know
    kSysEntry = 1000,
    kSysExit = 2000,
    kIdLimit = 3000,
};
constexpr std::uint32_t kMaxSyscalls = kSysExit - kSysEntry;

// The x86 vectors ltt records as interrupts (LTT_IRQ_VECTOR), under
// LTTng's x86_irq_vectors_NAME_entry/exit names.
struct Vector {
    std::uint32_t vector;
    const char* name;
};
constexpr Vector kVectors[] = {
    {0xec, "local_timer"},
    {0xfd, "reschedule"},
    {0xfc, "call_function"},
    {0xfb, "call_function_single"},
    {0xf6, "irq_work"},
    {0xf7, "x86_platform_ipi"},
    {0xfe, "error_apic"},
    {0xff, "spurious_apic"},
    {0xfa, "thermal_apic"},
    {0xf9, "threshold_apic"},
    {0xf4, "deferred_error_apic"},
};
constexpr int vectorIndex(std::uint32_t v) {
    for (std::size_t i = 0; i < std::size(kVectors); ++i)
        if (kVectors[i].vector == v)
            return static_cast<int>(i);
    return -1;
}

// Linux's softirq vector names, the labels of LTTng's irq_softirq_names.
constexpr const char* kSoftirqNames[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                         "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

// ltt records no priorities: every prio field says 20, a nice-0 task's
// (prio 120 less MAX_RT_PRIO, as LTTng writes it).
constexpr std::int32_t kPrio = 20;
using schema::kForkCloneThread;

// lttng_statedump_process_state's enums (lttng-statedump-impl.c).
enum : std::int32_t { kUserThread = 0, kKernelThread = 1 };
enum : std::int32_t { kModeUser = 0, kModeUnknown = 5 };
enum : std::int32_t {
    kStatusUnnamed = 0,
    kStatusZombie = 4,
    kStatusWait = 5,
    kStatusRun = 6,
    kStatusDead = 7
};

// ------------------------------------------------------------- the writer

template <class T> [[gnu::always_inline]] inline std::byte* put(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof v);
    return p + sizeof v;
}
// A NUL-terminated string of at most `max` bytes (stops at a NUL in `s`).
std::byte* putString(std::byte* p, std::string_view s, std::size_t max) {
    std::size_t n = 0;
    while (n < s.size() && n < max && s[n])
        ++n;
    if (n) // an empty view's data() may be null
        std::memcpy(p, s.data(), n);
    p[n] = std::byte{0};
    return p + n + 1;
}

// The first N bytes of an event's details, zero-filled where the record
// has fewer (details masked out at trace time).
template <std::size_t N>
[[gnu::always_inline]] inline std::byte* putDetails(std::byte* p, std::span<const std::byte> d) {
    if (d.size() >= N) [[likely]] {
        std::memcpy(p, d.data(), N);
    } else {
        std::memset(p, 0, N);
        std::memcpy(p, d.data(), d.size());
    }
    return p + N;
}

using Comm = std::array<char, 16>; // TASK_COMM_LEN, NUL-padded

Comm commOf(std::string_view name) {
    Comm c{};
    std::memcpy(c.data(), name.data(), std::min(name.size(), c.size() - 1));
    return c;
}

std::byte* putComm(std::byte* p, const Comm& c) {
    std::memcpy(p, c.data(), c.size());
    return p + c.size();
}

// The details of ltt event `Id` as its ltt_KEY event's fields, as the
// schema lays them out (event_schema.hpp; lttFields() below declares
// them): the detail structure whole, zero-filled where the record is
// shorter, or, for a structure that ends in an array, its fixed part and
// then the array (a string up to its NUL, bytes as many as their count).
// The field that holds the element count of `e`'s last field.
constexpr schema::Field countField(const schema::Event& e) {
    for (const schema::Field& f : e.fields)
        if (f.name == e.fields.back().count)
            return f;
    return {};
}

template <unsigned Id>
[[gnu::always_inline]] inline std::byte* putLtt(std::byte* p, std::span<const std::byte> d) {
    constexpr const schema::Event& ev = schema::kEvents[Id];
    if constexpr (ev.fields.empty()) {
        return p;
    } else if constexpr (ev.fixed == 0) {
        return putDetails<ev.size>(p, d);
    } else {
        constexpr schema::Field tail = ev.fields.back();
        static_assert(tail.type == schema::FieldType::Str || tail.type == schema::FieldType::Bytes,
                      "CTF: no conversion yet for this variable-length field");
        if constexpr (tail.type == schema::FieldType::Str) {
            p = putDetails<ev.fixed>(p, d);
            std::string_view text;
            if (d.size() > ev.fixed)
                text = {reinterpret_cast<const char*>(d.data()) + ev.fixed, d.size() - ev.fixed};
            return putString(p, text, tail.size - 1u);
        } else {
            // The fixed part with its count cut to the bytes the record
            // holds, then those bytes.
            constexpr schema::Field count = countField(ev);
            static_assert(count.type == schema::FieldType::U32, "CTF: a byte count is a uint32_t");
            std::byte fixed[ev.fixed]{};
            std::memcpy(fixed, d.data(), std::min<std::size_t>(d.size(), ev.fixed));
            std::uint32_t n;
            std::memcpy(&n, fixed + count.offset, sizeof n);
            const std::size_t have = d.size() > ev.fixed ? d.size() - ev.fixed : 0;
            n = static_cast<std::uint32_t>(std::min<std::size_t>({n, have, tail.size}));
            std::memcpy(fixed + count.offset, &n, sizeof n);
            std::memcpy(p, fixed, ev.fixed);
            p += ev.fixed;
            std::memcpy(p, d.data() + ev.fixed, n);
            return p + n;
        }
    }
}

template <std::size_t... Id>
[[gnu::always_inline]] inline std::byte*
putLttDetails(std::byte* p, unsigned id, std::span<const std::byte> d, std::index_sequence<Id...>) {
    (void)((id == Id && (p = putLtt<Id>(p, d), true)) || ...);
    return p;
}

// What the walk knows of a task: its name, thread group, and the last CPU
// it ran on (sched_wakeup's target_cpu).
struct Task {
    Comm comm{};
    std::int32_t tgid = 0;
    std::int32_t cpu = -1;
};

// Per CPU: the interrupts open on it (their exits carry no number).
struct CpuState {
    static constexpr unsigned kDepth = 32;
    std::array<std::uint32_t, kDepth> irq{}; // irq | (vector-event index + 1) << 16
    unsigned depth = 0;
    bool started = false;
    std::uint64_t endNs = 0;  // the last BLOCK_END's time
    std::int32_t current = 0; // the task current on the CPU (kUnknownPid: unknown)
};

class CtfConverter {
public:
    CtfConverter(const TraceReader& reader, const ProcSnapshot& snap, const std::string& dir,
                 const Options& options);
    Result run();

private:
    template <class E> void step(const E& e);
    void writeLtt(const Event& e, std::uint64_t ns);
    void statedump(std::uint64_t ns);
    void writeMetadata();
    Task& task(std::int32_t pid);
    const Comm& comm(std::int32_t pid, std::uint16_t cpu);
    void use(std::uint16_t id) { used_m[id] = 1; }
    // Ends event `id` at `p` in stream `s` and counts it.
    void written(CtfStream& s, std::byte* p, std::uint16_t id) {
        s.end(p);
        use(id);
        ++result_m.eventsWritten;
    }

    const TraceReader& reader_m;
    const ProcSnapshot& snap_m;
    std::string dir_m;
    const Options& options_m;
    std::uint8_t uuid_m[16]{};
    std::vector<CtfStream> streams_m;
    std::vector<CpuState> cpus_m;
    std::vector<Comm> swapper_m;
    PidTable taskIndex_m; // pid -> index in tasks_m + 1
    std::vector<Task> tasks_m;
    // pid -> the call it is in: (gen_m << 16 | nr) + 1, 0: none. A call
    // opened before a loss (on any CPU) is not matched after it: its exit
    // may be among the lost events, and the next exit another call's.
    PidTable openSyscall_m;
    std::uint32_t gen_m = 0;             // bumped at every loss, 15 bits
    std::vector<std::string> irqNames_m; // by irq number, from the .proc
    std::vector<std::uint8_t> used_m = std::vector<std::uint8_t>(kIdLimit, 0);
    std::uint32_t syscalls_m = 0;
    // Looked up per event, so computed once: which syscall numbers have a
    // name, which ltt events have subtypes.
    std::vector<std::uint8_t> syscallNamed_m;
    std::array<bool, LTT_EV_MAX> hasSubtype_m{};
    Result result_m;
    std::array<std::uint64_t, 256> droppedById_m{};
};

Error systemError(const std::string& what, int err) {
    return Error(what + ": " + std::generic_category().message(err));
}

CtfConverter::CtfConverter(const TraceReader& reader, const ProcSnapshot& snap,
                           const std::string& dir, const Options& options)
    : reader_m(reader), snap_m(snap), dir_m(dir), options_m(options), cpus_m(reader.ncpus()),
      syscalls_m(std::min(syscallTableSize(), kMaxSyscalls)) {
    // The UUID ties the streams to the metadata: derived from the header,
    // so the same trace always converts to the same bytes.
    const auto* h = reinterpret_cast<const unsigned char*>(&reader.header());
    std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
    for (std::size_t i = 0; i < sizeof(ltt_file_header); ++i) {
        a = (a ^ h[i]) * 0x100000001b3ull;
        b = (b ^ h[i]) * 0x100000001b3ull + (a >> 29);
    }
    std::memcpy(uuid_m, &a, 8);
    std::memcpy(uuid_m + 8, &b, 8);
    uuid_m[6] = static_cast<std::uint8_t>((uuid_m[6] & 0x0f) | 0x40); // version 4 layout
    uuid_m[8] = static_cast<std::uint8_t>((uuid_m[8] & 0x3f) | 0x80);

    for (std::uint32_t cpu = 0; cpu < reader.ncpus(); ++cpu) {
        const std::string path = dir_m + "/channel0_" + std::to_string(cpu);
        streams_m.emplace_back(createOutputFile(path, "CTF stream"), path, cpu, uuid_m);
        swapper_m.push_back(commOf("swapper/" + std::to_string(cpu)));
    }
    for (std::uint32_t nr = 0; nr < syscalls_m; ++nr)
        syscallNamed_m.push_back(!syscallName(nr).empty());
    for (unsigned id = 0; id < LTT_EV_MAX; ++id)
        hasSubtype_m[id] = !subtypeName(id, 0).empty();
    tasks_m.reserve(snap.tasks.size() + 64);
    for (const ProcTask& t : snap.tasks) {
        if (t.pid == 0)
            continue;
        Task& k = task(t.pid);
        k.comm = commOf(t.name);
        k.tgid = t.tgid ? t.tgid : t.pid;
    }
    for (const ProcIrq& i : snap.irqs) {
        char* end = nullptr;
        const unsigned long n = std::strtoul(i.irq.c_str(), &end, 10);
        if (i.irq.empty() || *end || n >= 4096)
            continue; // LOC, NMI...: the vectors, named by their events
        if (irqNames_m.size() <= n)
            irqNames_m.resize(n + 1);
        irqNames_m[n] = i.name;
    }
}

// The task `pid`, created (named "unknown") when nothing named it yet.
Task& CtfConverter::task(std::int32_t pid) {
    if (std::uint32_t i = taskIndex_m.find(pid)) [[likely]]
        return tasks_m[i - 1];
    Task& t = tasks_m.emplace_back();
    t.comm = commOf("unknown");
    t.tgid = pid;
    taskIndex_m.set(pid, static_cast<std::uint32_t>(tasks_m.size()));
    return t;
}

const Comm& CtfConverter::comm(std::int32_t pid, std::uint16_t cpu) {
    return pid == 0 ? swapper_m[cpu] : task(pid).comm;
}

// The .proc snapshot, as LTTng's state dump at the start of a session:
// one lttng_statedump_process_state per task, lttng_statedump_interrupt per
// numbered interrupt, between lttng_statedump_start and _end, on CPU 0.
void CtfConverter::statedump(std::uint64_t ns) {
    CtfStream& s = streams_m[0];
    s.end(s.begin(kStatedumpStart, ns));
    use(kStatedumpStart);
    for (const ProcTask& t : snap_m.tasks) {
        std::byte* p = s.begin(kStatedumpProcess, ns);
        p = put(p, std::int32_t(t.pid));
        p = put(p, std::int32_t(t.tgid ? t.tgid : t.pid));
        p = put(p, std::int32_t(t.ppid));
        const Comm c = t.pid == 0 ? swapper_m[0] : commOf(t.name);
        p = putComm(p, c);
        p = put(p, std::int32_t(t.kthread ? kKernelThread : kUserThread));
        p = put(p, std::int32_t(t.kthread ? kModeUnknown : kModeUser));
        p = put(p, std::int32_t(0)); // submode: none
        std::int32_t status = kStatusUnnamed;
        switch (t.state) {
        case 'R':
            status = kStatusRun;
            break;
        case 'S':
        case 'D':
        case 'I':
        case 'T':
        case 't':
            status = kStatusWait;
            break;
        case 'Z':
            status = kStatusZombie;
            break;
        case 'X':
            status = kStatusDead;
            break;
        default:
            break;
        }
        p = put(p, status);
        p = put(p, std::uint32_t(0)); // cpu: the .proc does not say
        p = put(p, std::uint64_t(0)); // file_table_address: unknown
        s.end(p);
        use(kStatedumpProcess);
        ++result_m.eventsAdded;
    }
    for (std::size_t irq = 0; irq < irqNames_m.size(); ++irq) {
        if (irqNames_m[irq].empty())
            continue;
        std::byte* p = s.begin(kStatedumpInterrupt, ns);
        p = put(p, std::uint32_t(irq));
        p = putString(p, "", 0);                 // name: the chip, not recorded
        p = putString(p, irqNames_m[irq], 1024); // action: the handler's name
        s.end(p);
        use(kStatedumpInterrupt);
        ++result_m.eventsAdded;
    }
    s.end(s.begin(kStatedumpEnd, ns));
    use(kStatedumpEnd);
    result_m.eventsAdded += 2;
}

// An event under its ltt_KEY name: the subtype when the event has subtypes,
// then the ltt detail structure (zero where the record lacks it: details
// masked out at trace time).
void CtfConverter::writeLtt(const Event& e, std::uint64_t ns) {
    const std::uint16_t id =
        e.id < LTT_EV_MAX ? std::uint16_t(kLtt + e.id) : std::uint16_t(kLttUnknown);
    std::byte* p = streams_m[e.cpu].begin(id, ns);
    if (e.id < LTT_EV_MAX && hasSubtype_m[e.id])
        p = put(p, e.subtype);
    const std::span<const std::byte> d = e.details();
    if (e.id < LTT_EV_MAX) [[likely]] {
        p = putLttDetails(p, e.id, d, std::make_index_sequence<LTT_EV_MAX>());
    } else {
        const auto n = static_cast<std::uint16_t>(std::min<std::size_t>(d.size(), 2048));
        p = put(p, e.id);
        p = put(p, e.subtype);
        p = put(p, n);
        std::memcpy(p, d.data(), n);
        p += n;
    }
    streams_m[e.cpu].end(p);
    use(id);
    ++result_m.eventsWritten;
}

template <class E> [[gnu::always_inline]] inline void CtfConverter::step(const E& e) {
    ++result_m.eventsRead;
    // Application events (user streams: no CPU) are not converted: dropped
    // and counted by id, as the summary says.
    if (e.cpu >= streams_m.size()) [[unlikely]] {
        ++droppedById_m[e.id];
        return;
    }
    const std::uint64_t ns = reader_m.nsFromAnchor(e.tsc);
    const std::uint16_t cpuNo = e.cpu;
    CtfStream& s = streams_m[cpuNo];
    CpuState& cpu = cpus_m[cpuNo];
    auto drop = [&] { ++droppedById_m[e.id]; };
    // A task the trace does not name (the reader's kUnknownPid) keeps its
    // system call per CPU: two CPUs' unknown tasks are not one.
    const std::int32_t key = e.pid >= 0 ? e.pid : std::numeric_limits<std::int32_t>::min() + cpuNo;

    switch (e.id) {
    case LTT_EV_SYSCALL_ENTRY: {
        ltt_ev_syscall_entry d;
        if (e.copyDetails(d) < 12)
            break; // no number: ltt_syscall_entry
        std::uint16_t id = kSyscallEntryUnknown;
        if (d.nr < syscalls_m && syscallNamed_m[d.nr])
            id = static_cast<std::uint16_t>(kSysEntry + d.nr);
        std::byte* p = s.begin(id, ns);
        if (id == kSyscallEntryUnknown)
            p = put(p, std::int32_t(d.nr));
        written(s, p, id);
        openSyscall_m.set(key, (gen_m << 16 | std::min(d.nr, 0xffffu - 1)) + 1);
        return;
    }
    case LTT_EV_SYSCALL_EXIT: {
        ltt_ev_syscall_exit d;
        if (!e.detailsAs(d))
            break;
        const std::uint32_t open = openSyscall_m.find(key);
        if (!open || (open - 1) >> 16 != gen_m) {
            // The call began before the trace (or in lost events): an exit
            // without its entry is what Trace Compass's state system
            // cannot place, and its name is unknown.
            drop();
            return;
        }
        openSyscall_m.set(key, 0);
        const std::uint32_t nr = (open - 1) & 0xffff;
        std::uint16_t id = kSyscallExitUnknown;
        if (nr < syscalls_m && syscallNamed_m[nr])
            id = static_cast<std::uint16_t>(kSysExit + nr);
        std::byte* p = s.begin(id, ns);
        if (id == kSyscallExitUnknown)
            p = put(p, std::int32_t(nr));
        p = put(p, std::int64_t(d.ret));
        written(s, p, id);
        return;
    }
    case LTT_EV_SCHEDCHANGE: {
        ltt_ev_schedchange d;
        if (!e.detailsAs(d))
            break;
        std::byte* p = s.begin(kSchedSwitch, ns);
        const Comm& prev = comm(d.out, cpuNo);
        p = putComm(p, prev);
        p = put(p, std::int32_t(d.out));
        p = put(p, kPrio);
        p = put(p, std::int64_t(d.out_state));
        const Comm& next = comm(d.in, cpuNo);
        p = putComm(p, next);
        p = put(p, std::int32_t(d.in));
        p = put(p, kPrio);
        written(s, p, kSchedSwitch);
        if (d.in != 0)
            task(d.in).cpu = cpuNo;
        cpu.current = d.in;
        return;
    }
    case LTT_EV_CONTEXT: {
        // The task now current (docs/trace-format.md, CONTEXT): a switch
        // from the one before, whose state is not recorded (shown as
        // runnable), as the analyses expect to see it.
        ltt_ev_context d;
        if (!e.detailsAs(d) || d.pid == cpu.current) {
            drop();
            return;
        }
        std::byte* p = s.begin(kSchedSwitch, ns);
        p = putComm(p, comm(cpu.current, cpuNo));
        p = put(p, std::int32_t(cpu.current));
        p = put(p, kPrio);
        p = put(p, std::int64_t(LTT_TASK_RUNNING));
        p = putComm(p, comm(d.pid, cpuNo));
        p = put(p, std::int32_t(d.pid));
        p = put(p, kPrio);
        written(s, p, kSchedSwitch);
        if (d.pid > 0)
            task(d.pid).cpu = cpuNo;
        cpu.current = d.pid;
        return;
    }
    case LTT_EV_IRQ_ENTRY: {
        ltt_ev_irq_entry d;
        if (!e.detailsAs(d))
            break;
        const int v = (d.flags & LTT_IRQ_VECTOR) ? vectorIndex(d.irq) : -1;
        if (cpu.depth < CpuState::kDepth)
            cpu.irq[cpu.depth] = (d.irq & 0xffff) | std::uint32_t(v + 1) << 16;
        ++cpu.depth;
        std::uint16_t id;
        std::byte* p;
        if (v >= 0) {
            id = static_cast<std::uint16_t>(kVectorEntry + v);
            p = put(s.begin(id, ns), std::int32_t(d.irq));
        } else {
            id = kIrqEntry;
            p = put(s.begin(id, ns), std::int32_t(d.irq));
            std::string_view name = d.irq < irqNames_m.size() ? std::string_view(irqNames_m[d.irq])
                                                              : std::string_view();
            char buf[32];
            if (name.empty()) {
                const int n = std::snprintf(buf, sizeof buf, "%s%u",
                                            (d.flags & LTT_IRQ_VECTOR) ? "vector " : "irq ", d.irq);
                name = {buf, static_cast<std::size_t>(n)};
            }
            p = putString(p, name, 1024);
        }
        written(s, p, id);
        return;
    }
    case LTT_EV_IRQ_EXIT: {
        if (cpu.depth == 0) {
            // Its entry came before the trace or in lost events: the
            // interrupt's number is unknown, and an exit the resources
            // view never saw enter would end a state that never began.
            drop();
            return;
        }
        --cpu.depth;
        const std::uint32_t top = cpu.depth < CpuState::kDepth ? cpu.irq[cpu.depth] : 0;
        const int v = static_cast<int>(top >> 16) - 1;
        std::byte* p;
        std::uint16_t id;
        if (v >= 0) {
            id = static_cast<std::uint16_t>(kVectorExit + v);
            p = put(s.begin(id, ns), std::int32_t(top & 0xffff));
        } else {
            id = kIrqExit;
            p = put(s.begin(id, ns), std::int32_t(top & 0xffff));
            p = put(p, std::int32_t(1)); // ret: IRQ_HANDLED
        }
        written(s, p, id);
        return;
    }
    case LTT_EV_SOFT_IRQ: {
        ltt_ev_soft_irq d;
        if (e.subtype > LTT_SOFTIRQ_EXIT || !e.detailsAs(d))
            break; // tasklets: ltt_soft_irq
        const std::uint16_t id = e.subtype == LTT_SOFTIRQ_ENTRY ? kSoftirqEntry : kSoftirqExit;
        std::byte* p = s.begin(id, ns);
        const auto vec = static_cast<std::uint8_t>(d.id);
        p = put(p, vec);
        p = put(p, vec);
        written(s, p, id);
        return;
    }
    case LTT_EV_PROCESS: {
        ltt_ev_process d;
        if (!e.detailsAs(d))
            break;
        switch (e.subtype) {
        case LTT_PROCESS_FORK:
        case LTT_PROCESS_KTHREAD: {
            // A kernel thread is forked by kthreadd (or whoever is current),
            // as LTTng records it.
            const Comm parent = comm(e.pid, cpuNo);
            const std::int32_t parentTgid = e.pid <= 0 ? 0 : task(e.pid).tgid;
            Task& child = task(d.pid);
            child.comm = parent;
            child.tgid = (e.subtype == LTT_PROCESS_FORK && (d.arg & kForkCloneThread) && parentTgid)
                             ? parentTgid
                             : d.pid;
            std::byte* p = s.begin(kProcessFork, ns);
            p = putComm(p, parent);
            p = put(p, std::int32_t(e.pid));
            p = put(p, parentTgid);
            p = put(p, std::uint32_t(0)); // parent_ns_inum: unknown
            p = putComm(p, parent);
            p = put(p, std::int32_t(d.pid));
            p = put(p, std::uint8_t(1)); // vtids: the root namespace's only
            p = put(p, std::int32_t(d.pid));
            p = put(p, child.tgid);
            p = put(p, std::uint32_t(0)); // child_ns_inum
            written(s, p, kProcessFork);
            return;
        }
        case LTT_PROCESS_EXIT:
        case LTT_PROCESS_WAIT: {
            const std::uint16_t id = e.subtype == LTT_PROCESS_EXIT ? kProcessExit : kProcessWait;
            // exit: the task that exits; wait: the waiter, as in LTTng.
            const Comm& c = comm(e.subtype == LTT_PROCESS_EXIT ? d.pid : e.pid, cpuNo);
            std::byte* p = s.begin(id, ns);
            p = putComm(p, c);
            p = put(p, std::int32_t(d.pid));
            p = put(p, kPrio);
            written(s, p, id);
            return;
        }
        case LTT_PROCESS_WAKEUP: {
            Task& t = task(d.pid);
            std::byte* p = s.begin(kSchedWakeup, ns);
            const Comm& c = d.pid == 0 ? swapper_m[cpuNo] : t.comm;
            p = putComm(p, c);
            p = put(p, std::int32_t(d.pid));
            p = put(p, kPrio);
            p = put(p, std::int32_t(t.cpu >= 0 ? t.cpu : cpuNo));
            written(s, p, kSchedWakeup);
            return;
        }
        default:
            break; // signals: ltt_process
        }
        break;
    }
    case LTT_EV_FILE_SYSTEM: {
        if (e.subtype != LTT_FS_EXEC)
            break;
        const std::span<const std::byte> d = e.details();
        if (d.size() <= LTT_EV_FS_FIXED)
            break;
        std::string_view path(reinterpret_cast<const char*>(d.data()) + LTT_EV_FS_FIXED,
                              d.size() - LTT_EV_FS_FIXED);
        path = path.substr(0, std::min(path.find('\0'), path.size()));
        if (e.pid > 0 && !path.empty()) {
            std::string_view base = path;
            if (auto slash = base.rfind('/');
                slash != std::string_view::npos && slash + 1 < base.size())
                base.remove_prefix(slash + 1);
            task(e.pid).comm = commOf(base);
        }
        std::byte* p = s.begin(kProcessExec, ns);
        p = putString(p, path, LTT_NAME_MAX - 1);
        p = put(p, std::int32_t(e.pid));
        p = put(p, std::int32_t(e.pid));
        written(s, p, kProcessExec);
        return;
    }
    case LTT_EV_BLOCK_START: {
        // Blocks become packets: a loss starts a new packet carrying it
        // (events_discarded); the analyses' view of the CPU restarts.
        cpu.current = e.pid;
        ltt_block_start bs;
        if (e.detailsAs(bs) && (bs.lost || !cpu.started)) {
            cpu.depth = 0;
            cpu.started = true;
            if (bs.lost) {
                gen_m = (gen_m + 1) & 0x7fff;
                s.lost(bs.lost, ns);
                result_m.lost += bs.lost;
            }
        }
        drop();
        return;
    }
    case LTT_EV_BLOCK_END: {
        ltt_block_end be;
        if (e.detailsAs(be))
            cpu.endNs = std::max(cpu.endNs, reader_m.nsFromAnchor(be.end_tsc));
        drop();
        return;
    }
    case LTT_EV_HEARTBEAT: // only a time base: CTF timestamps are whole
    case LTT_EV_LOST:      // its count is the block's, in events_discarded
        drop();
        return;
    default:
        break;
    }
    writeLtt(e, ns);
}

Result CtfConverter::run() {
    reader_m.adviseSequential();
    const std::uint64_t first = reader_m.nsFromAnchor(reader_m.firstTsc());
    statedump(first);
    const std::uint64_t total = std::max<std::uint64_t>(reader_m.claimedEvents(), 1);
    const bool progress = options_m.progress && options_m.log && total > 4000000;
    constexpr std::uint64_t kTick = 0x3ffff; // as TraceAnalysis::run()
    std::uint64_t ticks = 0;
    TraceCursor c = reader_m.begin();
    c.forEach(
        [this](const auto& e) __attribute__((always_inline)) { step(e); }, kTick,
        [&] {
            // Memory must not grow with the trace: give back the pages every
            // CPU has moved past.
            reader_m.releaseBefore(c.lowestOffset());
            if (progress)
                std::fprintf(
                    options_m.log, "\rtraceconvert: %3d%%",
                    static_cast<int>(std::min(1.0, double(++ticks * (kTick + 1)) / double(total)) *
                                     100));
        });
    if (progress)
        std::fprintf(options_m.log, "\r                    \r");
    if (c.error())
        throw Error(c.error()->str());
    for (std::size_t cpu = 0; cpu < streams_m.size(); ++cpu)
        streams_m[cpu].finish(cpus_m[cpu].endNs);
    for (std::size_t id = 0; id < droppedById_m.size(); ++id)
        result_m.eventsDropped += droppedById_m[id];
    result_m.droppedByEvent.assign(droppedById_m.begin(), droppedById_m.end());
    writeMetadata();
    return result_m;
}

// ------------------------------------------------------------- metadata

// A TSDL string literal's body: printable ASCII kept, '"' and '\' escaped,
// any other byte as '_' (env values come from the traced system).
std::string tsdlString(std::string_view s) {
    std::string out;
    for (char ch : s) {
        const auto u = static_cast<unsigned char>(ch);
        if (u == 0)
            break;
        if (ch == '"' || ch == '\\')
            out.push_back('\\');
        out.push_back(u >= 0x20 && u < 0x7f ? ch : '_');
    }
    return out;
}

template <std::size_t N> std::string fixedField(const char (&field)[N]) {
    return std::string(field, strnlen(field, N));
}

// The subtype enum of ltt event `id` ("" for an event without subtypes).
std::string subtypeEnum(unsigned id) {
    const schema::Event& ev = schema::kEvents[id];
    if (!schema::namesSubtypes(ev))
        return {};
    std::string s = "\t\tenum : uint8_t {";
    for (std::size_t sub = 0; sub < ev.subtypes.size(); ++sub) {
        std::string label(ev.subtypes[sub].name);
        std::replace(label.begin(), label.end(), ' ', '_');
        s += (sub ? ", " : " ") + ("\"" + label + "\" = " + std::to_string(sub));
    }
    return s + " } subtype;\n";
}

// The fields of ltt_KEY (after the subtype): the detail structure's, as
// putLtt() writes them.
std::string lttFields(unsigned id) {
    using T = schema::FieldType;
    std::string s;
    for (const schema::Field& f : schema::kEvents[id].fields) {
        const char* type = "";
        switch (f.type) {
        case T::U8:
        case T::Bytes:
            type = "uint8_t";
            break;
        case T::U16:
        case T::X16:
            type = "uint16_t";
            break;
        case T::U32:
            type = "uint32_t";
            break;
        case T::U64:
        case T::U64s:
            type = "uint64_t";
            break;
        case T::S32:
            type = "int32_t";
            break;
        case T::S64:
            type = "int64_t";
            break;
        case T::X32:
            type = "uint32_hex_t";
            break;
        case T::X64:
            type = "uint64_hex_t";
            break;
        case T::Str:
        case T::Strs:
            type = "string";
            break;
        }
        s += "\t\t" + std::string(type) + " " + std::string(f.name);
        if (f.type == T::Bytes || f.type == T::U64s)
            s += "[" + std::string(f.count) + "]";
        s += ";\n";
    }
    return s;
}

void CtfConverter::writeMetadata() {
    const ltt_file_header& h = reader_m.header();
    char uuid[40];
    std::snprintf(uuid, sizeof uuid,
                  "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", uuid_m[0],
                  uuid_m[1], uuid_m[2], uuid_m[3], uuid_m[4], uuid_m[5], uuid_m[6], uuid_m[7],
                  uuid_m[8], uuid_m[9], uuid_m[10], uuid_m[11], uuid_m[12], uuid_m[13], uuid_m[14],
                  uuid_m[15]);
    const std::uint64_t anchor = h.anchor_realtime_ns;
    char created[32] = "";
    const std::time_t secs = static_cast<std::time_t>(anchor / 1000000000);
    std::tm tm{};
    if (gmtime_r(&secs, &tm))
        std::strftime(created, sizeof created, "%Y%m%dT%H%M%S+0000", &tm);
    std::string m;
    m += "/* CTF 1.8 */\n\n"
         "/* An ltt trace converted by traceconvert (docs/convert.md), laid out as an\n"
         " * LTTng kernel trace. */\n\n"
         "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
         "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
         "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
         "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
         "typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
         "typealias integer { size = 32; align = 8; signed = false; base = 16; } := "
         "uint32_hex_t;\n"
         "typealias integer { size = 64; align = 8; signed = false; base = 16; } := "
         "uint64_hex_t;\n"
         "typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
         "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
         "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
         "typealias integer { size = 8; align = 8; signed = true; encoding = UTF8; base = 10; "
         "} := char_t;\n\n";
    m += "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"" + std::string(uuid) +
         "\";\n\tbyte_order = le;\n"
         "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
         "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n";
    const std::string release = tsdlString(fixedField(h.release));
    m += "env {\n\thostname = \"" + tsdlString(fixedField(h.hostname)) +
         "\";\n\tdomain = \"kernel\";\n\tsysname = \"" + tsdlString(fixedField(h.sysname)) +
         "\";\n\tkernel_release = \"" + release + "\";\n\tkernel_version = \"" + release +
         "\";\n\ttracer_name = \"lttng-modules\";\n\ttracer_major = 2;\n\ttracer_minor = 13;\n"
         "\ttracer_patchlevel = 0;\n\ttrace_buffering_scheme = \"global\";\n"
         "\ttrace_name = \"ltt\";\n\ttrace_creation_datetime = \"" +
         std::string(created) + "\";\n\tproduct_uri = \"ltt " + LTT_VERSION_STRING +
         " traceconvert\";\n\tltt_producer = \"" + tsdlString(fixedField(h.producer)) +
         "\";\n\tltt_tsc_khz = " + std::to_string(h.tsc_khz) + ";\n};\n\n";
    // Timestamps are ns since the trace's anchor; the offset makes the
    // clock's value plus the offset the wall time (the header's anchor).
    m += "clock {\n\tname = \"monotonic\";\n\tuuid = \"" + std::string(uuid) +
         "\";\n\tdescription = \"ltt trace clock (TSC as ns since the trace's anchor)\";\n"
         "\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = " +
         std::to_string(anchor / 1000000000) +
         ";\n\toffset = " + std::to_string(anchor % 1000000000) + ";\n\tabsolute = TRUE;\n};\n\n";
    m += "typealias integer { size = 32; align = 8; signed = false; map = "
         "clock.monotonic.value; } := uint32_clock_monotonic_t;\n"
         "typealias integer { size = 64; align = 8; signed = false; map = "
         "clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n"
         "struct packet_context {\n\tuint64_clock_monotonic_t timestamp_begin;\n"
         "\tuint64_clock_monotonic_t timestamp_end;\n\tuint64_t content_size;\n"
         "\tuint64_t packet_size;\n\tuint64_t packet_seq_num;\n"
         "\tunsigned long events_discarded;\n\tuint32_t cpu_id;\n};\n\n"
         "struct event_header_large {\n"
         "\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
         "\tvariant <id> {\n\t\tstruct {\n\t\t\tuint32_clock_monotonic_t timestamp;\n"
         "\t\t} compact;\n\t\tstruct {\n\t\t\tuint32_t id;\n"
         "\t\t\tuint64_clock_monotonic_t timestamp;\n\t\t} extended;\n\t} v;\n};\n\n"
         "stream {\n\tid = 0;\n\tevent.header := struct event_header_large;\n"
         "\tpacket.context := struct packet_context;\n};\n\n";
    auto event = [&](unsigned id, const std::string& name, const std::string& fields) {
        if (!used_m[id])
            return;
        m += "event {\n\tname = \"" + name + "\";\n\tid = " + std::to_string(id) +
             ";\n\tstream_id = 0;\n\tfields := struct {\n" + fields + "\t};\n};\n\n";
    };
    const std::string prio = "\t\tint32_t prio;\n";
    event(kSchedSwitch, "sched_switch",
          "\t\tchar_t prev_comm[16];\n\t\tint32_t prev_tid;\n\t\tint32_t prev_prio;\n"
          "\t\tint64_t prev_state;\n\t\tchar_t next_comm[16];\n\t\tint32_t next_tid;\n"
          "\t\tint32_t next_prio;\n");
    event(kSchedWakeup, "sched_wakeup",
          "\t\tchar_t comm[16];\n\t\tint32_t tid;\n" + prio + "\t\tint32_t target_cpu;\n");
    event(kProcessFork, "sched_process_fork",
          "\t\tchar_t parent_comm[16];\n\t\tint32_t parent_tid;\n\t\tint32_t parent_pid;\n"
          "\t\tuint32_t parent_ns_inum;\n\t\tchar_t child_comm[16];\n\t\tint32_t child_tid;\n"
          "\t\tuint8_t _vtids_length;\n\t\tint32_t vtids[_vtids_length];\n"
          "\t\tint32_t child_pid;\n\t\tuint32_t child_ns_inum;\n");
    event(kProcessExec, "sched_process_exec",
          "\t\tstring filename;\n\t\tint32_t tid;\n\t\tint32_t old_tid;\n");
    event(kProcessExit, "sched_process_exit", "\t\tchar_t comm[16];\n\t\tint32_t tid;\n" + prio);
    event(kProcessWait, "sched_process_wait", "\t\tchar_t comm[16];\n\t\tint32_t tid;\n" + prio);
    event(kIrqEntry, "irq_handler_entry", "\t\tint32_t irq;\n\t\tstring name;\n");
    event(kIrqExit, "irq_handler_exit", "\t\tint32_t irq;\n\t\tint32_t ret;\n");
    std::string softirq = "\t\tuint8_t vec;\n\t\tenum : uint8_t {";
    for (std::size_t i = 0; i < std::size(kSoftirqNames); ++i)
        softirq += (i ? ", " : " ") + std::string(kSoftirqNames[i]) + " = " + std::to_string(i);
    softirq += " } name;\n";
    event(kSoftirqEntry, "irq_softirq_entry", softirq);
    event(kSoftirqExit, "irq_softirq_exit", softirq);
    event(kSyscallEntryUnknown, "syscall_entry_unknown", "\t\tint32_t id;\n");
    event(kSyscallExitUnknown, "syscall_exit_unknown", "\t\tint32_t id;\n\t\tint64_t ret;\n");
    event(kStatedumpStart, "lttng_statedump_start", "");
    event(kStatedumpEnd, "lttng_statedump_end", "");
    event(kStatedumpProcess, "lttng_statedump_process_state",
          "\t\tint32_t tid;\n\t\tint32_t pid;\n\t\tint32_t ppid;\n\t\tchar_t name[16];\n"
          "\t\tint32_t type;\n\t\tint32_t mode;\n\t\tint32_t submode;\n\t\tint32_t status;\n"
          "\t\tuint32_t cpu;\n\t\tuint64_hex_t file_table_address;\n");
    event(kStatedumpInterrupt, "lttng_statedump_interrupt",
          "\t\tuint32_t irq;\n\t\tstring name;\n\t\tstring action;\n");
    for (std::size_t v = 0; v < std::size(kVectors); ++v) {
        const std::string base = std::string("x86_irq_vectors_") + kVectors[v].name;
        event(static_cast<unsigned>(kVectorEntry + v), base + "_entry", "\t\tint32_t vector;\n");
        event(static_cast<unsigned>(kVectorExit + v), base + "_exit", "\t\tint32_t vector;\n");
    }
    for (unsigned id = 0; id < LTT_EV_MAX; ++id)
        event(kLtt + id, "ltt_" + std::string(eventKey(id)), subtypeEnum(id) + lttFields(id));
    event(kLttUnknown, "ltt_unknown",
          "\t\tuint8_t ltt_event;\n\t\tuint8_t subtype;\n\t\tuint16_t length;\n"
          "\t\tuint8_t details[length];\n");
    for (std::uint32_t nr = 0; nr < syscalls_m; ++nr) {
        const std::string name(syscallName(nr));
        event(kSysEntry + nr, "syscall_entry_" + name, "");
        event(kSysExit + nr, "syscall_exit_" + name, "\t\tint64_t ret;\n");
    }

    const std::string path = dir_m + "/metadata";
    UniqueFd fd = createOutputFile(path, "CTF metadata");
    writeFully(fd.get(), path, m.data(), m.size());
    if (::close(fd.release()) != 0)
        throw systemError("cannot write " + path, errno);
}

// The output directory: created 0700, or an existing directory of ours
// (never through a symbolic link) made 0700. What an earlier conversion
// left there (metadata, channel0_N) is replaced; anything else is refused,
// because readers take every file in the directory for a stream.
// Returns whether it created the directory.
bool prepareDirectory(const std::string& dir) {
    const bool created = ::mkdir(dir.c_str(), 0700) == 0;
    if (!created && errno != EEXIST)
        throw systemError("cannot create " + dir, errno);
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) {
        if (errno == ENOTDIR || errno == ELOOP)
            throw Error("refusing to write " + dir +
                        ": not a directory (CTF output is a "
                        "directory; choose another name)");
        throw systemError("cannot open " + dir, errno);
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0)
        throw systemError("cannot open " + dir, errno);
    if (st.st_uid != ::geteuid())
        throw Error("refusing to write " + dir + ": owned by uid " + std::to_string(st.st_uid) +
                    ", not by uid " + std::to_string(::geteuid()));
    if ((st.st_mode & 07777) != 0700 && ::fchmod(fd.get(), 0700) != 0)
        throw systemError("cannot make " + dir + " private (mode 0700)", errno);
    DIR* d = ::fdopendir(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
    if (!d)
        throw systemError("cannot read " + dir, errno);
    std::vector<std::string> stale;
    std::string foreign;
    while (const dirent* ent = ::readdir(d)) {
        const std::string_view n = ent->d_name;
        if (n == "." || n == "..")
            continue;
        const bool ours =
            n == "metadata" || (n.starts_with("channel0_") && n.size() > 9 &&
                                n.find_first_not_of("0123456789", 9) == std::string_view::npos);
        if (ours)
            stale.emplace_back(n);
        else if (foreign.empty())
            foreign = n;
    }
    ::closedir(d);
    if (!foreign.empty())
        throw Error("refusing to write " + dir + ": it holds " + foreign +
                    ", which is not part of a converted trace (CTF readers would take it for "
                    "a stream); choose another directory");
    for (const std::string& n : stale)
        if (::unlinkat(fd.get(), n.c_str(), 0) != 0)
            // NOLINTNEXTLINE(performance-inefficient-string-concatenation): once, as it throws
            throw systemError("cannot replace " + dir + "/" + n, errno);
    return created;
}

// After a failed conversion: removes what it wrote (a directory without
// its metadata is no trace), and the directory if it made it.
void removeOutput(const std::string& dir, std::uint32_t ncpus, bool created) {
    ::unlink((dir + "/metadata").c_str());
    for (std::uint32_t cpu = 0; cpu < ncpus; ++cpu)
        ::unlink((dir + "/channel0_" + std::to_string(cpu)).c_str());
    if (created)
        ::rmdir(dir.c_str());
}

} // namespace

Result toCtf(const std::string& trace, const std::string& proc, const std::string& outDir,
             const Options& options) {
    TraceError err;
    auto reader = TraceReader::open(trace, &err);
    if (!reader)
        throw Error(err.str());
    // A trace cut short is converted up to its last whole block.
    const bool truncated = reader->truncation().has_value();
    if (truncated && options.log)
        std::fprintf(options.log, "traceconvert: warning: %s\n",
                     reader->truncation()->str().c_str());
    if (reader->unfinished() && options.log)
        std::fprintf(options.log, "traceconvert: warning: %s\n",
                     reader->unfinished()->str().c_str());
    ProcParseError perr;
    std::optional<ProcParseError> cut;
    auto snap = readProcFile(proc, &perr, &cut);
    if (!snap)
        throw Error(perr.str());
    if (cut && options.log)
        std::fprintf(options.log, "traceconvert: warning: %s\n", cut->str().c_str());
    if (reader->ncpus() == 0)
        throw Error(trace + ": the trace has no CPUs");

    const bool created = prepareDirectory(outDir);
    try {
        CtfConverter conv(*reader, *snap, outDir, options);
        Result r = conv.run();
        r.truncated = truncated;
        return r;
    } catch (...) {
        removeOutput(outDir, reader->ncpus(), created);
        throw;
    }
}

} // namespace ltt::convert
