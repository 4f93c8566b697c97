// LatencyAnalysis and CriticalPath on hand-made traces whose answers are
// known by construction: exact percentiles, runqlat's buckets, the worst
// instances, each kind's interval, what a lost-events gap drops, and the
// critical path of a three-process token chain.
#include "sibling_program.hpp"
#include "trace_builder.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <libltt/critical_path.hpp>
#include <libltt/latency.hpp>
#include <libltt/latency_render.hpp>
#include <libltt/proc_file.hpp>
#include <memory>

using ltt::LatencyKind;
using ltt::test::TraceBuilder;

namespace {

// One tick is one ns; anchor 1000: time ns = tsc - 1000.
constexpr std::uint64_t kAnchor = 1000;

struct Lat {
    std::vector<std::byte> bytes;
    std::unique_ptr<ltt::TraceReader> reader;
    std::unique_ptr<ltt::LatencyAnalysis> a;
};

Lat latency(const TraceBuilder& b, ltt::LatencyOptions o = {}) {
    Lat l;
    l.bytes = b.bytes();
    ltt::TraceError e;
    l.reader = ltt::TraceReader::openMemory(l.bytes, "t.trace", &e);
    if (!l.reader)
        throw std::runtime_error(e.str());
    l.a = std::make_unique<ltt::LatencyAnalysis>(*l.reader, nullptr, o);
    if (!l.a->run())
        throw std::runtime_error(l.a->error()->str());
    return l;
}

ltt_ev_schedchange sc(std::int32_t in, std::int32_t out, std::uint32_t state) {
    return ltt_ev_schedchange{in, out, state, 0};
}
ltt_ev_process wake(std::int32_t pid) {
    return ltt_ev_process{pid, 0, 1};
}

// Task 100 on CPU 0 sleeps and is woken ten times; the i-th wakeup waits
// i microseconds for its CPU.
TraceBuilder tenWakeups() {
    TraceBuilder b(1);
    b.block(0, kAnchor, 100);
    std::uint64_t t = kAnchor + 1000;
    for (std::uint64_t i = 1; i <= 10; ++i) {
        b.ev(t, LTT_EV_SCHEDCHANGE, 0, sc(0, 100, LTT_TASK_INTERRUPTIBLE));
        b.ev(t + 1000, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(100));
        b.ev(t + 1000 + i * 1000, LTT_EV_SCHEDCHANGE, 0, sc(100, 0, LTT_TASK_RUNNING));
        t += 100000;
    }
    b.end(t);
    return b;
}

} // namespace

TEST(LatencyDistribution, NearestRankPercentiles) {
    std::vector<std::uint64_t> v;
    for (std::uint64_t i = 1; i <= 100; ++i)
        v.push_back(101 - i);
    EXPECT_EQ(ltt::nearestRank(v, 50), 50u);
    EXPECT_EQ(ltt::nearestRank(v, 90), 90u);
    EXPECT_EQ(ltt::nearestRank(v, 99), 99u);
    EXPECT_EQ(ltt::nearestRank(v, 100), 100u);
    std::vector<std::uint64_t> one{7};
    EXPECT_EQ(ltt::nearestRank(one, 50), 7u);
    std::vector<std::uint64_t> none;
    EXPECT_EQ(ltt::nearestRank(none, 50), 0u);
}

TEST(LatencyDistribution, RunqlatBuckets) {
    EXPECT_EQ(ltt::latencyBucket(0), 0u);
    EXPECT_EQ(ltt::latencyBucket(1999), 0u); // 1 us
    EXPECT_EQ(ltt::latencyBucket(2000), 1u); // 2 -> 3
    EXPECT_EQ(ltt::latencyBucket(3999), 1u);
    EXPECT_EQ(ltt::latencyBucket(4000), 2u); // 4 -> 7
    EXPECT_EQ(ltt::latencyBucket(1024000), 10u);
}

// A distribution's figures against the values sorted: sizes on both sides
// of the selection threshold and of the chunks, values from 0 ns to
// minutes (the 32-bit ones and the long ones), many on runqlat's bucket
// boundaries; and a union of parts against all their values together.
TEST(LatencyDistribution, FiguresMatchTheSortedValues) {
    std::uint64_t state = 12345;
    auto next = [&state] { // xorshift64
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    auto value = [&](std::uint64_t r) -> std::uint64_t {
        switch (r % 6) {
        case 0:
            return r % 64;
        case 1: // on or beside a runqlat boundary
            return (1000ull << (next() % 40)) - 1 + next() % 3;
        case 2:
            return 0xfffffffeull + next() % 3; // around the 32-bit limit
        case 3:
            return next() % (600ull * 1000000000); // up to ten minutes
        default:
            return next() % 5000000;
        }
    };
    auto check = [](const ltt::LatencyDistribution& d, std::vector<std::uint64_t> v,
                    const std::string& what) {
        ASSERT_EQ(d.count(), v.size()) << what;
        std::sort(v.begin(), v.end());
        std::array<std::uint64_t, ltt::kLatencyBuckets> buckets{};
        std::uint64_t total = 0;
        for (std::uint64_t x : v) {
            ++buckets[ltt::latencyBucket(x)];
            total += x;
        }
        EXPECT_EQ(d.minNs(), v.front()) << what;
        EXPECT_EQ(d.maxNs(), v.back()) << what;
        EXPECT_EQ(d.totalNs(), total) << what;
        EXPECT_EQ(d.buckets(), buckets) << what;
        auto rank = [&](std::uint64_t p) { // nearest rank, 1-based ceil(p/100 n)
            return v[std::max<std::size_t>((p * v.size() + 99) / 100, 1) - 1];
        };
        EXPECT_EQ(d.p50(), rank(50)) << what;
        EXPECT_EQ(d.p90(), rank(90)) << what;
        EXPECT_EQ(d.p99(), rank(99)) << what;
    };
    for (std::size_t n : {1u, 7u, 100u, 1023u, 1024u, 4096u, 4097u, 70000u, 300000u}) {
        ltt::LatencyDistribution d;
        std::vector<std::uint64_t> v;
        for (std::size_t i = 0; i < n; ++i) {
            v.push_back(value(next()));
            d.add(v.back());
        }
        // Moved while being filled, as the per-call table is.
        ltt::LatencyDistribution moved(std::move(d));
        moved.add(42);
        v.push_back(42);
        moved.finish();
        check(moved, v, "n " + std::to_string(n));
    }
    // A union: parts of very different sizes and ranges.
    std::vector<ltt::LatencyDistribution> parts(5);
    std::vector<std::uint64_t> all;
    const std::size_t sizes[] = {3, 5000, 100000, 0, 2000};
    for (std::size_t p = 0; p < parts.size(); ++p)
        for (std::size_t i = 0; i < sizes[p]; ++i) {
            const std::uint64_t x = p == 1 ? 2000 + next() % 3 : value(next());
            parts[p].add(x);
            all.push_back(x);
        }
    ltt::LatencyDistribution u;
    std::vector<ltt::LatencyDistribution*> ptrs;
    for (auto& p : parts)
        ptrs.push_back(&p);
    u.finishUnion(ptrs, 5);
    check(u, all, "union");
}

TEST(Latency, WakeupToRunningExactly) {
    ltt::LatencyOptions o;
    o.worst = 3;
    auto l = latency(tenWakeups(), o);
    const auto& d = l.a->all(LatencyKind::Wakeup);
    ASSERT_EQ(d.count(), 10u);
    EXPECT_EQ(d.minNs(), 1000u);
    EXPECT_EQ(d.maxNs(), 10000u);
    EXPECT_EQ(d.p50(), 5000u); // rank ceil(5) of 1..10 us
    EXPECT_EQ(d.p90(), 9000u);
    EXPECT_EQ(d.p99(), 10000u); // rank ceil(9.9) = 10
    EXPECT_EQ(d.totalNs(), 55000u);
    // 1 us | 2, 3 | 4..7 | 8..10
    EXPECT_EQ(d.buckets()[0], 1u);
    EXPECT_EQ(d.buckets()[1], 2u);
    EXPECT_EQ(d.buckets()[2], 4u);
    EXPECT_EQ(d.buckets()[3], 3u);
    EXPECT_EQ(d.buckets()[4], 0u);
    ASSERT_EQ(d.worst().size(), 3u);
    EXPECT_EQ(d.worst()[0].ns, 10000u);
    EXPECT_EQ(d.worst()[1].ns, 9000u);
    EXPECT_EQ(d.worst()[2].ns, 8000u);
    // The 10th wakeup: at 1000 + 9 * 100000 + 1000 ns.
    EXPECT_EQ(d.worst()[0].startNs, 902000u);
    EXPECT_EQ(d.worst()[0].cpu, 0u);
    EXPECT_EQ(d.worst()[0].pid, 100);
    // Sleeping is neither preemption nor I/O wait.
    EXPECT_EQ(l.a->all(LatencyKind::Preemption).count(), 0u);
    EXPECT_EQ(l.a->all(LatencyKind::IoWait).count(), 0u);
    auto tasks = l.a->tasks();
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_EQ(tasks[0]->pid, 100);
    EXPECT_EQ(tasks[0]->wakeup.count(), 10u);
}

TEST(Latency, PreemptionSyscallsIrqsSoftIrqsAndIoWait) {
    TraceBuilder b(2);
    b.block(0, kAnchor, 100);
    // CPU 0: 100 preempted by 101 for 7 us; a read of 3 us; an open of 5 us.
    b.ev(2000, LTT_EV_SCHEDCHANGE, 0, sc(101, 100, LTT_TASK_RUNNING));
    b.ev(9000, LTT_EV_SCHEDCHANGE, 0, sc(100, 101, LTT_TASK_INTERRUPTIBLE));
    b.ev(10000, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0, 0, 0});
    b.ev(13000, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{1});
    b.ev(14000, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0, 2, 0});
    // an IRQ 14 of 2 us with the APIC timer vector nested in it (1 us)
    b.ev(15000, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{14, 0});
    b.ev(15500, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{0xec, LTT_IRQ_VECTOR});
    b.ev(16500, LTT_EV_IRQ_EXIT);
    b.ev(17000, LTT_EV_IRQ_EXIT);
    b.ev(17500, LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_ENTRY, ltt_ev_soft_irq{4});
    b.ev(18000, LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_EXIT, ltt_ev_soft_irq{4});
    b.ev(19000, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{-2});
    // 100 blocks for I/O at 20 us; woken at 50 us; runs at 52 us.
    b.ev(20000, LTT_EV_SCHEDCHANGE, 0, sc(0, 100, LTT_TASK_UNINTERRUPTIBLE));
    b.end(21000);
    // CPU 1: 200 wakes 100 at 50 us.
    b.block(1, kAnchor, 200);
    b.ev(50000, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(100));
    b.end(51000);
    b.block(0, 52000, 0);
    b.ev(52000, LTT_EV_SCHEDCHANGE, 0, sc(100, 0, LTT_TASK_RUNNING));
    b.end(53000);
    auto l = latency(b);
    const auto& a = *l.a;
    EXPECT_EQ(a.all(LatencyKind::Preemption).count(), 1u);
    EXPECT_EQ(a.all(LatencyKind::Preemption).maxNs(), 7000u);
    EXPECT_EQ(a.all(LatencyKind::Syscall).count(), 2u);
    ASSERT_EQ(a.syscalls().size(), 2u);
    EXPECT_EQ(a.syscalls().at(0).maxNs(), 3000u); // read
    EXPECT_EQ(a.syscalls().at(2).maxNs(), 5000u); // open
    ASSERT_EQ(a.irqs().size(), 2u);
    EXPECT_EQ(a.irqs().at(14).maxNs(), 2000u);
    EXPECT_EQ(a.irqs().at(0xec | ltt::LatencyAnalysis::kIrqVectorBit).maxNs(), 1000u);
    EXPECT_EQ(a.all(LatencyKind::Irq).count(), 2u);
    ASSERT_EQ(a.softIrqs().size(), 1u);
    EXPECT_EQ(a.softIrqs().at(4).maxNs(), 500u);
    ASSERT_EQ(a.all(LatencyKind::IoWait).count(), 1u);
    EXPECT_EQ(a.all(LatencyKind::IoWait).maxNs(), 30000u); // 20 -> 50 us: until the wakeup
    ASSERT_EQ(a.all(LatencyKind::Wakeup).count(), 1u);
    EXPECT_EQ(a.all(LatencyKind::Wakeup).maxNs(), 2000u); // 50 -> 52 us
    EXPECT_EQ(a.all(LatencyKind::Wakeup).worst()[0].cpu, 0u);
    for (std::size_t k = 0; k < ltt::kLatencyKinds; ++k)
        EXPECT_EQ(a.dropped(static_cast<LatencyKind>(k)), 0u);
}

TEST(Latency, AWakeupOfARunningTaskIsNoWakeup) {
    TraceBuilder b(2);
    b.block(0, kAnchor, 100);
    b.ev(2000, LTT_EV_SCHEDCHANGE, 0, sc(0, 100, LTT_TASK_INTERRUPTIBLE));
    b.end(3000);
    b.block(1, kAnchor, 200);
    b.ev(2500, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(200)); // 200 is current
    b.ev(2600, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(100)); // counts
    b.ev(2700, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(100)); // already woken
    b.end(3500);
    b.block(0, 4000, 0);
    b.ev(4000, LTT_EV_SCHEDCHANGE, 0, sc(100, 0, LTT_TASK_RUNNING));
    b.end(5000);
    auto l = latency(b);
    ASSERT_EQ(l.a->all(LatencyKind::Wakeup).count(), 1u);
    EXPECT_EQ(l.a->all(LatencyKind::Wakeup).maxNs(), 1400u); // from the first wakeup
}

TEST(Latency, InstancesAcrossALossAreDroppedAndCounted) {
    TraceBuilder b(2);
    b.block(0, kAnchor, 100);
    b.ev(2000, LTT_EV_SCHEDCHANGE, 0, sc(0, 100, LTT_TASK_INTERRUPTIBLE));
    b.ev(2500, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(100));
    b.end(3000);
    b.block(1, kAnchor, 200);
    b.ev(2100, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0, 0, 0}); // 200's read
    b.end(3100);
    // CPU 1 lost events: both the wakeup wait and the call straddle it.
    b.block(1, 4000, 200, 7);
    b.ev(4500, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0});
    b.ev(4600, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0, 0, 0}); // after: whole
    b.ev(4700, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0});
    b.end(5000);
    b.block(0, 6000, 0);
    b.ev(6000, LTT_EV_SCHEDCHANGE, 0, sc(100, 0, LTT_TASK_RUNNING));
    b.end(7000);
    auto l = latency(b);
    EXPECT_EQ(l.a->lostEvents(), 7u);
    EXPECT_EQ(l.a->all(LatencyKind::Wakeup).count(), 0u);
    EXPECT_EQ(l.a->dropped(LatencyKind::Wakeup), 1u);
    EXPECT_EQ(l.a->all(LatencyKind::Syscall).count(), 1u);
    EXPECT_EQ(l.a->all(LatencyKind::Syscall).maxNs(), 100u);
    EXPECT_EQ(l.a->dropped(LatencyKind::Syscall), 1u);
}

TEST(Latency, PidSelectionKeepsInterruptsSystemWide) {
    TraceBuilder b(1);
    b.block(0, kAnchor, 100);
    b.ev(2000, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0, 0, 0});
    b.ev(3000, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0});
    b.ev(4000, LTT_EV_SCHEDCHANGE, 0, sc(101, 100, LTT_TASK_RUNNING));
    b.ev(5000, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0, 1, 0});
    b.ev(5100, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{3, 0});
    b.ev(5200, LTT_EV_IRQ_EXIT);
    b.ev(7000, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0});
    b.end(8000);
    ltt::LatencyOptions o;
    o.pids = {101};
    auto l = latency(b, o);
    ASSERT_EQ(l.a->all(LatencyKind::Syscall).count(), 1u);
    EXPECT_EQ(l.a->all(LatencyKind::Syscall).maxNs(), 2000u);
    EXPECT_EQ(l.a->syscalls().count(0), 0u); // 100's read is not selected
    EXPECT_EQ(l.a->all(LatencyKind::Irq).count(), 1u);
    EXPECT_EQ(l.a->all(LatencyKind::Preemption).count(), 0u); // 100's
}

TEST(Latency, MaskedEventsAreNotAvailable) {
    TraceBuilder b = tenWakeups();
    b.header().config.event_mask &= ~LTT_EV_BIT(LTT_EV_IRQ_ENTRY);
    auto l = latency(b);
    EXPECT_FALSE(l.a->available(LatencyKind::Irq));
    EXPECT_TRUE(l.a->available(LatencyKind::Wakeup));
}

TEST(Latency, JsonSectionIsValidAndComplete) {
    auto l = latency(tenWakeups());
    char* buf = nullptr;
    std::size_t len = 0;
    std::FILE* f = open_memstream(&buf, &len);
    ltt::writeLatencyJson(f, *l.a);
    std::fclose(f);
    const std::string s(buf, len);
    std::free(buf);
    EXPECT_NE(s.find("\"wakeup\": {\"dropped\": 0, \"count\": 10, \"min_ns\": 1000, \"p50_ns\": "
                     "5000, \"p90_ns\": 9000, \"p99_ns\": 10000, \"max_ns\": 10000"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("{\"low\": 8, \"high\": 15, \"count\": 3}"), std::string::npos) << s;
}

// ------------------------------------------------------------ critical path

namespace {

struct Path {
    std::vector<std::byte> bytes;
    std::unique_ptr<ltt::TraceReader> reader;
    std::unique_ptr<ltt::CriticalPath> p;
};

Path criticalPath(const TraceBuilder& b, std::int32_t pid, std::uint64_t from = 0,
                  std::uint64_t to = ~0ull) {
    Path p;
    p.bytes = b.bytes();
    ltt::TraceError e;
    p.reader = ltt::TraceReader::openMemory(p.bytes, "t.trace", &e);
    if (!p.reader)
        throw std::runtime_error(e.str());
    p.p = std::make_unique<ltt::CriticalPath>(*p.reader, nullptr,
                                              ltt::CriticalPathOptions{pid, from, to});
    if (!p.p->run())
        throw std::runtime_error(p.p->error()->str());
    return p;
}

// A token passed through pipes: 100 (first) sleeps 10 ms on a timer, then
// writes to 101 (middle), which writes to 102 (last). Only the first
// sleeps; the others wait in read(). Two CPUs.
TraceBuilder tokenChain() {
    TraceBuilder b(2);
    const std::uint64_t t0 = kAnchor + 1000, t1 = t0 + 10000000; // timer fires
    b.block(0, t0, 100);
    b.ev(t0, LTT_EV_SCHEDCHANGE, 0, sc(0, 100, LTT_TASK_INTERRUPTIBLE)); // nanosleep
    b.end(t0 + 100);
    b.block(1, t0, 101);
    b.ev(t0 + 10, LTT_EV_SCHEDCHANGE, 0, sc(102, 101, LTT_TASK_INTERRUPTIBLE)); // read
    b.ev(t0 + 2000, LTT_EV_SCHEDCHANGE, 0, sc(0, 102, LTT_TASK_INTERRUPTIBLE)); // read
    b.end(t0 + 2100);
    b.block(0, t1, 0);
    b.ev(t1, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{0xec, LTT_IRQ_VECTOR});
    b.ev(t1 + 500, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(100));
    b.ev(t1 + 1000, LTT_EV_IRQ_EXIT);
    b.ev(t1 + 2000, LTT_EV_SCHEDCHANGE, 0, sc(100, 0, LTT_TASK_RUNNING));
    b.ev(t1 + 7000, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(101)); // write
    b.ev(t1 + 9000, LTT_EV_SCHEDCHANGE, 0, sc(0, 100, LTT_TASK_INTERRUPTIBLE));
    b.end(t1 + 10000);
    b.block(1, t1 + 8000, 0);
    b.ev(t1 + 8000, LTT_EV_SCHEDCHANGE, 0, sc(101, 0, LTT_TASK_RUNNING));
    b.ev(t1 + 15000, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(102)); // write
    b.ev(t1 + 16000, LTT_EV_SCHEDCHANGE, 0, sc(102, 101, LTT_TASK_INTERRUPTIBLE));
    b.ev(t1 + 30000, LTT_EV_SCHEDCHANGE, 0, sc(0, 102, LTT_TASK_INTERRUPTIBLE));
    b.end(t1 + 31000);
    return b;
}

} // namespace

TEST(CriticalPath, TokenChainIsTheFirstOnesTimerThroughTheMiddleOne) {
    // The last one's wait: from its read (2000 ns after the trace's first
    // event... t0 + 2000) to the token's arrival and its run.
    auto p = criticalPath(tokenChain(), 102);
    ASSERT_TRUE(p.p->found());
    const auto& sum = p.p->summary();
    ASSERT_FALSE(sum.empty());
    const std::uint64_t span = p.p->toNs() - p.p->fromNs();
    EXPECT_EQ(sum[0].kind, ltt::CriticalKind::Timer);
    EXPECT_EQ(sum[0].pid, 100);
    EXPECT_GE(static_cast<double>(sum[0].ns), 0.95 * static_cast<double>(span));
    // The timer stretch is reached through the middle one, then the first.
    bool through = false;
    for (const auto& s : p.p->segments())
        if (s.kind == ltt::CriticalKind::Timer)
            through = s.via == std::vector<std::int32_t>{101, 100};
    EXPECT_TRUE(through);
    // The path covers the interval without gaps or overlaps.
    std::uint64_t at = p.p->fromNs();
    for (const auto& s : p.p->segments()) {
        EXPECT_EQ(s.startNs, at);
        at = s.endNs;
    }
    EXPECT_EQ(at, p.p->toNs());
    // Exact pieces: the first one's run before its write (5 us, then 2 us
    // to the write: 100 runs t1+2000 .. t1+7000), the middle one's run.
    const std::uint64_t t1 = 10000000 + 1000; // tokenChain()'s t1, in ns
    bool firstRan = false, middleRan = false;
    for (const auto& s : p.p->segments()) {
        if (s.kind == ltt::CriticalKind::Running && s.pid == 100) {
            EXPECT_EQ(s.startNs, t1 + 2000);
            EXPECT_EQ(s.endNs, t1 + 7000);
            firstRan = true;
        }
        if (s.kind == ltt::CriticalKind::Running && s.pid == 101) {
            EXPECT_EQ(s.startNs, t1 + 8000);
            EXPECT_EQ(s.endNs, t1 + 15000);
            middleRan = true;
        }
    }
    EXPECT_TRUE(firstRan);
    EXPECT_TRUE(middleRan);
    EXPECT_NE(p.p->describe(sum[0]).find("timer"), std::string::npos);
}

TEST(CriticalPath, IntervalIsClipped) {
    // From 5 ms to 6 ms after the first event: all of it the first one's timer.
    auto p = criticalPath(tokenChain(), 102, 5000000, 6000000);
    ASSERT_TRUE(p.p->found());
    ASSERT_EQ(p.p->segments().size(), 1u);
    EXPECT_EQ(p.p->segments()[0].kind, ltt::CriticalKind::Timer);
    EXPECT_EQ(p.p->segments()[0].endNs - p.p->segments()[0].startNs, 1000000u);
}

TEST(CriticalPath, EndsWhereTheTaskDied) {
    // The last one exits at its final switch (t1 + 30000) and the trace
    // goes on for 5 ms: its path ends at the exit, with no "unknown" after.
    const std::uint64_t t1 = kAnchor + 1000 + 10000000;
    TraceBuilder b(2);
    const std::uint64_t t0 = kAnchor + 1000;
    b.block(0, t0, 100);
    b.ev(t0, LTT_EV_SCHEDCHANGE, 0, sc(0, 100, LTT_TASK_INTERRUPTIBLE));
    b.end(t0 + 100);
    b.block(1, t0, 102);
    b.ev(t0 + 2000, LTT_EV_SCHEDCHANGE, 0, sc(0, 102, LTT_TASK_INTERRUPTIBLE));
    b.end(t0 + 2100);
    b.block(0, t1, 0);
    b.ev(t1, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(100));
    b.ev(t1 + 2000, LTT_EV_SCHEDCHANGE, 0, sc(100, 0, LTT_TASK_RUNNING));
    b.ev(t1 + 7000, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(102));
    b.ev(t1 + 9000, LTT_EV_SCHEDCHANGE, 0, sc(0, 100, LTT_TASK_INTERRUPTIBLE));
    b.end(t1 + 10000);
    b.block(1, t1 + 8000, 0);
    b.ev(t1 + 8000, LTT_EV_SCHEDCHANGE, 0, sc(102, 0, LTT_TASK_RUNNING));
    b.ev(t1 + 30000, LTT_EV_SCHEDCHANGE, 0, sc(0, 102, LTT_TASK_DEAD));
    b.ev(t1 + 5000000, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, wake(100));
    b.end(t1 + 5001000);
    auto p = criticalPath(b, 102);
    ASSERT_TRUE(p.p->found());
    EXPECT_EQ(p.p->toNs(), t1 + 30000 - kAnchor);
    ASSERT_FALSE(p.p->segments().empty());
    EXPECT_EQ(p.p->segments().back().kind, ltt::CriticalKind::Running);
    for (const auto& s : p.p->segments())
        EXPECT_NE(s.kind, ltt::CriticalKind::Unknown) << s.startNs << ".." << s.endNs;
}

TEST(CriticalPath, UnknownTaskIsNotFound) {
    auto p = criticalPath(tokenChain(), 4242);
    EXPECT_FALSE(p.p->found());
}

namespace {

std::string latencyText(const ltt::LatencyAnalysis& a) {
    char* buf = nullptr;
    std::size_t len = 0;
    std::FILE* f = open_memstream(&buf, &len);
    ltt::writeLatencyText(f, a);
    ltt::writeLatencyJson(f, a);
    std::fclose(f);
    std::string s(buf, len);
    std::free(buf);
    return s;
}

} // namespace

// run() feeds each CPU's events in runs between barriers: the report must
// be the one of the merged order (add() over a TraceCursor), lost events
// and many CPUs included.
TEST(Latency, RunMatchesMergedOrderOnSynthTraces) {
    const auto synth = ltt::test::siblingProgram("ltt-synth");
    ASSERT_TRUE(std::filesystem::exists(synth)) << synth << " not built";
    const auto dir =
        std::filesystem::temp_directory_path() / ("latency-order-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string cases[] = {
        "--events 100000 --cpus 4 --processes 32 --seed 1",
        "--events 50000 --cpus 2 --processes 8 --seed 3 --lost 400",
        "--events 80000 --cpus 16 --processes 64 --seed 5 --lost 100",
        "--events 20000 --cpus 33 --processes 40 --seed 6",
    };
    for (const auto& args : cases) {
        const auto prefix = (dir / "t").string();
        const std::string cmd = synth.string() + " " + args + " -o " + prefix + " >/dev/null";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        ltt::TraceError err;
        auto reader = ltt::TraceReader::open(prefix + ".trace", &err);
        ASSERT_TRUE(reader) << args << ": " << err.str();
        ltt::ProcParseError perr;
        auto snap = ltt::readProcFile(prefix + ".proc", &perr);
        ASSERT_TRUE(snap) << perr.str();
        ltt::LatencyAnalysis fast(*reader, &*snap);
        ASSERT_TRUE(fast.run()) << args;
        ltt::LatencyAnalysis merged(*reader, &*snap);
        for (ltt::TraceCursor c = reader->begin(); c.valid(); c.next())
            merged.add(c.event());
        merged.finish();
        EXPECT_GT(fast.all(LatencyKind::Syscall).count(), 0u) << args;
        EXPECT_EQ(latencyText(fast), latencyText(merged)) << args;
    }
    std::filesystem::remove_all(dir);
}
