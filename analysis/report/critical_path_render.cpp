// traceanalyze --critical-path's text and the "critical_path" member of
// the JSON document (docs/json.md), rendered from libltt's CriticalPath.
#include <cstdio>
#include <libltt/critical_path.hpp>
#include <libltt/latency_render.hpp>
#include <libltt/text_escape.hpp>
#include <string>

namespace ltt {

namespace {

using ull = unsigned long long;
constexpr std::uint32_t kVectorBit = 0x80000000u; // an x86 vector, not an IRQ line

std::string usText(std::uint64_t ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%llu.%03llu", ull(ns / 1000), ull(ns % 1000));
    return b;
}

std::string wallText(const CriticalPath& p, std::uint64_t ns) {
    const std::uint64_t t = p.reader().header().anchor_realtime_ns + ns;
    char b[40];
    std::snprintf(b, sizeof b, "%llu.%09llu", ull(t / 1000000000), ull(t % 1000000000));
    return b;
}

void jsonStr(std::FILE* f, std::string_view s) {
    std::string out = "\"";
    appendJsonEscaped(out, s);
    out.push_back('"');
    std::fwrite(out.data(), 1, out.size(), f);
}

} // namespace

void writeCriticalPathText(std::FILE* f, const CriticalPath& p) {
    const std::int32_t pid = p.options().pid;
    if (!p.found()) {
        std::fprintf(f, "Critical path: PID %d does not run in the trace's interval\n", pid);
        return;
    }
    const std::uint64_t span = p.toNs() - p.fromNs();
    std::fprintf(f, "Critical path of PID %d [%s] from %s to %s (%s us)\n", pid,
                 escaped(p.name(pid)).c_str(), wallText(p, p.fromNs()).c_str(),
                 wallText(p, p.toNs()).c_str(), usText(span).c_str());
    if (!p.available())
        std::fprintf(f, "warning: scheduling or process events were masked out at trace time: "
                        "the path is incomplete\n");
    if (p.lostEvents())
        std::fprintf(f, "%llu events were lost: what tasks did across the gaps is \"unknown\"\n",
                     ull(p.lostEvents()));
    std::fprintf(f, "\n  %-20s %14s  %s\n", "start", "duration (us)", "what");
    for (const CriticalSegment& s : p.segments())
        std::fprintf(f, "  %-20s %14s  %s\n", wallText(p, s.startNs).c_str(),
                     usText(s.endNs - s.startNs).c_str(), p.describe(s).c_str());
    std::fprintf(f, "\nTime per resource:\n");
    for (const CriticalShare& s : p.summary())
        std::fprintf(f, "  %6.2f %%  %14s us  %s\n",
                     span ? 100.0 * static_cast<double>(s.ns) / static_cast<double>(span) : 0.0,
                     usText(s.ns).c_str(), p.describe(s).c_str());
}

void writeCriticalPathJson(std::FILE* f, const CriticalPath& p) {
    std::fprintf(f, ",\n  \"critical_path\": {\"pid\": %d, \"found\": %s", p.options().pid,
                 p.found() ? "true" : "false");
    if (!p.found()) {
        std::fprintf(f, "}");
        return;
    }
    std::fprintf(f, ", \"name\": ");
    jsonStr(f, p.name(p.options().pid));
    std::fprintf(f,
                 ", \"from_ns\": %llu, \"to_ns\": %llu, \"complete\": %s, \"lost_events\": %llu, "
                 "\"segments\": [",
                 ull(p.fromNs()), ull(p.toNs()), p.available() ? "true" : "false",
                 ull(p.lostEvents()));
    bool first = true;
    for (const CriticalSegment& s : p.segments()) {
        std::fprintf(f,
                     "%s\n    {\"start_ns\": %llu, \"end_ns\": %llu, \"kind\": \"%s\", "
                     "\"pid\": %d, ",
                     first ? "" : ",", ull(s.startNs), ull(s.endNs), criticalKindKey(s.kind),
                     s.pid);
        if (s.kind == CriticalKind::Interrupt)
            std::fprintf(f, "\"irq\": %u, \"vector\": %s, ", s.what & ~kVectorBit,
                         (s.what & kVectorBit) ? "true" : "false");
        else if (s.kind == CriticalKind::SoftIrq)
            std::fprintf(f, "\"softirq\": %u, ", s.what);
        std::fprintf(f, "\"via\": [");
        for (std::size_t i = 0; i < s.via.size(); ++i)
            std::fprintf(f, "%s%d", i ? ", " : "", s.via[i]);
        std::fprintf(f, "], \"text\": ");
        jsonStr(f, p.describe(s));
        std::fprintf(f, "}");
        first = false;
    }
    std::fprintf(f, "%s],\n  \"summary\": [", first ? "" : "\n  ");
    first = true;
    for (const CriticalShare& s : p.summary()) {
        std::fprintf(f, "%s\n    {\"kind\": \"%s\", \"pid\": %d, ", first ? "" : ",",
                     criticalKindKey(s.kind), s.pid);
        if (s.kind == CriticalKind::Interrupt)
            std::fprintf(f, "\"irq\": %u, \"vector\": %s, ", s.what & ~kVectorBit,
                         (s.what & kVectorBit) ? "true" : "false");
        else if (s.kind == CriticalKind::SoftIrq)
            std::fprintf(f, "\"softirq\": %u, ", s.what);
        std::fprintf(f, "\"ns\": %llu, \"text\": ", ull(s.ns));
        jsonStr(f, p.describe(s));
        std::fprintf(f, "}");
        first = false;
    }
    std::fprintf(f, "%s]}", first ? "" : "\n  ");
}

} // namespace ltt
