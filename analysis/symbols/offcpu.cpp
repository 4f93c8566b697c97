// OffCpuAnalysis (offcpu.hpp): one walk over the merged events.
//
// Per CPU, the STACK records written just before a switch wait for it; a
// SCHEDCHANGE that switches its `out` task out blocked opens that task's
// interval with them (their stack is looked up, and symbolized the first
// time it is seen, at that moment: the address space then is the one the
// user frames belong to); the task's next switch-in, on any CPU, closes
// it. Stacks are deduplicated by their raw addresses first, so each
// distinct stack is symbolized once.
#include "symbols_common.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <libltt/event_format.hpp>
#include <libltt/event_schema.hpp>
#include <libltt/offcpu.hpp>
#include <ltt/module_events.h>
#include <map>
#include <memory>
#include <string_view>
#include <unordered_map>

namespace ltt {

namespace {

using schema::kForkCloneThread;
using symbols_common::baseName;
using symbols_common::kUserTop;

// A frame's name in a folded line: no ';' (the separator) and no newline.
std::string foldedName(std::string s) {
    for (char& c : s)
        if (c == ';')
            c = ':';
        else if (c == '\n' || c == '\r')
            c = '?';
    return s;
}

// The frames of one STACK record.
struct Frames {
    std::uint16_t nr = 0;
    std::uint64_t ip[LTT_STACK_DEPTH_MAX];
};

// The STACK records a CPU saw since its last switch.
struct Pending {
    std::int32_t pid = 0;
    bool kernel = false, user = false;
    Frames k, u;
};

struct Task {
    std::int32_t tgid = 0;
    std::uint32_t name = 0; // index in names_m
};

struct Space {
    AddressSpace space;
    std::uint32_t generation = 0; // changes whenever the mappings change
};

// A task off CPU: since when, in which stack.
struct Blocked {
    std::uint64_t startNs = 0;
    std::uint64_t lostEpoch = 0;
    std::uint32_t stack = 0; // index in stacks_m
};

class Walk {
public:
    Walk(const TraceReader& r, Symbolizer& sym, const OffCpuOptions& o, OffCpuReport& rep)
        : r_m(r), sym_m(sym), opt_m(o), rep_m(rep) {
        names_m.emplace_back("unknown");
        pending_m.resize(std::max<std::size_t>(r.ncpus(), 1));
        lastNs_m = r.nsFromAnchor(std::max(r.lastTsc(), r.firstTsc()));
        firstNs_m = r.nsFromAnchor(r.firstTsc());
        fromNs_m = firstNs_m + std::min<std::uint64_t>(o.fromNs, ~0ull - firstNs_m);
        toNs_m = firstNs_m + std::min<std::uint64_t>(o.toNs, ~0ull - firstNs_m);
    }

    void snapshot(const ProcSnapshot& s) {
        for (const auto& t : s.tasks) {
            Task& task = tasks_m[t.pid];
            task.tgid = t.tgid ? t.tgid : t.pid;
            task.name = name(t.name);
        }
        for (const auto& m : s.maps)
            if (m.perm.find('x') != std::string::npos) {
                Space& sp = spaces_m[m.pid];
                sp.space.add(m.start, m.end, m.offset, intern(m.path));
                sp.generation = ++generation_m;
            }
    }

    // False once the walk is past the interval asked.
    bool event(const Event& e) {
        switch (e.id) {
        case LTT_EV_STACK:
            stackRecord(e);
            return true;
        case LTT_EV_SCHEDCHANGE:
            return schedchange(e);
        case LTT_EV_LOST:
            ++lostEpoch_m;
            for (Pending& p : pending_m)
                p.kernel = p.user = false;
            return true;
        case LTT_EV_PROCESS:
            process(e);
            return true;
        case LTT_EV_FILE_SYSTEM:
            if (e.subtype == LTT_FS_EXEC)
                exec(e);
            return true;
        case LTT_EV_MAP:
            map(e);
            return true;
        default:
            return true;
        }
    }

    // Merges the stacks told apart by their raw addresses (and process)
    // into one per list of frames, with each process's share, and sums the
    // processes.
    void finish() {
        rep_m.openAtEnd += blocked_m.size();
        rep_m.fromNs = fromNs_m;
        rep_m.toNs = std::max(fromNs_m, std::min(toNs_m, lastNs_m));
        std::map<std::vector<std::string>,
                 std::pair<OffCpuStack, std::map<std::int32_t, OffCpuShare>>>
            merged;
        std::map<std::int32_t, OffCpuProcess> procs;
        for (auto& s : folded_m) {
            if (!s.intervals)
                continue;
            auto [it, fresh] = merged.try_emplace(s.frames);
            OffCpuStack& m = it->second.first;
            if (fresh) {
                m.userFrames = s.userFrames;
                m.kernelFrames = s.kernelFrames;
                m.recorded = !s.noStack;
            }
            m.ns += s.ns;
            m.intervals += s.intervals;
            OffCpuShare& share = it->second.second[s.tgid];
            share.pid = s.tgid;
            share.ns += s.ns;
            share.intervals += s.intervals;
            OffCpuProcess& p = procs[s.tgid];
            if (p.name.empty())
                p.name = processName(s.tgid, s.frames.front());
            p.pid = s.tgid;
            p.ns += s.ns;
            p.intervals += s.intervals;
            if (s.noStack) {
                p.withoutStack += s.intervals;
                p.withoutStackNs += s.ns;
            }
        }
        for (auto& [frames, m] : merged) {
            m.first.frames = frames;
            for (auto& [pid, share] : m.second)
                m.first.shares.push_back(share);
            rep_m.stacks.push_back(std::move(m.first));
        }
        for (auto& [pid, p] : procs)
            rep_m.processes.push_back(std::move(p));
    }

    // The walk stopped at the end of the interval asked: the report's
    // interval ends there.
    void endAt(std::uint64_t ns) { lastNs_m = ns; }

    // At the end of the interval asked: the tasks still off CPU count up
    // to it.
    void closeAt(std::uint64_t ns) {
        for (auto& [pid, b] : blocked_m)
            count(b, ns);
        blocked_m.clear();
    }

private:
    void stackRecord(const Event& e) {
        ++rep_m.stackRecords;
        if (e.isUser() || e.cpu >= pending_m.size())
            return;
        const auto det = e.details();
        if (det.size() < LTT_EV_STACK_FIXED)
            return;
        ltt_ev_stack head;
        std::memcpy(&head, det.data(), LTT_EV_STACK_FIXED);
        if (head.flags & LTT_STACK_F_TRUNCATED)
            ++rep_m.truncated;
        Pending& p = pending_m[e.cpu];
        if (p.pid != head.pid)
            p.kernel = p.user = false;
        p.pid = head.pid;
        Frames& f = e.subtype == LTT_STACK_KERNEL ? p.k : p.u;
        const std::size_t have = (det.size() - LTT_EV_STACK_FIXED) / sizeof(std::uint64_t);
        f.nr = static_cast<std::uint16_t>(
            std::min<std::size_t>({head.nr, have, std::size_t(LTT_STACK_DEPTH_MAX)}));
        std::memcpy(f.ip, det.data() + LTT_EV_STACK_FIXED, f.nr * sizeof(std::uint64_t));
        if (e.subtype == LTT_STACK_KERNEL)
            p.kernel = true;
        else if (e.subtype == LTT_STACK_USER)
            p.user = true;
    }

    bool schedchange(const Event& e) {
        ltt_ev_schedchange d{};
        if (!e.detailsAs(d))
            return true;
        const std::uint64_t ns = r_m.nsFromAnchor(e.tsc);
        if (ns >= toNs_m)
            return false;
        // The task switched in ends its interval.
        if (d.in > 0) {
            auto it = blocked_m.find(d.in);
            if (it != blocked_m.end()) {
                if (it->second.lostEpoch != lostEpoch_m)
                    ++rep_m.droppedLost;
                else
                    count(it->second, ns);
                blocked_m.erase(it);
            }
        }
        Pending* p = e.cpu < pending_m.size() ? &pending_m[e.cpu] : nullptr;
        const bool stack = p && p->pid == d.out && (p->kernel || p->user);
        if (d.out > 0 && d.out_state != LTT_TASK_RUNNING && !(d.out_state & LTT_TASK_DEAD) &&
            selected(d.out)) {
            Blocked& b = blocked_m[d.out];
            b.startNs = ns;
            b.lostEpoch = lostEpoch_m;
            b.stack = stackIndex(d.out, stack ? p : nullptr);
        }
        if (p)
            p->kernel = p->user = false;
        return true;
    }

    bool selected(std::int32_t pid) {
        if (opt_m.pid < 0 || pid == opt_m.pid)
            return true;
        auto it = tasks_m.find(pid);
        return it != tasks_m.end() && it->second.tgid == opt_m.pid;
    }

    // Adds interval `b`, ended at `endNs`, clipped to the interval asked.
    void count(const Blocked& b, std::uint64_t endNs) {
        if (endNs < fromNs_m || b.startNs >= toNs_m)
            return;
        const std::uint64_t from = std::max(b.startNs, fromNs_m);
        const std::uint64_t to = std::min(endNs, toNs_m);
        const std::uint64_t ns = to > from ? to - from : 0;
        Folded& f = folded_m[b.stack];
        f.ns += ns;
        ++f.intervals;
        ++rep_m.intervals;
        rep_m.blockedNs += ns;
        if (f.noStack) {
            ++rep_m.withoutStack;
            rep_m.withoutStackNs += ns;
        }
    }

    // The stack of `pid` blocking with the records of `p` (null: none), as
    // an index in folded_m, symbolized the first time it is seen.
    std::uint32_t stackIndex(std::int32_t pid, const Pending* p) {
        Task& t = task(pid);
        const Space* sp = nullptr;
        if (p && p->user) {
            auto it = spaces_m.find(t.tgid);
            if (it != spaces_m.end())
                sp = &it->second;
        }
        key_m.clear();
        auto put = [this](const void* v, std::size_t n) {
            key_m.append(static_cast<const char*>(v), n);
        };
        put(&t.name, sizeof t.name);
        put(&t.tgid, sizeof t.tgid);
        const std::uint32_t gen = sp ? sp->generation : 0;
        put(&gen, sizeof gen);
        const std::uint16_t kn = p && p->kernel ? p->k.nr : 0, un = p && p->user ? p->u.nr : 0;
        put(&kn, sizeof kn);
        put(&un, sizeof un);
        if (kn)
            put(p->k.ip, kn * sizeof(std::uint64_t));
        if (un)
            put(p->u.ip, un * sizeof(std::uint64_t));
        auto [it, fresh] = index_m.try_emplace(key_m, static_cast<std::uint32_t>(folded_m.size()));
        if (!fresh)
            return it->second;
        Folded f;
        f.noStack = !p;
        f.tgid = t.tgid;
        f.frames.push_back(names_m[t.name]);
        if (un)
            for (std::size_t i = un; i-- > 0;)
                f.frames.push_back(userFrame(sp, p->u.ip[i]));
        f.userFrames = un;
        if (kn) {
            std::vector<std::string> k;
            for (std::size_t i = 0; i < kn; ++i)
                k.push_back(kernelFrame(p->k.ip[i]));
            // The frames above the scheduler's entry are the hook's.
            const auto sched = std::find(k.begin(), k.end(), "__schedule");
            const std::size_t first = sched == k.end() ? 0 : std::size_t(sched - k.begin());
            for (std::size_t i = k.size(); i-- > first;)
                f.frames.push_back(std::move(k[i]));
            f.kernelFrames = static_cast<std::uint32_t>(k.size() - first);
        }
        folded_m.push_back(std::move(f));
        return it->second;
    }

    // A return address: the call is the byte before it.
    std::string kernelFrame(std::uint64_t ip) {
        if (!sym_m.hasKallsyms())
            return Symbolizer::hex(ip);
        ResolvedAddress a = sym_m.resolveKernel(ip - 1);
        if (a.function.empty())
            return Symbolizer::hex(ip);
        return foldedName(a.binary == "vmlinux" ? a.function : a.binary + "!" + a.function);
    }

    std::string userFrame(const Space* sp, std::uint64_t ip) {
        if (ip >= kUserTop || !sp)
            return Symbolizer::hex(ip);
        const auto m = sp->space.find(ip - 1);
        if (!m)
            return Symbolizer::hex(ip);
        const ResolvedAddress& a = sym_m.resolveFile(m->path, m->fileOffset, ip - 1);
        if (!a.function.empty())
            return foldedName(a.function);
        if (a.inFile)
            return foldedName(baseName(m->path) + "+" + Symbolizer::hex(a.elfAddr + 1));
        return Symbolizer::hex(ip);
    }

    void process(const Event& e) {
        ltt_ev_process d{};
        if (!e.detailsAs(d))
            return;
        if (e.subtype == LTT_PROCESS_FORK) {
            const Task parent = task(e.pid);
            Task& c = tasks_m[d.pid];
            c.name = parent.name;
            if (d.arg & kForkCloneThread) {
                c.tgid = parent.tgid;
            } else {
                c.tgid = d.pid;
                auto it = spaces_m.find(parent.tgid);
                Space copy;
                if (it != spaces_m.end())
                    copy.space = it->second.space;
                copy.generation = ++generation_m;
                spaces_m[d.pid] = std::move(copy);
            }
        } else if (e.subtype == LTT_PROCESS_KTHREAD) {
            tasks_m[d.pid] = Task{d.pid, 0};
            spaces_m.erase(d.pid);
        }
    }

    void exec(const Event& e) {
        ltt_ev_file_system d;
        const std::size_t n = e.copyDetails(d);
        if (n <= LTT_EV_FS_FIXED)
            return;
        const std::size_t len = strnlen(d.name, n - LTT_EV_FS_FIXED);
        Task& t = task(e.pid);
        t.name = name(baseName(std::string_view(d.name, len)));
        Space& sp = spaces_m[t.tgid];
        sp.space.clear();
        sp.generation = ++generation_m;
    }

    void map(const Event& e) {
        const auto det = e.details();
        if (det.size() <= LTT_EV_MAP_FIXED)
            return;
        ltt_ev_map m;
        std::memcpy(&m, det.data(), LTT_EV_MAP_FIXED);
        const char* path = reinterpret_cast<const char*>(det.data() + LTT_EV_MAP_FIXED);
        const std::size_t len = strnlen(path, det.size() - LTT_EV_MAP_FIXED);
        if (m.start + m.length < m.start)
            return;
        Space& sp = spaces_m[task(e.pid).tgid];
        sp.space.add(m.start, m.start + m.length, m.offset, intern(std::string(path, len)));
        sp.generation = ++generation_m;
    }

    Task& task(std::int32_t tid) {
        auto [it, fresh] = tasks_m.try_emplace(tid);
        if (fresh)
            it->second.tgid = tid; // unknown thread: its own process
        return it->second;
    }

    std::uint32_t name(const std::string& n) {
        auto [it, fresh] = nameIndex_m.try_emplace(n, static_cast<std::uint32_t>(names_m.size()));
        if (fresh)
            names_m.push_back(foldedName(n.empty() ? std::string("unknown") : n));
        return it->second;
    }

    std::shared_ptr<const std::string> intern(const std::string& path) {
        auto& p = paths_m[path];
        if (!p)
            p = std::make_shared<const std::string>(path);
        return p;
    }

    // A process's name: its leader's, else the root frame of one of its
    // stacks (a thread's name).
    std::string processName(std::int32_t tgid, const std::string& fallback) const {
        auto it = tasks_m.find(tgid);
        if (it == tasks_m.end() || it->second.name == 0)
            return fallback;
        return names_m[it->second.name];
    }

    struct Folded {
        std::vector<std::string> frames;
        std::uint64_t ns = 0, intervals = 0;
        std::int32_t tgid = 0;
        std::uint32_t userFrames = 0, kernelFrames = 0;
        bool noStack = false;
    };

    const TraceReader& r_m;
    Symbolizer& sym_m;
    const OffCpuOptions& opt_m;
    OffCpuReport& rep_m;
    std::uint64_t firstNs_m = 0, fromNs_m = 0, toNs_m = ~0ull;
    std::uint64_t lastNs_m = 0; // where the walk ended: the trace's end or the interval's
    std::uint64_t lostEpoch_m = 0;
    std::uint32_t generation_m = 0;
    std::vector<Pending> pending_m;
    std::unordered_map<std::int32_t, Task> tasks_m;
    std::unordered_map<std::int32_t, Space> spaces_m;
    std::unordered_map<std::int32_t, Blocked> blocked_m;
    std::vector<std::string> names_m;
    std::unordered_map<std::string, std::uint32_t> nameIndex_m;
    std::unordered_map<std::string, std::shared_ptr<const std::string>> paths_m;
    std::string key_m;
    std::unordered_map<std::string, std::uint32_t> index_m;
    std::vector<Folded> folded_m;
};

std::string joined(const std::vector<std::string>& frames) {
    std::string s;
    for (const auto& f : frames) {
        if (!s.empty())
            s.push_back(';');
        s.append(f);
    }
    return s;
}

} // namespace

OffCpuReport analyzeOffCpu(const TraceReader& reader, const ProcSnapshot* snapshot,
                           Symbolizer& symbolizer, const OffCpuOptions& options) {
    OffCpuReport rep;
    rep.pid = options.pid;
    rep.stacksRecorded = reader.eventEnabled(LTT_EV_STACK) && reader.detailsEnabled(LTT_EV_STACK);
    rep.kernelStacks = !(reader.header().flags & LTT_TRACE_F_RESTRICTED);
    rep.kallsyms = symbolizer.hasKallsyms();
    Walk w(reader, symbolizer, options, rep);
    if (snapshot)
        w.snapshot(*snapshot);
    TraceCursor c = reader.begin();
    bool within = true;
    for (; c.valid(); c.next())
        if (!w.event(c.event())) {
            within = false;
            break;
        }
    if (c.error())
        rep.error = c.error();
    if (!within) {
        const std::uint64_t first = reader.nsFromAnchor(reader.firstTsc());
        w.closeAt(first + std::min<std::uint64_t>(options.toNs, ~0ull - first));
        w.endAt(first + std::min<std::uint64_t>(options.toNs, ~0ull - first));
    }
    w.finish();
    return rep;
}

void writeFolded(std::FILE* f, const OffCpuReport& rep) {
    for (const auto& s : rep.stacks) {
        const std::uint64_t us = foldedMicros(s.ns);
        if (!us)
            continue;
        std::fprintf(f, "%s %" PRIu64 "\n", joined(s.frames).c_str(), us);
    }
}

void writeOffCpuText(std::FILE* f, const OffCpuReport& rep) {
    std::fprintf(f, "Off-CPU time\n============\n");
    if (!rep.stacksRecorded)
        std::fprintf(f, "STACK records were not selected at trace time (tracedaemon -S): the "
                        "blocked time below has no stacks.\n");
    else if (!rep.kernelStacks)
        std::fprintf(f, "A restricted trace: user stacks only, no kernel stacks.\n");
    if (rep.stacksRecorded && rep.kernelStacks && !rep.kallsyms)
        std::fprintf(f, "No kallsyms copy beside the trace: kernel frames are addresses.\n");
    std::fprintf(f,
                 "Blocked intervals: %" PRIu64 ", %.6f s; without a stack: %" PRIu64 ", %.6f s\n",
                 rep.intervals, double(rep.blockedNs) / 1e9, rep.withoutStack,
                 double(rep.withoutStackNs) / 1e9);
    std::fprintf(
        f, "Dropped (events lost while open): %" PRIu64 "; still off CPU at the end: %" PRIu64 "\n",
        rep.droppedLost, rep.openAtEnd);
    std::fprintf(f, "STACK records: %" PRIu64 " (%" PRIu64 " cut at %d frames)\n", rep.stackRecords,
                 rep.truncated, LTT_STACK_DEPTH_MAX);
    std::vector<const OffCpuStack*> order;
    for (const auto& s : rep.stacks)
        order.push_back(&s);
    std::stable_sort(order.begin(), order.end(),
                     [](const OffCpuStack* a, const OffCpuStack* b) { return a->ns > b->ns; });
    std::fprintf(f, "\n%14s %9s  %s\n", "Blocked (us)", "Count", "Stack (root first)");
    for (const OffCpuStack* s : order)
        std::fprintf(f, "%14" PRIu64 " %9" PRIu64 "  %s\n", foldedMicros(s->ns), s->intervals,
                     escaped(joined(s->frames)).c_str());
}

} // namespace ltt
