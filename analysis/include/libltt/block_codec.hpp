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

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ltt/abi.h>
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
    std::uint32_t records = 0; // BLOCK_END.events as written by the producer
};

// Why a frame is not a whole block, and where: `at` is the offset of the
// offending field from the start of the block.
struct FrameFault {
    enum Kind : std::uint8_t {
        None,
        NotBlockStart,  // value: the first record's event id
        BadStartHeader, // BLOCK_START's delta or size
        BadMagic,
        BadLength,     // value: the length
        PastEnd,       // value: the length; limit: bytes left
        BadCpu,        // value: the CPU; limit: the CPU count
        BadSequence,   // value: the sequence; limit: the CPU; last: the previous
        NoBlockEnd,    // the record at length - 24 is not a BLOCK_END
        BadEventCount, // value: BLOCK_END.events
        Short,         // value: bytes left, fewer than the smallest block
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
    std::uint32_t ncpus = LTT_MAX_CPUS; // every block's cpu is below it
    std::uint64_t maxLength = LTT_BUFFER_MAX;
    // Per CPU, the last sequence read (-1: none): a block's sequence must
    // follow it. Empty: sequences are not checked.
    std::span<const std::int64_t> lastSequence;
};

// The largest block a trace may hold: the header's max_block when set, and
// never more than the module's largest buffer.
inline std::uint64_t maxBlockLength(const ltt_file_header& h) {
    return h.max_block != 0 && h.max_block < LTT_BUFFER_MAX ? h.max_block : LTT_BUFFER_MAX;
}

// Checks a block's first record (`left` bytes from its start to the end of
// the data). On success returns None and the block's length is bs.length.
FrameFault checkBlockStart(const ltt_record_header& rh, const ltt_block_start& bs,
                           std::uint64_t left, const FrameRules& rules);
// Checks the record at bs.length - kBlockEndRecord, and fills `out` (but
// its offset) from both ends.
FrameFault checkBlockEnd(const ltt_block_start& bs, const ltt_record_header& eh,
                         const ltt_block_end& be, BlockInfo& out);
// Both, on a block in memory (`bytes` from the block's start to the end of
// the data).
FrameFault parseFrame(std::span<const std::byte> bytes, const FrameRules& rules, BlockInfo& out);

// The bytes of the leading whole blocks of `bytes`: blocks follow each
// other by their declared length, as long as it is at least a BLOCK_START
// record and stays inside `bytes`.
std::size_t wholeBlockBytes(std::span<const std::byte> bytes);

// Whether the record at in-block offset `offset` is an ordinary record: a
// well-formed size that ends by the BLOCK_END record at `endRecord`, and not
// a record that moves the time base or frames a block. The merge's hot
// paths take such a record without further ado; any other goes through
// checkRecord().
inline bool ordinaryRecord(const ltt_record_header& h, std::uint64_t offset,
                           std::uint32_t endRecord) {
    // Each field read once: GCC's code for the merge's loops comes out
    // shorter than with h.size and h.event repeated.
    const std::uint16_t size = h.size;
    const std::uint8_t ev = h.event;
    return size >= sizeof h && (size & (LTT_RECORD_ALIGN - 1)) == 0 && offset + size <= endRecord &&
           ev != LTT_EV_HEARTBEAT && ev != LTT_EV_BLOCK_START && ev != LTT_EV_BLOCK_END;
}

// Why a record inside a whole block is damaged; `at` is the offending
// field's offset from the record.
struct RecordFault {
    enum Kind : std::uint8_t {
        None,
        BadSize,      // value: the size
        PastEnd,      // value: the size
        Structure,    // BLOCK_START or BLOCK_END before the block's end
        CountMismatch // value: records counted; limit: BLOCK_END.events
    };
    Kind kind = None;
    std::uint32_t at = 0;
    std::uint64_t value = 0, limit = 0;
    std::string message() const;
};

// Checks an inner record (neither the block's first nor its last) at
// in-block offset `offset`.
inline RecordFault checkRecord(const ltt_record_header& h, std::uint64_t offset,
                               std::uint32_t endRecord) {
    if (h.size < sizeof h || (h.size & (LTT_RECORD_ALIGN - 1)) != 0) [[unlikely]]
        return {RecordFault::BadSize, 6, h.size, 0};
    if (offset + h.size > endRecord) [[unlikely]]
        return {RecordFault::PastEnd, 6, h.size, 0};
    if (h.event == LTT_EV_BLOCK_START || h.event == LTT_EV_BLOCK_END) [[unlikely]]
        return {RecordFault::Structure, 4, h.event, 0};
    return {};
}

// The time of a record whose header is `h` at `record`, under delta base
// `base`: a heartbeat carries its time whole.
inline std::uint64_t recordTsc(const ltt_record_header& h, const std::byte* record,
                               std::uint64_t base) {
    if (h.event == LTT_EV_HEARTBEAT && h.size >= sizeof h + sizeof(ltt_ev_heartbeat)) {
        ltt_ev_heartbeat hb;
        std::memcpy(&hb, record + sizeof h, sizeof hb);
        return hb.tsc;
    }
    return base + h.delta;
}

// One record met by walkBlock().
struct BlockRecord {
    std::uint32_t offset = 0; // from the block's start
    std::uint64_t tsc = 0;
    std::int32_t pid = 0; // task current on the CPU (the incoming one for SCHEDCHANGE)
    ltt_record_header header{};
    std::span<const std::byte> details;
};

// Walks every record of a whole block (one parseFrame() accepted), from
// BLOCK_START to BLOCK_END, with the time base and current task, checking
// each record as the reader does; `f(const BlockRecord&)` sees each one.
// Returns the first fault (`at` then counts from the block's start) or None.
template <class F>
RecordFault walkBlock(std::span<const std::byte> block, const BlockInfo& b, F&& f) {
    const std::uint32_t endRecord = b.length - kBlockEndRecord;
    std::uint64_t base = b.startTsc;
    std::int32_t pid = b.pid;
    std::uint32_t records = 0;
    for (std::uint32_t o = 0; o <= endRecord;) {
        ltt_record_header h;
        std::memcpy(&h, block.data() + o, sizeof h);
        if (o != 0 && o != endRecord) {
            RecordFault fault = checkRecord(h, o, endRecord);
            if (fault.kind != RecordFault::None) {
                fault.at += o;
                return fault;
            }
        }
        BlockRecord r;
        r.offset = o;
        r.tsc = recordTsc(h, block.data() + o, base);
        if (h.event == LTT_EV_HEARTBEAT)
            base = r.tsc;
        else if (h.event == LTT_EV_SCHEDCHANGE && h.size >= sizeof h + sizeof(ltt_ev_schedchange))
            std::memcpy(&pid, block.data() + o + sizeof h + offsetof(ltt_ev_schedchange, in),
                        sizeof pid);
        r.pid = pid;
        r.header = h;
        r.details = block.subspan(o + sizeof h, h.size - sizeof h);
        f(r);
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

// Builds one block at a time, as the module writes them: BLOCK_START (and a
// LOST record when events were lost), records whose deltas count from the
// block's start or the last heartbeat, BLOCK_END with the record count, and
// the length filled in at the end. Nothing is checked: tests build damaged
// blocks with it too.
class BlockBuilder {
public:
    // Starts a block (dropping one not finished).
    void start(std::uint16_t cpu, std::uint32_t sequence, std::uint64_t startTsc, std::int32_t pid,
               std::uint64_t lost = 0, std::uint64_t lostFirstTsc = 0);
    // Appends a record of time `tsc` (its delta: tsc - base, cut to 32
    // bits) with `n` bytes of details, the size rounded up to 8.
    void record(std::uint64_t tsc, std::uint8_t id, std::uint8_t subtype, const void* details,
                std::size_t n);
    template <class T>
    void record(std::uint64_t tsc, std::uint8_t id, std::uint8_t subtype, const T& details) {
        record(tsc, id, subtype, &details, sizeof details);
    }
    // A HEARTBEAT record of time `tsc`, which becomes the delta base.
    void heartbeat(std::uint64_t tsc);
    // Appends BLOCK_END of time `endTsc`, sets the length and `flags`
    // (LTT_BLOCK_F_FINAL) and returns the block, valid until the next start().
    std::span<const std::byte> finish(std::uint64_t endTsc, std::uint16_t flags = 0);

    bool empty() const { return bytes_m.empty(); }
    std::size_t size() const { return bytes_m.size(); }
    std::uint32_t records() const { return records_m; } // so far, BLOCK_START included
    std::uint64_t base() const { return base_m; }       // the current delta base
    std::span<const std::byte> bytes() const { return bytes_m; }
    void clear() {
        bytes_m.clear();
        records_m = 0;
    }

private:
    void put(std::uint32_t delta, std::uint8_t id, std::uint8_t subtype, const void* details,
             std::size_t n);
    std::vector<std::byte> bytes_m;
    std::uint32_t records_m = 0;
    std::uint64_t base_m = 0;
};

} // namespace ltt
