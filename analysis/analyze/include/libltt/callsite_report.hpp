// The call-site report's data: per process, where its system calls were
// made from, with counts and times. symbols/ (callsites.hpp) fills it by
// resolving each call's address; the JSON report (report_render.hpp) and
// traceview show it, without the symbolizer and its libdw.
#pragma once

#include <cstdint>
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

} // namespace ltt
