// The Latency tab's model: see latency_model.hpp.
#include "latency_model.hpp"

#include "trace_document.hpp"

#include <cinttypes>
#include <cstdio>
#include <libltt/trace_analysis.hpp>
#include <ltt/events.h>

namespace traceview {

namespace {

std::string us(std::uint64_t ns) {
    char b[40];
    std::snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    return b;
}

const char* softIrqName(std::uint32_t v) {
    static const char* const kNames[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                         "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
    return v < std::size(kNames) ? kNames[v] : "unknown";
}

} // namespace

const std::array<LatencyKindChoice, ltt::kLatencyKinds>& latencyKinds() {
    using K = ltt::LatencyKind;
    static const std::array<LatencyKindChoice, ltt::kLatencyKinds> kKinds = {{
        {K::Wakeup, "Scheduling latency: wakeup to running"},
        {K::Preemption, "Scheduling latency: preempted to running"},
        {K::Syscall, "System-call latency: entry to exit"},
        {K::Irq, "IRQ handler duration: entry to exit"},
        {K::SoftIrq, "Soft-IRQ handler duration: entry to exit"},
        {K::IoWait, "I/O wait: blocked for I/O to wakeup"},
    }};
    return kKinds;
}

std::string latencyFigures(const ltt::LatencyAnalysis& a, ltt::LatencyKind k) {
    if (!a.available(k))
        return "not recorded (its events were masked out at trace time)";
    const ltt::LatencyDistribution& d = a.all(k);
    std::string dropped;
    if (a.dropped(k))
        dropped = "; " + std::to_string(a.dropped(k)) + " dropped (a lost-events gap fell inside)";
    if (d.count() == 0)
        return "none" + dropped;
    return "count " + std::to_string(d.count()) + "  min " + us(d.minNs()) + "  p50 " +
           us(d.p50()) + "  p90 " + us(d.p90()) + "  p99 " + us(d.p99()) + "  max " +
           us(d.maxNs()) + "  (us)" + dropped;
}

std::vector<LatencyBar> latencyBars(const ltt::LatencyDistribution& d) {
    const auto& b = d.buckets();
    std::size_t last = 0;
    bool any = false;
    for (std::size_t i = 0; i < b.size(); ++i)
        if (b[i]) {
            last = i;
            any = true;
        }
    std::vector<LatencyBar> out;
    if (!any)
        return out;
    for (std::size_t i = 0; i <= last; ++i)
        out.push_back({i == 0 ? 0 : 1ull << i, (2ull << i) - 1, b[i]});
    return out;
}

std::vector<LatencyWorstRow> latencyWorst(const ltt::LatencyAnalysis& a, ltt::LatencyKind k) {
    std::vector<LatencyWorstRow> out;
    if (!a.available(k))
        return out;
    for (const ltt::LatencyInstance& w : a.all(k).worst()) {
        LatencyWorstRow r;
        r.startNs = w.startNs;
        r.endNs = w.startNs + w.ns;
        r.cpu = w.cpu;
        r.pid = w.pid;
        r.duration = us(w.ns) + " us";
        switch (k) {
        case ltt::LatencyKind::Syscall:
            r.what = ltt::TraceAnalysis::syscallSlotName(w.what);
            break;
        case ltt::LatencyKind::Irq:
            r.what = (w.what & ltt::LatencyAnalysis::kIrqVectorBit)
                         ? "vector " + std::to_string(w.what & ~ltt::LatencyAnalysis::kIrqVectorBit)
                         : "irq " + std::to_string(w.what);
            break;
        case ltt::LatencyKind::SoftIrq:
            r.what = std::to_string(w.what) + " " + softIrqName(w.what);
            break;
        default:
            break;
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::optional<std::uint64_t> latencyEndEvent(const TraceDocument& doc, ltt::LatencyKind k,
                                             const LatencyWorstRow& row) {
    const std::optional<std::uint64_t> first = doc.eventOnCpuAt(row.cpu, row.endNs);
    if (!first)
        return first;
    auto ends = [k](const EventLine& e) {
        switch (k) {
        case ltt::LatencyKind::Syscall:
            return e.id == LTT_EV_SYSCALL_EXIT;
        case ltt::LatencyKind::Irq:
            return e.id == LTT_EV_IRQ_EXIT;
        case ltt::LatencyKind::SoftIrq:
            return e.id == LTT_EV_SOFT_IRQ;
        case ltt::LatencyKind::IoWait:
            return e.id == LTT_EV_SCHEDCHANGE || e.id == LTT_EV_PROCESS;
        default:
            return e.id == LTT_EV_SCHEDCHANGE;
        }
    };
    for (std::uint64_t i = *first; i < doc.eventCount() && i < *first + 4096; ++i) {
        const EventLine e = doc.event(i);
        if (e.timeNs != row.endNs)
            break;
        if (!e.user && e.cpu == row.cpu && ends(e))
            return i;
    }
    return first;
}

void criticalColour(ltt::CriticalKind k, double& r, double& g, double& b) {
    using K = ltt::CriticalKind;
    switch (k) {
    case K::Running:
        r = 0.10, g = 0.65, b = 0.20;
        return;
    case K::Runnable:
        r = 0.95, g = 0.60, b = 0.05;
        return;
    case K::Timer:
        r = 0.20, g = 0.45, b = 0.95;
        return;
    case K::Interrupt:
    case K::SoftIrq:
        r = 0.85, g = 0.15, b = 0.15;
        return;
    case K::Io:
        r = 0.55, g = 0.25, b = 0.70;
        return;
    case K::Network:
        r = 0.05, g = 0.65, b = 0.70;
        return;
    case K::Blocked:
    case K::Unknown:
        break;
    }
    r = 0.55, g = 0.55, b = 0.55;
}

} // namespace traceview
