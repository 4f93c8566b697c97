// The renderings of the latency distributions and of a critical path
// (libltt's LatencyAnalysis and CriticalPath) that traceanalyze writes:
// text, and their members of the JSON document (docs/json.md).
#pragma once

#include <cstdio>
#include <libltt/critical_path.hpp>
#include <libltt/latency.hpp>

namespace ltt {

// traceanalyze --latency's text: per kind, the figures, runqlat's
// histogram and the worst instances, system-wide then per process.
void writeLatencyText(std::FILE* out, const LatencyAnalysis& latency);
// The "latency" member of the JSON document (docs/json.md), written as
// `,\n  "latency": {...}`.
void writeLatencyJson(std::FILE* out, const LatencyAnalysis& latency);

// traceanalyze --critical-path's text: the segments, then the time per
// resource.
void writeCriticalPathText(std::FILE* out, const CriticalPath& path);
// The "critical_path" member of the JSON document (docs/json.md), written
// as `,\n  "critical_path": {...}`.
void writeCriticalPathJson(std::FILE* out, const CriticalPath& path);

} // namespace ltt
