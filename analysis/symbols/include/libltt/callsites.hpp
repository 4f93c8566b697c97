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
#include <libltt/proc_file.hpp>
#include <libltt/symbolize.hpp>
#include <libltt/trace_reader.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ltt {

struct CallSiteStats {
    std::uint32_t nr = 0;      // system call number
    std::string site;          // Symbolizer text: "prog!main+0x1f", "prog+0x1139", "0x7f..."
    std::uint64_t count = 0;   // entries
    std::uint64_t timed = 0;   // entries whose exit was seen (no gap between)
    std::uint64_t totalNs = 0; // entry to exit, summed over `timed`
};

struct ProcessCallSites {
    std::int32_t pid = 0; // thread group id
    std::string name;     // the last name the process had in the trace
    std::uint64_t calls = 0;
    std::uint64_t totalNs = 0;
    // Sorted by totalNs, then count (both descending), then system call
    // number and site.
    std::vector<CallSiteStats> sites;
};

struct CallSiteReport {
    std::vector<ProcessCallSites> processes; // by pid
    bool ipsRecorded = true;                 // SYSCALL_ENTRY with details in the trace
    bool mapsRecorded = true; // MAP selected: processes exec'd during the trace resolve
    std::uint64_t mapRecords = 0;
    std::uint64_t unresolved = 0;    // calls from an address no known mapping holds
    std::optional<TraceError> error; // the walk stopped on corruption here
};

// Walks `reader` (with `snapshot`, may be null) and reports the call sites
// of every process, or of process `pid` (its thread group id) when >= 0.
CallSiteReport analyzeCallSites(const TraceReader& reader, const ProcSnapshot* snapshot,
                                Symbolizer& symbolizer, std::int64_t pid = -1);

// The text report: per process, its call sites sorted by time (names
// escaped), and what was missing for them.
void writeCallSitesText(std::FILE* out, const CallSiteReport& report);

} // namespace ltt
