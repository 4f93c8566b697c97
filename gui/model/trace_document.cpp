// TraceDocument: traceview's bridge to libltt. Everything here asks libltt
// (TraceReader, event_format, proc_file, the time-bin model); the only work
// done locally is choosing what to ask and formatting numbers for display.
#include "trace_document.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <libltt/event_format.hpp>
#include <libltt/event_names.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/user_events.hpp>
#include <ltt/module_events.h>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace traceview {

namespace {
// One event's system call text in TraceDocument::Impl::callPool.
struct CallText {
    std::uint64_t index = 0;
    std::uint32_t offset = 0, length = 0;
};

// Walks the trace with a SyscallTracker: each call whose arguments were
// recorded gives its text at its exit; the entry shows the call without
// the return value (a prefix of the same text).
void collectCalls(const ltt::TraceReader& reader, Progress& progress, std::vector<CallText>& calls,
                  std::string& pool) {
    ltt::SyscallTracker tracker;
    std::unordered_map<std::int32_t, std::uint64_t> entry; // task -> its open entry
    auto c = reader.begin();
    for (std::uint64_t n = 0; c.valid(); c.next(), ++n) {
        if ((n & 0xffff) == 0 && progress.cancelled())
            return;
        const ltt::Event& e = c.event();
        tracker.feed(e);
        if (e.id == LTT_EV_SYSCALL_ENTRY) {
            entry[e.pid] = c.index();
            continue;
        }
        if (e.id != LTT_EV_SYSCALL_EXIT)
            continue;
        const auto it = entry.find(e.pid);
        const std::string& line = tracker.exitLine();
        if (!line.empty() && pool.size() + line.size() < UINT32_MAX) {
            const auto off = std::uint32_t(pool.size());
            pool += line;
            if (it != entry.end())
                calls.push_back({it->second, off, std::uint32_t(tracker.exitCallLength())});
            calls.push_back({c.index(), off, std::uint32_t(line.size())});
        }
        if (it != entry.end())
            entry.erase(it);
    }
    std::sort(calls.begin(), calls.end(),
              [](const CallText& a, const CallText& b) { return a.index < b.index; });
}
} // namespace

struct TraceDocument::Impl {
    std::unique_ptr<ltt::TraceReader> reader;
    std::optional<ltt::ProcSnapshot> proc;
    std::unique_ptr<ltt::TraceAnalysis> analysis;  // usable once `ready`
    std::unique_ptr<ltt::LatencyAnalysis> latency; // usable once `latencyReady`
    std::atomic<bool> latencyReady{false};
    std::atomic<bool> ready{false};
    std::unordered_map<std::int32_t, std::string> snapshotNames; // until ready
    std::unordered_map<std::int32_t, std::uint32_t> latest;      // pid -> last process instance
    ltt::EventGraph graph;
    std::vector<ltt::VarSeries> vars;
    std::unique_ptr<ltt::UserEvents> user; // with user streams only
    std::vector<UserMark> userMarks;
    bool syscallArgs = false; // some VARS record holds system call arguments
    // The strace-style calls (syscallText()): text in one pool, sorted by
    // event index.
    std::vector<CallText> calls;
    std::string callPool;
    std::uint64_t events = 0;
    std::vector<std::string> warnings;

    // The last cursor used for random access: the raw list asks for
    // neighbouring events, which are a few steps away.
    mutable std::mutex cursorLock;
    mutable std::optional<ltt::TraceCursor> cursor;

    ltt::TraceCursor cursorAt(std::uint64_t index) const {
        std::lock_guard lock(cursorLock);
        if (cursor && cursor->valid() && cursor->index() <= index &&
            index - cursor->index() < 256) {
            while (cursor->valid() && cursor->index() < index)
                cursor->next();
            if (cursor->valid() && cursor->index() == index)
                return *cursor;
        }
        cursor = reader->atIndex(index);
        return *cursor;
    }
};

std::unique_ptr<TraceDocument> TraceDocument::open(const std::string& tracePath,
                                                   const std::string& procPath, Progress& progress,
                                                   std::string& error) {
    auto impl = std::make_unique<Impl>();
    ltt::TraceError terr;
    impl->reader = ltt::TraceReader::open(tracePath, &terr);
    if (!impl->reader) {
        error = terr.str();
        return nullptr;
    }
    const auto& reader = *impl->reader;
    if (reader.truncation())
        impl->warnings.push_back(reader.truncation()->str());
    if (!procPath.empty()) {
        ltt::ProcParseError perr;
        std::optional<ltt::ProcParseError> cut;
        impl->proc = ltt::readProcFile(procPath, &perr, &cut);
        if (!impl->proc)
            impl->warnings.push_back(perr.str());
        if (cut)
            impl->warnings.push_back(cut->str());
    }
    // Names from the trace and the .proc are shown escaped (control
    // characters would garble labels; bytes that are not UTF-8 upset GTK).
    if (impl->proc)
        for (const auto& t : impl->proc->tasks)
            impl->snapshotNames[t.pid] = ltt::escaped(t.name);

    // First stage, before the first paint: the event graph only. The
    // process analysis and the random-access index follow in complete().
    reader.adviseSequential();
    ltt::EventGraphBuilder builder;
    ltt::VarSeriesBuilder vars;
    // Application events are decoded once here (UserEvents reads the
    // declarations first, from the user blocks alone).
    if (!reader.userStreams().empty()) {
        impl->user = std::make_unique<ltt::UserEvents>(reader);
        for (const ltt::TraceError& p : impl->user->problems())
            impl->warnings.push_back(p.str());
    }
    const double claimed = double(std::max<std::uint64_t>(1, reader.claimedEvents()));
    auto c = reader.begin();
    std::uint64_t n = 0;
    for (; c.valid(); c.next(), ++n) {
        const ltt::Event& ev = c.event();
        builder.add(ltt::graphEventInput(reader, ev, c.index()));
        if (ev.isUser()) [[unlikely]] {
            const ltt::UserEvents::Type* type = nullptr;
            UserMark m;
            if (ev.id == LTT_EV_USER && impl->user && impl->user->check(ev, &type, nullptr) &&
                type && impl->user->appendText(ev, m.text)) {
                m.index = c.index();
                m.timeNs = reader.nsFromAnchor(ev.tsc);
                m.pid = ev.pid;
                m.tgid = type->tgid;
                m.stream = ev.stream;
                m.name = ltt::escaped(type->name);
                impl->userMarks.push_back(std::move(m));
            }
        }
        if (ev.id == LTT_EV_VARS) {
            vars.feed(ev, reader.nsFromAnchor(ev.tsc));
            std::uint32_t changed = 0;
            if (ev.copyDetails(changed) == sizeof changed && (changed & LTT_VAR_BIT(LTT_VAR_ARGS)))
                impl->syscallArgs = true;
        }
        if ((n & 0xffff) == 0) {
            progress.set(double(n) / claimed);
            if (progress.cancelled()) {
                error = "cancelled";
                return nullptr;
            }
        }
    }
    // A short trace is read before the loop checks again: a Cancel pressed
    // meanwhile still cancels.
    if (progress.cancelled()) {
        error = "cancelled";
        return nullptr;
    }
    if (c.error())
        impl->warnings.push_back(c.error()->str());
    impl->events = n;
    impl->vars = vars.finish();
    impl->graph =
        builder.finish(reader.nsFromAnchor(reader.lastTsc()), ltt::traceGraphSource(reader));
    progress.set(1.0);
    return std::unique_ptr<TraceDocument>(new TraceDocument(tracePath, procPath, std::move(impl)));
}

bool TraceDocument::complete(Progress& progress) {
    Impl& d = *impl_m;
    if (d.ready)
        return true;
    const auto& reader = *d.reader;
    // The checkpoint index (random access for the raw list and tooltips) is
    // a pass of its own: build it next to the analysis pass.
    std::thread indexer([&reader] { reader.buildIndex(); });
    // The system calls' text, when the trace recorded their arguments: one
    // walk with libltt's SyscallTracker, as traceanalyze -d makes it.
    std::thread callWalk;
    if (d.syscallArgs)
        callWalk = std::thread(
            [&d, &progress] { collectCalls(*d.reader, progress, d.calls, d.callPool); });
    auto analysis = std::make_unique<ltt::TraceAnalysis>(reader, d.proc ? &*d.proc : nullptr);
    // libltt's fast analysis walk, the one traceanalyze runs, cancelled
    // through its progress callback.
    analysis->run([&progress](double f) {
        progress.set(std::min(1.0, f));
        return !progress.cancelled();
    });
    indexer.join();
    if (callWalk.joinable())
        callWalk.join();
    if (analysis->cancelled())
        return false;
    if (analysis->error() && d.warnings.empty())
        d.warnings.push_back(analysis->error()->str());
    // As traceanalyze's warning: counted apart, never under a process.
    if (const std::uint64_t n = analysis->unattributedEvents()) {
        std::string w = std::to_string(n) + " events not attributed to any task (\"unattributed\"";
        for (unsigned k = 0; k < static_cast<unsigned>(ltt::Unattributed::Count); ++k)
            if (const std::uint64_t c = analysis->unattributedEvents(ltt::Unattributed(k)))
                w += ", " + std::to_string(c) + " " + ltt::unattributedKey(ltt::Unattributed(k));
        d.warnings.push_back(w + ")");
    }
    const auto& procs = analysis->processes();
    for (std::uint32_t i = 0; i < procs.size(); ++i)
        d.latest[procs[i].pid] = i;
    d.analysis = std::move(analysis);
    d.ready.store(true, std::memory_order_release);
    return true;
}

bool TraceDocument::ready() const {
    return impl_m->ready.load(std::memory_order_acquire);
}

TraceDocument::TraceDocument(std::string trace, std::string proc, std::unique_ptr<Impl> impl)
    : trace_m(std::move(trace)), proc_m(std::move(proc)), impl_m(std::move(impl)) {}

TraceDocument::~TraceDocument() = default;

std::string TraceDocument::summary() const {
    const auto& h = impl_m->reader->header();
    std::string s = std::to_string(impl_m->events) + " events, " +
                    std::to_string(impl_m->graph.rows().size() - 2) + " processes, " +
                    std::to_string(h.ncpus) + " CPUs, " +
                    formatDuration(impl_m->graph.endNs() - impl_m->graph.startNs());
    if (totalLost())
        s += ", " + std::to_string(totalLost()) + " LOST";
    std::string host = ltt::escaped({h.hostname, strnlen(h.hostname, sizeof h.hostname)});
    std::string rel = ltt::escaped({h.release, strnlen(h.release, sizeof h.release)});
    if (!host.empty())
        s += "  —  " + host + " " + rel;
    return s;
}

std::vector<std::string> TraceDocument::warnings() const {
    return impl_m->warnings;
}
std::uint64_t TraceDocument::eventCount() const {
    return impl_m->events;
}
std::uint64_t TraceDocument::totalLost() const {
    return impl_m->reader->lostEvents();
}
unsigned TraceDocument::cpuCount() const {
    return impl_m->reader->ncpus();
}
std::uint64_t TraceDocument::realtimeAnchorNs() const {
    return impl_m->reader->header().anchor_realtime_ns;
}
const std::vector<UserMark>& TraceDocument::userMarks() const {
    return impl_m->userMarks;
}

const ltt::EventGraph& TraceDocument::graph() const {
    return impl_m->graph;
}
const std::vector<ltt::VarSeries>& TraceDocument::varSeries() const {
    return impl_m->vars;
}

std::string_view TraceDocument::syscallText(std::uint64_t index) const {
    if (!ready())
        return {};
    const auto& calls = impl_m->calls;
    const auto it = std::lower_bound(calls.begin(), calls.end(), index,
                                     [](const auto& c, std::uint64_t i) { return c.index < i; });
    if (it == calls.end() || it->index != index)
        return {};
    return std::string_view(impl_m->callPool).substr(it->offset, it->length);
}

EventLine TraceDocument::event(std::uint64_t index) const {
    EventLine line;
    line.index = index;
    auto c = impl_m->cursorAt(index);
    if (!c.valid())
        return line;
    const ltt::Event& ev = c.event();
    line.cpu = ev.cpu;
    line.id = ev.id;
    line.subtype = ev.subtype;
    line.event = std::string(ltt::eventName(ev.id));
    line.timeNs = impl_m->reader->nsFromAnchor(ev.tsc);
    line.pid = ev.pid;
    line.size = ev.size;
    line.user = ev.isUser();
    line.stream = ev.stream;
    // An application event as traceanalyze -d shows it: UserEvents' text,
    // or the raw record when it does not decode.
    if (!(ev.id == LTT_EV_USER && impl_m->user && impl_m->user->appendText(ev, line.description)))
        ltt::describeEvent(ev, line.description);
    if (ev.id == LTT_EV_SYSCALL_ENTRY || ev.id == LTT_EV_SYSCALL_EXIT) {
        const std::string_view call = syscallText(index);
        if (!call.empty())
            line.description.append("; ").append(call);
    }
    line.lost = ev.id == LTT_EV_LOST;
    return line;
}

std::uint64_t TraceDocument::eventTimeNs(std::uint64_t index) const {
    auto c = impl_m->cursorAt(index);
    return c.valid() ? impl_m->reader->nsFromAnchor(c.event().tsc) : impl_m->graph.endNs();
}

std::uint64_t TraceDocument::eventAtTime(std::uint64_t timeNs) const {
    auto c = impl_m->reader->atTime(timeNs);
    return c.valid() ? c.index() : impl_m->events;
}

std::optional<std::uint64_t> TraceDocument::eventOnCpuAt(unsigned cpu, std::uint64_t timeNs) const {
    auto c = impl_m->reader->atTime(timeNs);
    for (int i = 0; c.valid() && i < 4096; c.next(), ++i)
        if (c.event().cpu == cpu)
            return c.index();
    return std::nullopt;
}

std::string TraceDocument::processName(std::int32_t pid) const {
    if (pid == 0)
        return "swapper";
    if (pid == ltt::kUnattributedPid)
        return "unattributed";
    if (!ready()) {
        auto it = impl_m->snapshotNames.find(pid);
        return it != impl_m->snapshotNames.end() ? it->second : "…";
    }
    auto it = impl_m->latest.find(pid);
    return it != impl_m->latest.end() ? ltt::escaped(impl_m->analysis->processes()[it->second].name)
                                      : "unknown";
}

std::string TraceDocument::rowLabel(std::size_t row) const {
    const auto& r = impl_m->graph.rows().at(row);
    switch (r.kind) {
    case ltt::GraphRowKind::Kernel:
        return "Kernel";
    case ltt::GraphRowKind::Idle:
        return "Idle (0)";
    case ltt::GraphRowKind::Process:
        break;
    }
    return processName(r.pid) + " (" + std::to_string(r.pid) + ")";
}

std::vector<TraceDocument::EventChoice> TraceDocument::eventTypes() {
    std::vector<EventChoice> out;
    for (unsigned id = 0; id < LTT_EV_MAX; ++id) {
        std::string name(ltt::eventName(id));
        out.push_back({name, ltt::eventMaskOf(name).value_or(0)});
    }
    for (const auto& e : ltt::eventNames())
        if (std::popcount(e.mask) > 1)
            out.push_back({e.name, e.mask});
    return out;
}

std::string TraceDocument::eventTypeLabel(std::uint64_t mask) {
    for (const auto& c : eventTypes())
        if (c.mask == mask)
            return c.label;
    return {};
}

std::uint64_t TraceDocument::busyCpuNs() const {
    const ltt::CpuStats t = impl_m->analysis->total();
    return t.userNs + t.kernelNs + t.irqNs;
}

std::vector<ProcessInfo> TraceDocument::processes() const {
    const auto& procs = impl_m->analysis->processes();
    std::vector<ProcessInfo> out(procs.size());
    for (std::uint32_t i = 0; i < procs.size(); ++i) {
        out[i].id = i;
        out[i].pid = procs[i].pid;
        out[i].name = ltt::escaped(procs[i].name);
        out[i].syscalls = procs[i].stats.syscalls;
        out[i].runningNs = procs[i].stats.runningNs;
    }
    for (std::uint32_t i = 0; i < procs.size(); ++i)
        for (auto child : procs[i].children)
            if (child < out.size() && child != i)
                out[child].parent = i;
    // Roots other than pid 0 hang from "The All Mighty".
    for (std::uint32_t i = 1; i < out.size(); ++i)
        if (out[i].parent < 0)
            out[i].parent = 0;
    return out;
}

std::optional<UnattributedInfo> TraceDocument::unattributed() const {
    if (!ready() || !impl_m->analysis->unattributedEvents())
        return std::nullopt;
    const ltt::TraceAnalysis& a = *impl_m->analysis;
    UnattributedInfo u;
    u.events = a.unattributedEvents();
    for (unsigned k = 0; k < static_cast<unsigned>(ltt::Unattributed::Count); ++k) {
        const auto why = ltt::Unattributed(k);
        if (const std::uint64_t n = a.unattributedEvents(why))
            u.reasons.push_back(
                {ltt::unattributedKey(why), ltt::unattributedReason(why, a.restricted()), n});
    }
    u.syscalls = a.unattributed().stats.syscalls;
    u.runningNs = a.unattributed().stats.runningNs;
    return u;
}

std::vector<ReportLine> TraceDocument::processReport(std::int64_t id) const {
    const ltt::TraceAnalysis& a = *impl_m->analysis;
    const auto& procs = a.processes();
    if (id == kUnattributedId) {
        // Its events and why, then a process's figures (no PID, parent,
        // start: it is no task).
        std::vector<ReportLine> out{{"Events", std::to_string(a.unattributedEvents())}};
        if (const auto u = unattributed())
            for (const auto& r : u->reasons)
                out.push_back({"Reason " + r.key, std::to_string(r.events) + ": " + r.text});
        ltt::Process p = a.unattributed();
        p.fromSnapshot = true; // no "Started at" line
        for (auto& line : ltt::processCharacteristics(a, p))
            if (line.label != "PID" && line.label != "Parent PID" && line.label != "Thread group")
                out.push_back(std::move(line));
        return out;
    }
    if (id <= 0 || std::uint64_t(id) >= procs.size()) {
        auto out = ltt::systemCharacteristics(a);
        if (a.unattributedEvents()) {
            auto at = std::find_if(out.begin(), out.end(),
                                   [](const ReportLine& l) { return l.label == "Lost events"; });
            out.insert(at == out.end() ? at : at + 1,
                       {"Unattributed events", std::to_string(a.unattributedEvents())});
        }
        return out;
    }
    return ltt::processCharacteristics(a, procs[std::size_t(id)]);
}

std::vector<SyscallLine> TraceDocument::syscalls(std::int64_t id) const {
    const auto& procs = impl_m->analysis->processes();
    if (id == kUnattributedId)
        return ltt::syscallAccounting(*impl_m->analysis, &impl_m->analysis->unattributed());
    if (id <= 0 || std::uint64_t(id) >= procs.size())
        return ltt::syscallAccounting(*impl_m->analysis, nullptr);
    return ltt::syscallAccounting(*impl_m->analysis, &procs[std::size_t(id)]);
}

namespace {
// The selection as one process: its stats summed by libltt's addStats().
ltt::Process selectionProcess(const ltt::TraceAnalysis& a, const std::vector<std::int64_t>& ids) {
    ltt::Process sum;
    const auto& procs = a.processes();
    for (std::int64_t id : ids)
        if (id >= 0 && std::uint64_t(id) < procs.size())
            ltt::addStats(sum.stats, procs[std::size_t(id)].stats);
        else if (id == kUnattributedId)
            ltt::addStats(sum.stats, a.unattributed().stats);
    sum.fromSnapshot = true; // no "Started at" line
    return sum;
}
} // namespace

std::vector<ReportLine> TraceDocument::selectionReport(const std::vector<std::int64_t>& ids) const {
    const auto& a = *impl_m->analysis;
    std::vector<ReportLine> out{{"Processes selected", std::to_string(ids.size())}};
    for (auto& line : ltt::processCharacteristics(a, selectionProcess(a, ids)))
        if (line.label != "PID" && line.label != "Parent PID" && line.label != "Thread group" &&
            line.label != "Kernel thread")
            out.push_back(std::move(line));
    return out;
}

std::vector<SyscallLine>
TraceDocument::selectionSyscalls(const std::vector<std::int64_t>& ids) const {
    const auto& a = *impl_m->analysis;
    const ltt::Process p = selectionProcess(a, ids);
    return ltt::syscallAccounting(a, &p);
}

std::vector<std::int64_t> TraceDocument::withDescendants(std::int64_t id) const {
    const auto& procs = impl_m->analysis->processes();
    std::vector<std::int64_t> out;
    if (id == kUnattributedId)
        return {id}; // no task, no children
    if (id < 0 || std::uint64_t(id) >= procs.size())
        return out;
    std::vector<std::uint8_t> seen(procs.size(), 0);
    std::vector<std::int64_t> todo{id};
    while (!todo.empty()) {
        const std::int64_t i = todo.back();
        todo.pop_back();
        if (seen[std::size_t(i)])
            continue;
        seen[std::size_t(i)] = 1;
        out.push_back(i);
        if (i == 0) {
            // Every process hangs below the root (processes()).
            for (std::size_t k = 1; k < procs.size(); ++k)
                todo.push_back(std::int64_t(k));
            continue;
        }
        for (auto child : procs[std::size_t(i)].children)
            if (child < procs.size())
                todo.push_back(child);
    }
    std::sort(out.begin(), out.end());
    return out;
}

TraceDocument::TimeBreakdown
TraceDocument::timeBreakdown(const std::vector<std::int64_t>& ids) const {
    const auto& a = *impl_m->analysis;
    std::vector<std::int64_t> use = ids;
    if (ids.size() == 1 && ids[0] == 0) {
        use.clear();
        for (std::size_t k = 0; k < a.processes().size(); ++k)
            if (a.processes()[k].pid != 0)
                use.push_back(std::int64_t(k));
    }
    const ltt::ProcessStats s = selectionProcess(a, use).stats;
    TimeBreakdown b;
    b.ns = {s.userNs,  s.syscallNs + s.trapNs, s.irqNs, s.ioWaitNs, s.preemptedNs,
            s.sleepNs, s.schedDelayNs};
    return b;
}

std::string TraceDocument::syscallNote() const {
    return ltt::syscallAccountingNote(impl_m->analysis->availability());
}

bool TraceDocument::computeLatency(Progress& progress) {
    Impl& d = *impl_m;
    if (d.latencyReady.load(std::memory_order_acquire))
        return true;
    auto a = std::make_unique<ltt::LatencyAnalysis>(*d.reader, d.proc ? &*d.proc : nullptr);
    const bool done = a->run([&progress](double f) {
        progress.set(std::min(1.0, f));
        return !progress.cancelled();
    });
    if (!done && !a->error())
        return false; // cancelled (corruption: the figures up to it, as the analysis has)
    d.latency = std::move(a);
    d.latencyReady.store(true, std::memory_order_release);
    return true;
}

const ltt::LatencyAnalysis* TraceDocument::latency() const {
    return impl_m->latencyReady.load(std::memory_order_acquire) ? impl_m->latency.get() : nullptr;
}

std::shared_ptr<const ltt::CriticalPath> TraceDocument::criticalPath(std::int32_t pid) const {
    ltt::CriticalPathOptions o;
    o.pid = pid;
    auto p = std::make_shared<ltt::CriticalPath>(*impl_m->reader,
                                                 impl_m->proc ? &*impl_m->proc : nullptr, o);
    p->run();
    return p;
}

bool TraceDocument::stacksRecorded() const {
    const ltt::TraceReader& r = *impl_m->reader;
    return r.eventEnabled(LTT_EV_STACK) && r.detailsEnabled(LTT_EV_STACK);
}

std::optional<std::vector<std::uint64_t>> TraceDocument::filter(const EventFilter& f,
                                                                Progress& progress) const {
    return ltt::filterEvents(*impl_m->reader, f, [&progress](double x) {
        progress.set(x);
        return !progress.cancelled();
    });
}

// Application events match by UserEvents' text (`ltt_mark text="phase 2"`:
// their name and field values), looked up in userMarks; libltt's walk sees
// only their raw records, so the user records it finds are passed over.
std::optional<std::uint64_t> TraceDocument::search(const SearchQuery& q, std::uint64_t from,
                                                   bool forward, Progress& progress) const {
    const auto& marks = impl_m->userMarks;
    std::optional<std::uint64_t> user;
    if (!marks.empty() && ltt::eventInMask(q.events, LTT_EV_USER)) {
        auto lower = [](std::string_view s) {
            std::string out(s);
            for (char& ch : out)
                ch = char(std::tolower(static_cast<unsigned char>(ch)));
            return out;
        };
        const std::string want = lower(q.text);
        const bool byName = lower(ltt::eventName(LTT_EV_USER)).find(want) != std::string::npos;
        auto hit = [&](const UserMark& m) {
            return byName || lower(m.text).find(want) != std::string::npos;
        };
        auto byIndex = [](const UserMark& m, std::uint64_t i) { return m.index < i; };
        if (forward) {
            const std::uint64_t start = from == std::uint64_t(-1) ? 0 : from + 1;
            for (auto it = std::lower_bound(marks.begin(), marks.end(), start, byIndex);
                 it != marks.end() && !user; ++it)
                if (hit(*it))
                    user = it->index;
        } else {
            for (auto it = std::lower_bound(marks.begin(), marks.end(), from, byIndex);
                 it != marks.begin() && !user;)
                if (hit(*--it))
                    user = it->index;
        }
    }
    auto walk = [&progress](double x) {
        progress.set(x);
        return !progress.cancelled();
    };
    std::optional<std::uint64_t> kernel =
        ltt::searchEvents(*impl_m->reader, q, from, forward, walk);
    while (kernel && !marks.empty() && impl_m->cursorAt(*kernel).event().isUser() &&
           !progress.cancelled())
        kernel = ltt::searchEvents(*impl_m->reader, q, *kernel, forward, walk);
    if (!user || !kernel)
        return user ? user : kernel;
    return forward ? std::min(*user, *kernel) : std::max(*user, *kernel);
}

std::string formatTime(std::uint64_t ns) {
    return ltt::formatSeconds(ns) + " s";
}

std::string formatDuration(std::uint64_t ns) {
    char buf[48];
    if (ns >= 1000000000)
        std::snprintf(buf, sizeof buf, "%.3f s", double(ns) / 1e9);
    else if (ns >= 1000000)
        std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    else if (ns >= 1000)
        std::snprintf(buf, sizeof buf, "%.3f µs", double(ns) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%" PRIu64 " ns", ns);
    return buf;
}

} // namespace traceview
