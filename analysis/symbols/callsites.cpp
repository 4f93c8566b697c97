// CallSiteAnalysis (callsites.hpp): one walk over the merged events.
#include "symbols_common.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <libltt/callsites.hpp>
#include <libltt/event_format.hpp>
#include <libltt/event_schema.hpp>
#include <libltt/trace_analysis.hpp>
#include <ltt/module_events.h>
#include <map>
#include <memory>
#include <unordered_map>

namespace ltt {

namespace {

using schema::kForkCloneThread;
using symbols_common::baseName;
using symbols_common::kUserTop;

struct Task {
    std::int32_t tgid = 0;
    bool open = false; // a system call entered and not yet left
    std::uint32_t nr = 0;
    std::uint64_t ip = 0;
    std::uint64_t entryTsc = 0;
};

struct ProcessState {
    std::string name = "unknown";
    AddressSpace space;
};

class Walk {
public:
    Walk(const TraceReader& r, Symbolizer& sym, std::int64_t pid)
        : r_m(r), sym_m(sym), pid_m(pid) {}

    void snapshot(const ProcSnapshot& s) {
        for (const auto& t : s.tasks) {
            const std::int32_t tgid = t.tgid ? t.tgid : t.pid;
            tasks_m[t.pid].tgid = tgid;
            if (t.pid == tgid || !procs_m.count(tgid))
                procs_m[tgid].name = t.name;
        }
        for (const auto& m : s.maps)
            if (m.perm.find('x') != std::string::npos)
                procs_m[m.pid].space.add(m.start, m.end, m.offset, intern(m.path));
    }

    void event(const Event& e, CallSiteReport& rep) {
        switch (e.id) {
        case LTT_EV_SYSCALL_ENTRY: {
            ltt_ev_syscall_entry d{};
            if (!e.detailsAs(d))
                return;
            Task& t = task(e.pid);
            if (t.open)
                count(t, 0, false, rep);
            t.open = true;
            t.nr = d.nr;
            t.ip = d.ip;
            t.entryTsc = e.tsc;
            return;
        }
        case LTT_EV_SYSCALL_EXIT: {
            auto it = tasks_m.find(e.pid);
            if (it == tasks_m.end() || !it->second.open)
                return; // an exit with no entry (a new task's first return)
            count(it->second, e.tsc, true, rep);
            it->second.open = false;
            return;
        }
        case LTT_EV_LOST:
            // Calls open across the gap have no known length: counted
            // untimed, as the analysis drops intervals cut by a gap.
            for (auto& [tid, t] : tasks_m)
                if (t.open) {
                    count(t, 0, false, rep);
                    t.open = false;
                }
            return;
        case LTT_EV_PROCESS: {
            ltt_ev_process d{};
            if (!e.detailsAs(d))
                return;
            if (e.subtype == LTT_PROCESS_FORK) {
                const std::int32_t parent = task(e.pid).tgid;
                Task& c = tasks_m[d.pid];
                c = Task{};
                if (d.arg & kForkCloneThread) {
                    c.tgid = parent;
                } else {
                    c.tgid = d.pid;
                    ProcessState copy = procs_m[parent];
                    procs_m[d.pid] = std::move(copy);
                }
            } else if (e.subtype == LTT_PROCESS_KTHREAD) {
                tasks_m[d.pid] = Task{d.pid};
                procs_m[d.pid] = ProcessState{};
            }
            return;
        }
        case LTT_EV_FILE_SYSTEM: {
            if (e.subtype != LTT_FS_EXEC)
                return;
            ltt_ev_file_system d;
            const std::size_t n = e.copyDetails(d);
            if (n <= LTT_EV_FS_FIXED)
                return;
            const std::size_t len = strnlen(d.name, n - LTT_EV_FS_FIXED);
            ProcessState& p = procs_m[task(e.pid).tgid];
            p.name = baseName(std::string_view(d.name, len));
            p.space.clear();
            return;
        }
        case LTT_EV_MAP: {
            ++rep.mapRecords;
            const auto det = e.details();
            if (det.size() <= LTT_EV_MAP_FIXED)
                return;
            ltt_ev_map m;
            std::memcpy(&m, det.data(), LTT_EV_MAP_FIXED);
            const char* path = reinterpret_cast<const char*>(det.data() + LTT_EV_MAP_FIXED);
            const std::size_t len = strnlen(path, det.size() - LTT_EV_MAP_FIXED);
            if (m.start + m.length < m.start)
                return;
            procs_m[task(e.pid).tgid].space.add(m.start, m.start + m.length, m.offset,
                                                intern(std::string(path, len)));
            return;
        }
        default:
            return;
        }
    }

    void finish(CallSiteReport& rep) {
        for (auto& [tid, t] : tasks_m)
            if (t.open)
                count(t, 0, false, rep);
        for (auto& [tgid, sites] : sites_m) {
            ProcessCallSites p;
            p.pid = tgid;
            auto it = procs_m.find(tgid);
            p.name = it == procs_m.end() ? "unknown" : it->second.name;
            for (auto& [key, s] : sites) {
                p.calls += s.count;
                p.totalNs += s.totalNs;
                p.sites.push_back(std::move(s));
            }
            std::sort(p.sites.begin(), p.sites.end(),
                      [](const CallSiteStats& a, const CallSiteStats& b) {
                          if (a.totalNs != b.totalNs)
                              return a.totalNs > b.totalNs;
                          if (a.count != b.count)
                              return a.count > b.count;
                          if (a.nr != b.nr)
                              return a.nr < b.nr;
                          return a.site < b.site;
                      });
            rep.processes.push_back(std::move(p));
        }
    }

private:
    Task& task(std::int32_t tid) {
        auto [it, fresh] = tasks_m.try_emplace(tid);
        if (fresh)
            it->second.tgid = tid; // unknown thread: its own process
        return it->second;
    }

    std::shared_ptr<const std::string> intern(const std::string& path) {
        auto& p = paths_m[path];
        if (!p)
            p = std::make_shared<const std::string>(path);
        return p;
    }

    // The site of task `t`'s open call, counted (and timed up to `exitTsc`).
    void count(const Task& t, std::uint64_t exitTsc, bool timed, CallSiteReport& rep) {
        if (pid_m >= 0 && t.tgid != pid_m)
            return;
        std::string site;
        if (t.ip >= kUserTop) {
            site = sym_m.resolveKernel(t.ip).text;
        } else if (auto m = procs_m[t.tgid].space.find(t.ip)) {
            site = sym_m.resolveFile(m->path, m->fileOffset, t.ip).text;
        } else {
            ++rep.unresolved;
            site = Symbolizer::hex(t.ip);
        }
        CallSiteStats& s = sites_m[t.tgid][{t.nr, site}];
        if (!s.count) {
            s.nr = t.nr;
            s.site = std::move(site);
        }
        ++s.count;
        if (timed && exitTsc >= t.entryTsc) {
            ++s.timed;
            s.totalNs += r_m.nsFromAnchor(exitTsc) - r_m.nsFromAnchor(t.entryTsc);
        }
    }

    const TraceReader& r_m;
    Symbolizer& sym_m;
    std::int64_t pid_m;
    std::unordered_map<std::int32_t, Task> tasks_m;
    std::unordered_map<std::int32_t, ProcessState> procs_m;
    std::unordered_map<std::string, std::shared_ptr<const std::string>> paths_m;
    std::map<std::int32_t, std::map<std::pair<std::uint32_t, std::string>, CallSiteStats>> sites_m;
};

} // namespace

CallSiteReport analyzeCallSites(const TraceReader& reader, const ProcSnapshot* snapshot,
                                Symbolizer& symbolizer, std::int64_t pid) {
    CallSiteReport rep;
    rep.ipsRecorded =
        reader.eventEnabled(LTT_EV_SYSCALL_ENTRY) && reader.detailsEnabled(LTT_EV_SYSCALL_ENTRY);
    rep.mapsRecorded = reader.eventEnabled(LTT_EV_MAP) && reader.detailsEnabled(LTT_EV_MAP);
    Walk w(reader, symbolizer, pid);
    if (snapshot)
        w.snapshot(*snapshot);
    TraceCursor c = reader.begin();
    for (; c.valid(); c.next())
        w.event(c.event(), rep);
    if (c.error())
        rep.error = c.error();
    w.finish(rep);
    return rep;
}

void writeCallSitesText(std::FILE* f, const CallSiteReport& rep) {
    std::fprintf(f, "Call sites\n==========\n");
    if (!rep.ipsRecorded)
        std::fprintf(f, "System call entries or their details were masked out at trace time: "
                        "no call site is known.\n");
    if (!rep.mapsRecorded)
        std::fprintf(f, "MAP records were masked out at trace time: call sites of programs "
                        "started during the trace show as addresses.\n");
    for (const auto& p : rep.processes) {
        std::fprintf(f, "\nProcess %d (%s): %" PRIu64 " system calls, %" PRIu64 " ns\n", p.pid,
                     escaped(p.name).c_str(), p.calls, p.totalNs);
        std::fprintf(f, "  %-20s %10s %10s %14s  %s\n", "System call", "Count", "Timed",
                     "Time (ns)", "Call site");
        for (const auto& s : p.sites)
            std::fprintf(f, "  %-20s %10" PRIu64 " %10" PRIu64 " %14" PRIu64 "  %s\n",
                         TraceAnalysis::syscallSlotName(s.nr).c_str(), s.count, s.timed, s.totalNs,
                         escaped(s.site).c_str());
    }
    if (rep.unresolved)
        std::fprintf(f, "\n%" PRIu64 " calls came from addresses no known mapping holds.\n",
                     rep.unresolved);
}

} // namespace ltt
