// Process analysis figures for the viewer: see process_report.hpp.
#include <cinttypes>
#include <cstdio>
#include <libltt/process_report.hpp>
#include <map>

namespace ltt {

std::string formatSeconds(std::uint64_t ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64 " s", ns / 1000000000,
                  (ns % 1000000000) / 1000);
    return buf;
}

namespace {

std::string timeAndShare(std::uint64_t ns, std::uint64_t total) {
    char pct[32];
    std::snprintf(pct, sizeof pct, " => %.2f %%", total ? 100.0 * double(ns) / double(total) : 0.0);
    return formatSeconds(ns) + pct;
}

} // namespace

std::vector<ReportLine> processCharacteristics(const TraceAnalysis& analysis, const Process& p) {
    const std::uint64_t span =
        analysis.lastNs() > analysis.firstNs() ? analysis.lastNs() - analysis.firstNs() : 0;
    const ProcessStats& s = p.stats;
    const Availability& a = analysis.availability();
    auto masked = [](bool available, std::string value) {
        return available ? value : std::string("not traced (event masked out)");
    };
    std::vector<ReportLine> out;
    out.push_back({"PID", std::to_string(p.pid)});
    out.push_back({"Parent PID", std::to_string(p.ppid)});
    if (p.tgid && p.tgid != p.pid)
        out.push_back({"Thread group", std::to_string(p.tgid)});
    if (p.kthread)
        out.push_back({"Kernel thread", "yes"});
    out.push_back({"Number of system calls", masked(a.syscalls, std::to_string(s.syscalls))});
    out.push_back({"Number of traps", masked(a.traps, std::to_string(s.traps))});
    out.push_back(
        {"Quantity of data read from files", masked(a.fileIo, std::to_string(s.bytesRead))});
    out.push_back(
        {"Quantity of data written to files", masked(a.fileIo, std::to_string(s.bytesWritten))});
    out.push_back({"Time executing process code", timeAndShare(s.userNs, span)});
    out.push_back({"Time running", timeAndShare(s.runningNs, span)});
    out.push_back({"Time in system calls", timeAndShare(s.syscallNs, span)});
    out.push_back({"Time in traps", timeAndShare(s.trapNs, span)});
    out.push_back({"Time in interrupts", timeAndShare(s.irqNs, span)});
    out.push_back({"Time waiting for I/O", timeAndShare(s.ioWaitNs, span)});
    out.push_back({"Time sleeping", timeAndShare(s.sleepNs, span)});
    out.push_back({"Time preempted", timeAndShare(s.preemptedNs, span)});
    out.push_back({"Scheduling delay", timeAndShare(s.schedDelayNs, span)});
    out.push_back({"Longest wait to run", formatSeconds(s.maxDelayNs)});
    out.push_back({"Times scheduled in", std::to_string(s.schedIn)});
    if (!p.fromSnapshot)
        out.push_back({"Started at", formatSeconds(p.startNs)});
    if (p.exited)
        out.push_back({"Exited at", formatSeconds(p.exitNs)});
    return out;
}

std::vector<ReportLine> systemCharacteristics(const TraceAnalysis& analysis) {
    const CpuStats t = analysis.total();
    const std::uint64_t span =
        analysis.lastNs() > analysis.firstNs() ? analysis.lastNs() - analysis.firstNs() : 0;
    const std::uint64_t cpuTime = t.userNs + t.kernelNs + t.irqNs + t.idleNs;
    std::vector<ReportLine> out;
    out.push_back({"Events in trace", std::to_string(analysis.events())});
    out.push_back({"Lost events", std::to_string(analysis.lostEvents())});
    out.push_back({"Trace duration", formatSeconds(span)});
    out.push_back({"CPUs", std::to_string(analysis.reader().ncpus())});
    out.push_back({"Processes", std::to_string(analysis.processes().size())});
    out.push_back({"CPU time in user mode", timeAndShare(t.userNs, cpuTime)});
    out.push_back({"CPU time in the kernel", timeAndShare(t.kernelNs, cpuTime)});
    out.push_back({"CPU time in interrupts", timeAndShare(t.irqNs, cpuTime)});
    out.push_back({"CPU time idle", timeAndShare(t.idleNs, cpuTime)});
    std::uint64_t syscalls = 0, traps = 0, rd = 0, wr = 0;
    for (const auto& p : analysis.processes()) {
        syscalls += p.stats.syscalls;
        traps += p.stats.traps;
        rd += p.stats.bytesRead;
        wr += p.stats.bytesWritten;
    }
    out.push_back({"Number of system calls", std::to_string(syscalls)});
    out.push_back({"Number of traps", std::to_string(traps)});
    out.push_back({"Quantity of data read from files", std::to_string(rd)});
    out.push_back({"Quantity of data written to files", std::to_string(wr)});
    for (const auto& m : analysis.availability().missing())
        out.push_back({"Not traced", m});
    return out;
}

std::vector<SyscallAccount> syscallAccounting(const TraceAnalysis& analysis,
                                              const Process* process) {
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
