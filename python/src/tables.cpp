// The Arrow tables of a trace (tables.hpp, docs/python.md).
//
// `events` is filled straight into the batch's column buffers from a merged
// cursor walk: the hot path, a few stores per event. `syscalls`, `sched` and
// `irqs` pair events into intervals; their rows follow the rules of
// TraceAnalysis (libltt/trace_analysis.hpp, docs/analysis.md) so that SQL
// over them gives traceanalyze's figures: an interval cut by a lost-events
// gap has no duration, a PID forked again is a new task, a task's off-CPU
// time splits into preemption, sleep or I/O wait, and scheduling delay.
#include "tables.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <libltt/event_format.hpp>
#include <libltt/process_report.hpp>
#include <libltt/syscall_args.hpp>
#include <limits>
#include <ltt/module_events.h>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace ltt::pyext {

using arrow::Batch;
using arrow::ColumnSpec;
using arrow::TableSpec;
using arrow::Type;

const TraceAnalysis& TraceHandle::analyzed() {
    std::lock_guard g(analysisLock);
    if (!analysis) {
        auto a = std::make_unique<TraceAnalysis>(*reader, proc());
        a->run();
        analysis = std::move(a);
    }
    return *analysis;
}

const char* backendOf(const TraceReader& r) {
    return TraceAnalysis::backendName((r.header().flags & LTT_TRACE_F_TRACEPOINTS)
                                          ? LTT_BACKEND_TRACEPOINTS
                                          : LTT_BACKEND_FACILITY);
}

namespace {

std::string fixed(const char* s, std::size_t n) {
    return std::string(s, strnlen(s, n));
}

// The analysis' rule for the idle task's "TASK_NOLOAD" bit (an idle kernel
// thread blocked uninterruptibly is not waiting for I/O).
constexpr std::uint32_t kTaskNoload = 0x0400;

} // namespace

std::vector<std::pair<std::string, std::string>> traceMetadata(const TraceReader& r) {
    const auto& h = r.header();
    return {
        {"ltt.hostname", fixed(h.hostname, sizeof h.hostname)},
        {"ltt.kernel", fixed(h.release, sizeof h.release)},
        {"ltt.backend", backendOf(r)},
        {"ltt.producer", fixed(h.producer, sizeof h.producer)},
        {"ltt.anchor_realtime_ns", std::to_string(h.anchor_realtime_ns)},
        {"ltt.cpus", std::to_string(h.ncpus)},
        {"ltt.trace", r.path()},
    };
}

namespace {

// ------------------------------------------------------------------ events

// The event names (eventKey) without duplicates, and each id's index.
struct EventDictionary {
    std::vector<std::string> names;
    std::array<std::int8_t, 256> index{};
    // Subtype names of every event, without duplicates, and each (id,
    // subtype)'s index (-1: none).
    std::vector<std::string> subtypes;
    std::array<std::array<std::int16_t, 32>, LTT_EV_COUNT> subtype{};

    EventDictionary() {
        auto add = [](std::vector<std::string>& v, std::string_view s) {
            auto it = std::find(v.begin(), v.end(), s);
            if (it != v.end())
                return static_cast<std::size_t>(it - v.begin());
            v.emplace_back(s);
            return v.size() - 1;
        };
        for (unsigned id = 0; id < 256; ++id)
            index[id] = static_cast<std::int8_t>(add(names, eventKey(id)));
        for (unsigned id = 0; id < LTT_EV_COUNT; ++id)
            for (unsigned sub = 0; sub < 32; ++sub) {
                const std::string_view s = subtypeName(id, sub);
                subtype[id][sub] =
                    s.empty() ? std::int16_t{-1} : static_cast<std::int16_t>(add(subtypes, s));
            }
    }
    static const EventDictionary& get() {
        static const EventDictionary d;
        return d;
    }
};

enum EventCol : std::size_t {
    EvTime,
    EvCpu,
    EvStream,
    EvPid,
    EvEvent,
    EvSubtype,
    EvSyscall,
    EvRet,
    EvNumber,
    EvTargetPid,
    EvState,
    EvFd,
    EvValue,
    EvAddress,
    EvName,
    EvCount
};

// Where one batch's event rows go: its column buffers.
struct EventRows {
    Batch* b = nullptr;
    std::int64_t* time;
    std::int16_t *cpu, *stream, *subtype;
    std::int32_t *pid, *sys, *target, *state, *fd, *nameOff;
    std::int8_t* event;
    std::int64_t *ret, *number, *value, *address;
    std::int32_t chars = 0;
    const EventDictionary* dict = &EventDictionary::get();
    // Validity bitmaps of the nullable columns and the rows marked valid
    // (the column's `present` at finish()), kept here so that marking a row
    // is two plain stores.
    std::array<std::uint8_t*, EvCount> valid{};
    std::array<std::int64_t, EvCount> present{};
    // The rows of application events (whose cpu is null): few.
    std::int64_t userRows = 0;

    [[gnu::always_inline]] void setValid(std::size_t c, std::size_t n) {
        valid[c][n >> 3] |= static_cast<std::uint8_t>(1u << (n & 7));
        ++present[c];
    }

    void start(Batch& batch) {
        b = &batch;
        for (std::size_t c = EvSubtype; c < EvCount; ++c)
            b->startAllNull(c);
        b->startAllNull(EvStream);
        for (std::size_t c = 0; c < EvCount; ++c) {
            valid[c] = b->validity(c);
            present[c] = 0;
        }
        userRows = 0;
        time = b->values<std::int64_t>(EvTime);
        cpu = b->values<std::int16_t>(EvCpu);
        stream = b->values<std::int16_t>(EvStream);
        pid = b->values<std::int32_t>(EvPid);
        event = b->values<std::int8_t>(EvEvent);
        subtype = b->values<std::int16_t>(EvSubtype);
        sys = b->values<std::int32_t>(EvSyscall);
        ret = b->values<std::int64_t>(EvRet);
        number = b->values<std::int64_t>(EvNumber);
        target = b->values<std::int32_t>(EvTargetPid);
        state = b->values<std::int32_t>(EvState);
        fd = b->values<std::int32_t>(EvFd);
        value = b->values<std::int64_t>(EvValue);
        address = b->values<std::int64_t>(EvAddress);
        nameOff = b->values<std::int32_t>(EvName);
        chars = 0;
    }
    // Closes the batch at `n` rows.
    void finish(std::size_t n) {
        b->length = n;
        b->column(EvName).charsUsed = static_cast<std::size_t>(chars);
        for (std::size_t c = EvStream; c < EvCount; ++c)
            if (c != EvPid && c != EvEvent)
                b->column(c).present = present[c];
        b->column(EvCpu).nullCount = userRows; // cpu: valid but for these
    }

    // Row n: event e (an Event, or the walk's EventOf<V>) at time ns.
    template <class E> [[gnu::always_inline]] void add(const E& e, std::size_t n, std::int64_t ns) {
        time[n] = ns;
        cpu[n] = static_cast<std::int16_t>(e.cpu);
        if (e.isUser()) [[unlikely]] {
            stream[n] = static_cast<std::int16_t>(e.stream);
            setValid(EvStream, n);
            valid[EvCpu][n >> 3] &= static_cast<std::uint8_t>(~(1u << (n & 7)));
            ++userRows;
        }
        pid[n] = e.pid;
        event[n] = dict->index[e.id];
        nameOff[n + 1] = chars;
        if (e.id < LTT_EV_COUNT && e.subtype < 32) {
            if (const std::int16_t s = dict->subtype[e.id][e.subtype]; s >= 0) {
                subtype[n] = s;
                setValid(EvSubtype, n);
            }
        }
        switch (e.id) {
        case LTT_EV_SYSCALL_ENTRY: {
            ltt_ev_syscall_entry d;
            const std::size_t have = e.copyDetails(d);
            if (have >= 12) {
                sys[n] = static_cast<std::int32_t>(d.nr);
                setValid(EvSyscall, n);
            }
            if (have >= 8) {
                address[n] = static_cast<std::int64_t>(d.ip);
                setValid(EvAddress, n);
            }
            break;
        }
        case LTT_EV_SYSCALL_EXIT: {
            ltt_ev_syscall_exit d;
            if (e.detailsAs(d)) {
                ret[n] = d.ret;
                setValid(EvRet, n);
            }
            break;
        }
        case LTT_EV_TRAP_ENTRY: {
            ltt_ev_trap_entry d;
            if (e.detailsAs(d)) {
                number[n] = d.trap;
                address[n] = static_cast<std::int64_t>(d.address);
                setValid(EvNumber, n);
                setValid(EvAddress, n);
            }
            break;
        }
        case LTT_EV_IRQ_ENTRY: {
            ltt_ev_irq_entry d;
            if (e.detailsAs(d)) {
                number[n] = d.irq;
                setValid(EvNumber, n);
            }
            break;
        }
        case LTT_EV_SOFT_IRQ: {
            ltt_ev_soft_irq d;
            if (e.detailsAs(d)) {
                number[n] = static_cast<std::int64_t>(d.id);
                setValid(EvNumber, n);
            }
            break;
        }
        case LTT_EV_SCHEDCHANGE: {
            ltt_ev_schedchange d;
            if (e.detailsAs(d)) {
                target[n] = d.out;
                state[n] = static_cast<std::int32_t>(d.out_state);
                setValid(EvTargetPid, n);
                setValid(EvState, n);
            }
            break;
        }
        case LTT_EV_PROCESS: {
            ltt_ev_process d;
            if (e.detailsAs(d)) {
                target[n] = d.pid;
                value[n] = static_cast<std::int64_t>(d.arg);
                setValid(EvTargetPid, n);
                setValid(EvValue, n);
            }
            break;
        }
        case LTT_EV_FILE_SYSTEM:
            fileSystem(e, n);
            break;
        case LTT_EV_MEMORY: {
            ltt_ev_memory d;
            if (e.detailsAs(d)) {
                address[n] = static_cast<std::int64_t>(d.address);
                value[n] = static_cast<std::int64_t>(d.arg);
                setValid(EvAddress, n);
                setValid(EvValue, n);
            }
            break;
        }
        case LTT_EV_TIMER: {
            ltt_ev_timer d;
            if (e.detailsAs(d)) {
                value[n] = d.arg;
                setValid(EvValue, n);
            }
            break;
        }
        case LTT_EV_SOCKET: {
            ltt_ev_socket d;
            if (e.detailsAs(d)) {
                fd[n] = d.id;
                value[n] = d.size;
                setValid(EvFd, n);
                setValid(EvValue, n);
            }
            break;
        }
        default:
            break;
        }
    }

    // FILE_SYSTEM: the fixed part always, the name of EXEC and OPEN.
    template <class E> void fileSystem(const E& e, std::size_t n) {
        struct {
            std::int32_t fd;
            std::uint32_t aux;
            std::int64_t arg;
        } d;
        static_assert(sizeof d == LTT_EV_FS_FIXED);
        if (e.copyDetails(d) < LTT_EV_FS_FIXED)
            return;
        fd[n] = d.fd;
        value[n] = d.arg;
        setValid(EvFd, n);
        setValid(EvValue, n);
        if (e.subtype != LTT_FS_EXEC && e.subtype != LTT_FS_OPEN)
            return;
        ltt_ev_file_system full;
        const std::size_t have = e.copyDetails(full);
        if (have <= LTT_EV_FS_FIXED)
            return;
        const std::size_t len = strnlen(full.name, have - LTT_EV_FS_FIXED);
        b->appendString(EvName, n, full.name, len);
        chars += static_cast<std::int32_t>(len);
        setValid(EvName, n);
    }
};

// The events table. The merged walk is libltt's TraceCursor::forEach (the
// merge inlined with the row filling: much faster than a loop over next()),
// which cannot pause between batches, so it runs on a thread of its own and
// hands full batches over through a queue of two: the walk waits while the
// consumer has not taken them, so memory stays bounded, and stops when the
// stream is released early.
class EventsSource : public arrow::BatchSource {
public:
    explicit EventsSource(std::shared_ptr<TraceHandle> t)
        : trace_m(std::move(t)), cursor_m(trace_m->reader->begin()),
          tsc_m(trace_m->reader->tscConverter()) {
        const auto& d = EventDictionary::get();
        spec_m.columns = {
            {"time_ns", Type::Int64},
            {"cpu", Type::Int16, true},
            {"stream", Type::Int16, true},
            {"pid", Type::Int32},
            {"event", Type::Int8, false, d.names},
            {"subtype", Type::Int16, true, d.subtypes},
            {"syscall", Type::Int32, true},
            {"ret", Type::Int64, true},
            {"number", Type::Int64, true},
            {"target_pid", Type::Int32, true},
            {"state", Type::Int32, true},
            {"fd", Type::Int32, true},
            {"value", Type::Int64, true},
            {"address", Type::Int64, true},
            {"name", Type::Utf8, true},
        };
        spec_m.metadata = traceMetadata(*trace_m->reader);
        trace_m->reader->adviseSequential();
    }
    ~EventsSource() override {
        {
            std::lock_guard g(lock_m);
            stop_m = true;
        }
        cv_m.notify_all();
        if (walker_m.joinable())
            walker_m.join();
    }
    const TableSpec& spec() const override { return spec_m; }
    bool next(Batch&) override { return false; } // nextBatch() does the work

    std::unique_ptr<Batch> nextBatch() override {
        if (!walker_m.joinable() && !started_m) {
            started_m = true;
            walker_m = std::thread([this] { walk(); });
        }
        std::unique_lock g(lock_m);
        cv_m.wait(g, [&] { return !ready_m.empty() || done_m; });
        if (ready_m.empty()) {
            error = walkError_m;
            return nullptr;
        }
        auto b = std::move(ready_m.front());
        ready_m.pop_front();
        g.unlock();
        cv_m.notify_all();
        return b;
    }

private:
    struct Stopped {}; // thrown through the walk when the stream is released

    void walk() {
        try {
            walkBatches();
        } catch (const Stopped&) {
            return;
        } catch (const std::exception& e) {
            std::lock_guard g(lock_m);
            walkError_m = e.what();
        }
        std::lock_guard g(lock_m);
        done_m = true;
        cv_m.notify_all();
    }

    void walkBatches() {
        auto batch = std::make_unique<Batch>(spec_m, batchRows);
        EventRows rows;
        rows.start(*batch);
        std::size_t n = 0;
        const std::size_t cap = batch->capacity();
        const TscConverter tsc = tsc_m;
        auto hand = [&](std::size_t rowsIn) {
            rows.finish(rowsIn);
            std::unique_lock g(lock_m);
            cv_m.wait(g, [&] { return ready_m.size() < 2 || stop_m; });
            if (stop_m)
                throw Stopped{};
            ready_m.push_back(std::move(batch));
            g.unlock();
            cv_m.notify_all();
        };
        TraceCursor& c = cursor_m;
        c.forEach(
            [&](const auto& e) {
                rows.add(e, n, static_cast<std::int64_t>(tsc.ns(e.tsc)));
                if (++n == cap) [[unlikely]] {
                    hand(n);
                    batch = std::make_unique<Batch>(spec_m, batchRows);
                    rows.start(*batch);
                    n = 0;
                }
            },
            0xffff, [&] { trace_m->reader->releaseBefore(c.lowestOffset()); });
        if (n > 0)
            hand(n);
        if (c.error()) {
            std::lock_guard g(lock_m);
            walkError_m = c.error()->str();
        }
    }

    std::shared_ptr<TraceHandle> trace_m;
    TableSpec spec_m;
    TraceCursor cursor_m;
    TscConverter tsc_m;
    std::thread walker_m;
    bool started_m = false;
    std::mutex lock_m;
    std::condition_variable cv_m;
    std::deque<std::unique_ptr<Batch>> ready_m;
    bool done_m = false, stop_m = false;
    std::string walkError_m;
};

// ------------------------------------------------------- the task tracker

// Rows of the interval tables, staged before they go into a batch (they
// are made out of time order: an interval is a row when it closes).
struct SyscallRow {
    std::int32_t pid = 0;
    std::int16_t cpu = 0;
    std::int64_t entryNs = 0;
    std::int64_t exitNs = -1;     // -1: no exit seen
    std::int64_t durationNs = -1; // -1: not timed (no exit, or cut by a gap)
    std::int32_t nr = -1;         // -1: the entry's details were not recorded
    std::uint32_t slot = 0;
    bool haveRet = false;
    std::int64_t ret = 0;
    unsigned nargs = 0; // arguments recorded (VARS record after the entry)
    bool haveArgs = false;
    std::array<std::uint64_t, LTT_VAR_ARGS_MAX> args{};
};

enum class Off : std::uint8_t { None, Preempted, Sleeping, IoWait, Runnable };

struct SchedRow {
    std::int32_t pid = 0;
    std::int16_t cpu = 0;
    std::int64_t startNs = -1, endNs = -1, durationNs = -1;
    std::int32_t outState = -1;
    std::int8_t leftAs = -1; // index into kLeftAs
    std::int8_t wait = -1;   // Off before this slice (index into kWait)
    std::int64_t waitNs = -1, sleepNs = -1, delayNs = -1;
};

constexpr const char* kLeftAs[] = {"preempted", "sleeping", "io_wait", "exited"};
constexpr const char* kWait[] = {"preempted", "sleeping", "io_wait", "runnable"};

// One task instance, as TraceAnalysis keeps it (the fields that decide the
// intervals).
struct Task {
    bool fromSnapshot = false;
    bool unknownParent = false; // created by its own events, not by a FORK
    bool exited = false;
    // System call
    bool inSyscall = false;
    std::uint64_t syscallGen = 0;
    SyscallRow call;
    // Scheduling
    std::int32_t onCpu = -1;
    Off off = Off::None;
    bool woken = false, inBufWait = false;
    std::uint64_t offStartNs = 0, wokenNs = 0, offGen = 0;
    std::uint64_t sliceStartNs = 0, sliceGen = ~0ull;
    bool slicePending = false;
    SchedRow slice;
};

// Walks the trace in merged order and follows every task's system calls
// and scheduling as TraceAnalysis does; rows go to the sink.
class TaskTracker {
public:
    TaskTracker(const TraceReader& r, const ProcSnapshot* snap, bool syscalls, bool sched)
        : syscalls_m(syscalls), sched_m(sched), cpus_m(r.ncpus(), 0), started_m(r.ncpus(), false),
          slots_m(std::min(syscallTableSize(), 0xffffu - 1)),
          contextFlag_m(r.header().flags & LTT_TRACE_F_CONTEXT), context_m(r.contextRecorded()) {
        Task& idle = tasks_m[0];
        idle.fromSnapshot = true;
        if (snap)
            for (const ProcTask& t : snap->tasks)
                if (t.pid != 0)
                    tasks_m[t.pid].fromSnapshot = true;
    }
    std::deque<SyscallRow> calls;
    std::deque<SchedRow> slices;

    void feed(const Event& e, std::uint64_t ns) {
        if (e.isUser() || e.cpu >= cpus_m.size())
            return;
        const std::uint16_t cpu = e.cpu;
        switch (e.id) {
        case LTT_EV_BLOCK_START: {
            ltt_block_start bs;
            if (!e.detailsAs(bs))
                break;
            // TraceAnalysis's rule: where the trace does not say which
            // task runs after the block's start, its rows are
            // unattributed (pid -1).
            const std::int32_t pid = bs.pid < 0 || !context_m ? unknownKey(cpu) : bs.pid;
            if (!started_m[cpu] || bs.lost) {
                if (bs.lost)
                    ++gen_m;
                gap(cpu, pid);
                started_m[cpu] = true;
            } else if (pid != cpus_m[cpu]) {
                gap(cpu, pid);
            }
            return;
        }
        case LTT_EV_CONFIG: {
            ltt_ev_config c;
            if (e.copyDetails(c) < sizeof c)
                break;
            const bool now = contextFlag_m || ((c.event_mask >> LTT_EV_SCHEDCHANGE) & 1);
            if (context_m && !now)
                for (std::size_t i = 0; i < cpus_m.size(); ++i)
                    if (started_m[i])
                        gap(static_cast<std::uint16_t>(i), unknownKey(i));
            context_m = now;
            break;
        }
        case LTT_EV_CONTEXT: {
            ltt_ev_context d;
            if (e.detailsAs(d))
                gap(cpu, d.pid < 0 ? unknownKey(cpu) : d.pid);
            break;
        }
        case LTT_EV_SYSCALL_ENTRY: {
            std::int32_t pid = cpus_m[cpu];
            if (!syscalls_m)
                break;
            if (pid == 0) // the idle task makes no system call: unattributed
                gap(cpu, pid = unknownKey(cpu));
            Task& t = live(pid);
            if (t.inSyscall) // its exit was never seen: counted, not timed
                calls.push_back(t.call);
            ltt_ev_syscall_entry d;
            t.call = SyscallRow{};
            t.call.pid = pid < 0 ? kUnknownPid : pid;
            t.call.cpu = static_cast<std::int16_t>(cpu);
            t.call.entryNs = static_cast<std::int64_t>(ns);
            t.call.slot = slots_m;
            if (e.copyDetails(d) >= 12) {
                t.call.nr = static_cast<std::int32_t>(d.nr);
                if (d.nr < slots_m)
                    t.call.slot = d.nr;
            }
            t.inSyscall = true;
            t.syscallGen = gen_m;
            break;
        }
        case LTT_EV_VARS: {
            const std::int32_t pid = cpus_m[cpu];
            if (!syscalls_m || pid == 0)
                break;
            auto it = tasks_m.find(pid);
            if (it == tasks_m.end() || !it->second.inSyscall)
                break;
            if (auto v = decodeVars(e); v && (v->changed & LTT_VAR_BIT(LTT_VAR_ARGS)) &&
                                        static_cast<std::int32_t>(v->nr) == it->second.call.nr) {
                it->second.call.nargs = v->nargs;
                it->second.call.haveArgs = true;
                it->second.call.args = v->args;
            }
            break;
        }
        case LTT_EV_SYSCALL_EXIT: {
            const std::int32_t pid = cpus_m[cpu];
            if (!syscalls_m)
                break;
            auto it = tasks_m.find(pid);
            if (it == tasks_m.end() || !it->second.inSyscall)
                break;
            Task& t = it->second;
            t.inSyscall = false;
            ltt_ev_syscall_exit d;
            if (e.detailsAs(d)) {
                t.call.haveRet = true;
                t.call.ret = d.ret;
            }
            t.call.exitNs = static_cast<std::int64_t>(ns);
            if (t.syscallGen == gen_m && static_cast<std::int64_t>(ns) >= t.call.entryNs)
                t.call.durationNs = static_cast<std::int64_t>(ns) - t.call.entryNs;
            calls.push_back(t.call);
            break;
        }
        case LTT_EV_SCHEDCHANGE: {
            ltt_ev_schedchange d;
            if (!e.detailsAs(d))
                break;
            if (cpus_m[cpu] > 0)
                switchOut(cpus_m[cpu], cpu, d.out_state, ns);
            switchTo(cpu, d.in, ns);
            break;
        }
        case LTT_EV_PROCESS:
            process(e, cpu, ns);
            break;
        case LTT_EV_FILE_SYSTEM: {
            const std::int32_t pid = cpus_m[cpu];
            if (pid == 0 ||
                (e.subtype != LTT_FS_BUF_WAIT_START && e.subtype != LTT_FS_BUF_WAIT_END))
                break;
            struct {
                std::int32_t fd;
                std::uint32_t aux;
                std::int64_t arg;
            } d;
            if (e.copyDetails(d) < LTT_EV_FS_FIXED)
                break;
            live(pid).inBufWait = e.subtype == LTT_FS_BUF_WAIT_START;
            break;
        }
        default:
            break;
        }
    }

    // The intervals still open at the end of the trace: counted, not timed.
    void finish() {
        for (auto& [pid, t] : tasks_m)
            retire(t);
    }

private:
    Task& live(std::int32_t pid) {
        auto [it, made] = tasks_m.try_emplace(pid);
        if (made)
            it->second.unknownParent = true;
        return it->second;
    }
    // The rows a task instance still has open, when it ends or is replaced.
    void retire(Task& t) {
        if (t.inSyscall && syscalls_m)
            calls.push_back(t.call);
        t.inSyscall = false;
        if (t.slicePending && sched_m)
            slices.push_back(t.slice);
        t.slicePending = false;
    }

    // Where the trace does not say which task is current on `cpu`: a key
    // of its own per CPU (their state is per CPU), shown as pid -1.
    static std::int32_t unknownKey(std::size_t cpu) {
        return std::numeric_limits<std::int32_t>::min() + static_cast<std::int32_t>(cpu);
    }

    void gap(std::uint16_t cpu, std::int32_t pid) {
        const std::int32_t oldPid = cpus_m[cpu];
        if (oldPid != 0) {
            Task& old = live(oldPid);
            if (old.onCpu == cpu) {
                old.onCpu = -1;
                old.off = Off::None;
            }
        }
        Task& in = live(pid);
        in.off = Off::None;
        if (pid != 0)
            in.onCpu = cpu;
        cpus_m[cpu] = pid;
    }

    void switchOut(std::int32_t pid, std::uint16_t cpu, std::uint32_t state, std::uint64_t ns) {
        Task& out = live(pid);
        out.onCpu = -1;
        std::int64_t dur = -1;
        if (out.sliceGen == gen_m && ns >= out.sliceStartNs)
            dur = static_cast<std::int64_t>(ns - out.sliceStartNs);
        if (sched_m) {
            SchedRow r = out.slicePending ? out.slice : SchedRow{};
            if (!out.slicePending) {
                r.pid = pid;
                r.cpu = static_cast<std::int16_t>(cpu);
                if (dur >= 0)
                    r.startNs = static_cast<std::int64_t>(out.sliceStartNs);
            }
            r.endNs = static_cast<std::int64_t>(ns);
            r.durationNs = dur;
            r.outState = static_cast<std::int32_t>(state);
            out.slicePending = false;
            Off left;
            if (state == LTT_TASK_RUNNING)
                left = Off::Preempted;
            else if (state & (LTT_TASK_DEAD | LTT_TASK_ZOMBIE))
                left = Off::None;
            else if (out.inBufWait ||
                     ((state & LTT_TASK_UNINTERRUPTIBLE) && !(state & kTaskNoload)))
                left = Off::IoWait;
            else
                left = Off::Sleeping;
            r.leftAs = left == Off::Preempted  ? 0
                       : left == Off::Sleeping ? 1
                       : left == Off::IoWait   ? 2
                                               : 3;
            slices.push_back(r);
        }
        out.sliceGen = ~0ull;
        out.woken = false;
        out.offStartNs = ns;
        out.offGen = gen_m;
        if (state == LTT_TASK_RUNNING)
            out.off = Off::Preempted;
        else if (state & (LTT_TASK_DEAD | LTT_TASK_ZOMBIE))
            out.off = Off::None;
        else if (out.inBufWait || ((state & LTT_TASK_UNINTERRUPTIBLE) && !(state & kTaskNoload)))
            out.off = Off::IoWait;
        else
            out.off = Off::Sleeping;
    }

    void switchTo(std::uint16_t cpu, std::int32_t pid, std::uint64_t ns) {
        Task& in = live(pid);
        cpus_m[cpu] = pid;
        if (pid == 0)
            return;
        in.onCpu = cpu;
        in.sliceStartNs = ns;
        in.sliceGen = gen_m;
        SchedRow r;
        r.pid = pid;
        r.cpu = static_cast<std::int16_t>(cpu);
        r.startNs = static_cast<std::int64_t>(ns);
        if (in.off != Off::None && in.offGen == gen_m && ns >= in.offStartNs) {
            std::uint64_t delay = 0, sleep = 0;
            switch (in.off) {
            case Off::Preempted:
            case Off::Runnable:
                delay = ns - in.offStartNs;
                break;
            case Off::Sleeping:
            case Off::IoWait: {
                const std::uint64_t until =
                    in.woken && in.wokenNs >= in.offStartNs ? in.wokenNs : ns;
                sleep = until - in.offStartNs;
                delay = ns - until;
                r.sleepNs = static_cast<std::int64_t>(sleep);
                break;
            }
            case Off::None:
                break;
            }
            r.wait = in.off == Off::Preempted  ? 0
                     : in.off == Off::Sleeping ? 1
                     : in.off == Off::IoWait   ? 2
                                               : 3;
            r.waitNs = static_cast<std::int64_t>(ns - in.offStartNs);
            r.delayNs = static_cast<std::int64_t>(delay);
        }
        if (sched_m) {
            if (in.slicePending) // its end was never seen
                slices.push_back(in.slice);
            in.slice = r;
            in.slicePending = true;
        }
        in.off = Off::None;
        in.woken = false;
    }

    void process(const Event& e, std::uint16_t cpu, std::uint64_t ns) {
        ltt_ev_process d;
        if (!e.detailsAs(d))
            return;
        switch (e.subtype) {
        case LTT_PROCESS_FORK:
        case LTT_PROCESS_KTHREAD: {
            auto it = tasks_m.find(d.pid);
            if (it != tasks_m.end() && !it->second.exited &&
                (it->second.fromSnapshot || it->second.unknownParent)) {
                it->second.unknownParent = false; // adopted: the same task
                break;
            }
            if (it != tasks_m.end())
                retire(it->second);
            Task& c = tasks_m[d.pid];
            c = Task{};
            c.off = Off::Runnable;
            c.offStartNs = ns;
            c.offGen = gen_m;
            break;
        }
        case LTT_PROCESS_EXIT:
            live(d.pid).exited = true;
            break;
        case LTT_PROCESS_WAKEUP: {
            auto it = tasks_m.find(d.pid);
            if (it == tasks_m.end())
                break;
            Task& p = it->second;
            if ((p.off == Off::Sleeping || p.off == Off::IoWait) && !p.woken) {
                p.woken = true;
                p.wokenNs = ns;
            }
            break;
        }
        default:
            break;
        }
        (void)cpu;
    }

    bool syscalls_m, sched_m;
    std::unordered_map<std::int32_t, Task> tasks_m;
    std::vector<std::int32_t> cpus_m; // current task per CPU
    std::vector<bool> started_m;
    std::uint64_t gen_m = 0;
    std::uint32_t slots_m;
    // Whether the trace says which task is current after a block's start
    // (TraceAnalysis: CONTEXT records, or scheduling changes recorded).
    bool contextFlag_m = false;
    bool context_m = true;
};

// A table of intervals: the tracker's walk, a batch of rows at a time.
class IntervalSource : public arrow::BatchSource {
public:
    explicit IntervalSource(std::shared_ptr<TraceHandle> t, bool syscalls, bool sched)
        : trace_m(std::move(t)), cursor_m(trace_m->reader->begin()),
          tsc_m(trace_m->reader->tscConverter()),
          tracker_m(*trace_m->reader, trace_m->proc(), syscalls, sched) {
        trace_m->reader->adviseSequential();
    }

protected:
    // Walks until `rows` holds `want` rows or the trace ends.
    template <class Rows> void fill(Rows& rows, std::size_t want) {
        TraceCursor& c = cursor_m;
        std::uint32_t k = 0;
        while (rows.size() < want && c.valid()) {
            const Event& e = c.event();
            tracker_m.feed(e, tsc_m.ns(e.tsc));
            c.next();
            if (++k == 65536) {
                trace_m->reader->releaseBefore(c.lowestOffset());
                k = 0;
            }
        }
        if (!c.valid() && !finished_m) {
            finished_m = true;
            tracker_m.finish();
            if (c.error())
                error = c.error()->str();
        }
    }
    std::shared_ptr<TraceHandle> trace_m;
    TableSpec spec_m;
    TraceCursor cursor_m;
    TscConverter tsc_m;
    TaskTracker tracker_m;
    bool finished_m = false;
};

void setOrNull(Batch& b, std::size_t col, std::size_t row, std::int64_t v, std::int64_t* out) {
    if (v < 0)
        return;
    out[row] = v;
    b.setValid(col, row);
}

std::vector<std::string> syscallNames() {
    std::vector<std::string> v;
    const std::uint32_t slots = std::min(syscallTableSize(), 0xffffu - 1);
    for (std::uint32_t s = 0; s <= slots; ++s)
        v.push_back(TraceAnalysis::syscallSlotName(s));
    return v;
}

class SyscallsSource : public IntervalSource {
public:
    explicit SyscallsSource(std::shared_ptr<TraceHandle> t)
        : IntervalSource(std::move(t), true, false) {
        spec_m.columns = {
            {"pid", Type::Int32},
            {"cpu", Type::Int16},
            {"entry_ns", Type::Int64},
            {"exit_ns", Type::Int64, true},
            {"duration_ns", Type::Int64, true},
            {"nr", Type::Int32, true},
            {"syscall", Type::Int16, false, syscallNames()},
            {"ret", Type::Int64, true},
            {"nargs", Type::Int8, true},
            {"arg0", Type::Int64, true},
            {"arg1", Type::Int64, true},
            {"arg2", Type::Int64, true},
            {"arg3", Type::Int64, true},
            {"arg4", Type::Int64, true},
            {"arg5", Type::Int64, true},
        };
        spec_m.metadata = traceMetadata(*trace_m->reader);
    }
    const TableSpec& spec() const override { return spec_m; }
    bool next(Batch& b) override {
        auto& rows = tracker_m.calls;
        fill(rows, b.capacity());
        for (std::size_t c : {3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14})
            b.startAllNull(c);
        const std::size_t n = std::min(rows.size(), b.capacity());
        auto* pid = b.values<std::int32_t>(0);
        auto* cpu = b.values<std::int16_t>(1);
        auto* entry = b.values<std::int64_t>(2);
        auto* exit = b.values<std::int64_t>(3);
        auto* dur = b.values<std::int64_t>(4);
        auto* nr = b.values<std::int32_t>(5);
        auto* name = b.values<std::int16_t>(6);
        auto* ret = b.values<std::int64_t>(7);
        auto* nargs = b.values<std::int8_t>(8);
        for (std::size_t i = 0; i < n; ++i) {
            const SyscallRow& r = rows[i];
            pid[i] = r.pid;
            cpu[i] = r.cpu;
            entry[i] = r.entryNs;
            setOrNull(b, 3, i, r.exitNs, exit);
            setOrNull(b, 4, i, r.durationNs, dur);
            if (r.nr >= 0) {
                nr[i] = r.nr;
                b.setValid(5, i);
            }
            name[i] = static_cast<std::int16_t>(r.slot);
            if (r.haveRet) {
                ret[i] = r.ret;
                b.setValid(7, i);
            }
            if (r.haveArgs) {
                nargs[i] = static_cast<std::int8_t>(r.nargs);
                b.setValid(8, i);
            }
            for (unsigned a = 0; a < r.nargs && a < LTT_VAR_ARGS_MAX; ++a) {
                b.values<std::int64_t>(9 + a)[i] = static_cast<std::int64_t>(r.args[a]);
                b.setValid(9 + a, i);
            }
        }
        rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n));
        b.length = n;
        return n > 0;
    }
};

class SchedSource : public IntervalSource {
public:
    explicit SchedSource(std::shared_ptr<TraceHandle> t)
        : IntervalSource(std::move(t), false, true) {
        spec_m.columns = {
            {"pid", Type::Int32},
            {"cpu", Type::Int16},
            {"start_ns", Type::Int64, true},
            {"end_ns", Type::Int64, true},
            {"duration_ns", Type::Int64, true},
            {"out_state", Type::Int32, true},
            {"left_as", Type::Int8, true,
             std::vector<std::string>(std::begin(kLeftAs), std::end(kLeftAs))},
            {"wait", Type::Int8, true,
             std::vector<std::string>(std::begin(kWait), std::end(kWait))},
            {"wait_ns", Type::Int64, true},
            {"sleep_ns", Type::Int64, true},
            {"delay_ns", Type::Int64, true},
        };
        spec_m.metadata = traceMetadata(*trace_m->reader);
    }
    const TableSpec& spec() const override { return spec_m; }
    bool next(Batch& b) override {
        auto& rows = tracker_m.slices;
        fill(rows, b.capacity());
        for (std::size_t c = 2; c <= 10; ++c)
            b.startAllNull(c);
        const std::size_t n = std::min(rows.size(), b.capacity());
        for (std::size_t i = 0; i < n; ++i) {
            const SchedRow& r = rows[i];
            b.values<std::int32_t>(0)[i] = r.pid;
            b.values<std::int16_t>(1)[i] = r.cpu;
            setOrNull(b, 2, i, r.startNs, b.values<std::int64_t>(2));
            setOrNull(b, 3, i, r.endNs, b.values<std::int64_t>(3));
            setOrNull(b, 4, i, r.durationNs, b.values<std::int64_t>(4));
            if (r.outState >= 0) {
                b.values<std::int32_t>(5)[i] = r.outState;
                b.setValid(5, i);
            }
            if (r.leftAs >= 0) {
                b.values<std::int8_t>(6)[i] = r.leftAs;
                b.setValid(6, i);
            }
            if (r.wait >= 0) {
                b.values<std::int8_t>(7)[i] = r.wait;
                b.setValid(7, i);
            }
            setOrNull(b, 8, i, r.waitNs, b.values<std::int64_t>(8));
            setOrNull(b, 9, i, r.sleepNs, b.values<std::int64_t>(9));
            setOrNull(b, 10, i, r.delayNs, b.values<std::int64_t>(10));
        }
        rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n));
        b.length = n;
        return n > 0;
    }
};

// -------------------------------------------------------------------- irqs

struct IrqRow {
    std::int32_t pid = 0;
    std::int16_t cpu = 0;
    std::int8_t kind = 0; // kIrqKinds
    std::int64_t number = 0;
    std::int64_t startNs = 0, endNs = -1, durationNs = -1;
};
constexpr const char* kIrqKinds[] = {"irq", "softirq", "tasklet"};

class IrqsSource : public arrow::BatchSource {
public:
    explicit IrqsSource(std::shared_ptr<TraceHandle> t)
        : trace_m(std::move(t)), cursor_m(trace_m->reader->begin()),
          tsc_m(trace_m->reader->tscConverter()), open_m(trace_m->reader->ncpus()) {
        spec_m.columns = {
            {"cpu", Type::Int16},
            {"pid", Type::Int32},
            {"kind", Type::Int8, false,
             std::vector<std::string>(std::begin(kIrqKinds), std::end(kIrqKinds))},
            {"number", Type::Int64},
            {"start_ns", Type::Int64},
            {"end_ns", Type::Int64, true},
            {"duration_ns", Type::Int64, true},
        };
        spec_m.metadata = traceMetadata(*trace_m->reader);
        trace_m->reader->adviseSequential();
    }
    const TableSpec& spec() const override { return spec_m; }
    bool next(Batch& b) override {
        TraceCursor& c = cursor_m;
        while (rows_m.size() < b.capacity() && c.valid()) {
            feed(c.event());
            c.next();
        }
        if (!c.valid() && !finished_m) {
            finished_m = true;
            for (auto& stack : open_m)
                for (auto& r : stack)
                    rows_m.push_back(r);
            if (c.error())
                error = c.error()->str();
        }
        trace_m->reader->releaseBefore(c.lowestOffset());
        b.startAllNull(5);
        b.startAllNull(6);
        const std::size_t n = std::min(rows_m.size(), b.capacity());
        for (std::size_t i = 0; i < n; ++i) {
            const IrqRow& r = rows_m[i];
            b.values<std::int16_t>(0)[i] = r.cpu;
            b.values<std::int32_t>(1)[i] = r.pid;
            b.values<std::int8_t>(2)[i] = r.kind;
            b.values<std::int64_t>(3)[i] = r.number;
            b.values<std::int64_t>(4)[i] = r.startNs;
            setOrNull(b, 5, i, r.endNs, b.values<std::int64_t>(5));
            setOrNull(b, 6, i, r.durationNs, b.values<std::int64_t>(6));
        }
        rows_m.erase(rows_m.begin(), rows_m.begin() + static_cast<std::ptrdiff_t>(n));
        b.length = n;
        return n > 0;
    }

private:
    void feed(const Event& e) {
        if (e.isUser() || e.cpu >= open_m.size())
            return;
        auto& stack = open_m[e.cpu];
        const auto ns = static_cast<std::int64_t>(tsc_m.ns(e.tsc));
        auto open = [&](std::int8_t kind, std::int64_t number) {
            IrqRow r;
            r.pid = e.pid;
            r.cpu = static_cast<std::int16_t>(e.cpu);
            r.kind = kind;
            r.number = number;
            r.startNs = ns;
            stack.push_back(r);
        };
        auto close = [&](bool soft) {
            // The innermost open one of that kind (interrupts nest).
            for (auto it = stack.rbegin(); it != stack.rend(); ++it)
                if ((it->kind != 0) == soft) {
                    IrqRow r = *it;
                    r.endNs = ns;
                    r.durationNs = gen_m == genAt(r) && ns >= r.startNs ? ns - r.startNs : -1;
                    rows_m.push_back(r);
                    stack.erase(std::next(it).base());
                    return;
                }
        };
        switch (e.id) {
        case LTT_EV_BLOCK_START: {
            ltt_block_start bs;
            if (e.detailsAs(bs) && bs.lost) {
                // What was open is cut by the gap: counted, not timed.
                for (auto& r : stack)
                    rows_m.push_back(r);
                stack.clear();
            }
            break;
        }
        case LTT_EV_IRQ_ENTRY: {
            ltt_ev_irq_entry d;
            open(0, e.detailsAs(d) ? d.irq : -1);
            break;
        }
        case LTT_EV_IRQ_EXIT:
            close(false);
            break;
        case LTT_EV_SOFT_IRQ: {
            ltt_ev_soft_irq d;
            const std::int64_t id = e.detailsAs(d) ? static_cast<std::int64_t>(d.id) : -1;
            if (e.subtype == LTT_SOFTIRQ_ENTRY)
                open(1, id);
            else if (e.subtype == LTT_TASKLET_ENTRY)
                open(2, id);
            else
                close(true);
            break;
        }
        default:
            break;
        }
    }
    // Interrupts open across a gap were dropped when it came: every row
    // still on a stack is of the current generation.
    std::uint64_t genAt(const IrqRow&) const { return gen_m; }

    std::shared_ptr<TraceHandle> trace_m;
    TableSpec spec_m;
    TraceCursor cursor_m;
    TscConverter tsc_m;
    std::vector<std::vector<IrqRow>> open_m;
    std::deque<IrqRow> rows_m;
    std::uint64_t gen_m = 0;
    bool finished_m = false;
};

// --------------------------------------------------------------- processes

// Every task instance of the analysis but pid 0, with every figure of the
// report model (null where its events were masked out), in the order of
// traceanalyze --json's "processes", then its "unattributed" entry (pid -1,
// name "unattributed") when the trace has one.
class ProcessesSource : public arrow::BatchSource {
public:
    explicit ProcessesSource(std::shared_ptr<TraceHandle> t) : trace_m(std::move(t)) {
        spec_m.columns = {
            {"pid", Type::Int32},      {"ppid", Type::Int32},          {"tgid", Type::Int32},
            {"name", Type::Utf8},      {"kthread", Type::Bool},        {"exited", Type::Bool},
            {"start_ns", Type::Int64}, {"exit_ns", Type::Int64, true},
        };
        const ProcessFigures f = processFigures(Availability{}, ProcessStats{});
        for (const FigureValue& v : f)
            spec_m.columns.push_back({v.key, Type::Int64, true});
        spec_m.metadata = traceMetadata(*trace_m->reader);
    }
    const TableSpec& spec() const override { return spec_m; }
    bool next(Batch& b) override {
        const TraceAnalysis& a = trace_m->analyzed();
        if (a.error() && error.empty())
            error = a.error()->str();
        const auto& procs = a.processes();
        std::size_t n = 0;
        b.startAllNull(7);
        for (std::size_t c = 8; c < spec_m.columns.size(); ++c)
            b.startAllNull(c);
        auto* names = b.values<std::int32_t>(3);
        std::int32_t chars = 0;
        // After the processes, the unattributed entry (pid -1) when the
        // trace has events it does not attribute, as traceanalyze --json's
        // "unattributed".
        const std::size_t rows = procs.size() + (a.unattributedEvents() ? 1 : 0);
        for (; at_m < rows && n < b.capacity(); ++at_m) {
            const Process& p = at_m < procs.size() ? procs[at_m] : a.unattributed();
            if (p.pid == 0)
                continue;
            b.values<std::int32_t>(0)[n] = p.pid;
            b.values<std::int32_t>(1)[n] = p.ppid;
            b.values<std::int32_t>(2)[n] = p.tgid;
            b.appendString(3, n, p.name.data(), p.name.size());
            chars += static_cast<std::int32_t>(p.name.size());
            (void)names;
            if (p.kthread)
                b.values<std::uint8_t>(4)[n >> 3] |= static_cast<std::uint8_t>(1u << (n & 7));
            if (p.exited)
                b.values<std::uint8_t>(5)[n >> 3] |= static_cast<std::uint8_t>(1u << (n & 7));
            b.values<std::int64_t>(6)[n] = static_cast<std::int64_t>(p.startNs);
            if (p.exited) {
                b.values<std::int64_t>(7)[n] = static_cast<std::int64_t>(p.exitNs);
                b.setValid(7, n);
            }
            const ProcessFigures f = processFigures(a.availability(), p.stats);
            for (std::size_t i = 0; i < f.size(); ++i)
                if (f[i].available) {
                    b.values<std::int64_t>(8 + i)[n] = static_cast<std::int64_t>(f[i].value);
                    b.setValid(8 + i, n);
                }
            ++n;
        }
        b.length = n;
        return n > 0;
    }

private:
    std::shared_ptr<TraceHandle> trace_m;
    TableSpec spec_m;
    std::size_t at_m = 0;
};

} // namespace

std::unique_ptr<arrow::BatchSource> eventsTable(std::shared_ptr<TraceHandle> t) {
    return std::make_unique<EventsSource>(std::move(t));
}
std::unique_ptr<arrow::BatchSource> syscallsTable(std::shared_ptr<TraceHandle> t) {
    return std::make_unique<SyscallsSource>(std::move(t));
}
std::unique_ptr<arrow::BatchSource> schedTable(std::shared_ptr<TraceHandle> t) {
    return std::make_unique<SchedSource>(std::move(t));
}
std::unique_ptr<arrow::BatchSource> irqsTable(std::shared_ptr<TraceHandle> t) {
    return std::make_unique<IrqsSource>(std::move(t));
}
std::unique_ptr<arrow::BatchSource> processesTable(std::shared_ptr<TraceHandle> t) {
    return std::make_unique<ProcessesSource>(std::move(t));
}

} // namespace ltt::pyext
