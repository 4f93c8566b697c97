// Tests of the event graph's views over hand-built traces with known answers
// (libltt timebin_queries.cpp): the kinds each column holds, the CPU view's
// task per CPU, CPU busy time per column, ties at one instant, hit testing
// restricted to some kinds; and TraceAnalysis's addStats().
#include "graph_feeder.hpp"

#include <gtest/gtest.h>
#include <libltt/timebin_model.hpp>
#include <libltt/trace_analysis.hpp>
#include <ltt/events.h>
#include <vector>

namespace {

using ltt::EventGraph;
using ltt::EventGraphBuilder;
using ltt::GraphEventInput;
using ltt::GraphEventKind;
using ltt::RowBins;

using Feeder = ltt::test::GraphFeeder;

constexpr std::uint16_t bit(GraphEventKind k) {
    return std::uint16_t(1u << unsigned(k));
}

// Two CPUs: CPU 0 runs pid 10 over [100, 300), CPU 1 pid 20 over
// [100, 200); idle otherwise. At 500 CPU 0 switches twice at one instant
// (idle → 30 → 40) and runs pid 40 to the end without another record.
EventGraph twoCpus() {
    Feeder f;
    f.ev(100, 0, 0, LTT_EV_SCHEDCHANGE, 0, 10);
    f.ev(100, 1, 0, LTT_EV_SCHEDCHANGE, 0, 20);
    f.ev(150, 0, 10, LTT_EV_SYSCALL_ENTRY);
    f.ev(160, 0, 10, LTT_EV_SYSCALL_EXIT);
    f.ev(200, 1, 20, LTT_EV_SCHEDCHANGE, 0, 0);
    f.ev(300, 0, 10, LTT_EV_SCHEDCHANGE, 0, 0);
    f.ev(500, 0, 0, LTT_EV_SCHEDCHANGE, 0, 30);
    f.ev(500, 0, 30, LTT_EV_SCHEDCHANGE, 0, 40);
    // The trace's last record, on CPU 1: CPU 0 has none after 500.
    f.ev(600, 1, 0, LTT_EV_KERNEL_TIMER);
    return f.finish(600);
}

TEST(TimeBinViews, TaskOnEachCpuAtATime) {
    const EventGraph g = twoCpus();
    ASSERT_EQ(g.cpuCount(), 2u);
    EXPECT_EQ(g.taskAt(0, 99), -1);  // before its first event: unknown
    EXPECT_EQ(g.taskAt(0, 100), 10); // a switch at the instant counts
    EXPECT_EQ(g.taskAt(0, 299), 10);
    EXPECT_EQ(g.taskAt(0, 300), 0);
    EXPECT_EQ(g.taskAt(1, 150), 20);
    EXPECT_EQ(g.taskAt(1, 200), 0);
    // Two switches at one instant: the last one holds after it.
    EXPECT_EQ(g.taskAt(0, 499), 0);
    EXPECT_EQ(g.taskAt(0, 500), 40);
    EXPECT_EQ(g.taskAt(0, 599), 40);
}

TEST(TimeBinViews, CpuTasksPerColumnAreTheTaskAtTheColumnStart) {
    const EventGraph g = twoCpus();
    // Columns of 100 ns starting at 100, 200, ..., 500: the task before the
    // events at each column's start (CPU 1's switch at 200 and CPU 0's at
    // 300 are not yet in).
    std::vector<std::vector<std::int32_t>> out;
    g.cpuTasks(100, 600, 5, out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0], (std::vector<std::int32_t>{-1, 10, 10, 0, 0}));
    EXPECT_EQ(out[1], (std::vector<std::int32_t>{-1, 20, 0, 0, 0}));
    // Columns that start between events.
    g.cpuTasks(150, 650, 5, out);
    EXPECT_EQ(out[0], (std::vector<std::int32_t>{10, 10, 0, 0, 40}));
    EXPECT_EQ(out[1], (std::vector<std::int32_t>{20, 0, 0, 0, 0}));
    // The columns agree with taskAt() just before each column start.
    for (unsigned c = 0; c < 5; ++c) {
        const std::uint64_t t = EventGraph::columnStart(150, 650, 5, c);
        EXPECT_EQ(out[0][c], g.taskAt(0, t - 1)) << "column " << c;
        EXPECT_EQ(out[1][c], g.taskAt(1, t - 1)) << "column " << c;
    }
}

TEST(TimeBinViews, BusyTimePerColumnSumsTheCpus) {
    const EventGraph g = twoCpus();
    // [100, 200): both CPUs busy; [200, 300): CPU 0; then idle until 500,
    // when CPU 0 runs pid 40 to the trace's end at 600 (the time after its
    // last record counts).
    EXPECT_EQ(g.busyNs(100, 600, 5), (std::vector<std::uint64_t>{200, 100, 0, 0, 100}));
    // Columns cutting the time differently: [100, 350), [350, 600).
    EXPECT_EQ(g.busyNs(100, 600, 2), (std::vector<std::uint64_t>{300, 100}));
    std::uint64_t total = 0;
    for (auto ns : g.busyNs(g.startNs(), g.endNs(), 7))
        total += ns;
    EXPECT_EQ(total, 400u);
}

TEST(TimeBinViews, ColumnKindsHoldTheKindsOfTheirMarkers) {
    const EventGraph g = twoCpus();
    std::vector<std::size_t> rows(g.rows().size());
    for (std::size_t r = 0; r < rows.size(); ++r)
        rows[r] = r;
    std::vector<RowBins> out;
    g.binRows(rows, 100, 600, 5, out);
    std::vector<std::uint16_t> kinds(5, 0);
    std::vector<std::uint32_t> counts(5, 0);
    for (std::size_t r : rows)
        for (unsigned c = 0; c < 5; ++c) {
            kinds[c] |= out[r].kinds[c];
            counts[c] += out[r].eventCount[c];
            // A column with markers names their kinds, one without none.
            EXPECT_EQ(out[r].eventCount[c] == 0, out[r].kinds[c] == 0)
                << "row " << r << " column " << c;
        }
    const std::uint16_t sched = bit(GraphEventKind::SchedChange);
    EXPECT_EQ(kinds,
              (std::vector<std::uint16_t>{std::uint16_t(sched | bit(GraphEventKind::Syscall)),
                                          sched, sched, 0, sched}));
    // The switches at 200 and 300 open their columns.
    EXPECT_EQ(counts, (std::vector<std::uint32_t>{4, 1, 1, 0, 2}));
    // The row of pid 10 holds its system call's two markers in column 0.
    const auto row10 = g.rowOfPid(10);
    ASSERT_TRUE(row10);
    EXPECT_TRUE(out[*row10].kinds[0] & bit(GraphEventKind::Syscall));
}

TEST(TimeBinViews, NearestEventSkipsKindsLeftOut) {
    Feeder f;
    f.ev(100, 0, 7, LTT_EV_SYSCALL_ENTRY);
    f.ev(104, 0, 7, LTT_EV_PROCESS, LTT_PROCESS_FORK);
    f.ev(110, 0, 7, LTT_EV_SYSCALL_EXIT);
    const EventGraph g = f.finish(200);
    const auto row = g.rowOfPid(7);
    ASSERT_TRUE(row);
    auto all = g.nearestEvent(*row, 101, 20);
    ASSERT_TRUE(all);
    EXPECT_EQ(all->index, 0u);
    EXPECT_EQ(all->kind, GraphEventKind::Syscall);
    // System calls left out: the fork, 3 ns further.
    auto noSyscalls = g.nearestEvent(*row, 101, 20, std::uint16_t(~bit(GraphEventKind::Syscall)));
    ASSERT_TRUE(noSyscalls);
    EXPECT_EQ(noSyscalls->index, 1u);
    // Only system calls, and none within 2 ns of 105.
    EXPECT_FALSE(g.nearestEvent(*row, 105, 2, bit(GraphEventKind::Syscall)));
    EXPECT_FALSE(g.nearestEvent(*row, 101, 20, 0));
}

ltt::SyscallStats& syscall(ltt::ProcessStats& p, std::uint32_t slot) {
    auto& s = p.syscallTable.entry(p.syscallTable.use(slot));
    s.slot = slot;
    return s;
}

TEST(AddStats, SumsCountsAndTimesAndKeepsTheMaxima) {
    ltt::ProcessStats a, b;
    a.syscalls = 3;
    a.userNs = 100;
    a.runningNs = 250;
    a.maxDelayNs = 40;
    a.maxSliceNs = 90;
    a.wakeups = 1;
    b.syscalls = 2;
    b.userNs = 50;
    b.runningNs = 60;
    b.maxDelayNs = 70;
    b.maxSliceNs = 20;
    b.wakeups = 4;
    b.bytesRead = 4096;
    ltt::addStats(a, b);
    EXPECT_EQ(a.syscalls, 5u);
    EXPECT_EQ(a.userNs, 150u);
    EXPECT_EQ(a.runningNs, 310u);
    EXPECT_EQ(a.maxDelayNs, 70u);
    EXPECT_EQ(a.maxSliceNs, 90u);
    EXPECT_EQ(a.wakeups, 5u);
    EXPECT_EQ(a.bytesRead, 4096u);
}

TEST(AddStats, MergesSystemCallAccounting) {
    ltt::ProcessStats a, b;
    {
        auto& s = syscall(a, 3); // read: two timed calls, 5 and 9 ns
        s.count = 2;
        s.timed = 2;
        s.totalNs = 14;
        s.minNs = 5;
        s.maxNs = 9;
        auto& u = syscall(a, 5); // an entry whose exit was lost: untimed
        u.count = 1;
    }
    {
        auto& s = syscall(b, 3); // one timed call of 2 ns, an error
        s.count = 1;
        s.timed = 1;
        s.totalNs = 2;
        s.minNs = 2;
        s.maxNs = 2;
        s.errors = 1;
        auto& t = syscall(b, 5); // one timed call of 7 ns
        t.count = 1;
        t.timed = 1;
        t.totalNs = 7;
        t.minNs = 7;
        t.maxNs = 7;
        auto& n = syscall(b, 60); // only in b
        n.count = 4;
        n.timed = 4;
        n.totalNs = 40;
        n.minNs = 8;
        n.maxNs = 12;
    }
    ltt::addStats(a, b);
    ASSERT_EQ(a.syscallTable.size(), 3u);
    const auto* read = a.syscallTable.find(3);
    ASSERT_TRUE(read);
    EXPECT_EQ(read->count, 3u);
    EXPECT_EQ(read->timed, 3u);
    EXPECT_EQ(read->totalNs, 16u);
    EXPECT_EQ(read->minNs, 2u);
    EXPECT_EQ(read->maxNs, 9u);
    EXPECT_EQ(read->errors, 1u);
    // An untimed entry takes the other side's extremes, not 0 as a minimum.
    const auto* five = a.syscallTable.find(5);
    ASSERT_TRUE(five);
    EXPECT_EQ(five->count, 2u);
    EXPECT_EQ(five->timed, 1u);
    EXPECT_EQ(five->minNs, 7u);
    EXPECT_EQ(five->maxNs, 7u);
    const auto* sixty = a.syscallTable.find(60);
    ASSERT_TRUE(sixty);
    EXPECT_EQ(sixty->slot, 60u);
    EXPECT_EQ(sixty->count, 4u);
    EXPECT_EQ(sixty->minNs, 8u);
    EXPECT_EQ(sixty->maxNs, 12u);
    // Adding an empty selection changes nothing.
    const ltt::ProcessStats empty;
    ltt::addStats(a, empty);
    EXPECT_EQ(a.syscallTable.size(), 3u);
    EXPECT_EQ(a.syscallTable.find(3)->count, 3u);
}

} // namespace
