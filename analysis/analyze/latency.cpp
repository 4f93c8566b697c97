// LatencyAnalysis: see latency.hpp for the definitions. One pass in merged
// order; the per-event work is a switch on the event id and, for the events
// that matter, a few stores into the task current on the event's CPU (found
// through a per-CPU pointer, the pid table only when it changed).
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <libltt/event_format.hpp>
#include <libltt/latency.hpp>
#include <libltt/trace_analysis.hpp>
#include <tuple>
#include <utility>

namespace ltt {

namespace {

constexpr std::uint32_t kCloneThread = 0x00010000;
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
            if (t.pid != 0)
                create(t.pid, t.tgid ? t.tgid : t.pid, t.name).fromSnapshot = true;
    cpus_m.resize(reader.ncpus());
    for (Cpu& c : cpus_m)
        c.current = &tasks_m[0];
    callVec_m.resize(syscallSlots_m + 1);
}

bool LatencyAnalysis::isSelected(const Task& t) const {
    if (t.pid == 0)
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
        if (old->pid != 0 && old->onCpu == e.cpu) {
            old->onCpu = -1;
            old->state = State::Unknown;
        }
    }
    Task& in = live(bs.pid);
    if (c.current != &in || bs.lost) {
        if (c.current->onCpu == e.cpu && c.current != &in)
            c.current->onCpu = -1;
        c.current = &in;
        if (in.pid != 0) {
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
    if (c.current->pid != 0) {
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
    if (in.pid == 0)
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
        if (t.onCpu >= 0 || t.pid == 0)
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
            e.subtype == LTT_PROCESS_FORK && (d.arg & kCloneThread) ? parent.tgid : d.pid;
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
        if (cur->pid == 0)
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
        } else if (e.subtype == LTT_FS_EXEC && cur->pid != 0) {
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
        if (!i || pid == 0)
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

// ------------------------------------------------------------------ output

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
