// Tests of the event graph's time-bin model (analysis/src/timebin_model.cpp):
// control placement per the trace-format §3 rules, column binning by binary
// search, and hit testing.
#include <algorithm>
#include <gtest/gtest.h>
#include <ltt/events.h>
#include <ltt/timebin_model.hpp>
#include <vector>

namespace {

using ltt::EventGraph;
using ltt::EventGraphBuilder;
using ltt::GraphEventInput;
using ltt::GraphEventKind;
using ltt::RowBins;

struct Feeder {
    EventGraphBuilder builder;
    std::uint64_t index = 0;
    void ev(std::uint64_t t, std::uint16_t cpu, std::int32_t pid, std::uint8_t event,
            std::uint8_t sub = 0, std::int32_t in = 0, bool fromKernel = false,
            std::uint64_t lost = 0) {
        GraphEventInput e;
        e.index = index++;
        e.timeNs = t;
        e.cpu = cpu;
        e.pid = pid;
        e.event = event;
        e.subtype = sub;
        e.schedIn = in;
        e.fromKernel = fromKernel;
        e.lostCount = lost;
        builder.add(e);
    }
};

// The paper's Figure 6/7 story on one CPU: pid 100 makes a write system call,
// waits for I/O, the idle task runs, an IRQ wakes 100, which returns to user
// mode.
EventGraph figureSix() {
    Feeder f;
    f.ev(1000, 0, 100, LTT_EV_SYSCALL_ENTRY);                      // 0: user -> kernel
    f.ev(1100, 0, 100, LTT_EV_FILE_SYSTEM, LTT_FS_WRITE);          // 1
    f.ev(1200, 0, 100, LTT_EV_FILE_SYSTEM, LTT_FS_BUF_WAIT_START); // 2
    f.ev(1300, 0, 100, LTT_EV_SCHEDCHANGE, 0, 0);                  // 3: -> idle
    f.ev(5000, 0, 0, LTT_EV_IRQ_ENTRY, 0, 0, true);                // 4: idle -> kernel
    f.ev(5010, 0, 0, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP);          // 5
    f.ev(5020, 0, 0, LTT_EV_IRQ_EXIT);                             // 6: -> idle
    f.ev(5030, 0, 0, LTT_EV_SCHEDCHANGE, 0, 100);                  // 7: -> 100 in kernel
    f.ev(5040, 0, 100, LTT_EV_FILE_SYSTEM, LTT_FS_BUF_WAIT_END);   // 8
    f.ev(5100, 0, 100, LTT_EV_SYSCALL_EXIT);                       // 9: -> user 100
    f.ev(6000, 0, 100, LTT_EV_SYSCALL_ENTRY);                      // 10: -> kernel
    return f.builder.finish(7000);
}

TEST(TimeBinModel, RowsAreKernelIdleThenProcessesByPid) {
    Feeder f;
    f.ev(10, 0, 300, LTT_EV_SYSCALL_ENTRY);
    f.ev(20, 1, 7, LTT_EV_SYSCALL_ENTRY);
    f.ev(30, 0, 300, LTT_EV_SCHEDCHANGE, 0, 42);
    EventGraph g = f.builder.finish(40);
    ASSERT_EQ(g.rows().size(), 5u);
    EXPECT_EQ(g.rows()[0].kind, ltt::GraphRowKind::Kernel);
    EXPECT_EQ(g.rows()[1].kind, ltt::GraphRowKind::Idle);
    EXPECT_EQ(g.rows()[2].pid, 7);
    EXPECT_EQ(g.rows()[3].pid, 42);
    EXPECT_EQ(g.rows()[4].pid, 300);
    EXPECT_EQ(g.rowOfPid(42), 3u);
    EXPECT_EQ(g.rowOfPid(0), 1u);
    EXPECT_FALSE(g.rowOfPid(5).has_value());
    EXPECT_EQ(g.startNs(), 10u);
    EXPECT_EQ(g.endNs(), 40u);
}

TEST(TimeBinModel, ControlFollowsSyscallsSchedulingAndIrqs) {
    EventGraph g = figureSix();
    const std::size_t k = g.kernelRow(), idle = g.idleRow(), p = *g.rowOfPid(100);
    // In the write system call: kernel.
    EXPECT_TRUE(g.hasControl(k, 1050));
    EXPECT_FALSE(g.hasControl(p, 1050));
    // Waiting for I/O: the idle task runs.
    EXPECT_TRUE(g.hasControl(idle, 2000));
    EXPECT_FALSE(g.hasControl(k, 2000));
    EXPECT_FALSE(g.hasControl(p, 2000));
    // The disk IRQ: kernel.
    EXPECT_TRUE(g.hasControl(k, 5015));
    EXPECT_FALSE(g.hasControl(idle, 5015));
    // Back to idle for 10 ns, then 100 resumes in the kernel...
    EXPECT_TRUE(g.hasControl(idle, 5025));
    EXPECT_TRUE(g.hasControl(k, 5050));
    // ... and returns to user mode.
    EXPECT_TRUE(g.hasControl(p, 5500));
    EXPECT_FALSE(g.hasControl(k, 5500));
    EXPECT_TRUE(g.hasControl(k, 6500));
}

TEST(TimeBinModel, MarkersGoToTaskRowsAndIrqsToKernel) {
    EventGraph g = figureSix();
    const std::size_t k = g.kernelRow(), idle = g.idleRow(), p = *g.rowOfPid(100);
    EXPECT_EQ(g.markerCount(k), 2u);    // IRQ entry and exit
    EXPECT_EQ(g.markerCount(idle), 2u); // wakeup, schedchange 0 -> 100
    EXPECT_EQ(g.markerCount(p), 7u);
    EXPECT_EQ(g.eventCount(), 11u);
}

TEST(TimeBinModel, BinsFindFirstEventPerColumn) {
    EventGraph g = figureSix();
    const std::size_t p = *g.rowOfPid(100);
    RowBins b;
    // 10 columns of 100 ns over [1000, 2000).
    g.bin(p, 1000, 2000, 10, b);
    ASSERT_EQ(b.firstEvent.size(), 10u);
    EXPECT_EQ(b.firstEvent[0], 0);
    EXPECT_EQ(b.firstKind[0], GraphEventKind::Syscall);
    EXPECT_EQ(b.firstEvent[1], 1);
    EXPECT_EQ(b.firstKind[2], GraphEventKind::IoWaitStart);
    EXPECT_EQ(b.firstEvent[3], 3);
    EXPECT_EQ(b.firstKind[3], GraphEventKind::SchedChange);
    for (int c = 4; c < 10; ++c)
        EXPECT_EQ(b.firstEvent[c], -1) << c;
    EXPECT_EQ(b.eventCount[0], 1u);

    // One wide column holds everything of the row.
    g.bin(p, 0, 7000, 1, b);
    EXPECT_EQ(b.firstEvent[0], 0);
    EXPECT_EQ(b.eventCount[0], 7u);
}

TEST(TimeBinModel, BinsReportControl) {
    EventGraph g = figureSix();
    const std::size_t k = g.kernelRow(), idle = g.idleRow(), p = *g.rowOfPid(100);
    RowBins b;
    // Columns of 1000 ns over [0, 7000).
    g.bin(k, 0, 7000, 7, b);
    EXPECT_EQ(b.control[0], 0);                        // before the trace
    EXPECT_EQ(b.control[1], RowBins::kControlChanges); // 1000..1300 in kernel
    EXPECT_EQ(b.control[2], 0);                        // idle
    EXPECT_EQ(b.control[5], RowBins::kControlChanges); // IRQ, resume, exit
    EXPECT_EQ(b.control[6], RowBins::kControlChanges | RowBins::kControlAtEnd);
    g.bin(idle, 0, 7000, 7, b);
    EXPECT_EQ(b.control[2], RowBins::kControlAtStart | RowBins::kControlAtEnd);
    EXPECT_EQ(b.control[3], RowBins::kControlAtStart | RowBins::kControlAtEnd);
    g.bin(p, 5500, 5600, 4, b);
    for (auto c : b.control)
        EXPECT_EQ(c, RowBins::kControlAtStart | RowBins::kControlAtEnd);
}

TEST(TimeBinModel, ColumnsPartitionTheRangeExactly) {
    EXPECT_EQ(EventGraph::columnStart(0, 10, 3, 0), 0u);
    EXPECT_EQ(EventGraph::columnStart(0, 10, 3, 1), 3u);
    EXPECT_EQ(EventGraph::columnStart(0, 10, 3, 3), 10u);
    // Huge ranges do not overflow.
    const std::uint64_t big = ~0ull - 5;
    EXPECT_EQ(EventGraph::columnStart(0, big, 1000, 1000), big);
    // More columns than nanoseconds: the empty columns find nothing.
    EventGraph g = figureSix();
    RowBins b;
    g.bin(*g.rowOfPid(100), 1000, 1002, 8, b);
    int found = 0;
    for (auto e : b.firstEvent)
        found += e == 0;
    EXPECT_EQ(found, 1);
}

TEST(TimeBinModel, DensitySumsAllRows) {
    EventGraph g = figureSix();
    auto d = g.density(0, 7000, 7);
    std::uint32_t total = 0;
    for (auto x : d)
        total += x;
    EXPECT_EQ(total, 11u);
    EXPECT_EQ(d[5], 6u); // events 4..9
}

TEST(TimeBinModel, NearestEventHitTest) {
    EventGraph g = figureSix();
    const std::size_t p = *g.rowOfPid(100);
    auto hit = g.nearestEvent(p, 1090, 50);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->index, 1u);
    EXPECT_EQ(hit->timeNs, 1100u);
    EXPECT_FALSE(g.nearestEvent(p, 3000, 50));
    hit = g.nearestEvent(p, 6100, 200);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->index, 10u);
}

TEST(TimeBinModel, LostEventsAreMarkedAndDropOpenIntervals) {
    Feeder f;
    f.ev(100, 0, 5, LTT_EV_SYSCALL_ENTRY);
    f.ev(200, 0, 5, LTT_EV_SYSCALL_EXIT); // user mode of 5
    f.ev(900, 0, 6, LTT_EV_LOST, 0, 0, false, 42);
    f.ev(950, 0, 6, LTT_EV_SYSCALL_EXIT); // restarted in the kernel for 6: -> user 6
    EventGraph g = f.builder.finish(1000);
    ASSERT_EQ(g.lost().size(), 1u);
    EXPECT_EQ(g.lost()[0].count, 42u);
    EXPECT_EQ(g.lost()[0].timeNs, 900u);
    EXPECT_TRUE(g.hasControl(*g.rowOfPid(5), 500));
    EXPECT_FALSE(g.hasControl(*g.rowOfPid(5), 920));
    EXPECT_TRUE(g.hasControl(g.kernelRow(), 920));
    EXPECT_TRUE(g.hasControl(*g.rowOfPid(6), 960));
}

TEST(TimeBinModel, TwoCpusCanShareTheKernel) {
    Feeder f;
    f.ev(100, 0, 5, LTT_EV_SYSCALL_EXIT);  // cpu0: user 5
    f.ev(110, 1, 6, LTT_EV_SYSCALL_EXIT);  // cpu1: user 6
    f.ev(200, 0, 5, LTT_EV_SYSCALL_ENTRY); // both in the kernel
    f.ev(210, 1, 6, LTT_EV_SYSCALL_ENTRY);
    f.ev(300, 0, 5, LTT_EV_SYSCALL_EXIT); // cpu1 still in the kernel
    EventGraph g = f.builder.finish(400);
    EXPECT_TRUE(g.hasControl(g.kernelRow(), 250));
    EXPECT_TRUE(g.hasControl(g.kernelRow(), 350));
    EXPECT_TRUE(g.hasControl(*g.rowOfPid(5), 350));
    EXPECT_FALSE(g.hasControl(*g.rowOfPid(6), 350));
}

TEST(TimeBinModel, KindsCoverTheLegend) {
    EXPECT_EQ(ltt::graphEventKindOf(LTT_EV_SOFT_IRQ, LTT_TASKLET_ENTRY),
              GraphEventKind::BottomHalf);
    EXPECT_EQ(ltt::graphEventKindOf(LTT_EV_MEMORY, LTT_MEM_PAGE_WAIT_END),
              GraphEventKind::IoWaitEnd);
    EXPECT_EQ(ltt::graphEventKindOf(LTT_EV_KERNEL_TIMER, 0), GraphEventKind::KernelTimer);
    EXPECT_FALSE(ltt::graphEventKindOf(LTT_EV_HEARTBEAT, 0));
    EXPECT_FALSE(ltt::graphEventKindOf(LTT_EV_BLOCK_START, 0));
    EXPECT_EQ(ltt::graphEventKindName(GraphEventKind::Syscall), "System call");
}

} // namespace

namespace {

TEST(TimeBinModel, StructureRecordsDoNotSetState) {
    Feeder f;
    f.ev(0, 0, 100, LTT_EV_BLOCK_START);
    f.ev(0, 0, 100, LTT_EV_TRACE_START);
    f.ev(10, 0, 100, LTT_EV_SYSCALL_ENTRY); // from user mode: 100 was in user mode
    f.ev(20, 0, 100, LTT_EV_SYSCALL_EXIT);
    f.ev(30, 0, 100, LTT_EV_HEARTBEAT);
    EventGraph g = f.builder.finish(40);
    EXPECT_EQ(g.eventCount(), 2u);
    EXPECT_TRUE(g.hasControl(g.kernelRow(), 15));
    EXPECT_TRUE(g.hasControl(*g.rowOfPid(100), 25));
    EXPECT_TRUE(g.hasControl(*g.rowOfPid(100), 35));
}

TEST(TimeBinModel, EntriesResynchroniseDepth) {
    Feeder f;
    // The trace starts inside a system call of 7 that never exits in the
    // trace; an IRQ from user mode proves 7 is back in user mode.
    f.ev(10, 0, 7, LTT_EV_FILE_SYSTEM, LTT_FS_READ);
    f.ev(20, 0, 7, LTT_EV_IRQ_ENTRY, 0, 0, false);
    f.ev(30, 0, 7, LTT_EV_IRQ_EXIT);
    // A task preempted in user mode resumes in user mode.
    f.ev(40, 0, 7, LTT_EV_SCHEDCHANGE, 0, 8);
    f.ev(50, 0, 8, LTT_EV_SYSCALL_ENTRY);
    f.ev(60, 0, 8, LTT_EV_SCHEDCHANGE, 0, 7);
    EventGraph g = f.builder.finish(100);
    EXPECT_TRUE(g.hasControl(g.kernelRow(), 15));
    EXPECT_TRUE(g.hasControl(*g.rowOfPid(7), 35));
    EXPECT_TRUE(g.hasControl(*g.rowOfPid(7), 70));
    EXPECT_FALSE(g.hasControl(g.kernelRow(), 70));
}

} // namespace

namespace {

// bin() against a brute-force count over random events and random windows.
TEST(TimeBinModel, BinsMatchBruteForce) {
    Feeder f;
    std::vector<std::uint64_t> times;
    std::uint64_t t = 1000, seed = 12345;
    auto rnd = [&seed] {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return seed >> 33;
    };
    for (int i = 0; i < 20000; ++i) {
        t += rnd() % 50; // ties included
        times.push_back(t);
        f.ev(t, 0, 100, LTT_EV_FILE_SYSTEM, LTT_FS_READ);
    }
    EventGraph g = f.builder.finish(t);
    const std::size_t row = *g.rowOfPid(100);
    RowBins b;
    for (int trial = 0; trial < 50; ++trial) {
        std::uint64_t begin = 1000 + rnd() % (t - 1000);
        std::uint64_t end = begin + 1 + rnd() % (t - begin + 100);
        unsigned columns = 1 + static_cast<unsigned>(rnd() % 1500);
        g.bin(row, begin, end, columns, b);
        for (unsigned c = 0; c < columns; ++c) {
            std::uint64_t lo = EventGraph::columnStart(begin, end, columns, c);
            std::uint64_t hi = EventGraph::columnStart(begin, end, columns, c + 1);
            auto first = std::lower_bound(times.begin(), times.end(), lo);
            auto last = std::lower_bound(times.begin(), times.end(), hi);
            ASSERT_EQ(b.eventCount[c], std::uint32_t(last - first)) << trial << " " << c;
            ASSERT_EQ(b.firstEvent[c], first == last ? -1 : std::int64_t(first - times.begin()));
        }
    }
}

} // namespace
