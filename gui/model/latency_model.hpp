// What the Latency tab shows, from libltt's LatencyAnalysis (the figures
// traceanalyze --latency prints) and CriticalPath: the kinds and their
// titles, a distribution's figures, its runqlat histogram as bars, its
// worst instances as rows with the place the event graph jumps to. No
// toolkit: the widgets (gui/widgets/latency_view.cpp) only lay these out.
#pragma once

#include <array>
#include <cstdint>
#include <libltt/critical_path.hpp>
#include <libltt/latency.hpp>
#include <optional>
#include <string>
#include <vector>

namespace traceview {

struct LatencyKindChoice {
    ltt::LatencyKind kind;
    const char* title; // as traceanalyze --latency heads the kind
};
// The six kinds, in traceanalyze --latency's order.
const std::array<LatencyKindChoice, ltt::kLatencyKinds>& latencyKinds();

// "count 44  min 0.104  p50 148.010  p90 693.781  p99 904.824  max 904.824  (us)"
// (traceanalyze --latency's line),
// or why there is nothing ("not recorded (...)", "none").
std::string latencyFigures(const ltt::LatencyAnalysis& a, ltt::LatencyKind k);

// One bar of the histogram: runqlat's log2 bucket [lowUs, highUs].
struct LatencyBar {
    std::uint64_t lowUs = 0, highUs = 0, count = 0;
};
// From the first bucket to the last non-empty one (runqlat's rows).
std::vector<LatencyBar> latencyBars(const ltt::LatencyDistribution& d);

// One of the worst instances: the interval [startNs, endNs] (ns since the
// trace start, the event graph's time), where it ended, and its text.
struct LatencyWorstRow {
    std::uint64_t startNs = 0, endNs = 0;
    std::uint16_t cpu = 0;
    std::int32_t pid = -1; // -1: an interrupt
    std::string duration;  // "904.824 us"
    std::string what;      // system call, IRQ line or soft-IRQ vector; else empty
};
std::vector<LatencyWorstRow> latencyWorst(const ltt::LatencyAnalysis& a, ltt::LatencyKind k);

class TraceDocument;
// The event that ended the instance: of the events of its CPU at its end
// time, the one of the kind's ending event (SCHEDCHANGE for the scheduling
// kinds, SYSCALL_EXIT, IRQ_EXIT, SOFT_IRQ; an I/O wait also ends at its
// wakeup, a PROCESS event), else the first; nullopt when the CPU has none.
std::optional<std::uint64_t> latencyEndEvent(const TraceDocument& doc, ltt::LatencyKind k,
                                             const LatencyWorstRow& row);

// The critical path's colour per kind of segment (the graph's bands and
// the legend under them).
void criticalColour(ltt::CriticalKind k, double& r, double& g, double& b);

} // namespace traceview
