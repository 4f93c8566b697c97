// LatencyAnalysis: see latency.hpp for the definitions. One pass in merged
// order; the per-event work is a switch on the event id and, for the events
// that matter, a few stores into the task current on the event's CPU (found
// through a per-CPU pointer, the pid table only when it changed).
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <libltt/event_format.hpp>
#include <libltt/event_schema.hpp>
#include <libltt/latency.hpp>
#include <libltt/trace_analysis.hpp>
#include <tuple>
#include <utility>

namespace ltt {

namespace {

using schema::kForkCloneThread;
constexpr std::uint32_t kTaskNoload = 0x0400;
constexpr std::size_t kMaxNesting = 64; // deeper: exits were lost, start over

} // namespace

const char* latencyKindKey(LatencyKind kind) {
    static const char* const kKeys[kLatencyKinds] = {"wakeup", "preemption", "syscall",
                                                     "irq",    "softirq",    "iowait"};
    return kKeys[static_cast<int>(kind)];
}

std::uint64_t nearestRank(std::vector<std::uint64_t>& v, double p) {
    if (v.empty())
        return 0;
    // rank = ceil(p/100 * n), 1-based; computed in integers for p with at
    // most three decimals so 99 % of 100 values is exactly rank 99.
    const auto n = static_cast<std::uint64_t>(v.size());
    const auto milli = static_cast<std::uint64_t>(std::llround(p * 1000));
    std::uint64_t rank = (milli * n + 100000 - 1) / 100000;
    rank = std::clamp<std::uint64_t>(rank, 1, n);
    auto nth = v.begin() + static_cast<std::ptrdiff_t>(rank - 1);
    std::nth_element(v.begin(), nth, v.end());
    return *nth;
}

LatencyDistribution& LatencyDistribution::operator=(LatencyDistribution&& o) noexcept {
    chunks_m = std::move(o.chunks_m); // the chunks stay where they are: next_m stays valid
    next_m = std::exchange(o.next_m, nullptr);
    end_m = std::exchange(o.end_m, nullptr);
    long_m = std::move(o.long_m);
    fine_m = std::move(o.fine_m);
    buckets_m = o.buckets_m;
    worst_m = std::move(o.worst_m);
    floor_m = o.floor_m;
    count_m = o.count_m;
    min_m = o.min_m;
    max_m = o.max_m;
    total_m = o.total_m;
    p_m = o.p_m;
    sealed_m = o.sealed_m;
    o.chunks_m.clear();
    o.long_m.clear();
    return *this;
}

void LatencyDistribution::addSlow(std::uint64_t ns) {
    if (ns >= kLong) {
        long_m.push_back(ns);
        return;
    }
    const std::size_t size =
        std::min(kFirstChunk << std::min<std::size_t>(chunks_m.size(), 20), kMaxChunk);
    chunks_m.push_back(std::make_unique_for_overwrite<std::uint32_t[]>(size));
    next_m = chunks_m.back().get();
    end_m = next_m + size;
    *next_m++ = static_cast<std::uint32_t>(ns);
}

// Every value kept, in no particular order: f(std::uint32_t) for the
// chunks' values, f(std::uint64_t) for the long ones.
template <class F> void LatencyDistribution::forEachValue(F&& f) const {
    for (std::size_t i = 0; i < chunks_m.size(); ++i) {
        const std::uint32_t* v = chunks_m[i].get();
        const std::uint32_t* end =
            i + 1 < chunks_m.size()
                ? v + std::min(kFirstChunk << std::min<std::size_t>(i, 20), kMaxChunk)
                : next_m;
        for (; v != end; ++v)
            f(*v);
    }
    for (std::uint64_t v : long_m)
        f(v);
}

namespace {

// The runqlat bucket of the values of fine bucket b: that of its lowest
// value, except in the one fine bucket per power of two that a runqlat
// boundary (1000 << k ns) cuts: sub-bucket 30 of 2^e, e >= 10, whose values
// from 1000 << (e - 9) on are in the next runqlat bucket.
struct RunqlatOfFine {
    std::array<std::uint8_t, kFineBuckets> bucket{};
    RunqlatOfFine() {
        for (std::size_t b = 0; b < kFineBuckets; ++b)
            bucket[b] = static_cast<std::uint8_t>(latencyBucket(
                b < 64 ? b : (std::uint64_t{32} | ((b - 64) % 32)) << ((b - 64) / 32 + 1)));
    }
    static constexpr std::size_t kFirstCut = 64 + (10 - 6) * 32 + 30;
    static bool cut(std::size_t b) { return (b & 31) == 30 && b >= kFirstCut; }
    // The runqlat boundary inside cut bucket b.
    static std::uint64_t boundary(std::size_t b) { return 1000ull << ((b - 64) / 32 + 6 - 9); }
};

} // namespace

void LatencyDistribution::seal() {
    if (sealed_m)
        return;
    sealed_m = true;
    std::uint64_t n = long_m.size();
    for (std::size_t i = 0; i < chunks_m.size(); ++i)
        n += i + 1 < chunks_m.size()
                 ? std::min(kFirstChunk << std::min<std::size_t>(i, 20), kMaxChunk)
                 : static_cast<std::uint64_t>(next_m - chunks_m[i].get());
    count_m = n;
    if (n == 0)
        return;
    static const RunqlatOfFine kRunqlat;
    // Min, max, total and the fine histogram; the runqlat buckets follow
    // from the histogram and, for the fine buckets a runqlat boundary
    // cuts, the count of values past it (by power of two). The values in
    // 32 bits go four at a time into four histograms of their own, so
    // that values falling in one bucket do not wait for each other's
    // increments.
    std::uint64_t lo = ~0ull, hi = 0, total = 0;
    std::array<std::uint64_t, 64> past{};
    fine_m = std::make_unique<std::uint64_t[]>(kFineBuckets);
    std::uint64_t* fine = fine_m.get();
    auto count = [&](std::uint64_t v, std::size_t b) __attribute__((always_inline)) {
        if (RunqlatOfFine::cut(b)) [[unlikely]]
            past[(b - 64) / 32] += v >= RunqlatOfFine::boundary(b);
    };
    if (n - long_m.size() < 1024) {
        forEachValue([&](auto v) {
            if constexpr (sizeof v == sizeof(std::uint32_t)) { // the long ones below
                lo = std::min<std::uint64_t>(lo, v);
                hi = std::max<std::uint64_t>(hi, v);
                total += v;
                const std::size_t b = fineBucket(v);
                ++fine[b];
                count(v, b);
            }
        });
    } else {
        auto sub = std::make_unique<std::uint32_t[]>(4 * kFineBuckets);
        std::uint32_t* const h0 = sub.get();
        std::uint32_t* const h1 = h0 + kFineBuckets;
        std::uint32_t* const h2 = h1 + kFineBuckets;
        std::uint32_t* const h3 = h2 + kFineBuckets;
        // Into fine_m before a count could pass 32 bits.
        std::uint64_t unflushed = 0;
        auto flush = [&] {
            for (std::size_t b = 0; b < kFineBuckets; ++b) {
                fine[b] += std::uint64_t{h0[b]} + h1[b] + h2[b] + h3[b];
                h0[b] = h1[b] = h2[b] = h3[b] = 0;
            }
            unflushed = 0;
        };
        for (std::size_t i = 0; i < chunks_m.size(); ++i) {
            if (unflushed >= (std::uint64_t{1} << 31))
                flush();
            const std::uint32_t* v = chunks_m[i].get();
            const std::uint32_t* const end =
                i + 1 < chunks_m.size()
                    ? v + std::min(kFirstChunk << std::min<std::size_t>(i, 20), kMaxChunk)
                    : next_m;
            std::uint32_t lo0 = ~0u, lo1 = ~0u, hi0 = 0, hi1 = 0;
            std::uint64_t t0 = 0, t1 = 0;
            for (; end - v >= 4; v += 4) {
                const std::uint32_t a = v[0], b = v[1], c = v[2], d = v[3];
                lo0 = std::min(lo0, std::min(a, b));
                lo1 = std::min(lo1, std::min(c, d));
                hi0 = std::max(hi0, std::max(a, b));
                hi1 = std::max(hi1, std::max(c, d));
                t0 += std::uint64_t{a} + b;
                t1 += std::uint64_t{c} + d;
                const std::size_t fa = fineBucket(a), fb = fineBucket(b), fc = fineBucket(c),
                                  fd = fineBucket(d);
                ++h0[fa];
                ++h1[fb];
                ++h2[fc];
                ++h3[fd];
                count(a, fa);
                count(b, fb);
                count(c, fc);
                count(d, fd);
            }
            for (; v != end; ++v) {
                lo0 = std::min(lo0, *v);
                hi0 = std::max(hi0, *v);
                t0 += *v;
                const std::size_t f = fineBucket(*v);
                ++h0[f];
                count(*v, f);
            }
            lo = std::min<std::uint64_t>(lo, std::min(lo0, lo1));
            hi = std::max<std::uint64_t>(hi, std::max(hi0, hi1));
            total += t0 + t1;
            unflushed += kMaxChunk;
        }
        flush();
    }
    for (std::uint64_t v : long_m) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        total += v;
        const std::size_t b = fineBucket(v);
        ++fine[b];
        count(v, b);
    }
    for (std::size_t b = fineBucket(lo), last = fineBucket(hi); b <= last; ++b)
        buckets_m[kRunqlat.bucket[b]] += fine[b];
    for (std::size_t b = RunqlatOfFine::kFirstCut; b < kFineBuckets; b += 32) {
        if (const std::uint64_t p = past[(b - 64) / 32]) {
            buckets_m[kRunqlat.bucket[b]] -= p;
            buckets_m[kRunqlat.bucket[b] + 1u] += p;
        }
    }
    min_m = lo;
    max_m = hi;
    total_m = total;
}

void LatencyDistribution::insertWorst(const LatencyInstance& inst, std::size_t keep) {
    // Longest first; of equal ones the earliest (then the lowest CPU), so
    // the list does not depend on the order instances are offered in.
    auto before = [](const LatencyInstance& x, const LatencyInstance& y) {
        if (x.ns != y.ns)
            return x.ns > y.ns;
        return x.startNs != y.startNs ? x.startNs < y.startNs : x.cpu < y.cpu;
    };
    if (worst_m.size() == keep && !before(inst, worst_m.back()))
        return;
    auto at = std::upper_bound(worst_m.begin(), worst_m.end(), inst, before);
    worst_m.insert(at, inst);
    if (worst_m.size() > keep)
        worst_m.pop_back();
    if (worst_m.size() == keep)
        floor_m = worst_m.back().ns; // a shorter one can no longer enter
}

// The nearest-rank percentiles 50, 90 and 99 of the union of some sealed
// distributions' values, exactly: the sum of their fine histograms says
// which bucket holds each rank, then only the values of those buckets are
// selected from (parts with none in them are passed over).
struct LatencyParts {
    // The values fineBucket() puts in bucket b: [low, low + width].
    static std::uint64_t bucketLow(std::size_t b) {
        if (b < 64)
            return b;
        const std::size_t e = (b - 64) / 32 + 6;
        return (std::uint64_t{32} | ((b - 64) % 32)) << (e - 5);
    }
    static std::uint64_t bucketWidth(std::size_t b) {
        return b < 64 ? 0 : (std::uint64_t{1} << ((b - 64) / 32 + 1)) - 1;
    }

    static std::array<std::uint64_t, 3>
    percentiles(const std::vector<const LatencyDistribution*>& parts) {
        std::array<std::uint64_t, 3> out{};
        std::uint64_t n = 0;
        for (const auto* p : parts)
            n += p->count_m;
        if (n == 0)
            return out;
        static constexpr std::uint64_t kMilli[3] = {50000, 90000, 99000};
        std::array<std::uint64_t, 3> rank{};
        for (int i = 0; i < 3; ++i)
            rank[i] = std::clamp<std::uint64_t>((kMilli[i] * n + 100000 - 1) / 100000, 1, n) - 1;
        if (n <= LatencyDistribution::kFineFrom) { // small: select directly
            std::vector<std::uint64_t> all;
            all.reserve(n);
            for (const auto* p : parts)
                p->forEachValue([&](std::uint64_t v) { all.push_back(v); });
            std::size_t from = 0;
            for (int i = 0; i < 3; ++i) {
                auto nth = all.begin() + static_cast<std::ptrdiff_t>(rank[i]);
                std::nth_element(all.begin() + static_cast<std::ptrdiff_t>(from), nth, all.end());
                out[i] = *nth;
                from = rank[i];
            }
            return out;
        }
        std::vector<std::uint64_t> hist(kFineBuckets);
        for (const auto* p : parts)
            if (p->fine_m)
                for (std::size_t b = fineBucket(p->min_m), last = fineBucket(p->max_m); b <= last;
                     ++b)
                    hist[b] += p->fine_m[b];
        std::array<std::size_t, 3> bucket{};
        std::array<std::uint64_t, 3> within{};
        std::uint64_t below = 0;
        int i = 0;
        for (std::size_t b = 0; b < kFineBuckets && i < 3; ++b) {
            while (i < 3 && rank[i] < below + hist[b]) {
                bucket[i] = b;
                within[i] = rank[i] - below;
                ++i;
            }
            below += hist[b];
        }
        // The values of the three buckets (equal buckets share the first's).
        std::array<std::uint64_t, 3> low{}, width{};
        for (int k = 0; k < 3; ++k) {
            low[k] = bucketLow(bucket[k]);
            width[k] = bucketWidth(bucket[k]);
        }
        std::array<std::vector<std::uint64_t>, 3> sel;
        for (const auto* p : parts) {
            if (!p->fine_m ||
                (!p->fine_m[bucket[0]] && !p->fine_m[bucket[1]] && !p->fine_m[bucket[2]]))
                continue;
            p->forEachValue([&](std::uint64_t v) {
                if (v - low[0] <= width[0])
                    sel[0].push_back(v);
                else if (v - low[1] <= width[1])
                    sel[1].push_back(v);
                else if (v - low[2] <= width[2])
                    sel[2].push_back(v);
            });
        }
        for (int k = 0; k < 3; ++k) {
            int from = k;
            while (from > 0 && bucket[from - 1] == bucket[k])
                --from;
            auto& v = sel[static_cast<std::size_t>(from)];
            auto nth = v.begin() + static_cast<std::ptrdiff_t>(within[k]);
            std::nth_element(v.begin(), nth, v.end());
            out[k] = *nth;
        }
        return out;
    }
};

void LatencyDistribution::finish() {
    seal();
    p_m = LatencyParts::percentiles({this});
    // The values are no longer needed: give their memory back.
    std::vector<std::unique_ptr<std::uint32_t[]>>().swap(chunks_m);
    next_m = end_m = nullptr;
    std::vector<std::uint64_t>().swap(long_m);
    fine_m.reset();
}

void LatencyDistribution::finishUnion(const std::vector<LatencyDistribution*>& parts,
                                      std::size_t keep) {
    std::vector<const LatencyDistribution*> sealed;
    sealed.reserve(parts.size());
    for (LatencyDistribution* d : parts) {
        d->seal();
        sealed.push_back(d);
        if (d->count_m == 0)
            continue;
        min_m = count_m ? std::min(min_m, d->min_m) : d->min_m;
        max_m = std::max(max_m, d->max_m);
        total_m += d->total_m;
        count_m += d->count_m;
        for (std::size_t i = 0; i < kLatencyBuckets; ++i)
            buckets_m[i] += d->buckets_m[i];
        for (const LatencyInstance& w : d->worst_m)
            offer(w, keep);
    }
    sealed_m = true;
    p_m = LatencyParts::percentiles(sealed);
}

LatencyAnalysis::LatencyAnalysis(const TraceReader& reader, const ProcSnapshot* snapshot,
                                 LatencyOptions options)
    : reader_m(reader), opt_m(std::move(options)),
      syscallSlots_m(std::min<std::uint32_t>(syscallTableSize(), 0xfffe)) {
    tsc_m = reader.tscConverter();
    auto ev = [&](unsigned id) { return reader.eventEnabled(id); };
    auto det = [&](unsigned id) { return reader.eventEnabled(id) && reader.detailsEnabled(id); };
    const bool sched = det(LTT_EV_SCHEDCHANGE);
    avail_m[static_cast<int>(LatencyKind::Wakeup)] = sched && det(LTT_EV_PROCESS);
    avail_m[static_cast<int>(LatencyKind::Preemption)] = sched;
    avail_m[static_cast<int>(LatencyKind::Syscall)] =
        ev(LTT_EV_SYSCALL_ENTRY) && ev(LTT_EV_SYSCALL_EXIT);
    avail_m[static_cast<int>(LatencyKind::Irq)] = det(LTT_EV_IRQ_ENTRY) && ev(LTT_EV_IRQ_EXIT);
    avail_m[static_cast<int>(LatencyKind::SoftIrq)] = det(LTT_EV_SOFT_IRQ);
    avail_m[static_cast<int>(LatencyKind::IoWait)] = sched;
    Task& idle = create(0, 0, "The All Mighty");
    idle.selected = false;
    if (snapshot)
        for (const ProcTask& t : snapshot->tasks)
            if (t.pid > 0)
                create(t.pid, t.tgid ? t.tgid : t.pid, t.name).fromSnapshot = true;
    cpus_m.resize(reader.ncpus());
    for (Cpu& c : cpus_m)
        c.current = &tasks_m[0];
    callVec_m.resize(syscallSlots_m + 1);
}

bool LatencyAnalysis::isSelected(const Task& t) const {
    if (t.pid <= 0)
        return false;
    if (opt_m.pids.empty())
        return true;
    return std::find(opt_m.pids.begin(), opt_m.pids.end(), t.pid) != opt_m.pids.end() ||
           std::find(opt_m.pids.begin(), opt_m.pids.end(), t.tgid) != opt_m.pids.end();
}

LatencyAnalysis::Task& LatencyAnalysis::create(std::int32_t pid, std::int32_t tgid,
                                               const std::string& name) {
    Task& t = tasks_m.emplace_back();
    t.index = static_cast<std::uint32_t>(tasks_m.size() - 1);
    t.pid = pid;
    t.tgid = tgid;
    t.name = name;
    t.selected = isSelected(t);
    live_m.set(pid, static_cast<std::uint32_t>(tasks_m.size()));
    return t;
}

LatencyAnalysis::Task& LatencyAnalysis::live(std::int32_t pid) {
    if (std::uint32_t i = live_m.find(pid))
        return tasks_m[i - 1];
    Task& t = create(pid, pid, "unknown");
    t.placeholder = true;
    return t;
}

inline TaskLatency& LatencyAnalysis::statsOf(Task& t) {
    if (!t.stats) [[unlikely]] {
        TaskLatency& s = stats_m.emplace_back();
        s.pid = t.pid;
        s.tgid = t.tgid;
        statsTask_m.push_back(&t);
        t.stats = &s;
    }
    return *t.stats;
}

std::vector<const TaskLatency*> LatencyAnalysis::tasks() const {
    // By pid, the instances of a reused pid in the order they lived: the
    // same order whatever order the walk met the tasks in.
    std::vector<std::tuple<std::int32_t, std::uint32_t, const TaskLatency*>> order;
    order.reserve(stats_m.size());
    for (std::size_t i = 0; i < stats_m.size(); ++i)
        order.emplace_back(stats_m[i].pid, statsTask_m[i]->index, &stats_m[i]);
    std::sort(order.begin(), order.end());
    std::vector<const TaskLatency*> out;
    out.reserve(order.size());
    for (const auto& [pid, index, s] : order)
        out.push_back(s);
    return out;
}

// One instance of kind `k`, [start, end], ended on `cpu`: into the
// selection's distribution, the task's, and `also` (a call's, a line's).
[[gnu::always_inline]] inline void LatencyAnalysis::record(LatencyKind k, Task* t,
                                                           std::uint64_t start, std::uint64_t end,
                                                           std::uint16_t cpu, std::uint32_t what,
                                                           LatencyDistribution* also) {
    if (t && !t->selected)
        return;
    const std::uint64_t d = end > start ? end - start : 0;
    const LatencyInstance inst{d, start, cpu, t ? t->pid : -1, what};
    // (The kind's own distribution is its parts' union: finish().)
    if (also) {
        also->add(d);
        also->offer(inst, opt_m.worst);
    }
    if (t) {
        TaskLatency& s = statsOf(*t);
        LatencyDistribution* mine = k == LatencyKind::Wakeup       ? &s.wakeup
                                    : k == LatencyKind::Preemption ? &s.preemption
                                    : k == LatencyKind::Syscall    ? &s.syscall
                                                                   : &s.ioWait;
        mine->add(d);
        mine->offer(inst, opt_m.worst);
    }
}

void LatencyAnalysis::blockStart(const Event& e, std::uint64_t ns) {
    ltt_block_start bs;
    if (!e.detailsAs(bs) || e.cpu >= cpus_m.size())
        return;
    Cpu& c = cpus_m[e.cpu];
    if (bs.lost) {
        // Every interval open anywhere now straddles the gap.
        ++gen_m;
        lost_m += bs.lost;
        c.irqs.clear();
        c.softs.clear();
        Task* old = c.current;
        if (old->pid > 0 && old->onCpu == e.cpu) {
            old->onCpu = -1;
            old->state = State::Unknown;
        }
    }
    Task& in = live(bs.pid);
    if (c.current != &in || bs.lost) {
        if (c.current->onCpu == e.cpu && c.current != &in)
            c.current->onCpu = -1;
        c.current = &in;
        if (in.pid > 0) {
            in.onCpu = e.cpu;
            in.state = State::Running;
        }
    }
    (void)ns;
}

void LatencyAnalysis::schedchange(const Event& e, std::uint64_t ns) {
    ltt_ev_schedchange d;
    if (!e.detailsAs(d))
        return;
    Cpu& c = cpus_m[e.cpu];
    // Interrupt nesting does not survive a context switch on this CPU.
    c.irqs.clear();
    c.softs.clear();
    // The task switched out is the one current on this CPU (as
    // TraceAnalysis has it: the block header is authoritative where a
    // record's `out` disagrees), so preemption and I/O wait add up to the
    // analysis's preempted and I/O wait time.
    if (c.current->pid > 0) {
        Task& out = *c.current;
        out.onCpu = -1;
        out.since = ns;
        out.sinceGen = gen_m;
        const std::uint32_t st = d.out_state;
        if (st == LTT_TASK_RUNNING)
            out.state = State::Preempted;
        else if (st & (LTT_TASK_DEAD | LTT_TASK_ZOMBIE))
            out.state = State::Unknown;
        else if (out.inBufWait || ((st & LTT_TASK_UNINTERRUPTIBLE) && !(st & kTaskNoload)))
            out.state = State::IoBlocked;
        else
            out.state = State::Blocked;
    }
    Task& in = live(d.in);
    c.current = &in;
    if (in.pid <= 0)
        return;
    const bool whole = in.sinceGen == gen_m && ns >= in.since;
    switch (in.state) {
    case State::Woken:
        if (whole)
            record(LatencyKind::Wakeup, &in, in.since, ns, e.cpu, 0, nullptr);
        else if (in.selected)
            ++dropped_m[static_cast<int>(LatencyKind::Wakeup)];
        break;
    case State::Preempted:
        if (whole)
            record(LatencyKind::Preemption, &in, in.since, ns, e.cpu, 0, nullptr);
        else if (in.selected)
            ++dropped_m[static_cast<int>(LatencyKind::Preemption)];
        break;
    case State::IoBlocked: // no wakeup seen: the wait lasted until now
        if (whole)
            record(LatencyKind::IoWait, &in, in.since, ns, e.cpu, 0, nullptr);
        else if (in.selected)
            ++dropped_m[static_cast<int>(LatencyKind::IoWait)];
        break;
    default:
        break;
    }
    in.state = State::Running;
    in.onCpu = e.cpu;
}

void LatencyAnalysis::process(const Event& e, std::uint64_t ns) {
    ltt_ev_process d;
    if (!e.detailsAs(d))
        return;
    switch (e.subtype) {
    case LTT_PROCESS_WAKEUP: {
        Task& t = live(d.pid);
        if (t.onCpu >= 0 || t.pid <= 0)
            break; // still current: it never blocked
        if (t.state == State::IoBlocked) {
            if (t.sinceGen == gen_m && ns >= t.since)
                record(LatencyKind::IoWait, &t, t.since, ns, e.cpu, 0, nullptr);
            else if (t.selected)
                ++dropped_m[static_cast<int>(LatencyKind::IoWait)];
        } else if (t.state != State::Blocked && t.state != State::Unknown) {
            break; // runnable already (preempted, or woken before)
        }
        t.state = State::Woken;
        t.since = ns;
        t.sinceGen = gen_m;
        break;
    }
    case LTT_PROCESS_FORK:
    case LTT_PROCESS_KTHREAD: {
        Task& parent = *cpus_m[e.cpu].current;
        const std::int32_t tgid =
            e.subtype == LTT_PROCESS_FORK && (d.arg & kForkCloneThread) ? parent.tgid : d.pid;
        Task* child = nullptr;
        if (std::uint32_t i = live_m.find(d.pid)) {
            Task& known = tasks_m[i - 1];
            // Its own events came first (another CPU, same time): the same task.
            if ((known.placeholder || known.fromSnapshot) && !known.exited)
                child = &known;
        }
        if (!child) {
            child = &create(d.pid, tgid, parent.name);
        } else {
            if (child->placeholder)
                child->name = parent.name;
            child->tgid = tgid;
            child->selected = isSelected(*child);
        }
        child->placeholder = false;
        // A new task's first run is not a wakeup (sched_wakeup_new).
        child->state = State::New;
        break;
    }
    case LTT_PROCESS_EXIT:
        live(d.pid).exited = true;
        break;
    default:
        break;
    }
}

template <class E> [[gnu::always_inline]] inline void LatencyAnalysis::step(const E& e) {
    if (e.cpu >= cpus_m.size()) [[unlikely]]
        return; // user streams: not scheduling events
    const std::uint64_t ns = tsc_m.ns(e.tsc);
    ++events_m;
    Cpu& c = cpus_m[e.cpu];
    if (c.current->pid != e.pid && e.id != LTT_EV_SCHEDCHANGE && e.id != LTT_EV_BLOCK_START)
        [[unlikely]]
        c.current = &live(e.pid); // the reader's current task is authoritative
    switch (e.id) {
    case LTT_EV_SYSCALL_ENTRY: {
        Task* cur = c.current;
        if (cur->pid <= 0)
            break;
        ltt_ev_syscall_entry d;
        std::uint32_t slot = syscallSlots_m;
        if (e.copyDetails(d) >= 12 && d.nr < syscallSlots_m)
            slot = d.nr;
        cur->inSyscall = true;
        cur->nr = slot;
        cur->sysStart = ns;
        cur->sysGen = gen_m;
        break;
    }
    case LTT_EV_SYSCALL_EXIT: {
        Task* cur = c.current;
        if (!cur->inSyscall)
            break; // the trace started inside this call
        cur->inSyscall = false;
        if (!cur->selected)
            break;
        if (cur->sysGen == gen_m && ns >= cur->sysStart)
            record(LatencyKind::Syscall, cur, cur->sysStart, ns, e.cpu, cur->nr,
                   &callVec_m[cur->nr]);
        else
            ++dropped_m[static_cast<int>(LatencyKind::Syscall)];
        break;
    }
    case LTT_EV_IRQ_ENTRY: {
        ltt_ev_irq_entry d;
        e.copyDetails(d);
        if (c.irqs.size() >= kMaxNesting)
            c.irqs.clear();
        c.irqs.push_back({d.irq | ((d.flags & LTT_IRQ_VECTOR) ? kIrqVectorBit : 0u), ns, gen_m});
        break;
    }
    case LTT_EV_IRQ_EXIT:
        if (!c.irqs.empty()) {
            const Nest n = c.irqs.back();
            c.irqs.pop_back();
            if (n.gen == gen_m)
                record(LatencyKind::Irq, nullptr, n.start, ns, e.cpu, n.what, &irqs_m[n.what]);
            else
                ++dropped_m[static_cast<int>(LatencyKind::Irq)];
        }
        break;
    case LTT_EV_SOFT_IRQ:
        if (e.subtype == LTT_SOFTIRQ_ENTRY) {
            ltt_ev_soft_irq d;
            e.copyDetails(d);
            if (c.softs.size() >= kMaxNesting)
                c.softs.clear();
            c.softs.push_back({static_cast<std::uint32_t>(d.id), ns, gen_m});
        } else if (e.subtype == LTT_SOFTIRQ_EXIT && !c.softs.empty()) {
            const Nest n = c.softs.back();
            c.softs.pop_back();
            if (n.gen == gen_m)
                record(LatencyKind::SoftIrq, nullptr, n.start, ns, e.cpu, n.what, &softs_m[n.what]);
            else
                ++dropped_m[static_cast<int>(LatencyKind::SoftIrq)];
        }
        break;
    case LTT_EV_SCHEDCHANGE:
        schedchange(e, ns);
        break;
    case LTT_EV_PROCESS:
        process(e, ns);
        break;
    case LTT_EV_FILE_SYSTEM: {
        Task* cur = c.current;
        if (e.subtype == LTT_FS_BUF_WAIT_START || e.subtype == LTT_FS_BUF_WAIT_END) {
            cur->inBufWait = e.subtype == LTT_FS_BUF_WAIT_START;
        } else if (e.subtype == LTT_FS_EXEC && cur->pid > 0) {
            ltt_ev_file_system x;
            const std::size_t n = e.copyDetails(x);
            std::size_t len = 0;
            const std::size_t room = n > LTT_EV_FS_FIXED ? n - LTT_EV_FS_FIXED : 0;
            while (len < room && x.name[len])
                ++len;
            if (len)
                cur->name = execName(x.name, len);
        }
        break;
    }
    case LTT_EV_BLOCK_START:
        blockStart(e, ns);
        break;
    default:
        break;
    }
    if (ns < firstNs_m) [[unlikely]]
        firstNs_m = ns;
}

// run() feeds each CPU's events in runs, and only the barriers (SCHEDCHANGE,
// PROCESS, BLOCK_START) in merged order. The other events touch their CPU's
// state and its current task's system-call fields only; a barrier touches
// the tasks it names (their state, the CPU they are on) and reads only what
// barriers write, except a task switched in, forked or named by a block
// while another CPU has it current: that CPU's earlier events must come
// first. A lost-events gap ends the intervals open on every CPU, so every
// CPU's earlier events come first.
template <class E> std::uint32_t LatencyAnalysis::dependsOn(const E& e) const {
    auto elsewhere = [&](std::int32_t pid) -> std::uint32_t {
        const std::uint32_t i = live_m.find(pid);
        if (!i || pid <= 0)
            return 0;
        const std::int32_t on = tasks_m[i - 1].onCpu;
        if (on < 0 || on == e.cpu)
            return 0;
        return on < 31 ? 1u << on : ~TraceCursor::kInOrder;
    };
    switch (e.id) {
    case LTT_EV_SCHEDCHANGE: {
        ltt_ev_schedchange d;
        return e.detailsAs(d) ? elsewhere(d.in) : 0;
    }
    case LTT_EV_PROCESS: {
        ltt_ev_process d;
        if ((e.subtype != LTT_PROCESS_FORK && e.subtype != LTT_PROCESS_KTHREAD) || !e.detailsAs(d))
            return 0;
        return elsewhere(d.pid);
    }
    case LTT_EV_BLOCK_START: {
        ltt_block_start bs;
        if (!e.detailsAs(bs))
            return 0;
        return bs.lost ? ~TraceCursor::kInOrder : elsewhere(bs.pid);
    }
    default:
        return 0;
    }
}

void LatencyAnalysis::add(const Event& e) {
    step(e);
}

void LatencyAnalysis::finish() {

    // Each kind's distribution is the union of its parts: per call, line
    // or vector, or per task.
    auto keyed = [](std::map<std::uint32_t, LatencyDistribution>& m) {
        std::vector<LatencyDistribution*> parts;
        parts.reserve(m.size());
        for (auto& [k, d] : m)
            parts.push_back(&d);
        return parts;
    };
    auto perTask = [&](LatencyDistribution TaskLatency::*m) {
        std::vector<LatencyDistribution*> parts;
        for (TaskLatency& t : stats_m)
            parts.push_back(&(t.*m));
        return parts;
    };
    for (std::uint32_t slot = 0; slot < callVec_m.size(); ++slot)
        if (!callVec_m[slot].empty())
            calls_m.emplace(slot, std::move(callVec_m[slot]));
    std::vector<LatencyDistribution>().swap(callVec_m);
    auto all = [&](LatencyKind k) -> LatencyDistribution& { return all_m[static_cast<int>(k)]; };
    const std::size_t keep = opt_m.worst;
    all(LatencyKind::Wakeup).finishUnion(perTask(&TaskLatency::wakeup), keep);
    all(LatencyKind::Preemption).finishUnion(perTask(&TaskLatency::preemption), keep);
    all(LatencyKind::IoWait).finishUnion(perTask(&TaskLatency::ioWait), keep);
    all(LatencyKind::Syscall).finishUnion(keyed(calls_m), keep);
    all(LatencyKind::Irq).finishUnion(keyed(irqs_m), keep);
    all(LatencyKind::SoftIrq).finishUnion(keyed(softs_m), keep);
    for (auto* m : {&calls_m, &irqs_m, &softs_m})
        for (auto& [k, d] : *m)
            d.finish();
    for (std::size_t i = 0; i < stats_m.size(); ++i) {
        TaskLatency& s = stats_m[i];
        s.name = statsTask_m[i]->name; // the name it ended with (exec renames)
        s.tgid = statsTask_m[i]->tgid;
        for (auto* d : {&s.wakeup, &s.preemption, &s.syscall, &s.ioWait})
            d->finish();
    }
    if (firstNs_m == ~0ull)
        firstNs_m = 0;
}

namespace {
struct LatencyCancelled {};
} // namespace

bool LatencyAnalysis::run(const std::function<bool(double)>& progress) {
    reader_m.adviseSequential();
    const std::uint64_t total = std::max<std::uint64_t>(reader_m.claimedEvents(), 1);
    constexpr std::uint64_t kTick = 0x3ffff;
    std::uint64_t ticks = 0;
    if (progress && !progress(0.0))
        return false;
    TraceCursor c = reader_m.begin();
    try {
        // Each CPU's events in runs between barriers, as TraceAnalysis::run
        // walks (see dependsOn for why the result is the merged order's).
        c.forEachByCpu(
            [this](const auto& e) __attribute__((always_inline)) { step(e); },
            [this](std::uint16_t) __attribute__((always_inline)) {
                return [this](const auto& e) __attribute__((always_inline)) {
                    step(e);
                };
            },
            [](const ltt_record_header& h) {
                return h.event == LTT_EV_SCHEDCHANGE || h.event == LTT_EV_PROCESS ||
                       h.event == LTT_EV_BLOCK_START;
            },
            [this](const auto& e) __attribute__((always_inline)) { return dependsOn(e); }, kTick,
            [&] {
                reader_m.releaseBefore(c.lowestOffset());
                if (progress && !progress(static_cast<double>(++ticks * (kTick + 1)) /
                                          static_cast<double>(total)))
                    throw LatencyCancelled{};
            });
    } catch (const LatencyCancelled&) {
        return false;
    }
    error_m = c.error();
    finish();
    return !error_m;
}

} // namespace ltt
