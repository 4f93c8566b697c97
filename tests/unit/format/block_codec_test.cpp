// The block codec: frames and records checked with the reader's rules and
// words, blocks built by BlockBuilder, and the C API the module tests use.
#include "trace_builder.hpp"

#include <gtest/gtest.h>
#include <libltt/block_codec.h>
#include <libltt/block_codec.hpp>
#include <libltt/trace_reader.hpp>
#include <vector>

using namespace ltt;
using ltt::test::poke;

namespace {

constexpr std::size_t kStart = sizeof(ltt_record_header); // details of BLOCK_START
// The version 1 tests below name offsets of version 1 records.
FrameRules rulesFor(unsigned version) {
    FrameRules r;
    r.version = version;
    return r;
}
const FrameRules kV1 = rulesFor(LTT_FORMAT_V1);

std::vector<std::byte> sampleBlock(std::uint16_t cpu = 1, std::uint32_t sequence = 0,
                                   std::uint64_t lost = 0, std::uint16_t flags = LTT_BLOCK_F_FINAL,
                                   unsigned version = LTT_FORMAT_V1) {
    BlockBuilder b(version);
    b.start(cpu, sequence, 1000, 7, lost, 900);
    b.record(1010, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x400000, 39, 0});
    b.record(1020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{42, 7, 0, 0});
    b.heartbeat(1030);
    b.record(1040, LTT_EV_KERNEL_TIMER, 0, nullptr, 0);
    const auto block = b.finish(1050, flags);
    return {block.begin(), block.end()};
}

FrameFault frameOf(const std::vector<std::byte>& bytes, const FrameRules& rules = kV1) {
    BlockInfo b;
    return parseFrame(bytes, rules, b);
}

// The fault walkBlock() finds in the block at `offset` of a trace, and the
// error a reader's walk over the whole trace stops with (empty if none).
std::pair<RecordFault, TraceError> faultAndReaderError(const std::vector<std::byte>& bytes,
                                                       std::size_t offset) {
    TraceError error;
    auto reader = TraceReader::openMemory(bytes, "t.trace", &error);
    if (reader) {
        auto cursor = reader->begin();
        while (cursor.next()) {
        }
        error = cursor.error().value_or(TraceError{});
    }
    const auto block = std::span<const std::byte>(bytes).subspan(offset);
    BlockInfo b;
    ltt_file_header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    if (parseFrame(block, rulesFor(h.version), b).kind != FrameFault::None)
        return {RecordFault{}, error};
    return {walkBlock(block, b, [](const BlockRecord&) {}), error};
}

} // namespace

TEST(BlockCodec, BuiltBlockHasTheFrameItWasGiven) {
    const auto bytes = sampleBlock(1, 3, 5);
    BlockInfo b;
    ASSERT_EQ(parseFrame(bytes, kV1, b).kind, FrameFault::None);
    EXPECT_EQ(b.length, bytes.size());
    EXPECT_EQ(b.length, 48u + 24 + 24 + 24 + 16 + 8 + 24);
    EXPECT_EQ(b.cpu, 1);
    EXPECT_EQ(b.sequence, 3u);
    EXPECT_EQ(b.flags, LTT_BLOCK_F_FINAL);
    EXPECT_EQ(b.pid, 7);
    EXPECT_EQ(b.startTsc, 1000u);
    EXPECT_EQ(b.endTsc, 1050u);
    EXPECT_EQ(b.lost, 5u);
    EXPECT_EQ(b.records, 7u); // start, lost, 4 records (heartbeat included), end
}

TEST(BlockCodec, WalkGivesTimesAndCurrentTask) {
    const auto bytes = sampleBlock();
    BlockInfo b;
    ASSERT_EQ(parseFrame(bytes, kV1, b).kind, FrameFault::None);
    std::vector<BlockRecord> seen;
    const RecordFault f = walkBlock(bytes, b, [&](const BlockRecord& r) { seen.push_back(r); });
    ASSERT_EQ(f.kind, RecordFault::None) << f.message();
    ASSERT_EQ(seen.size(), 6u);
    const std::uint8_t ids[] = {LTT_EV_BLOCK_START, LTT_EV_SYSCALL_ENTRY, LTT_EV_SCHEDCHANGE,
                                LTT_EV_HEARTBEAT,   LTT_EV_KERNEL_TIMER,  LTT_EV_BLOCK_END};
    const std::uint64_t tscs[] = {1000, 1010, 1020, 1030, 1040, 1050};
    const std::int32_t pids[] = {7, 7, 42, 42, 42, 42};
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i].header.event, ids[i]) << i;
        EXPECT_EQ(seen[i].tsc, tscs[i]) << i;
        EXPECT_EQ(seen[i].pid, pids[i]) << i;
    }
    // The heartbeat's delta counts from the block start, what follows from it.
    EXPECT_EQ(seen[3].header.delta, 30u);
    EXPECT_EQ(seen[4].header.delta, 10u);
    EXPECT_EQ(seen[5].offset + kBlockEndRecord, bytes.size());
}

TEST(BlockCodec, FrameFaultsNameTheFieldAndSayWhy) {
    const auto good = sampleBlock();
    {
        auto b = good;
        poke<std::uint32_t>(b, kStart + offsetof(ltt_block_start, magic), 0xdeadbeef);
        const FrameFault f = frameOf(b);
        EXPECT_EQ(f.kind, FrameFault::BadMagic);
        EXPECT_EQ(f.at, 8u);
        EXPECT_EQ(f.message(), "bad block magic");
    }
    {
        auto b = good;
        poke<std::uint8_t>(b, 4, LTT_EV_SYSCALL_ENTRY);
        const FrameFault f = frameOf(b);
        EXPECT_EQ(f.at, 4u);
        EXPECT_EQ(f.message(), "expected BLOCK_START record, found event id 1");
    }
    {
        auto b = good;
        poke<std::uint32_t>(b, 0, 5); // delta
        EXPECT_EQ(frameOf(b).message(), "malformed BLOCK_START record header");
        EXPECT_EQ(frameOf(b).at, 0u);
    }
    {
        auto b = good;
        poke<std::uint32_t>(b, kBlockLengthAt, 77);
        EXPECT_EQ(frameOf(b).message(), "bad block length 77");
        EXPECT_EQ(frameOf(b).at, kBlockLengthAt);
    }
    {
        auto b = good;
        b.resize(b.size() - 8);
        const FrameFault f = frameOf(b);
        EXPECT_EQ(f.kind, FrameFault::PastEnd);
        EXPECT_EQ(f.message(), "block length " + std::to_string(good.size()) +
                                   " runs past the end of the file (" + std::to_string(b.size()) +
                                   " bytes left)");
    }
    {
        FrameRules rules = kV1;
        rules.ncpus = 1;
        const FrameFault f = frameOf(good, rules);
        EXPECT_EQ(f.message(), "block CPU 1 >= CPU count 1");
        EXPECT_EQ(f.at, kStart + offsetof(ltt_block_start, cpu));
    }
    {
        const std::int64_t last[] = {-1, 0};
        FrameRules rules = kV1;
        rules.lastSequence = last;
        const FrameFault f = frameOf(good, rules); // CPU 1's sequence 0 again
        EXPECT_EQ(f.message(), "block sequence 0 of CPU 1 does not follow 0");
        EXPECT_EQ(f.at, kStart + offsetof(ltt_block_start, sequence));
    }
    {
        auto b = good;
        poke<std::uint8_t>(b, b.size() - kBlockEndRecord + 4, LTT_EV_SYSCALL_EXIT);
        EXPECT_EQ(frameOf(b).message(), "block does not end with a BLOCK_END record");
        EXPECT_EQ(frameOf(b).at, b.size() - kBlockEndRecord + 4);
    }
    {
        auto b = good;
        poke<std::uint32_t>(b, b.size() - 8, 1); // BLOCK_END.events
        EXPECT_EQ(frameOf(b).message(), "bad block event count 1");
        EXPECT_EQ(frameOf(b).at, b.size() - 8);
    }
    {
        std::vector<std::byte> b(good.begin(), good.begin() + 40);
        EXPECT_EQ(frameOf(b).kind, FrameFault::Short);
        EXPECT_EQ(frameOf(b).message(), "40 bytes left, too few for a block");
    }
}

// A damaged record is reported by the codec as the reader reports it: the
// same words at the same offset.
TEST(BlockCodec, RecordFaultsAreTheReaders) {
    struct Case {
        std::size_t at; // from the second record (the syscall entry)
        std::uint16_t size;
        std::uint8_t event;
    };
    const Case cases[] = {{6, 12, LTT_EV_SYSCALL_ENTRY},
                          {6, 4096, LTT_EV_SYSCALL_ENTRY},
                          {4, 24, LTT_EV_BLOCK_END},
                          {4, 24, LTT_EV_BLOCK_START}};
    for (const Case& c : cases) {
        test::TraceBuilder t(2, 1000000, 1000, LTT_FORMAT_V1);
        t.block(1, 1000, 7);
        t.ev(1010, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x400000, 39, 0});
        t.ev(1020, LTT_EV_KERNEL_TIMER);
        t.end(1050);
        auto bytes = t.bytes();
        const std::size_t rec = t.blockOffsets[0] + kBlockStartRecord;
        poke<std::uint16_t>(bytes, rec + 6, c.size);
        poke<std::uint8_t>(bytes, rec + 4, c.event);

        const auto [f, readerError] = faultAndReaderError(bytes, t.blockOffsets[0]);
        EXPECT_NE(f.kind, RecordFault::None);
        EXPECT_EQ(f.message(), readerError.message);
        EXPECT_EQ(t.blockOffsets[0] + f.at, readerError.offset);
        EXPECT_EQ(f.at, kBlockStartRecord + c.at);
    }
}

TEST(BlockCodec, RecordCountMismatchIsTheReaders) {
    test::TraceBuilder t(1);
    t.block(0, 1000, 7).ev(1010, LTT_EV_KERNEL_TIMER).end(1050);
    auto bytes = t.bytes();
    poke<std::uint32_t>(bytes, bytes.size() - 8, 9); // BLOCK_END.events
    const auto [f, readerError] = faultAndReaderError(bytes, t.blockOffsets[0]);
    EXPECT_EQ(f.message(), "block holds 3 records but BLOCK_END says 9");
    EXPECT_EQ(f.message(), readerError.message);
    EXPECT_EQ(t.blockOffsets[0] + f.at, readerError.offset);
}

TEST(BlockCodec, WholeBlockBytesStopsAtACutBlock) {
    auto bytes = sampleBlock(0, 0);
    const std::size_t one = bytes.size();
    const auto second = sampleBlock(0, 1);
    bytes.insert(bytes.end(), second.begin(), second.end());
    EXPECT_EQ(wholeBlockBytes(bytes), 2 * one);
    bytes.resize(bytes.size() - 1);
    EXPECT_EQ(wholeBlockBytes(bytes), one);
    bytes.resize(one + kBlockLengthAt + 2); // not even the next length
    EXPECT_EQ(wholeBlockBytes(bytes), one);
    poke<std::uint32_t>(bytes, kBlockLengthAt, 8); // a length below any block
    EXPECT_EQ(wholeBlockBytes(bytes), 0u);
}

// ---------------------------------------------------------------- the C API

namespace {

struct Seen {
    std::vector<std::uint8_t> events;
    std::vector<std::int32_t> pids;
};

void onRecord(const ltt_checked_record* r, void* arg) {
    auto* s = static_cast<Seen*>(arg);
    s->events.push_back(r->event);
    s->pids.push_back(r->pid);
}

int check(const std::vector<std::byte>& bytes, ltt_blocks_result& res, Seen* seen = nullptr,
          unsigned flags = 0, std::uint64_t anchor = 500, unsigned version = LTT_FORMAT_V1) {
    return ltt_blocks_check(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(),
                            version, 2, anchor, flags, seen ? onRecord : nullptr, seen, &res);
}

std::vector<std::byte> concat(std::initializer_list<std::vector<std::byte>> blocks) {
    std::vector<std::byte> out;
    for (const auto& b : blocks)
        out.insert(out.end(), b.begin(), b.end());
    return out;
}

} // namespace

TEST(BlockCodecC, AcceptsWhatTheModuleWritesAndCounts) {
    BlockBuilder b(LTT_FORMAT_V1);
    b.start(0, 0, 1000, 7);
    b.record(1000, LTT_EV_TRACE_START, 0, ltt_ev_trace_start{});
    b.record(1001, LTT_EV_KERNEL_TIMER, 0, nullptr, 0);
    const auto first = b.finish(1002);
    const std::vector<std::byte> b0(first.begin(), first.end());
    const auto bytes = concat({b0, sampleBlock(1, 0, 5)});
    ltt_blocks_result res;
    Seen seen;
    ASSERT_EQ(check(bytes, res, &seen), 0) << res.error;
    EXPECT_STREQ(res.error, "");
    EXPECT_EQ(res.blocks, 2u);
    EXPECT_EQ(res.records, 4u + 7u);
    EXPECT_EQ(res.lost[1], 5u);
    EXPECT_EQ(res.lost_total, 5u);
    EXPECT_EQ(res.lost_records, 1u);
    EXPECT_EQ(res.heartbeats[1], 1u);
    EXPECT_EQ(res.final_blocks[1], 1u);
    EXPECT_EQ(res.nblocks[0], 1u);
    EXPECT_EQ(res.trace_start_seen, 1);
    // Event records only; a SCHEDCHANGE was written while `out` ran.
    const std::vector<std::uint8_t> events = {LTT_EV_TRACE_START, LTT_EV_KERNEL_TIMER,
                                              LTT_EV_SYSCALL_ENTRY, LTT_EV_SCHEDCHANGE,
                                              LTT_EV_KERNEL_TIMER};
    EXPECT_EQ(seen.events, events);
    EXPECT_EQ(seen.pids, (std::vector<std::int32_t>{7, 7, 7, 7, 42}));

    Seen all;
    ASSERT_EQ(check(bytes, res, &all, LTT_CHECK_ALL_RECORDS), 0) << res.error;
    EXPECT_EQ(all.events.size(), 11u);
    EXPECT_EQ(all.events.front(), LTT_EV_BLOCK_START);
    EXPECT_EQ(all.events.back(), LTT_EV_BLOCK_END);
    EXPECT_EQ(ltt_blocks_whole(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                               bytes.size() - 3, LTT_FORMAT_V1),
              b0.size());
}

TEST(BlockCodecC, RefusesWhatTheModuleMustNotWrite) {
    ltt_blocks_result res;
    // The codec's own checks, in the reader's words.
    auto badMagic = sampleBlock(0, 0);
    poke<std::uint32_t>(badMagic, kStart, 1);
    EXPECT_EQ(check(badMagic, res), -1);
    EXPECT_STREQ(res.error, "offset 8: bad block magic");
    // A gap in a CPU's sequence.
    EXPECT_EQ(check(concat({sampleBlock(0, 0, 0, 0), sampleBlock(0, 2)}), res), -1);
    EXPECT_STREQ(res.error, "offset 144: cpu 0: sequence 2, want 1");
    // A block after the CPU's FINAL one (sampleBlock is FINAL).
    EXPECT_EQ(check(concat({sampleBlock(0, 0), sampleBlock(0, 1)}), res), -1);
    EXPECT_STREQ(res.error, "offset 144: cpu 0: block after FINAL");
    // Older than the anchor.
    EXPECT_EQ(check(sampleBlock(0, 0), res, nullptr, 0, 2000), -1);
    EXPECT_STREQ(res.error, "offset 0: cpu 0: start_tsc goes back");
    // A heartbeat whose delta does not match its time.
    auto hb = sampleBlock(0, 0);
    poke<std::uint32_t>(hb, 96, 31);
    EXPECT_EQ(check(hb, res), -1);
    EXPECT_STREQ(res.error, "offset 96: bad heartbeat");
    // A record older than the one before.
    auto back = sampleBlock(0, 0);
    poke<std::uint32_t>(back, 72, 5);
    EXPECT_EQ(check(back, res), -1);
    EXPECT_STREQ(res.error, "offset 72: time goes back");
    // Lost events without their LOST record.
    auto lost = sampleBlock(0, 0);
    poke<std::uint64_t>(lost, kStart + offsetof(ltt_block_start, lost), 3);
    EXPECT_EQ(check(lost, res), -1);
    EXPECT_STREQ(res.error, "offset 48: LOST record missing");
    // Reserved fields.
    auto reserved = sampleBlock(0, 0);
    poke<std::uint32_t>(reserved, kStart + offsetof(ltt_block_start, reserved), 1);
    EXPECT_EQ(check(reserved, res), -1);
    EXPECT_STREQ(res.error, "offset 0: reserved bits set");
    // A record count that does not match.
    auto count = sampleBlock(0, 0);
    poke<std::uint32_t>(count, count.size() - 8, 9);
    EXPECT_EQ(check(count, res), -1);
    EXPECT_EQ(std::string(res.error), "offset " + std::to_string(count.size() - 8) +
                                          ": block holds 6 records but BLOCK_END says 9");
}
