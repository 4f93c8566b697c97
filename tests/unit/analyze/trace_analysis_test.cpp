// TraceAnalysis: exact time accounting on a hand-made scenario, the
// lost-events rule, masked-out figures, the process tree, and memory that
// grows with the system calls processes made.
#include "analysis_equal.hpp"
#include "peak_rss.hpp"
#include "sibling_program.hpp"
#include "trace_builder.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <libltt/proc_file.hpp>
#include <libltt/trace_analysis.hpp>
#include <map>
#include <random>
#include <unistd.h>

using ltt::test::childPeakKb;
using ltt::test::poke;
using ltt::test::TraceBuilder;

namespace {

struct Analyzed {
    std::vector<std::byte> bytes;
    std::unique_ptr<ltt::TraceReader> reader;
    std::unique_ptr<ltt::TraceAnalysis> analysis;
    const ltt::Process& process(std::int32_t pid, int instance = 0) const {
        for (const auto& p : analysis->processes())
            if (p.pid == pid && instance-- == 0)
                return p;
        throw std::runtime_error("no process " + std::to_string(pid));
    }
};

Analyzed analyze(const TraceBuilder& b, const ltt::ProcSnapshot* snap = nullptr) {
    Analyzed a;
    a.bytes = b.bytes();
    ltt::TraceError e;
    a.reader = ltt::TraceReader::openMemory(a.bytes, "t.trace", &e);
    if (!a.reader)
        throw std::runtime_error(e.str());
    a.analysis = std::make_unique<ltt::TraceAnalysis>(*a.reader, snap);
    if (!a.analysis->run())
        throw std::runtime_error(a.analysis->error()->str());
    return a;
}

ltt::ProcSnapshot snapshot() {
    ltt::ProcSnapshot s;
    ltt::ProcTask t;
    t.pid = 1;
    t.ppid = 0;
    t.name = "init";
    s.tasks.push_back(t);
    t.pid = 100;
    t.ppid = 1;
    t.name = "sh";
    s.tasks.push_back(t);
    return s;
}

ltt_ev_file_system fsArg(std::int32_t fd, std::int64_t arg) {
    ltt_ev_file_system f{};
    f.fd = fd;
    f.arg = arg;
    return f;
}

// One CPU, one tick per ns, anchor 1000: time ns = tsc - 1000.
TraceBuilder scenario() {
    TraceBuilder b(1);
    auto fs = [&](std::uint64_t t, std::uint8_t sub, std::int32_t fd, std::int64_t arg) {
        auto f = fsArg(fd, arg);
        b.evBytes(t, LTT_EV_FILE_SYSTEM, sub, &f, LTT_EV_FS_FIXED);
    };
    b.block(0, 1000, 100);
    b.ev(1100, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 0, 0}); // read
    fs(1150, LTT_FS_READ, 3, 100);
    fs(1200, LTT_FS_BUF_WAIT_START, 0, 0);
    b.ev(1300, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, 100, LTT_TASK_UNINTERRUPTIBLE, 0});
    b.ev(1500, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{14, LTT_IRQ_IN_KERNEL});
    b.ev(1550, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, ltt_ev_process{100, 0, 2});
    b.ev(1600, LTT_EV_IRQ_EXIT);
    b.ev(1700, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{100, 0, LTT_TASK_RUNNING, 0});
    fs(1800, LTT_FS_BUF_WAIT_END, 0, 0);
    b.ev(1900, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{100});
    b.ev(2000, LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{0x401000, 0x7000, 14, 6});
    b.ev(2050, LTT_EV_TRAP_EXIT);
    b.ev(2100, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 2, 0}); // open
    b.ev(2150, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{-2});
    b.ev(2200, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{101, 0, 0x11});
    b.ev(2300, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{101, 100, LTT_TASK_RUNNING, 0});
    ltt_ev_file_system ex{};
    std::strcpy(ex.name, "/bin/ls");
    b.evBytes(2400, LTT_EV_FILE_SYSTEM, LTT_FS_EXEC, &ex, LTT_EV_FS_FIXED + 8);
    b.ev(2500, LTT_EV_PROCESS, LTT_PROCESS_EXIT, ltt_ev_process{101, 0, 0});
    b.ev(2600, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{100, 101, LTT_TASK_DEAD, 0});
    b.end(2700);
    return b;
}

} // namespace

TEST(TraceAnalysis, AccountsTimeExactly) {
    const auto snap = snapshot();
    auto a = analyze(scenario(), &snap);
    const auto& sh = a.process(100).stats;
    EXPECT_EQ(sh.runningNs, 1000u);
    EXPECT_EQ(sh.userNs, 500u);
    EXPECT_EQ(sh.syscallNs, 450u);
    EXPECT_EQ(sh.trapNs, 50u);
    EXPECT_EQ(sh.ioWaitNs, 250u);
    EXPECT_EQ(sh.sleepNs, 0u);
    EXPECT_EQ(sh.schedDelayNs, 150u);
    EXPECT_EQ(sh.preemptedNs, 300u);
    EXPECT_EQ(sh.maxDelayNs, 300u);
    EXPECT_EQ(sh.maxSliceNs, 600u); // 700 -> 1300; the first and last are not whole
    EXPECT_EQ(sh.schedIn, 2u);
    EXPECT_EQ(sh.wakeups, 1u);
    EXPECT_EQ(sh.syscalls, 2u);
    EXPECT_EQ(sh.traps, 1u);
    EXPECT_EQ(sh.bytesRead, 100u);
    ASSERT_NE(sh.syscallTable.find(0), nullptr);
    const auto& read = *sh.syscallTable.find(0);
    EXPECT_EQ(read.count, 1u);
    EXPECT_EQ(read.totalNs, 800u); // wall time, blocked part included
    EXPECT_EQ(read.errors, 0u);
    ASSERT_NE(sh.syscallTable.find(2), nullptr);
    const auto& open = *sh.syscallTable.find(2);
    EXPECT_EQ(open.count, 1u);
    EXPECT_EQ(open.totalNs, 50u);
    EXPECT_EQ(open.minNs, 50u);
    EXPECT_EQ(open.maxNs, 50u);
    EXPECT_EQ(open.errors, 1u);

    const auto& ls = a.process(101);
    EXPECT_EQ(ls.name, "ls");
    EXPECT_EQ(ls.ppid, 100);
    EXPECT_TRUE(ls.exited);
    EXPECT_EQ(ls.stats.runningNs, 300u);
    EXPECT_EQ(ls.stats.userNs, 300u);
    EXPECT_EQ(ls.stats.schedDelayNs, 100u);

    const auto& cpu = a.analysis->cpus().at(0);
    EXPECT_EQ(cpu.userNs, 800u);
    EXPECT_EQ(cpu.kernelNs, 500u);
    EXPECT_EQ(cpu.irqNs, 100u);
    EXPECT_EQ(cpu.idleNs, 300u);
    EXPECT_EQ(a.analysis->firstNs(), 0u);
    EXPECT_EQ(a.analysis->lastNs(), 1700u);
    EXPECT_EQ(a.analysis->events(), 21u);
    EXPECT_EQ(a.analysis->eventCounts()[LTT_EV_SCHEDCHANGE], 4u);
}

TEST(TraceAnalysis, ProcessTreeFromSnapshotAndEvents) {
    const auto snap = snapshot();
    auto a = analyze(scenario(), &snap);
    const auto& procs = a.analysis->processes();
    ASSERT_GE(procs.size(), 4u);
    EXPECT_EQ(procs[0].pid, 0);
    EXPECT_EQ(procs[0].name, "The All Mighty");
    const auto& init = a.process(1);
    ASSERT_EQ(init.children.size(), 1u);
    EXPECT_EQ(procs[init.children[0]].pid, 100);
    const auto& sh = a.process(100);
    ASSERT_EQ(sh.children.size(), 1u);
    EXPECT_EQ(procs[sh.children[0]].name, "ls");
    auto roots = a.analysis->roots();
    ASSERT_EQ(roots.size(), 2u); // pid 0 and init
    EXPECT_EQ(procs[roots[1]].pid, 1);
}

TEST(TraceAnalysis, UnknownTasksAndPidReuse) {
    TraceBuilder b(1);
    b.block(0, 1000, 300); // not in any snapshot
    b.ev(1100, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{301, 0, 0});
    b.ev(1200, LTT_EV_PROCESS, LTT_PROCESS_EXIT, ltt_ev_process{301, 0, 0});
    b.ev(1300, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{301, 0, 0});
    b.end(1400);
    auto a = analyze(b);
    EXPECT_EQ(a.process(300).name, "unknown");
    EXPECT_EQ(a.process(300).stats.runningNs, 400u);
    EXPECT_TRUE(a.process(301, 0).exited);
    EXPECT_FALSE(a.process(301, 1).exited);
    EXPECT_EQ(a.process(301, 1).startNs, 300u);
}

// A child's own events can precede its FORK event in the merged order: with
// equal times (a coarse or saturated clock) the lower CPU goes first. And the
// snapshot can list a task whose FORK is in the trace. Either way a PID that
// is alive cannot be forked again: the FORK names the task already known.
TEST(TraceAnalysis, ForkOfAKnownTaskAdoptsIt) {
    ltt::ProcSnapshot snap = snapshot(); // init 1, sh 100
    ltt::ProcTask t;
    t.pid = 79; // a thread of sh that the snapshot saw under init
    t.ppid = 1;
    t.name = "worker";
    snap.tasks.push_back(t);
    TraceBuilder b(2);
    b.block(0, 1000, 0); // idle
    b.ev(1500, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{81, 0, LTT_TASK_RUNNING, 0});
    b.ev(1500, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0}); // ret_from_fork
    b.ev(1500, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 0, 0});
    b.ev(1600, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0});
    b.end(1700);
    b.block(1, 1000, 100);
    b.ev(1200, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{79, 0, 0x10000});
    b.ev(1500, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{81, 0, 0});
    b.end(1700);
    auto a = analyze(b, &snap);
    const auto& procs = a.analysis->processes();
    EXPECT_EQ(std::count_if(procs.begin(), procs.end(), [](const auto& p) { return p.pid == 81; }),
              1);
    const auto& child = a.process(81);
    EXPECT_EQ(child.ppid, 100);
    EXPECT_EQ(child.name, "sh");
    EXPECT_EQ(child.startNs, 500u);
    EXPECT_EQ(child.stats.syscalls, 1u);
    EXPECT_EQ(child.stats.runningNs, 200u);
    EXPECT_EQ(std::count_if(procs.begin(), procs.end(), [](const auto& p) { return p.pid == 79; }),
              1);
    const auto& thread = a.process(79);
    EXPECT_EQ(thread.ppid, 100);
    EXPECT_EQ(thread.tgid, 100); // CLONE_THREAD
    EXPECT_EQ(thread.name, "worker");
    std::vector<std::int32_t> shKids, initKids;
    for (auto i : a.process(100).children)
        shKids.push_back(procs[i].pid);
    for (auto i : a.process(1).children)
        initKids.push_back(procs[i].pid);
    EXPECT_EQ(shKids, (std::vector<std::int32_t>{79, 81}));
    EXPECT_EQ(initKids, (std::vector<std::int32_t>{100}));
}

TEST(TraceAnalysis, LostEventsGapDropsOpenIntervals) {
    TraceBuilder b(1);
    b.block(0, 1000, 100);
    b.ev(1100, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 0, 0});
    b.end(1200);
    b.block(0, 2000, 100, 5); // 5 events lost before this block
    b.ev(2100, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{4});
    b.ev(2200, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 0, 0});
    b.ev(2250, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{4});
    b.end(2300);
    auto a = analyze(b);
    const auto& s = a.process(100).stats;
    EXPECT_EQ(a.analysis->lostEvents(), 5u);
    EXPECT_EQ(a.analysis->cpus()[0].lost, 5u);
    EXPECT_EQ(s.runningNs, 200u + 300u); // 800 ns of gap are not charged
    ASSERT_NE(s.syscallTable.find(0), nullptr);
    const auto& read = *s.syscallTable.find(0);
    EXPECT_EQ(read.count, 2u);
    EXPECT_EQ(read.timed, 1u); // the call open across the gap is dropped
    EXPECT_EQ(read.totalNs, 50u);
}

TEST(TraceAnalysis, MaskedEventsAreReportedMissing) {
    TraceBuilder b(1);
    b.header().config.event_mask = LTT_EV_MASK_STRUCTURE | LTT_EV_BIT(LTT_EV_SCHEDCHANGE);
    b.header().config.details_mask = LTT_EV_MASK_STRUCTURE;
    b.block(0, 1000, 100).end(1100);
    auto a = analyze(b);
    const auto& av = a.analysis->availability();
    EXPECT_FALSE(av.syscalls);
    EXPECT_FALSE(av.sched); // present, but without details
    EXPECT_FALSE(av.fileIo);
    const auto m = av.missing();
    EXPECT_NE(std::find(m.begin(), m.end(), "system calls"), m.end());
    EXPECT_NE(std::find(m.begin(), m.end(), "scheduling changes"), m.end());
}

TEST(TraceAnalysis, TwoCpusWithWakeupAcrossCpus) {
    TraceBuilder b(2);
    b.block(0, 1000, 100);
    b.ev(1100, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, 100, LTT_TASK_INTERRUPTIBLE, 0});
    b.end(1500);
    b.block(1, 1000, 200);
    b.ev(1300, LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, ltt_ev_process{100, 0, 1});
    b.ev(1350, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{100, 200, LTT_TASK_RUNNING, 0});
    b.end(1500);
    auto a = analyze(b);
    const auto& s = a.process(100).stats;
    EXPECT_EQ(s.sleepNs, 200u);     // 1100 -> 1300
    EXPECT_EQ(s.schedDelayNs, 50u); // 1300 -> 1350, on the other CPU
    EXPECT_EQ(s.runningNs, 100u + 150u);
    EXPECT_EQ(a.process(200).stats.runningNs, 350u);
    EXPECT_EQ(a.analysis->cpus()[0].idleNs, 400u);
}

// run() feeds each CPU's events in runs between barriers (schedchanges,
// process events, block starts); on any trace it must give what add() gives
// fed the merged sequence. Random traces on 1 to 17 CPUs, with what makes
// the order matter: tasks switched in on two CPUs at once, forks of running
// tasks, execs, lost-events gaps, heartbeats, clocks stepping back, equal
// times, and damage that stops the walk.
TEST(TraceAnalysis, RunMatchesMergedOrderOnRandomTraces) {
    int compared = 0;
    for (std::uint32_t ncpus : {1u, 2u, 3u, 4u, 5u, 8u, 16u, 17u}) {
        for (std::uint32_t seed = 0; seed < 12; ++seed) {
            std::mt19937 rng(ncpus * 101 + seed);
            TraceBuilder b(ncpus);
            // Attribution's shapes: scheduling changes masked out (with or
            // without CONTEXT records), a restricted session, blocks that
            // name no task, CONFIG records that drop and restore them.
            const std::uint64_t all = b.header().config.event_mask;
            if (seed % 4 == 1)
                b.header().config.event_mask &= ~LTT_EV_BIT(LTT_EV_SCHEDCHANGE);
            if (seed % 3 == 2)
                b.header().flags |= LTT_TRACE_F_CONTEXT;
            if (seed % 5 == 3)
                b.header().flags |= LTT_TRACE_F_RESTRICTED;
            const int pids = 2 + static_cast<int>(rng() % 12);
            auto pid = [&] { return static_cast<std::int32_t>(rng() % pids); };
            for (int blk = 0; blk < 4; ++blk) {
                for (std::uint16_t cpu = 0; cpu < ncpus; ++cpu) {
                    std::uint64_t t = 1000 + blk * 50000 + rng() % 50;
                    b.block(cpu, t, rng() % 23 == 0 ? -1 : pid(),
                            rng() % 9 == 0 ? 1 + rng() % 5 : 0);
                    std::uint64_t base = t; // deltas count from here
                    const int n = 5 + static_cast<int>(rng() % 150);
                    for (int i = 0; i < n; ++i) {
                        t += rng() % 5; // equal times, within a CPU and across
                        if (rng() % 40 == 0)
                            t -= std::min<std::uint64_t>(t - base, rng() % 30);
                        switch (rng() % 17) {
                        case 0:
                        case 1:
                            b.ev(t, LTT_EV_SCHEDCHANGE, 0,
                                 ltt_ev_schedchange{
                                     pid(), pid(),
                                     static_cast<std::uint32_t>(rng() % 3 ? LTT_TASK_RUNNING
                                                                          : LTT_TASK_INTERRUPTIBLE),
                                     0});
                            break;
                        case 2:
                            b.ev(t, LTT_EV_PROCESS,
                                 static_cast<std::uint8_t>(
                                     rng() % 2 ? LTT_PROCESS_WAKEUP
                                               : (rng() % 2 ? LTT_PROCESS_FORK : LTT_PROCESS_EXIT)),
                                 ltt_ev_process{pid(), 0, static_cast<std::uint32_t>(rng() % 3)});
                            break;
                        case 3:
                            if (rng() % 3 == 0) {
                                t += 7;
                                b.heartbeat(t);
                                base = t;
                            }
                            break;
                        case 4:
                        case 5:
                        case 6:
                            b.ev(t, LTT_EV_SYSCALL_ENTRY, 0,
                                 ltt_ev_syscall_entry{0x401000,
                                                      static_cast<std::uint32_t>(rng() % 20), 0});
                            break;
                        case 7:
                        case 8:
                        case 9:
                            b.ev(t, LTT_EV_SYSCALL_EXIT, 0,
                                 ltt_ev_syscall_exit{static_cast<std::int64_t>(rng() % 3) - 1});
                            break;
                        case 10: {
                            auto f = fsArg(3, static_cast<std::int64_t>(rng() % 500));
                            const std::uint32_t kind = rng() % 4;
                            if (kind == 3) {
                                // An exec renames the current task inside a
                                // run; a FORK elsewhere gives its name on.
                                std::snprintf(f.name, sizeof f.name, "/bin/p%u",
                                              static_cast<unsigned>(rng() % 100));
                                b.evBytes(t, LTT_EV_FILE_SYSTEM, LTT_FS_EXEC, &f,
                                          LTT_EV_FS_FIXED + 16);
                                break;
                            }
                            b.evBytes(t, LTT_EV_FILE_SYSTEM,
                                      static_cast<std::uint8_t>(kind < 2 ? LTT_FS_READ
                                                                         : LTT_FS_BUF_WAIT_START),
                                      &f, LTT_EV_FS_FIXED);
                            break;
                        }
                        case 11:
                            b.ev(t, LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{0x401000, 0, 14, 6});
                            break;
                        case 12:
                            b.ev(t, LTT_EV_TRAP_EXIT);
                            break;
                        case 13:
                            b.ev(t, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{14, 0});
                            break;
                        case 14:
                            b.ev(t, LTT_EV_IRQ_EXIT);
                            break;
                        case 15:
                            if (rng() % 8 == 0) {
                                ltt_ev_config c{};
                                c.event_mask =
                                    rng() % 2 ? all : all & ~LTT_EV_BIT(LTT_EV_SCHEDCHANGE);
                                b.ev(t, LTT_EV_CONFIG, LTT_CONFIG_EVENTS, c);
                            } else if (rng() % 2) {
                                const std::int32_t p = pid();
                                b.ev(t, LTT_EV_CONTEXT, static_cast<std::uint8_t>(rng() % 3),
                                     ltt_ev_context{p, p});
                            } else {
                                b.ev(t, LTT_EV_KERNEL_TIMER);
                            }
                            break;
                        default:
                            b.ev(t, LTT_EV_KERNEL_TIMER);
                        }
                    }
                    b.end(t + 1);
                }
            }
            const auto good = b.bytes();
            std::vector<std::vector<std::byte>> variants{good};
            // A bad record size somewhere in the middle, and a cut file.
            const std::size_t mid = b.blockOffsets[b.blockOffsets.size() / 2];
            variants.push_back(good);
            poke<std::uint16_t>(variants.back(), mid + 48 + 6, 12);
            variants.push_back(good);
            variants.back().resize(b.blockOffsets.back() + 40);
            for (std::size_t v = 0; v < variants.size(); ++v) {
                ltt::TraceError e;
                auto reader = ltt::TraceReader::openMemory(variants[v], "t.trace", &e);
                ASSERT_TRUE(reader) << e.str();
                const ltt::ProcSnapshot snap = snapshot();
                EXPECT_EQ(ltt::test::runMatchesMergedOrder(*reader, seed % 2 ? &snap : nullptr), "")
                    << ncpus << " CPUs, seed " << seed << ", variant " << v;
                ++compared;
            }
        }
    }
    EXPECT_EQ(compared, 8 * 12 * 3);
}

// The same on ltt-synth traces: realistic volume and mix, a lost-events gap,
// and the damage kinds the reader opens and then stops on (a bad record
// size; a file cut short).
TEST(TraceAnalysis, RunMatchesMergedOrderOnSynthTraces) {
    const auto synth = ltt::test::siblingProgram("ltt-synth");
    ASSERT_TRUE(std::filesystem::exists(synth)) << synth << " not built";
    const auto dir =
        std::filesystem::temp_directory_path() / ("run-order-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string cases[] = {
        "--events 100000 --cpus 4 --processes 32 --seed 1",
        "--events 50000 --cpus 1 --processes 5 --seed 2",
        "--events 50000 --cpus 2 --processes 8 --seed 3 --lost 400",
        "--events 50000 --cpus 3 --processes 40 --seed 4",
        "--events 80000 --cpus 16 --processes 64 --seed 5 --lost 100",
        "--events 20000 --cpus 17 --processes 20 --seed 6",
        "--events 50000 --cpus 4 --processes 16 --seed 7 --corrupt record-size",
        "--events 50000 --cpus 4 --processes 16 --seed 9 --corrupt truncate",
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
        EXPECT_EQ(ltt::test::runMatchesMergedOrder(*reader, &*snap), "") << args;
    }
    std::filesystem::remove_all(dir);
}

// run()'s progress callback cancels the fast walk: before it starts, and in
// the middle (a trace of several progress ticks); without a cancellation
// the same callback sees the walk to its end.
TEST(TraceAnalysis, RunIsCancelledByItsProgressCallback) {
    const auto synth = ltt::test::siblingProgram("ltt-synth");
    ASSERT_TRUE(std::filesystem::exists(synth)) << synth << " not built";
    const auto dir =
        std::filesystem::temp_directory_path() / ("run-cancel-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto prefix = (dir / "t").string();
    const std::string cmd = synth.string() +
                            " --events 1000000 --cpus 2 --processes 8 --seed 11 -o " + prefix +
                            " >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(prefix + ".trace", &err);
    ASSERT_TRUE(reader) << err.str();

    ltt::TraceAnalysis before(*reader, nullptr);
    int calls = 0;
    EXPECT_FALSE(before.run([&](double) { return ++calls, false; }));
    EXPECT_TRUE(before.cancelled());
    EXPECT_FALSE(before.error());
    EXPECT_EQ(calls, 1);

    ltt::TraceAnalysis middle(*reader, nullptr);
    std::vector<double> seen;
    EXPECT_FALSE(middle.run([&](double f) {
        seen.push_back(f);
        return seen.size() < 3;
    }));
    EXPECT_TRUE(middle.cancelled());
    EXPECT_EQ(seen.size(), 3u);
    EXPECT_LT(seen.back(), 1.0);

    ltt::TraceAnalysis whole(*reader, nullptr);
    seen.clear();
    EXPECT_TRUE(whole.run([&](double f) {
        seen.push_back(f);
        return true;
    }));
    EXPECT_FALSE(whole.cancelled());
    EXPECT_GE(seen.size(), 4u); // 0, then one tick per 2^18 events
    EXPECT_EQ(whole.events(), reader->claimedEvents());
    std::filesystem::remove_all(dir);
}

// A FORK's parent is the task current on its CPU, even when its pid has
// since been forked again elsewhere (a missed EXIT, or a fuzzed trace): the
// newer instance, live under that pid, is current on another CPU, where an
// exec renames it inside a run. Had the FORK looked its parent up by pid,
// the child's name would depend on whether that run was fed before the
// FORK, and run() would differ from the merged order. The same with the
// walk stopped by a BLOCK_END whose record count is wrong, as the fuzzer
// found it.
TEST(TraceAnalysis, RunMatchesMergedOrderWhenAnOlderInstanceForks) {
    TraceBuilder b(2);
    b.block(0, 1000, 100); // sh
    b.ev(1100, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{200, 0, 0x11});
    b.ev(1200, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{200, 100, LTT_TASK_RUNNING, 0});
    b.ev(1600, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{300, 0, 0x11});
    b.ev(1700, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 0, 0});
    b.ev(1900, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0});
    b.end(2000);
    b.block(1, 1000, 1); // init
    b.ev(1300, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{200, 0, 0x11});
    b.ev(1400, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{200, 1, LTT_TASK_RUNNING, 0});
    ltt_ev_file_system ex{};
    std::strcpy(ex.name, "/bin/ls");
    b.evBytes(1500, LTT_EV_FILE_SYSTEM, LTT_FS_EXEC, &ex, LTT_EV_FS_FIXED + 8);
    // Past CPU 0's FORK: the run holding the exec ends here.
    b.ev(1700, LTT_EV_KERNEL_TIMER);
    b.end(1800);
    auto good = b.bytes();
    auto damaged = good;
    // CPU 1's block is the file's last: its BLOCK_END's record count.
    poke<std::uint32_t>(damaged, damaged.size() - 8, 4);
    const ltt::ProcSnapshot snap = snapshot(); // init 1, sh 100
    for (const auto* bytes : {&good, &damaged}) {
        const bool isDamaged = bytes == &damaged;
        ltt::TraceError e;
        auto reader = ltt::TraceReader::openMemory(*bytes, "t.trace", &e);
        ASSERT_TRUE(reader) << e.str();
        EXPECT_EQ(ltt::test::runMatchesMergedOrder(*reader, &snap), "") << "damaged " << isDamaged;
        ltt::TraceAnalysis a(*reader, &snap);
        EXPECT_EQ(a.run(), !isDamaged);
        const auto& procs = a.processes();
        const ltt::Process* child = nullptr;
        std::vector<const ltt::Process*> forked; // the two instances of 200
        for (const auto& p : procs) {
            if (p.pid == 300)
                child = &p;
            if (p.pid == 200)
                forked.push_back(&p);
        }
        ASSERT_NE(child, nullptr);
        ASSERT_EQ(forked.size(), 2u);
        EXPECT_EQ(child->ppid, 200);
        EXPECT_EQ(child->name, "sh"); // its parent's name: the instance sh forked
        EXPECT_EQ(forked[1]->name, "ls");
        EXPECT_EQ(forked[0]->children.size(), 1u);
        if (!forked[0]->children.empty()) {
            EXPECT_EQ(&procs[forked[0]->children[0]], child);
        }
        EXPECT_TRUE(forked[1]->children.empty());
    }
}

// The sparse per-process syscall table against a map, through hash
// collisions (slots equal modulo every table size), growth up to every slot,
// and copies and moves.
TEST(SyscallTable, CountsLikeAMapInSlotOrder) {
    std::mt19937 rng(7);
    std::vector<std::uint32_t> slots;
    for (std::uint32_t s = 0; s < 452; s += 64)
        slots.push_back(s); // all in one cell of a 16-, 32- or 64-cell table
    for (std::uint32_t s = 0; s < 452; ++s)
        slots.push_back(s);
    ltt::SyscallTable t;
    std::map<std::uint32_t, std::uint64_t> ref;
    EXPECT_TRUE(t.empty());
    EXPECT_EQ(t.find(0), nullptr);
    for (std::size_t n = 0; n < slots.size(); ++n) {
        // Mostly the slots seen so far, now and then a new one.
        for (int k = 0; k < 20; ++k) {
            const std::uint32_t s = slots[std::uniform_int_distribution<std::size_t>(0, n)(rng)];
            ++t.entry(t.use(s)).count;
            ++ref[s];
        }
        ASSERT_EQ(t.size(), ref.size());
    }
    auto it = ref.begin();
    for (const ltt::SyscallStats& s : t) {
        ASSERT_NE(it, ref.end());
        EXPECT_EQ(s.slot, it->first);
        EXPECT_EQ(s.count, it->second);
        ++it;
    }
    EXPECT_EQ(it, ref.end());
    for (const auto& [slot, count] : ref) {
        ASSERT_NE(t.find(slot), nullptr) << slot;
        EXPECT_EQ(t.find(slot)->count, count);
    }
    EXPECT_EQ(t.find(452), nullptr);

    ltt::SyscallTable copy(t);
    ltt::SyscallTable moved(std::move(t));
    EXPECT_TRUE(t.empty()); // NOLINT(bugprone-use-after-move): moved-from is empty and usable
    ++t.entry(t.use(3)).count;
    EXPECT_EQ(t.size(), 1u);
    for (ltt::SyscallTable* u : {&copy, &moved}) {
        ++u->entry(u->use(64)).count;
        EXPECT_EQ(u->find(64)->count, ref[64] + 1);
        EXPECT_EQ(u->size(), ref.size());
    }
}

// Memory grows with what the trace holds, not with the syscall table: a
// trace of 60 000 short-lived processes (a build spawns as many), each
// making a few system calls, is analysed in at most 150 MB.
TEST(TraceAnalysis, PeakMemoryOfSixtyThousandProcesses) {
#ifdef LTT_UNDER_ASAN
    GTEST_SKIP() << "RSS under ASan is not the analyzer's";
#endif
    const auto synth = ltt::test::siblingProgram("ltt-synth");
    ASSERT_TRUE(std::filesystem::exists(synth)) << synth << " not built";
    const auto dir =
        std::filesystem::temp_directory_path() / ("memory-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto prefix = (dir / "m").string();
    const std::string cmd = synth.string() + " --events 2000000 --cpus 2 --processes 60000 -o " +
                            prefix + " >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const long peakKb = childPeakKb([&] {
        ltt::TraceError err;
        ltt::ProcParseError perr;
        auto reader = ltt::TraceReader::open(prefix + ".trace", &err);
        auto snap = ltt::readProcFile(prefix + ".proc", &perr);
        if (!reader || !snap)
            return false;
        ltt::TraceAnalysis a(*reader, &*snap);
        return a.run() && a.processes().size() > 60000;
    });
    std::filesystem::remove_all(dir);
    if (peakKb == -1)
        GTEST_SKIP() << "cannot reset the peak RSS (/proc/self/clear_refs)";
    ASSERT_GE(peakKb, 0) << (peakKb == -2 ? "analysis failed" : "child died");
    std::printf("analysis of 60 000 processes: peak RSS %.1f MB above the start\n",
                static_cast<double>(peakKb) / 1024);
    EXPECT_LE(peakKb, 150 * 1024);
}

// Pids anywhere in Linux's range (pid_max up to 4M) and outside it are
// found, and a few large pids cost pages of the pid table, not all of it.
TEST(TraceAnalysis, LargePidsCostLittle) {
    const std::int32_t pids[] = {4095, 4096, 3999999, 4194303, 4194304, -5, 2000000000};
    ltt::ProcSnapshot snap;
    for (std::int32_t pid : pids) {
        ltt::ProcTask t;
        t.pid = pid;
        t.ppid = 1;
        t.name = "p" + std::to_string(pid);
        snap.tasks.push_back(t);
    }
    TraceBuilder b(1);
    b.block(0, 1000, 4095);
    std::uint64_t t = 1000;
    std::int32_t prev = 4095;
    for (std::int32_t pid : pids) { // each one switched in, and each one twice
        b.ev(t += 10, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{pid, prev, LTT_TASK_RUNNING, 0});
        b.ev(t += 10, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{pid, pid, LTT_TASK_RUNNING, 0});
        prev = pid;
    }
    b.end(t + 10);
    auto a = analyze(b, &snap);
    for (std::int32_t pid : pids) {
        EXPECT_EQ(a.process(pid).name, "p" + std::to_string(pid));
        EXPECT_EQ(a.process(pid).stats.schedIn, 2u) << pid;
        EXPECT_THROW(a.process(pid, 1), std::runtime_error) << pid; // no second instance
    }
#ifdef LTT_UNDER_ASAN
    GTEST_SKIP() << "RSS under ASan is not the analyzer's";
#endif
    // A whole table for 4M pids would be 16 MB.
    const long peakKb = childPeakKb([&] {
        ltt::TraceAnalysis big(*a.reader, &snap);
        return big.run() && big.processes().size() == std::size(pids) + 1;
    });
    if (peakKb == -1)
        GTEST_SKIP() << "cannot reset the peak RSS (/proc/self/clear_refs)";
    ASSERT_GE(peakKb, 0) << (peakKb == -2 ? "analysis failed" : "child died");
    std::printf("analysis with pids up to 4194303: peak RSS %ld kB above the start\n", peakKb);
    EXPECT_LE(peakKb, 2 * 1024);
}
