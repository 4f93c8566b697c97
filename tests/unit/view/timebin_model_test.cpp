// Tests of the event graph's time-bin model (libltt timebin_*.cpp): control
// placement, markers, column binning and hit testing against the hand-written
// golden fixtures in tests/data/timebin/, and the bounded summary against
// re-reading the events on random streams and ltt-synth traces.
#include "graph_feeder.hpp"
#include "peak_rss.hpp"
#include "sibling_program.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <libltt/event_format.hpp>
#include <libltt/event_names.hpp>
#include <libltt/timebin_model.hpp>
#include <libltt/trace_reader.hpp>
#include <ltt/events.h>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using ltt::EventGraph;
using ltt::EventGraphBuilder;
using ltt::GraphEventInput;
using ltt::GraphEventKind;
using ltt::RowBins;

using Feeder = ltt::test::GraphFeeder;

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

TEST(TimeBinModel, ColumnsPartitionTheRangeExactly) {
    EXPECT_EQ(EventGraph::columnStart(0, 10, 3, 0), 0u);
    EXPECT_EQ(EventGraph::columnStart(0, 10, 3, 1), 3u);
    EXPECT_EQ(EventGraph::columnStart(0, 10, 3, 3), 10u);
    // Huge ranges do not overflow.
    const std::uint64_t big = ~0ull - 5;
    EXPECT_EQ(EventGraph::columnStart(0, big, 1000, 1000), big);
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

// ---------------------------------------------------------------------------
// Golden fixtures: tests/data/timebin/*.graph (format in its README.md).

std::string rowName(const EventGraph& g, std::size_t r) {
    switch (g.rows()[r].kind) {
    case ltt::GraphRowKind::Kernel:
        return "kernel";
    case ltt::GraphRowKind::Idle:
        return "idle";
    case ltt::GraphRowKind::Process:
        break;
    }
    return std::to_string(g.rows()[r].pid);
}

std::optional<GraphEventKind> kindFromName(std::string_view name) {
    static const std::pair<const char*, GraphEventKind> kinds[] = {
        {"Syscall", GraphEventKind::Syscall},
        {"Trap", GraphEventKind::Trap},
        {"Irq", GraphEventKind::Irq},
        {"SchedChange", GraphEventKind::SchedChange},
        {"KernelTimer", GraphEventKind::KernelTimer},
        {"BottomHalf", GraphEventKind::BottomHalf},
        {"IoWaitStart", GraphEventKind::IoWaitStart},
        {"IoWaitEnd", GraphEventKind::IoWaitEnd},
        {"Process", GraphEventKind::Process},
        {"FileSystem", GraphEventKind::FileSystem},
        {"Other", GraphEventKind::Other},
        {"Lost", GraphEventKind::Lost}};
    for (const auto& [n, k] : kinds)
        if (name == n)
            return k;
    return std::nullopt;
}

std::string upper(std::string s) {
    for (char& c : s)
        c = c == ' ' ? '_' : char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// Runs one fixture: builds the graph from its events, then checks every
// statement after `end`. Failures name the file and line.
void runFixture(const std::filesystem::path& path) {
    std::ifstream in(path);
    ASSERT_TRUE(in) << "cannot read " << path;
    Feeder f;
    std::optional<EventGraph> g;
    std::string line;
    int lineNo = 0, checks = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (auto hash = line.find('#'); hash != std::string::npos)
            line.erase(hash);
        std::istringstream words(line);
        std::string op;
        if (!(words >> op))
            continue;
        const std::string where = path.filename().string() + ":" + std::to_string(lineNo);
        SCOPED_TRACE(where);
        auto row = [&](const std::string& name) -> std::size_t {
            std::optional<std::size_t> r;
            if (name == "kernel")
                r = g->kernelRow();
            else if (name == "idle")
                r = g->idleRow();
            else
                r = g->rowOfPid(std::stoi(name));
            if (!r)
                ADD_FAILURE() << "no row " << name;
            return r.value_or(g->rows().size());
        };
        if (op == "e") {
            ASSERT_FALSE(g) << "event after `end`";
            std::uint64_t t;
            unsigned cpu;
            std::int32_t pid;
            std::string name, arg;
            ASSERT_TRUE(words >> t >> cpu >> pid >> name) << "bad event line";
            const auto mask = ltt::eventMaskOf(name);
            ASSERT_TRUE(mask && std::has_single_bit(*mask)) << "not one event: " << name;
            const int id = std::countr_zero(*mask);
            std::uint8_t sub = 0;
            std::int32_t schedIn = 0;
            bool fromKernel = false;
            std::uint64_t lost = 0;
            while (words >> arg) {
                if (arg.starts_with("in=")) {
                    schedIn = std::stoi(arg.substr(3));
                } else if (arg == "kernel") {
                    fromKernel = true;
                } else if (arg.starts_with("lost=")) {
                    lost = std::stoull(arg.substr(5));
                } else if (std::isdigit(static_cast<unsigned char>(arg[0]))) {
                    sub = std::uint8_t(std::stoi(arg));
                } else {
                    bool found = false;
                    for (unsigned s = 0; s < 32 && !found; ++s)
                        if (upper(std::string(ltt::subtypeName(unsigned(id), s))) == arg) {
                            sub = std::uint8_t(s);
                            found = true;
                        }
                    ASSERT_TRUE(found) << "unknown subtype " << arg << " of " << name;
                }
            }
            f.ev(t, std::uint16_t(cpu), pid, std::uint8_t(id), sub, schedIn, fromKernel, lost);
            continue;
        }
        if (op == "end") {
            std::uint64_t t;
            ASSERT_TRUE(words >> t);
            g = f.finish(t);
            continue;
        }
        ASSERT_TRUE(g) << "`" << op << "` before `end`";
        ++checks;
        if (op == "rows") {
            std::vector<std::string> want, got;
            for (std::string w; words >> w;)
                want.push_back(w);
            for (std::size_t r = 0; r < g->rows().size(); ++r)
                got.push_back(rowName(*g, r));
            EXPECT_EQ(got, want);
        } else if (op == "events") {
            std::uint64_t n;
            words >> n;
            EXPECT_EQ(g->eventCount(), n);
        } else if (op == "binwidth") {
            std::uint64_t n;
            words >> n;
            EXPECT_EQ(g->binWidthNs(), n);
        } else if (op == "markers") {
            std::string r;
            std::size_t n;
            words >> r >> n;
            EXPECT_EQ(g->markerCount(row(r)), n) << "row " << r;
        } else if (op == "lost") {
            std::uint64_t t, count, index;
            unsigned cpu;
            words >> t >> cpu >> count >> index;
            const auto n = std::size_t(
                std::count_if(g->lost().begin(), g->lost().end(), [&](const ltt::LostMark& m) {
                    return m.timeNs == t && m.cpu == cpu && m.count == count && m.index == index;
                }));
            EXPECT_EQ(n, 1u) << "lost mark " << t << " " << cpu << " " << count << " " << index;
        } else if (op == "control" || op == "first") {
            std::string r;
            std::uint64_t begin, end;
            unsigned columns;
            ASSERT_TRUE(words >> r >> begin >> end >> columns);
            std::vector<std::string> want, got;
            for (std::string w; words >> w;)
                want.push_back(w);
            ASSERT_EQ(want.size(), columns) << "columns written";
            RowBins b;
            g->bin(row(r), begin, end, columns, b);
            for (unsigned c = 0; c < columns; ++c) {
                std::string s;
                if (op == "control") {
                    if (b.control[c] & RowBins::kControlAtStart)
                        s += 'S';
                    if (b.control[c] & RowBins::kControlChanges)
                        s += 'C';
                    if (b.control[c] & RowBins::kControlAtEnd)
                        s += 'E';
                } else if (b.firstEvent[c] >= 0) {
                    if (want[c] != "-") {
                        const std::string kind = want[c].substr(want[c].find(':') + 1);
                        auto k = kindFromName(kind.substr(0, kind.find(':')));
                        ASSERT_TRUE(k) << "unknown kind in " << want[c];
                        s = std::to_string(b.firstEvent[c]) + ":" +
                            (b.firstKind[c] == *k
                                 ? kind.substr(0, kind.find(':'))
                                 : std::string(graphEventKindName(b.firstKind[c]))) +
                            ":" + std::to_string(b.eventCount[c]);
                    } else {
                        s = std::to_string(b.firstEvent[c]) +
                            ":?:" + std::to_string(b.eventCount[c]);
                    }
                } else if (b.eventCount[c]) {
                    s = "none:" + std::to_string(b.eventCount[c]);
                }
                got.push_back(s.empty() ? "-" : s);
            }
            EXPECT_EQ(got, want) << op << " " << r << " [" << begin << ", " << end << ") "
                                 << columns;
        } else if (op == "density") {
            std::uint64_t begin, end;
            unsigned columns;
            ASSERT_TRUE(words >> begin >> end >> columns);
            std::vector<std::uint32_t> want;
            for (std::uint32_t n; words >> n;)
                want.push_back(n);
            EXPECT_EQ(g->density(begin, end, columns), want);
        } else if (op == "has") {
            std::string r, yes;
            std::uint64_t t;
            words >> r >> t >> yes;
            ASSERT_TRUE(yes == "yes" || yes == "no") << "has: yes or no, not " << yes;
            EXPECT_EQ(g->hasControl(row(r), t), yes == "yes") << "row " << r << " at " << t;
        } else if (op == "nearest") {
            std::string r, want;
            std::uint64_t t, dist;
            words >> r >> t >> dist >> want;
            const auto hit = g->nearestEvent(row(r), t, dist);
            EXPECT_EQ(hit ? std::to_string(hit->index) : "-", want)
                << "row " << r << " at " << t << " within " << dist;
        } else {
            ADD_FAILURE() << "unknown statement `" << op << "`";
        }
    }
    EXPECT_TRUE(g) << path << ": no `end`";
    EXPECT_GT(checks, 0) << path << ": no expectations";
}

TEST(TimeBinModel, GoldenFixtures) {
    const std::filesystem::path dir = std::filesystem::path(LTT_SOURCE_DIR) / "tests/data/timebin";
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".graph")
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    ASSERT_GE(files.size(), 5u) << "fixtures in " << dir;
    for (const auto& p : files) {
        SCOPED_TRACE(p.filename().string());
        runFixture(p);
    }
}

// ---------------------------------------------------------------------------
// The summary against re-reading. A view whose columns are whole bins is
// answered from the summary; the same range split into columns that cut
// bins is re-read from the checkpoints. Folding the fine columns into the
// coarse ones must give the coarse answers exactly, and the control flags
// must agree with hasControl() (always re-read) at the column edges.

struct Rng {
    std::uint64_t seed;
    std::uint64_t operator()() {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return seed >> 33;
    }
};

void checkSummaryAgainstReread(const EventGraph& g, const std::vector<std::uint64_t>& markerTimes,
                               std::uint64_t seed, int trials) {
    ASSERT_GT(g.binCount(), 0u);
    Rng rnd{seed};
    std::vector<std::size_t> all(g.rows().size());
    for (std::size_t r = 0; r < all.size(); ++r)
        all[r] = r;
    // Every marker is in exactly one row.
    std::size_t markers = 0;
    for (std::size_t r = 0; r < all.size(); ++r)
        markers += g.markerCount(r);
    ASSERT_EQ(markers, markerTimes.size());
    ASSERT_EQ(g.eventCount(), markerTimes.size());
    const std::uint64_t w = g.binWidthNs(), lo = g.startNs();
    std::vector<RowBins> coarse, fine;
    for (int trial = 0; trial < trials; ++trial) {
        const unsigned columns = 1 + unsigned(rnd() % 200);
        const std::uint64_t perColumn =
            w * (1 + rnd() % std::max<std::uint64_t>(1, g.binCount() / columns / 2 + 1));
        const std::uint64_t begin = lo + w * (rnd() % g.binCount());
        const std::uint64_t end = begin + perColumn * columns;
        // Fine columns: m per coarse column, each cutting bins unless the
        // bins are 1 ns wide.
        const unsigned m = 2 + unsigned(rnd() % 5);
        g.binRows(all, begin, end, columns, coarse);
        g.binRows(all, begin, end, columns * m, fine);
        SCOPED_TRACE("[" + std::to_string(begin) + ", " + std::to_string(end) + ") " +
                     std::to_string(columns) + " x " + std::to_string(m));
        for (std::size_t r = 0; r < all.size(); ++r) {
            for (unsigned c = 0; c < columns; ++c) {
                std::uint8_t changes = 0;
                std::uint32_t count = 0;
                std::int64_t first = -1;
                GraphEventKind kind = GraphEventKind::Other;
                for (unsigned k = c * m; k < (c + 1) * m; ++k) {
                    changes |= fine[r].control[k] & RowBins::kControlChanges;
                    count += fine[r].eventCount[k];
                    if (first < 0 && fine[r].firstEvent[k] >= 0) {
                        first = fine[r].firstEvent[k];
                        kind = fine[r].firstKind[k];
                    }
                }
                const std::uint8_t control =
                    (fine[r].control[c * m] & RowBins::kControlAtStart) | changes |
                    (fine[r].control[(c + 1) * m - 1] & RowBins::kControlAtEnd);
                ASSERT_EQ(coarse[r].control[c], control) << "row " << r << " column " << c;
                ASSERT_EQ(coarse[r].eventCount[c], count) << "row " << r << " column " << c;
                ASSERT_EQ(coarse[r].firstEvent[c], first) << "row " << r << " column " << c;
                if (first >= 0) {
                    ASSERT_EQ(coarse[r].firstKind[c], kind) << "row " << r << " column " << c;
                }
            }
        }
        // Control at column edges, as hasControl() sees it (a sample).
        for (int k = 0; k < 16; ++k) {
            const std::size_t r = rnd() % all.size();
            const unsigned c = unsigned(rnd() % columns);
            const std::uint64_t c0 = EventGraph::columnStart(begin, end, columns, c);
            const std::uint64_t c1 = EventGraph::columnStart(begin, end, columns, c + 1);
            if (c0 > 0) {
                ASSERT_EQ((coarse[r].control[c] & RowBins::kControlAtStart) != 0,
                          g.hasControl(r, c0 - 1))
                    << "row " << r << " column " << c;
            }
            ASSERT_EQ((coarse[r].control[c] & RowBins::kControlAtEnd) != 0, g.hasControl(r, c1 - 1))
                << "row " << r << " column " << c;
        }
        // Density: every marker in its column, counted from the event times.
        const auto d = g.density(begin, end, columns);
        for (unsigned c = 0; c < columns; ++c) {
            const std::uint64_t c0 = EventGraph::columnStart(begin, end, columns, c);
            const std::uint64_t c1 = EventGraph::columnStart(begin, end, columns, c + 1);
            const auto n = std::lower_bound(markerTimes.begin(), markerTimes.end(), c1) -
                           std::lower_bound(markerTimes.begin(), markerTimes.end(), c0);
            ASSERT_EQ(d[c], std::uint32_t(n)) << "density column " << c;
        }
        // The hit test: within the distance, nothing nearer, and the first
        // marker of its instant (1-ns columns give every instant's first).
        const std::size_t r = rnd() % all.size();
        const std::uint64_t t = begin + rnd() % (end - begin);
        const std::uint64_t dist = rnd() % 600;
        const std::uint64_t a = t > dist ? t - dist : 0;
        RowBins ns;
        g.bin(r, a, t + dist + 1, unsigned(t + dist + 1 - a), ns);
        std::optional<std::uint64_t> nearest;
        for (std::uint64_t x = a; x <= t + dist; ++x)
            if (ns.firstEvent[x - a] >= 0) {
                const std::uint64_t dx = x > t ? x - t : t - x;
                if (!nearest || dx < *nearest)
                    nearest = dx;
            }
        const auto hit = g.nearestEvent(r, t, dist);
        ASSERT_EQ(hit.has_value(), nearest.has_value()) << "row " << r << " t " << t;
        if (hit) {
            const std::uint64_t dx = hit->timeNs > t ? hit->timeNs - t : t - hit->timeNs;
            ASSERT_EQ(dx, *nearest) << "row " << r << " t " << t;
            ASSERT_EQ(std::int64_t(hit->index), ns.firstEvent[hit->timeNs - a]);
            ASSERT_EQ(hit->kind, ns.firstKind[hit->timeNs - a]);
        }
        // Aligned views are whole bins and cover what was asked for.
        const unsigned cols = 1 + unsigned(rnd() % 500);
        const std::uint64_t vb = lo + rnd() % (g.endNs() - lo + 1);
        const std::uint64_t ve = vb + 1 + rnd() % (g.endNs() - lo + 1);
        const auto [ab, ae] = g.alignedView(vb, ve, cols, true);
        if ((ve - vb) / cols >= w) {
            ASSERT_EQ((ab - lo) % w, 0u);
            ASSERT_EQ((ae - ab) % (w * cols), 0u);
            ASSERT_LE(ab, vb);
            ASSERT_GE(ae, ve);
        }
    }
}

std::vector<std::uint64_t> markerTimesOf(const std::vector<GraphEventInput>& events) {
    std::vector<std::uint64_t> times;
    for (const auto& e : events)
        if (ltt::graphEventKindOf(e.event, e.subtype))
            times.push_back(e.timeNs);
    return times;
}

// Random control-relevant streams: several CPUs, nested entries, scheduling,
// lost events, structure records, ties, sparse and busy stretches.
TEST(TimeBinModel, SummaryAgreesWithRereadOnRandomStreams) {
    for (std::uint64_t seed : {1ull, 2ull, 3ull, 4ull}) {
        Rng rnd{seed * 7919};
        EventGraphBuilder builder;
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
            events.push_back(e);
        }
        const auto times = markerTimesOf(events);
        EventGraph g = builder.finish(t + 500, ltt::vectorGraphSource(events));
        EXPECT_GT(g.binWidthNs(), 1u);
        EXPECT_LE(g.binCount(), EventGraph::kSummaryBins);
        SCOPED_TRACE("seed " + std::to_string(seed));
        checkSummaryAgainstReread(g, times, seed, 40);
    }
}

// ltt-synth traces read through the TraceReader, with and without lost events.
TEST(TimeBinModel, SummaryAgreesWithRereadOnSynthTraces) {
    const auto synth = ltt::test::siblingProgram("ltt-synth");
    ASSERT_TRUE(std::filesystem::exists(synth)) << synth << " not built";
    const auto dir =
        std::filesystem::temp_directory_path() / ("timebin-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    struct Case {
        const char* args;
        int trials;
    } cases[] = {{"--events 200000 --cpus 4 --processes 16 --seed 3", 30},
                 {"--events 60000 --cpus 2 --processes 40 --seed 9 --lost 500", 40},
                 {"--events 3000 --cpus 1 --processes 3 --seed 5", 40}};
    for (const auto& c : cases) {
        const auto prefix = (dir / "t").string();
        const std::string cmd = synth.string() + " " + c.args + " -o " + prefix + " >/dev/null";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        ltt::TraceError err;
        auto reader = ltt::TraceReader::open(prefix + ".trace", &err);
        ASSERT_TRUE(reader) << err.str();
        EventGraphBuilder builder;
        std::vector<std::uint64_t> times;
        for (auto cur = reader->begin(); cur.valid(); cur.next()) {
            const GraphEventInput in = ltt::graphEventInput(*reader, cur.event(), cur.index());
            builder.add(in);
            if (ltt::graphEventKindOf(in.event, in.subtype))
                times.push_back(in.timeNs);
        }
        const std::uint64_t endNs = reader->nsFromAnchor(reader->lastTsc());
        EventGraph g = builder.finish(endNs, ltt::traceGraphSource(*reader));
        SCOPED_TRACE(c.args);
        checkSummaryAgainstReread(g, times, 77, c.trials);
        if (std::string(c.args).find("--lost") != std::string::npos) {
            EXPECT_FALSE(g.lost().empty());
        }
    }
    std::filesystem::remove_all(dir);
}

} // namespace

namespace {

// Rows for pids anywhere in Linux's range (pid_max up to 4M) and outside it
// are found, by the builder, by rowOfPid() and by the sweeps that re-read
// events, and a few large pids cost pages of the pid table, not a table up
// to the largest pid (16 MB for 4M pids).
TEST(TimeBinModel, LargePidsCostLittle) {
    const std::int32_t pids[] = {4095, 4096, 3999999, 4194303, 2000000000, -5};
    // Each pid is switched in (in the kernel), returns to user mode and
    // enters a system call.
    auto build = [&](std::vector<std::uint64_t>* markerTimes) {
        Feeder f;
        std::uint64_t t = 1000;
        std::int32_t prev = 1;
        for (std::int32_t pid : pids) {
            f.ev(t += 10, 0, prev, LTT_EV_SCHEDCHANGE, 0, pid);
            f.ev(t += 10, 0, pid, LTT_EV_SYSCALL_EXIT);
            f.ev(t += 10, 0, pid, LTT_EV_SYSCALL_ENTRY);
            prev = pid;
        }
        if (markerTimes)
            *markerTimes = markerTimesOf(f.all);
        return f.finish(t + 10);
    };
    std::vector<std::uint64_t> markerTimes;
    const EventGraph g = build(&markerTimes);
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
    checkSummaryAgainstReread(g, markerTimes, 13, 100);
    // The model's own count: rows and a few pages, not 4M pids' worth.
    std::printf("time-bin model with pids up to 4194303: %zu bytes (memoryBytes)\n",
                g.memoryBytes());
    EXPECT_LE(g.memoryBytes(), 256u * 1024);
#ifdef LTT_UNDER_ASAN
    GTEST_SKIP() << "RSS under ASan is not the model's";
#endif
    const long peakKb = ltt::test::childPeakKb([&] {
        const EventGraph big = build(nullptr);
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
