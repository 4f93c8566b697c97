// The two renderings of the report model (process_report.hpp) that
// traceanalyze writes: LTT's text report and the JSON document of
// docs/json.md. They live in libltt next to the model so that every front
// end shows the same figures, labels, precision and "masked out at trace
// time" as the others.
#pragma once

#include <bitset>
#include <cstdint>
#include <cstdio>
#include <libltt/trace_analysis.hpp>
#include <ltt/module_events.h>

namespace ltt {

struct CallSiteReport; // libltt/callsite_report.hpp
class LatencyAnalysis; // libltt/latency.hpp
class CriticalPath;    // libltt/critical_path.hpp
struct OffCpuReport;   // libltt/offcpu_report.hpp

struct ReportOptions {
    bool summarize = false; // trace header, event counts, system summary
    bool analyze = false;   // process tree, process analysis, wait times
    std::int64_t pid = -1;  // only this process (-1: all)
    int cpu = -1;           // only this CPU in the system summary (-1: all)
    // Event types shown in the counts (bit LTT_EV_COUNT: ids this version
    // does not know).
    std::bitset<LTT_EV_COUNT + 1> types = std::bitset<LTT_EV_COUNT + 1>().set();
    // The "callsites" section of the JSON document, when given
    // (traceanalyze --callsites).
    const CallSiteReport* callsites = nullptr;
    // JSON only: also the "events" array, every event of `types` (and
    // `pid`, `cpu`) with its description and decoded call (traceanalyze
    // --json -d).
    bool events = false;
    // JSON only: the "latency" and "critical_path" sections, when given
    // (traceanalyze --latency, --critical-path).
    const LatencyAnalysis* latency = nullptr;
    const CriticalPath* criticalPath = nullptr;
    // JSON only: the "offcpu" section, when given (traceanalyze --offcpu).
    const OffCpuReport* offcpu = nullptr;
};

// The text report of a finished analysis: the lost-events banner, then the
// sections `options` asks for. Names from the trace are escaped.
void writeTextReport(std::FILE* out, const TraceAnalysis& analysis, const ReportOptions& options);
// The analysis as one JSON document (docs/json.md); `summarize` and
// `analyze` are not used: the document always holds everything.
void writeJsonReport(std::FILE* out, const TraceAnalysis& analysis, const ReportOptions& options);

} // namespace ltt
