// LTT's text report over the report model: see report_render.hpp. The
// layout is traceanalyze's, kept byte for byte (tests/data/*.report.txt).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <libltt/event_format.hpp>
#include <libltt/process_report.hpp>
#include <libltt/report_render.hpp>
#include <libltt/trace_reader.hpp>
#include <string>
#include <vector>

namespace ltt {

namespace {

using ull = unsigned long long;

// Milliseconds with 3 decimals, for tables.
std::string msec(std::uint64_t ns) {
    char b[48];
    std::snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64, ns / 1000000, (ns / 1000) % 1000);
    return b;
}
std::string wallclock(std::uint64_t realtimeNs) {
    std::time_t t = static_cast<std::time_t>(realtimeNs / 1000000000);
    std::tm tm;
    gmtime_r(&t, &tm);
    char b[64], r[96];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm);
    std::snprintf(r, sizeof r, "%s.%09" PRIu64 " UTC", b, realtimeNs % 1000000000);
    return r;
}
std::string fixed(const char* s, std::size_t n) {
    return std::string(s, strnlen(s, n));
}
// A name from the trace or the .proc, as text output shows it (escaped:
// see appendEscaped).
std::string text(std::string_view name) {
    return escaped(name);
}

class Report {
public:
    Report(std::FILE* f, const ReportOptions& o, const TraceAnalysis& a)
        : f_m(f), o_m(o), a_m(a), r_m(a.reader()) {}

    void lostBanner() {
        userLostBanner();
        if (!a_m.lostEvents() && !r_m.lostEvents())
            return;
        const std::uint64_t lost = std::max(a_m.lostEvents(), r_m.lostEvents());
        line('!');
        std::fprintf(f_m, "!!! WARNING: %llu EVENTS WERE LOST DURING TRACING\n", ull(lost));
        for (std::uint32_t c = 0; c < r_m.ncpus(); ++c)
            if (r_m.lostEvents(c))
                std::fprintf(f_m, "!!!   CPU %u: %llu lost\n", c, ull(r_m.lostEvents(c)));
        std::fprintf(f_m,
                     "!!! Intervals open across a loss are not counted: times below are\n"
                     "!!! lower bounds. Use a larger buffer (tracedaemon -b) to avoid this.\n");
        line('!');
        std::fprintf(f_m, "\n");
    }

    // Events the trace does not attribute to a task (docs/analysis.md,
    // "Attribution"): counted apart, never under another process.
    void unattributedBanner() {
        const std::uint64_t n = a_m.unattributedEvents();
        if (!n)
            return;
        line('!');
        std::fprintf(f_m, "!!! WARNING: %llu EVENTS COULD NOT BE ATTRIBUTED TO A TASK\n", ull(n));
        for (unsigned w = 0; w < static_cast<unsigned>(Unattributed::Count); ++w) {
            const auto why = static_cast<Unattributed>(w);
            if (const std::uint64_t k = a_m.unattributedEvents(why))
                std::fprintf(f_m, "!!!   %llu: %s\n", ull(k),
                             unattributedReason(why, a_m.restricted()));
        }
        std::fprintf(f_m, "!!! They are counted under \"unattributed\", not under any process.\n");
        line('!');
        std::fprintf(f_m, "\n");
    }

    // Application events lost (their threads' rings full), apart from
    // the kernel's: they leave no gap in the kernel's intervals.
    void userLostBanner() {
        if (!a_m.userLostEvents())
            return;
        line('!');
        std::fprintf(f_m, "!!! WARNING: %llu APPLICATION EVENTS WERE LOST DURING TRACING\n",
                     ull(a_m.userLostEvents()));
        for (const auto& u : r_m.userStreams())
            if (u.lost)
                std::fprintf(f_m, "!!!   user stream %u (thread %d): %llu lost\n", u.number, u.tid,
                             ull(u.lost));
        line('!');
        std::fprintf(f_m, "\n");
    }

    void header() {
        const auto& h = r_m.header();
        std::fprintf(f_m, "Trace:      %s\n", r_m.path().c_str());
        std::fprintf(f_m, "Producer:   %s; kernel %s %s on %s\n",
                     text(fixed(h.producer, sizeof h.producer)).c_str(),
                     text(fixed(h.sysname, sizeof h.sysname)).c_str(),
                     text(fixed(h.release, sizeof h.release)).c_str(),
                     text(fixed(h.hostname, sizeof h.hostname)).c_str());
        std::fprintf(f_m, "Backend:    %s\n",
                     a_m.backend() == LTT_BACKEND_TRACEPOINTS ? "tracepoints (an unmodified kernel)"
                                                              : "facility (the patched kernel)");
        std::fprintf(f_m, "CPUs:       %u; TSC %llu kHz%s\n", h.ncpus, ull(h.tsc_khz),
                     (h.flags & LTT_TRACE_F_CLOCK_FALLBACK) ? " (kernel clock fallback)" : "");
        std::fprintf(f_m, "Start:      %s (+%s s)\n",
                     wallclock(h.anchor_realtime_ns + a_m.firstNs()).c_str(),
                     formatSeconds(a_m.firstNs()).c_str());
        std::fprintf(f_m, "End:        %s (+%s s)\n",
                     wallclock(h.anchor_realtime_ns + a_m.lastNs()).c_str(),
                     formatSeconds(a_m.lastNs()).c_str());
        std::fprintf(f_m, "Duration:   %s s\n", formatSeconds(duration()).c_str());
        std::fprintf(f_m, "Events:     %llu; lost: %llu\n", ull(a_m.events()),
                     ull(a_m.lostEvents()));
        if (a_m.hasUserStreams())
            std::fprintf(f_m, "App events: %llu in %zu user streams; lost: %llu; damaged: %llu\n",
                         ull(a_m.userEvents()), r_m.userStreams().size(), ull(a_m.userLostEvents()),
                         ull(a_m.userProblemCount()));
        // Streams stamped with CLOCK_MONOTONIC (the trace's fallback clock)
        // were placed on the kernel's clock by the daemon: their order
        // against kernel events holds only within the bound the daemon
        // printed (docs/user-events.md, "Clocks").
        if (std::size_t monotonic = r_m.monotonicUserStreams())
            std::fprintf(f_m,
                         "App clock:  CLOCK_MONOTONIC in %zu of %zu user streams, placed on the "
                         "kernel clock by the daemon's clock pairs\n",
                         monotonic, r_m.userStreams().size());
        if (r_m.unfinished())
            std::fprintf(f_m, "Unfinished: %s\n", r_m.unfinished()->message.c_str());
        if (r_m.truncation() && r_m.tailWithoutBlock())
            std::fprintf(f_m,
                         "Truncated:  no whole block from offset %llu to the end of the file; "
                         "analyzed up to there\n",
                         ull(r_m.truncation()->offset));
        else if (r_m.truncation())
            std::fprintf(f_m,
                         "Truncated:  the file ends inside a block at offset %llu; "
                         "analyzed up to there\n",
                         ull(r_m.truncation()->offset));
        auto missing = a_m.availability().missing();
        if (!missing.empty()) {
            std::fprintf(f_m, "Masked out at trace time:");
            for (std::size_t i = 0; i < missing.size(); ++i)
                std::fprintf(f_m, "%s %s", i ? "," : "", missing[i].c_str());
            std::fprintf(f_m, "\n");
        }
        std::fprintf(f_m, "\n");
    }

    // The module's own events that the event mask selects (VARS follows the
    // variables mask, CONFIG is always written).
    static constexpr std::uint64_t kModuleMasked = LTT_EV_MASK_MOUNT_LOCK | LTT_EV_BIT(LTT_EV_MAP);

    void counts() {
        std::fprintf(f_m, "Number of occurrences\n");
        const auto& c = a_m.eventCounts();
        for (unsigned i = 0; i <= LTT_EV_COUNT; ++i) {
            if (!o_m.types.test(i))
                continue;
            if (!a_m.configChanges().empty() && i != LTT_EV_TRACE_START &&
                (((LTT_EV_MASK_ALL | kModuleMasked) & ~LTT_EV_MASK_STRUCTURE) >> i & 1)) {
                // The mask changed while tracing: say when the event was
                // not recorded, rather than let a count (or 0) stand alone.
                const auto off = a_m.notRecorded(i);
                const bool never = off.size() == 1 && off[0].fromNs <= a_m.firstNs() &&
                                   off[0].toNs >= a_m.lastNs();
                if (never && !c[i] && i < LTT_EV_MAX) {
                    // The dash is 3 bytes for one column: 2 more of width.
                    std::fprintf(f_m, "  %-20s %14s (not recorded)\n",
                                 std::string(eventName(i)).c_str(), "\u2014");
                    continue;
                }
                if (!off.empty() && !never) {
                    std::string when;
                    for (const TimeSpan& t : off)
                        when += (when.empty() ? "" : ", ") + std::string("from ") +
                                formatSeconds(t.fromNs) + " s to " + formatSeconds(t.toNs) + " s";
                    std::fprintf(f_m, "  %-20s %12llu (not recorded %s)\n",
                                 std::string(eventName(i)).c_str(), ull(c[i]), when.c_str());
                    continue;
                }
            }
            if (i < LTT_EV_MAX && !r_m.eventEnabled(i) && !c[i] && i != LTT_EV_TRACE_START &&
                !(LTT_EV_MASK_STRUCTURE & LTT_EV_BIT(i))) {
                std::fprintf(f_m, "  %-20s masked out at trace time\n",
                             std::string(eventName(i)).c_str());
                continue;
            }
            if (!c[i])
                continue;
            std::fprintf(f_m, "  %-20s %12llu\n", std::string(eventName(i)).c_str(), ull(c[i]));
        }
        std::fprintf(f_m, "\n");
    }

    void system() {
        const auto& av = a_m.availability();
        std::fprintf(f_m, "System summary (seconds; %% of each CPU's traced time)\n");
        std::fprintf(f_m, "  %-5s %22s %22s %22s %22s %10s %8s\n", "CPU", "user", "kernel",
                     "interrupts", "idle", "events", "lost");
        auto row = [&](const char* label, const CpuStats& c) {
            const std::uint64_t tot = c.userNs + c.kernelNs + c.irqNs + c.idleNs;
            auto cell = [&](std::uint64_t v) {
                return formatSeconds(v) + " " + formatShare(v, tot);
            };
            std::fprintf(f_m, "  %-5s %22s %22s %22s %22s %10llu %8llu\n", label,
                         cell(c.userNs).c_str(), cell(c.kernelNs).c_str(),
                         av.irqs ? cell(c.irqNs).c_str() : "masked out", cell(c.idleNs).c_str(),
                         ull(c.events), ull(c.lost));
        };
        for (std::size_t i = 0; i < a_m.cpus().size(); ++i) {
            if (o_m.cpu >= 0 && o_m.cpu != static_cast<int>(i))
                continue;
            row(std::to_string(i).c_str(), a_m.cpus()[i]);
        }
        if (o_m.cpu < 0)
            row("all", a_m.total());
        if (!av.sched)
            std::fprintf(f_m, "  (scheduling changes were masked out at trace time: %s)\n",
                         (r_m.header().flags & LTT_TRACE_F_CONTEXT)
                             ? "context records say which task was current"
                             : "the time after each block's start is unattributed");
        std::fprintf(f_m, "\n");
    }

    void tree() {
        std::fprintf(f_m, "Process tree\n");
        // pid 0 is the root, as in LTT's tree ("The All Mighty (0)"); tasks
        // whose parent is unknown hang directly under it.
        auto roots = a_m.roots();
        treeNode(0, 1);
        for (auto r : roots)
            if (r != 0)
                treeNode(r, 2);
        std::fprintf(f_m, "\n");
    }

    void processes() {
        std::fprintf(f_m, "Process analysis\n");
        std::size_t quiet = 0;
        for (const Process& p : a_m.processes()) {
            if (!shown(p))
                continue;
            if (!p.stats.runningNs && !p.stats.syscalls && !p.stats.schedIn && o_m.pid < 0 &&
                p.userEvents.empty()) {
                ++quiet; // present at the start, never ran: only in the tree
                continue;
            }
            std::fprintf(f_m, "\n%s (%d), parent %d%s%s\n", text(p.name).c_str(), p.pid, p.ppid,
                         p.kthread ? ", kernel thread" : "", p.exited ? ", exited" : "");
            processBody(p);
        }
        if (a_m.unattributedEvents() && o_m.pid < 0) {
            std::fprintf(f_m, "\nunattributed (events of tasks the trace does not name: see the "
                              "warning above)\n");
            processBody(a_m.unattributed());
        }
        if (quiet)
            std::fprintf(f_m, "\n(%zu processes did not run during the trace: see the tree)\n",
                         quiet);
        std::fprintf(f_m, "\n");
    }

    void processBody(const Process& p) {
        const auto& av = a_m.availability();
        const std::uint64_t dur = duration();
        {
            const auto& s = p.stats;
            std::fprintf(f_m, "Process characteristics :\n");
            const ProcessFigures fig = processFigures(av, s);
            for (ProcessFigure which : kCharacteristics) {
                const FigureValue& v = figure(fig, which);
                std::fprintf(f_m, "  %-36s %s\n", (std::string(v.label) + ":").c_str(),
                             figureText(v, dur).c_str());
            }
            if (!p.userEvents.empty()) {
                std::fprintf(f_m, "Application events (name, count) :\n");
                for (const auto& [name, n] : p.userEvents)
                    std::fprintf(f_m, "  %-36s %llu\n", (text(name) + ":").c_str(), ull(n));
            }
            const std::string note = syscallAccountingNote(av);
            if (!av.syscalls) {
                std::fprintf(f_m, "System call accounting : %s\n", note.c_str());
                return;
            }
            if (s.syscallTable.empty())
                return;
            std::fprintf(f_m, "System call accounting (name, nb times called, total time spent "
                              "in syscall, min, max, avg, errors) :\n");
            if (!note.empty())
                std::fprintf(f_m, "  (%s)\n", note.c_str());
            for (const auto& st : s.syscallTable) {
                std::fprintf(f_m, "  %-24s %8llu %14s %12s %12s %12s %6llu\n",
                             (TraceAnalysis::syscallSlotName(st.slot) + ":").c_str(), ull(st.count),
                             formatSeconds(st.totalNs).c_str(), formatSeconds(st.minNs).c_str(),
                             formatSeconds(st.maxNs).c_str(),
                             formatSeconds(st.timed ? st.totalNs / st.timed : 0).c_str(),
                             ull(st.errors));
            }
        }
    }

    // The `perf sched timehist -s --state` view: where each task's time
    // went, off the CPU as well as on it.
    void waitTable() {
        std::fprintf(f_m, "Wait times (milliseconds)\n");
        if (!a_m.availability().sched) {
            std::fprintf(f_m, "  masked out at trace time (needs scheduling changes)\n\n");
            return;
        }
        std::vector<const Process*> ps;
        for (const Process& p : a_m.processes())
            if (shown(p) && (p.stats.runningNs || p.stats.schedIn))
                ps.push_back(&p);
        std::stable_sort(ps.begin(), ps.end(), [](const Process* x, const Process* y) {
            return x->stats.runningNs > y->stats.runningNs;
        });
        std::fprintf(f_m, "  %-20s %8s %9s %8s %12s %12s %12s %12s %12s %12s %12s %12s\n", "task",
                     "pid", "sched-in", "wakeups", "run", "avg-run", "max-run", "sleep", "iowait",
                     "preempted", "sched-delay", "max-delay");
        ProcessStats total;
        for (const Process* p : ps) {
            const auto& s = p->stats;
            row(text(p->name).c_str(), std::to_string(p->pid).c_str(), s);
            total.schedIn += s.schedIn;
            total.wakeups += s.wakeups;
            total.runningNs += s.runningNs;
            total.maxSliceNs = std::max(total.maxSliceNs, s.maxSliceNs);
            total.sleepNs += s.sleepNs;
            total.ioWaitNs += s.ioWaitNs;
            total.preemptedNs += s.preemptedNs;
            total.schedDelayNs += s.schedDelayNs;
            total.maxDelayNs = std::max(total.maxDelayNs, s.maxDelayNs);
        }
        if (ps.size() > 1)
            row("total", "", total);
        std::fprintf(f_m, "\n");
    }

private:
    void row(const char* name, const char* pid, const ProcessStats& s) {
        std::fprintf(f_m, "  %-20.20s %8s %9llu %8llu %12s %12s %12s %12s %12s %12s %12s %12s\n",
                     name, pid, ull(s.schedIn), ull(s.wakeups), msec(s.runningNs).c_str(),
                     msec(s.schedIn ? s.runningNs / s.schedIn : 0).c_str(),
                     msec(s.maxSliceNs).c_str(), msec(s.sleepNs).c_str(), msec(s.ioWaitNs).c_str(),
                     msec(s.preemptedNs).c_str(), msec(s.schedDelayNs).c_str(),
                     msec(s.maxDelayNs).c_str());
    }
    std::uint64_t duration() const { return traceDuration(a_m); }
    bool shown(const Process& p) const {
        if (p.pid == 0)
            return false;
        return o_m.pid < 0 || p.pid == o_m.pid;
    }
    void treeNode(std::uint32_t idx, int depth) {
        const Process& p = a_m.processes()[idx];
        std::fprintf(f_m, "%*s%s (%d)%s%s\n", depth * 2, "", text(p.name).c_str(), p.pid,
                     p.kthread && p.pid ? " [kernel thread]" : "", p.exited ? " [exited]" : "");
        for (auto c : p.children)
            treeNode(c, depth + 1);
    }
    void line(char c) {
        std::string s(72, c);
        std::fprintf(f_m, "%s\n", s.c_str());
    }
    std::FILE* f_m;
    const ReportOptions& o_m;
    const TraceAnalysis& a_m;
    const TraceReader& r_m;
};

} // namespace

void writeTextReport(std::FILE* out, const TraceAnalysis& analysis, const ReportOptions& options) {
    Report rep(out, options, analysis);
    rep.lostBanner();
    rep.unattributedBanner();
    if (options.summarize) {
        rep.header();
        rep.counts();
    }
    if (options.analyze) {
        rep.tree();
        rep.processes();
        rep.waitTable();
    }
    if (options.summarize)
        rep.system();
}

} // namespace ltt
