// The JSON rendering of the report model: see report_render.hpp and
// docs/json.md. Masked-out figures are null.
#include <cstdio>
#include <cstring>
#include <libltt/callsite_report.hpp>
#include <libltt/critical_path.hpp>
#include <libltt/event_format.hpp>
#include <libltt/latency.hpp>
#include <libltt/latency_render.hpp>
#include <libltt/offcpu_render.hpp>
#include <libltt/process_report.hpp>
#include <libltt/report_render.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/user_events.hpp>
#include <optional>
#include <string>

namespace ltt {

namespace {

using ull = unsigned long long;

// Every figure of a process, in the document's order.
constexpr ProcessFigure kJsonFigures[] = {
    ProcessFigure::Syscalls,     ProcessFigure::Traps,       ProcessFigure::BytesRead,
    ProcessFigure::BytesWritten, ProcessFigure::UserNs,      ProcessFigure::RunningNs,
    ProcessFigure::SyscallNs,    ProcessFigure::TrapNs,      ProcessFigure::IrqNs,
    ProcessFigure::IoWaitNs,     ProcessFigure::PreemptedNs, ProcessFigure::SchedDelayNs,
    ProcessFigure::SleepNs,      ProcessFigure::MaxDelayNs,  ProcessFigure::MaxSliceNs,
    ProcessFigure::SchedIn,      ProcessFigure::Wakeups,
};
static_assert(std::size(kJsonFigures) == kProcessFigureCount);

std::string fixed(const char* s, std::size_t n) {
    return std::string(s, strnlen(s, n));
}

void jsonString(std::FILE* f, std::string_view s) {
    std::string out = "\"";
    appendJsonEscaped(out, s);
    out.push_back('"');
    std::fwrite(out.data(), 1, out.size(), f);
}

// "callsites": per process, its call sites sorted by time (docs/json.md).
template <class Num> void writeJsonCallSites(std::FILE* f, const CallSiteReport& c, Num& num) {
    std::fprintf(f,
                 ",\n  \"callsites\": {\"ips_recorded\": %s, \"maps_recorded\": %s, "
                 "\"map_records\": %llu, \"unresolved\": %llu, \"processes\": [",
                 c.ipsRecorded ? "true" : "false", c.mapsRecorded ? "true" : "false",
                 ull(c.mapRecords), ull(c.unresolved));
    bool first = true;
    for (const auto& p : c.processes) {
        std::fprintf(f, "%s\n    {\"pid\": %d, \"name\": ", first ? "" : ",", p.pid);
        first = false;
        jsonString(f, p.name);
        std::fprintf(f, ", \"calls\": %llu, \"total_ns\": %llu, \"sites\": [", ull(p.calls),
                     ull(p.totalNs));
        bool firstSite = true;
        for (const auto& s : p.sites) {
            std::fprintf(f, "%s\n      {\"nr\": ", firstSite ? "" : ",");
            num(s.nr < syscallTableSize(), s.nr);
            std::fprintf(f, ", \"syscall\": ");
            jsonString(f, TraceAnalysis::syscallSlotName(s.nr));
            std::fprintf(f, ", \"site\": ");
            jsonString(f, s.site);
            std::fprintf(f, ", \"count\": %llu, \"timed\": %llu, \"total_ns\": %llu}", ull(s.count),
                         ull(s.timed), ull(s.totalNs));
            firstSite = false;
        }
        std::fprintf(f, "%s]}", firstSite ? "" : "\n    ");
    }
    std::fprintf(f, "%s]}", first ? "" : "\n  ");
}

// The "events" array: one object per event in merged order, with what the
// text dump shows and, for VARS records and system calls whose arguments
// were recorded, the decoded values. The analysis has read the same
// records, so the walk stops where it stopped.
void writeJsonEvents(std::FILE* f, const TraceReader& r, const ReportOptions& o) {
    std::fprintf(f, ",\n  \"events\": [");
    SyscallTracker calls;
    std::string line;
    bool first = true;
    // Application events: "stream" (their user stream) instead of "cpu",
    // and when they decode their "name" and "fields".
    std::optional<UserEvents> user;
    if (!r.userStreams().empty())
        user.emplace(r);
    TraceCursor c = r.begin();
    // The members every event has: where ("cpu", or a user stream's
    // "stream"), when, who, what, and the dump's description (in `line`).
    auto head = [&](const Event& e) {
        std::fprintf(f, "%s\n    {\"%s\": %u, \"time_ns\": %llu, \"pid\": %d, \"event\": \"%s\"",
                     first ? "" : ",", e.isUser() ? "stream" : "cpu",
                     unsigned{e.isUser() ? e.stream : e.cpu}, ull(r.nsFromAnchor(e.tsc)), e.pid,
                     std::string(eventKey(e.id)).c_str());
        first = false;
        if (auto sub = subtypeName(e.id, e.subtype); !sub.empty()) {
            std::fprintf(f, ", \"subtype\": ");
            jsonString(f, sub);
        }
        std::fprintf(f, ", \"description\": ");
        jsonString(f, line);
    };
    for (; c.valid(); c.next()) {
        const Event& e = c.event();
        if (e.isUser()) [[unlikely]] {
            if (o.cpu >= 0 || (o.pid >= 0 && e.pid != o.pid) ||
                !o.types.test(e.id < LTT_EV_COUNT ? e.id : unsigned(LTT_EV_COUNT)))
                continue;
            line.clear();
            if (e.id != LTT_EV_USER || !user->appendText(e, line))
                describeEvent(e, line);
            head(e);
            line.clear();
            if (e.id == LTT_EV_USER && user->appendJson(e, line))
                std::fprintf(f, ", %s", line.c_str());
            std::fprintf(f, "}");
            continue;
        }
        calls.feed(e);
        if ((o.cpu >= 0 && e.cpu != o.cpu) || (o.pid >= 0 && e.pid != o.pid) ||
            !o.types.test(e.id < LTT_EV_COUNT ? e.id : unsigned(LTT_EV_COUNT)))
            continue;
        line.clear();
        describeEvent(e, line);
        head(e);
        if (!calls.exitLine().empty()) {
            std::fprintf(f, ", \"call\": ");
            jsonString(f, calls.exitLine());
        }
        if (e.id == LTT_EV_TRACE_START) {
            // Which variables the VARS records hold: one outside these was
            // not recorded, one inside them absent from a record unchanged.
            ltt_ev_trace_start_ext ts;
            e.copyDetails(ts);
            std::fprintf(f, ", \"variables\": [");
            bool firstVar = true;
            for (unsigned i = 0; i < LTT_VAR_COUNT; ++i)
                if (ts.vars_mask & LTT_VAR_BIT(i)) {
                    std::fprintf(f, "%s\"%s\"", firstVar ? "" : ", ",
                                 std::string(varName(i)).c_str());
                    firstVar = false;
                }
            std::fprintf(f, "]");
        }
        if (auto v = decodeVars(e)) {
            if (v->changed & LTT_VAR_BIT(LTT_VAR_ARGS)) {
                std::fprintf(f, ", \"syscall\": %u, \"args\": [", v->nr);
                for (unsigned i = 0; i < v->nargs; ++i)
                    std::fprintf(f, "%s%llu", i ? ", " : "", ull(v->args[i]));
                std::fprintf(f, "]");
            }
            std::fprintf(f, ", \"vars\": {");
            bool firstVar = true;
            for (unsigned i = LTT_VAR_PID; i < LTT_VAR_COUNT; ++i)
                if (v->changed & LTT_VAR_BIT(i)) {
                    std::fprintf(f, "%s\"%s\": %llu", firstVar ? "" : ", ",
                                 std::string(varName(i)).c_str(), ull(v->values[i]));
                    firstVar = false;
                }
            std::fprintf(f, "}");
        }
        std::fprintf(f, "}");
    }
    std::fprintf(f, "%s]", first ? "" : "\n  ");
}

} // namespace

void writeJsonReport(std::FILE* f, const TraceAnalysis& a, const ReportOptions& o) {
    const auto& r = a.reader();
    const auto& h = r.header();
    const auto& av = a.availability();
    auto num = [&](bool ok, std::uint64_t v) {
        if (ok)
            std::fprintf(f, "%llu", ull(v));
        else
            std::fprintf(f, "null");
    };
    const std::uint64_t dur = traceDuration(a);
    std::fprintf(f, "{\n  \"schema\": \"ltt-analysis/1\",\n  \"trace\": {\"file\": ");
    jsonString(f, r.path());
    std::fprintf(f, ", \"producer\": ");
    jsonString(f, fixed(h.producer, sizeof h.producer));
    std::fprintf(f, ", \"kernel\": ");
    jsonString(f, fixed(h.release, sizeof h.release));
    std::fprintf(f, ", \"hostname\": ");
    jsonString(f, fixed(h.hostname, sizeof h.hostname));
    std::fprintf(f, ", \"backend\": \"%s\"", TraceAnalysis::backendName(a.backend()));
    std::fprintf(f,
                 ", \"start_ns\": %llu, \"end_ns\": %llu, \"duration_ns\": %llu, "
                 "\"start_realtime_ns\": %llu, \"cpus\": %u, \"tsc_khz\": %llu, \"events\": %llu, "
                 "\"lost_events\": %llu, \"truncated_at\": ",
                 ull(a.firstNs()), ull(a.lastNs()), ull(dur),
                 ull(h.anchor_realtime_ns + a.firstNs()), h.ncpus, ull(h.tsc_khz), ull(a.events()),
                 ull(a.lostEvents()));
    if (r.truncation())
        std::fprintf(f, "%llu", ull(r.truncation()->offset));
    else
        std::fprintf(f, "null");
    std::fprintf(f, ", \"ended_cleanly\": %s", r.unfinished() ? "false" : "true");
    if (a.hasUserStreams())
        std::fprintf(f,
                     ", \"user_streams\": %zu, \"user_monotonic_streams\": %zu, "
                     "\"user_events\": %llu, \"user_lost_events\": %llu, \"user_damaged\": %llu",
                     r.userStreams().size(), r.monotonicUserStreams(), ull(a.userEvents()),
                     ull(a.userLostEvents()), ull(a.userProblemCount()));
    std::fprintf(f, "},\n  \"masked_out\": [");
    auto missing = av.missing();
    for (std::size_t i = 0; i < missing.size(); ++i) {
        std::fprintf(f, "%s", i ? ", " : "");
        jsonString(f, missing[i]);
    }
    std::fprintf(f, "],\n  \"event_counts\": {");
    bool first = true;
    for (unsigned i = 0; i <= LTT_EV_COUNT; ++i) {
        if (!a.eventCounts()[i] || !o.types.test(i))
            continue;
        std::fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", std::string(eventKey(i)).c_str(),
                     ull(a.eventCounts()[i]));
        first = false;
    }
    std::fprintf(f, "},\n");
    // Only a trace whose configuration changed while tracing has the key
    // (docs/trace-format.md, CONFIG): the others' output is unchanged.
    if (!a.configChanges().empty()) {
        static const char* const kWhat[] = {"events", "details", "pid", "pgrp",
                                            "uid",    "gid",     "vars"};
        std::fprintf(f, "  \"config_changes\": [");
        first = true;
        for (const ConfigChange& c : a.configChanges()) {
            const ltt_ev_config& k = c.config;
            std::fprintf(f,
                         "%s\n    {\"time_ns\": %llu, \"cpu\": %u, \"changed\": \"%s\", "
                         "\"event_mask\": %llu, \"details_mask\": %llu, \"filters\": %u, "
                         "\"pid\": %d, \"pgrp\": %d, \"uid\": %u, \"gid\": %u, "
                         "\"vars_mask\": %u}",
                         first ? "" : ",", ull(c.ns), c.cpu,
                         c.what < std::size(kWhat) ? kWhat[c.what] : "unknown", ull(k.event_mask),
                         ull(k.details_mask), k.filters, k.pid, k.pgrp, k.uid, k.gid, k.vars_mask);
            first = false;
        }
        std::fprintf(f, "\n  ],\n");
    }
    // A process's figures, application events and system call table, up to
    // its closing brace.
    auto body = [&](const Process& p) {
        const auto& s = p.stats;
        const ProcessFigures fig = processFigures(av, s);
        for (ProcessFigure which : kJsonFigures) {
            const FigureValue& v = figure(fig, which);
            std::fprintf(f, ", \"%s\": ", v.key);
            num(v.available, v.value);
        }
        if (!p.userEvents.empty()) {
            std::fprintf(f, ", \"user_events\": {");
            bool firstUser = true;
            for (const auto& [name, n] : p.userEvents) {
                std::fprintf(f, "%s", firstUser ? "" : ", ");
                jsonString(f, name);
                std::fprintf(f, ": %llu", ull(n));
                firstUser = false;
            }
            std::fprintf(f, "}");
        }
        std::fprintf(f, ", \"syscall_table\": ");
        if (!av.syscalls) {
            std::fprintf(f, "null}");
            return;
        }
        std::fprintf(f, "[");
        bool firstSc = true;
        for (const auto& st : s.syscallTable) {
            std::fprintf(f, "%s\n      {\"nr\": ", firstSc ? "" : ",");
            if (st.slot < syscallTableSize())
                std::fprintf(f, "%u", st.slot);
            else
                std::fprintf(f, "null");
            std::fprintf(f, ", \"name\": ");
            jsonString(f, TraceAnalysis::syscallSlotName(st.slot));
            std::fprintf(
                f,
                ", \"count\": %llu, \"timed\": %llu, \"total_ns\": %llu, \"min_ns\": %llu, "
                "\"max_ns\": %llu, \"avg_ns\": %llu, \"errors\": %llu}",
                ull(st.count), ull(st.timed), ull(st.totalNs), ull(st.minNs), ull(st.maxNs),
                ull(st.timed ? st.totalNs / st.timed : 0), ull(st.errors));
            firstSc = false;
        }
        std::fprintf(f, "%s]}", firstSc ? "" : "\n    ");
    };
    std::fprintf(f, "  \"processes\": [");
    first = true;
    for (const Process& p : a.processes()) {
        if (p.pid == 0 || (o.pid >= 0 && p.pid != o.pid))
            continue;
        std::fprintf(f, "%s\n    {\"pid\": %d, \"ppid\": %d, \"tgid\": %d, \"name\": ",
                     first ? "" : ",", p.pid, p.ppid, p.tgid);
        first = false;
        jsonString(f, p.name);
        std::fprintf(f, ", \"kthread\": %s, \"exited\": %s", p.kthread ? "true" : "false",
                     p.exited ? "true" : "false");
        body(p);
    }
    std::fprintf(f, "\n  ],\n");
    // Only a trace with events it does not attribute has the key
    // (docs/json.md): the others' output is unchanged.
    if (a.unattributedEvents() && o.pid < 0) {
        std::fprintf(f, "  \"unattributed\": {\"events\": %llu, \"reasons\": [",
                     ull(a.unattributedEvents()));
        first = true;
        for (unsigned w = 0; w < static_cast<unsigned>(Unattributed::Count); ++w) {
            const auto why = static_cast<Unattributed>(w);
            if (!a.unattributedEvents(why))
                continue;
            std::fprintf(f, "%s{\"key\": \"%s\", \"events\": %llu, \"reason\": ", first ? "" : ", ",
                         unattributedKey(why), ull(a.unattributedEvents(why)));
            jsonString(f, unattributedReason(why, a.restricted()));
            std::fprintf(f, "}");
            first = false;
        }
        std::fprintf(f, "]");
        body(a.unattributed());
        std::fprintf(f, ",\n");
    }
    const auto t = a.total();
    std::fprintf(f, "  \"system\": {\"user_ns\": %llu, \"kernel_ns\": %llu, \"irq_ns\": ",
                 ull(t.userNs), ull(t.kernelNs));
    num(av.irqs, t.irqNs);
    std::fprintf(f, ", \"idle_ns\": %llu, \"cpus\": [", ull(t.idleNs));
    for (std::size_t i = 0; i < a.cpus().size(); ++i) {
        const auto& c = a.cpus()[i];
        std::fprintf(f,
                     "%s\n    {\"cpu\": %zu, \"user_ns\": %llu, \"kernel_ns\": %llu, \"irq_ns\": ",
                     i ? "," : "", i, ull(c.userNs), ull(c.kernelNs));
        num(av.irqs, c.irqNs);
        std::fprintf(f, ", \"idle_ns\": %llu, \"events\": %llu, \"lost_events\": %llu}",
                     ull(c.idleNs), ull(c.events), ull(c.lost));
    }
    std::fprintf(f, "\n  ]}");
    if (o.callsites)
        writeJsonCallSites(f, *o.callsites, num);
    if (o.latency)
        writeLatencyJson(f, *o.latency);
    if (o.criticalPath)
        writeCriticalPathJson(f, *o.criticalPath);
    if (o.offcpu)
        writeOffCpuJson(f, *o.offcpu);
    if (o.events)
        writeJsonEvents(f, r, o);
    std::fprintf(f, "\n}\n");
}

} // namespace ltt
