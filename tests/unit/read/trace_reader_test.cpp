// TraceReader: header and block validation (every error names its offset),
// the time-ordered merge of CPUs, heartbeats, current PIDs, seeking and the
// TSC conversion.
#include "trace_builder.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <libltt/trace_reader.hpp>
#include <random>
#include <unistd.h>

using ltt::test::poke;
using ltt::test::TraceBuilder;

namespace {

using ltt::test::open;
using ltt::test::Opened;

// Two CPUs, interleaved, one tick per ns.
TraceBuilder twoCpus(unsigned version = ltt::test::defaultFormat()) {
    TraceBuilder b(2, 1000000, 1000, version);
    ltt_ev_syscall_entry se{0x401000, 1, 0};
    ltt_ev_schedchange sc{200, 100, LTT_TASK_RUNNING, 0};
    b.block(0, 1000, 100)
        .ev(1010, LTT_EV_SYSCALL_ENTRY, 0, se)
        .ev(1030, LTT_EV_SCHEDCHANGE, 0, sc)
        .ev(1050, LTT_EV_TRAP_EXIT)
        .end(1060);
    b.block(1, 1000, 0).ev(1020, LTT_EV_IRQ_EXIT).ev(1030, LTT_EV_KERNEL_TIMER).end(1070);
    return b;
}

std::vector<std::uint8_t> ids(const ltt::TraceReader& r) {
    std::vector<std::uint8_t> v;
    for (auto c = r.begin(); c.valid(); c.next())
        v.push_back(c.event().id);
    return v;
}

} // namespace

TEST(TraceReader, MergesCpusByTimeThenCpu) {
    auto o = open(twoCpus().bytes());
    ASSERT_TRUE(o.reader) << o.error.str();
    std::vector<std::pair<std::uint64_t, std::uint16_t>> seen;
    for (auto c = o.reader->begin(); c.valid(); c.next())
        seen.emplace_back(c.event().tsc, c.event().cpu);
    const std::vector<std::pair<std::uint64_t, std::uint16_t>> want = {
        {1000, 0}, {1000, 1}, {1010, 0}, {1020, 1}, {1030, 0},
        {1030, 1}, {1050, 0}, {1060, 0}, {1070, 1}};
    EXPECT_EQ(seen, want);
    EXPECT_EQ(o.reader->eventCount(), 9u);
    EXPECT_EQ(o.reader->claimedEvents(), 9u);
    EXPECT_FALSE(o.reader->buildIndex());
}

TEST(TraceReader, PidFollowsBlockHeaderAndSchedchange) {
    auto o = open(twoCpus().bytes());
    ASSERT_TRUE(o.reader);
    std::vector<std::int32_t> cpu0;
    for (auto c = o.reader->begin(); c.valid(); c.next())
        if (c.event().cpu == 0)
            cpu0.push_back(c.event().pid);
    // block start, syscall (100), schedchange (incoming 200), trap exit, end
    EXPECT_EQ(cpu0, (std::vector<std::int32_t>{100, 100, 200, 200, 200}));
}

TEST(TraceReader, HeartbeatMovesTheDeltaBase) {
    TraceBuilder b(1);
    b.block(0, 1000, 1)
        .ev(2000, LTT_EV_KERNEL_TIMER)
        .heartbeat(5000000000ull)
        .ev(5000000100ull, LTT_EV_KERNEL_TIMER)
        .end(5000000200ull);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader) << o.error.str();
    std::vector<std::uint64_t> t;
    for (auto c = o.reader->begin(); c.valid(); c.next())
        t.push_back(c.event().tsc);
    EXPECT_EQ(
        t, (std::vector<std::uint64_t>{1000, 2000, 5000000000ull, 5000000100ull, 5000000200ull}));
}

TEST(TraceReader, SeekByIndexAndTimeMatchesTheWalk) {
    // Enough events for several checkpoints, spread over 3 CPUs.
    TraceBuilder b(3);
    std::mt19937 rng(7);
    std::uint64_t t[3] = {1000, 1000, 1000};
    for (int blk = 0; blk < 30; ++blk) {
        const std::uint16_t cpu = static_cast<std::uint16_t>(blk % 3);
        b.block(cpu, t[cpu], 10 + cpu);
        for (int i = 0; i < 300; ++i) {
            t[cpu] += rng() % 50;
            b.ev(t[cpu], LTT_EV_KERNEL_TIMER);
        }
        b.end(t[cpu]);
    }
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader) << o.error.str();
    std::vector<std::pair<std::uint64_t, std::uint64_t>> walk; // (offset, tsc)
    for (auto c = o.reader->begin(); c.valid(); c.next())
        walk.emplace_back(c.event().offset, c.event().tsc);
    ASSERT_EQ(o.reader->eventCount(), walk.size());
    for (std::uint64_t i : {0ul, 1ul, 1023ul, 1024ul, 1025ul, 5000ul, walk.size() - 1}) {
        auto c = o.reader->atIndex(i);
        ASSERT_TRUE(c.valid()) << i;
        EXPECT_EQ(c.index(), i);
        EXPECT_EQ(c.event().offset, walk[i].first) << i;
    }
    EXPECT_FALSE(o.reader->atIndex(walk.size()).valid());
    // Backward iteration visits the same events in reverse.
    auto c = o.reader->atIndex(2100);
    for (std::uint64_t i = 2100; i > 1900; --i) {
        ASSERT_TRUE(c.prev());
        EXPECT_EQ(c.event().offset, walk[i - 1].first);
    }
    // Seek by time: first event at or after t.
    for (std::uint64_t i : {0ul, 17ul, 3000ul, 9000ul}) {
        const std::uint64_t ns = o.reader->nsFromAnchor(walk[i].second);
        auto s = o.reader->atTime(ns);
        ASSERT_TRUE(s.valid());
        EXPECT_EQ(s.event().tsc, walk[i].second);
        EXPECT_LE(s.index(), i);
        if (s.index() > 0) {
            EXPECT_LT(o.reader->nsFromAnchor(walk[s.index() - 1].second), ns);
        }
    }
    EXPECT_FALSE(o.reader->atTime(~0ull >> 1).valid());
}

TEST(TraceReader, TscConversionIsExact) {
    // 3 GHz: multiples of 3 ticks are whole nanoseconds.
    TraceBuilder b(1, 3000000, 0);
    b.block(0, 0, 0).end(0);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 10000; ++i) {
        const std::uint64_t ns = rng() % (3600ull * 1000000000ull * 24);
        EXPECT_EQ(o.reader->nsFromAnchor(ns * 3), ns);
    }
    // Any frequency: the fixed point agrees with exact division.
    for (std::uint64_t khz : {2394000ull, 1000000ull, 3192610ull, 999ull}) {
        TraceBuilder k(1, khz, 0);
        k.block(0, 0, 0).end(0);
        auto r = open(k.bytes());
        ASSERT_TRUE(r.reader);
        for (int i = 0; i < 10000; ++i) {
            const std::uint64_t tsc = rng() % (1ull << 46);
            const auto exact =
                static_cast<std::uint64_t>(static_cast<unsigned __int128>(tsc) * 1000000 / khz);
            EXPECT_EQ(r.reader->nsFromAnchor(tsc), exact) << khz << " " << tsc;
        }
    }
}

// ----------------------------------------------------------- bad input

struct BadCase {
    const char* name;
    std::size_t offset; // expected offset in the message
    const char* message;
};

TEST(TraceReader, RejectsBadHeaders) {
    auto base = twoCpus().bytes();
    auto expectError = [](std::vector<std::byte> bytes, std::uint64_t off, const char* msg) {
        auto o = open(std::move(bytes));
        EXPECT_FALSE(o.reader);
        EXPECT_EQ(o.error.file, "t.trace");
        EXPECT_EQ(o.error.offset, off) << o.error.str();
        EXPECT_NE(o.error.message.find(msg), std::string::npos) << o.error.str();
    };
    expectError({}, 0, "file too short");
    {
        auto b = base;
        b[0] = std::byte{'X'};
        expectError(b, 0, "bad magic");
    }
    {
        auto b = base;
        poke<std::uint32_t>(b, 8, 0x04030201);
        expectError(b, 8, "other byte order");
    }
    {
        auto b = base;
        poke<std::uint16_t>(b, 12, 3);
        expectError(b, 12, "unsupported format version 3");
    }
    {
        auto b = base;
        poke<std::uint32_t>(b, 20, 0);
        expectError(b, 20, "bad CPU count 0");
    }
    {
        auto b = base;
        poke<std::uint64_t>(b, 24, 0);
        expectError(b, 24, "TSC frequency is 0");
    }
}

TEST(TraceReader, RejectsBadBlocksNamingTheOffset) {
    // A whole block after the damaged one: the damage is inside the trace.
    TraceBuilder tb = twoCpus(LTT_FORMAT_V1); // version 1 offsets
    tb.block(0, 1100, 100).end(1110);
    const auto base = tb.bytes();
    const std::size_t b1 = tb.blockOffsets[1];
    auto expectError = [](std::vector<std::byte> bytes, std::uint64_t off, const char* msg) {
        auto o = open(std::move(bytes));
        EXPECT_FALSE(o.reader);
        EXPECT_EQ(o.error.offset, off) << o.error.str();
        EXPECT_NE(o.error.message.find(msg), std::string::npos) << o.error.str();
    };
    {
        auto b = base;
        poke<std::uint32_t>(b, b1 + 8, 0x12345678);
        expectError(b, b1 + 8, "bad block magic");
    }
    {
        auto b = base;
        poke<std::uint32_t>(b, b1 + 12, 60);
        expectError(b, b1 + 12, "bad block length 60");
    }
    {
        auto b = base;
        poke<std::uint16_t>(b, b1 + 8 + 28, 7);
        expectError(b, b1 + 8 + 28, "block CPU 7 >= CPU count 2");
    }
    {
        auto b = base;
        poke<std::uint8_t>(b, b1 + 4, LTT_EV_SYSCALL_EXIT);
        expectError(b, b1 + 4, "expected BLOCK_START");
    }
    {
        // Last record of block 0 is no longer a BLOCK_END.
        auto b = base;
        poke<std::uint8_t>(b, b1 - 24 + 4, LTT_EV_KERNEL_TIMER);
        expectError(b, b1 - 24 + 4, "does not end with a BLOCK_END");
    }
    {
        // A second block of CPU 0 with the same sequence number.
        TraceBuilder d(1, 1000000, 1000, LTT_FORMAT_V1);
        d.block(0, 10, 1, 0, 0).end(20).block(0, 30, 1, 0, 0).end(40).block(0, 50, 1, 0, 1).end(60);
        expectError(d.bytes(), d.blockOffsets[1] + 8 + 24, "does not follow");
    }
    {
        // Longer than the header's max_block, the file's own bound.
        auto b = base;
        poke<std::uint32_t>(b, offsetof(ltt_file_header, max_block), 96);
        expectError(b, tb.blockOffsets[0] + 12, "bad block length 128");
    }
    {
        // Longer than any buffer, whatever the header says: the bound
        // that keeps 32-bit in-block offsets from wrapping.
        auto b = base;
        poke<std::uint32_t>(b, offsetof(ltt_file_header, max_block), 0xfffffff8u);
        poke<std::uint32_t>(b, b1 + 12, 0xfffffff8u);
        expectError(b, b1 + 12, "bad block length 4294967288");
    }
    {
        // A length running past the end of the file, with whole blocks
        // after it: not a cut-short last block.
        auto b = base;
        poke<std::uint32_t>(b, b1 + 12, 1u << 20);
        expectError(b, b1 + 12, "block length 1048576 runs past the end of the file");
    }
}

// Damage from which no later whole block of the trace can be found is the
// tail a power cut leaves: a warning and the blocks before it.
TEST(TraceReader, DamageWithNoWholeBlockAfterItIsATail) {
    TraceBuilder tb = twoCpus(LTT_FORMAT_V1); // version 1 offsets
    const auto base = tb.bytes();
    const std::size_t b1 = tb.blockOffsets[1];
    auto expectTail = [&](std::vector<std::byte> bytes, std::uint64_t at, const char* msg) {
        auto o = open(std::move(bytes));
        ASSERT_TRUE(o.reader) << o.error.str();
        ASSERT_TRUE(o.reader->truncation());
        EXPECT_TRUE(o.reader->tailWithoutBlock());
        EXPECT_EQ(o.reader->truncation()->offset, at);
        EXPECT_NE(o.reader->truncation()->message.find(msg), std::string::npos)
            << o.reader->truncation()->str();
        EXPECT_EQ(o.reader->dataEnd(), at);
        EXPECT_EQ(ids(*o.reader).size(), at == b1 ? 5u : 9u);
        EXPECT_FALSE(o.reader->buildIndex());
    };
    {
        auto b = base;
        poke<std::uint32_t>(b, b1 + 8, 0x12345678);
        expectTail(b, b1, "bytes that hold no whole block (bad block magic)");
    }
    {
        auto b = base;
        poke<std::uint16_t>(b, b1 + 8 + 28, 7);
        expectTail(b, b1, "(block CPU 7 >= CPU count 2)");
    }
    {
        auto b = base;
        b.resize(b.size() + 8192);
        expectTail(b, base.size(), "trace ends in 8192 zero bytes after the last whole block");
    }
    {
        // Zeros over the last block's end: its start was written, its
        // end never reached the disk.
        auto b = base;
        std::fill(b.begin() + static_cast<std::ptrdiff_t>(b1 + 64), b.end(), std::byte{0});
        expectTail(b, b1, "(block does not end with a BLOCK_END record)");
    }
    {
        // A stale copy of an earlier block in the tail (a sequence that
        // does not follow) is no later block of this trace.
        auto b = base;
        b.insert(b.end(), base.begin() + static_cast<std::ptrdiff_t>(tb.blockOffsets[0]),
                 base.begin() + static_cast<std::ptrdiff_t>(b1));
        std::vector<std::byte> junk(40, std::byte{0x5a});
        b.insert(b.end() - static_cast<std::ptrdiff_t>(b1 - tb.blockOffsets[0]), junk.begin(),
                 junk.end());
        expectTail(b, base.size(), "bytes that hold no whole block");
    }
}

TEST(TraceReader, RecordErrorsStopTheWalkAtTheRecord) {
    TraceBuilder tb = twoCpus(LTT_FORMAT_V1); // version 1 offsets
    auto b = tb.bytes();
    // Record 2 of block 0 (the schedchange) gets size 12.
    const std::size_t rec = tb.blockOffsets[0] + 48 + 24;
    poke<std::uint16_t>(b, rec + 6, 12);
    auto o = open(b);
    ASSERT_TRUE(o.reader); // the frame is intact: found while walking
    auto c = o.reader->begin();
    std::size_t n = 0;
    for (; c.valid(); c.next())
        ++n;
    ASSERT_TRUE(c.error());
    EXPECT_EQ(c.error()->offset, rec + 6);
    EXPECT_NE(c.error()->message.find("bad record size 12"), std::string::npos);
    EXPECT_EQ(o.reader->buildIndex()->offset, rec + 6);
    EXPECT_LT(n, 9u);

    // A record running past BLOCK_END.
    auto b2 = tb.bytes();
    poke<std::uint16_t>(b2, rec + 6, 4000);
    auto o2 = open(b2);
    ASSERT_TRUE(o2.reader);
    EXPECT_NE(o2.reader->buildIndex()->message.find("runs past"), std::string::npos);

    // BLOCK_END's count disagrees with the records.
    auto b3 = tb.bytes();
    const std::size_t endEvents = tb.blockOffsets[1] - 24 + 8 + 8;
    poke<std::uint32_t>(b3, endEvents, 9);
    auto o3 = open(b3);
    ASSERT_TRUE(o3.reader);
    ASSERT_TRUE(o3.reader->buildIndex());
    EXPECT_EQ(o3.reader->buildIndex()->offset, endEvents);
    EXPECT_NE(o3.reader->buildIndex()->message.find("BLOCK_END says 9"), std::string::npos);
}

TEST(TraceReader, TruncatedLastBlockIsReadableUpToIt) {
    TraceBuilder tb = twoCpus();
    auto b = tb.bytes();
    b.resize(tb.blockOffsets[1] + 60); // cut inside the second block
    auto o = open(b);
    ASSERT_TRUE(o.reader) << o.error.str();
    ASSERT_TRUE(o.reader->truncation());
    EXPECT_EQ(o.reader->truncation()->offset, tb.blockOffsets[1]);
    EXPECT_NE(o.reader->truncation()->message.find("cut short"), std::string::npos);
    EXPECT_EQ(ids(*o.reader).size(), 5u); // block 0 only
    // A few stray bytes after the last whole block.
    auto s = tb.bytes();
    s.resize(s.size() + 16);
    auto o2 = open(s);
    ASSERT_TRUE(o2.reader);
    ASSERT_TRUE(o2.reader->truncation());
    EXPECT_EQ(o2.reader->truncation()->offset, tb.bytes().size());
}

// Another program truncates the file while a cursor walks its mapping: the
// walk ends with an error naming the new size, not with SIGBUS.
TEST(TraceReader, FileTruncatedUnderAnOpenCursorIsAnError) {
    TraceBuilder tb(2, 1000000, 1000, LTT_FORMAT_V1); // cut offsets of a version 1 file
    ltt_ev_syscall_exit sx{0};
    std::uint64_t t = 1000;
    for (int blk = 0; blk < 64; ++blk) {
        tb.block(static_cast<std::uint16_t>(blk % 2), t, 100);
        for (int i = 0; i < 256; ++i)
            tb.ev(t += 10, LTT_EV_SYSCALL_EXIT, 0, sx);
        tb.end(t += 10);
    }
    const auto bytes = tb.bytes(); // about 270 KB: many pages
    char path[] = "/tmp/ltt-shrink-XXXXXX";
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    for (int round = 0; round < 3; ++round) {
        // A cursor on the file before the truncation, then walked: with
        // next(), then with forEach, to a new end on a page boundary (the
        // next load faults), then inside a page (the rest of it reads as
        // zeros, no fault).
        const std::uint64_t cut = round < 2 ? 24 * 4096 : 100000;
        ltt::TraceError e;
        auto r = ltt::TraceReader::open(path, &e);
        ASSERT_TRUE(r) << e.str();
        auto c = r->begin();
        for (int i = 0; i < 100 && c.valid(); ++i)
            c.next();
        ASSERT_TRUE(c.valid());
        ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(cut)), 0);
        std::uint64_t n = 0;
        if (round != 1)
            while (c.next())
                ++n;
        else
            c.forEach([&](const ltt::Event&) { ++n; }, 0xff, [] {});
        EXPECT_FALSE(c.valid());
        ASSERT_TRUE(c.error()) << "walked " << n << " events";
        EXPECT_EQ(c.error()->offset, cut);
        EXPECT_NE(c.error()->message.find("shrank to " + std::to_string(cut) +
                                          " bytes while it was being read"),
                  std::string::npos)
            << c.error()->str();
        EXPECT_LT(n, r->claimedEvents());
        // The file whole again for the next round.
        ASSERT_EQ(::pwrite(fd, bytes.data() + cut, bytes.size() - cut, static_cast<off_t>(cut)),
                  static_cast<ssize_t>(bytes.size() - cut));
    }
    ::close(fd);
    ::unlink(path);
}

TEST(TraceReader, UnknownEventsAreOpaqueRecords) {
    TraceBuilder b(1);
    std::uint64_t payload[3] = {1, 2, 3};
    b.block(0, 10, 1).ev(20, 200, 9, payload).ev(30, LTT_EV_KERNEL_TIMER).end(40);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader);
    EXPECT_EQ(ids(*o.reader), (std::vector<std::uint8_t>{LTT_EV_BLOCK_START, 200,
                                                         LTT_EV_KERNEL_TIMER, LTT_EV_BLOCK_END}));
}

TEST(TraceReader, EmptyTraceHasNoEvents) {
    TraceBuilder b(4);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader);
    EXPECT_FALSE(o.reader->begin().valid());
    EXPECT_EQ(o.reader->eventCount(), 0u);
    EXPECT_FALSE(o.reader->atTime(0).valid());
}

TEST(TraceReader, OpensFilesAndNamesMissingOnes) {
    ltt::TraceError e;
    EXPECT_FALSE(ltt::TraceReader::open("/nonexistent/x.trace", &e));
    EXPECT_EQ(e.file, "/nonexistent/x.trace");
    EXPECT_NE(e.str().find("cannot open: No such file"), std::string::npos);
}

TEST(TraceReader, WarnsWhenACpuHasNoFinalBlock) {
    TraceBuilder tb = twoCpus();
    auto b = tb.bytes();
    auto o = open(b);
    ASSERT_TRUE(o.reader);
    ASSERT_TRUE(o.reader->unfinished()); // the builder sets no FINAL flags
    EXPECT_NE(o.reader->unfinished()->message.find("no final block for CPU 0, 1"),
              std::string::npos);
    poke<std::uint16_t>(b, tb.blockOffsets[0] + 8 + 30, LTT_BLOCK_F_FINAL);
    auto o2 = open(b);
    ASSERT_TRUE(o2.reader);
    ASSERT_TRUE(o2.reader->unfinished());
    EXPECT_NE(o2.reader->unfinished()->message.find("no final block for CPU 1 ("),
              std::string::npos);
    poke<std::uint16_t>(b, tb.blockOffsets[1] + 8 + 30, LTT_BLOCK_F_FINAL);
    auto o3 = open(b);
    ASSERT_TRUE(o3.reader);
    EXPECT_FALSE(o3.reader->unfinished());
}

// Few CPUs are merged by a scan, many by a loser tree: both give the same
// order, (time, CPU).
TEST(TraceReader, MergesManyCpus) {
    for (std::uint32_t ncpus : {1u, 3u, 16u, 17u, 40u, 64u}) {
        TraceBuilder b(ncpus);
        std::mt19937 rng(ncpus);
        std::size_t events = 0;
        for (std::uint16_t cpu = 0; cpu < ncpus; ++cpu) {
            for (int blk = 0; blk < 2; ++blk) {
                std::uint64_t t = 1000 + blk * 100000 + rng() % 50;
                b.block(cpu, t, cpu);
                for (int i = 0; i < 50; ++i) {
                    t += rng() % 7; // ties across CPUs happen
                    b.ev(t, LTT_EV_KERNEL_TIMER);
                }
                b.end(t);
                events += 52;
            }
        }
        auto o = open(b.bytes());
        ASSERT_TRUE(o.reader) << o.error.str();
        std::vector<std::pair<std::uint64_t, std::uint16_t>> seen;
        for (auto c = o.reader->begin(); c.valid(); c.next())
            seen.emplace_back(c.event().tsc, c.event().cpu);
        EXPECT_EQ(seen.size(), events) << ncpus;
        EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << ncpus;
        auto mid = o.reader->atIndex(events / 2);
        ASSERT_TRUE(mid.valid());
        EXPECT_EQ(std::make_pair(mid.event().tsc, mid.event().cpu), seen[events / 2]);
    }
}

// forEach() (the analysis pass's walk: a merge specialised per CPU count) sees
// exactly what a loop over next() sees, and stops where it stops: same
// events, same error, same final index.
TEST(TraceReader, ForEachMatchesTheNextLoop) {
    struct Seen {
        std::uint64_t tsc, offset;
        std::int32_t pid;
        std::uint16_t cpu, size;
        std::uint8_t id, subtype;
        bool operator==(const Seen&) const = default;
    };
    auto seen = [](const ltt::Event& e) {
        return Seen{e.tsc, e.offset, e.pid, e.cpu, e.size, e.id, e.subtype};
    };
    for (std::uint32_t ncpus : {1u, 2u, 3u, 4u, 5u, 8u, 9u, 16u, 17u, 40u}) {
        TraceBuilder b(ncpus);
        std::mt19937 rng(ncpus * 7 + 1);
        for (int blk = 0; blk < 3; ++blk) {
            for (std::uint16_t cpu = 0; cpu < ncpus; ++cpu) {
                std::uint64_t t = 1000 + blk * 100000 + rng() % 20;
                b.block(cpu, t, 100 + cpu);
                const int n = 5 + static_cast<int>(rng() % 60);
                for (int i = 0; i < n; ++i) {
                    t += rng() % 4; // ties across CPUs and within one
                    switch (rng() % 6) {
                    case 0: {
                        ltt_ev_schedchange sc{100 + cpu, static_cast<std::int32_t>(rng() % 50),
                                              LTT_TASK_RUNNING, 0};
                        b.ev(t, LTT_EV_SCHEDCHANGE, 0, sc);
                        break;
                    }
                    case 1:
                        if (rng() % 4 == 0) {
                            t += 10;
                            b.heartbeat(t);
                        }
                        break;
                    case 2: {
                        ltt_ev_syscall_entry se{0x401000, static_cast<std::uint32_t>(rng() % 300),
                                                0};
                        b.ev(t, LTT_EV_SYSCALL_ENTRY, 0, se);
                        break;
                    }
                    default:
                        b.ev(t, static_cast<std::uint8_t>(rng() % LTT_EV_BLOCK_START),
                             static_cast<std::uint8_t>(rng() % 3));
                    }
                }
                b.end(t + 1);
            }
        }
        const auto good = b.bytes();
        // The intact trace, then damage the walk finds: a bad record size,
        // a BLOCK_END count off by one, a block cut short.
        std::vector<std::vector<std::byte>> variants{good};
        const std::size_t mid = b.blockOffsets[b.blockOffsets.size() / 2];
        variants.push_back(good);
        if (b.version() == LTT_FORMAT_V1)
            poke<std::uint16_t>(variants.back(), mid + 48 + 6, 12);
        else
            poke<std::uint32_t>(variants.back(), mid + 48, 0); // code 0
        variants.push_back(good);
        const std::size_t endOf = b.blockOffsets[b.blockOffsets.size() / 3 + 1] - 24 + 8 + 8;
        std::uint32_t count;
        std::memcpy(&count, good.data() + endOf, 4);
        poke<std::uint32_t>(variants.back(), endOf, count + 1);
        variants.push_back(good);
        variants.back().resize(b.blockOffsets.back() + 100);
        for (std::size_t v = 0; v < variants.size(); ++v) {
            auto o = open(variants[v]);
            ASSERT_TRUE(o.reader) << ncpus << " " << v << ": " << o.error.str();
            std::vector<Seen> want, got;
            auto c = o.reader->begin();
            for (; c.valid(); c.next())
                want.push_back(seen(c.event()));
            auto d = o.reader->begin();
            std::uint64_t ticks = 0;
            d.forEach([&](const ltt::Event& e) { got.push_back(seen(e)); }, 15, [&] { ++ticks; });
            EXPECT_TRUE(got == want) << ncpus << " CPUs, variant " << v << ": " << got.size()
                                     << " vs " << want.size() << " events";
            EXPECT_EQ(ticks, got.size() / 16) << ncpus << " " << v;
            EXPECT_FALSE(d.valid());
            EXPECT_EQ(d.index(), c.index()) << ncpus << " " << v;
            ASSERT_EQ(bool(d.error()), bool(c.error())) << ncpus << " " << v;
            if (c.error()) {
                EXPECT_EQ(d.error()->str(), c.error()->str());
            }
            EXPECT_EQ(v != 0 && v != 3, bool(c.error())) << ncpus << " " << v;
            // A walk past the end stays there.
            EXPECT_FALSE(d.next());
        }
    }
}
