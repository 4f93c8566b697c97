// Format version 2 (docs/trace-format.md §2.2): the producer's choice of
// code at each narrowing limit, the decoding of every code back to the
// version 1 record of the same event, a trace read the same in both
// versions, the corruptions only version 2 has (each named by file and
// offset), damage in a version 2 tail, and the C API's producer checks.
#include "trace_builder.hpp"

#include <cstring>
#include <gtest/gtest.h>
#include <libltt/block_codec.h>
#include <libltt/block_codec.hpp>
#include <libltt/trace_reader.hpp>
#include <random>
#include <vector>

using namespace ltt;
using ltt::test::poke;
using ltt::test::TraceBuilder;

namespace {

// One event written by a version 2 BlockBuilder `delta` ticks after the
// previous record (a syscall entry of ip `lastIp` before it when lastIp is
// set), and read back by walkBlock().
struct Written {
    BlockRecord rec;  // the event, decoded
    std::uint32_t at; // its offset in the block
};

Written writeOne(std::uint8_t id, std::uint8_t sub, const void* d, std::size_t n,
                 std::uint32_t delta = 10, std::uint64_t lastIp = 0) {
    BlockBuilder b(LTT_FORMAT_V2);
    b.start(0, 0, 1000, 7);
    std::uint64_t t = 1000;
    if (lastIp) {
        const ltt_ev_syscall_entry se{lastIp, 1, 0};
        b.record(t += 5, LTT_EV_SYSCALL_ENTRY, 0, se);
    }
    b.record(t += delta, id, sub, d, n);
    const auto block = b.finish(t + 1);
    std::vector<std::byte> bytes(block.begin(), block.end());
    BlockInfo info;
    FrameRules rules;
    EXPECT_EQ(parseFrame(bytes, rules, info).kind, FrameFault::None);
    std::vector<BlockRecord> seen;
    const RecordFault f = walkBlock(bytes, info, [&](const BlockRecord& r) { seen.push_back(r); });
    EXPECT_EQ(f.kind, RecordFault::None) << f.message();
    const std::size_t i = lastIp ? 2 : 1;
    if (seen.size() < i + 2)
        return {};
    Written w{seen[i], seen[i].offset};
    EXPECT_EQ(seen[i].tsc, t);
    // The records' bytes are gone with `bytes`: keep what details() needs.
    if (detailsInBlock(w.rec.code)) {
        static thread_local std::vector<std::byte> keep;
        keep = bytes;
        w.rec.record = keep.data() + w.at;
    }
    return w;
}

// Writes `d`, expects `code`, and expects it to read back as the version 1
// record of the same event: id, subtype, size 8 + sizeof d, details d.
template <class T>
void expectRoundTrip(std::uint8_t id, std::uint8_t sub, const T& d, std::uint8_t code,
                     std::uint32_t delta = 10, std::uint64_t lastIp = 0) {
    const Written w = writeOne(id, sub, &d, sizeof d, delta, lastIp);
    EXPECT_EQ(unsigned{w.rec.code}, unsigned{code});
    EXPECT_EQ(w.rec.header.event, id);
    EXPECT_EQ(w.rec.header.subtype, sub);
    EXPECT_EQ(w.rec.header.size, sizeof(ltt_record_header) + sizeof d);
    if (code != LTT_CODE_EXT) {
        EXPECT_EQ(w.rec.stored, storedSize(code));
    }
    const auto got = w.rec.details();
    ASSERT_EQ(got.size(), sizeof d);
    EXPECT_EQ(std::memcmp(got.data(), &d, sizeof d), 0) << "code " << unsigned{code};
}

std::uint8_t codeOfBytes(std::uint8_t id, std::uint8_t sub, const void* d, std::size_t n,
                         std::uint32_t delta = 10, std::uint64_t lastIp = 0) {
    return encodeRecord(id, sub, d, n, delta, lastIp).code;
}
template <class T>
std::uint8_t codeOf(std::uint8_t id, std::uint8_t sub, const T& d, std::uint32_t delta = 10,
                    std::uint64_t lastIp = 0) {
    return codeOfBytes(id, sub, &d, sizeof d, delta, lastIp);
}

} // namespace

// docs/trace-format.md's code table, written out: each code's record size
// and whether it is short. A reader learns the size from the number alone
// (recordHead()), so the table and the arithmetic must agree for every
// code, and every other number must read as no record.
TEST(FormatV2, EachCodeHasTheSizeOfTheTable) {
    struct Row {
        unsigned code, size;
        bool shortCode;
    };
    const Row table[] = {
        {LTT_CODE_SYS_ENTRY_NEAR, 12, false}, {LTT_CODE_TRAP_ENTRY, 24, false},
        {LTT_CODE_TRAP_EXIT, 4, false},       {LTT_CODE_SYS_ENTRY_SAME, 8, false},
        {LTT_CODE_SYS_EXIT, 12, false},       {LTT_CODE_SYS_ENTRY, 16, false},
        {LTT_CODE_IRQ_EXIT, 4, false},        {LTT_CODE_SYS_EXIT_MID, 8, false},
        {LTT_CODE_SCHED, 12, false},          {LTT_CODE_HEARTBEAT, 16, false},
        {LTT_CODE_KERNEL_TIMER, 4, false},    {LTT_CODE_IRQ_ENTRY, 8, false},
        {LTT_CODE_WAKEUP, 12, false},         {LTT_CODE_SYS_ENTRY_SHORT, 4, true},
        {LTT_CODE_FS_CLOSE, 8, false},        {LTT_CODE_FS_READ, 12, false},
        {LTT_CODE_SYS_EXIT_SHORT, 4, true},   {LTT_CODE_FS_WRITE, 12, false},
        {LTT_CODE_SOFTIRQ_ENTRY, 4, true},    {LTT_CODE_PAGE_ALLOC, 12, false},
        {LTT_CODE_SOFTIRQ_EXIT, 4, true},     {LTT_CODE_PAGE_FREE, 12, false},
    };
    std::uint32_t seen = 1u << LTT_CODE_EXT;
    for (const Row& r : table) {
        SCOPED_TRACE(r.code);
        seen |= 1u << r.code;
        EXPECT_TRUE(validCode(r.code));
        EXPECT_EQ(storedSize(r.code), r.size);
        EXPECT_EQ(deltaShift(r.code), r.shortCode ? 14u : 5u);
        // The head of a record of that code, with the largest delta it holds.
        const std::uint32_t delta = r.shortCode ? LTT_SHORT_DELTA_MAX : LTT_LONG_DELTA_MAX;
        std::byte rec[8] = {};
        const std::uint32_t word = r.shortCode ? std::uint32_t{LTT_SHORT_WORD(r.code, 0x1ff, delta)}
                                               : std::uint32_t{LTT_LONG_WORD(r.code, delta)};
        std::memcpy(rec, &word, sizeof word);
        const ltt_record_header h = recordHead<LTT_FORMAT_V2>(rec);
        EXPECT_EQ(h.size, r.size);
        EXPECT_EQ(h.delta, delta);
        EXPECT_EQ(h.event, kCodes[r.code].event);
    }
    // EXT: the size of its second word.
    std::byte ext[8] = {};
    const std::uint32_t words[2] = {LTT_LONG_WORD(LTT_CODE_EXT, 9),
                                    LTT_EV_LOST | 0u << 8 | 24u << 16};
    std::memcpy(ext, words, sizeof words);
    EXPECT_EQ(recordHead<LTT_FORMAT_V2>(ext).size, 24u);
    EXPECT_EQ(recordHead<LTT_FORMAT_V2>(ext).event, LTT_EV_LOST);
    EXPECT_EQ(recordHead<LTT_FORMAT_V2>(ext).delta, 9u);
    EXPECT_EQ(seen, LTT_CODE_VALID_MASK);
    for (unsigned code = 0; code < 32; ++code) {
        if (seen >> code & 1)
            continue;
        SCOPED_TRACE(code);
        EXPECT_FALSE(validCode(code));
        std::byte rec[8] = {};
        rec[0] = static_cast<std::byte>(code);
        EXPECT_FALSE(ordinaryRecord<LTT_FORMAT_V2>(recordHead<LTT_FORMAT_V2>(rec), 0, 1000));
        EXPECT_EQ(checkRecord<LTT_FORMAT_V2>(rec, recordHead<LTT_FORMAT_V2>(rec), 0, 1000).kind,
                  RecordFault::BadCode);
    }
}

TEST(FormatV2, SyscallExitCodesAtTheirLimits) {
    auto exit = [](std::int64_t ret) { return ltt_ev_syscall_exit{ret}; };
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(-256), LTT_CODE_SYS_EXIT_SHORT);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(255), LTT_CODE_SYS_EXIT_SHORT);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(-1), LTT_CODE_SYS_EXIT_SHORT);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(0), LTT_CODE_SYS_EXIT_SHORT);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(-257), LTT_CODE_SYS_EXIT_MID);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(256), LTT_CODE_SYS_EXIT_MID);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(INT32_MAX), LTT_CODE_SYS_EXIT_MID);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(INT32_MIN), LTT_CODE_SYS_EXIT_MID);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(std::int64_t{INT32_MAX} + 1), LTT_CODE_SYS_EXIT);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(std::int64_t{INT32_MIN} - 1), LTT_CODE_SYS_EXIT);
    // The short form's delta: 18 bits, else the long form.
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(3), LTT_CODE_SYS_EXIT_SHORT, LTT_SHORT_DELTA_MAX);
    expectRoundTrip(LTT_EV_SYSCALL_EXIT, 0, exit(3), LTT_CODE_SYS_EXIT_MID,
                    LTT_SHORT_DELTA_MAX + 1);
    // Masked details (none recorded): EXT of size 8.
    const Written masked = writeOne(LTT_EV_SYSCALL_EXIT, 0, nullptr, 0);
    EXPECT_EQ(masked.rec.code, LTT_CODE_EXT);
    EXPECT_EQ(masked.rec.header.size, 8u);
    EXPECT_EQ(masked.rec.stored, 8u);
}

TEST(FormatV2, SyscallEntryCodesFollowLastIp) {
    const std::uint64_t ip = 0x7f0000100000ull;
    auto entry = [](std::uint64_t at, std::uint32_t nr) { return ltt_ev_syscall_entry{at, nr, 0}; };
    // No last_ip yet (0 at the block's start): the ip does not fit 32 bits.
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip, 39), LTT_CODE_SYS_ENTRY);
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip, 511), LTT_CODE_SYS_ENTRY_SHORT, 10, ip);
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip, 512), LTT_CODE_SYS_ENTRY_SAME, 10, ip);
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip, 1), LTT_CODE_SYS_ENTRY_SHORT,
                    LTT_SHORT_DELTA_MAX, ip);
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip, 1), LTT_CODE_SYS_ENTRY_SAME,
                    LTT_SHORT_DELTA_MAX + 1, ip);
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip + INT32_MAX, 1), LTT_CODE_SYS_ENTRY_NEAR, 10,
                    ip);
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip - 0x80000000ull, 1), LTT_CODE_SYS_ENTRY_NEAR,
                    10, ip);
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip + INT32_MAX + 1ull, 1), LTT_CODE_SYS_ENTRY,
                    10, ip);
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, entry(ip - 0x80000001ull, 1), LTT_CODE_SYS_ENTRY, 10,
                    ip);
    // A reserved field set: only EXT keeps it.
    expectRoundTrip(LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{ip, 1, 5}, LTT_CODE_EXT, 10, ip);
    // A subtype no code holds.
    EXPECT_EQ(codeOf(LTT_EV_SYSCALL_ENTRY, 1, entry(ip, 1), 10, ip), LTT_CODE_EXT);
}

TEST(FormatV2, LastIpIsKeptThroughEveryForm) {
    // NEAR, SAME and SHORT after one another: each reads the ip the one
    // before left, an EXT entry sets it too.
    BlockBuilder b(LTT_FORMAT_V2);
    b.start(0, 0, 1000, 7);
    const std::uint64_t ips[] = {0x400000, 0x400100,        0x400100,
                                 0x400100, 0x7f00000000ull, 0x7f00000040ull};
    const std::uint32_t nrs[] = {0, 1, 1000, 2, 3, 4};
    for (int i = 0; i < 6; ++i) {
        const ltt_ev_syscall_entry se{ips[i], nrs[i], 0};
        if (i == 4) // as EXT, whatever fits
            b.extRecord(1010 + i, LTT_EV_SYSCALL_ENTRY, 0, &se, sizeof se);
        else
            b.record(1010 + i, LTT_EV_SYSCALL_ENTRY, 0, se);
    }
    const auto block = b.finish(1100);
    std::vector<std::byte> bytes(block.begin(), block.end());
    BlockInfo info;
    ASSERT_EQ(parseFrame(bytes, FrameRules{}, info).kind, FrameFault::None);
    std::vector<std::pair<unsigned, ltt_ev_syscall_entry>> got;
    ASSERT_EQ(walkBlock(bytes, info,
                        [&](const BlockRecord& r) {
                            if (r.header.event != LTT_EV_SYSCALL_ENTRY)
                                return;
                            ltt_ev_syscall_entry se;
                            std::memcpy(&se, r.details().data(), sizeof se);
                            got.emplace_back(r.code, se);
                        })
                  .kind,
              RecordFault::None);
    const unsigned codes[] = {LTT_CODE_SYS_ENTRY_NEAR,
                              LTT_CODE_SYS_ENTRY_NEAR,
                              LTT_CODE_SYS_ENTRY_SAME,
                              LTT_CODE_SYS_ENTRY_SHORT,
                              LTT_CODE_EXT,
                              LTT_CODE_SYS_ENTRY_NEAR};
    ASSERT_EQ(got.size(), 6u);
    for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(got[i].first, codes[i]) << i;
        EXPECT_EQ(got[i].second.ip, ips[i]) << i;
        EXPECT_EQ(got[i].second.nr, nrs[i]) << i;
    }
}

TEST(FormatV2, FixedCodesAtTheirLimits) {
    const std::int32_t pidMax = (1 << LTT_SCHED_PID_BITS) - 1;
    const std::uint32_t stateMax = (1u << LTT_SCHED_STATE_BITS) - 1;
    expectRoundTrip(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{pidMax, pidMax, stateMax, 0},
                    LTT_CODE_SCHED);
    expectRoundTrip(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, 0, 0, 0}, LTT_CODE_SCHED);
    expectRoundTrip(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{pidMax + 1, 1, 0, 0}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{1, pidMax + 1, 0, 0}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{1, 2, stateMax + 1, 0}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{-1, 2, 0, 0}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{1, 2, 0, 1}, LTT_CODE_EXT);

    const std::uint32_t err24 = (1u << LTT_TRAP_ERROR_BITS) - 1;
    expectRoundTrip(LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{0x401000, ~0ull, 255, err24},
                    LTT_CODE_TRAP_ENTRY);
    expectRoundTrip(LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{1, 2, 256, 0}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{1, 2, 14, err24 + 1}, LTT_CODE_EXT);

    const std::uint32_t irq24 = (1u << LTT_IRQ_NUMBER_BITS) - 1;
    expectRoundTrip(LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{irq24, 255}, LTT_CODE_IRQ_ENTRY);
    expectRoundTrip(LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{0, LTT_IRQ_IN_KERNEL | LTT_IRQ_VECTOR},
                    LTT_CODE_IRQ_ENTRY);
    expectRoundTrip(LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{irq24 + 1, 0}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{1, 256}, LTT_CODE_EXT);

    expectRoundTrip(LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_ENTRY, ltt_ev_soft_irq{511},
                    LTT_CODE_SOFTIRQ_ENTRY);
    expectRoundTrip(LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_EXIT, ltt_ev_soft_irq{0}, LTT_CODE_SOFTIRQ_EXIT);
    expectRoundTrip(LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_ENTRY, ltt_ev_soft_irq{512}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_ENTRY, ltt_ev_soft_irq{3}, LTT_CODE_EXT,
                    LTT_SHORT_DELTA_MAX + 1); // no long form
    expectRoundTrip(LTT_EV_SOFT_IRQ, LTT_TASKLET_ENTRY, ltt_ev_soft_irq{3}, LTT_CODE_EXT);

    expectRoundTrip(LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, ltt_ev_process{pidMax, 0, UINT32_MAX},
                    LTT_CODE_WAKEUP);
    expectRoundTrip(LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, ltt_ev_process{5, 0, 1ull << 32},
                    LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, ltt_ev_process{-1, 0, 1}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{5, 0, 1}, LTT_CODE_EXT);

    auto fs = [](std::int32_t fd, std::uint32_t aux, std::int64_t arg) {
        ltt_ev_file_system d{};
        d.fd = fd;
        d.aux = aux;
        d.arg = arg;
        return d;
    };
    for (std::uint8_t sub : {LTT_FS_READ, LTT_FS_WRITE}) {
        const std::uint8_t code = sub == LTT_FS_READ ? LTT_CODE_FS_READ : LTT_CODE_FS_WRITE;
        const Written w = [&] {
            const auto d = fs(-1, 0, INT32_MAX);
            return writeOne(LTT_EV_FILE_SYSTEM, sub, &d, LTT_EV_FS_FIXED);
        }();
        EXPECT_EQ(w.rec.code, code);
        EXPECT_EQ(w.rec.header.size, 8u + LTT_EV_FS_FIXED);
        const auto d = fs(-1, 0, INT32_MAX);
        EXPECT_EQ(std::memcmp(w.rec.details().data(), &d, LTT_EV_FS_FIXED), 0);
        EXPECT_EQ(codeOfBytes(LTT_EV_FILE_SYSTEM, sub, &d, LTT_EV_FS_FIXED), code);
        const auto big = fs(3, 0, std::int64_t{INT32_MAX} + 1);
        EXPECT_EQ(codeOfBytes(LTT_EV_FILE_SYSTEM, sub, &big, LTT_EV_FS_FIXED), LTT_CODE_EXT);
        const auto neg = fs(3, 0, INT32_MIN);
        EXPECT_EQ(codeOfBytes(LTT_EV_FILE_SYSTEM, sub, &neg, LTT_EV_FS_FIXED), code);
        const auto aux = fs(3, 1, 5);
        EXPECT_EQ(codeOfBytes(LTT_EV_FILE_SYSTEM, sub, &aux, LTT_EV_FS_FIXED), LTT_CODE_EXT);
    }
    const auto close0 = fs(7, 0, 0), close1 = fs(7, 0, 1);
    EXPECT_EQ(writeOne(LTT_EV_FILE_SYSTEM, LTT_FS_CLOSE, &close0, LTT_EV_FS_FIXED).rec.code,
              LTT_CODE_FS_CLOSE);
    EXPECT_EQ(codeOfBytes(LTT_EV_FILE_SYSTEM, LTT_FS_CLOSE, &close1, LTT_EV_FS_FIXED),
              LTT_CODE_EXT);
    EXPECT_EQ(codeOfBytes(LTT_EV_FILE_SYSTEM, LTT_FS_OPEN, &close0, LTT_EV_FS_FIXED), LTT_CODE_EXT);

    for (std::uint8_t sub : {LTT_MEM_PAGE_ALLOC, LTT_MEM_PAGE_FREE}) {
        const std::uint8_t code =
            sub == LTT_MEM_PAGE_ALLOC ? LTT_CODE_PAGE_ALLOC : LTT_CODE_PAGE_FREE;
        expectRoundTrip(LTT_EV_MEMORY, sub, ltt_ev_memory{0xffff888000000000ull, 4095}, code);
        EXPECT_EQ(codeOf(LTT_EV_MEMORY, sub, ltt_ev_memory{0x1000, 4096}), LTT_CODE_EXT);
        EXPECT_EQ(codeOf(LTT_EV_MEMORY, sub, ltt_ev_memory{0x1800, 0}), LTT_CODE_EXT);
    }
    EXPECT_EQ(codeOf(LTT_EV_MEMORY, LTT_MEM_SWAP_IN, ltt_ev_memory{0x1000, 0}), LTT_CODE_EXT);

    for (auto [id, code] : {std::pair{LTT_EV_TRAP_EXIT, LTT_CODE_TRAP_EXIT},
                            std::pair{LTT_EV_IRQ_EXIT, LTT_CODE_IRQ_EXIT},
                            std::pair{LTT_EV_KERNEL_TIMER, LTT_CODE_KERNEL_TIMER}}) {
        const Written w = writeOne(static_cast<std::uint8_t>(id), 0, nullptr, 0);
        EXPECT_EQ(w.rec.code, code);
        EXPECT_EQ(w.rec.header.size, 8u);
        EXPECT_EQ(w.rec.stored, 4u);
    }
    // Everything else is EXT, with its version 1 details.
    expectRoundTrip(LTT_EV_LOST, 0, ltt_ev_lost{3, 4}, LTT_CODE_EXT);
    expectRoundTrip(LTT_EV_TIMER, 0, ltt_ev_timer{1, 2, 0}, LTT_CODE_EXT);
}

TEST(FormatV2, HeartbeatCarriesItsTimeAndALongGapGetsOne) {
    BlockBuilder b(LTT_FORMAT_V2);
    b.start(0, 0, 1000, 7);
    b.record(1010, LTT_EV_KERNEL_TIMER, 0, nullptr, 0);
    b.heartbeat(5000);
    // Further than 27 bits from the record before: the builder writes a
    // heartbeat first, as the module must.
    const std::uint64_t far = 5000 + LTT_LONG_DELTA_MAX + 1;
    b.record(far, LTT_EV_KERNEL_TIMER, 0, nullptr, 0);
    b.record(far + LTT_LONG_DELTA_MAX, LTT_EV_KERNEL_TIMER, 0, nullptr, 0);
    const auto block = b.finish(far + LTT_LONG_DELTA_MAX + 1);
    std::vector<std::byte> bytes(block.begin(), block.end());
    BlockInfo info;
    ASSERT_EQ(parseFrame(bytes, FrameRules{}, info).kind, FrameFault::None);
    std::vector<std::pair<std::uint8_t, std::uint64_t>> got;
    ASSERT_EQ(walkBlock(bytes, info,
                        [&](const BlockRecord& r) { got.emplace_back(r.header.event, r.tsc); })
                  .kind,
              RecordFault::None);
    const std::vector<std::pair<std::uint8_t, std::uint64_t>> want = {
        {LTT_EV_BLOCK_START, 1000},
        {LTT_EV_KERNEL_TIMER, 1010},
        {LTT_EV_HEARTBEAT, 5000},
        {LTT_EV_HEARTBEAT, far},
        {LTT_EV_KERNEL_TIMER, far},
        {LTT_EV_KERNEL_TIMER, far + LTT_LONG_DELTA_MAX},
        {LTT_EV_BLOCK_END, far + LTT_LONG_DELTA_MAX + 1}};
    EXPECT_EQ(got, want);
}

// The same events in a version 1 and a version 2 trace read the same,
// event by event, through every walk.
TEST(FormatV2, ReadsAsTheSameVersion1Trace) {
    std::vector<std::vector<std::byte>> files;
    for (unsigned version : {LTT_FORMAT_V1, LTT_FORMAT_V2}) {
        TraceBuilder b(3, 1000000, 1000, version);
        std::minstd_rand rng(5); // 32-bit results
        std::uint64_t t = 1000;
        for (int blk = 0; blk < 30; ++blk) {
            const auto cpu = static_cast<std::uint16_t>(blk % 3);
            b.block(cpu, t, 100 + cpu);
            for (int i = 0; i < 40; ++i) {
                t += rng() % 300;
                const std::uint64_t ip = 0x400000 + (rng() % 4) * 0x1000;
                switch (rng() % 9) {
                case 0:
                    b.ev(t, LTT_EV_SYSCALL_ENTRY, 0,
                         ltt_ev_syscall_entry{ip, static_cast<std::uint32_t>(rng() % 600), 0});
                    break;
                case 1:
                    b.ev(t, LTT_EV_SYSCALL_EXIT, 0,
                         ltt_ev_syscall_exit{static_cast<std::int64_t>(rng() % 1000) - 500});
                    break;
                case 2:
                    b.ev(t, LTT_EV_SCHEDCHANGE, 0,
                         ltt_ev_schedchange{static_cast<std::int32_t>(rng() % 8), 100 + cpu,
                                            LTT_TASK_INTERRUPTIBLE, 0});
                    break;
                case 3:
                    b.ev(t, LTT_EV_IRQ_ENTRY, 0,
                         ltt_ev_irq_entry{static_cast<std::uint32_t>(rng() % 40), 1});
                    break;
                case 4:
                    b.ev(t, LTT_EV_IRQ_EXIT);
                    break;
                case 5:
                    b.ev(t, LTT_EV_SOFT_IRQ, static_cast<std::uint8_t>(rng() % 4),
                         ltt_ev_soft_irq{rng() % 10});
                    break;
                case 6:
                    b.ev(t, LTT_EV_PROCESS, static_cast<std::uint8_t>(rng() % 6),
                         ltt_ev_process{static_cast<std::int32_t>(rng() % 9), 0, rng() % 3});
                    break;
                case 7:
                    b.ev(t, LTT_EV_TRAP_ENTRY, 0,
                         ltt_ev_trap_entry{ip, 0x1000ull * (rng() % 9), 14,
                                           static_cast<std::uint32_t>(rng() % 8)});
                    break;
                default:
                    t += 200000000; // longer than 27 bits of delta
                    b.ev(t, LTT_EV_KERNEL_TIMER);
                }
            }
            if (blk % 7 == 3)
                b.heartbeat(t += 5);
            b.end(t += 3);
        }
        files.push_back(b.bytes());
    }
    EXPECT_LT(files[1].size(), files[0].size());
    struct Seen {
        std::uint64_t tsc;
        std::int32_t pid;
        std::uint16_t cpu, size;
        std::uint8_t id, subtype;
        std::vector<std::byte> details;
        bool operator==(const Seen&) const = default;
    };
    auto seen = [](const Event& e) {
        const auto d = e.details();
        return Seen{e.tsc, e.pid, e.cpu, e.size, e.id, e.subtype, {d.begin(), d.end()}};
    };
    std::vector<Seen> walks[2][3];
    for (int v = 0; v < 2; ++v) {
        TraceError err;
        auto r = TraceReader::openMemory(files[v], "t.trace", &err);
        ASSERT_TRUE(r) << err.str();
        EXPECT_EQ(r->header().version, v == 0 ? LTT_FORMAT_V1 : LTT_FORMAT_V2);
        for (auto c = r->begin(); c.valid(); c.next())
            walks[v][0].push_back(seen(c.event()));
        r->begin().forEach([&](const Event& e) { walks[v][1].push_back(seen(e)); }, 63, [] {});
        // Random access: from a checkpoint in the middle.
        const std::uint64_t mid = r->eventCount() / 2;
        for (auto c = r->atIndex(mid); c.valid(); c.next())
            walks[v][2].push_back(seen(c.event()));
        EXPECT_FALSE(r->buildIndex());
    }
    // Heartbeats the version 2 producer adds for long gaps aside, and the
    // block lengths and record counts, which differ.
    auto noHeartbeats = [](std::vector<Seen> w) {
        std::erase_if(w, [](const Seen& s) { return s.id == LTT_EV_HEARTBEAT; });
        for (Seen& s : w)
            if (s.id == LTT_EV_BLOCK_START || s.id == LTT_EV_BLOCK_END)
                s.details.clear();
        return w;
    };
    ASSERT_GT(walks[0][0].size(), 1000u);
    EXPECT_GT(walks[1][0].size(), walks[0][0].size()); // the added heartbeats
    {
        const auto a = noHeartbeats(walks[0][0]), b = noHeartbeats(walks[1][0]);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            ASSERT_TRUE(a[i] == b[i])
                << "event " << i << ": id " << unsigned{a[i].id} << " " << unsigned{b[i].id}
                << ", tsc " << a[i].tsc << " " << b[i].tsc << ", pid " << a[i].pid << " "
                << b[i].pid << ", size " << a[i].size << " " << b[i].size;
    }
    EXPECT_TRUE(walks[1][1] == walks[1][0]);
    EXPECT_TRUE(walks[0][1] == walks[0][0]);
    EXPECT_EQ(walks[1][2].size(), walks[1][0].size() - walks[1][0].size() / 2);
    EXPECT_TRUE(std::equal(walks[1][2].begin(), walks[1][2].end(),
                           walks[1][0].end() - static_cast<long>(walks[1][2].size())));
}

// ------------------------------------------------------------ corruption

namespace {

// A version 2 trace: block 0 of CPU 0 with records of every size, then
// a whole block of CPU 1, so that damage in block 0 is inside the trace.
TraceBuilder sampleV2() {
    TraceBuilder b(2, 1000000, 1000, LTT_FORMAT_V2);
    b.block(0, 1000, 100)
        .ev(1010, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{-2})               // 4 bytes, at 48
        .ev(1020, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x400000, 1, 0}) // 12, at 52
        .heartbeat(1030)                                                         // 16, at 64
        .ev(1040, LTT_EV_KERNEL_TIMER)                                           // 4, at 80
        .end(1050);
    b.block(1, 1000, 0).ev(1020, LTT_EV_IRQ_EXIT).end(1070);
    return b;
}

std::string walkError(const std::vector<std::byte>& bytes, std::uint64_t* offset = nullptr) {
    TraceError err;
    auto r = TraceReader::openMemory(bytes, "t.trace", &err);
    if (!r)
        return "open: " + err.str();
    auto c = r->begin();
    while (c.next()) {
    }
    if (!c.error())
        return "";
    if (offset)
        *offset = c.error()->offset;
    return c.error()->str();
}

} // namespace

TEST(FormatV2, EachCorruptionIsNamedByFileAndOffset) {
    const TraceBuilder t = sampleV2();
    const auto good = t.bytes();
    const std::size_t b0 = t.blockOffsets[0];
    ASSERT_EQ(walkError(good), "");
    auto hex = [](std::size_t off) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "t.trace: offset %zu (0x%zx): ", off, off);
        return std::string(buf);
    };
    {
        auto b = good;
        poke<std::uint32_t>(b, b0 + 48, 0); // code 0: zeros are no record
        EXPECT_EQ(walkError(b), hex(b0 + 48) + "bad record code 0");
    }
    {
        auto b = good;
        poke<std::uint32_t>(b, b0 + 52, 15 | 7u << 5);
        EXPECT_EQ(walkError(b), hex(b0 + 52) + "bad record code 15");
    }
    {
        auto b = good;
        poke<std::uint32_t>(b, b0 + 80, 31);
        EXPECT_EQ(walkError(b), hex(b0 + 80) + "bad record code 31");
    }
    {
        // An EXT record of size 6, then 4 and 12 (past the end of the block).
        auto b = good;
        poke<std::uint32_t>(b, b0 + 52, LTT_CODE_EXT);
        poke<std::uint16_t>(b, b0 + 52 + 6, 6);
        EXPECT_EQ(walkError(b), hex(b0 + 52 + 6) + "bad record size 6");
        poke<std::uint16_t>(b, b0 + 52 + 6, 4);
        EXPECT_EQ(walkError(b), hex(b0 + 52 + 6) + "bad record size 4");
        poke<std::uint16_t>(b, b0 + 80 + 6, 0);
        poke<std::uint16_t>(b, b0 + 52 + 6, 400);
        EXPECT_EQ(walkError(b),
                  hex(b0 + 52 + 6) + "record of 400 bytes runs past its block's BLOCK_END");
    }
    {
        // The heartbeat at 64 goes back before the record at 52 (time 1020).
        auto b = good;
        poke<std::uint64_t>(b, b0 + 64 + 8, 1019);
        EXPECT_EQ(walkError(b),
                  hex(b0 + 64 + 8) + "heartbeat time 1019 is before the previous record's 1020");
        poke<std::uint64_t>(b, b0 + 64 + 8, 1020); // the same time is fine
        EXPECT_EQ(walkError(b), "");
    }
    {
        // The BLOCK_START's first word is not exactly EXT (a delta set, or
        // version 1's 0): a frame fault, with a whole block after it.
        for (std::uint32_t word : {0u, LTT_CODE_EXT | 1u << 5, 2u}) {
            auto b = good;
            poke<std::uint32_t>(b, b0, word);
            EXPECT_EQ(walkError(b), "open: " + hex(b0) + "malformed BLOCK_START record header");
        }
    }
    {
        // BLOCK_END written as another code.
        auto b = good;
        const std::size_t end = t.blockOffsets[1] - 24;
        poke<std::uint32_t>(b, end, LTT_CODE_HEARTBEAT);
        EXPECT_EQ(walkError(b),
                  "open: " + hex(end + 4) + "block does not end with a BLOCK_END record");
    }
    {
        // A block length that is a multiple of 4 but not of 8 is fine; one
        // that is not a multiple of 4 is not.
        auto b = good;
        poke<std::uint32_t>(b, b0 + kBlockLengthAt, 90);
        EXPECT_EQ(walkError(b), "open: " + hex(b0 + kBlockLengthAt) + "bad block length 90");
    }
}

TEST(FormatV2, TheWalkBlockCodecFindsWhatTheReaderFinds) {
    const TraceBuilder t = sampleV2();
    auto b = t.bytes();
    const std::size_t b0 = t.blockOffsets[0];
    poke<std::uint32_t>(b, b0 + 52, 0);
    std::uint64_t readerAt = 0;
    const std::string readerError = walkError(b, &readerAt);
    BlockInfo info;
    const auto block = std::span<const std::byte>(b).subspan(b0);
    ASSERT_EQ(parseFrame(block, FrameRules{}, info).kind, FrameFault::None);
    const RecordFault f = walkBlock(block, info, [](const BlockRecord&) {});
    EXPECT_EQ(f.kind, RecordFault::BadCode);
    EXPECT_EQ(b0 + f.at, readerAt);
    EXPECT_NE(readerError.find(f.message()), std::string::npos) << readerError;
}

// A version 2 file's blocks need not be 8-byte aligned: the tail search
// steps 4 bytes, so a whole block at an offset of 4 mod 8 after damage is
// found, and zeros after the last block are a tail.
TEST(FormatV2, TailDamageIsFoundAtFourByteSteps) {
    TraceBuilder t(2, 1000000, 1000, LTT_FORMAT_V2);
    t.block(0, 1000, 100).ev(1010, LTT_EV_KERNEL_TIMER).end(1020); // 76 bytes
    t.block(1, 1000, 100).ev(1010, LTT_EV_KERNEL_TIMER).end(1020);
    t.block(0, 1030, 100).ev(1040, LTT_EV_KERNEL_TIMER).end(1050);
    const auto good = t.bytes();
    ASSERT_EQ(t.blockOffsets[1] % 8, 4u);
    {
        // Damage in block 1, block 2 whole after it (at 4 mod 8): corruption.
        auto b = good;
        poke<std::uint32_t>(b, t.blockOffsets[1] + 8, 0x12345678);
        ASSERT_EQ(t.blockOffsets[2] % 8, 0u);
        TraceError err;
        EXPECT_FALSE(TraceReader::openMemory(b, "t.trace", &err));
        EXPECT_EQ(err.offset, t.blockOffsets[1] + 8);
        EXPECT_EQ(err.message, "bad block magic");
        // Damage in block 0: block 1 (at 4 mod 8) is found after it.
        auto c = good;
        poke<std::uint32_t>(c, t.blockOffsets[0] + 8, 0x12345678);
        EXPECT_FALSE(TraceReader::openMemory(c, "t.trace", &err));
        EXPECT_EQ(err.offset, t.blockOffsets[0] + 8);
    }
    {
        // Zeros after the last whole block (ending at 4 mod 8).
        TraceBuilder u(1, 1000000, 1000, LTT_FORMAT_V2);
        u.block(0, 1000, 100).ev(1010, LTT_EV_KERNEL_TIMER).end(1020);
        auto b = u.bytes();
        const std::size_t end = b.size();
        ASSERT_EQ(end % 8, 4u);
        b.resize(end + 100);
        TraceError err;
        auto r = TraceReader::openMemory(b, "t.trace", &err);
        ASSERT_TRUE(r) << err.str();
        ASSERT_TRUE(r->truncation());
        EXPECT_TRUE(r->tailWithoutBlock());
        EXPECT_EQ(r->truncation()->offset, end);
        EXPECT_EQ(r->truncation()->message,
                  "trace ends in 100 zero bytes after the last whole block; analyzed up to here");
        EXPECT_EQ(r->eventCount(), 3u);
    }
    {
        // A block cut short.
        auto b = good;
        b.resize(t.blockOffsets[2] + 50);
        TraceError err;
        auto r = TraceReader::openMemory(b, "t.trace", &err);
        ASSERT_TRUE(r) << err.str();
        ASSERT_TRUE(r->truncation());
        EXPECT_FALSE(r->tailWithoutBlock());
        EXPECT_EQ(r->truncation()->offset, t.blockOffsets[2]);
        EXPECT_EQ(r->truncation()->message,
                  "last block is cut short (50 of 76 bytes); analyzed up to here");
        EXPECT_EQ(r->eventCount(), 6u);
    }
}

// ------------------------------------------------------------ the C API

namespace {

int checkV2(const std::vector<std::byte>& bytes, ltt_blocks_result& res) {
    return ltt_blocks_check(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(),
                            LTT_FORMAT_V2, 2, 500, 0, nullptr, nullptr, &res);
}

std::vector<std::byte> blockOf(BlockBuilder& b, std::uint64_t end) {
    const auto s = b.finish(end, LTT_BLOCK_F_FINAL);
    return {s.begin(), s.end()};
}

} // namespace

TEST(FormatV2C, HandsOutDecodedRecordsAndCountsBytesByCode) {
    BlockBuilder b(LTT_FORMAT_V2);
    b.start(0, 0, 1000, 7);
    b.record(1000, LTT_EV_TRACE_START, 0, ltt_ev_trace_start{});
    b.record(1010, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x400000, 39, 0});
    b.record(1020, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{-11});
    b.record(1030, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{42, 7, 1, 0});
    const auto bytes = blockOf(b, 1040);
    struct Got {
        std::vector<ltt_checked_record> recs;
        std::vector<std::vector<std::byte>> details;
    } got;
    ltt_blocks_result res;
    ASSERT_EQ(ltt_blocks_check(
                  reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), LTT_FORMAT_V2,
                  1, 500, 0,
                  [](const ltt_checked_record* r, void* arg) {
                      auto* g = static_cast<Got*>(arg);
                      g->recs.push_back(*r);
                      const auto* d = static_cast<const std::byte*>(r->details);
                      g->details.emplace_back(d, d + r->size - 8);
                  },
                  &got, &res),
              0)
        << res.error;
    ASSERT_EQ(got.recs.size(), 4u);
    EXPECT_EQ(got.recs[1].event, LTT_EV_SYSCALL_ENTRY);
    EXPECT_EQ(got.recs[1].code, LTT_CODE_SYS_ENTRY_NEAR);
    EXPECT_EQ(got.recs[1].size, 24u);
    EXPECT_EQ(got.recs[1].stored, 12u);
    const ltt_ev_syscall_entry se{0x400000, 39, 0};
    EXPECT_EQ(std::memcmp(got.details[1].data(), &se, sizeof se), 0);
    EXPECT_EQ(got.recs[2].code, LTT_CODE_SYS_EXIT_SHORT);
    EXPECT_EQ(got.recs[2].stored, 4u);
    const ltt_ev_syscall_exit sx{-11};
    EXPECT_EQ(std::memcmp(got.details[2].data(), &sx, sizeof sx), 0);
    EXPECT_EQ(got.recs[3].code, LTT_CODE_SCHED);
    EXPECT_EQ(got.recs[3].pid, 7); // written while `out` ran
    EXPECT_EQ(got.recs[0].code, LTT_CODE_EXT);
    EXPECT_EQ(got.recs[0].stored, 48u);
    EXPECT_EQ(res.bytes_by_code[LTT_CODE_EXT], 48u + 48 + 24); // TRACE_START, BLOCK_START/END
    EXPECT_EQ(res.bytes_by_code[LTT_CODE_SYS_ENTRY_NEAR], 12u);
    EXPECT_EQ(res.bytes_by_code[LTT_CODE_SYS_EXIT_SHORT], 4u);
    EXPECT_EQ(res.bytes_by_code[LTT_CODE_SCHED], 12u);
    std::uint64_t total = 0;
    for (std::uint64_t n : res.bytes_by_code)
        total += n;
    EXPECT_EQ(total, bytes.size());
    // A version other than 1 and 2.
    EXPECT_EQ(ltt_blocks_check(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), 3,
                               1, 500, 0, nullptr, nullptr, &res),
              -1);
    EXPECT_STREQ(res.error, "offset 0: unsupported format version 3");
    EXPECT_EQ(ltt_blocks_whole(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(),
                               LTT_FORMAT_V2),
              bytes.size());
    EXPECT_EQ(
        ltt_blocks_whole(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), 0), 0u);
}

TEST(FormatV2C, RefusesACodeOtherThanTheProducersChoice) {
    ltt_blocks_result res;
    {
        // EXT where SYS_EXIT_SHORT fits.
        BlockBuilder b(LTT_FORMAT_V2);
        b.start(0, 0, 1000, 7);
        const ltt_ev_syscall_exit sx{-2};
        b.extRecord(1010, LTT_EV_SYSCALL_EXIT, 0, &sx, sizeof sx);
        EXPECT_EQ(checkV2(blockOf(b, 1020), res), -1);
        EXPECT_STREQ(res.error, "offset 48: EXT used where code 20 fits");
    }
    {
        // The long form where the short one fits: code 6 for a return of 5.
        BlockBuilder b(LTT_FORMAT_V2);
        b.start(0, 0, 1000, 7);
        auto bytes = blockOf(b, 1020);
        std::vector<std::byte> rec(12);
        poke<std::uint32_t>(rec, 0, LTT_LONG_WORD(LTT_CODE_SYS_EXIT, 10));
        poke<std::int64_t>(rec, 4, 5);
        bytes.insert(bytes.begin() + 48, rec.begin(), rec.end());
        poke<std::uint32_t>(bytes, kBlockLengthAt, static_cast<std::uint32_t>(bytes.size()));
        poke<std::uint32_t>(bytes, bytes.size() - 8, 3); // BLOCK_END.events
        EXPECT_EQ(checkV2(bytes, res), -1);
        EXPECT_STREQ(res.error, "offset 48: code 6 used where the producer's choice is code 20");
    }
    {
        // A heartbeat with a delta.
        BlockBuilder b(LTT_FORMAT_V2);
        b.start(0, 0, 1000, 7);
        b.heartbeat(1010);
        auto bytes = blockOf(b, 1020);
        poke<std::uint32_t>(bytes, 48, LTT_LONG_WORD(LTT_CODE_HEARTBEAT, 10));
        EXPECT_EQ(checkV2(bytes, res), -1);
        EXPECT_STREQ(res.error, "offset 48: bad heartbeat");
        // Or with its second word, which is zero, set.
        poke<std::uint32_t>(bytes, 48, LTT_LONG_WORD(LTT_CODE_HEARTBEAT, 0));
        EXPECT_EQ(checkV2(bytes, res), 0) << res.error;
        poke<std::uint32_t>(bytes, 52, 1);
        EXPECT_EQ(checkV2(bytes, res), -1);
        EXPECT_STREQ(res.error, "offset 48: bad heartbeat");
    }
    {
        // What the builder writes passes, lost events and all.
        BlockBuilder b(LTT_FORMAT_V2);
        b.start(0, 0, 1000, 7, 4, 900);
        b.record(1010, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{3, 1});
        b.record(1020, LTT_EV_IRQ_EXIT, 0, nullptr, 0);
        EXPECT_EQ(checkV2(blockOf(b, 1030), res), 0) << res.error;
        EXPECT_EQ(res.lost_records, 1u);
        EXPECT_EQ(res.bytes_by_code[LTT_CODE_IRQ_ENTRY], 8u);
        EXPECT_EQ(res.bytes_by_code[LTT_CODE_IRQ_EXIT], 4u);
    }
}
