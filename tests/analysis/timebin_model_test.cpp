// Tests of the event graph's time-bin model (analysis/src/timebin_model.cpp):
// control placement per the trace-format §3 rules, column binning, hit
// testing, and agreement with the unbounded reference model
// (timebin_model_reference.hpp) on random streams and ltt-synth traces.
#include "peak_rss.hpp"
#include "sibling_program.hpp"
#include "timebin_model_reference.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <libltt/timebin_model.hpp>
#include <libltt/trace_reader.hpp>
#include <ltt/events.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using ltt::EventGraph;
using ltt::EventGraphBuilder;
using ltt::GraphEventInput;
using ltt::GraphEventKind;
using ltt::RowBins;

struct Feeder {
    EventGraphBuilder builder;
    std::vector<GraphEventInput> all;
    std::uint64_t index = 0;
    EventGraph finish(std::uint64_t endNs) {
        return builder.finish(endNs, ltt::vectorGraphSource(std::move(all)));
    }
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
        all.push_back(e);
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
    return f.finish(7000);
}

TEST(TimeBinModel, RowsAreKernelIdleThenProcessesByPid) {
    Feeder f;
    f.ev(10, 0, 300, LTT_EV_SYSCALL_ENTRY);
    f.ev(20, 1, 7, LTT_EV_SYSCALL_ENTRY);
    f.ev(30, 0, 300, LTT_EV_SCHEDCHANGE, 0, 42);
    EventGraph g = f.finish(40);
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
    EventGraph g = f.finish(1000);
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
    EventGraph g = f.finish(400);
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
    EventGraph g = f.finish(40);
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
    EventGraph g = f.finish(100);
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
    EventGraph g = f.finish(t);
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

namespace {

struct Rng {
    std::uint64_t seed;
    std::uint64_t operator()() {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return seed >> 33;
    }
};

// Every answer of `g` against the reference built from the same events.
void compareModels(const EventGraph& g, const ltt_ref::RefGraph& ref, std::uint64_t seed,
                   int trials) {
    ASSERT_EQ(g.rows().size(), ref.rows().size());
    for (std::size_t r = 0; r < g.rows().size(); ++r) {
        ASSERT_EQ(g.rows()[r].pid, ref.rows()[r].pid);
        ASSERT_EQ(g.markerCount(r), ref.markerCount(r));
    }
    ASSERT_EQ(g.startNs(), ref.startNs());
    ASSERT_EQ(g.endNs(), ref.endNs());
    ASSERT_EQ(g.eventCount(), ref.eventCount());
    ASSERT_EQ(g.lost().size(), ref.lost().size());
    Rng rnd{seed};
    const std::uint64_t lo = g.startNs(), span = std::max<std::uint64_t>(1, g.endNs() - lo);
    std::vector<std::size_t> all(g.rows().size());
    for (std::size_t r = 0; r < all.size(); ++r)
        all[r] = r;
    std::vector<RowBins> got;
    RowBins want;
    for (int trial = 0; trial < trials; ++trial) {
        // Zoom levels from the whole trace (and beyond) down to a few ns.
        const int level = int(rnd() % 24);
        std::uint64_t width = std::max<std::uint64_t>(1, (span + span / 8) >> level);
        width = std::max<std::uint64_t>(1, width - rnd() % (width / 3 + 1));
        std::uint64_t begin =
            lo - std::min<std::uint64_t>(lo, span / 16) + rnd() % (span + span / 8);
        std::uint64_t end = begin + width;
        unsigned columns = 1 + unsigned(rnd() % 1400);
        if (trial % 3 == 1)
            std::tie(begin, end) = g.alignedView(begin, end, columns, trial % 2 == 0);
        g.binRows(all, begin, end, columns, got);
        for (std::size_t r = 0; r < all.size(); ++r) {
            ref.bin(r, begin, end, columns, want);
            ASSERT_EQ(got[r].control, want.control)
                << "row " << r << " [" << begin << ", " << end << ") " << columns;
            ASSERT_EQ(got[r].firstEvent, want.firstEvent) << "row " << r;
            ASSERT_EQ(got[r].firstKind, want.firstKind) << "row " << r;
            ASSERT_EQ(got[r].eventCount, want.eventCount) << "row " << r;
        }
        RowBins one;
        const std::size_t r = rnd() % all.size();
        g.bin(r, begin, end, columns, one);
        ASSERT_EQ(one.control, got[r].control);
        ASSERT_EQ(g.density(begin, end, columns), ref.density(begin, end, columns));
        for (int k = 0; k < 8; ++k) {
            const std::uint64_t t = lo + rnd() % (span + 2) - (k == 0 ? 1 : 0);
            const std::size_t row = rnd() % all.size();
            ASSERT_EQ(g.hasControl(row, t), ref.hasControl(row, t)) << "row " << row << " t " << t;
            const std::uint64_t dist = rnd() % (width + 1);
            auto a = g.nearestEvent(row, t, dist);
            auto b = ref.nearestEvent(row, t, dist);
            ASSERT_EQ(a.has_value(), b.has_value()) << "row " << row << " t " << t;
            if (a) {
                ASSERT_EQ(a->index, b->index);
                ASSERT_EQ(a->timeNs, b->timeNs);
                ASSERT_EQ(a->kind, b->kind);
            }
        }
    }
}

// Random control-relevant streams: several CPUs, nested entries, scheduling,
// lost events, structure records, ties, sparse and busy stretches.
TEST(TimeBinModel, AgreesWithReferenceOnRandomStreams) {
    for (std::uint64_t seed : {1ull, 2ull, 3ull, 4ull}) {
        Rng rnd{seed * 7919};
        EventGraphBuilder builder;
        ltt_ref::RefBuilder refBuilder;
        std::vector<GraphEventInput> events;
        const std::uint8_t ids[] = {LTT_EV_SYSCALL_ENTRY, LTT_EV_SYSCALL_EXIT, LTT_EV_TRAP_ENTRY,
                                    LTT_EV_TRAP_EXIT,     LTT_EV_IRQ_ENTRY,    LTT_EV_IRQ_EXIT,
                                    LTT_EV_SCHEDCHANGE,   LTT_EV_FILE_SYSTEM,  LTT_EV_PROCESS,
                                    LTT_EV_KERNEL_TIMER,  LTT_EV_SOFT_IRQ,     LTT_EV_MEMORY,
                                    LTT_EV_HEARTBEAT,     LTT_EV_BLOCK_START,  LTT_EV_LOST};
        const int n = 30000 + int(seed) * 20000;
        std::uint64_t t = 1000 + rnd() % 1000;
        std::vector<std::int32_t> pid(seed + 1, 0);
        for (int i = 0; i < n; ++i) {
            GraphEventInput e;
            e.index = std::uint64_t(i);
            // Mostly busy, sometimes a long quiet stretch.
            t += rnd() % 16 == 0 ? rnd() % 20000 : rnd() % 40;
            e.timeNs = t;
            e.cpu = std::uint16_t(rnd() % (seed + 1));
            std::uint8_t id = ids[rnd() % sizeof ids];
            if (id == LTT_EV_LOST && rnd() % 8)
                id = LTT_EV_FILE_SYSTEM;
            e.event = id;
            e.subtype = std::uint8_t(rnd() % 8);
            e.pid = pid[e.cpu];
            if (id == LTT_EV_SCHEDCHANGE) {
                pid[e.cpu] = rnd() % 5 == 0 ? 0 : std::int32_t(100 + rnd() % (20 * seed));
                e.schedIn = e.pid = pid[e.cpu];
            }
            e.fromKernel = rnd() % 3 == 0;
            e.lostCount = id == LTT_EV_LOST ? 1 + rnd() % 100 : 0;
            builder.add(e);
            refBuilder.add(e);
            events.push_back(e);
        }
        EventGraph g = builder.finish(t + 500, ltt::vectorGraphSource(events));
        ltt_ref::RefGraph ref = refBuilder.finish(t + 500);
        EXPECT_GT(g.binWidthNs(), 1u);
        EXPECT_LE(g.binCount(), EventGraph::kSummaryBins);
        compareModels(g, ref, seed, 60);
    }
}

// ltt-synth traces read through the TraceReader, with and without lost events.
TEST(TimeBinModel, AgreesWithReferenceOnSynthTraces) {
    const auto synth = ltt::test::siblingProgram("ltt-synth");
    if (!std::filesystem::exists(synth))
        GTEST_SKIP() << synth << " not built";
    const auto dir =
        std::filesystem::temp_directory_path() / ("timebin-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    struct Case {
        const char* args;
        int trials;
    } cases[] = {{"--events 200000 --cpus 4 --processes 16 --seed 3", 40},
                 {"--events 60000 --cpus 2 --processes 40 --seed 9 --lost 500", 60},
                 {"--events 3000 --cpus 1 --processes 3 --seed 5", 60}};
    for (const auto& c : cases) {
        const auto prefix = (dir / "t").string();
        const std::string cmd = synth.string() + " " + c.args + " -o " + prefix + " >/dev/null";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        ltt::TraceError err;
        auto reader = ltt::TraceReader::open(prefix + ".trace", &err);
        ASSERT_TRUE(reader) << err.str();
        EventGraphBuilder builder;
        ltt_ref::RefBuilder refBuilder;
        for (auto cur = reader->begin(); cur.valid(); cur.next()) {
            const GraphEventInput in = ltt::graphEventInput(*reader, cur.event(), cur.index());
            builder.add(in);
            refBuilder.add(in);
        }
        const std::uint64_t endNs = reader->nsFromAnchor(reader->lastTsc());
        EventGraph g = builder.finish(endNs, ltt::traceGraphSource(*reader));
        ltt_ref::RefGraph ref = refBuilder.finish(endNs);
        SCOPED_TRACE(c.args);
        compareModels(g, ref, 77, c.trials);
        if (std::string(c.args).find("--lost") != std::string::npos) {
            EXPECT_FALSE(g.lost().empty());
        }
    }
    std::filesystem::remove_all(dir);
}

// Rows for pids anywhere in Linux's range (pid_max up to 4M) and outside it
// are found, by the builder, by rowOfPid() and by the sweeps that re-read
// events, and a few large pids cost pages of the pid table, not a table up
// to the largest pid (16 MB for 4M pids).
TEST(TimeBinModel, LargePidsCostLittle) {
    const std::int32_t pids[] = {4095, 4096, 3999999, 4194303, 2000000000, -5};
    // Each pid is switched in (in the kernel), returns to user mode and
    // enters a system call.
    auto build = [&](bool withReference, ltt_ref::RefGraph* ref) {
        Feeder f;
        std::uint64_t t = 1000;
        std::int32_t prev = 1;
        for (std::int32_t pid : pids) {
            f.ev(t += 10, 0, prev, LTT_EV_SCHEDCHANGE, 0, pid);
            f.ev(t += 10, 0, pid, LTT_EV_SYSCALL_EXIT);
            f.ev(t += 10, 0, pid, LTT_EV_SYSCALL_ENTRY);
            prev = pid;
        }
        if (withReference) {
            ltt_ref::RefBuilder rb;
            for (const GraphEventInput& e : f.all)
                rb.add(e);
            *ref = rb.finish(t + 10);
        }
        return f.finish(t + 10);
    };
    ltt_ref::RefGraph ref;
    const EventGraph g = build(true, &ref);
    ASSERT_EQ(g.rows().size(), 3 + std::size(pids));
    for (std::size_t i = 0; i < std::size(pids); ++i) {
        const auto row = g.rowOfPid(pids[i]);
        ASSERT_TRUE(row.has_value()) << pids[i];
        EXPECT_EQ(g.rows()[*row].pid, pids[i]);
        // Exit, entry, and the schedchange that switches it out (not the last).
        EXPECT_EQ(g.markerCount(*row), i + 1 < std::size(pids) ? 3u : 2u) << pids[i];
        EXPECT_TRUE(g.hasControl(*row, 1025 + 30 * i)) << pids[i];  // in user mode
        EXPECT_FALSE(g.hasControl(*row, 1035 + 30 * i)) << pids[i]; // in the system call
    }
    EXPECT_FALSE(g.rowOfPid(4097).has_value());
    EXPECT_FALSE(g.rowOfPid(-4).has_value());
    compareModels(g, ref, 13, 200);
    // The model's own count: rows and a few pages, not 4M pids' worth.
    std::printf("time-bin model with pids up to 4194303: %zu bytes (memoryBytes)\n",
                g.memoryBytes());
    EXPECT_LE(g.memoryBytes(), 256u * 1024);
#ifdef LTT_UNDER_ASAN
    GTEST_SKIP() << "RSS under ASan is not the model's";
#endif
    const long peakKb = ltt::test::childPeakKb([&] {
        const EventGraph big = build(false, nullptr);
        return big.rowOfPid(4194303).has_value() && big.rowOfPid(-5).has_value();
    });
    if (peakKb == -1)
        GTEST_SKIP() << "cannot reset the peak RSS (/proc/self/clear_refs)";
    ASSERT_GE(peakKb, 0) << (peakKb == -2 ? "model build failed" : "child died");
    std::printf("time-bin model with pids up to 4194303: peak RSS %ld kB above the start\n",
                peakKb);
    EXPECT_LE(peakKb, 2 * 1024);
}

} // namespace
