// The off-CPU report's data: blocked time by the stack the tasks blocked
// in. symbols/ (offcpu.hpp) fills it, symbolizing the STACK records; the
// JSON report (report_render.hpp), traceview's flame graph and the Python
// package show it, without the symbolizer and its libdw.
#pragma once

#include <cstdint>
#include <libltt/trace_reader.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ltt {

struct OffCpuOptions {
    // Only this task or process (a thread id, or a thread group id that
    // selects its threads); -1: every task.
    std::int64_t pid = -1;
    // The interval counted, in ns since the trace's first event; a blocked
    // interval is clipped to it.
    std::uint64_t fromNs = 0;
    std::uint64_t toNs = ~0ull;
};

// A stack's blocked time in one process.
struct OffCpuShare {
    std::int32_t pid = 0; // thread group id
    std::uint64_t ns = 0;
    std::uint64_t intervals = 0;
};

// One folded stack: its frames, root first (the task's name, then its user
// frames outermost first, then its kernel frames down to the scheduler),
// and the blocked time spent in it.
struct OffCpuStack {
    std::vector<std::string> frames;
    std::uint64_t ns = 0;        // blocked time, summed over its intervals
    std::uint64_t intervals = 0; // blocked intervals that ended in it
    // How many of `frames` after the task's name are user frames; the
    // kernel frames follow them.
    std::uint32_t userFrames = 0, kernelFrames = 0;
    bool recorded = true;              // false: no STACK record came before the switch
    std::vector<OffCpuShare> shares{}; // per process, by pid
};

// A process's blocked time, over all its stacks.
struct OffCpuProcess {
    std::int32_t pid = 0; // thread group id
    std::string name;     // its leader's last name in the trace (else a thread's)
    std::uint64_t ns = 0;
    std::uint64_t intervals = 0;
    std::uint64_t withoutStack = 0;
    std::uint64_t withoutStackNs = 0;
};

struct OffCpuReport {
    std::vector<OffCpuStack> stacks;      // by frames, in lexicographic order
    std::vector<OffCpuProcess> processes; // those with a counted interval, by pid
    std::uint64_t intervals = 0;          // blocked intervals counted
    std::uint64_t blockedNs = 0;          // their time (within the interval asked)
    std::uint64_t withoutStack = 0;       // of them, no STACK record came before the switch
    std::uint64_t withoutStackNs = 0;
    std::uint64_t droppedLost = 0; // dropped: events were lost while they were open
    std::uint64_t openAtEnd = 0;   // never ended: the task was still off CPU when the trace ended
    std::uint64_t stackRecords = 0;
    std::uint64_t truncated = 0; // STACK records cut at the depth bound
    // The interval counted, in trace time (ns since the anchor, as the
    // events' times): the one asked, ended at the last event read.
    std::uint64_t fromNs = 0, toNs = 0;
    std::int64_t pid = -1;       // OffCpuOptions::pid
    bool stacksRecorded = false; // the trace's mask selects STACK with its details
    bool kernelStacks = true;    // not a restricted trace (which has no kernel stacks)
    bool kallsyms = false;       // kernel frames were symbolized
    std::optional<TraceError> error;
};

// A stack's weight in the folded format: microseconds, rounded to the
// nearest (0: the stack is left out of the folded lines).
inline std::uint64_t foldedMicros(std::uint64_t ns) {
    return (ns + 500) / 1000;
}

} // namespace ltt
