// Off-CPU stacks: where the traced tasks blocked, and for how long.
//
// A trace taken with STACK records (tracedaemon -S, module_events.h) holds,
// before each SCHEDCHANGE that switches a task out blocked, that task's
// kernel stack and (best effort) its user stack. OffCpuAnalysis walks the
// trace once and adds each blocked interval, from the switch-out to the
// task's next switch-in, to the stack it blocked in; the stacks are
// symbolized with a Symbolizer (the trace's NAME.kallsyms for kernel
// frames, the processes' executable mappings and their ELF files for user
// frames) and written as folded stacks, the text format FlameGraph's
// flamegraph.pl, speedscope and inferno read (docs/analysis.md, "Off-CPU
// stacks").
#pragma once

#include <cstdint>
#include <cstdio>
#include <libltt/proc_file.hpp>
#include <libltt/symbolize.hpp>
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

// One folded stack: its frames, root first (the task's name, then its user
// frames outermost first, then its kernel frames down to the scheduler),
// and the blocked time spent in it.
struct OffCpuStack {
    std::vector<std::string> frames;
    std::uint64_t ns = 0;        // blocked time, summed over its intervals
    std::uint64_t intervals = 0; // blocked intervals that ended in it
};

struct OffCpuReport {
    std::vector<OffCpuStack> stacks; // by frames, in lexicographic order
    std::uint64_t intervals = 0;     // blocked intervals counted
    std::uint64_t blockedNs = 0;     // their time (within the interval asked)
    std::uint64_t withoutStack = 0;  // of them, no STACK record came before the switch
    std::uint64_t withoutStackNs = 0;
    std::uint64_t droppedLost = 0; // dropped: events were lost while they were open
    std::uint64_t openAtEnd = 0;   // never ended: the task was still off CPU when the trace ended
    std::uint64_t stackRecords = 0;
    std::uint64_t truncated = 0; // STACK records cut at the depth bound
    bool stacksRecorded = false; // the trace's mask selects STACK with its details
    bool kernelStacks = true;    // not a restricted trace (which has no kernel stacks)
    bool kallsyms = false;       // kernel frames were symbolized
    std::optional<TraceError> error;
};

OffCpuReport analyzeOffCpu(const TraceReader& reader, const ProcSnapshot* snapshot,
                           Symbolizer& symbolizer, const OffCpuOptions& options = {});

// Folded stacks: one line per stack, "frame;frame;...;frame N" with N the
// blocked time in microseconds (rounded to the nearest, stacks below half
// a microsecond left out). ';' in a name becomes ':', a newline '?'.
void writeFolded(std::FILE* out, const OffCpuReport& report);

// The text report: the totals and the stacks by blocked time.
void writeOffCpuText(std::FILE* out, const OffCpuReport& report);

} // namespace ltt
