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
// stacks"). The report's data is in offcpu_report.hpp; its JSON rendering
// in report/ (offcpu_render.hpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <libltt/offcpu_report.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/symbolize.hpp>
#include <libltt/trace_reader.hpp>

namespace ltt {

OffCpuReport analyzeOffCpu(const TraceReader& reader, const ProcSnapshot* snapshot,
                           Symbolizer& symbolizer, const OffCpuOptions& options = {});

// Folded stacks: one line per stack, "frame;frame;...;frame N" with N the
// blocked time in microseconds (rounded to the nearest, stacks below half
// a microsecond left out). ';' in a name becomes ':', a newline '?'.
void writeFolded(std::FILE* out, const OffCpuReport& report);

// The text report: the totals and the stacks by blocked time.
void writeOffCpuText(std::FILE* out, const OffCpuReport& report);

} // namespace ltt
