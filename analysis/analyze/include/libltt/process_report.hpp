// ProcessReport: the one model of LTT's process and system report, computed
// here once from a finished TraceAnalysis and rendered by every front end:
// traceanalyze's text and JSON reports (report_render.hpp) and traceview's
// "Process analysis" panel (the labelled lines below). Each figure carries
// its label, its JSON key and whether its events were recorded: a figure
// whose events were masked out at trace time says so ("masked out at trace
// time", JSON null), never zero. Times are seconds with nine decimals, shares
// are percentages with two.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <libltt/trace_analysis.hpp>
#include <string>
#include <vector>

namespace ltt {

// The figures of one process, by index into ProcessFigures.
enum class ProcessFigure : std::uint8_t {
    Syscalls,
    Traps,
    BytesRead,
    BytesWritten,
    UserNs,
    RunningNs,
    SyscallNs,
    TrapNs,
    IrqNs,
    IoWaitNs,
    SleepNs,
    PreemptedNs,
    SchedDelayNs,
    MaxDelayNs,
    MaxSliceNs,
    SchedIn,
    Wakeups,
};
inline constexpr std::size_t kProcessFigureCount = 17;

struct FigureValue {
    const char* label = "";  // "Time running" (text report, GUI)
    const char* key = "";    // "time_running_ns" (JSON)
    bool time = false;       // nanoseconds, shown as seconds
    bool share = false;      // shown with its share of the trace's duration
    bool available = true;   // false: its events were masked out at trace time
    std::uint64_t value = 0; // meaningless when not available
};
using ProcessFigures = std::array<FigureValue, kProcessFigureCount>;

// Every figure of one process's statistics, in ProcessFigure order.
ProcessFigures processFigures(const Availability& availability, const ProcessStats& stats);
inline const FigureValue& figure(const ProcessFigures& f, ProcessFigure which) {
    return f[static_cast<std::size_t>(which)];
}

// "Process characteristics": the figures the text report and traceview list,
// in their order. The JSON report has every figure, in its own order.
inline constexpr ProcessFigure kCharacteristics[] = {
    ProcessFigure::Syscalls,     ProcessFigure::Traps,   ProcessFigure::BytesRead,
    ProcessFigure::BytesWritten, ProcessFigure::UserNs,  ProcessFigure::RunningNs,
    ProcessFigure::SyscallNs,    ProcessFigure::TrapNs,  ProcessFigure::IrqNs,
    ProcessFigure::IoWaitNs,     ProcessFigure::SleepNs, ProcessFigure::PreemptedNs,
    ProcessFigure::SchedDelayNs, ProcessFigure::SchedIn,
};

inline constexpr const char* kMaskedOut = "masked out at trace time";

// "S.NNNNNNNNN" seconds for a time in ns.
std::string formatSeconds(std::uint64_t ns);
// "12.34 %" (0.00 % when whole is 0).
std::string formatShare(std::uint64_t part, std::uint64_t whole);
// A figure's value as the text report and traceview show it: "42",
// "0.004283000 s => 0.04 %" (share of `duration`), "0.000120000 s", or
// kMaskedOut.
std::string figureText(const FigureValue& figure, std::uint64_t duration);
// Why a process's system call accounting is missing or nameless, as both
// reports say it; empty when it is complete.
std::string syscallAccountingNote(const Availability& availability);
// The trace's duration: last event time minus first.
std::uint64_t traceDuration(const TraceAnalysis& analysis);

// traceview's lines: the figures above as label and text.
struct ReportLine {
    std::string label; // "Time running"
    std::string value; // "0.004283000 s => 0.04 %"
};

struct SyscallAccount {
    std::string name;
    std::uint64_t count = 0;
    std::uint64_t totalNs = 0;
    std::uint64_t errors = 0;
};

// Identity (PID, parent, thread group, kernel thread), kCharacteristics,
// the longest wait to run, and the start and exit times.
std::vector<ReportLine> processCharacteristics(const TraceAnalysis& analysis,
                                               const Process& process);
// Events, lost events, duration, CPU time split (user / kernel / IRQ / idle,
// shares of the CPUs' traced time), the processes' figures summed, and what
// was masked out at trace time.
std::vector<ReportLine> systemCharacteristics(const TraceAnalysis& analysis);
// Per system call: times called and total time inside, for one process or,
// with nullptr, summed over every process. Ordered by name. Empty when
// system calls were masked out (see syscallAccountingNote()).
std::vector<SyscallAccount> syscallAccounting(const TraceAnalysis& analysis,
                                              const Process* process);

} // namespace ltt
