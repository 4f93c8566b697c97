// analysisDifference: the first figure two finished TraceAnalysis objects
// disagree on, or "" when they agree on every figure they report (processes
// and their statistics, the unattributed entry, CPUs, event counts, lost
// events). Used to
// hold TraceAnalysis::run()'s walk, which feeds each CPU's events in runs,
// to what feeding the merged sequence with add() gives.
#pragma once

#include <libltt/trace_analysis.hpp>
#include <string>

namespace ltt::test {

inline std::string analysisDifference(const TraceAnalysis& a, const TraceAnalysis& b) {
    auto num = [](const char* what, std::uint64_t x, std::uint64_t y) {
        return x == y ? std::string()
                      : std::string(what) + ": " + std::to_string(x) + " vs " + std::to_string(y);
    };
    std::string d;
#define LTT_SAME(what, x, y)                                                                       \
    if (!(d = num(what, x, y)).empty())                                                            \
        return d;
    LTT_SAME("events", a.events(), b.events());
    LTT_SAME("lost events", a.lostEvents(), b.lostEvents());
    LTT_SAME("first ns", a.firstNs(), b.firstNs());
    LTT_SAME("last ns", a.lastNs(), b.lastNs());
    for (std::size_t i = 0; i < a.eventCounts().size(); ++i)
        LTT_SAME(("count of event " + std::to_string(i)).c_str(), a.eventCounts()[i],
                 b.eventCounts()[i]);
    LTT_SAME("CPUs", a.cpus().size(), b.cpus().size());
    for (std::size_t i = 0; i < a.cpus().size(); ++i) {
        const CpuStats &x = a.cpus()[i], &y = b.cpus()[i];
        const std::string c = "CPU " + std::to_string(i) + " ";
        LTT_SAME((c + "user").c_str(), x.userNs, y.userNs);
        LTT_SAME((c + "kernel").c_str(), x.kernelNs, y.kernelNs);
        LTT_SAME((c + "irq").c_str(), x.irqNs, y.irqNs);
        LTT_SAME((c + "idle").c_str(), x.idleNs, y.idleNs);
        LTT_SAME((c + "events").c_str(), x.events, y.events);
        LTT_SAME((c + "lost").c_str(), x.lost, y.lost);
        LTT_SAME((c + "first").c_str(), x.firstNs, y.firstNs);
        LTT_SAME((c + "last").c_str(), x.lastNs, y.lastNs);
        LTT_SAME((c + "seen").c_str(), x.seen, y.seen);
    }
    LTT_SAME("processes", a.processes().size(), b.processes().size());
    for (unsigned w = 0; w < static_cast<unsigned>(Unattributed::Count); ++w)
        LTT_SAME(("unattributed events, reason " + std::to_string(w)).c_str(),
                 a.unattributedEvents(static_cast<Unattributed>(w)),
                 b.unattributedEvents(static_cast<Unattributed>(w)));
    for (std::size_t i = 0; i <= a.processes().size(); ++i) {
        // The last one: the unattributed entry.
        const bool u = i == a.processes().size();
        const Process &x = u ? a.unattributed() : a.processes()[i],
                      &y = u ? b.unattributed() : b.processes()[i];
        const std::string p = "process #" + std::to_string(i) + " (" + std::to_string(x.pid) + ") ";
        if (x.name != y.name)
            return p + "name: " + x.name + " vs " + y.name;
        if (x.children != y.children)
            return p + "children differ";
        LTT_SAME((p + "pid").c_str(), x.pid, y.pid);
        LTT_SAME((p + "ppid").c_str(), x.ppid, y.ppid);
        LTT_SAME((p + "tgid").c_str(), x.tgid, y.tgid);
        LTT_SAME((p + "kthread").c_str(), x.kthread, y.kthread);
        LTT_SAME((p + "from snapshot").c_str(), x.fromSnapshot, y.fromSnapshot);
        LTT_SAME((p + "exited").c_str(), x.exited, y.exited);
        LTT_SAME((p + "start").c_str(), x.startNs, y.startNs);
        LTT_SAME((p + "exit").c_str(), x.exitNs, y.exitNs);
        const ProcessStats &s = x.stats, &t = y.stats;
        LTT_SAME((p + "syscalls").c_str(), s.syscalls, t.syscalls);
        LTT_SAME((p + "traps").c_str(), s.traps, t.traps);
        LTT_SAME((p + "bytes read").c_str(), s.bytesRead, t.bytesRead);
        LTT_SAME((p + "bytes written").c_str(), s.bytesWritten, t.bytesWritten);
        LTT_SAME((p + "user").c_str(), s.userNs, t.userNs);
        LTT_SAME((p + "running").c_str(), s.runningNs, t.runningNs);
        LTT_SAME((p + "syscall time").c_str(), s.syscallNs, t.syscallNs);
        LTT_SAME((p + "trap time").c_str(), s.trapNs, t.trapNs);
        LTT_SAME((p + "irq time").c_str(), s.irqNs, t.irqNs);
        LTT_SAME((p + "io wait").c_str(), s.ioWaitNs, t.ioWaitNs);
        LTT_SAME((p + "sleep").c_str(), s.sleepNs, t.sleepNs);
        LTT_SAME((p + "preempted").c_str(), s.preemptedNs, t.preemptedNs);
        LTT_SAME((p + "sched delay").c_str(), s.schedDelayNs, t.schedDelayNs);
        LTT_SAME((p + "max delay").c_str(), s.maxDelayNs, t.maxDelayNs);
        LTT_SAME((p + "max slice").c_str(), s.maxSliceNs, t.maxSliceNs);
        LTT_SAME((p + "sched in").c_str(), s.schedIn, t.schedIn);
        LTT_SAME((p + "wakeups").c_str(), s.wakeups, t.wakeups);
        LTT_SAME((p + "syscall table").c_str(), s.syscallTable.size(), t.syscallTable.size());
        for (auto i = s.syscallTable.begin(), j = t.syscallTable.begin(); i != s.syscallTable.end();
             ++i, ++j) {
            const SyscallStats &u = *i, &v = *j;
            const std::string q = p + "syscall " + std::to_string(u.slot) + " ";
            LTT_SAME((q + "slot").c_str(), u.slot, v.slot);
            LTT_SAME((q + "count").c_str(), u.count, v.count);
            LTT_SAME((q + "timed").c_str(), u.timed, v.timed);
            LTT_SAME((q + "total").c_str(), u.totalNs, v.totalNs);
            LTT_SAME((q + "min").c_str(), u.minNs, v.minNs);
            LTT_SAME((q + "max").c_str(), u.maxNs, v.maxNs);
            LTT_SAME((q + "errors").c_str(), u.errors, v.errors);
        }
    }
#undef LTT_SAME
    return "";
}

// Where TraceAnalysis::run() differs from add() fed by a plain loop over the
// merged events ("" when nowhere): every figure, and where the walk stopped.
inline std::string runMatchesMergedOrder(const TraceReader& reader, const ProcSnapshot* snap) {
    TraceAnalysis fast(reader, snap), merged(reader, snap);
    fast.run();
    auto c = reader.begin();
    for (; c.valid(); c.next())
        merged.add(c.event());
    merged.finish();
    std::string d = analysisDifference(fast, merged);
    const std::string ea = fast.error() ? fast.error()->str() : "";
    const std::string ec = c.error() ? c.error()->str() : "";
    if (d.empty() && ea != ec)
        d = "error: '" + ea + "' vs the merged walk's '" + ec + "'";
    return d;
}

} // namespace ltt::test
