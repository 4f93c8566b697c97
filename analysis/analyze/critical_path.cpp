// CriticalPath: see critical_path.hpp. One pass over the trace builds every
// task's timeline (running, runnable, blocked with what woke it); the path
// of the target is then resolved over those timelines, bounded by each
// blocking's window.
#include <algorithm>
#include <libltt/critical_path.hpp>
#include <libltt/event_format.hpp>
#include <libltt/trace_analysis.hpp>
#include <map>
#include <tuple>

namespace ltt {

namespace {

constexpr std::uint32_t kVectorBit = 0x80000000u;
constexpr std::uint32_t kLocalTimerVector = 0xec; // x86 LOCAL_TIMER_VECTOR
constexpr unsigned kMaxDepth = 64;                // deeper chains stay "blocked"
constexpr std::size_t kMaxNesting = 64;

// Soft-IRQ vectors (include/linux/interrupt.h).
enum : std::uint32_t { kSoftTimer = 1, kSoftNetTx = 2, kSoftNetRx = 3, kSoftBlock = 4 };
constexpr std::uint32_t kSoftHrtimer = 8;

} // namespace

const char* criticalKindKey(CriticalKind k) {
    static const char* const kKeys[] = {"running", "runnable", "timer",   "interrupt", "softirq",
                                        "io",      "network",  "blocked", "unknown"};
    return kKeys[static_cast<int>(k)];
}

CriticalPath::CriticalPath(const TraceReader& reader, const ProcSnapshot* snapshot,
                           CriticalPathOptions options)
    : reader_m(reader), opt_m(options) {
    tsc_m = reader.tscConverter();
    avail_m = reader.eventEnabled(LTT_EV_SCHEDCHANGE) &&
              reader.detailsEnabled(LTT_EV_SCHEDCHANGE) && reader.eventEnabled(LTT_EV_PROCESS) &&
              reader.detailsEnabled(LTT_EV_PROCESS);
    tl(0).name = "The All Mighty";
    if (snapshot)
        for (const ProcTask& t : snapshot->tasks)
            if (t.pid > 0)
                tl(t.pid).name = t.name;
    cpus_m.resize(reader.ncpus());
}

CriticalPath::Timeline& CriticalPath::tl(std::int32_t pid) {
    if (std::uint32_t i = index_m.find(pid))
        return tls_m[i - 1];
    Timeline& t = tls_m.emplace_back();
    t.pid = pid;
    t.name = "unknown";
    index_m.set(pid, static_cast<std::uint32_t>(tls_m.size()));
    return t;
}

void CriticalPath::push(Timeline& t, Seg s) {
    if (s.end <= s.start && !(s.st == St::Blocked && s.src != Src::None))
        return; // empty (a blocking keeps its waker even when it lasted 0 ns)
    if (!t.segs.empty()) {
        Seg& last = t.segs.back();
        if (last.st == s.st && last.st != St::Blocked && last.end == s.start) {
            last.end = s.end;
            return;
        }
    }
    t.segs.push_back(s);
}

// Ends the task's open stretch at `ns`.
void CriticalPath::close(Timeline& t, std::uint64_t ns) {
    if (t.open == St::Gone)
        return;
    if (t.segs.empty() && t.openStart < firstNs_m)
        t.openStart = firstNs_m; // nothing is known before the trace
    ns = std::max(ns, t.openStart);
    if (t.open == St::Blocked && t.woken) {
        const std::uint64_t w = std::clamp(t.wokenAt, t.openStart, ns);
        push(t, {t.openStart, w, St::Blocked, t.src, t.waker, t.what, w});
        push(t, {w, ns, St::Runnable});
    } else {
        push(t, {t.openStart, ns, t.open});
    }
    t.woken = false;
    t.openStart = ns;
    t.last = std::max(t.last, ns);
    t.first = std::min(t.first, t.segs.empty() ? ns : t.segs.front().start);
}

template <class E> [[gnu::always_inline]] inline void CriticalPath::step(const E& e) {
    if (e.cpu >= cpus_m.size()) [[unlikely]]
        return;
    const std::uint64_t ns = tsc_m.ns(e.tsc);
    lastNs_m = std::max(lastNs_m, ns);
    firstNs_m = std::min(firstNs_m, ns);
    Cpu& c = cpus_m[e.cpu];
    switch (e.id) {
    case LTT_EV_IRQ_ENTRY: {
        ltt_ev_irq_entry d;
        e.copyDetails(d);
        if (c.irqs.size() >= kMaxNesting)
            c.irqs.clear();
        const bool vec = d.flags & LTT_IRQ_VECTOR;
        c.irqs.push_back({d.irq | (vec ? kVectorBit : 0u), vec && d.irq == kLocalTimerVector});
        break;
    }
    case LTT_EV_IRQ_EXIT:
        if (!c.irqs.empty())
            c.irqs.pop_back();
        break;
    case LTT_EV_KERNEL_TIMER: // the tick: the interrupt it runs in is a timer's
        if (!c.irqs.empty())
            c.irqs.back().timer = true;
        break;
    case LTT_EV_SOFT_IRQ:
        if (e.subtype == LTT_SOFTIRQ_ENTRY) {
            ltt_ev_soft_irq d;
            e.copyDetails(d);
            if (c.softs.size() >= kMaxNesting)
                c.softs.clear();
            const auto v = static_cast<std::uint32_t>(d.id);
            c.softs.push_back({v, v == kSoftTimer || v == kSoftHrtimer});
        } else if (e.subtype == LTT_SOFTIRQ_EXIT && !c.softs.empty()) {
            c.softs.pop_back();
        }
        break;
    case LTT_EV_SCHEDCHANGE: {
        ltt_ev_schedchange d;
        if (!e.detailsAs(d))
            break;
        c.irqs.clear();
        c.softs.clear();
        if (d.out != 0) {
            Timeline& out = tl(d.out);
            close(out, ns);
            out.running = false;
            out.open = d.out_state == LTT_TASK_RUNNING                     ? St::Runnable
                       : (d.out_state & (LTT_TASK_DEAD | LTT_TASK_ZOMBIE)) ? St::Gone
                                                                           : St::Blocked;
        }
        c.current = d.in;
        if (d.in != 0) {
            Timeline& in = tl(d.in);
            close(in, ns);
            in.open = St::Running;
            in.running = true;
        }
        break;
    }
    case LTT_EV_PROCESS: {
        ltt_ev_process d;
        if (!e.detailsAs(d))
            break;
        if (e.subtype == LTT_PROCESS_WAKEUP) {
            Timeline& t = tl(d.pid);
            if (t.running || t.woken)
                break;
            if (t.open == St::Unknown) {
                // Asleep since before its first record: runnable from now.
                close(t, ns);
                t.open = St::Runnable;
                break;
            }
            if (t.open != St::Blocked)
                break;
            t.woken = true;
            t.wokenAt = ns;
            t.what = 0;
            t.waker = 0;
            if (!c.softs.empty()) {
                t.src = c.softs.back().timer ? Src::Timer : Src::Soft;
                t.what = c.softs.back().what;
            } else if (!c.irqs.empty()) {
                t.src = c.irqs.back().timer ? Src::Timer : Src::Irq;
                t.what = c.irqs.back().what;
            } else if (c.current != 0 && index_m.find(c.current)) {
                t.src = Src::Task;
                t.waker = static_cast<std::int32_t>(index_m.find(c.current) - 1);
            } else {
                t.src = Src::None; // the idle task outside an interrupt: unknown cause
            }
        } else if (e.subtype == LTT_PROCESS_FORK || e.subtype == LTT_PROCESS_KTHREAD) {
            const std::string parent = tl(c.current).name;
            if (std::uint32_t i = index_m.find(d.pid)) {
                Timeline& old = tls_m[i - 1];
                if (!old.segs.empty() || old.running) {
                    // A pid reused: a new timeline (the old one stays for
                    // the wakers that name it by index).
                    close(old, ns);
                    index_m.set(d.pid, 0);
                }
            }
            Timeline& t = tl(d.pid);
            t.name = parent;
            if (!t.running) {
                t.open = St::Runnable; // a new task waits for its first run
                t.openStart = ns;
            }
        }
        break;
    }
    case LTT_EV_FILE_SYSTEM:
        if (e.subtype == LTT_FS_EXEC && c.current != 0) {
            ltt_ev_file_system x;
            const std::size_t n = e.copyDetails(x);
            std::size_t len = 0;
            const std::size_t room = n > LTT_EV_FS_FIXED ? n - LTT_EV_FS_FIXED : 0;
            while (len < room && x.name[len])
                ++len;
            if (len)
                tl(c.current).name = execName(x.name, len);
        }
        break;
    case LTT_EV_BLOCK_START: {
        ltt_block_start bs;
        if (!e.detailsAs(bs))
            break;
        if (bs.lost) {
            // What every task not running elsewhere did meanwhile is unknown.
            lost_m += bs.lost;
            c.irqs.clear();
            c.softs.clear();
            std::vector<std::int32_t> elsewhere;
            for (std::size_t i = 0; i < cpus_m.size(); ++i)
                if (i != e.cpu && cpus_m[i].current != 0)
                    elsewhere.push_back(cpus_m[i].current);
            for (Timeline& t : tls_m) {
                if (t.pid <= 0 ||
                    std::find(elsewhere.begin(), elsewhere.end(), t.pid) != elsewhere.end())
                    continue;
                if (index_m.find(t.pid) == 0 || &tls_m[index_m.find(t.pid) - 1] != &t)
                    continue; // an old instance of a reused pid
                if (t.open == St::Gone)
                    continue; // exited before the gap
                close(t, ns);
                t.open = St::Unknown;
                t.running = false;
            }
        }
        if (bs.pid != c.current || bs.lost) {
            if (c.current != 0 && bs.pid != c.current) {
                Timeline& old = tl(c.current);
                close(old, ns);
                old.open = St::Unknown;
                old.running = false;
            }
            c.current = bs.pid;
            if (bs.pid > 0) {
                Timeline& in = tl(bs.pid);
                if (!in.running || bs.lost) {
                    close(in, ns);
                    in.open = St::Running;
                    in.running = true;
                }
            }
        }
        break;
    }
    default:
        break;
    }
}

void CriticalPath::add(const Event& e) {
    step(e);
}

bool CriticalPath::run() {
    reader_m.adviseSequential();
    TraceCursor c = reader_m.begin();
    c.forEach(
        [this](const auto& e) __attribute__((always_inline)) { step(e); }, 0x3ffff,
        [&] { reader_m.releaseBefore(c.lowestOffset()); });
    error_m = c.error();
    finish();
    return !error_m;
}

void CriticalPath::emit(std::vector<CriticalSegment>& out, CriticalSegment s) const {
    if (s.endNs <= s.startNs)
        return;
    if (!out.empty()) {
        CriticalSegment& l = out.back();
        if (l.endNs == s.startNs && l.kind == s.kind && l.pid == s.pid && l.what == s.what &&
            l.via == s.via) {
            l.endNs = s.endNs;
            return;
        }
    }
    out.push_back(std::move(s));
}

// Blocked stretch `s` of task `t`, clipped to [lo, hi]: what ended it.
void CriticalPath::resolve(const Timeline& t, const Seg& s, std::uint64_t lo, std::uint64_t hi,
                           std::vector<std::int32_t>& via, unsigned depth,
                           std::vector<CriticalSegment>& out) const {
    CriticalSegment seg{lo, hi, CriticalKind::Blocked, t.pid, s.what, via};
    switch (s.src) {
    case Src::None:
        break;
    case Src::Timer:
        seg.kind = CriticalKind::Timer;
        break;
    case Src::Irq:
        seg.kind = CriticalKind::Interrupt;
        break;
    case Src::Soft:
        seg.kind = s.what == kSoftNetRx || s.what == kSoftNetTx ? CriticalKind::Network
                   : s.what == kSoftBlock                       ? CriticalKind::Io
                                                                : CriticalKind::SoftIrq;
        break;
    case Src::Task: {
        const Timeline& w = tls_m[static_cast<std::size_t>(s.waker)];
        if (depth >= kMaxDepth || w.pid == t.pid)
            break;
        via.push_back(w.pid);
        walkBack(w, lo, std::min(hi, s.wokenAt), via, depth + 1, out);
        via.pop_back();
        return;
    }
    }
    if (seg.kind != CriticalKind::Interrupt && seg.kind != CriticalKind::SoftIrq)
        seg.what = 0;
    emit(out, std::move(seg));
}

// What task `w` did over [lo, hi] (it woke the waiter at hi): its running
// and runnable stretches as they are, its blockings resolved in turn.
void CriticalPath::walkBack(const Timeline& w, std::uint64_t lo, std::uint64_t hi,
                            std::vector<std::int32_t>& via, unsigned depth,
                            std::vector<CriticalSegment>& out) const {
    auto it = std::upper_bound(w.segs.begin(), w.segs.end(), lo,
                               [](std::uint64_t t, const Seg& s) { return t < s.end; });
    std::uint64_t at = lo;
    for (; it != w.segs.end() && it->start < hi; ++it) {
        const std::uint64_t a = std::max(it->start, lo), b = std::min(it->end, hi);
        if (a > at) // before its first record, or between two
            emit(out, {at, a, CriticalKind::Unknown, w.pid, 0, via});
        if (b <= a)
            continue;
        switch (it->st) {
        case St::Running:
            emit(out, {a, b, CriticalKind::Running, w.pid, 0, via});
            break;
        case St::Runnable:
            emit(out, {a, b, CriticalKind::Runnable, w.pid, 0, via});
            break;
        case St::Unknown:
            emit(out, {a, b, CriticalKind::Unknown, w.pid, 0, via});
            break;
        case St::Blocked:
            resolve(w, *it, a, b, via, depth, out);
            break;
        case St::Gone: // never stored
            break;
        }
        at = b;
    }
    if (at < hi)
        emit(out, {at, hi, CriticalKind::Unknown, w.pid, 0, via});
}

void CriticalPath::finish() {
    for (Timeline& t : tls_m) {
        if (t.pid <= 0)
            continue;
        const bool live = index_m.find(t.pid) && &tls_m[index_m.find(t.pid) - 1] == &t;
        if (live)
            close(t, lastNs_m);
    }
    // The target: the first instance of the pid whose life meets the interval.
    if (firstNs_m == ~0ull)
        firstNs_m = 0;
    const std::uint64_t from = firstNs_m + std::min<std::uint64_t>(opt_m.fromNs, ~0ull - firstNs_m);
    const std::uint64_t to = firstNs_m + std::min<std::uint64_t>(opt_m.toNs, ~0ull - firstNs_m);
    const Timeline* target = nullptr;
    for (const Timeline& t : tls_m)
        if (t.pid == opt_m.pid && t.pid > 0 && !t.segs.empty() && t.segs.back().end >= from &&
            t.segs.front().start <= to) {
            target = &t;
            break;
        }
    found_m = target != nullptr;
    if (!target)
        return;
    from_m = std::max(from, target->segs.front().start);
    to_m = std::min(to, target->segs.back().end);
    std::vector<std::int32_t> via;
    walkBack(*target, from_m, to_m, via, 0, path_m);
    std::map<std::tuple<int, std::int32_t, std::uint32_t>, std::uint64_t> shares;
    for (const CriticalSegment& s : path_m)
        shares[{static_cast<int>(s.kind), s.pid, s.what}] += s.endNs - s.startNs;
    for (const auto& [k, ns] : shares)
        summary_m.push_back(
            {static_cast<CriticalKind>(std::get<0>(k)), std::get<1>(k), std::get<2>(k), ns});
    std::stable_sort(summary_m.begin(), summary_m.end(),
                     [](const CriticalShare& a, const CriticalShare& b) { return a.ns > b.ns; });
}

std::string CriticalPath::name(std::int32_t pid) const {
    if (std::uint32_t i = index_m.find(pid))
        return tls_m[i - 1].name;
    for (auto it = tls_m.rbegin(); it != tls_m.rend(); ++it) // an exited instance
        if (it->pid == pid)
            return it->name;
    return "unknown";
}

namespace {

const char* softName(std::uint32_t v) {
    static const char* const kNames[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                         "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
    return v < std::size(kNames) ? kNames[v] : "unknown";
}

std::string interruptName(std::uint32_t what) {
    return (what & kVectorBit) ? "interrupt vector " + std::to_string(what & ~kVectorBit)
                               : "interrupt " + std::to_string(what);
}

// What a task was doing, as the end of "which was ...".
std::string activity(CriticalKind k, std::uint32_t what) {
    switch (k) {
    case CriticalKind::Running:
        return "running";
    case CriticalKind::Runnable:
        return "waiting for a CPU";
    case CriticalKind::Timer:
        return "waiting for a timer";
    case CriticalKind::Interrupt:
        return "waiting for " + interruptName(what);
    case CriticalKind::SoftIrq:
        return std::string("waiting for soft IRQ ") + softName(what);
    case CriticalKind::Io:
        return "waiting for disk I/O";
    case CriticalKind::Network:
        return "waiting for the network";
    case CriticalKind::Blocked:
        return "blocked (no wakeup recorded)";
    case CriticalKind::Unknown:
        return "unknown (no record)";
    }
    return "unknown";
}

// As the target's own segment.
std::string own(CriticalKind k, std::uint32_t what) {
    switch (k) {
    case CriticalKind::Timer:
        return "timer";
    case CriticalKind::Interrupt:
        return interruptName(what);
    case CriticalKind::SoftIrq:
        return std::string("soft IRQ ") + softName(what);
    case CriticalKind::Io:
        return "I/O";
    case CriticalKind::Network:
        return "network";
    default:
        return activity(k, what);
    }
}

} // namespace

std::string CriticalPath::describe(const CriticalSegment& s) const {
    if (s.via.empty())
        return own(s.kind, s.what);
    std::string out, close;
    for (std::size_t i = 0; i < s.via.size(); ++i) {
        out += (i ? "which was waiting for PID " : "waiting for PID ") + std::to_string(s.via[i]) +
               " [" + escaped(name(s.via[i])) + "] (";
        close += ")";
    }
    return out + "which was " + activity(s.kind, s.what) + close;
}

std::string CriticalPath::shareLabel(CriticalKind k, std::int32_t pid, std::uint32_t what) const {
    const std::string who = "PID " + std::to_string(pid) + " [" + escaped(name(pid)) + "]";
    switch (k) {
    case CriticalKind::Running:
        return who + ": running";
    case CriticalKind::Runnable:
        return who + ": waiting for a CPU";
    case CriticalKind::Blocked:
    case CriticalKind::Unknown:
        return who + ": " + activity(k, what);
    default:
        return own(k, what) + " (waited for by " + who + ")";
    }
}

std::string CriticalPath::describe(const CriticalShare& s) const {
    return shareLabel(s.kind, s.pid, s.what);
}

} // namespace ltt
