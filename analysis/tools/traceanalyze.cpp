// traceanalyze: LTT's command-line analyzer over libltt.
//
//   traceanalyze [options] TRACE [PROC [OUT]]
//
// Reports go to stdout (or OUT); warnings, errors and progress to stderr, so
// a report can be piped or diffed. Exit status: 0 success (also, with a
// warning, for a trace cut short in its last block or ending in bytes that
// hold no whole block, and for a .proc whose last line is cut), 1
// unreadable or corrupt input (the message names the file and byte offset),
// 2 usage errors. Names from the trace and the .proc are escaped in text
// output (control characters as \n, \x1b, ...).
#include <algorithm>
#include <bitset>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <getopt.h>
#include <libltt/event_format.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using ltt::Process;
using ltt::TraceAnalysis;
using ull = unsigned long long;

struct Options {
    bool analyze = false, summarize = false, dump = false, json = false;
    bool progress = true;
    std::int64_t pid = -1;
    int cpu = -1;
    std::bitset<LTT_EV_MAX + 1> types; // events shown in dumps and counts
    std::string trace, proc, out;
};

void usage(std::FILE* f) {
    std::fprintf(f,
                 "usage: traceanalyze [options] TRACE [PROC [OUT]]\n"
                 "Analyzes an ltt trace (TRACE, e.g. out.trace) with the system state at its\n"
                 "start (PROC, e.g. out.proc); writes the report to OUT or stdout.\n"
                 "\n"
                 "  -a, --analyze        per-process analysis: process tree, characteristics,\n"
                 "                       system call accounting, wait times\n"
                 "  -s, --summarize      trace header, event counts, system-wide summary\n"
                 "  -d, --dump           list every event (LTT's raw trace)\n"
                 "  -p, --pid PID        only this process (analysis and dump)\n"
                 "  -c, --cpu CPU        only this CPU (dump and per-CPU summary)\n"
                 "  -o, --omit TYPES     leave these event types out of dump and counts\n"
                 "  -t, --trace TYPES    keep only these event types in dump and counts\n"
                 "                       TYPES: comma-separated keys (syscall_entry, schedchange,\n"
                 "                       file_system, ...) or ids\n"
                 "      --json           the analysis as one JSON document (docs/json.md)\n"
                 "      --no-progress    no progress line even on a terminal\n"
                 "  -h, --help           this text\n"
                 "  -V, --version        version\n"
                 "Without -a, -s or -d: -a -s.\n");
}

bool parseTypes(const char* arg, std::bitset<LTT_EV_MAX + 1>& out) {
    std::string s(arg);
    std::size_t pos = 0;
    while (pos <= s.size()) {
        std::size_t comma = s.find(',', pos);
        std::string tok =
            s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (!tok.empty()) {
            int id = ltt::eventIdFromKey(tok);
            if (id < 0) {
                char* end = nullptr;
                long v = std::strtol(tok.c_str(), &end, 10);
                if (*end || v < 0 || v >= LTT_EV_MAX) {
                    std::fprintf(stderr, "traceanalyze: unknown event type \"%s\"\n", tok.c_str());
                    return false;
                }
                id = static_cast<int>(v);
            }
            out.set(static_cast<std::size_t>(id));
        }
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    return true;
}

// "S.NNNNNNNNN" seconds.
std::string secs(std::uint64_t ns) {
    char b[48];
    std::snprintf(b, sizeof b, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
    return b;
}
// Milliseconds with 3 decimals, for tables.
std::string msec(std::uint64_t ns) {
    char b[48];
    std::snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64, ns / 1000000, (ns / 1000) % 1000);
    return b;
}
std::string pct(std::uint64_t part, std::uint64_t whole) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f %%", whole ? 100.0 * double(part) / double(whole) : 0.0);
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
// see ltt::appendEscaped).
std::string text(std::string_view name) {
    return ltt::escaped(name);
}

class Report {
public:
    Report(std::FILE* f, const Options& o, const TraceAnalysis& a)
        : f_m(f), o_m(o), a_m(a), r_m(a.reader()) {}

    void lostBanner() {
        if (!a_m.lostEvents() && !r_m.lostEvents())
            return;
        const std::uint64_t lost = std::max(a_m.lostEvents(), r_m.lostEvents());
        line('!');
        std::fprintf(f_m, "!!! WARNING: %llu EVENTS WERE LOST DURING TRACING\n", ull(lost));
        for (std::uint16_t c = 0; c < r_m.ncpus(); ++c)
            if (r_m.lostEvents(c))
                std::fprintf(f_m, "!!!   CPU %u: %llu lost\n", c, ull(r_m.lostEvents(c)));
        std::fprintf(f_m,
                     "!!! Intervals open across a loss are not counted: times below are\n"
                     "!!! lower bounds. Use a larger buffer (tracedaemon -b) to avoid this.\n");
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
        std::fprintf(f_m, "CPUs:       %u; TSC %llu kHz%s\n", h.ncpus, ull(h.tsc_khz),
                     (h.flags & LTT_TRACE_F_CLOCK_FALLBACK) ? " (kernel clock fallback)" : "");
        std::fprintf(f_m, "Start:      %s (+%s s)\n",
                     wallclock(h.anchor_realtime_ns + a_m.firstNs()).c_str(),
                     secs(a_m.firstNs()).c_str());
        std::fprintf(f_m, "End:        %s (+%s s)\n",
                     wallclock(h.anchor_realtime_ns + a_m.lastNs()).c_str(),
                     secs(a_m.lastNs()).c_str());
        std::fprintf(f_m, "Duration:   %s s\n", secs(duration()).c_str());
        std::fprintf(f_m, "Events:     %llu; lost: %llu\n", ull(a_m.events()),
                     ull(a_m.lostEvents()));
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

    void counts() {
        std::fprintf(f_m, "Number of occurrences\n");
        const auto& c = a_m.eventCounts();
        for (unsigned i = 0; i <= LTT_EV_MAX; ++i) {
            if (!o_m.types.test(i))
                continue;
            if (i < LTT_EV_MAX && !r_m.eventEnabled(i) && !c[i] && i != LTT_EV_TRACE_START &&
                !(LTT_EV_MASK_STRUCTURE & LTT_EV_BIT(i))) {
                std::fprintf(f_m, "  %-20s masked out at trace time\n",
                             std::string(ltt::eventName(i)).c_str());
                continue;
            }
            if (!c[i])
                continue;
            std::fprintf(f_m, "  %-20s %12llu\n", std::string(ltt::eventName(i)).c_str(),
                         ull(c[i]));
        }
        std::fprintf(f_m, "\n");
    }

    void system() {
        const auto& av = a_m.availability();
        std::fprintf(f_m, "System summary (seconds; %% of each CPU's traced time)\n");
        std::fprintf(f_m, "  %-5s %22s %22s %22s %22s %10s %8s\n", "CPU", "user", "kernel",
                     "interrupts", "idle", "events", "lost");
        auto row = [&](const char* label, const ltt::CpuStats& c) {
            const std::uint64_t tot = c.userNs + c.kernelNs + c.irqNs + c.idleNs;
            auto cell = [&](std::uint64_t v) { return secs(v) + " " + pct(v, tot); };
            std::fprintf(f_m, "  %-5s %22s %22s %22s %22s %10llu %8llu\n", label,
                         cell(c.userNs).c_str(), cell(c.kernelNs).c_str(),
                         av.irqs ? cell(c.irqNs).c_str() : "masked out", cell(c.idleNs).c_str(),
                         ull(c.events), ull(c.lost));
        };
        for (std::uint16_t i = 0; i < a_m.cpus().size(); ++i) {
            if (o_m.cpu >= 0 && o_m.cpu != i)
                continue;
            row(std::to_string(i).c_str(), a_m.cpus()[i]);
        }
        if (o_m.cpu < 0)
            row("all", a_m.total());
        if (!av.sched)
            std::fprintf(f_m, "  (scheduling changes were masked out at trace time: time is "
                              "charged to the task current at each block start)\n");
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
        const auto& av = a_m.availability();
        const std::uint64_t dur = duration();
        std::fprintf(f_m, "Process analysis\n");
        std::size_t quiet = 0;
        for (const Process& p : a_m.processes()) {
            if (!shown(p))
                continue;
            if (!p.stats.runningNs && !p.stats.syscalls && !p.stats.schedIn && o_m.pid < 0) {
                ++quiet; // present at the start, never ran: only in the tree
                continue;
            }
            const auto& s = p.stats;
            std::fprintf(f_m, "\n%s (%d), parent %d%s%s\n", text(p.name).c_str(), p.pid, p.ppid,
                         p.kthread ? ", kernel thread" : "", p.exited ? ", exited" : "");
            std::fprintf(f_m, "Process characteristics :\n");
            auto count = [&](const char* label, bool ok, std::uint64_t v) {
                if (ok)
                    std::fprintf(f_m, "  %-36s %llu\n", label, ull(v));
                else
                    std::fprintf(f_m, "  %-36s masked out at trace time\n", label);
            };
            auto time = [&](const char* label, bool ok, std::uint64_t v) {
                if (ok)
                    std::fprintf(f_m, "  %-36s %s s => %s\n", label, secs(v).c_str(),
                                 pct(v, dur).c_str());
                else
                    std::fprintf(f_m, "  %-36s masked out at trace time\n", label);
            };
            count("Number of system calls:", av.syscalls, s.syscalls);
            count("Number of traps:", av.traps, s.traps);
            count("Quantity of data read from files:", av.fileIo, s.bytesRead);
            count("Quantity of data written to files:", av.fileIo, s.bytesWritten);
            time("Time executing process code:", av.syscalls, s.userNs);
            time("Time running:", true, s.runningNs);
            time("Time in system calls:", av.syscalls, s.syscallNs);
            time("Time in traps:", av.traps, s.trapNs);
            time("Time in interrupts:", av.irqs, s.irqNs);
            time("Time waiting for I/O:", av.sched, s.ioWaitNs);
            time("Time sleeping:", av.sched, s.sleepNs);
            time("Time preempted:", av.sched, s.preemptedNs);
            time("Time waiting to run (sched delay):", av.sched, s.schedDelayNs);
            count("Times scheduled in:", av.sched, s.schedIn);
            if (!av.syscalls) {
                std::fprintf(f_m, "System call accounting : masked out at trace time\n");
                continue;
            }
            if (s.syscallTable.empty())
                continue;
            std::fprintf(f_m, "System call accounting (name, nb times called, total time spent "
                              "in syscall, min, max, avg, errors) :\n");
            if (!av.syscallNames)
                std::fprintf(f_m, "  (system call details masked out at trace time: names "
                                  "unknown)\n");
            for (const auto& st : s.syscallTable) {
                std::fprintf(f_m, "  %-24s %8llu %14s %12s %12s %12s %6llu\n",
                             (TraceAnalysis::syscallSlotName(st.slot) + ":").c_str(), ull(st.count),
                             secs(st.totalNs).c_str(), secs(st.minNs).c_str(),
                             secs(st.maxNs).c_str(),
                             secs(st.timed ? st.totalNs / st.timed : 0).c_str(), ull(st.errors));
            }
        }
        if (quiet)
            std::fprintf(f_m, "\n(%zu processes did not run during the trace: see the tree)\n",
                         quiet);
        std::fprintf(f_m, "\n");
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
        ltt::ProcessStats total;
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
    void row(const char* name, const char* pid, const ltt::ProcessStats& s) {
        std::fprintf(f_m, "  %-20.20s %8s %9llu %8llu %12s %12s %12s %12s %12s %12s %12s %12s\n",
                     name, pid, ull(s.schedIn), ull(s.wakeups), msec(s.runningNs).c_str(),
                     msec(s.schedIn ? s.runningNs / s.schedIn : 0).c_str(),
                     msec(s.maxSliceNs).c_str(), msec(s.sleepNs).c_str(), msec(s.ioWaitNs).c_str(),
                     msec(s.preemptedNs).c_str(), msec(s.schedDelayNs).c_str(),
                     msec(s.maxDelayNs).c_str());
    }
    std::uint64_t duration() const {
        return a_m.lastNs() > a_m.firstNs() ? a_m.lastNs() - a_m.firstNs() : 0;
    }
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
    const Options& o_m;
    const TraceAnalysis& a_m;
    const ltt::TraceReader& r_m;
};

// --------------------------------------------------------------------- JSON

void jsonString(std::FILE* f, std::string_view s) {
    std::string out = "\"";
    ltt::appendJsonEscaped(out, s);
    out.push_back('"');
    std::fwrite(out.data(), 1, out.size(), f);
}

void json(std::FILE* f, const Options& o, const TraceAnalysis& a) {
    const auto& r = a.reader();
    const auto& h = r.header();
    const auto& av = a.availability();
    auto num = [&](bool ok, std::uint64_t v) {
        if (ok)
            std::fprintf(f, "%llu", ull(v));
        else
            std::fprintf(f, "null");
    };
    const std::uint64_t dur = a.lastNs() > a.firstNs() ? a.lastNs() - a.firstNs() : 0;
    std::fprintf(f, "{\n  \"schema\": \"ltt-analysis/1\",\n  \"trace\": {\"file\": ");
    jsonString(f, r.path());
    std::fprintf(f, ", \"producer\": ");
    jsonString(f, fixed(h.producer, sizeof h.producer));
    std::fprintf(f, ", \"kernel\": ");
    jsonString(f, fixed(h.release, sizeof h.release));
    std::fprintf(f, ", \"hostname\": ");
    jsonString(f, fixed(h.hostname, sizeof h.hostname));
    std::fprintf(f,
                 ", \"start_ns\": %llu, \"end_ns\": %llu, \"duration_ns\": %llu, "
                 "\"start_realtime_ns\": %llu, \"cpus\": %u, \"tsc_khz\": %llu, \"events\": %llu, "
                 "\"lost_events\": %llu, \"truncated_at\": ",
                 ull(a.firstNs()), ull(a.lastNs()), ull(dur),
                 ull(h.anchor_realtime_ns + a.firstNs()), h.ncpus, ull(h.tsc_khz), ull(a.events()),
                 ull(a.lostEvents()));
    if (r.truncation())
        std::fprintf(f, "%llu", ull(r.truncation()->offset));
    else
        std::fprintf(f, "null");
    std::fprintf(f, ", \"ended_cleanly\": %s", r.unfinished() ? "false" : "true");
    std::fprintf(f, "},\n  \"masked_out\": [");
    auto missing = av.missing();
    for (std::size_t i = 0; i < missing.size(); ++i) {
        std::fprintf(f, "%s", i ? ", " : "");
        jsonString(f, missing[i]);
    }
    std::fprintf(f, "],\n  \"event_counts\": {");
    bool first = true;
    for (unsigned i = 0; i <= LTT_EV_MAX; ++i) {
        if (!a.eventCounts()[i] || !o.types.test(i))
            continue;
        std::fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", std::string(ltt::eventKey(i)).c_str(),
                     ull(a.eventCounts()[i]));
        first = false;
    }
    std::fprintf(f, "},\n  \"processes\": [");
    first = true;
    for (const Process& p : a.processes()) {
        if (p.pid == 0 || (o.pid >= 0 && p.pid != o.pid))
            continue;
        const auto& s = p.stats;
        std::fprintf(f, "%s\n    {\"pid\": %d, \"ppid\": %d, \"tgid\": %d, \"name\": ",
                     first ? "" : ",", p.pid, p.ppid, p.tgid);
        first = false;
        jsonString(f, p.name);
        std::fprintf(f, ", \"kthread\": %s, \"exited\": %s, \"syscalls\": ",
                     p.kthread ? "true" : "false", p.exited ? "true" : "false");
        num(av.syscalls, s.syscalls);
        std::fprintf(f, ", \"traps\": ");
        num(av.traps, s.traps);
        std::fprintf(f, ", \"bytes_read\": ");
        num(av.fileIo, s.bytesRead);
        std::fprintf(f, ", \"bytes_written\": ");
        num(av.fileIo, s.bytesWritten);
        std::fprintf(f, ", \"time_user_ns\": ");
        num(av.syscalls, s.userNs);
        std::fprintf(f, ", \"time_running_ns\": %llu, \"time_syscall_ns\": ", ull(s.runningNs));
        num(av.syscalls, s.syscallNs);
        std::fprintf(f, ", \"time_trap_ns\": ");
        num(av.traps, s.trapNs);
        std::fprintf(f, ", \"time_irq_ns\": ");
        num(av.irqs, s.irqNs);
        std::fprintf(f, ", \"time_io_wait_ns\": ");
        num(av.sched, s.ioWaitNs);
        std::fprintf(f, ", \"time_preempted_ns\": ");
        num(av.sched, s.preemptedNs);
        std::fprintf(f, ", \"time_sched_delay_ns\": ");
        num(av.sched, s.schedDelayNs);
        std::fprintf(f, ", \"time_sleeping_ns\": ");
        num(av.sched, s.sleepNs);
        std::fprintf(f, ", \"max_delay_ns\": ");
        num(av.sched, s.maxDelayNs);
        std::fprintf(f, ", \"max_slice_ns\": ");
        num(av.sched, s.maxSliceNs);
        std::fprintf(f, ", \"sched_in\": ");
        num(av.sched, s.schedIn);
        std::fprintf(f, ", \"wakeups\": ");
        num(av.wakeups, s.wakeups);
        std::fprintf(f, ", \"syscall_table\": ");
        if (!av.syscalls) {
            std::fprintf(f, "null}");
            continue;
        }
        std::fprintf(f, "[");
        bool firstSc = true;
        for (const auto& st : s.syscallTable) {
            std::fprintf(f, "%s\n      {\"nr\": ", firstSc ? "" : ",");
            if (st.slot < ltt::syscallTableSize())
                std::fprintf(f, "%u", st.slot);
            else
                std::fprintf(f, "null");
            std::fprintf(f, ", \"name\": ");
            jsonString(f, TraceAnalysis::syscallSlotName(st.slot));
            std::fprintf(
                f,
                ", \"count\": %llu, \"timed\": %llu, \"total_ns\": %llu, \"min_ns\": %llu, "
                "\"max_ns\": %llu, \"avg_ns\": %llu, \"errors\": %llu}",
                ull(st.count), ull(st.timed), ull(st.totalNs), ull(st.minNs), ull(st.maxNs),
                ull(st.timed ? st.totalNs / st.timed : 0), ull(st.errors));
            firstSc = false;
        }
        std::fprintf(f, "%s]}", firstSc ? "" : "\n    ");
    }
    const auto t = a.total();
    std::fprintf(f, "\n  ],\n  \"system\": {\"user_ns\": %llu, \"kernel_ns\": %llu, \"irq_ns\": ",
                 ull(t.userNs), ull(t.kernelNs));
    num(av.irqs, t.irqNs);
    std::fprintf(f, ", \"idle_ns\": %llu, \"cpus\": [", ull(t.idleNs));
    for (std::size_t i = 0; i < a.cpus().size(); ++i) {
        const auto& c = a.cpus()[i];
        std::fprintf(f,
                     "%s\n    {\"cpu\": %zu, \"user_ns\": %llu, \"kernel_ns\": %llu, \"irq_ns\": ",
                     i ? "," : "", i, ull(c.userNs), ull(c.kernelNs));
        num(av.irqs, c.irqNs);
        std::fprintf(f, ", \"idle_ns\": %llu, \"events\": %llu, \"lost_events\": %llu}",
                     ull(c.idleNs), ull(c.events), ull(c.lost));
    }
    std::fprintf(f, "\n  ]}\n}\n");
}

// --------------------------------------------------------------------- dump

int dump(std::FILE* f, const Options& o, const ltt::TraceReader& r) {
    std::fprintf(f, "%-6s %-14s %10s %9s %7s %6s  %s\n", "CPU-ID", "Event", "Seconds", "Nanosec",
                 "PID", "Length", "Event Description");
    std::string line;
    ltt::TraceCursor c = r.begin();
    for (; c.valid(); c.next()) {
        const ltt::Event& e = c.event();
        if (o.cpu >= 0 && e.cpu != o.cpu)
            continue;
        if (o.pid >= 0 && e.pid != o.pid)
            continue;
        if (!o.types.test(e.id < LTT_EV_MAX ? e.id : unsigned(LTT_EV_MAX)))
            continue;
        const std::uint64_t t = r.realtimeNs(e.tsc);
        char head[128];
        int n = std::snprintf(head, sizeof head, "%-6u %-14.14s %10llu %09llu %7d %6u  ", e.cpu,
                              std::string(ltt::eventName(e.id)).c_str(), ull(t / 1000000000),
                              ull(t % 1000000000), e.pid, e.size);
        line.assign(head, static_cast<std::size_t>(n));
        ltt::describeEvent(e, line);
        line.push_back('\n');
        std::fwrite(line.data(), 1, line.size(), f);
    }
    if (c.error()) {
        std::fflush(f);
        std::fprintf(stderr, "traceanalyze: %s\n", c.error()->str().c_str());
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    o.types.set();
    bool typesGiven = false;
    enum { kJson = 1000, kNoProgress };
    static const option longopts[] = {{"analyze", no_argument, nullptr, 'a'},
                                      {"summarize", no_argument, nullptr, 's'},
                                      {"dump", no_argument, nullptr, 'd'},
                                      {"pid", required_argument, nullptr, 'p'},
                                      {"cpu", required_argument, nullptr, 'c'},
                                      {"omit", required_argument, nullptr, 'o'},
                                      {"trace", required_argument, nullptr, 't'},
                                      {"json", no_argument, nullptr, kJson},
                                      {"no-progress", no_argument, nullptr, kNoProgress},
                                      {"help", no_argument, nullptr, 'h'},
                                      {"version", no_argument, nullptr, 'V'},
                                      {nullptr, 0, nullptr, 0}};
    std::bitset<LTT_EV_MAX + 1> omit, keep;
    int ch;
    while ((ch = getopt_long(argc, argv, "asdp:c:o:t:hV", longopts, nullptr)) != -1) {
        switch (ch) {
        case 'a':
            o.analyze = true;
            break;
        case 's':
            o.summarize = true;
            break;
        case 'd':
            o.dump = true;
            break;
        case 'p': {
            char* end = nullptr;
            long v = std::strtol(optarg, &end, 10);
            if (*end || v < 0 || !*optarg) {
                std::fprintf(stderr, "traceanalyze: bad PID \"%s\"\n", optarg);
                return 2;
            }
            o.pid = v;
            break;
        }
        case 'c': {
            char* end = nullptr;
            long v = std::strtol(optarg, &end, 10);
            if (*end || v < 0 || v >= LTT_MAX_CPUS || !*optarg) {
                std::fprintf(stderr, "traceanalyze: bad CPU \"%s\"\n", optarg);
                return 2;
            }
            o.cpu = static_cast<int>(v);
            break;
        }
        case 'o':
            if (!parseTypes(optarg, omit))
                return 2;
            break;
        case 't':
            if (!parseTypes(optarg, keep))
                return 2;
            typesGiven = true;
            break;
        case kJson:
            o.json = true;
            break;
        case kNoProgress:
            o.progress = false;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            std::printf("traceanalyze (ltt) %s\n", LTT_VERSION_STRING);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (typesGiven)
        o.types = keep;
    o.types &= ~omit;
    const int npos = argc - optind;
    if (npos < 1 || npos > 3) {
        std::fprintf(stderr, "traceanalyze: %s\n",
                     npos < 1 ? "missing TRACE file" : "too many arguments");
        usage(stderr);
        return 2;
    }
    o.trace = argv[optind];
    if (npos >= 2)
        o.proc = argv[optind + 1];
    if (npos >= 3)
        o.out = argv[optind + 2];
    if (!o.analyze && !o.summarize && !o.dump)
        o.analyze = o.summarize = true;

    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(o.trace, &err);
    if (!reader) {
        std::fprintf(stderr, "traceanalyze: %s\n", err.str().c_str());
        return 1;
    }
    if (reader->truncation())
        std::fprintf(stderr, "traceanalyze: warning: %s\n", reader->truncation()->str().c_str());
    if (reader->unfinished())
        std::fprintf(stderr, "traceanalyze: warning: %s\n", reader->unfinished()->str().c_str());

    std::optional<ltt::ProcSnapshot> snap;
    if (!o.proc.empty()) {
        ltt::ProcParseError perr;
        std::optional<ltt::ProcParseError> cut;
        snap = ltt::readProcFile(o.proc, &perr, &cut);
        if (!snap) {
            std::fprintf(stderr, "traceanalyze: %s\n", perr.str().c_str());
            return 1;
        }
        if (cut)
            std::fprintf(stderr, "traceanalyze: warning: %s\n", cut->str().c_str());
    } else {
        std::fprintf(stderr, "traceanalyze: warning: no PROC file: processes present at the "
                             "start are named \"unknown\"\n");
    }

    std::FILE* out = stdout;
    if (!o.out.empty()) {
        out = std::fopen(o.out.c_str(), "w");
        if (!out) {
            std::fprintf(stderr, "traceanalyze: cannot create %s: %s\n", o.out.c_str(),
                         std::strerror(errno));
            return 1;
        }
    }
    int rc = 0;
    if (o.dump && !o.json)
        rc = dump(out, o, *reader);
    if (rc == 0 && (o.analyze || o.summarize || o.json)) {
        TraceAnalysis a(*reader, snap ? &*snap : nullptr);
        const bool tty = o.progress && isatty(STDERR_FILENO) && reader->claimedEvents() > 4000000;
        std::function<void(double)> progress;
        if (tty)
            progress = [](double f) {
                std::fprintf(stderr, "\rtraceanalyze: %3d%%", static_cast<int>(f * 100));
            };
        bool ok = a.run(progress);
        if (tty)
            std::fprintf(stderr, "\r                    \r");
        if (!ok) {
            std::fprintf(stderr, "traceanalyze: %s\n", a.error()->str().c_str());
            rc = 1;
        } else if (o.json) {
            json(out, o, a);
        } else {
            Report rep(out, o, a);
            rep.lostBanner();
            if (o.summarize) {
                rep.header();
                rep.counts();
            }
            if (o.analyze) {
                rep.tree();
                rep.processes();
                rep.waitTable();
            }
            if (o.summarize)
                rep.system();
        }
    }
    if (out != stdout && std::fclose(out) != 0) {
        std::fprintf(stderr, "traceanalyze: cannot write %s: %s\n", o.out.c_str(),
                     std::strerror(errno));
        return 1;
    }
    if (out == stdout && std::fflush(stdout) != 0)
        return 1;
    return rc;
}
