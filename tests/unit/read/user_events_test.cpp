// User streams (application events, include/ltt/module_events.h USER): the
// reader's rules for their blocks (a stream's sequence, its one thread, its
// time never going back, any stream number), their merge with the CPUs in
// every walk and after a seek, and UserEvents' decoding: declared types,
// values that must match them, text and JSON.
#include "trace_builder.hpp"

#include <gtest/gtest.h>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/user_events.hpp>
#include <ltt/module_events.h>

using ltt::UserEvents;
using ltt::UserValue;
using ltt::test::TraceBuilder;

namespace {

using ltt::test::open;
using ltt::test::Opened;

const std::vector<UserEvents::Field> kReq = {
    {"n", LTT_USER_I64}, {"u", LTT_USER_U64}, {"r", LTT_USER_F64}, {"s", LTT_USER_STR}};

void declare(TraceBuilder& b, std::uint64_t tsc, std::uint32_t tgid, std::uint32_t id = 0,
             const std::vector<UserEvents::Field>& fields = kReq, const char* name = "req") {
    const auto d = ltt::userDeclareDetails(id, tgid, name, fields);
    b.extBytes(tsc, LTT_EV_USER, LTT_USER_DECLARE, d.data(), d.size());
}

void event(TraceBuilder& b, std::uint64_t tsc, std::uint32_t tgid, std::int64_t n,
           std::string s = "x", std::uint32_t id = 0) {
    const auto d = ltt::userEventDetails(id, tgid,
                                         {{LTT_USER_I64, n, 0, 0, {}},
                                          {LTT_USER_U64, 0, 18446744073709551615ull, 0, {}},
                                          {LTT_USER_F64, 0, 0, 0.1 * double(n), {}},
                                          {LTT_USER_STR, 0, 0, 0, std::move(s)}});
    b.extBytes(tsc, LTT_EV_USER, LTT_USER_EVENT, d.data(), d.size());
}

// Two CPUs and user stream 5 (thread 300 of process 300) between them.
TraceBuilder goodTrace(std::uint16_t stream = 5) {
    TraceBuilder b(2, 1000000, 1000, LTT_FORMAT_V2);
    b.block(0, 1000, 100)
        .ev(1010, LTT_EV_TRAP_EXIT)
        .ev(1040, LTT_EV_IRQ_EXIT)
        .end(1060, LTT_BLOCK_F_FINAL);
    b.block(1, 1000, 0).ev(1020, LTT_EV_KERNEL_TIMER).end(1070, LTT_BLOCK_F_FINAL);
    b.userBlock(stream, 0, 1005, 300);
    declare(b, 1005, 300);
    event(b, 1015, 300, 1, "a \"q\" \\ b\n");
    event(b, 1040, 300, 2);
    b.endUser(1050);
    return b;
}

} // namespace

TEST(UserStreams, MergedWithTheCpusByTime) {
    auto o = open(goodTrace().bytes());
    ASSERT_TRUE(o.reader) << o.error.str();
    ASSERT_EQ(o.reader->userStreams().size(), 1u);
    EXPECT_EQ(o.reader->userStreams()[0].number, 5u);
    EXPECT_EQ(o.reader->userStreams()[0].tid, 300);
    EXPECT_FALSE(o.reader->unfinished());
    std::vector<std::pair<std::uint64_t, bool>> seen; // (tsc, user)
    for (auto c = o.reader->begin(); c.valid(); c.next()) {
        const ltt::Event& e = c.event();
        seen.push_back({e.tsc, e.isUser()});
        if (e.isUser()) {
            EXPECT_EQ(e.cpu, ltt::kUserCpu);
            EXPECT_EQ(e.stream, 5u);
            EXPECT_EQ(e.pid, 300);
        } else {
            EXPECT_LT(e.cpu, 2u);
        }
    }
    // Time order; on equal times the CPUs first (1040: CPU 0's IRQ exit).
    ASSERT_EQ(seen.size(), 12u);
    for (std::size_t i = 1; i < seen.size(); ++i)
        EXPECT_LE(seen[i - 1].first, seen[i].first);
    auto at1040 = std::find_if(seen.begin(), seen.end(), [](auto& p) { return p.first == 1040; });
    ASSERT_NE(at1040, seen.end());
    EXPECT_FALSE(at1040->second);
    EXPECT_TRUE((at1040 + 1)->second);
    EXPECT_EQ(o.reader->eventCount(), 12u);
}

TEST(UserStreams, MonotonicStreamsAreCounted) {
    // Stream 5 stamped with the TSC, stream 6 with CLOCK_MONOTONIC (its
    // blocks flagged LTT_BLOCK_F_USER_MONOTONIC by the daemon).
    TraceBuilder b = goodTrace();
    b.userBlock(6, 0, 1006, 301);
    declare(b, 1006, 301);
    event(b, 1016, 301, 1);
    b.end(1051, LTT_BLOCK_F_USER | LTT_BLOCK_F_USER_MONOTONIC | LTT_BLOCK_F_FINAL);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader) << o.error.str();
    ASSERT_EQ(o.reader->userStreams().size(), 2u);
    EXPECT_FALSE(o.reader->userStream(5)->monotonic);
    EXPECT_TRUE(o.reader->userStream(6)->monotonic);
    EXPECT_EQ(o.reader->monotonicUserStreams(), 1u);
    EXPECT_EQ(open(goodTrace().bytes()).reader->monotonicUserStreams(), 0u);
}

TEST(UserStreams, DecodedAsTextAndJson) {
    auto o = open(goodTrace().bytes());
    ASSERT_TRUE(o.reader);
    UserEvents user(*o.reader);
    EXPECT_TRUE(user.problems().empty());
    std::vector<std::string> text, json;
    for (auto c = o.reader->begin(); c.valid(); c.next()) {
        const ltt::Event& e = c.event();
        if (!e.isUser() || e.id != LTT_EV_USER)
            continue;
        std::string t, j;
        EXPECT_TRUE(user.appendText(e, t));
        text.push_back(t);
        if (user.appendJson(e, j))
            json.push_back(j);
    }
    ASSERT_EQ(text.size(), 3u);
    EXPECT_EQ(text[0], "DECLARE req(n:i64, u:u64, r:f64, s:str)");
    EXPECT_EQ(text[1], "req n=1 u=18446744073709551615 r=0.1 s=\"a \\\"q\\\" \\\\ b\\n\"");
    EXPECT_EQ(text[2], "req n=2 u=18446744073709551615 r=0.2 s=\"x\"");
    ASSERT_EQ(json.size(), 2u);
    EXPECT_EQ(json[0], "\"name\": \"req\", \"fields\": {\"n\": 1, \"u\": 18446744073709551615, "
                       "\"r\": 0.1, \"s\": \"a \\\"q\\\" \\\\ b\\u000a\"}");
}

TEST(UserStreams, SeeksRestoreUserStreamsAcrossCheckpoints) {
    // Enough events for several checkpoints, with streams that begin and
    // end at different times: every index and time seek equals the walk.
    TraceBuilder b(2, 1000000, 1000, LTT_FORMAT_V2);
    for (unsigned cpu = 0; cpu < 2; ++cpu) {
        b.block(static_cast<std::uint16_t>(cpu), 1000, 100);
        for (std::uint64_t t = 1001 + cpu; t < 6000; t += 3)
            b.ev(t, LTT_EV_KERNEL_TIMER);
        b.end(6000, LTT_BLOCK_F_FINAL);
    }
    for (std::uint16_t s = 0; s < 20; ++s) {
        const std::uint64_t from = 1000 + 200 * s, to = from + 1500;
        b.userBlock(static_cast<std::uint16_t>(s * 3000), 0, from, 400 + s);
        declare(b, from, 400 + s);
        for (std::uint64_t t = from + 1; t < to; t += 7)
            event(b, t, 400 + s, static_cast<std::int64_t>(t));
        b.endUser(to);
    }
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader) << o.error.str();
    EXPECT_EQ(o.reader->userStreams().size(), 20u);
    std::vector<std::uint64_t> offsets;
    for (auto c = o.reader->begin(); c.valid(); c.next())
        offsets.push_back(c.event().offset);
    ASSERT_FALSE(o.reader->buildIndex());
    ASSERT_EQ(o.reader->eventCount(), offsets.size());
    ASSERT_GT(offsets.size(), 4 * ltt::TraceReader::kCheckpointInterval);
    for (std::uint64_t i = 0; i < offsets.size(); i += 97) {
        auto c = o.reader->atIndex(i);
        ASSERT_TRUE(c.valid()) << i;
        EXPECT_EQ(c.event().offset, offsets[i]) << i;
        if (c.next() && i + 1 < offsets.size()) {
            EXPECT_EQ(c.event().offset, offsets[i + 1]) << i;
        }
    }
    // forEach (the walk that goes through next() with user streams) and
    // the analysis see every event.
    std::uint64_t n = 0;
    o.reader->begin().forEach([&](const ltt::Event&) { ++n; }, 0xff, [] {});
    EXPECT_EQ(n, offsets.size());
    ltt::TraceAnalysis a(*o.reader, nullptr);
    ASSERT_TRUE(a.run());
    EXPECT_EQ(a.events(), offsets.size());
    EXPECT_EQ(a.userProblemCount(), 0u);
    std::uint64_t perProcess = 0;
    for (const auto& p : a.processes())
        for (const auto& [name, k] : p.userEvents) {
            EXPECT_EQ(name, "req");
            perProcess += k;
        }
    EXPECT_EQ(perProcess, a.userEvents());
    EXPECT_EQ(a.userEvents(), 20u * 215u);
}

TEST(UserStreams, SequenceMustFollowWithinTheStream) {
    TraceBuilder b = goodTrace();
    b.userBlock(5, 0, 1060, 300); // sequence 0 again
    event(b, 1061, 300, 3);
    b.endUser(1062);
    b.block(0, 1100, 100).end(1110); // damage inside the trace, not its tail
    auto o = open(b.bytes());
    ASSERT_FALSE(o.reader);
    EXPECT_EQ(o.error.offset, b.blockOffsets[3] + 8 + offsetof(ltt_block_start, sequence));
    EXPECT_EQ(o.error.message, "block sequence 0 of user stream 5 does not follow 0");
    // Another stream's numbering is its own; so is a CPU's.
    TraceBuilder c = goodTrace();
    c.userBlock(6, 0, 1060, 301).endUser(1062);
    EXPECT_TRUE(open(c.bytes()).reader);
}

TEST(UserStreams, OneThreadPerStream) {
    TraceBuilder b = goodTrace();
    b.userBlock(5, 1, 1060, 999).endUser(1062);
    b.block(0, 1100, 100).end(1110);
    auto o = open(b.bytes());
    ASSERT_FALSE(o.reader);
    EXPECT_EQ(o.error.offset, b.blockOffsets[3] + 8 + offsetof(ltt_block_start, pid));
    EXPECT_EQ(o.error.message, "block of thread 999 in user stream 5 of thread 300");
}

TEST(UserStreams, TimeNeverGoesBackAcrossBlocks) {
    TraceBuilder b = goodTrace();
    b.userBlock(5, 1, 1030, 300); // before the previous block's last event (1040)
    event(b, 1031, 300, 3);
    b.endUser(1032);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader); // frames are fine: found while walking
    auto c = o.reader->begin();
    while (c.valid())
        c.next();
    ASSERT_TRUE(c.error());
    EXPECT_EQ(c.error()->offset, b.blockOffsets.back() + 8 + offsetof(ltt_block_start, start_tsc));
    EXPECT_EQ(c.error()->message,
              "user stream block starts at 1030, before the stream's previous record at 1040");
}

TEST(UserStreams, UndeclaredTypeIsDamageAtItsOffset) {
    TraceBuilder b(1, 1000000, 1000, LTT_FORMAT_V2);
    b.block(0, 1000, 100).ev(1010, LTT_EV_TRAP_EXIT).end(1060, LTT_BLOCK_F_FINAL);
    b.userBlock(1, 0, 1001, 300);
    event(b, 1002, 300, 1); // before any declaration
    declare(b, 1003, 300);
    event(b, 1004, 300, 2, "ok");
    event(b, 1005, 300, 3, "x", 9); // type 9 never declared
    b.endUser(1006);
    b.userBlock(2, 0, 1001, 301);
    event(b, 1007, 300, 4); // declared in stream 1 only
    b.endUser(1008);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader);
    UserEvents user(*o.reader);
    std::vector<std::string> why;
    std::vector<std::uint64_t> at;
    for (auto c = o.reader->begin(); c.valid(); c.next()) {
        const ltt::Event& e = c.event();
        std::string w;
        if (e.isUser() && e.id == LTT_EV_USER && !user.check(e, nullptr, &w) && !w.empty()) {
            why.push_back(w);
            at.push_back(e.offset);
            std::string text;
            EXPECT_FALSE(user.appendText(e, text));
            EXPECT_TRUE(text.empty());
        }
    }
    ASSERT_EQ(why.size(), 3u);
    EXPECT_EQ(why[0], "user event of type 0 of process 300 not declared before in its stream");
    EXPECT_EQ(why[1], "user event of type 9 of process 300 not declared before in its stream");
    EXPECT_EQ(why[2], why[0]);
    EXPECT_EQ(at[0], b.blockOffsets[1] + ltt::kBlockStartRecord);
    // The analysis counts the good one, warns of the others at their offsets.
    ltt::TraceAnalysis a(*o.reader, nullptr);
    ASSERT_TRUE(a.run());
    EXPECT_EQ(a.userEvents(), 1u);
    ASSERT_EQ(a.userProblems().size(), 3u);
    EXPECT_EQ(a.userProblems()[0].offset, at[0]);
}

TEST(UserStreams, FieldOverrunIsDamage) {
    TraceBuilder b(1, 1000000, 1000, LTT_FORMAT_V2);
    b.block(0, 1000, 100).end(1060, LTT_BLOCK_F_FINAL);
    b.userBlock(1, 0, 1001, 300);
    declare(b, 1002, 300);
    auto d = ltt::userEventDetails(0, 300,
                                   {{LTT_USER_I64, 1, 0, 0, {}},
                                    {LTT_USER_U64, 0, 2, 0, {}},
                                    {LTT_USER_F64, 0, 0, 3, {}},
                                    {LTT_USER_STR, 0, 0, 0, "abc"}});
    std::uint16_t len = 500; // the string claims more than the record holds
    std::memcpy(d.data() + 8 + 24, &len, sizeof len);
    b.extBytes(1003, LTT_EV_USER, LTT_USER_EVENT, d.data(), d.size());
    auto shortOne = ltt::userEventDetails(0, 300, {{LTT_USER_I64, 1, 0, 0, {}}});
    b.extBytes(1004, LTT_EV_USER, LTT_USER_EVENT, shortOne.data(), shortOne.size());
    b.endUser(1005);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader);
    UserEvents user(*o.reader);
    std::vector<std::string> why;
    for (auto c = o.reader->begin(); c.valid(); c.next()) {
        std::string w;
        if (c.event().isUser() && c.event().id == LTT_EV_USER &&
            !user.check(c.event(), nullptr, &w) && !w.empty())
            why.push_back(w);
    }
    ASSERT_EQ(why.size(), 2u);
    EXPECT_EQ(why[0], "user event \"req\": field \"s\" runs past the record (32 bytes of values)");
    EXPECT_EQ(why[1], "user event \"req\": field \"u\" runs past the record (8 bytes of values)");
}

TEST(UserStreams, AnyStreamNumber) {
    // Stream numbers are the daemon's, up to 65535 (the same bits as
    // kUserCpu, which is an Event's cpu, not a stream).
    auto o = open(goodTrace(65535).bytes());
    ASSERT_TRUE(o.reader) << o.error.str();
    EXPECT_NE(o.reader->userStream(65535), nullptr);
    EXPECT_EQ(o.reader->userStream(5), nullptr);
    std::size_t user = 0;
    for (auto c = o.reader->begin(); c.valid(); c.next())
        if (c.event().isUser()) {
            EXPECT_EQ(c.event().stream, 65535u);
            ++user;
        }
    EXPECT_EQ(user, 5u);
}

TEST(UserStreams, UnfinishedStreamIsNamed) {
    TraceBuilder b(1, 1000000, 1000, LTT_FORMAT_V2);
    b.block(0, 1000, 100).end(1060, LTT_BLOCK_F_FINAL);
    b.userBlock(7, 0, 1001, 300).endUser(1002, false);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader);
    ASSERT_TRUE(o.reader->unfinished());
    EXPECT_NE(o.reader->unfinished()->message.find("no final block for user stream 7 "),
              std::string::npos)
        << o.reader->unfinished()->message;
}

TEST(UserStreams, LostUserEventsCountedApart) {
    TraceBuilder b(1, 1000000, 1000, LTT_FORMAT_V2);
    b.block(0, 1000, 100, 2).end(1060, LTT_BLOCK_F_FINAL);
    b.userBlock(7, 0, 1001, 300, 5).endUser(1002);
    auto o = open(b.bytes());
    ASSERT_TRUE(o.reader);
    EXPECT_EQ(o.reader->lostEvents(), 2u);
    EXPECT_EQ(o.reader->userLostEvents(), 5u);
    EXPECT_EQ(o.reader->userStreams()[0].lost, 5u);
}

TEST(UserStreams, UserBlockInVersion1IsDamage) {
    TraceBuilder b(1, 1000000, 1000, LTT_FORMAT_V1);
    b.block(0, 1000, 100).end(1060, LTT_BLOCK_F_FINAL);
    b.userBlock(7, 0, 1001, 300).endUser(1002);
    b.block(0, 1100, 100).end(1160, LTT_BLOCK_F_FINAL);
    auto o = open(b.bytes());
    ASSERT_FALSE(o.reader);
    EXPECT_EQ(o.error.offset, b.blockOffsets[1] + 8 + offsetof(ltt_block_start, flags));
    EXPECT_EQ(o.error.message, "user block in a version 1 trace");
}
