// traceanalyze --latency's text and the "latency" member of the JSON
// document (docs/json.md), rendered from libltt's LatencyAnalysis.
#include <cinttypes>
#include <cstdio>
#include <libltt/event_names.hpp>
#include <libltt/latency.hpp>
#include <libltt/latency_render.hpp>
#include <libltt/text_escape.hpp>
#include <libltt/trace_analysis.hpp>
#include <string>

namespace ltt {

namespace {

using ull = unsigned long long;

const char* softIrqName(std::uint32_t v) {
    static const char* const kNames[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                         "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
    return v < std::size(kNames) ? kNames[v] : "unknown";
}

std::string irqName(std::uint32_t key) {
    char b[48];
    if (key & LatencyAnalysis::kIrqVectorBit)
        std::snprintf(b, sizeof b, "vector %u", key & ~LatencyAnalysis::kIrqVectorBit);
    else
        std::snprintf(b, sizeof b, "irq %u", key);
    return b;
}

// Microseconds with the nanoseconds: "12.345".
std::string us(std::uint64_t ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%llu.%03llu", ull(ns / 1000), ull(ns % 1000));
    return b;
}

std::string wall(const LatencyAnalysis& a, std::uint64_t ns) {
    const std::uint64_t t = a.reader().header().anchor_realtime_ns + ns;
    char b[40];
    std::snprintf(b, sizeof b, "%llu.%09llu", ull(t / 1000000000), ull(t % 1000000000));
    return b;
}

std::string whatName(LatencyKind k, std::uint32_t what) {
    switch (k) {
    case LatencyKind::Syscall:
        return TraceAnalysis::syscallSlotName(what);
    case LatencyKind::Irq:
        return irqName(what);
    case LatencyKind::SoftIrq:
        return softIrqName(what);
    default:
        return {};
    }
}

// runqlat's histogram (bcc's print_log2_hist): "low -> high : count |***|",
// the stars scaled to the fullest bucket, from the first bucket to the last
// non-empty one.
void histogramText(std::FILE* f, const LatencyDistribution& d) {
    const auto& b = d.buckets();
    int last = -1;
    std::uint64_t peak = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (b[i])
            last = static_cast<int>(i);
        peak = std::max(peak, b[i]);
    }
    if (last < 0)
        return;
    const bool wide = last > 31;
    const int width = wide ? 20 : 40;
    std::fprintf(f,
                 wide ? "               %-29s : count     distribution\n"
                      : "     %-19s : count     distribution\n",
                 "usecs");
    for (int i = 0; i <= last; ++i) {
        const std::uint64_t low = i == 0 ? 0 : 1ull << i;
        const std::uint64_t high = (2ull << i) - 1;
        const auto stars = static_cast<int>(
            std::min<std::uint64_t>(static_cast<std::uint64_t>(width), b[i] * width / peak));
        std::string bar(static_cast<std::size_t>(stars), '*');
        bar.resize(static_cast<std::size_t>(width), ' ');
        if (wide)
            std::fprintf(f, "%20llu -> %-20llu : %-8llu |%s|\n", ull(low), ull(high), ull(b[i]),
                         bar.c_str());
        else
            std::fprintf(f, "%10llu -> %-10llu : %-8llu |%s|\n", ull(low), ull(high), ull(b[i]),
                         bar.c_str());
    }
}

std::string taskLabel(const LatencyAnalysis& a, std::int32_t pid) {
    for (const TaskLatency* t : a.tasks())
        if (t->pid == pid)
            return std::to_string(pid) + " (" + escaped(t->name) + ")";
    return std::to_string(pid);
}

void figuresText(std::FILE* f, const LatencyDistribution& d) {
    std::fprintf(f, "  count %llu  min %s  p50 %s  p90 %s  p99 %s  max %s  (us)\n", ull(d.count()),
                 us(d.minNs()).c_str(), us(d.p50()).c_str(), us(d.p90()).c_str(),
                 us(d.p99()).c_str(), us(d.maxNs()).c_str());
}

void worstText(std::FILE* f, const LatencyAnalysis& a, LatencyKind k,
               const LatencyDistribution& d) {
    if (d.worst().empty())
        return;
    std::fprintf(f, "  worst:\n");
    for (const LatencyInstance& w : d.worst()) {
        std::fprintf(f, "    %12s us  from %s  CPU %u", us(w.ns).c_str(),
                     wall(a, w.startNs).c_str(), w.cpu);
        if (w.pid >= 0)
            std::fprintf(f, "  PID %s", taskLabel(a, w.pid).c_str());
        const std::string what = whatName(k, w.what);
        if (!what.empty())
            std::fprintf(f, "  %s", what.c_str());
        std::fputc('\n', f);
    }
}

void distText(std::FILE* f, const LatencyAnalysis& a, LatencyKind k, const char* title,
              const LatencyDistribution& d) {
    std::fprintf(f, "\n%s\n", title);
    if (!a.available(k)) {
        std::fprintf(f, "  not recorded (its events were masked out at trace time)\n");
        return;
    }
    if (a.dropped(k))
        std::fprintf(f, "  %llu instances dropped: a lost-events gap fell inside them\n",
                     ull(a.dropped(k)));
    if (d.count() == 0) {
        std::fprintf(f, "  none\n");
        return;
    }
    figuresText(f, d);
    histogramText(f, d);
    worstText(f, a, k, d);
}

void rowText(std::FILE* f, const std::string& label, const LatencyDistribution& d) {
    if (d.count() == 0)
        return;
    std::fprintf(f, "  %-28s %9llu %12s %12s %12s %12s %12s\n", label.c_str(), ull(d.count()),
                 us(d.minNs()).c_str(), us(d.p50()).c_str(), us(d.p90()).c_str(),
                 us(d.p99()).c_str(), us(d.maxNs()).c_str());
}

void rowHeader(std::FILE* f, const char* title) {
    std::fprintf(f, "\n%s (us)\n  %-28s %9s %12s %12s %12s %12s %12s\n", title, "", "count", "min",
                 "p50", "p90", "p99", "max");
}

} // namespace

void writeLatencyText(std::FILE* f, const LatencyAnalysis& a) {
    std::string sel = "every task";
    if (!a.options().pids.empty()) {
        sel = "PID";
        for (std::int32_t p : a.options().pids)
            sel += " " + std::to_string(p);
    }
    std::fprintf(f, "Latency distributions (%s; interrupts system-wide)\n", sel.c_str());
    if (a.lostEvents())
        std::fprintf(f,
                     "%llu events were lost: instances that a gap fell inside are dropped, "
                     "and counted\n",
                     ull(a.lostEvents()));
    distText(f, a, LatencyKind::Wakeup, "Scheduling latency: wakeup to running",
             a.all(LatencyKind::Wakeup));
    distText(f, a, LatencyKind::Preemption, "Scheduling latency: preempted to running",
             a.all(LatencyKind::Preemption));
    distText(f, a, LatencyKind::Syscall, "System-call latency: entry to exit",
             a.all(LatencyKind::Syscall));
    if (a.available(LatencyKind::Syscall) && !a.syscalls().empty()) {
        rowHeader(f, "System-call latency per call");
        for (const auto& [slot, d] : a.syscalls())
            rowText(f, TraceAnalysis::syscallSlotName(slot), d);
    }
    distText(f, a, LatencyKind::Irq, "IRQ handler duration: entry to exit",
             a.all(LatencyKind::Irq));
    if (a.available(LatencyKind::Irq) && !a.irqs().empty()) {
        rowHeader(f, "IRQ handler duration per line");
        for (const auto& [key, d] : a.irqs())
            rowText(f, irqName(key), d);
    }
    distText(f, a, LatencyKind::SoftIrq, "Soft-IRQ handler duration: entry to exit",
             a.all(LatencyKind::SoftIrq));
    if (a.available(LatencyKind::SoftIrq) && !a.softIrqs().empty()) {
        rowHeader(f, "Soft-IRQ handler duration per vector");
        for (const auto& [v, d] : a.softIrqs())
            rowText(f, std::to_string(v) + " " + softIrqName(v), d);
    }
    distText(f, a, LatencyKind::IoWait, "I/O wait: blocked for I/O to wakeup",
             a.all(LatencyKind::IoWait));
    const auto tasks = a.tasks();
    if (tasks.empty())
        return;
    struct PerTask {
        LatencyKind k;
        const char* title;
        const LatencyDistribution TaskLatency::*d;
    };
    static const PerTask kPer[] = {
        {LatencyKind::Wakeup, "Wakeup latency per process", &TaskLatency::wakeup},
        {LatencyKind::Preemption, "Preemption latency per process", &TaskLatency::preemption},
        {LatencyKind::Syscall, "System-call latency per process", &TaskLatency::syscall},
        {LatencyKind::IoWait, "I/O wait per process", &TaskLatency::ioWait},
    };
    for (const PerTask& p : kPer) {
        if (!a.available(p.k) || a.all(p.k).count() == 0)
            continue;
        rowHeader(f, p.title);
        for (const TaskLatency* t : tasks)
            rowText(f, std::to_string(t->pid) + " " + escaped(t->name).substr(0, 20), t->*p.d);
    }
}

namespace {

void jsonStr(std::FILE* f, std::string_view s) {
    std::string out = "\"";
    appendJsonEscaped(out, s);
    out.push_back('"');
    std::fwrite(out.data(), 1, out.size(), f);
}

// A distribution's members, without the braces.
void distJson(std::FILE* f, LatencyKind k, const LatencyDistribution& d) {
    std::fprintf(f,
                 "\"count\": %llu, \"min_ns\": %llu, \"p50_ns\": %llu, \"p90_ns\": %llu, "
                 "\"p99_ns\": %llu, \"max_ns\": %llu, \"total_ns\": %llu, \"histogram_us\": [",
                 ull(d.count()), ull(d.minNs()), ull(d.p50()), ull(d.p90()), ull(d.p99()),
                 ull(d.maxNs()), ull(d.totalNs()));
    int last = -1;
    for (std::size_t i = 0; i < d.buckets().size(); ++i)
        if (d.buckets()[i])
            last = static_cast<int>(i);
    for (int i = 0; i <= last; ++i)
        std::fprintf(f, "%s{\"low\": %llu, \"high\": %llu, \"count\": %llu}", i ? ", " : "",
                     ull(i == 0 ? 0 : 1ull << i), ull((2ull << i) - 1), ull(d.buckets()[i]));
    std::fprintf(f, "], \"worst\": [");
    bool first = true;
    for (const LatencyInstance& w : d.worst()) {
        std::fprintf(f, "%s{\"ns\": %llu, \"start_ns\": %llu, \"cpu\": %u, \"pid\": ",
                     first ? "" : ", ", ull(w.ns), ull(w.startNs), w.cpu);
        if (w.pid >= 0)
            std::fprintf(f, "%d", w.pid);
        else
            std::fprintf(f, "null");
        if (k == LatencyKind::Syscall) {
            std::fprintf(f, ", \"syscall\": ");
            jsonStr(f, TraceAnalysis::syscallSlotName(w.what));
        } else if (k == LatencyKind::Irq) {
            std::fprintf(f, ", \"irq\": %u, \"vector\": %s",
                         w.what & ~LatencyAnalysis::kIrqVectorBit,
                         (w.what & LatencyAnalysis::kIrqVectorBit) ? "true" : "false");
        } else if (k == LatencyKind::SoftIrq) {
            std::fprintf(f, ", \"softirq\": %u", w.what);
        }
        std::fprintf(f, "}");
        first = false;
    }
    std::fprintf(f, "]");
}

void kindJson(std::FILE* f, const LatencyAnalysis& a, LatencyKind k, bool& firstKind) {
    std::fprintf(f, "%s\n    \"%s\": ", firstKind ? "" : ",", latencyKindKey(k));
    firstKind = false;
    if (!a.available(k)) {
        std::fprintf(f, "null");
        return;
    }
    std::fprintf(f, "{\"dropped\": %llu, ", ull(a.dropped(k)));
    distJson(f, k, a.all(k));
    auto perTask = [&](const LatencyDistribution TaskLatency::*m) {
        std::fprintf(f, ",\n      \"processes\": [");
        bool first = true;
        for (const TaskLatency* t : a.tasks()) {
            const LatencyDistribution& d = t->*m;
            if (d.count() == 0)
                continue;
            std::fprintf(f, "%s\n        {\"pid\": %d, \"tgid\": %d, \"name\": ", first ? "" : ",",
                         t->pid, t->tgid);
            jsonStr(f, t->name);
            std::fprintf(f, ", ");
            distJson(f, k, d);
            std::fprintf(f, "}");
            first = false;
        }
        std::fprintf(f, "%s]", first ? "" : "\n      ");
    };
    auto keyed = [&](const char* member, const std::map<std::uint32_t, LatencyDistribution>& m) {
        std::fprintf(f, ",\n      \"%s\": [", member);
        bool first = true;
        for (const auto& [key, d] : m) {
            std::fprintf(f, "%s\n        {", first ? "" : ",");
            if (k == LatencyKind::Syscall) {
                std::fprintf(f, "\"nr\": ");
                if (key < syscallTableSize())
                    std::fprintf(f, "%u", key);
                else
                    std::fprintf(f, "null");
                std::fprintf(f, ", \"name\": ");
                jsonStr(f, TraceAnalysis::syscallSlotName(key));
            } else if (k == LatencyKind::Irq) {
                std::fprintf(f, "\"irq\": %u, \"vector\": %s",
                             key & ~LatencyAnalysis::kIrqVectorBit,
                             (key & LatencyAnalysis::kIrqVectorBit) ? "true" : "false");
            } else {
                std::fprintf(f, "\"vector\": %u, \"name\": \"%s\"", key, softIrqName(key));
            }
            std::fprintf(f, ", ");
            distJson(f, k, d);
            std::fprintf(f, "}");
            first = false;
        }
        std::fprintf(f, "%s]", first ? "" : "\n      ");
    };
    switch (k) {
    case LatencyKind::Wakeup:
        perTask(&TaskLatency::wakeup);
        break;
    case LatencyKind::Preemption:
        perTask(&TaskLatency::preemption);
        break;
    case LatencyKind::Syscall:
        keyed("calls", a.syscalls());
        perTask(&TaskLatency::syscall);
        break;
    case LatencyKind::Irq:
        keyed("lines", a.irqs());
        break;
    case LatencyKind::SoftIrq:
        keyed("vectors", a.softIrqs());
        break;
    case LatencyKind::IoWait:
        perTask(&TaskLatency::ioWait);
        break;
    }
    std::fprintf(f, "}");
}

} // namespace

void writeLatencyJson(std::FILE* f, const LatencyAnalysis& a) {
    std::fprintf(f, ",\n  \"latency\": {\"pids\": ");
    if (a.options().pids.empty()) {
        std::fprintf(f, "null");
    } else {
        std::fprintf(f, "[");
        for (std::size_t i = 0; i < a.options().pids.size(); ++i)
            std::fprintf(f, "%s%d", i ? ", " : "", a.options().pids[i]);
        std::fprintf(f, "]");
    }
    std::fprintf(f, ", \"worst_kept\": %zu, \"lost_events\": %llu,", a.options().worst,
                 ull(a.lostEvents()));
    bool first = true;
    for (std::size_t k = 0; k < kLatencyKinds; ++k)
        kindJson(f, a, static_cast<LatencyKind>(k), first);
    std::fprintf(f, "\n  }");
}

} // namespace ltt
