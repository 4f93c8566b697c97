// The self test's fixture trace with VARS records, written by test code
// (libltt's BlockBuilder and TraceWriter), and the check of the counter
// series traceview shows against the records themselves.
#pragma once

#include "trace_document.hpp"

#include <cstddef>
#include <string>

namespace traceview {

// Writes the trace to `path` (throws on failure). One tick is one
// nanosecond and the anchor is tick 1000, so a record at tick T is at
// T - 1000 ns. CPU 0 (pid 100) opens /etc/passwd (= 3) and a missing file
// (= -1 ENOENT); CPU 1 (pid 200) calls getpid twice. Free memory falls by
// 1000 pages at each VARS record, the load rises; page faults are counted
// per CPU (CPU 0 from 1000, CPU 1 from 500).
void writeVarsTrace(const std::string& path);

// The document's series at every VARS record's time against what
// decodeVars() gives for the records (system-wide values: the latest of any
// CPU; counters: the sum of each CPU's increase since its first record).
// Returns the first difference (empty when none); `compared` counts the
// values compared.
std::string compareVarSeries(const std::string& path, const TraceDocument& doc,
                             std::size_t& compared);

} // namespace traceview
