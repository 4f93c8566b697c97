// The one definition of a valid block (docs/trace-format.md §2.3): how a
// block's frame (its BLOCK_START and BLOCK_END records) is checked, how the
// records inside it are checked and walked, and how blocks are built.
//
// Every reader of blocks goes through here: TraceReader (frames when a trace
// is opened, records as a cursor walks them, with the same rules inlined in
// its merge), TraceWriter's cut-back after a failed append, tracedaemon's
// block statistics and the module's in-guest test program (through the C
// API in block_codec.h). Every producer of test and synthetic blocks
// (ltt-synth, the unit tests' trace builder, the daemon's fake device)
// builds them with BlockBuilder.
//
// Checks return a fault (what failed, where, the values that say why)
// rather than a message, so that a search over many candidate offsets pays
// for no text; message() words it the way the reader reports it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ltt/abi.h>
#include <ltt/format.h>
#include <ltt/module_events.h>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ltt {

inline constexpr std::uint32_t kBlockStartRecord =
    sizeof(ltt_record_header) + sizeof(ltt_block_start); // 48
inline constexpr std::uint32_t kBlockEndRecord =
    sizeof(ltt_record_header) + sizeof(ltt_block_end); // 24
inline constexpr std::uint32_t kMinBlock = kBlockStartRecord + kBlockEndRecord;
// Offset of ltt_block_start.length from the start of a block.
inline constexpr std::size_t kBlockLengthAt =
    sizeof(ltt_record_header) + offsetof(ltt_block_start, length);

// One block's frame, from its BLOCK_START and BLOCK_END records.
struct BlockInfo {
    std::uint64_t offset = 0; // of the BLOCK_START record in the file
    std::uint32_t length = 0;
    std::uint32_t sequence = 0;
    std::uint16_t cpu = 0;
    std::uint16_t flags = 0;
    std::int32_t pid = 0;
    std::uint64_t startTsc = 0;
    std::uint64_t endTsc = 0;
    std::uint64_t lost = 0;
    std::uint32_t records = 0;               // BLOCK_END.events as written by the producer
    std::uint8_t version = LTT_FILE_VERSION; // the trace's format: how its records read
};

// Why a frame is not a whole block, and where: `at` is the offset of the
// offending field from the start of the block.
struct FrameFault {
    enum Kind : std::uint8_t {
        None,
        NotBlockStart,  // value: the first record's event id
        BadStartHeader, // BLOCK_START's delta or size (version 2: first word not exactly EXT)
        BadMagic,
        BadLength,       // value: the length
        PastEnd,         // value: the length; limit: bytes left
        BadCpu,          // value: the CPU; limit: the CPU count
        BadSequence,     // value: the sequence; limit: the CPU; last: the previous
        BadUserSequence, // a user stream's: value: the sequence; limit: the stream; last
        UserInV1,        // a user block (LTT_BLOCK_F_USER) in a version 1 trace
        NoBlockEnd,      // the record at length - 24 is not a BLOCK_END
        BadEventCount,   // value: BLOCK_END.events
        Short,           // value: bytes left, fewer than the smallest block
    };
    Kind kind = None;
    std::uint32_t at = 0;
    std::uint64_t value = 0, limit = 0;
    std::int64_t last = 0;
    // The reader's wording: "bad block magic", "block length N runs past
    // the end of the file (N bytes left)", ...
    std::string message() const;
};

// What a frame is checked against besides the format itself.
struct FrameRules {
    unsigned version = LTT_FILE_VERSION; // LTT_FORMAT_V1 or LTT_FORMAT_V2
    std::uint32_t ncpus = LTT_MAX_CPUS;  // every block's cpu is below it
    std::uint64_t maxLength = LTT_BUFFER_MAX;
    // Per CPU, the last sequence read (-1: none): a block's sequence must
    // follow it. Empty: sequences are not checked.
    std::span<const std::int64_t> lastSequence;
    // Whether user blocks (LTT_BLOCK_F_USER, version 2) are accepted as
    // such: they number their streams apart from the CPUs, so their `cpu`
    // is not checked against `ncpus`, and their sequences are checked
    // against lastUserSequence (indexed by stream number; a number at or
    // past its end: none read yet). Off, a user block is checked as a CPU
    // block (readers that know only CPUs, such as the daemon's statistics
    // of what the module wrote).
    bool userStreams = false;
    std::span<const std::int64_t> lastUserSequence;
};

// The largest block a trace may hold: the header's max_block when set, and
// never more than the module's largest buffer.
inline std::uint64_t maxBlockLength(const ltt_file_header& h) {
    return h.max_block != 0 && h.max_block < LTT_BUFFER_MAX ? h.max_block : LTT_BUFFER_MAX;
}

// Checks a block's first record (`left` bytes from its start to the end of
// the data; `rh` its first 8 bytes as they are, in either version). On success returns None and the
// block's length is bs.length.
FrameFault checkBlockStart(const ltt_record_header& rh, const ltt_block_start& bs,
                           std::uint64_t left, const FrameRules& rules);
// Checks the record at bs.length - kBlockEndRecord, and fills `out` (but
// its offset) from both ends.
FrameFault checkBlockEnd(const ltt_block_start& bs, const ltt_record_header& eh,
                         const ltt_block_end& be, unsigned version, BlockInfo& out);
// Both, on a block in memory (`bytes` from the block's start to the end of
// the data).
FrameFault parseFrame(std::span<const std::byte> bytes, const FrameRules& rules, BlockInfo& out);

// The bytes of the leading whole blocks of `bytes`: blocks follow each
// other by their declared length, as long as it is at least a BLOCK_START
// record and stays inside `bytes`.
std::size_t wholeBlockBytes(std::span<const std::byte> bytes);

// ---------------------------------------------------------------- records
//
// Records are read through a "head" in the shape of a version 1 record
// header: delta, event, subtype, and size = the bytes the record takes in
// the block. For version 1 that is the header itself; for version 2
// recordHead() decodes the header word (and an EXT record's second word).
// The merge steps, times and checks records by their heads, and expands a
// record's details (decodeRecord()) only when it hands the record out.

// What a version 2 code stands for (include/ltt/format.h; EXT's event,
// subtype and size come from its second word). A number that is no code
// stands for a BLOCK_END, which no inner record may be: ordinaryRecord()
// turns it away and checkRecord() names the code. The stored size is not
// here: it follows from the code's number (storedSize()), so that finding
// the next record waits on no table load.
struct CodeInfo {
    std::uint8_t event = LTT_EV_BLOCK_END;
    std::uint8_t subtype = 0;
    std::uint8_t size = 0;  // of the v1 record of the same event: 8 + the expanded details
    std::uint8_t shift = 5; // of the delta in the header word: deltaShift()
};
inline constexpr CodeInfo kCodes[32] = {
    {},                                           // 0: never a record
    {0, 0, 8},                                    // 1 EXT
    {LTT_EV_SYSCALL_ENTRY, 0, 24},                // 2 SYS_ENTRY_NEAR
    {LTT_EV_TRAP_ENTRY, 0, 32},                   // 3 TRAP_ENTRY
    {LTT_EV_TRAP_EXIT, 0, 8},                     // 4 TRAP_EXIT
    {LTT_EV_SYSCALL_ENTRY, 0, 24},                // 5 SYS_ENTRY_SAME
    {LTT_EV_SYSCALL_EXIT, 0, 16},                 // 6 SYS_EXIT
    {LTT_EV_SYSCALL_ENTRY, 0, 24},                // 7 SYS_ENTRY
    {LTT_EV_IRQ_EXIT, 0, 8},                      // 8 IRQ_EXIT
    {LTT_EV_SYSCALL_EXIT, 0, 16},                 // 9 SYS_EXIT_MID
    {LTT_EV_SCHEDCHANGE, 0, 24},                  // 10 SCHED
    {LTT_EV_HEARTBEAT, 0, 16},                    // 11 HEARTBEAT
    {LTT_EV_KERNEL_TIMER, 0, 8},                  // 12 KERNEL_TIMER
    {LTT_EV_IRQ_ENTRY, 0, 16},                    // 13 IRQ_ENTRY
    {LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, 24},     // 14 WAKEUP
    {},                                           // 15: no code
    {LTT_EV_SYSCALL_ENTRY, 0, 24, 14},            // 16 SYS_ENTRY_SHORT
    {LTT_EV_FILE_SYSTEM, LTT_FS_CLOSE, 24},       // 17 FS_CLOSE
    {LTT_EV_FILE_SYSTEM, LTT_FS_READ, 24},        // 18 FS_READ
    {},                                           // 19: no code
    {LTT_EV_SYSCALL_EXIT, 0, 16, 14},             // 20 SYS_EXIT_SHORT
    {},                                           // 21: no code
    {LTT_EV_FILE_SYSTEM, LTT_FS_WRITE, 24},       // 22 FS_WRITE
    {},                                           // 23: no code
    {LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_ENTRY, 16, 14}, // 24 SOFTIRQ_ENTRY
    {},                                           // 25: no code
    {LTT_EV_MEMORY, LTT_MEM_PAGE_ALLOC, 24},      // 26 PAGE_ALLOC
    {},                                           // 27: no code
    {LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_EXIT, 16, 14},  // 28 SOFTIRQ_EXIT
    {},                                           // 29: no code
    {LTT_EV_MEMORY, LTT_MEM_PAGE_FREE, 24},       // 30 PAGE_FREE
    {},                                           // 31: no code
};
// Bytes of a record of a valid code other than EXT (EXT: its two words).
inline constexpr std::uint32_t storedSize(unsigned code) {
    return LTT_CODE_SIZE(code);
}
// The delta's position in a header word of `code`: 14 short, 5 long.
inline constexpr unsigned deltaShift(unsigned code) {
    return LTT_CODE_SHORT(code) ? LTT_CODE_BITS + LTT_SHORT_ARG_BITS : LTT_CODE_BITS;
}
inline constexpr bool validCode(unsigned code) {
    return code < 32 && LTT_CODE_VALID(code);
}
static_assert([] {
    for (unsigned code = 0; code < 32; ++code)
        if (validCode(code) != (kCodes[code].event != LTT_EV_BLOCK_END) ||
            (code != LTT_CODE_TRAP_ENTRY && code != LTT_CODE_EXT) == LTT_CODE_SIZE_APART(code) ||
            (validCode(code) && kCodes[code].shift != deltaShift(code)))
            return false;
    return true;
}());
// The largest expanded compact structure (ltt_ev_trap_entry).
inline constexpr std::size_t kMaxExpanded = 24;

inline constexpr std::uint32_t recordAlign(unsigned version) {
    return version == LTT_FORMAT_V1 ? LTT_RECORD_ALIGN : LTT_V2_RECORD_ALIGN;
}

// The head of the record at `p` (at least 8 bytes readable: every record
// but BLOCK_END is followed by BLOCK_END). Version 2: a number that is no
// code gets a BLOCK_END's head and an EXT record smaller than its two
// words size 0, which no check accepts. The size comes from the header
// word by arithmetic, but for EXT and TRAP_ENTRY (a branch the CPU
// predicts: they are few): the walks' next load waits on it.
template <unsigned V> inline ltt_record_header recordHead(const std::byte* p) {
    ltt_record_header h;
    if constexpr (V == LTT_FORMAT_V1) {
        std::memcpy(&h, p, sizeof h);
    } else {
        std::uint64_t v;
        std::memcpy(&v, p, sizeof v);
        const auto w = static_cast<std::uint32_t>(v);
        const unsigned code = w & LTT_CODE_MASK;
        const CodeInfo& c = kCodes[code];
        h.delta = w >> c.shift;
        if (LTT_CODE_SIZE_APART(w)) [[unlikely]] {
            if (code == LTT_CODE_EXT) {
                h.event = static_cast<std::uint8_t>(v >> 32);
                h.subtype = static_cast<std::uint8_t>(v >> 40);
                const auto size = static_cast<std::uint16_t>(v >> 48);
                h.size = size >= sizeof(ltt_record_header) ? size : 0;
                return h;
            }
            h.size = LTT_CODE_SIZE(LTT_CODE_TRAP_ENTRY);
        } else {
            h.size = static_cast<std::uint16_t>(4 * ((w & 3) + 1)); // storedSize(code)
        }
        h.event = c.event;
        h.subtype = c.subtype;
    }
    return h;
}

// Whether the record at in-block offset `offset`, whose head is `h`, is an
// ordinary record: a well-formed size that ends by the BLOCK_END record at
// `endRecord`, and not a record that moves the time base or frames a block.
// The merge's hot paths take such a record without further ado; any other
// goes through checkRecord().
template <unsigned V>
inline bool ordinaryRecord(const ltt_record_header& h, std::uint64_t offset,
                           std::uint32_t endRecord) {
    // Each field read once: GCC's code for the merge's loops comes out
    // shorter than with h.size and h.event repeated.
    constexpr std::uint32_t align = recordAlign(V);
    const std::uint16_t size = h.size;
    const std::uint8_t ev = h.event;
    return size >= align && (size & (align - 1)) == 0 && offset + size <= endRecord &&
           ev != LTT_EV_HEARTBEAT && ev != LTT_EV_BLOCK_START && ev != LTT_EV_BLOCK_END;
}

// Why a record inside a whole block is damaged; `at` is the offending
// field's offset from the record.
struct RecordFault {
    enum Kind : std::uint8_t {
        None,
        BadSize,       // value: the size
        PastEnd,       // value: the size
        Structure,     // BLOCK_START or BLOCK_END before the block's end
        CountMismatch, // value: records counted; limit: BLOCK_END.events
        BadCode,       // version 2: value: a number that is no code (0, 15, 19, ...)
        TimeBack,      // version 2: value: a heartbeat's time; limit: the previous record's
    };
    Kind kind = None;
    std::uint32_t at = 0;
    std::uint64_t value = 0, limit = 0;
    std::string message() const;
};

// Checks an inner record (neither the block's first nor its last) at
// in-block offset `offset`, `p` in memory, whose head is `h`.
template <unsigned V>
inline RecordFault checkRecord(const std::byte* p, const ltt_record_header& h, std::uint64_t offset,
                               std::uint32_t endRecord) {
    constexpr std::uint32_t align = recordAlign(V);
    if constexpr (V != LTT_FORMAT_V1) {
        std::uint32_t w;
        std::memcpy(&w, p, sizeof w);
        const unsigned code = w & LTT_CODE_MASK;
        if (!validCode(code)) [[unlikely]]
            return {RecordFault::BadCode, 0, code, 0};
        if (code != LTT_CODE_EXT) {
            if (offset + h.size > endRecord) [[unlikely]]
                return {RecordFault::PastEnd, 0, h.size, 0};
            return {};
        }
        std::uint16_t size;
        std::memcpy(&size, p + 6, sizeof size);
        if (size < sizeof h || (size & (align - 1)) != 0) [[unlikely]]
            return {RecordFault::BadSize, 6, size, 0};
    }
    if (h.size < sizeof h || (h.size & (align - 1)) != 0) [[unlikely]]
        return {RecordFault::BadSize, 6, h.size, 0};
    if (offset + h.size > endRecord) [[unlikely]]
        return {RecordFault::PastEnd, 6, h.size, 0};
    if (h.event == LTT_EV_BLOCK_START || h.event == LTT_EV_BLOCK_END) [[unlikely]]
        return {RecordFault::Structure, 4, h.event, 0};
    return {};
}

// The time of the record at `p`, whose head is `h`: a heartbeat carries its
// time whole; any other record adds its delta to `base` (version 1: the
// block's start or the last heartbeat; version 2: the previous record's
// time). In version 2 a heartbeat before `base` is damage: `fault` says so.
template <unsigned V>
inline std::uint64_t recordTsc(const ltt_record_header& h, const std::byte* p, std::uint64_t base,
                               RecordFault* fault = nullptr) {
    if (h.event == LTT_EV_HEARTBEAT) [[unlikely]] {
        // The time follows the first 8 bytes: version 1's header, version
        // 2's EXT header, or the HEARTBEAT code's word and its zero word.
        constexpr std::size_t at = sizeof(ltt_record_header);
        if (h.size >= at + sizeof(ltt_ev_heartbeat)) {
            ltt_ev_heartbeat hb;
            std::memcpy(&hb, p + at, sizeof hb);
            if (V != LTT_FORMAT_V1 && hb.tsc < base && fault)
                *fault = {RecordFault::TimeBack, static_cast<std::uint32_t>(at), hb.tsc, base};
            return hb.tsc;
        }
    }
    return base + h.delta;
}

// A record as the version 1 record of the same event shows it: what every
// consumer of records (the reader's Event, walkBlock(), the C API) sees.
struct DecodedRecord {
    std::uint8_t code = 0; // version 2: the record's code; version 1: 0
    std::uint8_t event = 0;
    std::uint8_t subtype = 0;
    std::uint16_t size = 0;   // 8 + the details' bytes
    std::uint16_t stored = 0; // bytes the record takes in the block
};

// Whether a record of `code` holds its details in the block (version 1,
// EXT) rather than in an expansion.
inline constexpr bool detailsInBlock(std::uint8_t code) {
    return code <= LTT_CODE_EXT;
}

namespace detail {
template <class T> inline void expandAs(std::byte* out, const T& v) {
    std::memcpy(out, &v, sizeof v);
}
// Writes a 16-byte detail structure whose two little-endian 64-bit halves
// are `lo` and `hi` with one 16-byte store. Consumers copy such a structure
// whole, with one 16-byte load: the CPU forwards that load from a store of
// the same place and size, but not from two or three smaller stores (the
// load then waits until they reach the cache, on the path from a system
// call's number to its accounting).
template <class T> inline void expand16(std::byte* out, std::uint64_t lo, std::uint64_t hi) {
    static_assert(sizeof(T) == 16);
    if constexpr (std::endian::native == std::endian::little) {
        using Pair = std::uint64_t __attribute__((vector_size(16)));
        const Pair v = {lo, hi};
        std::memcpy(out, &v, sizeof v);
    } else {
        std::memcpy(out, &lo, sizeof lo); // (not reached: the reader reads little-endian hosts)
        std::memcpy(out + 8, &hi, sizeof hi);
    }
}
template <class T> inline T loadAt(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
} // namespace detail

// The task a record makes current: the incoming one of a SCHEDCHANGE
// (`details` its decoded details), the one a CONTEXT record names, else
// `pid`.
inline std::int32_t pidAfter(std::int32_t pid, std::uint8_t event, std::uint16_t size,
                             const std::byte* details) {
    if (event == LTT_EV_SCHEDCHANGE &&
        size >= sizeof(ltt_record_header) + sizeof(ltt_ev_schedchange))
        std::memcpy(&pid, details + offsetof(ltt_ev_schedchange, in), sizeof pid);
    else if (event == LTT_EV_CONTEXT && size >= sizeof(ltt_record_header) + sizeof(ltt_ev_context))
        [[unlikely]]
        std::memcpy(&pid, details + offsetof(ltt_ev_context, pid), sizeof pid);
    return pid;
}

// Decodes a version 2 record of a compact code (neither EXT nor an invalid
// number) whose header word `w` has been read, as decodeRecord() does; its
// head's event and subtype are the code's (kCodes), its bytes in the block
// `stored`. Walks that know a record's word call it directly: the code and
// the event come from the word once.
[[gnu::always_inline]] inline DecodedRecord decodeCompact(const std::byte* p, std::uint32_t w,
                                                          std::uint16_t stored,
                                                          std::uint64_t& lastIp, std::int32_t& pid,
                                                          std::byte* expanded) {
    using detail::expand16;
    using detail::expandAs;
    using detail::loadAt;
    const auto code = static_cast<std::uint8_t>(w & LTT_CODE_MASK);
    const CodeInfo& c = kCodes[code];
    const std::uint32_t arg = LTT_WORD_SHORT_ARG(w);
    // The system call codes, most of any trace, first and by compares:
    // the CPU predicts a few conditional branches better than the
    // switch's one indirect jump among twenty targets.
    if (code == LTT_CODE_SYS_ENTRY_SHORT) {
        expand16<ltt_ev_syscall_entry>(expanded, lastIp, arg);
    } else if (code == LTT_CODE_SYS_EXIT_SHORT) {
        // Sign-extended from 9 bits.
        expandAs(expanded, ltt_ev_syscall_exit{static_cast<std::int64_t>(arg ^ 0x100u) - 0x100});
    } else if (code == LTT_CODE_SYS_ENTRY_NEAR) {
        lastIp +=
            static_cast<std::uint64_t>(static_cast<std::int64_t>(loadAt<std::int32_t>(p + 8)));
        expand16<ltt_ev_syscall_entry>(expanded, lastIp, loadAt<std::uint32_t>(p + 4));
    } else if (code == LTT_CODE_SYS_EXIT_MID) {
        expandAs(expanded, ltt_ev_syscall_exit{loadAt<std::int32_t>(p + 4)});
    } else {
        switch (code) {
        case LTT_CODE_HEARTBEAT:
            expandAs(expanded, ltt_ev_heartbeat{loadAt<std::uint64_t>(p + 8)});
            break;
        case LTT_CODE_SYS_ENTRY:
            lastIp = loadAt<std::uint64_t>(p + 8);
            expand16<ltt_ev_syscall_entry>(expanded, lastIp, loadAt<std::uint32_t>(p + 4));
            break;
        case LTT_CODE_SYS_ENTRY_SAME:
            expand16<ltt_ev_syscall_entry>(expanded, lastIp, loadAt<std::uint32_t>(p + 4));
            break;
        case LTT_CODE_SYS_EXIT:
            expandAs(expanded, ltt_ev_syscall_exit{loadAt<std::int64_t>(p + 4)});
            break;
        case LTT_CODE_TRAP_ENTRY: {
            const std::uint32_t t = loadAt<std::uint32_t>(p + 4);
            expandAs(expanded, ltt_ev_trap_entry{loadAt<std::uint64_t>(p + 8),
                                                 loadAt<std::uint64_t>(p + 16), t & 0xff, t >> 8});
            break;
        }
        case LTT_CODE_IRQ_ENTRY: {
            const std::uint32_t i = loadAt<std::uint32_t>(p + 4);
            expandAs(expanded, ltt_ev_irq_entry{i & 0xffffff, i >> 24});
            break;
        }
        case LTT_CODE_SCHED: {
            const std::uint64_t v = loadAt<std::uint64_t>(p + 4);
            constexpr std::uint64_t pidMask = (1u << LTT_SCHED_PID_BITS) - 1;
            pid = static_cast<std::int32_t>(v & pidMask);
            // in | out << 32, out_state
            expand16<ltt_ev_schedchange>(expanded, (v & pidMask) | ((v >> 22) & pidMask) << 32,
                                         v >> 44);
            break;
        }
        case LTT_CODE_SOFTIRQ_ENTRY:
        case LTT_CODE_SOFTIRQ_EXIT:
            expandAs(expanded, ltt_ev_soft_irq{arg});
            break;
        case LTT_CODE_WAKEUP:
            expand16<ltt_ev_process>(expanded, loadAt<std::uint32_t>(p + 4),
                                     loadAt<std::uint32_t>(p + 8));
            break;
        case LTT_CODE_FS_READ:
        case LTT_CODE_FS_WRITE:
            // The fixed part of ltt_ev_file_system: fd, aux 0, arg.
            expand16<ltt_ev_memory>(
                expanded, loadAt<std::uint32_t>(p + 4),
                static_cast<std::uint64_t>(std::int64_t{loadAt<std::int32_t>(p + 8)}));
            break;
        case LTT_CODE_FS_CLOSE:
            expand16<ltt_ev_memory>(expanded, loadAt<std::uint32_t>(p + 4), 0);
            break;
        case LTT_CODE_PAGE_ALLOC:
        case LTT_CODE_PAGE_FREE: {
            const std::uint64_t v = loadAt<std::uint64_t>(p + 4);
            expand16<ltt_ev_memory>(expanded, v & ~LTT_PAGE_ORDER_MASK, v & LTT_PAGE_ORDER_MASK);
            break;
        }
        default: // TRAP_EXIT, IRQ_EXIT, KERNEL_TIMER: no details
            break;
        }
    }
    return {code, c.event, c.subtype, c.size, stored};
}

// Decodes the record at `p` whose head is `h` (a record the checks above
// accepted). A version 2 compact record's details are expanded into
// `expanded` (kMaxExpanded bytes) as the full version 1 structure, reserved
// fields zero; other records' details are the bytes after their 8-byte
// header. `lastIp` is the block's last syscall ip (version 2), read by the
// codes that leave the ip out and updated by those that give one; `pid`
// becomes the task the record makes current (pidAfter()).
template <unsigned V>
[[gnu::always_inline]] inline DecodedRecord
decodeRecord(const std::byte* p, const ltt_record_header& h, std::uint64_t& lastIp,
             std::int32_t& pid, std::byte* expanded) {
    using detail::loadAt;
    if constexpr (V == LTT_FORMAT_V1) {
        pid = pidAfter(pid, h.event, h.size, p + sizeof h);
        return {0, h.event, h.subtype, h.size, h.size};
    } else {
        const std::uint32_t w = loadAt<std::uint32_t>(p);
        const auto code = static_cast<std::uint8_t>(w & LTT_CODE_MASK);
        if (code == LTT_CODE_EXT) {
            if (h.event == LTT_EV_SYSCALL_ENTRY && h.size >= sizeof h + sizeof(std::uint64_t))
                lastIp = loadAt<std::uint64_t>(p + sizeof h);
            pid = pidAfter(pid, h.event, h.size, p + sizeof h);
            return {code, h.event, h.subtype, h.size, h.size};
        }
        return decodeCompact(p, w, h.size, lastIp, pid, expanded);
    }
}

// One record met by walkBlock(), decoded.
struct BlockRecord {
    std::uint32_t offset = 0; // from the block's start
    std::uint64_t tsc = 0;
    std::int32_t pid = 0;       // task current on the CPU (the incoming one for SCHEDCHANGE)
    ltt_record_header header{}; // as a v1 record: delta, event, subtype, size = 8 + details
    std::uint16_t stored = 0;   // bytes the record takes in the block
    std::uint8_t code = 0;      // version 2: its code; version 1: 0
    const std::byte* record = nullptr;
    alignas(8) std::byte expanded[kMaxExpanded] = {};
    std::span<const std::byte> details() const {
        return {detailsInBlock(code) ? record + sizeof(ltt_record_header) : expanded,
                std::size_t(header.size) - sizeof(ltt_record_header)};
    }
};

template <unsigned V, class F>
RecordFault walkBlockAs(std::span<const std::byte> block, const BlockInfo& b, F& f) {
    const std::uint32_t endRecord = b.length - kBlockEndRecord;
    std::uint64_t base = b.startTsc, lastIp = 0;
    std::int32_t pid = b.pid;
    std::uint32_t records = 0;
    for (std::uint32_t o = 0; o <= endRecord;) {
        const std::byte* p = block.data() + o;
        const ltt_record_header h = recordHead<V>(p);
        if (o != 0 && o != endRecord) {
            RecordFault fault = checkRecord<V>(p, h, o, endRecord);
            if (fault.kind != RecordFault::None) {
                fault.at += o;
                return fault;
            }
        }
        BlockRecord r;
        r.offset = o;
        RecordFault timeFault;
        r.tsc = recordTsc<V>(h, p, base, &timeFault);
        if (timeFault.kind != RecordFault::None) {
            timeFault.at += o;
            return timeFault;
        }
        if (V != LTT_FORMAT_V1 || h.event == LTT_EV_HEARTBEAT)
            base = r.tsc;
        const DecodedRecord d = decodeRecord<V>(p, h, lastIp, pid, r.expanded);
        r.record = p;
        r.header = {h.delta, d.event, d.subtype, d.size};
        r.stored = d.stored;
        r.code = d.code;
        r.pid = pid;
        f(static_cast<const BlockRecord&>(r));
        ++records;
        o += h.size;
    }
    if (records != b.records)
        return {RecordFault::CountMismatch,
                static_cast<std::uint32_t>(endRecord + sizeof(ltt_record_header) +
                                           offsetof(ltt_block_end, events)),
                records, b.records};
    return {};
}

// Walks every record of a whole block (one parseFrame() accepted), from
// BLOCK_START to BLOCK_END, with its time and current task, checking each
// record as the reader does; `f(const BlockRecord&)` sees each one,
// decoded. Returns the first fault (`at` then counts from the block's
// start) or None.
template <class F>
RecordFault walkBlock(std::span<const std::byte> block, const BlockInfo& b, F&& f) {
    if (b.version == LTT_FORMAT_V1)
        return walkBlockAs<LTT_FORMAT_V1>(block, b, f);
    return walkBlockAs<LTT_FORMAT_V2>(block, b, f);
}

// How a version 2 producer writes one event (docs/trace-format.md §2.2,
// "Choosing a code"): `code` is the compact code the rules pick, or
// LTT_CODE_EXT when none fits; for a compact code `bytes` holds the whole
// record (`size` bytes, header word included). `delta` is the record's
// delta (below 2^27), `lastIp` the block's last syscall ip before it. The
// one place the choice is made: BlockBuilder writes with it, and the C
// API's producer check holds a record to it.
struct EncodedRecord {
    std::uint8_t code = LTT_CODE_EXT;
    std::uint16_t size = 0;
    alignas(8) std::byte bytes[kMaxExpanded] = {};
};
EncodedRecord encodeRecord(std::uint8_t id, std::uint8_t subtype, const void* details,
                           std::size_t n, std::uint32_t delta, std::uint64_t lastIp);

// Builds one block at a time, as the module writes them: BLOCK_START (and a
// LOST record when events were lost), records with their deltas, BLOCK_END
// with the record count, and the length filled in at the end. Version 2
// (the default) picks each record's code with encodeRecord() and writes a
// heartbeat before a record whose delta does not fit; version 1 writes
// deltas from the block's start or the last heartbeat. Nothing else is
// checked: tests build damaged blocks with it too.
class BlockBuilder {
public:
    explicit BlockBuilder(unsigned version = LTT_FILE_VERSION) : version_m(version) {}
    unsigned version() const { return version_m; }
    // Starts a block (dropping one not finished).
    void start(std::uint16_t cpu, std::uint32_t sequence, std::uint64_t startTsc, std::int32_t pid,
               std::uint64_t lost = 0, std::uint64_t lostFirstTsc = 0);
    // Appends a record of time `tsc` with `n` bytes of details: version 1,
    // its delta is tsc - base cut to 32 bits and its size rounded up to 8;
    // version 2, a compact record when one fits, else EXT (size rounded up
    // to 4).
    void record(std::uint64_t tsc, std::uint8_t id, std::uint8_t subtype, const void* details,
                std::size_t n);
    template <class T>
    void record(std::uint64_t tsc, std::uint8_t id, std::uint8_t subtype, const T& details) {
        record(tsc, id, subtype, &details, sizeof details);
    }
    // Appends the record as EXT whatever fits (version 2; version 1: as record()).
    void extRecord(std::uint64_t tsc, std::uint8_t id, std::uint8_t subtype, const void* details,
                   std::size_t n);
    // A HEARTBEAT record of time `tsc`, which becomes the delta base.
    void heartbeat(std::uint64_t tsc);
    // Appends BLOCK_END with `endTsc` (its time too, unless `recordTsc` is
    // given), sets the length and `flags` (LTT_BLOCK_F_FINAL) and returns
    // the block, valid until the next start().
    std::span<const std::byte> finish(std::uint64_t endTsc, std::uint16_t flags = 0,
                                      std::optional<std::uint64_t> recordTsc = {});

    bool empty() const { return bytes_m.empty(); }
    std::size_t size() const { return bytes_m.size(); }
    std::uint32_t records() const { return records_m; } // so far, BLOCK_START included
    std::uint64_t base() const { return base_m; }       // the current delta base
    std::span<const std::byte> bytes() const { return bytes_m; }
    void clear() {
        bytes_m.clear();
        records_m = 0;
        lastIp_m = 0;
    }

private:
    void put(std::uint32_t delta, std::uint8_t id, std::uint8_t subtype, const void* details,
             std::size_t n);
    std::uint32_t deltaTo(std::uint64_t tsc);
    unsigned version_m;
    std::vector<std::byte> bytes_m;
    std::uint32_t records_m = 0;
    std::uint64_t base_m = 0;   // version 2: the previous record's time
    std::uint64_t lastIp_m = 0; // version 2: the block's last syscall ip
};

} // namespace ltt
