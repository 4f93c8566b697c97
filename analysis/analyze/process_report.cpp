// The report model: see process_report.hpp.
#include <cinttypes>
#include <cstdio>
#include <libltt/process_report.hpp>
#include <map>

namespace ltt {

ProcessFigures processFigures(const Availability& av, const ProcessStats& s) {
    auto count = [](const char* label, const char* key, bool ok, std::uint64_t v) {
        return FigureValue{label, key, false, false, ok, v};
    };
    auto time = [](const char* label, const char* key, bool ok, std::uint64_t v) {
        return FigureValue{label, key, true, true, ok, v};
    };
    auto peak = [](const char* label, const char* key, bool ok, std::uint64_t v) {
        return FigureValue{label, key, true, false, ok, v};
    };
    return {{
        count("Number of system calls", "syscalls", av.syscalls, s.syscalls),
        count("Number of traps", "traps", av.traps, s.traps),
        count("Quantity of data read from files", "bytes_read", av.fileIo, s.bytesRead),
        count("Quantity of data written to files", "bytes_written", av.fileIo, s.bytesWritten),
        // User time is what is left between system calls: without them it
        // cannot be told from kernel time.
        time("Time executing process code", "time_user_ns", av.syscalls, s.userNs),
        time("Time running", "time_running_ns", true, s.runningNs),
        time("Time in system calls", "time_syscall_ns", av.syscalls, s.syscallNs),
        time("Time in traps", "time_trap_ns", av.traps, s.trapNs),
        time("Time in interrupts", "time_irq_ns", av.irqs, s.irqNs),
        time("Time waiting for I/O", "time_io_wait_ns", av.sched, s.ioWaitNs),
        time("Time sleeping", "time_sleeping_ns", av.sched, s.sleepNs),
        time("Time preempted", "time_preempted_ns", av.sched, s.preemptedNs),
        time("Time waiting to run (sched delay)", "time_sched_delay_ns", av.sched, s.schedDelayNs),
        peak("Longest wait to run", "max_delay_ns", av.sched, s.maxDelayNs),
        peak("Longest time on a CPU", "max_slice_ns", av.sched, s.maxSliceNs),
        count("Times scheduled in", "sched_in", av.sched, s.schedIn),
        count("Times woken up", "wakeups", av.wakeups, s.wakeups),
    }};
}

std::string formatSeconds(std::uint64_t ns) {
    char b[48];
    std::snprintf(b, sizeof b, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
    return b;
}

std::string formatShare(std::uint64_t part, std::uint64_t whole) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f %%", whole ? 100.0 * double(part) / double(whole) : 0.0);
    return b;
}

std::string figureText(const FigureValue& f, std::uint64_t duration) {
    if (!f.available)
        return kMaskedOut;
    if (!f.time)
        return std::to_string(f.value);
    std::string s = formatSeconds(f.value) + " s";
    if (f.share)
        s += " => " + formatShare(f.value, duration);
    return s;
}

std::string syscallAccountingNote(const Availability& av) {
    if (!av.syscalls)
        return kMaskedOut;
    if (!av.syscallNames)
        return "system call details masked out at trace time: names unknown";
    return {};
}

std::uint64_t traceDuration(const TraceAnalysis& a) {
    return a.lastNs() > a.firstNs() ? a.lastNs() - a.firstNs() : 0;
}

std::vector<ReportLine> processCharacteristics(const TraceAnalysis& analysis, const Process& p) {
    const std::uint64_t span = traceDuration(analysis);
    const ProcessFigures f = processFigures(analysis.availability(), p.stats);
    std::vector<ReportLine> out;
    out.push_back({"PID", std::to_string(p.pid)});
    out.push_back({"Parent PID", std::to_string(p.ppid)});
    if (p.tgid && p.tgid != p.pid)
        out.push_back({"Thread group", std::to_string(p.tgid)});
    if (p.kthread)
        out.push_back({"Kernel thread", "yes"});
    for (ProcessFigure which : kCharacteristics)
        out.push_back({figure(f, which).label, figureText(figure(f, which), span)});
    const FigureValue& delay = figure(f, ProcessFigure::MaxDelayNs);
    out.push_back({delay.label, figureText(delay, span)});
    if (!p.fromSnapshot)
        out.push_back({"Started at", formatSeconds(p.startNs) + " s"});
    if (p.exited)
        out.push_back({"Exited at", formatSeconds(p.exitNs) + " s"});
    for (const auto& [name, n] : p.userEvents)
        out.push_back({"Application event " + name, std::to_string(n)});
    return out;
}

std::vector<ReportLine> systemCharacteristics(const TraceAnalysis& analysis) {
    const Availability& av = analysis.availability();
    const CpuStats t = analysis.total();
    const std::uint64_t cpuTime = t.userNs + t.kernelNs + t.irqNs + t.idleNs;
    auto cpu = [&](const char* label, bool ok, std::uint64_t v) {
        return ReportLine{label, ok ? formatSeconds(v) + " s => " + formatShare(v, cpuTime)
                                    : std::string(kMaskedOut)};
    };
    std::vector<ReportLine> out;
    out.push_back({"Events in trace", std::to_string(analysis.events())});
    out.push_back({"Lost events", std::to_string(analysis.lostEvents())});
    if (analysis.hasUserStreams()) {
        out.push_back({"Application events", std::to_string(analysis.userEvents())});
        out.push_back({"Lost application events", std::to_string(analysis.userLostEvents())});
    }
    out.push_back({"Trace duration", formatSeconds(traceDuration(analysis)) + " s"});
    out.push_back({"CPUs", std::to_string(analysis.reader().ncpus())});
    out.push_back({"Processes", std::to_string(analysis.processes().size())});
    out.push_back(cpu("CPU time in user mode", true, t.userNs));
    out.push_back(cpu("CPU time in the kernel", true, t.kernelNs));
    out.push_back(cpu("CPU time in interrupts", av.irqs, t.irqNs));
    out.push_back(cpu("CPU time idle", true, t.idleNs));
    // The processes' counts, summed, with their availability.
    ProcessStats sum;
    for (const auto& p : analysis.processes()) {
        sum.syscalls += p.stats.syscalls;
        sum.traps += p.stats.traps;
        sum.bytesRead += p.stats.bytesRead;
        sum.bytesWritten += p.stats.bytesWritten;
    }
    const ProcessFigures f = processFigures(av, sum);
    for (ProcessFigure which : {ProcessFigure::Syscalls, ProcessFigure::Traps,
                                ProcessFigure::BytesRead, ProcessFigure::BytesWritten})
        out.push_back({figure(f, which).label, figureText(figure(f, which), 0)});
    const auto missing = av.missing();
    if (!missing.empty()) {
        std::string list;
        for (const auto& m : missing)
            list += (list.empty() ? "" : ", ") + m;
        out.push_back({"Masked out at trace time", list});
    }
    return out;
}

std::vector<SyscallAccount> syscallAccounting(const TraceAnalysis& analysis,
                                              const Process* process) {
    if (!analysis.availability().syscalls)
        return {};
    std::map<std::string, SyscallAccount> byName;
    auto addTable = [&](const Process& p) {
        for (const SyscallStats& s : p.stats.syscallTable) {
            std::string name = TraceAnalysis::syscallSlotName(s.slot);
            auto& a = byName[name];
            a.name = name;
            a.count += s.count;
            a.totalNs += s.totalNs;
            a.errors += s.errors;
        }
    };
    if (process) {
        addTable(*process);
    } else {
        for (const auto& p : analysis.processes())
            addTable(p);
    }
    std::vector<SyscallAccount> out;
    out.reserve(byName.size());
    for (auto& [name, a] : byName)
        out.push_back(std::move(a));
    return out;
}

} // namespace ltt
