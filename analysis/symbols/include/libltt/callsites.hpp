// Call sites: where in each process the system calls were made from.
//
// Every SYSCALL_ENTRY records the user address the call was made from
// (paper §3.1). CallSiteAnalysis walks the trace, keeps each process's
// executable mappings (the .proc snapshot's MAP lines, then the trace's
// MAP records; an exec empties them, a fork copies them), resolves each
// call's address with a Symbolizer to binary!function+offset, and counts
// per process, system call and site the calls and their time from entry
// to exit (docs/analysis.md, "Call sites").
#pragma once

#include <cstdint>
#include <cstdio>
#include <libltt/callsite_report.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/symbolize.hpp>
#include <libltt/trace_reader.hpp>

namespace ltt {

// Walks `reader` (with `snapshot`, may be null) and reports the call sites
// of every process, or of process `pid` (its thread group id) when >= 0.
CallSiteReport analyzeCallSites(const TraceReader& reader, const ProcSnapshot* snapshot,
                                Symbolizer& symbolizer, std::int64_t pid = -1);

// The text report: per process, its call sites sorted by time (names
// escaped), and what was missing for them.
void writeCallSitesText(std::FILE* out, const CallSiteReport& report);

} // namespace ltt
