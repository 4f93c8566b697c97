// ProcessReport: the figures of LTT's "Process analysis" panel, as labelled
// lines ready to show, taken from a finished TraceAnalysis: a process's
// characteristics and system call accounting, or the system-wide ones for
// the root ("The All Mighty (0)"). traceview shows these; keeping them here
// keeps every figure the GUI shows computed by libltt.
#pragma once

#include <cstdint>
#include <libltt/trace_analysis.hpp>
#include <string>
#include <vector>

namespace ltt {

struct ReportLine {
    std::string label; // "Time running"
    std::string value; // "0.004283 s => 0.04 %"
};

struct SyscallAccount {
    std::string name;
    std::uint64_t count = 0;
    std::uint64_t totalNs = 0;
    std::uint64_t errors = 0;
};

// "Number of system calls", "Time running", ... for one process instance;
// percentages are of the trace's duration.
std::vector<ReportLine> processCharacteristics(const TraceAnalysis& analysis,
                                               const Process& process);
// Events, lost events, CPU time split (user / kernel / IRQ / idle), processes.
std::vector<ReportLine> systemCharacteristics(const TraceAnalysis& analysis);
// Per system call: times called and total time inside, for one process or,
// with nullptr, summed over every process. Ordered by name.
std::vector<SyscallAccount> syscallAccounting(const TraceAnalysis& analysis,
                                              const Process* process);
// "1.234567 s" for a duration in ns.
std::string formatSeconds(std::uint64_t ns);

} // namespace ltt
